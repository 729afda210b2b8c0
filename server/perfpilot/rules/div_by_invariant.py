"""The div-by-invariant rule: floating-point division by a value the loop never changes."""

from __future__ import annotations

from perfpilot.rules.base import Example, RuleSpec
from perfpilot.rules.detect.numeric import div_by_invariant

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
