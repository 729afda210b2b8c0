"""The flag-early-exit rule: a loop that only sets one local to one constant when a condition
holds keeps running after the first hit, though no later iteration can change anything
(``flag_loop.py`` has the proof). Breaking out at the first hit does the same in fewer
iterations: all of them when nothing matches, one when the first element does.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from perfpilot.code.facts import FunctionFacts
from perfpilot.code.purity import pure_helper
from perfpilot.code.syntax import (
    Node,
    line,
    node_text,
)
from perfpilot.rules.base import Example, RuleSpec
from perfpilot.rules.detect.common import loop_phrase
from perfpilot.rules.edits import Edit
from perfpilot.rules.finding import Finding, Proof, depth_bonus, make_finding
from perfpilot.rules.rewrite_input import Left, Planned, RuleInput
from perfpilot.rules.search.flag_loop import FlagLoop, flag_loop

RULE_ID = "flag-early-exit"


@dataclass(frozen=True)
class FlagStore(Proof):
    """The flag loop and its one store (``flag = constant;``) to follow with ``break``."""

    loop: Node
    store: Node
    flag: str
    constant: str


def _flag_loops(facts: FunctionFacts) -> Iterator[tuple[int, FlagLoop]]:
    """The function's flag loops, with each one's index in ``facts.loops``."""
    for lp in facts.loops:
        node = lp.node

        def pure(name: str, at: Node = node) -> bool:
            return pure_helper(name, at, facts.unit)

        found = flag_loop(node, facts.loop_types, pure)
        if isinstance(found, FlagLoop):
            yield lp.index, found


def flag_early_exit(facts: FunctionFacts) -> Iterator[Finding]:
    """A loop whose only effect is one constant store into a local under a condition."""
    if "=" not in facts.site.text:
        return
    for index, found in _flag_loops(facts):
        loop = facts.loops[index]
        phrase = loop_phrase(loop)
        store = found.statement
        store_line = line(store)
        yield make_finding(
            RULE_ID,
            f"{phrase[0].upper()}{phrase[1:]} only sets `{found.flag}` to `{found.constant}` "
            f"(line {store_line}); once it has, no later iteration can change anything, yet "
            f"the loop runs to its end: `break` right after the store, so it stops at the "
            f"first hit.",
            [loop.line, store_line],
            loop_range=loop.byte_range, node_range=found.store, names=[found.flag],
            bonus=depth_bonus(loop.depth),
            proof=FlagStore(loop.node, store, found.flag, found.constant),
        )


def flag_early_exit_fix(inp: RuleInput, finding: Finding) -> Planned | Left:
    """``{ flag = constant; break; }`` for the store the finding proved."""
    proof = finding.proof
    assert isinstance(proof, FlagStore)
    store = proof.store
    return Planned(
        (Edit(store.start_byte, store.end_byte, f"{{ {node_text(store)} break; }}", RULE_ID),),
        f"The loop at line {inp.line_of(proof.loop)} only sets '{proof.flag}' to "
        f"{proof.constant}; after the first store no iteration can change anything, so it "
        "now stops there.",
        (proof.loop,), includes=())


RULE = RuleSpec(
    id=RULE_ID,
    detect=flag_early_exit,
    fix=flag_early_exit_fix,
    rewrites_as=frozenset({RULE_ID}),
    phase=1,
    order=2,
    examples=(
        Example("cpp", """
#include <string>
#include <vector>
int with_letter(const std::vector<std::string>& words, char c) {
    int n = 0;
    for (const auto& w : words) {
        bool has = false;
        for (std::size_t i = 0; i < w.size(); ++i)
            if (w[i] == c) has = true;
        if (has) ++n;
    }
    return n;
}
""", "with_letter"),
    ),
)
