"""The optimizer interface."""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

from perfpilot.code.site import FunctionSite
from perfpilot.progress import JobContext
from perfpilot.strategy.values import Candidate, OptimizeResult, Plan

if TYPE_CHECKING:
    from perfpilot.runner.values import Verdict


class Optimizer(Protocol):
    """Rewrites one function following a plan."""

    name: str

    async def optimize(self, site: FunctionSite, plan: Plan, ctx: JobContext) -> OptimizeResult:
        """Return candidates for ``site``; raise ``Cancelled`` when ``ctx`` is cancelled."""
        ...


class Repairer(Protocol):
    """An optimizer that can correct a candidate the runner turned down (model backends)."""

    async def repair(self, site: FunctionSite, plan: Plan, candidate: Candidate,
                     verdict: Verdict, round_: int, ctx: JobContext) -> OptimizeResult:
        """A corrected version of ``candidate`` given the runner's ``verdict`` (round
        ``round_``, from 1); no candidate when there is none."""
        ...
