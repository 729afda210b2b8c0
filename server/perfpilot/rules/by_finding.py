"""A rule's rewrite built from its detection and its fix: every finding ``detect`` reports on
the function's current text is handed to ``fix`` once, and ends in a change or a note that
says why it stays. Nothing is found twice, and nothing detection promised ends in silence."""

from __future__ import annotations

from collections.abc import Callable, Iterable

from perfpilot.code.facts import FunctionFacts
from perfpilot.rules.finding import Finding
from perfpilot.rules.rewrite_input import (
    Change,
    Left,
    Planned,
    RuleInput,
    RuleOutput,
    left_note,
    planned_change,
)

Detector = Callable[[FunctionFacts], Iterable[Finding]]
RewriteFn = Callable[[RuleInput], RuleOutput]
# A rewrite of one finding (detected on ``RuleInput.facts``): the change, or why it stays.
Fix = Callable[[RuleInput, Finding], Planned | Left]
# The notes (``rule: ...``) on the candidates a detection examined and refused: they are not
# findings, but a user who asked for the rule is owed the reason it did nothing there.
Refusals = Callable[[RuleInput], Iterable[str]]


def by_finding(detect: Detector, fix: Fix, refused: Refusals | None = None) -> RewriteFn:
    """The rewrite that runs ``fix`` on each finding of ``detect`` (the ``RewriteFn`` the
    rewriter's phases call), then adds the notes of ``refused``."""

    def run(inp: RuleInput) -> RuleOutput:
        changes: list[Change] = []
        notes: list[str] = []
        for finding in detect(inp.facts):
            out = fix(inp, finding)
            if isinstance(out, Left):
                notes.append(left_note(inp, finding.rule, out))
            else:
                changes.append(planned_change(inp, finding.rule, out))
        if refused is not None:
            notes.extend(refused(inp))
        return changes, notes

    return run
