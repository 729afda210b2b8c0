"""The pow-strength rule: ``pow(x, 2)``, ``pow(x, 3)``, ``pow(x, 0.5)``, ``pow(x, -1)`` and kin."""

from __future__ import annotations

from perfpilot.rules.base import Example, RuleSpec
from perfpilot.rules.detect.numeric import pow_strength
from perfpilot.rules.rewrite.text_rules import pow_rule

RULE = RuleSpec(
    id="pow-strength",
    detect=pow_strength,
    rewrite=pow_rule,
    rewrites_as=frozenset({"pow-strength"}),
    phase=1,
    order=0,
    examples=(
        Example("cpp", """
#include <cmath>
double norm2(const double *x, int n) {
    double s = 0;
    for (int i = 0; i < n; ++i) s += pow(x[i], 2);
    return sqrt(s);
}
""", "norm2"),
    ),
)
