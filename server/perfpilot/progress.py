"""Cancellation and progress reporting shared by every layer below the engine.

Backends and the runner receive a ``JobContext``; they call ``ctx.report(...)`` at stage changes
and ``ctx.check()`` (or await ``ctx.cancelled.wait()``) so a cancelled job stops promptly. They
know nothing of LSP: the engine turns reports into work-done progress.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass, field


class Cancelled(Exception):
    """Raised inside a job when its cancellation was requested."""


ReportFn = Callable[[str, str, "int | None"], None]


def _ignore(stage: str, message: str, percent: int | None) -> None:
    return None


@dataclass(frozen=True)
class JobContext:
    """Cancellation flag plus a progress callback ``(stage, message, percent)``."""

    cancelled: asyncio.Event = field(default_factory=asyncio.Event)
    on_report: ReportFn = _ignore

    def report(self, stage: str, message: str = "", percent: int | None = None) -> None:
        """Tell the user which stage the job is in (planning, generating, building, ...)."""
        self.on_report(stage, message, percent)

    def check(self) -> None:
        """Raise ``Cancelled`` if the job was cancelled."""
        if self.cancelled.is_set():
            raise Cancelled()

    def cancel(self) -> None:
        """Request cancellation."""
        self.cancelled.set()

    @property
    def is_cancelled(self) -> bool:
        """Whether cancellation was requested."""
        return self.cancelled.is_set()
