"""The mod-wrap rule: a cyclic counter ``k = (k + 1) % n`` in a loop: an integer division per
iteration.
"""

from __future__ import annotations

from perfpilot.rules.base import Example, RuleSpec
from perfpilot.rules.detect.numeric import mod_wrap

RULE = RuleSpec(
    id="mod-wrap",
    detect=mod_wrap,
    examples=(
        Example("c", """
long ring(const int *buf, int n, int steps) {
    long s = 0;
    int k = 0;
    for (int i = 0; i < steps; ++i) {
        s += buf[k];
        k = (k + 1) % n;
    }
    return s;
}
""", "ring"),
    ),
)
