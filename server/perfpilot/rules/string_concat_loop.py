"""The string-concat-loop rule: ``s = s + x`` (copies all of ``s``), ``s += x`` without reserve,
``strcat`` in a loop.
"""

from __future__ import annotations

from perfpilot.rules.base import Example, RuleSpec
from perfpilot.rules.detect.memory import string_concat_loop
from perfpilot.rules.rewrite.string_rules import string_append_rule

RULE = RuleSpec(
    id="string-concat-loop",
    detect=string_concat_loop,
    rewrite=string_append_rule,
    rewrites_as=frozenset({"string-concat-loop"}),
    phase=1,
    order=4,
    examples=(
        Example("cpp", """
#include <string>
std::string join(int n) {
    std::string s;
    for (int i = 0; i < n; ++i) {
        s = s + "x";
    }
    return s;
}
""", "join"),
        Example("cpp", """
#include <string>
int s;
std::string build(int n) {
    std::string s;
    for (int i = 0; i < n; ++i) {
        s = s + "ab";
    }
    return s;
}
""", "build"),
    ),
)
