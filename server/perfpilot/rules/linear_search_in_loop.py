"""The linear-search-in-loop rule: ``std::find``/``count``/... inside a loop, and nested loops that
compare elements.
"""

from __future__ import annotations

from perfpilot.rules.base import Example, RuleSpec
from perfpilot.rules.detect.algorithm import linear_search_in_loop
from perfpilot.rules.rewrite.search_rules import linear_search_rule

RULE = RuleSpec(
    id="linear-search-in-loop",
    detect=linear_search_in_loop,
    rewrite=linear_search_rule,
    rewrites_as=frozenset({"linear-search-in-loop"}),
    phase=2,
    order=2,
    examples=(
        Example("cpp", """
#include <algorithm>
#include <vector>
int hits(const std::vector<int> &seen, int n) {
    int c = 0;
    for (int i = 0; i < n; ++i) {
        if (std::find(seen.begin(), seen.end(), i) != seen.end()) c++;
    }
    return c;
}
""", "hits"),
    ),
)
