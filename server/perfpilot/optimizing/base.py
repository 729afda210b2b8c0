"""The optimizer interface and the rejection record for dropped candidates."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from perfpilot.code.site import FunctionSite
from perfpilot.progress import JobContext
from perfpilot.strategy.values import Candidate, Plan


@dataclass(frozen=True)
class Rejected:
    """A candidate that was dropped before measurement, and why."""

    backend: str
    reason: str
    sample: int = 0
    code: str = ""


@dataclass(frozen=True)
class OptimizeResult:
    """Candidates that passed the optimizer's own checks, and those it dropped."""

    candidates: tuple[Candidate, ...]
    rejected: tuple[Rejected, ...] = ()
    # False when some samples could not be generated (a timeout, a dropped connection): the
    # result is used but not cached, so a later run asks for those samples again.
    complete: bool = True


class Optimizer(Protocol):
    """Rewrites one function following a plan."""

    name: str

    async def optimize(self, site: FunctionSite, plan: Plan, ctx: JobContext) -> OptimizeResult:
        """Return candidates for ``site``; raise ``Cancelled`` when ``ctx`` is cancelled."""
        ...
