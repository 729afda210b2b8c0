"""What a rule module declares: how it detects its idiom, how it rewrites it, and its examples."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from perfpilot.code.facts import FunctionFacts
from perfpilot.code.site import Language
from perfpilot.rules.finding import Finding
from perfpilot.rules.rewrite_input import RuleInput, RuleOutput

Detector = Callable[[FunctionFacts], Iterable[Finding]]
RewriteFn = Callable[[RuleInput], RuleOutput]


@dataclass(frozen=True)
class Example:
    """A small function the rule must recognise (and rewrite, when it has a rewrite)."""

    language: Language
    source: str
    function: str


@dataclass(frozen=True)
class RuleSpec:
    """One optimization idiom: its detection, its rewrite, and the examples that prove them.

    ``finds``: the rule ids of the findings ``detect`` reports (the spec's ``id`` when empty).
    ``rewrite`` edits the function's current text (``RuleInput``) and returns changes tagged
    with the ids in ``rewrites_as``; it runs in rewrite ``phase`` (0 first, each phase
    re-parses the text the one before produced) at position ``order`` within it (when two
    rewrites of one phase overlap, the lower order wins).
    """

    id: str
    detect: Detector
    examples: tuple[Example, ...]
    finds: frozenset[str] = frozenset()
    rewrite: RewriteFn | None = None
    rewrites_as: frozenset[str] = frozenset()
    phase: int = 1
    order: int = 0
    summary: str = field(default="", compare=False)

    @property
    def finding_ids(self) -> frozenset[str]:
        """The rule ids of the findings this rule reports."""
        return self.finds or frozenset({self.id})
