"""The vector-front-op rule: ``v.erase(v.begin())`` or ``v.insert(v.begin(), x)`` on a vector inside
a loop.
"""

from __future__ import annotations

from perfpilot.rules.base import Example, RuleSpec
from perfpilot.rules.detect.containers import vector_front_op
from perfpilot.rules.rewrite.queue_rules import queue_rule

RULE = RuleSpec(
    id="vector-front-op",
    detect=vector_front_op,
    rewrite=queue_rule,
    rewrites_as=frozenset({"vector-front-op"}),
    phase=1,
    order=6,
    examples=(
        Example("cpp", """
#include <vector>
long drain(std::vector<int> &q) {
    long s = 0;
    while (!q.empty()) {
        s += q.front();
        q.erase(q.begin());
    }
    return s;
}
""", "drain"),
    ),
)
