"""The simd-loop rule: an innermost loop that sums floating-point values: not vectorized without
reassociation.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from perfpilot.code.facts import FunctionFacts
from perfpilot.code.syntax import Node
from perfpilot.rules.base import Example, RuleSpec
from perfpilot.rules.detect.common import loop_phrase
from perfpilot.rules.detect.floating import fp_accumulator
from perfpilot.rules.finding import Finding, Proof, depth_bonus, make_finding


@dataclass(frozen=True)
class SimdPragma(Proof):
    """The innermost loop a ``#pragma omp simd`` line may precede, the line itself, and the
    variable it names with its operator (a reduction; ``op`` is empty for an elementwise
    loop, whose ``var`` is the first array it writes)."""

    loop: Node
    pragma: str
    var: str
    op: str


def simd_loop(facts: FunctionFacts) -> Iterator[Finding]:
    """An innermost loop that sums floating-point values: not vectorized without reassociation."""
    for loop in facts.loops:
        acc = fp_accumulator(facts, loop)
        if acc is None:
            continue
        var, op = acc
        yield make_finding(
            "simd-loop",
            f"{loop_phrase(loop)} accumulates into the floating-point `{var}` "
            f"(line {loop.line}); GCC will not reorder floating-point additions, so this "
            f"reduction runs one element at a time instead of 4-8 per vector instruction: add "
            f"`#pragma omp simd reduction({op}:{var})` before the loop (build with "
            f"`-fopenmp-simd`) to allow the vector units to split the sum.",
            [loop.line],
            loop_range=loop.byte_range, node_range=loop.byte_range, names=[var],
            proof=SimdPragma(loop.node, f"#pragma omp simd reduction({op}:{var})", var, op),
            bonus=depth_bonus(loop.depth),
        )


RULE = RuleSpec(
    id="simd-loop",
    detect=simd_loop,
    examples=(
        Example("c", """
float dot(const float *a, const float *b, int n) {
    float s = 0.0f;
    for (int i = 0; i < n; ++i) s += a[i] * b[i];
    return s;
}
""", "dot"),
    ),
)
