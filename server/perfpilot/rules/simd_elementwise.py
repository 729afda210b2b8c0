"""The simd-elementwise rule: an innermost loop computing floating-point elements ``y[i] = f(x[i],
...)``.
"""

from __future__ import annotations

from perfpilot.rules.base import Example, RuleSpec
from perfpilot.rules.detect.vector import simd_elementwise

RULE = RuleSpec(
    id="simd-elementwise",
    detect=simd_elementwise,
    finds=frozenset({"simd-loop"}),
    examples=(
        Example("c", """
void axpby(float *out, const float *x, const float *y, float alpha, float beta, int n) {
    for (int i = 0; i < n; i++)
        out[i] = alpha * x[i] + beta * y[i];
}
""", "axpby"),
    ),
)
