"""The built-in optimizer carries out a plan's strategies about a callee in a renamed, static
copy of it that the planned function then calls: the candidate's shape (the copy parses, its
name is fresh, its recursive calls name the copy, the original callee is untouched), refusals,
a g++ differential test over generated wrappers and helpers, and the runner measuring a
wrapper faster through the engine."""

from __future__ import annotations

import asyncio
import random
import shutil
import subprocess
from dataclasses import dataclass, replace
from pathlib import Path

import pytest

from callee_support import DEFINED_AFTER, MEMO_FAST_TAKEN, callee_site, needs_gxx
from differential_support import HAVE_GXX
from perfpilot.code.callees import caller_part
from perfpilot.code.locate import function_by_name
from perfpilot.code.parse import parse
from perfpilot.code.site import FunctionSite
from perfpilot.code.splice import splice
from perfpilot.code.syntax import (
    node_text,
    walk,
)
from perfpilot.engine.engine import Engine
from perfpilot.optimizing.builtin import BuiltinOptimizer
from perfpilot.optimizing.builtin.callees import callee_rewrite, split_plan
from perfpilot.optimizing.builtin.strategies import planned_rules
from perfpilot.planning.builtin import BuiltinPlanner
from perfpilot.progress import JobContext
from perfpilot.runner.capabilities import check_candidate
from perfpilot.runner.values import Tuning
from perfpilot.settings import RunnerSettings, Settings
from perfpilot.strategy.categories import category_by_id
from perfpilot.strategy.values import Candidate, OptimizeResult, Plan, Strategy

DAMP = """\
#include <cmath>

double damp(double x, int n) {
    if (n <= 0) return x;
    return pow(x, 2) * 0.25 + damp(x * 0.5, n - 1);
}

double settle(double x) { return damp(x, 40) + damp(-x, 3); }
"""


async def _candidates(site: FunctionSite) -> OptimizeResult:
    plan = await BuiltinPlanner().plan(site, JobContext())
    return await BuiltinOptimizer(variants=False).optimize(site, plan, JobContext())


def _definitions(code: str) -> list[tuple[str, str]]:
    """(name, text) of each top-level definition of ``code``, which must parse cleanly."""
    root = parse(code, "cpp").root_node
    assert not root.has_error, code
    out = []
    for top in root.named_children:
        assert top.type == "function_definition", top.type
        decl = top.child_by_field_name("declarator")
        while decl is not None and decl.type != "function_declarator":
            decl = decl.child_by_field_name("declarator")
        assert decl is not None
        name = decl.child_by_field_name("declarator")
        assert name is not None
        out.append((node_text(name), node_text(top)))
    return out


def _called(code: str) -> set[str]:
    root = parse(code, "cpp").root_node
    return {node_text(f) for n in walk(root) if n.type == "call_expression"
            if (f := n.child_by_field_name("function")) is not None and f.type == "identifier"}


@needs_gxx
async def test_the_candidate_is_a_fresh_static_copy_then_the_caller() -> None:
    site = callee_site(MEMO_FAST_TAKEN, "edits")
    result = await _candidates(site)
    (cand,) = result.candidates
    (copy_name, copy), (caller_name, caller) = _definitions(cand.code)
    assert copy_name == "steps_fast2"  # steps_fast is written in the unit (a comment)
    assert caller_name == "edits"
    assert copy.startswith("static int steps_fast2(")
    assert "steps(" not in copy and "steps(" not in caller
    assert _called(caller) == {"steps_fast2"}
    assert [s.callee for s in cand.strategies] == ["steps"]
    assert any("left unchanged for its other callers" in n for n in cand.notes)
    assert set(cand.includes) == {"<map>", "<tuple>"}
    unit = splice(site, cand.code, cand.includes)
    # The original callee is still there, word for word, above the copy.
    original = callee_site(MEMO_FAST_TAKEN, "steps").text
    assert unit.count(original) == 1 and unit.index(original) < unit.index("steps_fast2(")
    assert callee_site(unit, "edits").text == caller
    assert caller_part(cand.code, site) == (copy + "\n\n", caller)
    assert check_candidate(site, cand.code, cand.includes) == ()


