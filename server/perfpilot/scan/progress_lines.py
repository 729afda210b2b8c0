"""The scan's progress, as plain lines on stderr (CI logs keep them; a terminal shows them):
functions done of the total, the current function and stage, and the estimated time left."""

from __future__ import annotations

import time
from collections.abc import Callable

from perfpilot.scan.progress_bar import TerminalBar
from perfpilot.scan.values import FunctionResult, Target


def duration(seconds: float) -> str:
    """``45s``, ``3m 05s``, ``2h 10m``."""
    s = max(0, round(seconds))
    if s < 60:
        return f"{s}s"
    if s < 3600:
        return f"{s // 60}m {s % 60:02d}s"
    return f"{s // 3600}h {(s % 3600) // 60:02d}m"


class ScanProgress:
    """Counts functions done and estimates the time left from this run's pace.

    The estimate is the mean time of the functions measured so far in this run, times those
    left, divided by how many run at once; before the first one finishes it says so."""

    def __init__(self, total: int, capacity: int, write: Callable[[str], None], *,
                 clock: Callable[[], float] = time.monotonic,
                 bar: TerminalBar | None = None) -> None:
        self.total = total
        self.done = 0
        self._capacity = max(1, capacity)
        self._write = write
        self._clock = clock
        self._spent: list[float] = []
        self._last: dict[str, str] = {}
        # On a terminal: stage changes move the bar; finished functions are lines above it.
        self._bar = bar
        if bar is not None:
            bar.start(total)

    def left(self) -> str:
        """The estimated time left, as words."""
        remaining = self.total - self.done
        if remaining <= 0:
            return "done"
        if not self._spent:
            return "time left unknown yet"
        mean = sum(self._spent) / len(self._spent)
        return f"about {duration(mean * remaining / self._capacity)} left"

    def _line(self, target: Target, what: str, *, ended: bool = False) -> None:
        if self._bar is not None:
            self._bar.show(self.done, f"{target.function}: {what}", self.left())
            if not ended:
                return
        self._write(f"scan [{self.done}/{self.total}] {target.path}: {target.function}: "
                    f"{what}; {self.left()}")

    def reused(self, result: FunctionResult) -> None:
        """A function finished by an earlier, interrupted run."""
        self.done += 1
        self._line(result.target, f"finished earlier ({result.status})", ended=True)

    def stage(self, target: Target, stage: str, message: str = "") -> None:
        """The function entered a stage (one line per stage change)."""
        if self._last.get(target.key) == stage:
            return
        self._last[target.key] = stage
        self._line(target, stage + (f" ({message})" if message else ""))

    def finished(self, result: FunctionResult) -> None:
        """The function's result came back."""
        self.done += 1
        self._spent.append(result.seconds)
        self._last.pop(result.target.key, None)
        word = result.verdict_word if result.verdict is not None else result.status
        self._line(result.target, f"{word} in {duration(result.seconds)}", ended=True)
