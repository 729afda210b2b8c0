"""accumulator-chain: a floating sum in an innermost loop becomes four partial sums, only when
the plan accepts last-bit changes; the results then agree within rounding over generated
variants (remainders of every length, both signs, float and double); loops it cannot prove
safe are left alone."""

from __future__ import annotations

import asyncio
import random
from dataclasses import replace
from pathlib import Path

import pytest

from differential_support import HAVE_GXX, Variant, compare, rewrite_all
from perfpilot.code.locate import function_by_name
from perfpilot.optimizing.builtin import BuiltinOptimizer, rewrite
from perfpilot.planning.builtin import BuiltinPlanner
from perfpilot.progress import JobContext
from perfpilot.rules.registry import last_bit_phases
from perfpilot.rules.rewriting import RewriteResult

RULES = frozenset({"accumulator-chain"})

_TERMS = ("{a}[{i}] * {b}[{i}]", "{a}[{i}]", "std::fabs({a}[{i}] - {b}[{i}])",
          "{a}[{i}] * {a}[{i}] + 0.5", "({a}[{i}] + {b}[{i} + 1]) * {k}")


def _variants(count: int, seed: int) -> list[Variant]:
    rnd = random.Random(seed)
    out: list[Variant] = []
    for n in range(count):
        name = f"acc{n}"
        t = rnd.choice(("double", "float"))
        i, a, b = rnd.choice(("i", "j", "k2")), rnd.choice(("xs", "a")), rnd.choice(("ys", "w"))
        idx = rnd.choice(("int", "long", "std::size_t", "unsigned"))
        lo = rnd.choice(("0", "1", "3"))
        bound, extra = rnd.choice((("n", ""), ("n - 1", ""), ("m", "    int m = n;\n")))
        if idx in ("std::size_t", "unsigned") and bound == "n - 1":
            bound = "n"  # n - 1 wraps for an unsigned index at n = 0: the original's own bug
        op = rnd.choice(("+=", "-="))
        term = rnd.choice(_TERMS).format(a=a, b=b, i=i, k=rnd.choice(("3", "0.25")))
        start = rnd.choice(("0", "1.5", "-2"))
        braces = rnd.random() < 0.5
        body = f"{{ s {op} {term}; }}" if braces else f"s {op} {term};"
        code = (f"{t} {name}(const {t}* {a}, const {t}* {b}, int n) {{\n{extra}"
                f"    {t} s = {start};\n"
                f"    for ({idx} {i} = {lo}; {i} < {bound}; ++{i}) {body}\n"
                f"    return s;\n}}\n")
        vals = ", ".join(f"{rnd.uniform(-2, 2):.5f}" for _ in range(16))
        driver = (f"{t} x[] = {{{vals}}}; {t} y[] = {{{vals}}}; "
                  f"for (int len = 0; len <= 12; ++len) "
                  f"std::printf(\"%.17g \", (double){name}(x, y + 1, len)); "
                  "std::printf(\"\\n\");")
        out.append(Variant(name, code, driver, rel=1e-5 if t == "float" else 1e-12))
    return out


def _rewrite(code: str, name: str, *, allowed: bool = True) -> RewriteResult:
    site = function_by_name("#include <cmath>\n" + code, "cpp", name)
    return rewrite(site, RULES, extra_phases=last_bit_phases() if allowed else ())


@pytest.mark.skipif(not HAVE_GXX, reason="needs g++")
def test_generated_variants_agree_within_rounding(tmp_path: Path) -> None:
    variants = _variants(32, seed=11)
    unit, new_unit, _ = rewrite_all(variants, RULES)
    assert unit == new_unit  # without the plan's consent nothing changes
    results = compare(variants, RULES, tmp_path, rel=1e-12, extra_phases=last_bit_phases())
    missed = [n for n, r in results.items() if "accumulator-chain" not in r.rules]
    assert not missed, [results[m].notes for m in missed]


def test_four_partial_sums_and_the_explanation() -> None:
    res = _rewrite("double dot(const double* a, const double* b, int n) {\n"
                   "    double s = 0;\n    for (int i = 0; i < n; ++i) s += a[i] * b[i];\n"
                   "    return s;\n}\n", "dot")
    assert "double s0 = 0, s1 = 0, s2 = 0, s3 = 0;" in res.code, res.code
    assert "for (; i < n && n - i > 3; i += 4) {" in res.code
    assert "s3 += a[i + 3] * b[i + 3];" in res.code
    assert "s += (s0 + s1) + (s2 + s3);" in res.code
    (applied,) = res.applied
    assert "last bits" in applied.explanation and "plan accepts" in applied.explanation


