"""A pointer (or view) parameter may point into a container parameter: ``f(v, v.data() + k, n)``.
The parallel and vector rewrites must pair them like two pointers (``code/storage_type.py``):
behind a run-time test that the container's ``[data(), data() + size())`` and the pointer's
accessed range do not meet, or not at all where no test can tell. Unit tests of the element
types and pairings; rules that must gate or leave such loops; rewrites that need no test
(``restrict``, other element types); and a g++ differential over generated variants called with
overlapping and disjoint arguments at two threads, bit for bit."""

from __future__ import annotations

import os
import random
import re
import subprocess
from pathlib import Path

import pytest

from differential_support import HAVE_GXX, Variant, rewrite_all
from perfpilot.code.declarations import VarType
from perfpilot.code.locate import function_by_name
from perfpilot.code.storage_type import (
    UNKNOWN_ELEMENT,
    StorageType,
    element_type,
    overlap,
    storage_type,
)
from perfpilot.optimizing.builtin import rewrite
from perfpilot.planning.builtin import analyze_site
from test_variants import SIMD, family, labels

OPENMP = frozenset({"openmp-for", "openmp-reduction"})
HEADERS = "#include <array>\n#include <deque>\n#include <span>\n#include <string>\n" \
          "#include <valarray>\n#include <vector>\n#include <cstddef>\n"


def _st(base: str, pointer: int = 0, array: bool = False, reference: str = "") -> StorageType:
    return storage_type(VarType(base, pointer, array, reference), parameter=True)


# -- the element type a storage holds ---------------------------------------------------------

@pytest.mark.parametrize(("vt", "element"), [
    (VarType("double", 1), "double"),
    (VarType("const double", 1), "double"),
    (VarType("double", 0, True), "double"),
    (VarType("std::vector<double>", reference="&"), "double"),
    (VarType("const std::vector<double>", reference="&"), "double"),
    (VarType("std::array<float, 8>", reference="&"), "float"),
    (VarType("std::span<const double>"), "double"),
    (VarType("std::valarray<long>", reference="&"), "long"),
    (VarType("std::string", reference="&"), "char"),
    (VarType("std::basic_string<char16_t>", reference="&"), "char16_t"),
    (VarType("std::string_view"), "char"),
    (VarType("std::byte", 1), "char"),
    (VarType("unsigned char", 1), "char"),
    (VarType("std::uint8_t", 1), "char"),
    (VarType("unsigned", 1), "int"),
    (VarType("std::int32_t", 1), "int"),
    (VarType("unsigned long long", 1), "long"),
    (VarType("std::size_t", 1), "long"),
    (VarType("std::vector<std::vector<double>>", reference="&"), "double"),
    (VarType("T", 1), UNKNOWN_ELEMENT),
    (VarType("std::vector<Point>", reference="&"), UNKNOWN_ELEMENT),
    (VarType("Grid", reference="&"), UNKNOWN_ELEMENT),
    (None, UNKNOWN_ELEMENT),
])
def test_element_type_of_each_storage(vt: VarType | None, element: str) -> None:
    assert element_type(vt, parameter=True) == element


