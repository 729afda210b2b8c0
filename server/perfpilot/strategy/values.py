"""Strategy, Plan and Candidate: the values that flow from planner to optimizer to runner."""

from __future__ import annotations

from dataclasses import dataclass, field

from perfpilot.strategy.categories import Category


@dataclass(frozen=True)
class Strategy:
    """One planned optimization: a category, a program-specific explanation, evidence lines.

    ``lines`` are 1-based line numbers in the translation unit. ``impact`` orders strategies
    (higher first); builtin detectors set it, model plans keep their order. ``callee`` names
    the function of the unit, called by the planned one, that the strategy is about ("" for
    the planned function itself); the built-in optimizer rewrites a copy of it. ``advice`` is
    empty, or says why the built-in rewriter leaves the strategy to the user (its rewrite would
    change nothing here, or there is none): the plan keeps it as advice, a model may act on it.
    """

    category: Category
    explanation: str
    lines: tuple[int, ...] = ()
    impact: float = 0.0
    rule: str = ""
    callee: str = ""
    advice: str = ""


def advice_label(reason: str) -> str:
    """How every view of a plan shows a strategy the built-in rewriter leaves to the user."""
    return f"advice (PerfPilot leaves it to you: {reason})"


@dataclass(frozen=True)
class Plan:
    """An ordered strategy plan for one function."""

    strategies: tuple[Strategy, ...]
    backend: str
    raw_text: str = ""
    notes: tuple[str, ...] = ()
    model: str = ""

    @property
    def main_category(self) -> Category | None:
        """The first (highest-impact) category, if any."""
        return self.strategies[0].category if self.strategies else None


@dataclass(frozen=True)
class Candidate:
    """A rewritten function: its full new text, the strategies it applied, where it came from."""

    code: str
    strategies: tuple[Strategy, ...]
    backend: str
    sample: int = 0
    notes: tuple[str, ...] = field(default_factory=tuple)
    needs_openmp: bool = False
    # Standard headers the new code needs and the unit lacks ("<unordered_set>"): they are
    # added to the unit with the function, at the end of its include block.
    includes: tuple[str, ...] = ()
    # Candidates of one non-empty ``family`` are variants of one rewrite (the same code up to a
    # clause, such as an OpenMP schedule): they are raced, and only the best are measured in
    # full. ``variant`` names what sets each apart ("schedule(dynamic, 16)").
    family: str = ""
    variant: str = ""
    # 0 for a first answer; r for the answer to repair round r (the model was shown the
    # verdict of an earlier candidate and asked for a corrected version).
    round: int = 0


@dataclass(frozen=True)
class Rejected:
    """A candidate that was dropped before measurement, and why."""

    backend: str
    reason: str
    sample: int = 0
    code: str = ""
    # The model's whole answer, kept for the report (shown escaped, never interpreted).
    answer: str = ""
    round: int = 0


@dataclass(frozen=True)
class OptimizeResult:
    """Candidates that passed the optimizer's own checks, and those it dropped."""

    candidates: tuple[Candidate, ...]
    rejected: tuple[Rejected, ...] = ()
    # False when some samples could not be generated (a timeout, a dropped connection): the
    # result is used but not cached, so a later run asks for those samples again.
    complete: bool = True