@needs_gxx
async def test_recursive_calls_of_the_copy_name_the_copy() -> None:
    site = callee_site(DAMP, "settle")
    (cand,) = (await _candidates(site)).candidates
    (_, copy), (_, caller) = _definitions(cand.code)
    assert copy.startswith("static double damp_fast(")
    assert "x * x * 0.25" in copy and "pow(" not in copy
    assert _called(copy) == {"damp_fast"}
    assert caller == "double settle(double x) { return damp_fast(x, 40) + damp_fast(-x, 3); }"


@needs_gxx
async def test_the_callers_own_rewrite_comes_with_the_copy() -> None:
    src = """\
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
    site = callee_site(src, "score")
    result = await _candidates(site)
    both = [c for c in result.candidates if "tiles_fast" in c.code]
    (cand,) = both
    (copy_name, _), (_, caller) = _definitions(cand.code)
    assert copy_name == "tiles_fast"
    assert "pow(" not in caller and "tiles_fast(w, w)" in caller
    assert {s.rule for s in cand.strategies} >= {"memo-recursion", "pow-strength"}
    # The caller's own rewrite is a candidate of its own too.
    assert any("tiles_fast" not in c.code and "pow(" not in c.code for c in result.candidates)


def _plan_about(callee: str, rule: str = "memo-recursion") -> Plan:
    return Plan((Strategy(category_by_id(1), f"In `{callee}`: memoize.", (), 0.9, rule,
                          callee=callee),), "builtin")


@needs_gxx
async def test_a_callee_the_caller_does_not_call_is_refused() -> None:
    src = MEMO_FAST_TAKEN + "int other(int x) { return x + 1; }\n"
    site = callee_site(src, "other")
    result = await BuiltinOptimizer(variants=False).optimize(site, _plan_about("steps"),
                                                              JobContext())
    assert result.candidates == ()
    (why,) = result.rejected
    assert "no direct call" in why.reason and "`steps`" in why.reason


@needs_gxx
async def test_a_callee_defined_after_the_caller_is_refused() -> None:
    result = await BuiltinOptimizer(variants=False).optimize(callee_site(DEFINED_AFTER, "wrap"),
                                                              _plan_about("fib"), JobContext())
    assert result.candidates == ()
    assert "defined after" in result.rejected[0].reason


def test_a_caller_that_takes_the_callees_address_is_refused() -> None:
    src = """\
long fib(int n) {
    if (n < 2) return n;
    return fib(n - 1) + fib(n - 2);
}
long wrap(int n) { long (*f)(int) = &fib; return fib(n) + f(2); }
"""
    why = callee_rewrite(callee_site(src, "wrap"), "fib", frozenset({"memo-recursion"}))
    assert isinstance(why, str) and "other than by calling" in why


def test_a_callee_naming_itself_other_than_by_calls_is_refused() -> None:
    src = """\
