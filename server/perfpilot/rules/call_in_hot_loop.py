"""The call-in-hot-loop rule: calls the compiler may not inline in an innermost loop: interposable
or indirect.
"""

from __future__ import annotations

from perfpilot.rules.base import Example, RuleSpec
from perfpilot.rules.detect.calls import call_in_hot_loop

RULE = RuleSpec(
    id="call-in-hot-loop",
    detect=call_in_hot_loop,
    examples=(
        Example("cpp", """
#include <functional>
#include <vector>
double apply_all(const std::vector<double> &v, double scale) {
    std::function<double(double)> f = [scale](double x) { return x * scale; };
    double total = 0.0;
    for (double x : v)
        total += f(x);
    return total;
}
""", "apply_all"),
        Example("cpp", """
int twice(int x) { return 2 * x; }
int total(const int *a, int n) {
    int s = 0;
    for (int i = 0; i < n; ++i) s += twice(a[i]);
    return s;
}
""", "total"),
    ),
)
