"""The built-in planner looks into the functions a planned function calls directly: their
findings are ranked with its own and marked as the callee's; callees a renamed copy could not
stand for (defined after the caller, methods, templates, overloads, an address taken, static
state, another scope) are left out with a note saying why."""

from __future__ import annotations

import pytest

from callee_support import DEFINED_AFTER, FIB, MEMO, callee_site
from perfpilot.code.callees import caller_part, direct_callees
from perfpilot.planning.builtin import BuiltinPlanner, analyze_site, select
from perfpilot.progress import JobContext
from perfpilot.rules.finding import Gain

# The caller has a constant-factor pattern of its own (a `pow` by 2); the callee's exponential
# recursion must still come first.
MIXED = """\
#include <cmath>
#include <vector>

long long tiles(int w, int h) {
    if (w <= 0 || h <= 0) return 1;
    return tiles(w - 1, h) + tiles(w, h - 1);
}

double score(const std::vector<double>& xs, int w) {
    double s = 0;
    for (std::size_t i = 0; i < xs.size(); ++i) s += pow(xs[i], 2);
    return s + (double)tiles(w, w);
}
"""


def test_a_wrapper_gets_the_callees_finding_marked_as_the_callees() -> None:
    site = callee_site(MEMO, "edits")
    analysis = analyze_site(site, callees=True)
    (memo,) = [f for f in analysis.findings if f.rule == "memo-recursion"]
    assert memo.callee is not None and memo.callee.name == "steps"
    assert memo.callee.call_line == 13
    assert memo.explanation.startswith("In `steps`, called from line 13: `steps` calls itself")
    assert memo.lines[-1] == 13 and min(memo.lines) >= 6
    # Without callees (the default, as the rewriter and training data use it): nothing.
    assert analyze_site(site).findings == ()


async def test_the_plan_names_the_callee_and_the_strategy_carries_it() -> None:
    plan = await BuiltinPlanner().plan(callee_site(MEMO, "edits"), JobContext())
    (strategy,) = plan.strategies
    assert strategy.rule == "memo-recursion" and strategy.callee == "steps"
    assert "In `steps`, called from line 13" in plan.raw_text
    # Asked on the callee itself, the finding is its own.
    own = await BuiltinPlanner().plan(callee_site(MEMO, "steps"), JobContext())
    assert [(s.rule, s.callee) for s in own.strategies] == [("memo-recursion", "")]


def test_callee_findings_rank_with_the_callers_own_complexity_first() -> None:
    findings = analyze_site(callee_site(MIXED, "score"), callees=True).findings
    assert findings[0].rule == "memo-recursion" and findings[0].gain == Gain.COMPLEXITY
    assert findings[0].callee is not None and findings[0].callee.name == "tiles"
    own = [f for f in findings if f.callee is None]
    assert any(f.rule == "pow-strength" for f in own)
    strategies = select(findings)
    assert strategies[0].callee == "tiles"
    assert any(s.rule == "pow-strength" and s.callee == "" for s in strategies)


def test_a_rule_found_in_caller_and_callee_makes_two_strategies() -> None:
    src = """\
#include <cmath>
static double sq(const double* a, int n) {
    double s = 0;
    for (int i = 0; i < n; ++i) s += pow(a[i], 2);
    return s;
}
double both(const double* a, int n) {
    double s = 0;
    for (int i = 0; i < n; ++i) s += pow(a[i], 2);
    return s + sq(a, n);
}
"""
    strategies = select(analyze_site(callee_site(src, "both"), callees=True).findings)
    pows = [s for s in strategies if s.rule == "pow-strength"]
    assert sorted(s.callee for s in pows) == ["", "sq"]


def _refusal(src: str, caller: str, callee: str) -> str:
    site = callee_site(src, caller)
    analysis = analyze_site(site, callees=True)
    assert not [f for f in analysis.findings if f.callee is not None], analysis.findings
    notes = [n for n in analysis.notes if n.startswith("callee not analysed")]
    assert notes, analysis.notes
    (found,) = [c for c in direct_callees(site) if c.name == callee]
    assert found.site is None and found.refusal
    return found.refusal


