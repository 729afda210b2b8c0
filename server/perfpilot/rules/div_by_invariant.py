"""The div-by-invariant rule: floating-point division by a value the loop never changes."""

from __future__ import annotations

from collections.abc import Iterator

from perfpilot.code.facts import FunctionFacts
from perfpilot.code.syntax import (
    identifiers,
    line,
    number,
    operator,
    root_name,
    text,
)
from perfpilot.rules.base import Example, RuleSpec
from perfpilot.rules.detect.common import code, loop_phrase, operand_text, rng
from perfpilot.rules.finding import Finding, depth_bonus, make_finding


def div_by_invariant(facts: FunctionFacts) -> Iterator[Finding]:
    """Floating-point division by a value the loop never changes."""
    seen: set[tuple[int, str]] = set()
    for b in facts.in_loops("binary_expression") + facts.in_loops("assignment_expression"):
        op = operator(b)
        if op not in ("/", "/="):
            continue
        loop = facts.loop_of(b)
        if loop is None:
            continue
        divisor = b.child_by_field_name("right")
        if divisor is None or number(divisor) is not None:
            continue
        if not identifiers(divisor) or not facts.invariant_in(divisor, loop):
            continue
        left = b.child_by_field_name("left")
        floats = [facts.var(n) for n in identifiers(divisor) | identifiers(left)]
        if not any(v is not None and v.is_float and not v.pointer for v in floats) and \
                not any(v is not None and v.is_float and v.pointer and
                        root_name(left) == v.name for v in floats):
            continue
        key = (loop.index, text(divisor))
        if key in seen:
            continue
        seen.add(key)
        d = code(divisor)
        yield make_finding(
            "div-by-invariant",
            f"`{code(b)}` on line {line(b)} divides by `{d}` on every iteration of "
            f"{loop_phrase(loop)}, but `{d}` does not change in the loop: compute "
            f"`1.0 / {operand_text(divisor)}` once before the loop and multiply (a division costs "
            f"several multiplications' latency; the result may differ in the last bit).",
            [line(b), loop.line],
            loop_range=loop.byte_range, node_range=rng(b),
            names=sorted(identifiers(divisor)),
            data={"divisor": text(divisor)},
            bonus=depth_bonus(loop.depth),
        )


RULE = RuleSpec(
    id="div-by-invariant",
    detect=div_by_invariant,
    examples=(
        Example("c", """
void normalize(double *a, int n, double total) {
    for (int i = 0; i < n; ++i) a[i] = a[i] / total;
}
""", "normalize"),
    ),
)
