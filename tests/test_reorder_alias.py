"""Loop reordering over arrays a caller may pass overlapping
(``rules/parallel/openmp_patterns/reorder_guard.py``): the loop-interchange rule and the loop-order
variants run the new order only behind a run-time test that a written array and an array read
at other subscripts do not overlap (the original order otherwise), and leave the nest alone
where no test can tell. Cases for each way two names may reach one array (two references to one
object, pointers at offsets, a pointer into a container, a row of a vector of vectors, a global
and a parameter, a local pointer or reference into a parameter); cases that need no test (other
element types, ``restrict``, reads at exactly the written subscripts, the function's own
storage); and a g++ differential over generated nests called with the same object, pointer
offsets and disjoint arrays, compared bit for bit."""

from __future__ import annotations

import os
import random
import re
import subprocess
from pathlib import Path

import pytest

from differential_support import HAVE_GXX
from perfpilot.code.locate import function_by_name
from perfpilot.code.loops import function_loops
from perfpilot.code.site import FunctionSite
from perfpilot.optimizing.builtin import rewrite
from perfpilot.optimizing.builtin.variants import family_of
from perfpilot.planning.builtin import analyze_site
from perfpilot.rules.parallel.openmp_patterns.alias_check import nest_no_overlap_condition
from perfpilot.rules.parallel.openmp_patterns.reorder_guard import nest_loops

HEADERS = "#include <cstddef>\n#include <cstdio>\n#include <vector>\n"
INTERCHANGE = frozenset({"loop-interchange"})
V = "std::vector<std::vector<double>>"
SHIFTED = "for (int i = 1; i < n; ++i) for (int j = 1; j < m; ++j) a[j][i] = b[j - 1][i + 1] + 1;"


def _site(code: str, name: str = "f") -> FunctionSite:
    return function_by_name(HEADERS + code, "cpp", name)


def _interchanged(code: str) -> tuple[str, tuple[str, ...], bool]:
    res = rewrite(_site(code), INTERCHANGE)
    return res.code, res.notes, "loop-interchange" in res.rules


def _orders(code: str, name: str = "f") -> list[tuple[str, str]]:
    s = _site(code, name)
    f = family_of(s.text, s, False)
    return [(v.label, v.code) for v in f.variants if v.label.startswith("order")]


# -- the interchange rule: guarded --------------------------------------------------------------

@pytest.mark.parametrize(("code", "test"), [
    # two references of one type: a caller may pass one object twice
    (f"void f({V}& a, const {V}& b, int n, int m) {{ {SHIFTED} }}", "&a != &b"),
    # a global and a parameter
    (f"{V} a;\nvoid f(const {V}& b, int n, int m) {{ {SHIFTED} }}", "&a != &b"),
    # a local reference into a parameter
    (f"void f({V}& a, const {V}& c, int n, int m) {{ const {V}& b = c; {SHIFTED} }}",
     "&a != &b"),
    # a reference that may be a row of the written vector of vectors
    (f"void f({V}& a, const std::vector<double>& b, int n, int m) {{ for (int i = 1; i < n; "
     "++i) for (int j = 1; j < m; ++j) a[j][i] = b[i + 1] * 2; }", "a.data()"),
])
def test_an_interchange_over_arrays_that_may_overlap_runs_behind_a_test(code: str,
                                                                          test: str) -> None:
    text, notes, done = _interchanged(code)
    assert done, notes
    guard, swapped, original = re.search(
        r"if \((.*)\) \{\n\s*(for .*)\n\} else \{\n\s*(for .*)\n\}", text).groups()  # type: ignore[union-attr]
    assert test in guard
    assert swapped.startswith("for (int j = 1") and original.startswith("for (int i = 1")


@pytest.mark.parametrize("code", [
    # rows reached through pointers: nested storage no test can bound
    f"void f(double** a, double* const* b, int n, int m) {{ {SHIFTED} }}",
    # restrict on a double** says nothing about the rows
    f"void f(double** __restrict a, double* const* __restrict b, int n, int m) {{ {SHIFTED} }}",
    # a pointer that may point into any row of the written vector of vectors
    f"void f({V}& a, const double* b, int n, int m) {{ for (int i = 1; i < n; ++i) "
    "for (int j = 1; j < m; ++j) a[j][i] = b[i + 1] * 2; }",
])
def test_an_interchange_no_test_can_guard_is_refused_with_a_note(code: str) -> None:
    text, notes, done = _interchanged(code)
    assert not done, text
    assert any(n.startswith("loop-interchange") and "'a'" in n and "'b'" in n
               for n in notes), notes


