"""The strlen-condition rule: ``strlen(s)`` in a loop condition while the body stores non-NUL
characters into ``s``.
"""

from __future__ import annotations

from perfpilot.rules.base import Example, RuleSpec
from perfpilot.rules.detect.loop_rules import strlen_condition
from perfpilot.rules.hoist_invariant_call import hoist_rule

RULE = RuleSpec(
    id="strlen-condition",
    detect=strlen_condition,
    rewrite=hoist_rule,
    rewrites_as=frozenset({"hoist-invariant-call"}),
    phase=2,
    order=0,
    examples=(
        Example("c", """
#include <string.h>
void upcase(char *s) {
    for (size_t i = 0; i < strlen(s); i++) {
        if (s[i] >= 'a' && s[i] <= 'z')
            s[i] = (char)(s[i] - 'a' + 'A');
    }
}
""", "upcase"),
    ),
)
