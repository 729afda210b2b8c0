"""The restrict-alias rule: two or more arithmetic pointer parameters, one written in a loop, none
``restrict``.
"""

from __future__ import annotations

from perfpilot.rules.base import Example, RuleSpec
from perfpilot.rules.detect.vector import restrict_alias

RULE = RuleSpec(
    id="restrict-alias",
    detect=restrict_alias,
    examples=(
        Example("c", """
void axpy(double *y, const double *x, double a, int n) {
    for (int i = 0; i < n; ++i) {
        y[i] = a * x[i] + y[i];
    }
}
""", "axpy"),
    ),
)
