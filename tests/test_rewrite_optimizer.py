"""BuiltinOptimizer and syntax_check with the real compiler (the candidates themselves: their
variants are left out here and tested in ``test_variants.py``)."""

from __future__ import annotations

import shutil

import pytest

from perfpilot.code.locate import function_by_name
from perfpilot.code.site import FunctionSite
from perfpilot.code.splice import splice
from perfpilot.optimizing.builtin import BuiltinOptimizer, rewrite
from perfpilot.optimizing.syntax_check import syntax_check
from perfpilot.planning.builtin import BuiltinPlanner
from perfpilot.progress import Cancelled, JobContext
from perfpilot.strategy.categories import category_by_id
from perfpilot.strategy.values import Plan, Strategy

pytestmark = pytest.mark.skipif(shutil.which("g++") is None or shutil.which("gcc") is None,
                                reason="needs gcc and g++")

UNIT = """#include <cmath>
#include <vector>

void modify(std::vector<int>& v) { v.push_back(1); }

double norm2(const std::vector<double>& x) {
    double s = 0;
    for (std::size_t i = 0; i < x.size(); ++i) s += pow(x[i], 2);
    return s;
}

int grown(std::vector<int> v, double y) {
    std::vector<int>& grow = v;
    modify(grow);
    return (int)v.size() + (int)pow(y, 2);
}

int only_grown(std::vector<int> v) {
    std::vector<int>& grow = v;
    modify(grow);
    return (int)v.size();
}

int plain(int a, int b) { return a + b; }
"""

EMPTY = Plan((), "builtin")
# A plan naming both rewrites, for functions whose own plan leaves one out.
BOTH = Plan((Strategy(category_by_id(10), "Take v by const reference.", (), 1.0,
                      rule="const-ref-param"),
             Strategy(category_by_id(12), "Square by multiplying.", (), 1.0,
                      rule="pow-strength")), "remote")


def plain() -> BuiltinOptimizer:
    """The optimizer without variants: the candidates the rules make, one per sample."""
    return BuiltinOptimizer(variants=False)


async def planned(site: FunctionSite) -> Plan:
    """The built-in planner's plan: what the built-in optimizer carries out."""
    return await BuiltinPlanner().plan(site, JobContext())


async def test_openmp_candidate_and_serial_variant() -> None:
    site = function_by_name(UNIT, "cpp", "norm2")
    result = await plain().optimize(site, await planned(site), JobContext())
    assert result.rejected == ()
    assert [c.sample for c in result.candidates] == [0, 1]
    par, ser = result.candidates
    assert par.needs_openmp and "#pragma omp parallel for reduction(+:s)" in par.code
    assert not ser.needs_openmp and "#pragma" not in ser.code
    assert {s.rule for s in par.strategies} == {"openmp-reduction", "pow-strength",
                                                "hoist-invariant-call"}
    assert {s.rule for s in ser.strategies} == {"pow-strength", "hoist-invariant-call"}
    cats = {s.rule: s.category.id for s in par.strategies}
    assert cats["openmp-reduction"] == 6 and cats["pow-strength"] == 12
    assert all(c.backend == "builtin" for c in result.candidates)
    # both candidates compile in the unit, the first with OpenMP
    assert await syntax_check(splice(site, par.code), "cpp", ["-fopenmp"]) is None
    assert await syntax_check(splice(site, ser.code), "cpp", []) is None


async def test_plan_strategy_is_reused_for_the_same_rule() -> None:
    site = function_by_name(UNIT, "cpp", "norm2")
    planned = Strategy(category_by_id(6), "Sum the squares of x in parallel.", (8,), 1.0,
                       rule="openmp-reduction")
    other = Strategy(category_by_id(1), "Use a better algorithm.", (), 0.5, rule="")
    result = await plain().optimize(site, Plan((planned, other), "builtin"),
                                               JobContext())
    assert [c.strategies for c in result.candidates] == [(planned,)]
    assert "pow(" in result.candidates[0].code  # pow-strength was not planned: not applied


