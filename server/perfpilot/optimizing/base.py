"""The optimizer interface."""

from __future__ import annotations

from typing import Protocol

from perfpilot.code.site import FunctionSite
from perfpilot.progress import JobContext
from perfpilot.strategy.values import OptimizeResult, Plan


class Optimizer(Protocol):
    """Rewrites one function following a plan."""

    name: str

    async def optimize(self, site: FunctionSite, plan: Plan, ctx: JobContext) -> OptimizeResult:
        """Return candidates for ``site``; raise ``Cancelled`` when ``ctx`` is cancelled."""
        ...