#include <cmath>
typedef double (*Fn)(double, int);
double damp(double x, int n) {
    Fn again = damp;
    if (n <= 0) return x;
    return pow(x, 2) + again(x * 0.5, n - 1);
}
double settle(double x) { return damp(x, 4); }
"""
    why = callee_rewrite(callee_site(src, "settle"), "damp", frozenset({"pow-strength"}))
    assert isinstance(why, str) and "names itself other than by direct calls" in why


def test_no_rule_applying_to_the_callee_is_said() -> None:
    src = "static int one(int x) { return x + 1; }\nint two(int x) { return one(x); }\n"
    why = callee_rewrite(callee_site(src, "two"), "one", frozenset({"memo-recursion"}))
    assert isinstance(why, str) and why.startswith("no builtin rule applies to `one`")


def test_model_plans_are_not_split() -> None:
    plan = Plan((Strategy(category_by_id(1), "Memoize."),), "remote")
    own, parts = split_plan(plan)
    assert own == plan and parts == ()


# -- differential: generated wrappers around helpers -------------------------------------

HEADERS = """#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <string>
#include <tuple>
#include <unordered_set>
#include <utility>
#include <vector>
"""


@dataclass(frozen=True)
class Helper:
    """A helper shape: its definition for a name, the call for one int argument, the rule
    its rewrite uses, and the return type of that call."""

    rule: str
    define: str  # .format(h=name)
    call: str  # .format(h=name, n=expression)
    ret: str


_HELPERS = (
    Helper("memo-recursion", """static long long {h}(int n) {{
    if (n < 2) return n + 1;
    return {h}(n - 1) + 2 * {h}(n - 2) + {h}(n - 3) % 7;
}}""", "{h}({n})", "long long"),
    Helper("memo-recursion", """static long long {h}(int r, int c) {{
    if (r <= 0 || c <= 0) return 1;
    return ({h}(r - 1, c) + {h}(r, c - 1)) % 1000003;
}}""", "{h}({n}, {n} / 2 + 1)", "long long"),
    Helper("memo-recursion", """long {h}(int n, int k) {{
    if (n == 0) return 1;
    if (n < 0 || k <= 0) return 0;
    return {h}(n - k, k) + {h}(n, k - 1);
}}""", "{h}({n}, 5)", "long"),
    Helper("memo-recursion", """static int {h}(const std::string& s, int i,
                                            const std::string& t, int j) {{
    if (i == (int)s.size()) return (int)t.size() - j;
    if (j == (int)t.size()) return (int)s.size() - i;
    if (s[i] == t[j]) return {h}(s, i + 1, t, j + 1);
    int a = {h}(s, i + 1, t, j);
    int b = {h}(s, i, t, j + 1);
    int c = {h}(s, i + 1, t, j + 1);
    int m = a < b ? a : b;
    return 1 + (m < c ? m : c);
}}""", "{h}(std::string((std::size_t)((({n}) % 6 + 6) % 6 + 1), 'a' + (({n}) % 3 + 3) % 3), 0, "
       "std::string((std::size_t)((({n}) % 5 + 5) % 5), 'b'), 0)", "int"),
    Helper("manual-sort", """static void {h}(std::vector<int>& v) {{
    for (std::size_t i = 0; i < v.size(); ++i)
        for (std::size_t j = 0; j + 1 < v.size() - i; ++j)
            if (v[j] > v[j + 1]) std::swap(v[j], v[j + 1]);
}}""", "", "long"),
    Helper("linear-search-in-loop", """static long {h}(const std::vector<int>& qs,
                                                  const std::vector<int>& keys) {{
    long c = 0;
    for (std::size_t i = 0; i < qs.size(); ++i)
        if (std::find(keys.begin(), keys.end(), qs[i]) != keys.end()) c += (long)i;
    return c;
}}""", "", "long"),
    Helper("pow-strength", """static double {h}(double x, int n) {{
    if (n <= 0) return x;
    return pow(x, 2) * 0.25 + {h}(x * 0.5, n - 1);
}}""", "{h}(({n}) * 0.75, ({n}) % 9)", "double"),
)


def _vector(n: str) -> str:
    return (f"std::vector<int> v; for (int q = 0; q < ({n}) * 3; ++q) "
            f"v.push_back((q * 7919 + ({n})) % 23);")


def _wrapper(helper: Helper, h: str, w: str, shape: int) -> str:
    """A caller of ``h`` taking one int; ``shape`` picks how it calls it."""
    if helper.rule == "manual-sort":
        body = (f"    {_vector('n')}\n    {h}(v);\n    long s = 0;\n"
                "    for (std::size_t i = 0; i < v.size(); ++i) s += (long)(i + 1) * v[i];\n"
                "    return s;\n")
        if shape % 2:
            body = f"    if (n < 0) return -1;\n{body}"
        return f"long {w}(int n) {{\n{body}}}"
    if helper.rule == "linear-search-in-loop":
        keys = "std::vector<int> keys; for (int q = 0; q < n; ++q) keys.push_back(q * 3 % 17);"
        call = f"{h}(v, keys)" if shape % 2 == 0 else f"{h}(keys, v) + {h}(v, v)"
        return f"long {w}(int n) {{\n    {_vector('n')}\n    {keys}\n    return {call};\n}}"
    one = helper.call.format(h=h, n="n")
    half = helper.call.format(h=h, n="n / 2")
    each = helper.call.format(h=h, n="i")
    r = helper.ret
    shapes = (
        f"{r} {w}(int n) {{ return {one}; }}",
        f"{r} {w}(int n) {{\n    {r} s = 0;\n    for (int i = 0; i <= n; ++i) s += {each};\n"
        "    return s;\n}",
        f"{r} {w}(int n) {{\n    if (n < 0) return 0;\n    {r} a = {one};\n"
        f"    return a - {half};\n}}",
    )
    return shapes[shape % len(shapes)]


@dataclass(frozen=True)
class Case:
    helper: Helper
    h: str
    w: str
    code: str
    driver: str


def _cases(seed: int) -> list[Case]:
    rnd = random.Random(seed)
    out = []
    for k, helper in enumerate(_HELPERS):
        for shape in rnd.sample(range(3), 2):
            h, w = f"h{k}_{shape}", f"w{k}_{shape}"
            code = helper.define.format(h=h) + "\n\n" + _wrapper(helper, h, w, shape) + "\n"
            fmt = "%.17g" if helper.ret == "double" else "%lld"
            cast = "" if helper.ret == "double" else "(long long)"
            hi = 14 if helper.ret != "int" else 9
            direct = (helper.call.format(h=h, n="3") if helper.call else
                      (f"[]{{ std::vector<int> v{{3, 1, 2}}; {h}(v); return (long)v[0]; }}()"
                       if helper.rule == "manual-sort" else
                       f"{h}(std::vector<int>{{1, 2, 3}}, std::vector<int>{{2}})"))
            driver = (f"for (int n = -2; n <= {hi}; ++n) std::printf(\"{fmt}\\n\", "
                      f"{cast}{w}(n)); std::printf(\"{fmt}\\n\", {cast}({direct}));")
            out.append(Case(helper, h, w, code, driver))
    return out


def _build_run(unit: str, drivers: str, folder: Path, tag: str) -> list[str]:
    src = folder / f"{tag}.cpp"
    src.write_text(unit + "\nint main() {\n" + drivers + "\n    return 0;\n}\n")
    exe = folder / tag
    comp = subprocess.run(["g++", "-std=c++17", "-O1", "-o", str(exe), str(src)],
                          capture_output=True, text=True, timeout=300)
    assert comp.returncode == 0, comp.stderr[:4000]
    run = subprocess.run([str(exe)], capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    return run.stdout.splitlines()


@needs_gxx
def test_generated_wrappers_keep_their_results(tmp_path: Path) -> None:
    cases = _cases(seed=7)
    unit = HEADERS + "\n" + "\n".join(c.code for c in cases)
    made: list[tuple[FunctionSite, str]] = []
    for case in cases:
        site = callee_site(unit, case.w)
        plan = asyncio.run(BuiltinPlanner().plan(site, JobContext()))
        _own, parts = split_plan(plan)
        (part,) = [p for p in parts if p.callee == case.h]
        assert case.helper.rule in {s.rule for s in part.plan.strategies}, plan.raw_text
        done = callee_rewrite(site, case.h, planned_rules(part.plan))
        assert not isinstance(done, str), (case.w, done)
        assert case.helper.rule in done.result.rules, (case.w, done.result.rules)
        assert f"{case.h}_fast" == done.copy_name
        made.append((site, done.code))
    new_unit = unit
    for site, code in sorted(made, key=lambda sc: sc[0].start_byte, reverse=True):
        new_unit = splice(replace(site, unit_text=new_unit), code)
    for case in cases:  # every original helper is still there, unchanged
        assert callee_site(new_unit, case.h).text == callee_site(unit, case.h).text
    drivers = "\n".join(f"    {{ std::printf(\"== {c.w}\\n\"); {c.driver} }}" for c in cases)
    before = _build_run(unit, drivers, tmp_path, "orig")
    after = _build_run(new_unit, drivers, tmp_path, "opt")
    assert before == after
    assert len(before) > 10 * len(cases)


# -- through the engine and the runner -------------------------------------------------

ORDER = """\
#include <cstddef>
#include <utility>
#include <vector>