async def test_a_plan_naming_only_a_category_licenses_its_rewrites() -> None:
    # A model's plan names categories, not builtin findings.
    site = function_by_name(UNIT, "cpp", "norm2")
    numeric = Strategy(category_by_id(12), "Avoid the library call for a square.", (), 1.0)
    result = await plain().optimize(site, Plan((numeric,), "remote"), JobContext())
    (cand,) = result.candidates
    assert "x[i] * x[i]" in cand.code and "#pragma" not in cand.code
    (made,) = cand.strategies
    assert made.rule == "pow-strength" and "x * x" in made.explanation and made.lines == (8,)


async def test_only_the_planned_findings_are_rewritten() -> None:
    site = function_by_name(UNIT, "cpp", "norm2")
    plan = await planned(site)
    assert {"openmp-reduction", "pow-strength", "hoist-invariant-call"} <= \
        {s.rule for s in plan.strategies}
    kept = Plan(tuple(s for s in plan.strategies if s.rule == "hoist-invariant-call"), "builtin")
    (cand,) = (await plain().optimize(site, kept, JobContext())).candidates
    assert [s.rule for s in cand.strategies] == ["hoist-invariant-call"]
    assert "pow(" in cand.code and "#pragma" not in cand.code
    empty = await plain().optimize(site, EMPTY, JobContext())
    assert empty.candidates == ()
    assert "the plan names no strategy" in empty.rejected[0].reason


async def test_nothing_applies_gives_no_candidate() -> None:
    site = function_by_name(UNIT, "cpp", "plain")
    numeric = Strategy(category_by_id(12), "Cheaper arithmetic.", (), 1.0)
    result = await plain().optimize(site, Plan((numeric,), "remote"), JobContext())
    assert result.candidates == ()
    assert len(result.rejected) == 1 and "no builtin rule applies" in result.rejected[0].reason


async def test_rule_the_compiler_rejects_is_dropped_and_the_rest_kept() -> None:
    # const & is wrong here: modify() takes a non-const reference to v through `grow`; our
    # analysis does not follow the reference, the compile check catches it
    site = function_by_name(UNIT, "cpp", "grown")
    assert {"const-ref-param", "pow-strength"} <= rewrite(site).rules
    result = await plain().optimize(site, BOTH, JobContext())
    assert len(result.candidates) == 1
    cand = result.candidates[0]
    assert "(y * y)" in cand.code and "std::vector<int> v," in cand.code
    assert [s.rule for s in cand.strategies] == ["pow-strength"]
    assert any("const-ref-param: dropped" in n for n in cand.notes)


async def test_candidate_that_does_not_compile_is_rejected_with_the_error() -> None:
    site = function_by_name(UNIT, "cpp", "only_grown")
    assert rewrite(site).rules == {"const-ref-param"}
    result = await plain().optimize(site, BOTH, JobContext())
    assert result.candidates == ()
    rej, unexplained = result.rejected
    assert rej.reason.startswith("does not compile") and "discards qualifiers" in rej.reason
    assert "const std::vector<int> &v" in rej.code
    # the rejection explains const-ref-param; the planned pow-strength, with no pow here, is
    # said in words
    assert unexplained.reason == ("pow-strength: planned, but no candidate carries it out "
                                  "(the rewrite found nothing it may change)")


async def test_unit_flags_are_used() -> None:
    unit = "#ifdef BROKEN\n#error the build says no\n#endif\n" + UNIT
    site = function_by_name(unit, "cpp", "norm2")
    plan = await planned(site)
    result = await BuiltinOptimizer(flags=("-DBROKEN",)).optimize(site, plan, JobContext())
    assert result.candidates == ()
    assert "the build says no" in result.rejected[0].reason
    ok = await BuiltinOptimizer(flags=("-DOTHER", "-O2")).optimize(site, plan, JobContext())
    assert ok.candidates


