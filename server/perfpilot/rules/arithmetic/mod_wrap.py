"""The mod-wrap rule: a cyclic counter ``k = (k + 1) % n`` in a loop: an integer division per
iteration.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from perfpilot.code.facts import FunctionFacts
from perfpilot.code.syntax import (
    Node,
    identifiers,
    line,
    node_text,
    number,
    operator,
    unwrap,
)
from perfpilot.rules.base import Example, RuleSpec
from perfpilot.rules.detect.common import code, loop_phrase, rng
from perfpilot.rules.finding import Finding, Proof, depth_bonus, make_finding


@dataclass(frozen=True)
class CyclicCounter(Proof):
    """The wrapping assignment ``k = (k + 1) % n``, its counter ``k`` and its bound ``n``
    (which the loop never changes), and the compare-and-reset that replaces it."""

    assignment: Node
    counter: str
    bound: Node
    replacement: str


def mod_wrap(facts: FunctionFacts) -> Iterator[Finding]:
    """A cyclic counter ``k = (k + 1) % n`` in a loop: an integer division per iteration."""
    for a in facts.in_loops("assignment_expression"):
        if operator(a) != "=":
            continue
        left, right = a.child_by_field_name("left"), unwrap(a.child_by_field_name("right"))
        if left is None or left.type != "identifier" or right is None or \
                right.type != "binary_expression" or operator(right) != "%":
            continue
        k = node_text(left)
        inc = unwrap(right.child_by_field_name("left"))
        n = right.child_by_field_name("right")
        if inc is None or n is None or number(n) is not None or inc.type != "binary_expression" \
                or operator(inc) != "+" or node_text(inc.child_by_field_name("left")) != k \
                or number(inc.child_by_field_name("right")) != 1.0:
            continue
        loop = facts.loop_of(a)
        if loop is None or not facts.invariant_in(n, loop):
            continue
        bound = code(n)
        yield make_finding(
            "mod-wrap",
            f"`{code(a)}` on line {line(a)} wraps the counter `{k}` with an integer division "
            f"on every iteration of {loop_phrase(loop)} (tens of cycles each); since `{k}` only "
            f"steps by one, compare and reset instead: `if (++{k} == {bound}) {k} = 0;`.",
            [line(a), loop.line],
            loop_range=loop.byte_range, node_range=rng(a), names=[k, *sorted(identifiers(n))],
            bonus=depth_bonus(loop.depth),
            proof=CyclicCounter(a, k, n, f"if (++{k} == {bound}) {k} = 0;"),
        )


RULE = RuleSpec(
    id="mod-wrap",
    detect=mod_wrap,
    examples=(
        Example("c", """
long ring(const int *buf, int n, int steps) {
    long s = 0;
    int k = 0;
    for (int i = 0; i < steps; ++i) {
        s += buf[k];
        k = (k + 1) % n;
    }
    return s;
}
""", "ring"),
    ),
)
