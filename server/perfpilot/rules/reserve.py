"""The reserve rule: ``v.push_back`` once per iteration of a counted loop, with no ``v.reserve``."""

from __future__ import annotations

from perfpilot.rules.base import Example, RuleSpec
from perfpilot.rules.detect.memory import reserve
from perfpilot.rules.rewrite.loop_rules import reserve_rule

RULE = RuleSpec(
    id="reserve",
    detect=reserve,
    rewrite=reserve_rule,
    rewrites_as=frozenset({"reserve"}),
    phase=2,
    order=1,
    examples=(
        Example("cpp", """
#include <vector>
std::vector<int> squares(int n) {
    std::vector<int> out;
    for (int i = 0; i < n; ++i) {
        out.push_back(i * i);
    }
    return out;
}
""", "squares"),
    ),
)
