"""The loop-interchange rule: nested loops whose inner variable indexes the outer (slow) dimension
of 2-D data, where the dependence test the rewriter applies allows the swap (a perfect nest,
iterations independent): an imperfect nest with carried dependences is never offered one.
"""

from __future__ import annotations

from perfpilot.rules.base import Example, RuleSpec
from perfpilot.rules.detect.loop_rules import loop_interchange
from perfpilot.rules.rewrite.loop_rules import interchange_rule

RULE = RuleSpec(
    id="loop-interchange",
    detect=loop_interchange,
    rewrite=interchange_rule,
    rewrites_as=frozenset({"loop-interchange"}),
    phase=0,
    order=0,
    examples=(
        Example("cpp", """
#include <vector>
void colscale(std::vector<std::vector<double>>& a, const std::vector<std::vector<double>>& b,
              int n, int m) {
    for (int i = 0; i < n; ++i) {
        for (int j = 0; j < m; ++j) {
            a[j][i] = b[j][i] * 2.0 + 1.0;
        }
    }
}
""", "colscale"),
    ),
)
