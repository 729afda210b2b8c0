"""The names a rewrite's new locals avoid: the function's own, the unit's top level and its
macros; never the locals of other functions, which are out of scope (an `i` there must not
turn the new loop's counter into `i2`)."""

from __future__ import annotations

from perfpilot.code.locate import function_by_name
from perfpilot.code.parse import parse
from perfpilot.rules.rewriting import names_in_scope, rewrite

UNIT = """
#define SCALE 3
int total;
static int helper(int k) {
    int i = 0, prev1 = k;
#define LOCAL_MACRO 1
    for (; i < k; ++i) prev1 += i;
    return prev1;
}
struct Pair { int first_member; };
long fib(int n) {
    if (n < 2) return n;
    return fib(n - 1) + fib(n - 2);
}
"""


def test_other_functions_locals_are_out_of_scope() -> None:
    site = function_by_name(UNIT, "c", "fib")
    names = names_in_scope(site, parse(UNIT, "c").root_node)
    assert {"total", "helper", "k", "Pair", "first_member", "fib", "n", "SCALE",
            "LOCAL_MACRO"} <= names
    assert not names & {"i", "prev1"}


def test_the_new_counter_takes_the_plain_name_a_colleague_would() -> None:
    out = rewrite(function_by_name(UNIT, "c", "fib")).code
    assert "for (int i = 2; i <= n; ++i)" in out, out
    assert "prev1" in out and "prev12" not in out, out