def test_the_finding_says_the_arrays_may_overlap() -> None:
    site = _site(f"void f({V}& a, const {V}& b, int n, int m) {{ {SHIFTED} }}")
    (found,) = [f for f in analyze_site(site).findings if f.rule == "loop-interchange"]
    assert "`a`, `b` as overlapping storage" in found.explanation


# -- the interchange rule: no test needed -------------------------------------------------------

@pytest.mark.parametrize("code", [
    # other element types: strict aliasing keeps them apart
    f"void f(std::vector<std::vector<float>>& a, const {V}& b, int n, int m) {{ {SHIFTED} }}",
    # read at exactly the written subscripts: each element read and written by one iteration
    f"void f({V}& a, const {V}& b, int n, int m) {{ for (int i = 0; i < n; ++i) "
    "for (int j = 0; j < m; ++j) a[j][i] = b[j][i] * 2; }",
    # restrict on a pointer to the elements themselves
    f"void f({V}& a, const double* __restrict b, int n, int m) {{ for (int i = 1; i < n; ++i) "
    "for (int j = 1; j < m; ++j) a[j][i] = b[i + 1] * 2; }",
    # the function's own storage: a copy, a local array
    f"double f({V} a, const {V}& b, int n, int m) {{ {SHIFTED} return a[1][1]; }}",
    "double f(const double (*b)[64], int n, int m) { double a[64][64] = {}; "
    f"{SHIFTED} return a[1][1]; }}",
])
def test_an_interchange_needs_no_test_where_nothing_can_overlap(code: str) -> None:
    text, notes, done = _interchanged(code)
    assert done, notes
    assert "if (" not in text and text.index("int j") < text.index("int i"), text


# -- loop orders ----------------------------------------------------------------------------------

FLAT = """
void f(double* c, const double* a, const double* b, int n) {
    for (int i = 0; i < n; ++i)
        for (int j = 0; j < n; ++j)
            for (int k = 0; k < n; ++k)
                c[i * n + j] += a[i * n + k] * b[k * n + j];
}
"""


@pytest.mark.parametrize(("code", "needles"), [
    # two pointers: the spans the nest reaches through them
    (FLAT, ("sizeof *c", "sizeof *a", "sizeof *b")),
    # a container and pointers that may point into it
    (FLAT.replace("double* c", "std::vector<double>& c"), ("c.data()", "sizeof *a")),
    # a global and a pointer parameter
    ("std::vector<double> c;\n" + FLAT.replace("double* c, ", ""), ("c.data()", "sizeof *a")),
    # a local pointer into a parameter
    (FLAT.replace("const double* b, int n) {", "const double* p, int n) {\n"
                  "    const double* b = p;"), ("sizeof *b",)),
    # references of one type read at other subscripts
    (f"void f({V}& c, const {V}& a, int n) {{\n    for (int i = 0; i < n; ++i)\n"
     "        for (int j = 0; j < n; ++j)\n            for (int k = 0; k < n; ++k)\n"
     "                c[i][j] += a[i][k] * a[k][j];\n}\n", ("&c != &a",)),
])
def test_loop_orders_over_arrays_that_may_overlap_run_behind_a_test(
        code: str, needles: tuple[str, ...]) -> None:
    orders = _orders(code)
    assert orders, code
    for _label, text in orders:
        found = re.search(r"\n    if \((.*)\) \{\n", text)
        assert found is not None, text
        assert all(n in found.group(1) for n in needles), found.group(1)
        assert "} else {" in text


def test_loop_orders_test_only_the_pairs_read_at_other_subscripts() -> None:
    code = (f"void f({V}& c, const {V}& a, const {V}& b, int n) {{\n"
            "    for (int i = 0; i < n; ++i)\n        for (int j = 0; j < n; ++j)\n"
            "            for (int k = 0; k < n; ++k)\n"
            "                c[i][j] += a[i][j] * b[k][j];\n}\n")
    for _label, text in _orders(code):
        assert "if (&c != &b) {" in text and "&a" not in text, text


@pytest.mark.parametrize("code", [
    FLAT.replace("const double* a", "const double* __restrict a")
    .replace("double* c", "double* __restrict c").replace("const double* b",
                                                          "const double* __restrict b"),
    FLAT.replace("const double* a", "const float* a").replace("const double* b",
                                                              "const int* b"),
    FLAT.replace("const double* b, int n) {", "int n) {\n    std::vector<double> w(n * n, 1.0);"
                 "\n    const double* b = w.data();").replace("const double* a",
                                                             "const double* __restrict a")
    .replace("double* c", "double* __restrict c"),
])
def test_loop_orders_need_no_test_where_nothing_can_overlap(code: str) -> None:
    orders = _orders(code)
    assert orders, code
    assert all("if (" not in text for _label, text in orders), orders


