"""The stdio-loop rule: ``scanf``/``printf`` family called per element in a loop."""

from __future__ import annotations

from perfpilot.rules.base import Example, RuleSpec
from perfpilot.rules.detect.io import stdio_loop

RULE = RuleSpec(
    id="stdio-loop",
    detect=stdio_loop,
    examples=(
        Example("c", """
#include <stdio.h>
long readall(int n) {
    long s = 0;
    int x;
    for (int i = 0; i < n; i++) {
        scanf("%d", &x);
        s += x;
    }
    return s;
}
""", "readall"),
    ),
)