LEFT = {
    "two-statements": "double f(const double* a, int n) { double s = 0, t = 0;\n"
                      "  for (int i = 0; i < n; ++i) { s += a[i]; t += a[i]; } return s + t; }",
    "integer": "long f(const long* a, int n) { long s = 0;\n"
               "  for (int i = 0; i < n; ++i) s += a[i]; return s; }",
    "volatile": "double f(const double* a, int n) { volatile double s = 0;\n"
                "  for (int i = 0; i < n; ++i) s += a[i]; return s; }",
    "global": "double s;\ndouble f(const double* a, int n) {\n"
              "  for (int i = 0; i < n; ++i) s += a[i]; return s; }",
    "reference": "void f(const double* a, int n, double& s) {\n"
                 "  for (int i = 0; i < n; ++i) s += a[i]; }",
    "product": "double f(const double* a, int n) { double s = 1;\n"
               "  for (int i = 0; i < n; ++i) s *= a[i]; return s; }",
    "reads-itself": "double f(const double* a, int n) { double s = 0;\n"
                    "  for (int i = 0; i < n; ++i) s += a[i] * s; return s; }",
    "unknown-call": "double g(double);\ndouble f(const double* a, int n) { double s = 0;\n"
                    "  for (int i = 0; i < n; ++i) s += g(a[i]); return s; }",
    "step-two": "double f(const double* a, int n) { double s = 0;\n"
                "  for (int i = 0; i < n; i += 2) s += a[i]; return s; }",
    "index-outside": "double f(const double* a, int n) { double s = 0; int i;\n"
                     "  for (i = 0; i < n; ++i) s += a[i]; return s + i; }",
    "inclusive-bound": "double f(const double* a, int n) { double s = 0;\n"
                       "  for (int i = 0; i <= n; ++i) s += a[i]; return s; }",
    "outer-loop": "double f(const double* a, int n) { double s = 0;\n"
                  "  for (int r = 0; r < n; ++r) for (int i = 0; i < n; ++i) s += a[i];\n"
                  "  return s; }",
    "pragma": "double f(const double* a, int n) { double s = 0;\n"
              "#pragma omp parallel for reduction(+:s)\n"
              "  for (int i = 0; i < n; ++i) s += a[i]; return s; }",
    "default-rewrite": "double f(const double* a, int n) { double s = 0;\n"
                       "  for (int i = 0; i < n; ++i) s += a[i]; return s; }",
}


@pytest.mark.parametrize("key", sorted(LEFT))
def test_left_alone(key: str) -> None:
    res = _rewrite(LEFT[key], "f", allowed=key != "default-rewrite")
    changed = [a for a in res.applied if a.rule == "accumulator-chain"]
    if key == "outer-loop":  # the inner loop alone may split; the outer one never
        assert all("loop over 'r'" not in a.explanation for a in changed)
        return
    assert not changed, res.code


@pytest.mark.skipif(not HAVE_GXX, reason="needs g++")
def test_the_optimizer_splits_only_when_the_plan_names_it() -> None:
    src = ("#include <vector>\ndouble dot(const std::vector<double>& a, "
           "const std::vector<double>& b) {\n    double s = 0.0;\n"
           "    for (std::size_t i = 0; i < a.size(); i++) s += a[i] * b[i];\n"
           "    return s;\n}\n")
    site = function_by_name(src, "cpp", "dot")

    async def run() -> None:
        plan = await BuiltinPlanner().plan(site, JobContext())
        assert "accumulator-chain" in {s.rule for s in plan.strategies}
        out = await BuiltinOptimizer(variants=False).optimize(site, plan, JobContext())
        parallel, serial = out.candidates
        assert "#pragma omp" in parallel.code and "s0" not in parallel.code
        assert "s += (s0 + s1) + (s2 + s3);" in serial.code
        assert "accumulator-chain" in {s.rule for s in serial.strategies}
        without = replace(plan, strategies=tuple(s for s in plan.strategies
                                                 if s.rule != "accumulator-chain"))
        rest = await BuiltinOptimizer(variants=False).optimize(site, without, JobContext())
        assert not any("s0" in c.code for c in rest.candidates)

    asyncio.run(run())
