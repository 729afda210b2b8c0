"""The endl rule: ``std::endl`` written inside a loop (a flush per line)."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from perfpilot.code.facts import FunctionFacts
from perfpilot.code.syntax import (
    Node,
    line,
    node_text,
    operator,
)
from perfpilot.rules.base import Example, RuleSpec
from perfpilot.rules.detect.common import loop_phrase, rng
from perfpilot.rules.edits import Edit
from perfpilot.rules.finding import Finding, Proof, depth_bonus, make_finding
from perfpilot.rules.rewrite_input import Left, Planned, RuleInput

# detection


@dataclass(frozen=True)
class Flushes(Proof):
    """The ``endl`` operands, each the right side of a ``<<`` inside a loop."""

    operands: tuple[Node, ...]


def _stream_name(node: Node) -> str:
    return node_text(node).split("::")[-1].strip()


def endl(facts: FunctionFacts) -> Iterator[Finding]:
    """``std::endl`` written inside a loop (a flush per line)."""
    if "endl" not in facts.site.text:
        return
    hits: list[tuple[Node, int]] = []
    for n in facts.nodes("identifier") + facts.nodes("qualified_identifier"):
        if n.type == "identifier" and n.parent is not None and \
                n.parent.type == "qualified_identifier":
            continue  # counted through its qualified parent
        if _stream_name(n) != "endl":
            continue
        parent = n.parent
        if parent is None or parent.type != "binary_expression" or operator(parent) != "<<" \
                or parent.child_by_field_name("right") != n:
            continue
        loop = facts.loop_of(n)
        if loop is not None:
            hits.append((n, loop.index))
    if not hits:
        return
    first, li = hits[0]
    loop = facts.loops[li]
    lines = sorted({line(n) for n, _ in hits})
    stream = _leftmost(first.parent) if first.parent is not None else "the stream"
    yield make_finding(
        "endl",
        f"`{node_text(first)}` on line{'s' if len(lines) > 1 else ''} "
        f"{', '.join(str(n) for n in lines)} flushes `{stream}` on every iteration of "
        f"{loop_phrase(loop)}, one system call per line: write `'\\n'` instead and let the "
        f"stream flush once at the end.",
        [*lines, loop.line],
        loop_range=loop.byte_range, node_range=rng(first), names=[node_text(first), stream],
        bonus=depth_bonus(loop.depth),
        proof=Flushes(tuple(n for n, _ in hits)),
    )


def _leftmost(node: Node) -> str:
    cur: Node | None = node
    while cur is not None and cur.type == "binary_expression":
        cur = cur.child_by_field_name("left")
    return node_text(cur) if cur is not None else ""


# rewrite


def endl_fix(inp: RuleInput, finding: Finding) -> Planned | Left:
    """``'\\n'`` for each ``std::endl`` the finding proved (no flush per line)."""
    proof = finding.proof
    assert isinstance(proof, Flushes)
    where = ", ".join(str(x) for x in sorted({inp.line_of(n) for n in proof.operands}))
    return Planned(
        tuple(Edit(n.start_byte, n.end_byte, "'\\n'", "endl") for n in proof.operands),
        f"std::endl at line(s) {where} flushes the stream on every iteration; writing "
        "'\\n' produces the same output and lets the stream buffer it.",
        proof.operands, includes=())


RULE = RuleSpec(
    id="endl",
    detect=endl,
    fix=endl_fix,
    rewrites_as=frozenset({"endl"}),
    phase=1,
    order=1,
    examples=(
        Example("cpp", """
#include <iostream>
void show(int n) {
    std::ios::sync_with_stdio(false);
    for (int i = 0; i < n; ++i) {
        std::cout << i << std::endl;
    }
}
""", "show"),
    ),
)
