"""What one "Make this faster" job produced: plan, candidates, verdicts and the choice."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from perfpilot.code.site import FunctionSite
from perfpilot.strategy.values import Candidate, Plan, Rejected

if TYPE_CHECKING:
    from perfpilot.engine.racing import Race
    from perfpilot.runner.values import Verdict


@dataclass(frozen=True)
class Trial:
    """One candidate and, when it was measured, the runner's verdict."""

    candidate: Candidate
    verdict: Verdict | None = None


@dataclass(frozen=True)
class Outcome:
    """The result of a job for one function.

    ``status`` is one of: ``improved`` (a candidate was measured faster), ``weakly-verified``
    (the best candidate was measured faster but its inputs left some behaviour of the original
    untested: it is offered, never applied without the user's word), ``unmeasured`` (a
    candidate exists but the runner did not run), ``not-improved`` (every candidate was measured
    and none was faster), ``no-candidate`` (the optimizer produced nothing usable), ``planned``
    (plan-only job). ``races``: the races between variants of one rewrite, whose finalists
    are among ``trials`` (the variants that left a race early are only in its record).
    """

    site: FunctionSite
    plan: Plan
    trials: tuple[Trial, ...] = ()
    rejected: tuple[Rejected, ...] = ()
    best: int | None = None
    status: str = "planned"
    message: str = ""
    races: tuple[Race, ...] = ()

    @property
    def chosen(self) -> Trial | None:
        """The trial selected for applying, if any."""
        return self.trials[self.best] if self.best is not None else None