def test_loop_orders_leave_a_nest_no_test_can_bound_alone() -> None:
    # a subscript multiplying two counters has no span a test here writes
    assert not _orders(FLAT.replace("b[k * n + j]", "b[k * j]"))


def test_names_touched_at_one_subscript_may_also_start_at_one_address() -> None:
    code = ("void f(double* c, const double* a, int n) {\n"
            "    for (int i = 0; i < n; ++i)\n        for (int j = 0; j < n; ++j)\n"
            "            c[i * n + j] = a[i * n + j] * 2;\n}\n")
    (top,) = function_loops(_site(code))
    test = nest_no_overlap_condition(nest_loops(top), ["a", "c"])
    assert test is not None and "(const void *)c == (const void *)a" in test, test
    other = code.replace("a[i * n + j]", "a[j * n + i]")
    (top,) = function_loops(_site(other))
    test = nest_no_overlap_condition(nest_loops(top), ["a", "c"])
    assert test is not None and "==" not in test, test


# -- differential: overlapping and disjoint arguments, bit for bit -------------------------------

SUPPORT = """
template <class T> static std::vector<std::vector<T>> grid(int rows, int cols, int seed) {
    std::vector<std::vector<T>> g(rows, std::vector<T>(cols));
    for (int r = 0; r < rows; ++r)
        for (int c = 0; c < cols; ++c) g[r][c] = (T)((r * 37 + c * 11 + seed) % 23) - (T)7;
    return g;
}
template <class T> static std::vector<T> line(int size, int seed) {
    std::vector<T> v(size);
    for (int q = 0; q < size; ++q) v[q] = (T)((q * 29 + seed) % 19) - (T)6;
    return v;
}
template <class T> static void show(const std::vector<std::vector<T>>& g) {
    for (const auto& row : g) for (T v : row) std::printf("%a\\n", (double)v);
}
template <class T> static void show1(const std::vector<T>& v) {
    for (T x : v) std::printf("%a\\n", (double)x);
}
"""

_SHIFTS = ((-1, 1), (1, -1), (0, 1), (1, 0), (0, 0), (-1, -1), (1, 1))


def _ix(var: str, d: int) -> str:
    return var if d == 0 else f"{var} + {d}" if d > 0 else f"{var} - {-d}"


def _interchange_cases(rnd: random.Random, count: int) -> list[tuple[str, str, str, str]]:
    """(name, globals, function, driver) for 2-deep nests the interchange rule swaps."""
    out: list[tuple[str, str, str, str]] = []
    shapes = ("refs", "global", "local-ref", "row")
    for k in range(count):
        shape = shapes[k % len(shapes)]
        name = f"ic{k}"
        t = rnd.choice(("double", "long", "int"))
        g = f"std::vector<std::vector<{t}>>"
        dj, di = rnd.choice(_SHIFTS)
        n, m = rnd.randint(4, 9), rnd.randint(4, 9)
        op = rnd.choice(("a[j][i] = {r} * 3 + 1;", "a[j][i] += {r};", "a[j][i] = {r} - a[j][i];"))
        loops = "for (int i = 1; i < n; ++i) for (int j = 1; j < m; ++j) "
        read = f"b[{_ix('j', dj)}][{_ix('i', di)}]"
        fill = f"{g} x = grid<{t}>({m + 1}, {n + 1}, {rnd.randint(0, 99)}), " \
               f"y = grid<{t}>({m + 1}, {n + 1}, {rnd.randint(0, 99)});"
        globals_ = ""
        if shape == "refs":
            code = (f"void {name}({g}& a, const {g}& b, int n, int m) {{ "
                    f"{loops}{op.format(r=read)} }}")
            calls = [f"F(x, x, {n}, {m}); show(x);", f"F(x, y, {n}, {m}); show(x); show(y);"]
        elif shape == "global":
            globals_ = f"static {g} {name}_g;\n"
            code = (f"void {name}(const {g}& b, int n, int m) {{ "
                    f"{loops}{op.format(r=read).replace('a[', f'{name}_g[')} }}")
            calls = [f"{name}_g = x; F({name}_g, {n}, {m}); show({name}_g);",
                     f"{name}_g = x; F(y, {n}, {m}); show({name}_g);"]
        elif shape == "local-ref":
            code = (f"void {name}({g}& a, const {g}& c, int n, int m) {{ const {g}& b = c; "
                    f"{loops}{op.format(r=read)} }}")
            calls = [f"F(x, x, {n}, {m}); show(x);", f"F(x, y, {n}, {m}); show(x);"]
        else:
            row = f"b[{_ix('i', di)}]"
            code = (f"void {name}({g}& a, const std::vector<{t}>& b, int n, int m) {{ "
                    f"{loops}{op.format(r=row)} }}")
            calls = [f"F(x, x[{rnd.randint(1, m - 1)}], {n}, {m}); show(x);",
                     f"F(x, y[1], {n}, {m}); show(x);"]
        driver = " ".join(f"{{ {fill} {c} }}" for c in calls)
        out.append((name, globals_, code, driver))
    return out