REFUSED = {
    "defined-after": (DEFINED_AFTER, "defined after"),
    "method": ("""\
struct Calc {
    static long fib(int n) {
""" + FIB.format(name="fib") + """    }
};
long wrap(int n) { return Calc::fib(n) + fib2(n); }
""", None),
    "template": ("""\
template <typename T> T fib(T n) {
""" + FIB.format(name="fib") + """}
long wrap(int n) { return fib(n); }
""", "template"),
    "overloaded": ("""\
double fib(double x);
long fib(int n) {
""" + FIB.format(name="fib") + """}
long wrap(int n) { return fib(n); }
""", "overloaded"),
    "two-definitions": ("""\
long fib(int n) {
""" + FIB.format(name="fib") + """}
double fib(double x) { return x; }
long wrap(int n) { return fib(n); }
""", "defined 2 times"),
    "address-taken": ("""\
long fib(int n) {
""" + FIB.format(name="fib") + """}
long wrap(int n) { long (*f)(int) = fib; return fib(n) + f(1); }
""", "other than by calling"),
    "static-state": ("""\
long fib(int n) {
    static long calls = 0;
    ++calls;
""" + FIB.format(name="fib") + """}
long wrap(int n) { return fib(n); }
""", "static state"),
    "other-scope": ("""\
namespace a {
long fib(int n) {
""" + FIB.format(name="fib") + """}
}
using namespace a;
long wrap(int n) { return fib(n); }
""", "another scope"),
}


@pytest.mark.parametrize("case", sorted(REFUSED))
def test_callees_a_copy_cannot_stand_for_are_left_out(case: str) -> None:
    src, why = REFUSED[case]
    if why is None:
        # A method called through its class is not a plain call: not a callee at all.
        site = callee_site(src, "wrap")
        assert not [c for c in direct_callees(site) if c.name == "fib"]
        assert not [f for f in analyze_site(site, callees=True).findings if f.callee]
        return
    assert why in _refusal(src, "wrap", "fib")


def test_a_method_called_by_its_plain_name_is_refused() -> None:
    src = """\
struct Calc {
    long fib(int n) {
""" + FIB.format(name="fib") + """    }
    long wrap(int n) { return fib(n); }
};
"""
    assert "method" in _refusal(src, "wrap", "fib")


def test_a_name_the_caller_never_calls_is_no_callee() -> None:
    src = """\
long fib(int n) {
""" + FIB.format(name="fib") + """}
typedef long (*Fn)(int);
Fn pick(int n) { return n ? fib : 0; }
"""
    site = callee_site(src, "pick")
    assert direct_callees(site) == ()
    assert analyze_site(site, callees=True).findings == ()


def test_only_a_few_callees_are_analysed() -> None:
    helpers = "".join(f"long f{k}(int n) {{\n" + FIB.format(name=f"f{k}") + "}\n"
                      for k in range(6))
    calls = " + ".join(f"f{k}(n)" for k in range(6))
    site = callee_site(helpers + f"long wrap(int n) {{ return {calls}; }}\n", "wrap")
    found = direct_callees(site, limit=2)
    assert [c.name for c in found if c.usable] == ["f0", "f1"]
    assert all("only the first 2" in c.refusal for c in found[2:])
    analysis = analyze_site(site, callees=True)
    marked = {f.callee.name for f in analysis.findings if f.callee is not None}
    assert len(marked) == 4  # the default bound
    assert sum("only the first" in n for n in analysis.notes) == 2


def test_library_calls_and_self_recursion_are_not_callees() -> None:
    src = """\
#include <cstdio>
long fib(int n) {
    std::printf("%d", n);
    if (n < 2) return n;
    return fib(n - 1) + fib(n - 2);
}
"""
    assert direct_callees(callee_site(src, "fib")) == ()


def test_caller_part_splits_copies_from_the_function() -> None:
    site = callee_site(MEMO, "edits")
    code = "static int steps_fast(int i) { return i; }\n\nint edits(int x) { return x; }"
    before, own = caller_part(code, site)
    assert before == "static int steps_fast(int i) { return i; }\n\n"
    assert own == "int edits(int x) { return x; }"
    assert caller_part(own, site) == ("", own)
