"""The pow2-divmod rule: ``x % 8`` / ``x / 8`` on a signed integer in a loop."""

from __future__ import annotations

from perfpilot.rules.base import Example, RuleSpec
from perfpilot.rules.detect.numeric import pow2_divmod

RULE = RuleSpec(
    id="pow2-divmod",
    detect=pow2_divmod,
    examples=(
        Example("c", """
int evens(const int *a, int n) {
    int c = 0;
    for (int i = 0; i < n; i++) {
        int v = a[i];
        if (v % 2 == 0) c++;
    }
    return c;
}
""", "evens"),
    ),
)
