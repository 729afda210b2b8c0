"""The std-algorithm rule: manual sum, max/min, copy and fill loops."""

from __future__ import annotations

from perfpilot.rules.base import Example, RuleSpec
from perfpilot.rules.detect.library import std_algorithm

RULE = RuleSpec(
    id="std-algorithm",
    detect=std_algorithm,
    examples=(
        Example("cpp", """
void copy(int *dst, const int *src, int n) {
    for (int i = 0; i < n; ++i) dst[i] = src[i];
}
""", "copy"),
        Example("cpp", """
#include <vector>
void reset(std::vector<double> &v) {
    for (size_t i = 0; i < v.size(); ++i) v[i] = 1.5;
}
""", "reset"),
    ),
)
