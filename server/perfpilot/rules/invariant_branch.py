"""The invariant-branch rule: an ``if`` inside a loop whose condition the loop never changes
(unswitching).
"""

from __future__ import annotations

from perfpilot.rules.base import Example, RuleSpec
from perfpilot.rules.detect.loop_rules import invariant_branch

RULE = RuleSpec(
    id="invariant-branch",
    detect=invariant_branch,
    examples=(
        Example("c", """
void scale(float *a, int n, int mode) {
    for (int i = 0; i < n; ++i) {
        if (mode == 2) a[i] *= 2.0f;
        else a[i] += 1.0f;
    }
}
""", "scale"),
        Example("c", """
int verbose;
long run(const int *a, int n) {
    long s = 0;
    for (int i = 0; i < n; ++i) {
        if (verbose) s += a[i];
    }
    return s;
}
""", "run"),
    ),
)
