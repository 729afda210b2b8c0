"""The branchless-select rule: a data-dependent ``if`` guarding one arithmetic update in an
innermost counted loop.
"""

from __future__ import annotations

from perfpilot.rules.base import Example, RuleSpec
from perfpilot.rules.detect.loop_rules import branchless_select

RULE = RuleSpec(
    id="branchless-select",
    detect=branchless_select,
    examples=(
        Example("c", """
long above(const int *a, int n, int t) {
    long s = 0;
    for (int i = 0; i < n; ++i) {
        if (a[i] > t) s += a[i];
    }
    return s;
}
""", "above"),
    ),
)
