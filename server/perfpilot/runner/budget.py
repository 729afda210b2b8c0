"""The job budget: the time one job may spend measuring its candidates, and what it was doing
when the time ran out.

One budget is shared by every candidate of a job (the engine makes it) and by every stage of
one candidate's measurement (building, studying the original, comparing, timing, counting).
``enforce`` runs a measurement under the time left: when it runs out, the measurement is
cancelled (its subprocesses are killed) and ``expired`` says so, with the stage that ran out.
Time spent waiting for the measuring gate (another job's timing) is not counted: the budget
is this job's own work.
"""

from __future__ import annotations

import asyncio
import math
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from contextvars import ContextVar
from typing import Any

from perfpilot.progress import JobContext

SETTING = "runner.jobBudgetS"
# The tasks of the budgeted measurement that are running a subprocess (see ``running``).
_RUNS: ContextVar[set[asyncio.Task[Any]] | None] = ContextVar("perfpilot_budget_runs",
                                                              default=None)
_REAP_S = 5.0  # how long a stopped measurement waits for its subprocesses to be reaped


@contextmanager
def running() -> Iterator[None]:
    """Mark the current task as running a subprocess of a budgeted measurement. When the
    budget stops the measurement, it waits for such tasks to kill and reap their processes
    before it reports: builds run side by side, and the first one cancelled would otherwise
    end the measurement while the others are still cleaning up."""
    runs = _RUNS.get()
    task = asyncio.current_task()
    if runs is None or task is None:
        yield
        return
    runs.add(task)
    try:
        yield
    finally:
        runs.discard(task)


class BudgetSpent(Exception):
    """Raised inside a measurement when the job's budget ran out (see ``JobBudget.enforce``)."""


class JobBudget:
    """Seconds a job may spend, the deadline they give, and the stage it is in.

    ``seconds`` <= 0 means no limit. The deadline is on the event loop's clock; it starts on the
    first ``enforce`` (or ``start``), so a budget made early does not count planning time.
    """

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self.stage = "building"
        self.detail = ""
        self._deadline: float | None = None
        self._timeouts: list[asyncio.Timeout] = []

    @property
    def limited(self) -> bool:
        """Whether there is a limit at all."""
        return self.seconds > 0

    def start(self) -> None:
        """Start the clock (once; later calls keep the first start)."""
        if self._deadline is None and self.limited:
            self._deadline = asyncio.get_running_loop().time() + self.seconds

    def left(self) -> float:
        """Seconds left (``math.inf`` without a limit; 0 once spent)."""
        if not self.limited:
            return math.inf
        self.start()
        assert self._deadline is not None
        return max(0.0, self._deadline - asyncio.get_running_loop().time())

    @property
    def spent(self) -> bool:
        """Whether the time has run out."""
        return self.limited and self.left() <= 0

    def clip(self, timeout_s: float, floor_s: float = 0.5) -> float:
        """``timeout_s``, or the time left when that is shorter (never below ``floor_s``, so a
        last step still gets a chance to report)."""
        return max(floor_s, min(timeout_s, self.left()))

    def enter(self, stage: str, detail: str = "") -> None:
        """Say which stage the job is in (``studying the original``), for the message."""
        self.stage, self.detail = stage, detail

    def watching(self, ctx: JobContext) -> JobContext:
        """``ctx``, whose progress reports also tell the budget what the job is doing (the
        detail of the message when the time runs out)."""
        def report(stage: str, message: str, percent: int | None) -> None:
            self.detail = message
            ctx.on_report(stage, message, percent)

        return JobContext(cancelled=ctx.cancelled, on_report=report, usage=ctx.usage)

    def message(self) -> str:
        """``Stopped after 120 s while studying the original: checking ... (runner.jobBudgetS
        sets the budget).``"""
        what = f"while {self.stage}" + (f": {self.detail}" if self.detail else "")
        return (f"Stopped after {self.seconds:g} s {what}. The job's time budget "
                f"({SETTING}) ran out before a verdict.")

    def not_started(self) -> str:
        """Why a candidate was not measured at all: the budget went to those before it."""
        return (f"Not measured: the job's time budget of {self.seconds:g} s ({SETTING}) was "
                "spent on the candidates before this one.")

    @asynccontextmanager
    async def enforce(self) -> AsyncIterator[None]:
        """Run the block under the time left; raise ``BudgetSpent`` when it runs out (the block
        is cancelled, which kills any subprocess it waits on)."""
        if not self.limited:
            yield
            return
        self.start()
        assert self._deadline is not None
        runs: set[asyncio.Task[Any]] = set()
        token = _RUNS.set(runs)
        try:
            async with asyncio.timeout_at(self._deadline) as cm:
                self._timeouts.append(cm)
                try:
                    yield
                finally:
                    self._timeouts.remove(cm)
        except TimeoutError as exc:
            pending = [t for t in runs if not t.done()]
            if pending:
                await asyncio.wait(pending, timeout=_REAP_S)
            raise BudgetSpent(self.message()) from exc
        finally:
            _RUNS.reset(token)

    @asynccontextmanager
    async def paused(self) -> AsyncIterator[None]:
        """Do not count the block's time (waiting for the gate while another job times)."""
        if not self.limited or self._deadline is None:
            yield
            return
        loop = asyncio.get_running_loop()
        began = loop.time()
        for cm in self._timeouts:
            if not cm.expired():
                cm.reschedule(None)  # no deadline while waiting
        try:
            yield
        finally:
            self._deadline += loop.time() - began
            for cm in self._timeouts:
                if not cm.expired():
                    cm.reschedule(self._deadline)
