"""The invariant-expression rule: a floating-point product in an inner loop whose invariant factors
are not grouped.
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
)
from perfpilot.rules.base import Example, RuleSpec
from perfpilot.rules.detect.common import code, loop_phrase, rng
from perfpilot.rules.finding import Finding, Proof, depth_bonus, make_finding


@dataclass(frozen=True)
class InvariantFactors(Proof):
    """A product in ``loop`` and its ``invariant`` factors (two or more, not all of them)."""

    product: Node
    invariant: tuple[Node, ...]
    loop: Node


def _factors(node: Node) -> list[Node]:
    """The operands of a left-nested product ``a * b * c`` (a lone operand: itself)."""
    out: list[Node] = []
    cur: Node | None = node
    while cur is not None and cur.type == "binary_expression" and operator(cur) == "*":
        right = cur.child_by_field_name("right")
        if right is not None:
            out.append(right)
        cur = cur.child_by_field_name("left")
    if cur is not None:
        out.append(cur)
    return list(reversed(out))


def invariant_factors(facts: FunctionFacts) -> Iterator[Finding]:
    """A floating-point product in an inner loop whose invariant factors are not grouped."""
    seen: set[int] = set()
    for loop in facts.loops:
        if not loop.innermost or loop.body is None:
            continue
        for b in facts.nodes("binary_expression", loop.body):
            if operator(b) != "*" or (b.parent is not None and b.parent.type ==
                                      "binary_expression" and operator(b.parent) == "*"):
                continue  # only whole products
            factors = _factors(b)
            if len(factors) < 3:
                continue
            inv = [f for f in factors if number(f) is None and identifiers(f)
                   and facts.invariant_in(f, loop)]
            if len(inv) < 2 or len(inv) == len(factors):
                continue
            if not any((v := facts.var(n)) is not None and v.is_float
                       for f in factors for n in identifiers(f)) and \
                    "double" not in node_text(b) and "float" not in node_text(b):
                continue  # integer products may be regrouped by the compiler
            if b.start_byte in seen:
                continue
            seen.add(b.start_byte)
            group = " * ".join(code(f, 40) for f in inv)
            yield make_finding(
                "invariant-expression",
                f"`{code(b, 60)}` on line {line(b)} multiplies by "
                f"{', '.join(f'`{code(f, 40)}`' for f in inv)} on every iteration of "
                f"{loop_phrase(loop)}, but they do not change in the loop; floating-point "
                f"rules keep the compiler from regrouping the product, so compute `{group}` "
                f"once before the loop and multiply by that.",
                [line(b), loop.line],
                loop_range=loop.byte_range, node_range=rng(b),
                names=sorted({n for f in inv for n in identifiers(f)}),
                proof=InvariantFactors(b, tuple(inv), loop.node),
                bonus=depth_bonus(loop.depth),
            )


RULE = RuleSpec(
    id="invariant-expression",
    detect=invariant_factors,
    examples=(
        Example("cpp", """
#include <vector>
double total(const std::vector<std::vector<double>> &m, double w, int rows, int cols) {
    double t = 0.0;
    for (int j = 0; j < cols; ++j)
        for (int i = 0; i < rows; ++i)
            t += m[i][j] * w * (double)(j + 1);
    return t;
}
""", "total"),
    ),
)
