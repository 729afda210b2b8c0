"""Strategy, Plan and Candidate: the values that flow from planner to optimizer to runner."""

from __future__ import annotations

from dataclasses import dataclass, field

from perfpilot.strategy.categories import Category


@dataclass(frozen=True)
class Strategy:
    """One planned optimization: a category, a program-specific explanation, evidence lines.

    ``lines`` are 1-based line numbers in the translation unit. ``impact`` orders strategies
    (higher first); builtin detectors set it, model plans keep their order.
    """

    category: Category
    explanation: str
    lines: tuple[int, ...] = ()
    impact: float = 0.0
    rule: str = ""


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
