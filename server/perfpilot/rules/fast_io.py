"""The fast-io rule: ``cin``/``cout`` used in a loop while iostreams are still synchronized with
stdio.
"""

from __future__ import annotations

from perfpilot.rules.base import Example, RuleSpec
from perfpilot.rules.detect.io import fast_io
from perfpilot.rules.rewrite.text_rules import fast_io_rule

RULE = RuleSpec(
    id="fast-io",
    detect=fast_io,
    rewrite=fast_io_rule,
    rewrites_as=frozenset({"fast-io"}),
    phase=1,
    order=2,
    examples=(
        Example("cpp", """
#include <iostream>
int main() {
    int n;
    std::cin >> n;
    long total = 0;
    for (int i = 0; i < n; ++i) {
        int x;
        std::cin >> x;
        total += x;
    }
    std::cout << total << "\\n";
    return 0;
}
""", "main"),
    ),
)