def _order_cases(rnd: random.Random, count: int) -> list[tuple[str, str, str, str]]:
    """(name, globals, function, driver) for 3-deep nests with other legal orders."""
    out: list[tuple[str, str, str, str]] = []
    shapes = ("flat", "vec-ptr", "local-ptr", "global", "refs")
    for k in range(count):
        shape = shapes[k % len(shapes)]
        name = f"oc{k}"
        t = rnd.choice(("double", "long", "int"))
        n = rnd.randint(3, 7)
        size = 4 * n * n + 2 * n
        globals_ = ""
        body = "c[i * n + j] += a[i * n + k] * b[k * n + j];"
        nest = ("    for (int i = 0; i < n; ++i)\n        for (int j = 0; j < n; ++j)\n"
                "            for (int k = 0; k < n; ++k)\n                ")
        fill = f"std::vector<{t}> v = line<{t}>({size}, {rnd.randint(0, 99)}), " \
               f"w = line<{t}>({size}, {rnd.randint(0, 99)}); {t}* p = v.data(); " \
               f"{t}* q = w.data();"
        offsets = ("p", "p + 1", f"p + {n}", f"p + {n * n - 1}", f"p + {n * n}", "q",
                   f"q + {n * n}")
        if shape in ("flat", "local-ptr"):
            params = f"{t}* c, const {t}* a, const {t}* b" if shape == "flat" else \
                f"{t}* c, const {t}* a, const {t}* s"
            local = "" if shape == "flat" else f"    const {t}* b = s + {rnd.choice((0, 1, n))};\n"
            code = f"void {name}({params}, int n) {{\n{local}{nest}{body}\n}}\n"
            calls = [f"F({rnd.choice(offsets[:5])}, {rnd.choice(offsets)}, "
                     f"{rnd.choice(offsets)}, {n}); show1(v); show1(w);" for _ in range(6)]
            calls.append(f"F(p, p, p, {n}); show1(v);")
        elif shape == "vec-ptr":
            code = (f"void {name}(std::vector<{t}>& c, const {t}* a, const {t}* b, int n) "
                    f"{{\n{nest}{body}\n}}\n")
            calls = [f"F(v, {o.replace('p', 'v.data()')}, {o2.replace('p', 'v.data()')}, {n}); "
                     f"show1(v);" for o, o2 in zip(offsets, reversed(offsets), strict=True)]
        elif shape == "global":
            globals_ = f"static std::vector<{t}> {name}_g;\n"
            code = (f"void {name}(const {t}* a, const {t}* b, int n) {{\n{nest}"
                    f"{body.replace('c[', f'{name}_g[')}\n}}\n")
            calls = [f"{name}_g = v; F({name}_g.data() + {off}, {name}_g.data(), {n}); "
                     f"show1({name}_g);" for off in (0, 1, n, n * n)]
            calls.append(f"{name}_g = v; F(q, q + 1, {n}); show1({name}_g);")
        else:
            g = f"std::vector<std::vector<{t}>>"
            code = (f"void {name}({g}& c, const {g}& a, const {g}& b, int n) {{\n{nest}"
                    "c[i][j] += a[i][k] * b[k][j];\n}\n")
            fill = f"{g} x = grid<{t}>({n}, {n}, {rnd.randint(0, 99)}), " \
                   f"y = grid<{t}>({n}, {n}, {rnd.randint(0, 99)});"
            calls = [f"F(x, x, x, {n}); show(x);", f"F(x, y, x, {n}); show(x);",
                     f"F(x, x, y, {n}); show(x);", f"F(x, y, y, {n}); show(x);"]
        driver = " ".join(f"{{ {fill} {c} }}" for c in calls)
        out.append((name, globals_, code, driver))
    return out


