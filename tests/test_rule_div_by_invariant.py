"""div-by-invariant: a floating division by a ``double`` the loop never changes becomes a
multiplication by its reciprocal, only when asked for (the plan accepts last-bit changes); the
results then agree to the last bits over generated variants. Integer division, a divisor the
loop writes, and the default rewrite are left alone."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from differential_support import HAVE_GXX, Variant, compare, rewrite_all
from perfpilot.code.locate import function_by_name
from perfpilot.code.syntax import node_text
from perfpilot.optimizing.builtin import rewrite
from perfpilot.rules.arithmetic.div_by_invariant import Divisions, div_by_invariant
from perfpilot.rules.registry import last_bit_phases
from perfpilot.rules.rewriting import RewriteResult, rule_input

RULES = frozenset({"div-by-invariant"})

_BODIES = (
    "for (int {i} = 0; {i} < n; ++{i}) {a}[{i}] = {a}[{i}] / {d};",
    "for (int {i} = 0; {i} < n; ++{i}) {a}[{i}] /= {d};",
    "for (int {i} = 0; {i} < n; ++{i}) {{ double t = {a}[{i}] + 1.0; {a}[{i}] = t / {d} * "
    "({a}[{i}] / {d}); }}",
    "for (int r = 0; r < 3; ++r) for (int {i} = 0; {i} < n; ++{i}) "
    "{a}[{i}] = ({a}[{i}] + r) / {d};",
    "int {i} = 0; while ({i} < n) {{ {a}[{i}] = {i} / {d}; {i}++; }}",
)


def _variants(count: int, seed: int) -> list[Variant]:
    rnd = random.Random(seed)
    out: list[Variant] = []
    for k in range(count):
        name = f"q{k}"
        i, a, d = rnd.choice(("i", "j")), rnd.choice(("a", "xs")), rnd.choice(("d", "total", "s"))
        body = rnd.choice(_BODIES).format(i=i, a=a, d=d)
        code = (f"void {name}(double *{a}, int n, double {d}) {{\n    {body}\n}}\n")
        vals = ", ".join(f"{rnd.uniform(-50, 50):.6f}" for _ in range(9))
        div = rnd.choice(("3.0", "-7.25", "0.1", "1e-3", "0.0", "1e300"))
        driver = (f"double in[] = {{{vals}}}; {name}(in, 9, {div}); "
                  "for (double x : in) std::printf(\"%.17g\\n\", x);")
        out.append(Variant(name, code, driver))
    return out


def _rewrite(code: str, name: str, language: str = "cpp", *, allowed: bool = True
             ) -> RewriteResult:
    src = ("#include <cstdio>\n" if language == "cpp" else "#include <stdio.h>\n") + code
    site = function_by_name(src, language, name)  # type: ignore[arg-type]
    return rewrite(site, RULES, extra_phases=last_bit_phases() if allowed else ())


@pytest.mark.skipif(not HAVE_GXX, reason="needs g++")
def test_generated_variants_agree_to_the_last_bits(tmp_path: Path) -> None:
    variants = _variants(30, seed=3)
    unit, new_unit, results = rewrite_all(variants, RULES)
    assert unit == new_unit  # without the plan's consent nothing changes
    results = compare(variants, RULES, tmp_path, rel=1e-15, extra_phases=last_bit_phases())
    missed = [n for n, r in results.items() if "div-by-invariant" not in r.rules]
    assert not missed, [results[m].notes for m in missed]
    # every division left is the reciprocal's own
    assert all(r.code.count(" / ") == r.code.count("= 1.0 / ") for r in results.values())


def test_the_reciprocal_is_computed_once_and_explained() -> None:
    res = _rewrite("void f(double *a, int n, double d) {\n"
                   "    for (int i = 0; i < n; ++i) a[i] = a[i] / d;\n}\n", "f", "c")
    assert "const double inv_d = 1.0 / d;" in res.code and "a[i] * inv_d" in res.code
    assert "last bit" in res.applied[0].explanation
    assert "plan accepts" in res.applied[0].explanation


def test_hoisted_above_the_outermost_loop_that_keeps_it() -> None:
    res = _rewrite("void f(double *a, int n, double d) {\n"
                   "    for (int r = 0; r < n; ++r)\n"
                   "        for (int i = 0; i < n; ++i) a[i] /= d;\n}\n", "f")
    assert res.code.index("inv_d = 1.0 / d") < res.code.index("for (int r")
    assert "a[i] *= inv_d" in res.code


LEFT = {
    "default-rewrite": ("void f(double *a, int n, double d) {\n"
                        "    for (int i = 0; i < n; ++i) a[i] = a[i] / d;\n}\n", False),
    "integer": ("void f(int *a, int n, int d) {\n"
                "    for (int i = 0; i < n; ++i) a[i] = a[i] / d;\n}\n", True),
    "integer-compound": ("void f(long *a, int n, long d) {\n"
                         "    for (int i = 0; i < n; ++i) a[i] /= d;\n}\n", True),
    "written-in-loop": ("void f(double *a, int n, double d) {\n"
                        "    for (int i = 0; i < n; ++i) { a[i] = a[i] / d; d += 1.0; }\n}\n",
                        True),
    "updated-in-loop": ("void f(double *a, int n, double d) {\n"
                        "    for (int i = 0; i < n; ++i) { a[i] /= d; d++; }\n}\n", True),
    "declared-in-loop": ("void f(double *a, int n) {\n"
                         "    for (int i = 0; i < n; ++i) { double d = a[i] + 1; a[i] /= d; }\n}\n",
                         True),
    "address-taken": ("void g(double *);\nvoid f(double *a, int n, double d) {\n"
                      "    g(&d);\n    for (int i = 0; i < n; ++i) a[i] = a[i] / d;\n}\n", True),
    "global": ("double d;\nvoid f(double *a, int n) {\n"
               "    for (int i = 0; i < n; ++i) a[i] = a[i] / d;\n}\n", True),
    "float": ("void f(float *a, int n, float d) {\n"
              "    for (int i = 0; i < n; ++i) a[i] = a[i] / d;\n}\n", True),
    "long-double": ("void f(long double *a, int n, double d) {\n"
                    "    for (int i = 0; i < n; ++i) a[i] = a[i] / d;\n}\n", True),
    "outside-loop": ("double f(double x, double d) { return x / d; }\n", True),
}


@pytest.mark.parametrize("key", sorted(LEFT))
def test_left_alone(key: str) -> None:
    code, allowed = LEFT[key]
    res = _rewrite(code, "f", allowed=allowed)
    assert "div-by-invariant" not in res.rules, res.code
    assert res.code.count("/") == code.split("void f", 1)[-1].count("/") or key == "global"


@pytest.mark.skipif(not HAVE_GXX, reason="needs g++")
async def test_the_optimizer_applies_it_only_when_the_plan_names_it() -> None:
    from dataclasses import replace

    from perfpilot.optimizing.builtin.optimizer import BuiltinOptimizer
    from perfpilot.planning.builtin.planner import BuiltinPlanner
    from perfpilot.progress import JobContext

    unit = ("void scale(double *a, int n, double d) {\n"
            "    for (int i = 0; i < n; ++i) a[i] = a[i] / d;\n}\n")
    site = function_by_name(unit, "cpp", "scale")
    plan = await BuiltinPlanner().plan(site, JobContext())
    named = [s for s in plan.strategies if s.rule == "div-by-invariant"]
    assert named and "last bit" in named[0].explanation, plan.strategies
    with_it = await BuiltinOptimizer(variants=False).optimize(site, plan, JobContext())
    assert any("inv_d" in c.code for c in with_it.candidates), with_it
    without = replace(plan, strategies=tuple(s for s in plan.strategies
                                             if s.rule != "div-by-invariant"))
    rest = await BuiltinOptimizer(variants=False).optimize(site, without, JobContext())
    assert not any("inv_d" in c.code for c in rest.candidates), rest


def _found(code: str) -> list[Divisions]:
    site = function_by_name(code, "cpp", "f", uri="file:///t.cc", check_errors=False)
    inp = rule_input(site, site.text)
    assert inp is not None
    return [f.proof for f in div_by_invariant(inp.facts) if isinstance(f.proof, Divisions)]


def test_one_finding_holds_every_division_by_the_divisor_in_the_loop_that_keeps_it() -> None:
    code = ("void f(double *a, double *b, int n, double d) {\n"
            "    for (int r = 0; r < n; ++r) {\n"
            "        for (int i = 0; i < n; ++i) a[i] /= d;\n"
            "        for (int i = 0; i < n; ++i) b[i] = b[i] / d;\n    }\n}\n")
    (proof,) = _found(code)
    assert proof.divisor == "d" and [node_text(n) for n in proof.divisions] == \
        ["a[i] /= d", "b[i] / d"]
    res = _rewrite(code, "f")
    assert res.code.count("1.0 / d") == 1 and len(res.applied) == 1, res.code
    assert res.applied[0].lines == (4, 5)  # the #include line comes first


def test_a_division_it_leaves_is_named_with_its_reason() -> None:
    integer = _rewrite("void f(double *a, int n, int m) {\n"
                       "    for (int i = 0; i < n; ++i) a[i] = a[i] / m;\n}\n", "f")
    assert integer.notes == ("div-by-invariant: `a[i] / m` on line 3 stays: the divisor 'm' is "
                             "not floating-point: a division by an integer is exact, a product "
                             "by its reciprocal is not",)
    taken = _rewrite(LEFT["address-taken"][0], "f")
    assert any("on line 5 stays: 'd' has its address taken" in n for n in taken.notes), \
        taken.notes
    wide = _rewrite(LEFT["long-double"][0], "f")
    assert any("'long double' operand" in n for n in wide.notes), wide.notes
