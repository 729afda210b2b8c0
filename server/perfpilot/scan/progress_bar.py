"""The scan's progress on a terminal: a bar (rich) with the functions done of the total, the
time left and the function and stage now, and the finished functions' lines printed above it.
Logs and CI, where stderr is not a terminal, get the plain lines of ``progress_lines``."""

from __future__ import annotations

import sys
from typing import TextIO

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TaskID, TextColumn


class TerminalBar:
    """A live bar on ``stream``; ``print`` writes a line above it."""

    def __init__(self, stream: TextIO | None = None) -> None:
        self._console = Console(file=stream or sys.stderr, highlight=False)
        self._progress = Progress(TextColumn("scan"), BarColumn(), MofNCompleteColumn(),
                                  TextColumn("{task.fields[left]}"),
                                  TextColumn("{task.description}"), console=self._console)
        self._task: TaskID | None = None

    def start(self, total: int) -> None:
        """Show the bar for ``total`` functions."""
        self._progress.start()
        self._task = self._progress.add_task("", total=total, left="")

    def show(self, done: int, now: str, left: str) -> None:
        """Functions done, what runs now, the time left."""
        if self._task is not None:
            self._progress.update(self._task, completed=done, description=now, left=left)

    def print(self, line: str) -> None:
        """A line above the bar (a finished function, a notice)."""
        self._console.print(line, markup=False)

    def stop(self) -> None:
        """Leave the bar as it ended."""
        self._progress.stop()
