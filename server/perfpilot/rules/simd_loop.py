"""The simd-loop rule: an innermost loop that sums floating-point values: not vectorized without
reassociation.
"""

from __future__ import annotations

from perfpilot.rules.base import Example, RuleSpec
from perfpilot.rules.detect.vector import simd_loop

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