@pytest.mark.parametrize(("a", "b", "kind"), [
    # a pointer may point into a container or view of its element type
    (_st("std::vector<double>", reference="&"), _st("double", 1), "range"),
    (_st("std::array<double, 4>", reference="&"), _st("double", 0, True), "range"),
    (_st("std::span<double>"), _st("const double", 1), "range"),
    (_st("std::valarray<double>", reference="&"), _st("double", 1), "range"),
    (_st("std::string", reference="&"), _st("char", 1), "range"),
    # a character pointer may view any object; an unknown element may be anything
    (_st("std::vector<double>", reference="&"), _st("unsigned char", 1), "range"),
    (_st("std::vector<double>", reference="&"), _st("std::byte", 1), "range"),
    (_st("std::vector<double>", reference="&"), _st("T", 1), "range"),
    (_st("std::vector<Point>", reference="&"), _st("double", 1), "range"),
    (_st("int", 1), _st("unsigned", 1), "range"),
    # other element types: strict aliasing keeps them apart
    (_st("std::vector<double>", reference="&"), _st("int", 1), "none"),
    (_st("std::span<float>"), _st("double", 1), "none"),
    # two containers by reference: one object at most
    (_st("std::vector<double>", reference="&"),
     _st("const std::vector<double>", reference="&"), "same"),
    (_st("std::vector<double>", reference="&"), _st("std::array<double, 4>", reference="&"),
     "none"),
    # a reference may be a row of a vector of vectors
    (_st("std::vector<std::vector<double>>", reference="&"),
     _st("std::vector<double>", reference="&"), "element"),
    # no test can bound nested, non-contiguous or unknown storage
    (_st("std::vector<std::vector<double>>", reference="&"), _st("double", 1), "untestable"),
    (_st("std::deque<double>", reference="&"), _st("double", 1), "untestable"),
    (_st("std::vector<bool>", reference="&"), _st("bool", 1), "untestable"),
    (_st("double", 2), _st("double", 1), "untestable"),
    (_st("Grid", reference="&"), _st("double", 1), "untestable"),
    (_st("Grid", reference="&"), _st("std::vector<double>", reference="&"), "untestable"),
    (_st("Grid", reference="&"), _st("Grid", reference="&"), "same"),
])
def test_which_pairs_may_overlap(a: StorageType, b: StorageType, kind: str) -> None:
    assert overlap(a, b) == kind
    assert overlap(b, a) == kind


# -- rules that must gate or leave such loops ---------------------------------------------------

def _rewrite(code: str, name: str = "f") -> tuple[str, tuple[str, ...]]:
    res = rewrite(function_by_name(HEADERS + code, "cpp", name), OPENMP)
    return res.code, res.notes


@pytest.mark.parametrize("params", [
    "std::vector<double>& out, const double* in",
    "std::array<double, 64>& out, const double* in",
    "std::valarray<double>& out, const double* in",
    "std::vector<double>& out, std::span<const double> in",
    "std::vector<double>& out, const double in[]",
    "std::vector<double>& out, const unsigned char* in",
    "std::vector<double>& out, const std::byte* in",
    "std::string& out, const char* in",
])
def test_a_container_and_a_pointer_into_it_run_behind_a_range_test(params: str) -> None:
    body = "out[i] = out[i] + in[i + 1];" if "byte" not in params else \
        "out[i] = out[i] + (double)in[i + 1];"
    code = f"void f({params}, int n) {{\n    for (int i = 0; i < n; ++i) {body}\n}}\n"
    text, notes = _rewrite(code)
    assert "#pragma omp parallel for if(apart)" in text, (text, notes)
    # the container spans its whole extent, the pointer what the loop reaches
    assert "out.data()" in text or "&out[0]" in text, text
    assert "sizeof *in" in text or "in.data()" in text, text


def test_the_pointer_written_and_the_container_read_are_tested_too() -> None:
    code = ("void f(double* out, const std::vector<double>& in, int n) {\n"
            "    for (int i = 0; i < n; ++i) out[i] = 2 * in[i + 1];\n}\n")
    text, _ = _rewrite(code)
    assert "#pragma omp parallel for if(apart)" in text and "in.data()" in text, text


def test_two_writes_that_may_overlap_are_tested() -> None:
    # no read at all: two iterations may still store to one element in another order
    for params in ("double* a, double* b", "std::vector<double>& a, double* b"):
        code = (f"void f({params}, int n) {{\n"
                "    for (int i = 0; i < n; ++i) { a[i] = 1; b[i + 1] = 2; }\n}\n")
        text, _ = _rewrite(code)
        assert "if(apart)" in text, text
    code = ("void f(std::vector<double>& a, std::vector<double>& b, int n) {\n"
            "    for (int i = 0; i < n; ++i) { a[i] = 1; b[i + 1] = 2; }\n}\n")
    assert "if(&a != &b)" in _rewrite(code)[0]