def _versions(name: str, globals_: str, code: str, interchange: bool,
              parallel: bool = False) -> list[str]:
    """The original function and its rewrites: the interchange rule's (``parallel``: with the
    OpenMP rule's on top), or the loop orders'."""
    s = function_by_name(HEADERS + globals_ + code, "cpp", name)
    if interchange:
        res = rewrite(s, INTERCHANGE | ({"openmp-for"} if parallel else set()))
        return [s.text, *([res.code] if "loop-interchange" in res.rules else [])]
    f = family_of(s.text, s, False)
    return [s.text, *(v.code for v in f.variants if v.label.startswith("order"))]


def _run(unit: str, folder: Path, openmp: bool = False) -> list[str]:
    src = folder / "reorder.cpp"
    src.write_text(unit)
    exe = folder / "reorder"
    comp = subprocess.run(["g++", "-std=c++17", "-O1", *(["-fopenmp"] if openmp else []),
                           "-o", str(exe), str(src)], capture_output=True, text=True, timeout=300)
    assert comp.returncode == 0, comp.stderr[:4000]
    run = subprocess.run([str(exe)], capture_output=True, text=True, timeout=120,
                         env={**os.environ, "OMP_NUM_THREADS": "4"})
    assert run.returncode == 0, run.stderr
    return run.stdout.splitlines()


def _differing(folder: Path, forced: bool = False, parallel: bool = False
               ) -> tuple[list[str], dict[str, int]]:
    """Build every generated nest with its rewrites (``forced``: with each run-time test
    replaced by ``true``; ``parallel``: interchanges only, with the OpenMP rule on top, run on
    4 threads), run them on overlapping and disjoint arguments, and name the nests whose
    rewrites print something else than the original; also how many rewrites each got."""
    rnd = random.Random(19)
    cases = [(c, True) for c in _interchange_cases(rnd, 16)] + \
        ([] if parallel else [(c, False) for c in _order_cases(rnd, 15)])
    parts = [HEADERS, SUPPORT]
    drivers: list[str] = []
    rewritten: dict[str, int] = {}
    for (name, globals_, code, driver), interchange in cases:
        parts.append(globals_)
        versions = _versions(name, globals_, code, interchange, parallel)
        rewritten[name] = len(versions) - 1
        for n, text in enumerate(versions):
            fn = f"{name}_v{n}"
            if forced:
                text = re.sub(r"\bif \((.*)\) \{\n", "if (true) {\n", text)
            parts.append(re.sub(rf"\b{name}\(", f"{fn}(", text, count=1))
            drivers.append(f"{{ std::printf(\"== {name} {n}\\n\"); "
                           + driver.replace("F(", f"{fn}(") + " }")
    out = _run("\n".join(parts) + "\nint main() {\n" + "\n".join(drivers) + "\nreturn 0;\n}\n",
               folder, parallel)
    by: dict[str, dict[int, list[str]]] = {}
    current: list[str] = []
    for ln in out:
        if ln.startswith("== "):
            _, fn, n = ln.split()
            current = by.setdefault(fn, {}).setdefault(int(n), [])
        else:
            current.append(ln)
    assert set(by) == set(rewritten)
    return sorted(fn for fn, vs in by.items() if any(v != vs[0] for v in vs.values())), \
        rewritten


@pytest.mark.skipif(not HAVE_GXX, reason="needs g++")
def test_reordered_nests_compute_what_the_originals_do_on_overlapping_arguments(
        tmp_path: Path) -> None:
    differ, rewritten = _differing(tmp_path)
    assert not differ, differ
    # every nest was rewritten: the run-time tests, not refusals, kept the results
    assert all(rewritten.values()), rewritten


@pytest.mark.skipif(not HAVE_GXX, reason="needs g++")
def test_without_the_tests_the_overlap_changes_results(tmp_path: Path) -> None:
    # The tests are needed: the same rewrites run unconditionally compute something else for
    # overlapping arguments, in interchanged nests and in other loop orders alike.
    differ, _rewritten = _differing(tmp_path, forced=True)
    # every kind of pair: same object, global, local reference, row; flat pointers, a
    # container and pointers, a local pointer, a global, references of one type
    assert {int(n[2:]) % 4 for n in differ if n.startswith("ic")} == {0, 1, 2, 3}, differ
    assert {int(n[2:]) % 5 for n in differ if n.startswith("oc")} == {0, 1, 2, 3, 4}, differ


@pytest.mark.skipif(not HAVE_GXX, reason="needs g++")
def test_parallel_interchanged_nests_compute_what_the_originals_do(tmp_path: Path) -> None:
    # The OpenMP rule on top of a guarded interchange takes the guard as proved: the new order
    # runs in parallel with no second test, and the original order, which runs only when the
    # arrays are one object, stays serial.
    differ, rewritten = _differing(tmp_path, parallel=True)
    assert not differ, differ
    assert all(rewritten.values()), rewritten
