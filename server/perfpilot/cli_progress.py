"""Progress lines for ``perfpilot -v``: a line per stage, not one per progress tick."""

from __future__ import annotations

import time
from collections.abc import Callable

# Token counts arrive five times a second while a model generates; one line per this many
# seconds within a stage is enough to show it is alive.
REPEAT_EVERY_S = 10.0


class ProgressPrinter:
    """A ``JobContext`` reporter that writes a line whenever the stage changes, and within
    one stage (``generating``: 12 tokens, 40 tokens...) at most one per ``every_s``."""

    def __init__(self, write: Callable[[str], None], *, every_s: float = REPEAT_EVERY_S,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self._write = write
        self._every_s = every_s
        self._clock = clock
        self._stage = ""
        self._last = 0.0

    def __call__(self, stage: str, message: str, percent: int | None) -> None:
        now = self._clock()
        if stage == self._stage and now - self._last < self._every_s:
            return
        self._stage, self._last = stage, now
        self._write(f"[{stage}] {message}")
