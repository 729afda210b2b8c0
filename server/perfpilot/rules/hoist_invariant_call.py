"""The hoist-invariant-call rule: a call whose arguments the loop never changes, evaluated on every
iteration.
"""

from __future__ import annotations

from perfpilot.rules.base import Example, RuleSpec
from perfpilot.rules.detect.loop_rules import hoist_invariant_call
from perfpilot.rules.rewrite.loop_rules import hoist_rule

RULE = RuleSpec(
    id="hoist-invariant-call",
    detect=hoist_invariant_call,
    rewrite=hoist_rule,
    rewrites_as=frozenset({"hoist-invariant-call"}),
    phase=2,
    order=0,
    examples=(
        Example("c", """
#include <string.h>
int upper(const char *s) {
    int c = 0;
    for (int i = 0; i < strlen(s); i++) {
        if (s[i] >= 'A' && s[i] <= 'Z') c++;
    }
    return c;
}
""", "upper"),
    ),
)
