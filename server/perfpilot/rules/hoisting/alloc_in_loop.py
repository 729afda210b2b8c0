"""The alloc-in-loop rule: ``new``/``malloc`` executed on every iteration of a loop."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from perfpilot.code.facts import FunctionFacts
from perfpilot.code.syntax import (
    Node,
    callee,
    line,
    receiver,
)
from perfpilot.rules.base import Example, RuleSpec
from perfpilot.rules.detect.common import (
    code,
    loop_phrase,
    rng,
)
from perfpilot.rules.finding import Finding, Proof, depth_bonus, make_finding


@dataclass(frozen=True)
class Allocation(Proof):
    """An allocation (``new`` or an allocator call) run on every iteration of ``loop``, and the
    frees and deletes in that loop."""

    alloc: Node
    loop: Node
    frees: tuple[Node, ...]


_ALLOC_FUNCS = frozenset({"malloc", "calloc", "realloc", "strdup", "aligned_alloc"})


def alloc_in_loop(facts: FunctionFacts) -> Iterator[Finding]:
    """``new``/``malloc`` executed on every iteration of a loop."""
    if not any(w in facts.site.text for w in ("new", "alloc", "strdup")):
        return
    for node in facts.in_loops("new_expression") + facts.in_loops("call_expression"):
        if node.type == "call_expression" and (callee(node) not in _ALLOC_FUNCS
                                               or receiver(node) is not None):
            continue
        loop = facts.loop_of(node)
        if loop is None:
            continue
        what = "`new`" if node.type == "new_expression" else f"`{callee(node)}`"
        frees = [c for c in facts.nodes("call_expression", loop.node)
                 if callee(c) == "free"] + facts.nodes("delete_expression", loop.node)
        freed = f" (and frees it again on line {line(frees[0])})" if frees else ""
        yield make_finding(
            "alloc-in-loop",
            f"`{code(node)}` on line {line(node)} allocates through {what} on every iteration "
            f"of {loop_phrase(loop)}{freed}: allocate the buffer once before the loop (sized for "
            f"the largest use) and reuse it; allocator calls and page faults dominate small "
            f"loop bodies.",
            [line(node), loop.line, *([line(frees[0])] if frees else [])],
            loop_range=loop.byte_range, node_range=rng(node),
            names=[callee(node) if node.type == "call_expression" else "new"],
            proof=Allocation(node, loop.node, tuple(frees)),
            bonus=depth_bonus(loop.depth),
        )


RULE = RuleSpec(
    id="alloc-in-loop",
    detect=alloc_in_loop,
    examples=(
        Example("c", """
#include <stdlib.h>
#include <string.h>
long work(const char *src, int n, int w) {
    long t = 0;
    for (int i = 0; i < n; i++) {
        char *buf = malloc(w);
        memcpy(buf, src, w);
        t += buf[0];
        free(buf);
    }
    return t;
}
""", "work"),
    ),
)