@pytest.mark.parametrize("code", [
    # nested storage: the pointer may point into any row
    "void f(std::vector<std::vector<double>>& m, const double* in, int n) {\n"
    "    for (int i = 0; i < n; ++i) m[i][0] = in[i + 1];\n}\n",
    # a deque's elements are not one block
    "void f(std::deque<double>& d, const double* in, int n) {\n"
    "    for (int i = 0; i < n; ++i) d[i] = in[i + 1];\n}\n",
    # a class the analysis cannot see into may hold the pointer's array
    "struct Grid { double operator[](int) const; };\n"
    "void f(const Grid& g, double* out, int n) {\n"
    "    for (int i = 0; i < n; ++i) out[i] = g[i + 1];\n}\n",
    # a member of a parameter
    "struct S { std::vector<double> v; };\n"
    "void f(const S& s, double* out, int n) {\n"
    "    for (int i = 0; i < n; ++i) out[i] = s.v[i + 1];\n}\n",
    # a subscript the test cannot bound
    "void f(std::vector<double>& out, const double* in, int n) {\n"
    "    for (int i = 0; i < n; ++i) out[i] = in[2 * i];\n}\n",
])
def test_overlaps_no_test_can_bound_stay_serial(code: str) -> None:
    text, notes = _rewrite(code)
    assert "#pragma omp" not in text, text
    assert any("overlapping" in n for n in notes), notes


def test_a_global_container_and_a_pointer_parameter_are_tested() -> None:
    code = ("std::vector<double> g(100);\n"
            "void f(const double* in, int n) {\n"
            "    for (int i = 0; i < n; ++i) g[i] = in[i + 1];\n}\n")
    text, _ = _rewrite(code)
    assert "if(apart)" in text and "g.data()" in text, text


def test_a_global_c_array_and_a_pointer_parameter_are_tested() -> None:
    code = ("double g[1000];\n"
            "void f(const double *in, int n) {\n"
            "    for (int i = 0; i < n; ++i) g[i] = in[i + 1];\n}\n")
    res = rewrite(function_by_name(code, "c", "f"), OPENMP)
    assert "if(apart)" in res.code and "sizeof g / sizeof *g" in res.code, res.code


def test_the_plan_says_a_run_time_test_decides() -> None:
    code = ("void f(std::vector<double>& out, const double* in, int n) {\n"
            "    for (int i = 0; i < n; ++i) out[i] = out[i] + in[i + 1];\n}\n")
    site = function_by_name(HEADERS + code, "cpp", "f")
    (found,) = [f for f in analyze_site(site).findings if f.rule == "openmp-for"]
    assert "run-time test" in found.explanation and "`in`, `out`" in found.explanation


def test_serial_simd_leaves_a_container_and_a_pointer_alone() -> None:
    code = ("void sh(std::vector<int>& a, const int* b, int n) {\n"
            "    for (int i = 0; i < n; ++i) a[i] = b[i] * 2;\n}\n")
    assert "simd" not in labels(family(code, "sh", parallel=False, build=SIMD))
    # with restrict on the pointer it may vectorize
    ok = code.replace("const int* b", "const int* __restrict__ b")
    assert "simd" in labels(family(ok, "sh", parallel=False, build=SIMD))


MM = """
void mm(std::vector<double>& c, const double* a, const double* b, int n) {
    for (int i = 0; i < n; ++i)
        for (int j = 0; j < n; ++j)
            for (int k = 0; k < n; ++k)
                c[i * n + j] += a[i * n + k] * b[k * n + j];
}
"""


def test_loop_orders_over_a_container_and_pointers_into_it_run_behind_a_range_test() -> None:
    f = family(MM, "mm", parallel=False)
    order = next(v.code for v in f.variants if v.label.startswith("order"))
    # the container spans its whole extent, each pointer what the nest reaches through it
    assert "if (" in order and "c.data()" in order and "sizeof *a" in order, order
    assert "} else {" in order
    ok = MM.replace("const double* a", "const double* __restrict__ a") \
        .replace("const double* b", "const double* __restrict__ b")
    plain = next(v.code for v in family(ok, "mm", parallel=False).variants
                 if v.label.startswith("order"))
    assert "if (" not in plain, plain


