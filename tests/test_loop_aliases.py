# ruff: noqa: E501  (C++ fixtures keep one function a line)
"""Loops that reach the storage they write through something other than an analysed subscript:
a local pointer, reference or iterator into it, ``.at()``/``.front()``/``.data()``, ``*(a + k)``,
a call or a range-for over it. None of them may be called independent (no OpenMP finding or
rewrite, no ``omp simd`` finding); exact forms (``.at(i)``, a distinct parameter, fresh local
storage) still are, and an untraced local pointer gets the run-time overlap test parameters get.
"""

from __future__ import annotations

import random
import re
from pathlib import Path

import pytest

from differential_support import HAVE_GXX, Variant, rewrite_all
from perfpilot.code.locate import function_by_name
from perfpilot.code.loops import LoopFacts, all_loops, function_loops
from perfpilot.optimizing.builtin import rewrite
from perfpilot.planning.builtin import analyze_site
from test_rule_openmp_parallel_patterns import _build_and_run

OPENMP = frozenset({"openmp-for", "openmp-reduction"})

HEAD = """#include <vector>
#include <iterator>
double* get_buf(int n);
double helper(const std::vector<double>& v, int i);
"""

NEGATIVE = {
    "at_method": "void f(std::vector<double>& a, int n) { for (int i = 0; i < n - 1; ++i) a[i] = a.at(i + 1) * 2.0 + 1.0; }",
    "pointer_plus_one": "void f(double* a, int n) { double* b = a + 1; for (int i = 0; i < n - 1; ++i) a[i] = b[i] * 2.0 + 1.0; }",
    "reference_alias": "void f(std::vector<double>& a, int n) { const std::vector<double>& b = a; for (int i = 0; i < n - 1; ++i) a[i] = b[i + 1] * 2.0 + 1.0; }",
    "address_of_element": "void f(double* a, int n) { double* b = &a[1]; for (int i = 0; i < n - 1; ++i) a[i] = b[i] * 2.0 + 1.0; }",
    "data_plus_one": "void f(std::vector<double>& a, int n) { double* b = a.data() + 1; for (int i = 0; i < n - 1; ++i) a[i] = b[i] * 2.0 + 1.0; }",
    "assigned_later": "void f(double* a, int n) { double* b; b = a + 1; for (int i = 0; i < n - 1; ++i) a[i] = b[i] * 2.0 + 1.0; }",
    "through_another_alias": "void f(double* a, int n) { double* b = a; double* c = b + 1; for (int i = 0; i < n - 1; ++i) a[i] = c[i] * 2.0 + 1.0; }",
    "alias_in_body": "void f(double* a, int n) { for (int i = 0; i < n - 1; ++i) { const double* b = a + 1; a[i] = b[i] * 2.0 + 1.0; } }",
    "front": "void f(std::vector<double>& a, int n) { for (int i = 0; i < n; ++i) a[i] = a.front() * 2.0 + a[i]; }",
    "address_of_front": "void f(std::vector<double>& a, int n) { double* b = &a.front(); for (int i = 0; i < n - 1; ++i) a[i] = b[i + 1] * 2.0; }",
    "data_subscript": "void f(std::vector<double>& a, int n) { for (int i = 0; i < n - 1; ++i) a[i] = a.data()[i + 1] * 2.0; }",
    "helper_call": "void f(std::vector<double>& a, int n) { for (int i = 0; i < n; ++i) a[i] = helper(a, i) * 2.0; }",
    "range_for_in_body": "void f(std::vector<double>& a, int n) { for (int i = 0; i < n; ++i) { double s = 0; for (double x : a) s += x; a[i] = s * a[i]; } }",
    "iterator": "void f(std::vector<double>& a, int n) { auto it = a.begin() + 1; for (int i = 0; i < n - 1; ++i) a[i] = it[i] * 2.0; }",
    "std_begin": "void f(std::vector<double>& a, int n) { auto it = std::begin(a); for (int i = 0; i < n - 1; ++i) a[i] = it[i + 1] * 2.0; }",
    "dereference": "void f(double* a, int n) { for (int i = 0; i < n - 1; ++i) a[i] = *(a + i + 1) * 2.0; }",
    "dereference_other_pointer": "void f(double* a, const double* q, int n) { for (int i = 0; i < n - 1; ++i) a[i] = *(q + i + 1) * 2.0; }",
    "write_through_alias": "void f(std::vector<double>& a, int n) { std::vector<double>& b = a; for (int i = 0; i < n - 1; ++i) b[i] = a[i + 1] * 2.0; }",
    "backward_at": "void f(std::vector<double>& a, int n) { for (int i = 1; i < n; ++i) a[i] = a.at(i - 1) * 2.0; }",
    "same_pointer_backward": "void f(double* a, int n) { double* b = a; for (int i = 1; i < n; ++i) a[i] = b[i - 1] * 2.0; }",
}


def _site(code: str):  # type: ignore[no-untyped-def]
    return function_by_name(HEAD + code + "\n", "cpp", "f")


def _loops(code: str) -> list[LoopFacts]:
    return list(all_loops(function_loops(_site(code))))


@pytest.mark.parametrize("name", sorted(NEGATIVE))
def test_other_ways_to_written_storage_are_not_independent(name: str) -> None:
    code = NEGATIVE[name]
    assert not any(lp.independent for lp in _loops(code) if lp.depth == 0), name
    site = _site(code)
    rules = {f.rule for f in analyze_site(site).findings}
    assert not rules & (OPENMP | {"simd-loop"}), (name, rules)
    assert "#pragma omp" not in rewrite(site, OPENMP).code


def _outer(code: str) -> LoopFacts:
    return next(lp for lp in _loops(code) if lp.depth == 0)


