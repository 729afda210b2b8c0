"""The pow2-divmod rule: ``x % 8`` / ``x / 8`` on a signed integer in a loop."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from perfpilot.code.facts import FunctionFacts
from perfpilot.code.syntax import (
    Node,
    line,
    number,
    operator,
    root_name,
)
from perfpilot.rules.base import Example, RuleSpec
from perfpilot.rules.detect.common import code, loop_phrase, rng
from perfpilot.rules.finding import Finding, Proof, depth_bonus, make_finding


@dataclass(frozen=True)
class SignedPow2(Proof):
    """``x % 2^k`` or ``x / 2^k`` on the signed variable ``name``, and the mask or shift that
    equals it while ``name`` is never negative."""

    operation: Node
    name: str
    replacement: str

_SIGNED = frozenset({"int", "long", "long long", "short", "int32_t", "int64_t", "std::int32_t",
                     "std::int64_t", "signed", "long int", "signed char"})


def pow2_divmod(facts: FunctionFacts) -> Iterator[Finding]:
    """``x % 8`` / ``x / 8`` on a signed integer in a loop."""
    for b in facts.in_loops("binary_expression"):
        op = operator(b)
        if op not in ("%", "/"):
            continue
        k = number(b.child_by_field_name("right"))
        if k is None or k < 2 or k != int(k) or int(k) & (int(k) - 1):
            continue
        loop = facts.loop_of(b)
        left = b.child_by_field_name("left")
        name = root_name(left) if left is not None and left.type == "identifier" else None
        v = facts.var(name)
        if loop is None or name is None or v is None or v.pointer or v.base not in _SIGNED:
            continue
        kk = int(k)
        fast = f"{name} & {kk - 1}" if op == "%" else f"{name} >> {kk.bit_length() - 1}"
        yield make_finding(
            "pow2-divmod",
            f"`{code(b)}` on line {line(b)} in {loop_phrase(loop)}: `{name}` is a signed "
            f"`{v.base}`, so the compiler must add fix-up instructions for negative values; if "
            f"`{name}` is never negative, write `{fast}` (or make it unsigned).",
            [line(b), loop.line],
            loop_range=loop.byte_range, node_range=rng(b), names=[name],
            bonus=depth_bonus(loop.depth),
            proof=SignedPow2(b, name, fast),
        )


RULE = RuleSpec(
    id="pow2-divmod",
    detect=pow2_divmod,
    examples=(
        Example("c", """
int evens(const int *a, int n) {
    int c = 0;
    for (int i = 0; i < n; i++) {
        int v = a[i];
        if (v % 2 == 0) c++;
    }
    return c;
}
""", "evens"),
    ),
)
