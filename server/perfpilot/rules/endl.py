"""The endl rule: ``std::endl`` written inside a loop (a flush per line)."""

from __future__ import annotations

from perfpilot.rules.base import Example, RuleSpec
from perfpilot.rules.detect.io import endl
from perfpilot.rules.rewrite.text_rules import endl_rule

RULE = RuleSpec(
    id="endl",
    detect=endl,
    rewrite=endl_rule,
    rewrites_as=frozenset({"endl"}),
    phase=1,
    order=1,
    examples=(
        Example("cpp", """
#include <iostream>
void show(int n) {
    std::ios::sync_with_stdio(false);
    for (int i = 0; i < n; ++i) {
        std::cout << i << std::endl;
    }
}
""", "show"),
    ),
)
