"""The substr-compare rule: a ``substr`` temporary built in a loop only to be compared.

``s.substr(i, k) == t`` copies ``k`` characters into a new string (allocating once ``k`` passes
the small-string buffer) on every iteration, then throws it away; ``s.compare(i, k, t) == 0``
compares the same characters in place, with the same exceptions and the same answer
(``substr_temporaries.py`` has the proof).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from perfpilot.code.facts import FunctionFacts
from perfpilot.code.syntax import (
    line,
)
from perfpilot.rules.base import Example, RuleSpec
from perfpilot.rules.containers.substr_temporaries import SubstrComparison, substr_comparisons
from perfpilot.rules.detect.common import code, loop_phrase, rng
from perfpilot.rules.edits import Edit
from perfpilot.rules.finding import Finding, Proof, depth_bonus, make_finding
from perfpilot.rules.rewrite_input import Left, Planned, RuleInput

RULE_ID = "substr-compare"


@dataclass(frozen=True)
class SubstrCompares(Proof):
    """Every comparison of a ``substr`` temporary proved in the function's loops, each with
    its ``compare`` form."""

    comparisons: tuple[SubstrComparison, ...]


def detect(facts: FunctionFacts) -> Iterator[Finding]:
    """Comparisons of ``substr`` temporaries of proved strings inside loops."""
    found = list(substr_comparisons(facts))
    if not found:
        return
    first = found[0]
    loop = facts.loop_of(first.node)
    if loop is None:
        return
    lines = sorted({line(c.node) for c in found})
    yield make_finding(
        RULE_ID,
        f"`{first.original}` (line{'s' if len(lines) > 1 else ''} "
        f"{', '.join(map(str, lines))}) builds a new string from `substr` on every iteration "
        f"of {loop_phrase(loop)} only to compare it: `{first.replacement}` compares the same "
        "characters in place, with no copy and no allocation.",
        [*lines, loop.line],
        loop_range=loop.byte_range, node_range=rng(first.node),
        names=[code(first.node)],
        bonus=depth_bonus(loop.depth),
        proof=SubstrCompares(tuple(found)),
    )


def fix(inp: RuleInput, finding: Finding) -> Planned | Left:
    """Each comparison the finding proved becomes its ``compare`` form."""
    proof = finding.proof
    assert isinstance(proof, SubstrCompares)
    found = proof.comparisons
    lines = sorted({inp.line_of(c.node) for c in found})
    return Planned(
        tuple(Edit(c.node.start_byte, c.node.end_byte, c.replacement, RULE_ID) for c in found),
        f"`{found[0].original}` at line(s) {', '.join(map(str, lines))} built a "
        "temporary string per iteration only to compare it; `compare` on the "
        "original string answers the same (and throws the same out_of_range) "
        "without copying.",
        tuple(sorted((c.node for c in found), key=lambda n: n.start_byte)), includes=())


RULE = RuleSpec(
    id=RULE_ID,
    detect=detect,
    fix=fix,
    rewrites_as=frozenset({RULE_ID}),
    phase=1,
    order=15,
    examples=(
        Example("cpp", """
#include <string>
int occurrences(const std::string& text, const std::string& word) {
    int c = 0;
    for (std::size_t i = 0; i + word.size() <= text.size(); ++i)
        if (text.substr(i, word.size()) == word) ++c;
    return c;
}
""", "occurrences"),
    ),
)
