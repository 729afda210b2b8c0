"""What a rule module declares: how it detects its idiom, how it rewrites it, and its examples."""

from __future__ import annotations

from dataclasses import dataclass, field

from perfpilot.code.site import Language
from perfpilot.rules.by_finding import Detector, Fix, Refusals, RewriteFn, by_finding


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
    ``fix`` rewrites one finding that ``detect`` reported on the function's current text
    (``RuleInput.facts``), from the finding's ``proof``: the rewrite acts on what detection
    proved and says why when it leaves a finding (``rules/by_finding.py`` runs it);
    ``refused`` gives the notes on candidates detection examined and refused (no finding).
    ``rewrite`` is the function the rewriter's phases run: for a rule with ``fix``, built from
    ``detect`` and ``fix``; else the rule's own, which edits the current text by itself.
    Either runs in rewrite ``phase`` (0 first, each phase re-parses the text the one before
    produced) at position ``order`` within it (when two rewrites of one phase overlap, the
    lower order wins); its changes carry the ids in ``rewrites_as``.
    """

    id: str
    detect: Detector
    examples: tuple[Example, ...]
    finds: frozenset[str] = frozenset()
    rewrite: RewriteFn | None = None
    fix: Fix | None = None
    refused: Refusals | None = None
    rewrites_as: frozenset[str] = frozenset()
    phase: int = 1
    order: int = 0
    summary: str = field(default="", compare=False)

    def __post_init__(self) -> None:
        if self.fix is not None and self.rewrite is None:
            object.__setattr__(self, "rewrite", by_finding(self.detect, self.fix, self.refused))

    @property
    def finding_ids(self) -> frozenset[str]:
        """The rule ids of the findings this rule reports."""
        return self.finds or frozenset({self.id})
