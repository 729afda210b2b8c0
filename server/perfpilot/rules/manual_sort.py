"""The manual-sort rule: nested loops that compare and swap elements of one array: an O(n²) sort by
hand.
"""

from __future__ import annotations

from perfpilot.rules.base import Example, RuleSpec
from perfpilot.rules.detect.algorithm import manual_sort
from perfpilot.rules.rewrite.sort_rules import manual_sort_rule

RULE = RuleSpec(
    id="manual-sort",
    detect=manual_sort,
    rewrite=manual_sort_rule,
    rewrites_as=frozenset({"manual-sort"}),
    phase=1,
    order=5,
    examples=(
        Example("cpp", """
#include <vector>
void sort_values(std::vector<int> &v) {
    for (std::size_t i = 0; i < v.size(); ++i)
        for (std::size_t j = 0; j + 1 < v.size() - i; ++j)
            if (v[j] > v[j + 1]) {
                int t = v[j];
                v[j] = v[j + 1];
                v[j + 1] = t;
            }
}
""", "sort_values"),
    ),
)
