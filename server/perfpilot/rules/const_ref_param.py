"""The const-ref-param rule: a container, string or user struct taken by value, never modified."""

from __future__ import annotations

from perfpilot.rules.base import Example, RuleSpec
from perfpilot.rules.detect.calls import const_ref_param
from perfpilot.rules.rewrite.text_rules import const_ref_rule

RULE = RuleSpec(
    id="const-ref-param",
    detect=const_ref_param,
    rewrite=const_ref_rule,
    rewrites_as=frozenset({"const-ref-param"}),
    phase=1,
    order=3,
    examples=(
        Example("cpp", """
#include <vector>
long sum(std::vector<long> v) {
    long s = 0;
    for (long x : v) s += x;
    return s;
}
""", "sum"),
        Example("cpp", """
#include <map>
#include <string>
double sum(std::map<std::string, double> prices) {
    double s = 0;
    for (auto &kv : prices) s += kv.second;
    return s;
}
""", "sum"),
    ),
)