# -- rewrites that need no test -------------------------------------------------------------------

@pytest.mark.parametrize("params", [
    "std::vector<double>& out, const double* __restrict__ in",   # restrict on the pointer
    "std::vector<double>& out, const int* in",                   # other element types
    "std::vector<double>& out, std::span<const float> in",
    "std::vector<double> out, const double* in",                 # the function's own copy
])
def test_rewrites_without_a_test(params: str) -> None:
    code = f"void f({params}, int n) {{\n    for (int i = 0; i < n; ++i) " \
           "out[i] = out[i] + in[i + 1];\n}\n"
    text, notes = _rewrite(code)
    assert "#pragma omp parallel for\n" in text, (text, notes)
    assert "apart" not in text


# -- differential: overlapping and disjoint arguments, two threads, bit for bit -------------------

N = 200_000


def _hash(name: str) -> str:
    return (f"{{ unsigned long long h = 1469598103934665603ULL; "
            f"const unsigned char* p = (const unsigned char*)&{name}[0]; "
            f"for (std::size_t q = 0; q < {name}.size() * sizeof {name}[0]; ++q) "
            f"{{ h ^= p[q]; h *= 1099511628211ULL; }} std::printf(\"%llu\\n\", h); }}")


def _fill(name: str, t: str) -> str:
    return (f"for (std::size_t q = 0; q < {name}.size(); ++q) "
            f"{name}[q] = ({t})((int)(q * 37 % 101) - 50) / ({t})3;")


def _variants(count: int, seed: int) -> list[Variant]:
    rnd = random.Random(seed)
    out: list[Variant] = []
    shapes = ("vec-ptr", "ptr-vec", "span", "array", "valarray", "bytes", "two-writes")
    for k in range(count):
        name = f"cp{k}"
        shape = shapes[k % len(shapes)]
        t = rnd.choice(("double", "float", "long", "int"))
        c = rnd.choice((1, 2, -1, 0))
        lo = "1" if c < 0 else "0"
        ix = f"i + {c}" if c > 0 else f"i - {-c}" if c < 0 else "i"
        op = rnd.choice(("{o}[i] = {o}[i] + {r} * 3 / 2;", "{o}[i] = {r} - {o}[i];",
                         "{o}[i] += {r} * {r};"))
        size = N + 16
        store = f"std::vector<{t}>"
        if shape == "vec-ptr":
            params, ptr = f"std::vector<{t}>& out, const {t}* in", "in"
        elif shape == "ptr-vec":
            params, ptr = f"{t}* out, const std::vector<{t}>& in", "out"
        elif shape == "span":
            params, ptr = f"std::vector<{t}>& out, std::span<const {t}> in", "in"
        elif shape == "array":
            params, ptr = f"std::array<{t}, {size}>& out, const {t}* in", "in"
            store = f"std::array<{t}, {size}>"
        elif shape == "valarray":
            params, ptr = f"std::valarray<{t}>& out, const {t}* in", "in"
            store = f"std::valarray<{t}>"
        elif shape == "bytes":
            params, ptr = f"std::vector<{t}>& out, const unsigned char* in", "in"
        else:
            params, ptr = f"std::vector<{t}>& out, {t}* in", "in"
        read = f"in[{ix}]" if shape != "bytes" else f"({t})in[{ix}]"
        body = op.format(o="out", r=read) if shape != "two-writes" else \
            f"{{ out[i] = out[i] * 2 + 1; in[{ix}] = ({t})(i % 13); }}"
        code = (f"void {name}({params}, int n) {{\n"
                f"    for (int i = {lo}; i < n; ++i) {body}\n}}\n")
        if shape == "array":
            decl = f"static {store} v; static {store} w;"
        else:
            decl = f"static {store} v({size}); static {store} w({size});"
        calls = []
        for off in (0, 1, 2, 5, 9, -1):
            if shape == "bytes":
                arg = f"(const unsigned char*)&v[0] + {max(off, 0)}" if off >= 0 else \
                    "(const unsigned char*)&w[0]"
            else:
                arg = f"&v[0] + {off}" if off >= 0 else "&w[0]"
                if shape == "span":
                    arg = f"std::span<const {t}>({arg}, {N} + 8)"
            args = f"{arg}, v" if ptr == "out" else f"v, {arg}"
            calls.append(f"{_fill('v', t)} {_fill('w', t)} {name}({args}, {N}); "
                         f"{_hash('v')} {_hash('w')}")
        out.append(Variant(name, code, decl + " " + " ".join(calls)))
    return out


