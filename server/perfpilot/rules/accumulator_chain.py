"""The accumulator-chain rule: one floating-point accumulator in an innermost loop: a serial chain
of dependent adds.
"""

from __future__ import annotations

from perfpilot.rules.base import Example, RuleSpec
from perfpilot.rules.detect.vector import accumulator_chain

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
