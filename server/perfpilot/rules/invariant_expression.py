"""The invariant-expression rule: a floating-point product in an inner loop whose invariant factors
are not grouped.
"""

from __future__ import annotations

from perfpilot.rules.base import Example, RuleSpec
from perfpilot.rules.detect.loop_rules import invariant_factors

RULE = RuleSpec(
    id="invariant-expression",
    detect=invariant_factors,
    examples=(
        Example("cpp", """
#include <vector>
double total(const std::vector<std::vector<double>> &m, double w, int rows, int cols) {
    double t = 0.0;
    for (int j = 0; j < cols; ++j)
        for (int i = 0; i < rows; ++i)
            t += m[i][j] * w * (double)(j + 1);
    return t;
}
""", "total"),
    ),
)