async def test_missing_compiler_is_reported() -> None:
    site = function_by_name(UNIT, "cpp", "norm2")
    result = await BuiltinOptimizer(compiler="no-such-compiler-xyz").optimize(
        site, await planned(site), JobContext())
    assert result.candidates == ()
    assert "no-such-compiler-xyz" in result.rejected[0].reason
    assert "not found" in result.rejected[0].reason


async def test_cancelled_job_raises_and_progress_is_reported() -> None:
    site = function_by_name(UNIT, "cpp", "norm2")
    ctx = JobContext()
    ctx.cancel()
    with pytest.raises(Cancelled):
        await plain().optimize(site, await planned(site), ctx)
    stages: list[str] = []
    ctx2 = JobContext(on_report=lambda stage, msg, pct: stages.append(stage))
    await plain().optimize(site, await planned(site), ctx2)
    assert stages and set(stages) == {"generating"}


async def test_c_unit_is_checked_as_c() -> None:
    unit = "#include <string.h>\nint count_a(const char *s) {\n  int k = 0;\n" \
           "  for (size_t i = 0; i < strlen(s); i++) k += s[i] == 'a';\n  return k;\n}\n"
    site = function_by_name(unit, "c", "count_a")
    result = await plain().optimize(site, await planned(site), JobContext())
    assert result.candidates, result.rejected
    assert "const size_t s_len = strlen(s);" in result.candidates[0].code


async def test_syntax_check_results() -> None:
    assert await syntax_check("int f() { return 1; }\n", "cpp", []) is None
    err = await syntax_check("int f() { return }\n", "cpp", [])
    assert err is not None and "error" in err
    # C is checked as C: 'class' is an identifier there
    assert await syntax_check("int class = 1;\n", "c", []) is None
    assert await syntax_check("int class = 1;\n", "cpp", []) is not None
    # the unit's standard flag wins over the default
    src = "#include <span>\nint g(std::span<int> s) { return (int)s.size(); }\n"
    assert await syntax_check(src, "cpp", ["-std=c++20"]) is None
    assert await syntax_check(src, "cpp", ["-std=c++11"]) is not None
    # with -fopenmp the clauses are checked: a string cannot be a '+' reduction
    bad_omp = "#include <string>\nvoid h(std::string& s, int n) {\n" \
              "#pragma omp parallel for reduction(+:s)\n" \
              "  for (int i = 0; i < n; ++i) s += 'x';\n}\n"
    assert await syntax_check(bad_omp, "cpp", ["-fopenmp"]) is not None
    missing = await syntax_check("int x;", "cpp", [], compiler="no-such-cc-123")
    assert missing is not None and "not found" in missing


async def test_a_strategy_whose_code_an_earlier_rewrite_replaced_says_so() -> None:
    # the hand sort becomes std::sort (phase 1), so the size() calls the hoist planned to move
    # out of its loop conditions (phase 2) are gone: the note says which rewrite took them
    source = """
#include <vector>
void sort_values(std::vector<int>& v) {
    for (std::size_t i = 0; i < v.size(); ++i)
        for (std::size_t j = 0; j + 1 < v.size() - i; ++j)
            if (v[j] > v[j + 1]) {
                int t = v[j];
                v[j] = v[j + 1];
                v[j + 1] = t;
            }
}
"""
    site = function_by_name(source, "cpp", "sort_values")
    plan = await planned(site)
    assert {"manual-sort", "hoist-invariant-call"} <= {s.rule for s in plan.strategies}
    result = await plain().optimize(site, plan, JobContext())
    (cand,) = result.candidates
    assert "std::sort(v.begin(), v.end())" in cand.code
    assert any(n.startswith("hoist-invariant-call: the code at lines") and
               "was rewritten first by manual-sort" in n for n in cand.notes), cand.notes
    assert not any("no candidate carries it out" in n for n in cand.notes)
