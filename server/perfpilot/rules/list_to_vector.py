"""The list-to-vector rule: a local ``std::list`` used only as a sequence appended at the back."""

from __future__ import annotations

from perfpilot.rules.base import Example, RuleSpec
from perfpilot.rules.detect.containers import list_to_vector

RULE = RuleSpec(
    id="list-to-vector",
    detect=list_to_vector,
    examples=(
        Example("cpp", """
#include <list>
double total(int n) {
    std::list<double> xs;
    for (int i = 0; i < n; ++i) xs.push_back(i * 0.5);
    double s = 0;
    for (double x : xs) s += x;
    return s;
}
""", "total"),
    ),
)
