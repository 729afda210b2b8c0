"""The alloc-in-loop rule: ``new``/``malloc`` executed on every iteration of a loop."""

from __future__ import annotations

from perfpilot.rules.base import Example, RuleSpec
from perfpilot.rules.detect.memory import alloc_in_loop

RULE = RuleSpec(
    id="alloc-in-loop",
    detect=alloc_in_loop,
    examples=(
        Example("c", """
#include <stdlib.h>
#include <string.h>
long work(const char *src, int n, int w) {
    long t = 0;
    for (int i = 0; i < n; i++) {
        char *buf = malloc(w);
        memcpy(buf, src, w);
        t += buf[0];
        free(buf);
    }
    return t;
}
""", "work"),
    ),
)
