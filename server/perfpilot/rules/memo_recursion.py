"""The memo-recursion rule: a value-returning function calling itself 2+ times on overlapping
smaller arguments.
"""

from __future__ import annotations

from perfpilot.rules.base import Example, RuleSpec
from perfpilot.rules.detect.algorithm import memo_recursion

RULE = RuleSpec(
    id="memo-recursion",
    detect=memo_recursion,
    examples=(
        Example("c", """
int fib(int n) {
    if (n < 2) return n;
    return fib(n - 1) + fib(n - 2);
}
""", "fib"),
        Example("cpp", """
#include <vector>
#include <algorithm>
int best(int i, int w, const std::vector<int> &wt, const std::vector<int> &val) {
    if (i < 0 || w == 0) return 0;
    int skip = best(i - 1, w, wt, val);
    if (wt[i] > w) return skip;
    return std::max(skip, val[i] + best(i - 1, w - wt[i], wt, val));
}
""", "best"),
    ),
)
