"""The invariant-branch rule: an ``if`` inside a loop whose condition the loop never changes
(unswitching).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from perfpilot.code.facts import FunctionFacts
from perfpilot.code.syntax import (
    Node,
    callee,
    identifiers,
    line,
    unwrap,
    walk,
)
from perfpilot.rules.base import Example, RuleSpec
from perfpilot.rules.detect.common import code, loop_phrase, rng
from perfpilot.rules.finding import Finding, Proof, depth_bonus, make_finding


@dataclass(frozen=True)
class InvariantTest(Proof):
    """An ``if`` whose ``condition`` no iteration of ``loop`` (the outermost loop it stays
    invariant in) changes."""

    branch: Node
    condition: Node
    loop: Node


def invariant_branch(facts: FunctionFacts) -> Iterator[Finding]:
    """An ``if`` inside a loop whose condition the loop never changes (unswitching)."""
    reported: set[int] = set()
    for node in facts.in_loops("if_statement"):
        loop = facts.loop_of(node)
        if loop is None:
            continue
        cond = unwrap(node.child_by_field_name("condition"))
        if cond is None or cond.type == "declaration":
            continue
        vars_ = sorted(n for n in identifiers(cond)
                       if facts.var(n) is not None or not _is_called(cond, n))
        if not vars_ or not facts.invariant_in(cond, loop):
            continue
        target = loop
        while target.parent is not None and \
                facts.invariant_in(cond, facts.loops[target.parent]):
            target = facts.loops[target.parent]
        if target.index in reported:
            continue
        reported.add(target.index)
        yield make_finding(
            "invariant-branch",
            f"`if ({code(cond)})` on line {line(node)} is tested on every iteration of "
            f"{loop_phrase(target)}, but {', '.join(f'`{v}`' for v in vars_)} "
            f"{'is' if len(vars_) == 1 else 'are'} never changed in the loop: test it once "
            f"outside and write one loop per outcome (loop unswitching), which removes the "
            f"branch from the hot path and lets each loop vectorize.",
            [line(node), target.line],
            loop_range=target.byte_range, node_range=rng(node), names=vars_,
            proof=InvariantTest(node, cond, target.node),
            bonus=depth_bonus(loop.depth),
        )


def _is_called(expr: Node, name: str) -> bool:
    return any(n.type == "call_expression" and callee(n) == name for n in walk(expr, named=True))


RULE = RuleSpec(
    id="invariant-branch",
    detect=invariant_branch,
    examples=(
        Example("c", """
void scale(float *a, int n, int mode) {
    for (int i = 0; i < n; ++i) {
        if (mode == 2) a[i] *= 2.0f;
        else a[i] += 1.0f;
    }
}
""", "scale"),
        Example("c", """
int verbose;
long run(const int *a, int n) {
    long s = 0;
    for (int i = 0; i < n; ++i) {
        if (verbose) s += a[i];
    }
    return s;
}
""", "run"),
    ),
)
