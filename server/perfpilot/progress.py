"""Cancellation and progress reporting shared by every layer below the engine.

Backends and the runner receive a ``JobContext``; they call ``ctx.report(...)`` at stage changes
and ``ctx.check()`` (or await ``ctx.cancelled.wait()``) so a cancelled job stops promptly. They
know nothing of LSP: the engine turns reports into work-done progress.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from perfpilot.model_usage import UsageMeter

# A test hook, off unless the environment names a folder: see ``gate_for_tests``.
TEST_GATE_ENV = "PERFPILOT_TEST_GATE_DIR"
_TEST_GATE_POLL_S = 0.05


class Cancelled(Exception):
    """Raised inside a job when its cancellation was requested."""


ReportFn = Callable[[str, str, "int | None"], None]


def _ignore(stage: str, message: str, percent: int | None) -> None:
    return None


@dataclass(frozen=True)
class JobContext:
    """Cancellation flag plus a progress callback ``(stage, message, percent)``; ``usage``,
    when set, is where model backends count the job's requests and tokens."""

    cancelled: asyncio.Event = field(default_factory=asyncio.Event)
    on_report: ReportFn = _ignore
    usage: UsageMeter | None = field(default=None, compare=False)

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


async def gate_for_tests(stage: str, ctx: JobContext | None = None) -> None:
    """A test hook at a stage boundary, so tests can act on a job while it is at a stage
    instead of racing it there.

    Only when the environment variable ``PERFPILOT_TEST_GATE_DIR`` names a folder (never in
    normal use): if a file named ``stage`` is in that folder, this writes ``stage.reached`` there
    and waits while the file exists (the test deletes it to release the job) or until the job
    is cancelled. Otherwise it returns at once.
    """
    folder = os.environ.get(TEST_GATE_ENV)
    if not folder:
        return
    gate = Path(folder) / stage
    if not gate.exists():
        return
    (Path(folder) / f"{stage}.reached").touch()
    while gate.exists():
        if ctx is not None:
            ctx.check()
        await asyncio.sleep(_TEST_GATE_POLL_S)