def test_a_distinct_parameter_is_no_alias() -> None:
    code = "void f(std::vector<double>& a, const std::vector<double>& b, int n) { for (int i = 0; i < n - 1; ++i) a[i] = b[i + 1] * 2.0; }"
    assert _outer(code).independent
    out = rewrite(_site(code), OPENMP).code
    assert "#pragma omp parallel for if(&a != &b)" in out


def test_at_reads_its_own_element() -> None:
    code = "void f(std::vector<double>& a, int n) { for (int i = 0; i < n; ++i) a[i] = a.at(i) * 2.0 + 1.0; }"
    assert _outer(code).independent


def test_a_local_reference_to_a_parameter_gets_the_parameters_check() -> None:
    code = "void f(std::vector<double>& a, const std::vector<double>& b, int n) { const std::vector<double>& c = b; for (int i = 0; i < n - 1; ++i) a[i] = c[i + 1] * 2.0; }"
    assert _outer(code).independent
    assert "if(&a != &c)" in rewrite(_site(code), OPENMP).code


def test_fresh_local_storage_needs_no_check() -> None:
    code = "void f(double* a, int n) { std::vector<double> t(n, 1.0); double* p = t.data(); for (int i = 0; i < n; ++i) a[i] = p[i] * 2.0; }"
    assert _outer(code).independent
    out = rewrite(_site(code), OPENMP).code
    assert "#pragma omp parallel for\n" in out and "apart" not in out


def test_an_untraced_local_pointer_gets_the_run_time_test() -> None:
    code = "void f(double* a, int n) { double* p = get_buf(n); for (int i = 0; i < n - 1; ++i) a[i] = p[i + 1] * 2.0; }"
    site = _site(code)
    (found,) = [f for f in analyze_site(site).findings if f.rule == "openmp-for"]
    assert "`a`, `p`" in found.explanation
    assert "if(apart)" in rewrite(site, OPENMP).code


def test_a_row_pointer_into_a_pointer_parameter_counts_as_the_parameter() -> None:
    # y may overlap m: the direct form y[i] vs m[i * n + j] is refused, so is the row pointer
    code = "void f(double* y, const double* m, const double* x, int n) { for (int i = 0; i < n; ++i) { const double* row = m + i * n; double s = 0; for (int j = 0; j < n; ++j) s += row[j] * x[j]; y[i] = s; } }"
    outer = re.compile(r"#pragma omp[^\n]*\n\s*for \(int i")
    assert not outer.search(rewrite(_site(code), OPENMP).code)
    restrict = code.replace("double* y", "double* __restrict y").replace("const double* m", "const double* __restrict m")
    assert not outer.search(rewrite(_site(restrict), OPENMP).code)  # the local is never restrict


def _simd(code: str) -> bool:
    return any(f.rule == "simd-loop" for f in analyze_site(_site(code)).findings)


def test_simd_keeps_forward_reads_before_the_write() -> None:
    assert _simd("void f(double* a, int n) { for (int i = 0; i < n - 1; ++i) a[i] = a[i + 1] * 0.5; }")
    assert not _simd("void f(double* a, int n) { for (int i = 1; i < n; ++i) a[i] = a[i - 1] * 0.5; }")
    assert not _simd("void f(double* a, double* b, int n) { for (int i = 0; i < n - 1; ++i) { a[i] = b[i] * 0.5; b[i] = a[i + 1]; } }")
    assert not _simd("void f(double* a, int n) { for (int i = n - 2; i >= 0; --i) a[i] = a[i + 1] * 0.5; }")


def _variants(count: int, seed: int) -> list[Variant]:
    rnd = random.Random(seed)
    out: list[Variant] = []
    for k in range(count):
        name = f"la{k}"
        t = rnd.choice(("double", "long", "int"))
        c = rnd.choice((0, 1, 2))
        init = rnd.choice((f"src + {c}", f"&src[{c}]"))
        expr = rnd.choice(("q[i] * 3", "q[i] + q[i + 1]", "q[i + 1] - dst[i]"))
        code = (f"void {name}({t} *dst, const {t} *src, int n) {{\n"
                f"    const {t} *q = {init};\n"
                f"    for (int i = 0; i < n; ++i) dst[i] = {expr};\n}}\n")
        n = 40000
        driver = (f"static {t} buf[{n} + 16]; long long h = 0; "
                  f"for (int off : {{-3, -1, 0, 1, 2, 5}}) {{ "
                  f"for (int w = 0; w < {n} + 16; ++w) buf[w] = ({t})(w % 97 - 40); "
                  f"{t} *d = buf + 3 + (off < 0 ? 0 : off); "
                  f"const {t} *s = buf + 3 + (off < 0 ? -off : 0); "
                  f"{name}(d, s, {n}); "
                  f"for (int w = 0; w < {n} + 16; ++w) h = h * 31 + (long long)buf[w]; }} "
                  f"std::printf(\"%lld\\n\", h);")
        out.append(Variant(name, code, driver))
    return out


@pytest.mark.skipif(not HAVE_GXX, reason="needs g++")
def test_local_pointers_into_parameters_keep_serial_results(tmp_path: Path) -> None:
    variants = _variants(12, seed=11)
    unit, new_unit, results = rewrite_all(variants, OPENMP)
    assert all("if(apart)" in r.code for r in results.values() if r.rules & OPENMP)
    assert any(r.rules & OPENMP for r in results.values())
    drivers = "\n".join(f"    {{ std::printf(\"== {v.name}\\n\"); {v.driver} }}"
                        for v in variants)
    before = _build_and_run(unit, drivers, tmp_path, "orig", openmp=False)
    after = _build_and_run(new_unit, drivers, tmp_path, "opt")
    assert after == before
