"""OpenMP on loops over pointer parameters a caller may pass overlapping: a run-time test that
the elements the loop touches do not overlap decides between the parallel and the serial loop.
Generated variants are run on disjoint, identical and partly overlapping buffers at 4 threads
and must print what the serial originals print; accesses the test cannot bound are refused."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from differential_support import HAVE_GXX, Variant, rewrite_all
from perfpilot.code.locate import function_by_name
from perfpilot.code.loops import function_loops
from perfpilot.optimizing.builtin import rewrite
from perfpilot.planning.builtin import analyze_site
from perfpilot.rules.parallel.openmp_patterns.alias_check import no_overlap_condition
from test_rule_openmp_parallel_patterns import _build_and_run

OPENMP = frozenset({"openmp-for", "openmp-reduction"})


def _variants(count: int, seed: int) -> list[Variant]:
    rnd = random.Random(seed)
    out: list[Variant] = []
    for k in range(count):
        name = f"al{k}"
        t = rnd.choice(("double", "long", "float", "int"))
        i = rnd.choice(("i", "j", "p"))
        lo, hi, shift = rnd.choice((("0", "n", 0), ("1", "n - 1", 1), ("2", "n", 2)))
        terms = [f"src[{i}]", f"src[{i} - {shift}]" if shift else f"src[{i}]",
                 f"src[{i} + 1]" if hi != "n" else f"src[{i}]"]
        expr = " + ".join(rnd.sample(terms, k=rnd.randint(1, 3)))
        op = rnd.choice(("dst[{i}] = ({e}) * 3 / 2;", "dst[{i}] += {e};",
                         "dst[{i}] = {e} - dst[{i}];"))
        cmp = rnd.choice(("<", "<="))
        bound = hi if cmp == "<" else f"{hi} - 1"
        code = (f"void {name}({t} *dst, const {t} *src, int n) {{\n"
                f"    for (int {i} = {lo}; {i} {cmp} {bound}; ++{i}) "
                + op.format(i=i, e=expr) + "\n}\n")
        n = 40000
        driver = (f"static {t} buf[{n} + 8]; long long h = 0; "
                  f"for (int off : {{-3, -1, 0, 1, 2, 5, 100000}}) {{ "
                  f"for (int q = 0; q < {n} + 8; ++q) buf[q] = ({t})(q % 97 - 40); "
                  f"static {t} other[{n} + 8]; "
                  f"{t} *d = off == 100000 ? other : buf + 3 + (off < 0 ? 0 : off); "
                  f"const {t} *s = buf + 3 + (off < 0 ? -off : 0); "
                  f"{name}(d, s, {n}); "
                  f"for (int q = 0; q < {n} + 8; ++q) h = h * 31 + (long long)buf[q] "
                  f"+ (long long)other[q]; }} std::printf(\"%lld\\n\", h);")
        out.append(Variant(name, code, driver))
    return out


@pytest.mark.skipif(not HAVE_GXX, reason="needs g++")
def test_overlapping_calls_keep_serial_results_at_four_threads(tmp_path: Path) -> None:
    variants = _variants(24, seed=5)
    unit, new_unit, results = rewrite_all(variants, OPENMP)
    missed = [k for k, r in results.items() if not r.rules & OPENMP]
    assert not missed, [results[m].notes for m in missed]
    assert all("if(apart)" in r.code for r in results.values())
    drivers = "\n".join(f"    {{ std::printf(\"== {v.name}\\n\"); {v.driver} }}"
                        for v in variants)
    before = _build_and_run(unit, drivers, tmp_path, "orig", openmp=False)
    after = _build_and_run(new_unit, drivers, tmp_path, "opt")
    assert after == before


@pytest.mark.skipif(not HAVE_GXX, reason="needs g++")
def test_without_the_test_the_overlap_would_change_results(tmp_path: Path) -> None:
    # The check is needed: the same parallel loop with the test forced true computes
    # something else on partly overlapping buffers (so the differential test above can fail).
    variants = [v for v in _variants(24, seed=5) if "src[i - 1]" in v.code][:3] or \
        _variants(24, seed=5)[:3]
    unit, new_unit, _ = rewrite_all(variants, OPENMP)
    forced = new_unit.replace("if(apart)", "if(1)")
    drivers = "\n".join(f"    {{ std::printf(\"== {v.name}\\n\"); {v.driver} }}"
                        for v in variants)
    before = _build_and_run(unit, drivers, tmp_path, "orig", openmp=False)
    assert _build_and_run(forced, drivers, tmp_path, "forced") != before


def _loop(code: str, name: str = "f", language: str = "c"):  # type: ignore[no-untyped-def]
    site = function_by_name(code, language, name)  # type: ignore[arg-type]
    (lp,) = function_loops(site)
    return site, lp


@pytest.mark.parametrize("body", [
    "for (int i = 0; i < n; ++i) y[2 * i] = x[i];",            # not i + c
    "for (int i = 0; i < n; i += 2) y[i] = x[i];",             # step 2
    "for (int i = 0; i < g(n); ++i) y[i] = x[i];",             # a bound that calls
    "for (int i = n - 1; i >= 0; --i) y[i] = x[i];",           # descending
    "for (int i = 0; i < n; ++i) y[x[i] > 0 ? i : 0] = 1;",    # computed index
])
def test_accesses_it_cannot_bound_are_refused(body: str) -> None:
    code = f"int g(int);\nvoid f(double *y, const double *x, int n) {{\n    {body}\n}}\n"
    site, lp = _loop(code)
    assert no_overlap_condition(lp, ["x", "y"]) is None
    res = rewrite(site, OPENMP)
    assert "#pragma omp" not in res.code, res.code


def test_the_plan_says_a_run_time_test_decides() -> None:
    code = "void f(double *y, const double *x, int n) {\n" \
           "    for (int i = 0; i < n; ++i) y[i] = 2 * x[i];\n}\n"
    site = function_by_name(code, "c", "f")
    (found,) = [f for f in analyze_site(site).findings if f.rule == "openmp-for"]
    assert "run-time test" in found.explanation and "`x`, `y`" in found.explanation
    res = rewrite(site, OPENMP)
    assert "const int apart = (" in res.code and "#pragma omp parallel for if(apart)" in res.code
    assert "run-time test decides" in res.applied[0].explanation
    # restrict pointers need no test
    site2 = function_by_name(code.replace("double *y", "double *restrict y")
                             .replace("const double *x", "const double *restrict x"), "c", "f")
    assert "apart" not in rewrite(site2, OPENMP).code
