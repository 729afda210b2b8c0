"""A fixed rule's rewrite that also says why it refused the candidates its detection never
reported (a proof that failed): those are not findings, so ``by_finding`` has no note for
them, but the user asked for the rule and is owed the reason it did nothing."""

from __future__ import annotations

from collections.abc import Callable, Iterable

from perfpilot.rules.by_finding import Detector, Fix, RewriteFn, by_finding
from perfpilot.rules.rewrite_input import RuleInput, RuleOutput

# The notes (``rule: ...``) on the candidates a detection refused, read on ``RuleInput``.
Refusals = Callable[[RuleInput], Iterable[str]]


def with_refusals(detect: Detector, fix: Fix, refusals: Refusals) -> RewriteFn:
    """``by_finding(detect, fix)``, followed by the notes of ``refusals``."""
    fixed = by_finding(detect, fix)

    def run(inp: RuleInput) -> RuleOutput:
        changes, notes = fixed(inp)
        return changes, notes + list(refusals(inp))

    return run
