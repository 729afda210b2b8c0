"""The accumulator-chain rule: one floating-point accumulator in an innermost loop: a serial chain
of dependent adds.
"""

from __future__ import annotations

from collections.abc import Iterator

from perfpilot.code.facts import FunctionFacts
from perfpilot.rules.base import Example, RuleSpec
from perfpilot.rules.detect.common import loop_phrase
from perfpilot.rules.detect.floating import fp_accumulator
from perfpilot.rules.finding import Finding, depth_bonus, make_finding


def accumulator_chain(facts: FunctionFacts) -> Iterator[Finding]:
    """One floating-point accumulator in an innermost loop: a serial chain of dependent adds."""
    for loop in facts.loops:
        acc = fp_accumulator(facts, loop)
        if acc is None:
            continue
        var, op = acc
        yield make_finding(
            "accumulator-chain",
            f"Every iteration of {loop_phrase(loop)} adds into the single accumulator `{var}`, "
            f"so each addition waits for the previous one (a dependency chain of 3-4 cycles per "
            f"element): keep 4 independent partial sums (`{var}0`..`{var}3`, unrolling by 4) "
            f"and combine them after the loop, so the additions overlap in the pipeline.",
            [loop.line],
            loop_range=loop.byte_range, node_range=loop.byte_range, names=[var],
            data={"var": var, "op": op},
            bonus=depth_bonus(loop.depth),
        )


RULE = RuleSpec(
    id="accumulator-chain",
    detect=accumulator_chain,
    examples=(
        Example("c", """
double dot(const double *a, const double *b, int n) {
    double s = 0.0;
    for (int i = 0; i < n; i++)
        s += a[i] * b[i];
    return s;
}
""", "dot"),
    ),
)
