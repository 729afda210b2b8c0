"""The prefix-sum rule: a loop summing a range of an unchanged array, re-run for every outer
iteration.
"""

from __future__ import annotations

from perfpilot.rules.base import Example, RuleSpec
from perfpilot.rules.detect.algorithm import prefix_sum

RULE = RuleSpec(
    id="prefix-sum",
    detect=prefix_sum,
    examples=(
        Example("c", """
long long total(const int *a, const int *lo, const int *hi, int q) {
    long long all = 0;
    for (int k = 0; k < q; k++) {
        long long s = 0;
        for (int i = lo[k]; i <= hi[k]; i++)
            s += a[i];
        all += s;
    }
    return all;
}
""", "total"),
    ),
)
