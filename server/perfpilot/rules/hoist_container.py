"""The hoist-container rule: a container or string constructed (and destroyed) on every iteration of
a loop.
"""

from __future__ import annotations

from perfpilot.rules.base import Example, RuleSpec
from perfpilot.rules.detect.memory import hoist_container
from perfpilot.rules.rewrite.reuse_rules import hoist_container_rule

RULE = RuleSpec(
    id="hoist-container",
    detect=hoist_container,
    rewrite=hoist_container_rule,
    rewrites_as=frozenset({"hoist-container"}),
    phase=2,
    order=3,
    examples=(
        Example("cpp", """
#include <algorithm>
#include <string>
#include <vector>
long peaks(const std::vector<int>& v) {
    long total = 0;
    for (std::size_t i = 0; i + 4 <= v.size(); ++i) {
        std::vector<int> w(v.begin() + i, v.begin() + i + 4);
        std::sort(w.begin(), w.end());
        total += w.back() + w.front();
    }
    return total;
}
""", "peaks"),
    ),
)