static void order(std::vector<int>& v) {
    for (std::size_t i = 0; i < v.size(); ++i)
        for (std::size_t j = 0; j + 1 < v.size() - i; ++j)
            if (v[j] > v[j + 1]) std::swap(v[j], v[j + 1]);
}

long median_gap(std::vector<int> v) {
    order(v);
    if (v.size() < 2) return 0;
    return (long)v[v.size() / 2] - (long)v[0];
}
"""

FAST = Tuning(target_sample_s=0.002, edge_sizes=(0, 1, 2, 7), budget_s=10.0, noisy_retries=2,
              max_pairs_factor=6, profiles=(0, 1), seeds_per_profile=1, mutants=False,
              coverage=False)


@pytest.mark.skipif(not HAVE_GXX or shutil.which("gcc") is None, reason="needs gcc and g++")
async def test_the_engine_measures_a_wrapper_faster_through_its_callees_copy() -> None:
    site = function_by_name(ORDER, "cpp", "median_gap", uri="file:///tmp/median_gap.cpp")
    engine = Engine(Settings(runner=RunnerSettings(callgrind=False, pairs=16,
                                                   run_timeout_s=30.0)), tuning=FAST)
    outcome = await engine.optimize(site, JobContext())
    assert outcome.plan.strategies[0].callee == "order"
    assert outcome.chosen is not None, outcome.message
    chosen = outcome.chosen
    cand: Candidate = chosen.candidate
    assert "static void order_fast(" in cand.code and "order_fast(v);" in cand.code
    assert chosen.verdict is not None and chosen.verdict.verdict == "faster", \
        chosen.verdict.message if chosen.verdict else outcome.message
    assert chosen.verdict.validation_status == "passed"


def test_the_policy_lets_a_copy_use_what_its_callee_already_uses() -> None:
    src = """\