def _build_and_run(unit: str, drivers: str, folder: Path, tag: str, threads: int = 2) -> str:
    src = folder / f"{tag}.cpp"
    src.write_text(unit + "\nint main() {\n" + drivers + "\n    return 0;\n}\n")
    exe = folder / tag
    comp = subprocess.run(["g++", "-std=c++20", "-O1", "-fopenmp", "-o", str(exe), str(src)],
                          capture_output=True, text=True, timeout=300)
    assert comp.returncode == 0, comp.stderr[:4000] + "\n" + src.read_text()[:8000]
    run = subprocess.run([str(exe)], capture_output=True, text=True, timeout=300,
                         env={**os.environ, "OMP_NUM_THREADS": str(threads)})
    assert run.returncode == 0, run.stderr
    return run.stdout


def _program(variants: list[Variant]) -> tuple[str, str, dict[str, str], str]:
    head = Variant("cp_headers", HEADERS + "#include <cstdio>\nvoid cp_headers() {}\n", "")
    unit, new_unit, results = rewrite_all([head, *variants], OPENMP)
    drivers = "\n".join(f"    {{ std::printf(\"== {v.name}\\n\"); {v.driver} }}"
                        for v in variants)
    return unit, new_unit, {k: r.code for k, r in results.items()}, drivers


@pytest.mark.skipif(not HAVE_GXX, reason="needs g++")
def test_overlapping_containers_and_pointers_keep_serial_results_at_two_threads(
        tmp_path: Path) -> None:
    variants = _variants(14, seed=3)
    unit, new_unit, codes, drivers = _program(variants)
    before = _build_and_run(unit, drivers, tmp_path, "orig")
    after = _build_and_run(new_unit, drivers, tmp_path, "opt")
    bad = [(x, y) for x, y in zip(before.splitlines(), after.splitlines(), strict=True)
           if x != y]
    assert not bad, bad[:5]
    # every variant was parallelized, behind the test
    for v in variants:
        assert "#pragma omp parallel for if(apart)" in codes[v.name], codes[v.name]


@pytest.mark.skipif(not HAVE_GXX, reason="needs g++")
def test_without_the_test_the_overlap_changes_results(tmp_path: Path) -> None:
    # The test is needed: the same loops with their iterations in another order (reversed,
    # which independent iterations allow and which no thread timing decides) compute something
    # else on overlapping arguments, so the differential test above can fail.
    variants = _variants(14, seed=3)
    unit, new_unit, _codes, drivers = _program(variants)
    reordered = re.sub(r"#pragma omp parallel for if\(apart\)\n(\s*)for \(int i = (\w+); "
                       r"i < n; \+\+i\)", r"for (int i = n - 1; i >= \2; --i)", new_unit)
    assert reordered.count("--i)") == len(variants)
    before = _build_and_run(unit, drivers, tmp_path, "orig").split("== ")
    after = _build_and_run(reordered, drivers, tmp_path, "reordered").split("== ")
    changed = [x.split()[0] for x, y in zip(before, after, strict=True) if x != y]
    assert changed == [v.name for v in variants], changed
