"""The planner interface."""

from __future__ import annotations

from typing import Protocol

from perfpilot.code.site import FunctionSite
from perfpilot.progress import JobContext
from perfpilot.strategy.values import Plan


class Planner(Protocol):
    """Produces a strategy plan for one function."""

    name: str

    async def plan(self, site: FunctionSite, ctx: JobContext) -> Plan:
        """Return the plan for ``site``; raise ``Cancelled`` when ``ctx`` is cancelled."""
        ...