#include <cstdio>
#include <utility>
#include <vector>

static void order(std::vector<int>& v) {
    for (std::size_t i = 0; i < v.size(); ++i)
        for (std::size_t j = 0; j + 1 < v.size() - i; ++j)
            if (v[j] > v[j + 1]) std::swap(v[j], v[j + 1]);
    std::printf("%d\\n", (int)v.size());
}

int first(std::vector<int> v) { order(v); return v.empty() ? 0 : v[0]; }
"""
    site = callee_site(src, "first")
    done = callee_rewrite(site, "order", frozenset({"manual-sort"}))
    assert not isinstance(done, str)
    assert "std::printf" in done.code
    assert check_candidate(site, done.code, ("<algorithm>",)) == ()
    # The caller alone does not print: a rewrite of it alone that starts to is refused.
    alone = "int first(std::vector<int> v) { std::printf(\"x\"); return 0; }"
    assert [v.construct for v in check_candidate(site, alone)] == ["printf"]
    # Nor does a second definition that is no copy of a callee earn that.
    other = ("static void other() { std::fopen(\"f\", \"w\"); }\n\n"
             "int first(std::vector<int> v) { other(); return 0; }")
    assert "fopen" in {v.construct for v in check_candidate(site, other)}


def test_a_caller_text_without_the_call_is_refused() -> None:
    # The caller's own rewrite is what calls the copy: one that no longer calls the callee
    # gets no copy.
    site = callee_site(MEMO_FAST_TAKEN, "edits")
    rules = frozenset({"memo-recursion"})
    assert not isinstance(callee_rewrite(site, "steps", rules), str)
    why = callee_rewrite(site, "steps", rules, caller_text=(
        "int edits(const std::string& s, const std::string& t) { return (int)s.size(); }"))
    assert isinstance(why, str) and "no direct call to `steps`" in why
