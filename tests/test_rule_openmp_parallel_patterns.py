"""Parallel patterns the OpenMP rule rewrites beyond independent loops: histograms and
first-match searches. Negative cases must stay serial; generated variants (types, names, sizes
0 and 1, negative numbers, ties) are built with g++ -fopenmp beside the originals and run at
four threads, and their output must agree exactly."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from differential_support import Variant, rewrite_all
from perfpilot.code.locate import function_by_name
from perfpilot.optimizing.builtin import rewrite

HEADERS = ("#include <algorithm>\n#include <cstddef>\n#include <cstdio>\n#include <list>\n"
           "#include <numeric>\n#include <vector>\n")


def _rewrite(name: str, code: str):  # type: ignore[no-untyped-def]
    return rewrite(function_by_name(HEADERS + code, "cpp", name))


NEGATIVE: dict[str, str] = {
    # Floating counts: the order of the additions changes the sums.
    "float_hist": """
void float_hist(const int* a, const double* w, double* out, int n) {
    double h[8] = {0};
    for (int i = 0; i < n; ++i) {
        h[a[i] & 7] += w[i];
    }
    for (int k = 0; k < 8; ++k) out[k] = h[k];
}""",
    # The histogram is read in the loop: iterations see each other's counts.
    "read_back": """
void read_back(const int* a, int* out, int n) {
    int h[8] = {0};
    for (int i = 0; i < n; ++i) {
        ++h[a[i] & 7];
        out[i] = h[a[i] & 7];
    }
}""",
    # Counting into a caller's array: it may alias what the loop reads.
    "param_hist": """
void param_hist(const int* a, int* h, int n) {
    for (int i = 0; i < n; ++i) {
        ++h[a[i] & 7];
    }
}""",
    # The value added is the old count of another bin.
    "chained": """
void chained(const int* a, int* out, int n) {
    int h[8] = {0};
    for (int i = 0; i < n; ++i) {
        h[a[i] & 7] += h[(a[i] + 1) & 7];
    }
    for (int k = 0; k < 8; ++k) out[k] = h[k];
}""",
    # Assigned, not added.
    "assigned": """
void assigned(const int* a, int* out, int n) {
    int h[8] = {0};
    for (int i = 0; i < n; ++i) {
        h[a[i] & 7] = i;
    }
    for (int k = 0; k < 8; ++k) out[k] = h[k];
}""",
    # Something else in the body depends on earlier iterations.
    "carried": """
void carried(const int* a, int* out, int n) {
    int h[8] = {0};
    int last = 0;
    for (int i = 0; i < n; ++i) {
        ++h[(a[i] + last) & 7];
        last = a[i];
    }
    for (int k = 0; k < 8; ++k) out[k] = h[k];
}""",
    # The count's value is used.
    "value_used": """
void value_used(const int* a, int* out, int n) {
    int h[8] = {0};
    for (int i = 0; i < n; ++i) {
        out[i] = ++h[a[i] & 7];
    }
}""",
    # A two-dimensional table.
    "two_dim": """
void two_dim(const int* a, int* out, int n) {
    int h[4][4] = {};
    for (int i = 0; i < n; ++i) {
        ++h[a[i] & 3][(a[i] >> 2) & 3];
    }
    for (int k = 0; k < 16; ++k) out[k] = h[k / 4][k % 4];
}""",
    # The table grows in the loop.
    "grows": """
void grows(const int* a, std::vector<int>& out, int n) {
    std::vector<int> h(8);
    for (int i = 0; i < n; ++i) {
        ++h[a[i] & 7];
        h.push_back(0);
    }
    out = h;
}""",
    # Standard algorithms: floating sums, impure or printing functions, custom operations,
    # mismatched ranges, lists, calls inside loops or inside larger expressions.
    "float_sum": """
double float_sum(const std::vector<double>& v) {
    double s = std::accumulate(v.begin(), v.end(), 0.0);
    return s;
}""",
    "int_init_float_elems": """
long int_init_float_elems(const std::vector<double>& v) {
    long s = std::accumulate(v.begin(), v.end(), 0L);
    return s;
}""",
    "float_init": """
double float_init(const std::vector<int>& v) {
    return std::accumulate(v.begin(), v.end(), 0.5);
}""",
    "custom_op": """
long custom_op(const std::vector<int>& v) {
    long s = std::accumulate(v.begin(), v.end(), 0L, [](long a, int b) { return a ^ b; });
    return s;
}""",
    "impure_transform": """
void impure_transform(const std::vector<int>& v, std::vector<int>& out) {
    int calls = 0;
    std::transform(v.begin(), v.end(), out.begin(), [&calls](int x) { ++calls; return x + calls; });
}""",
    "printing_pred": """
long printing_pred(const std::vector<int>& v) {
    auto c = std::count_if(v.begin(), v.end(), [](int x) { std::printf("%d", x); return x > 0; });
    return c;
}""",
    "mixed_range": """
long mixed_range(const std::vector<int>& v, const std::vector<int>& w) {
    long s = std::accumulate(v.begin(), w.end(), 0L);
    return s;
}""",
    "list_sum": """
long list_sum(const std::list<int>& v) {
    long s = std::accumulate(v.begin(), v.end(), 0L);
    return s;
}""",
    "in_loop": """
long in_loop(const std::vector<int>& v, int reps) {
    long s = 0;
    for (int r = 0; r < reps; ++r) {
        s = std::accumulate(v.begin(), v.end(), s);
    }
    return s;
}""",
    "in_expression": """
long in_expression(std::vector<int>& v, int (*bump)(std::vector<int>&)) {
    long s = bump(v) + std::accumulate(v.begin(), v.end(), 0L);
    return s;
}""",
    "find_impure": """
long find_impure(const std::vector<int>& v) {
    int probes = 0;
    auto it = std::find_if(v.begin(), v.end(), [&probes](int x) { ++probes; return x > 0; });
    return (it - v.begin()) + probes;
}""",
    "find_in_loop": """
long find_in_loop(const std::vector<int>& v, int reps) {
    long s = 0;
    for (int r = 0; r < reps; ++r) {
        auto it = std::find(v.begin(), v.end(), r);
        s += it - v.begin();
    }
    return s;
}""",
    "helper_writes_global": """
int seen = 0;
static int note(int x) { seen = x; return x; }
void helper_writes_global(const std::vector<int>& v, std::vector<int>& out) {
    std::transform(v.begin(), v.end(), out.begin(), note);
}""",
    # Searches: a predicate with effects, more than the test in the body, an else branch, a
    # branch that does not leave, an index read after the loop, a step of two, '.at()'.
    "counting_search": """
int counting_search(const int* a, int n, int* tests) {
    for (int i = 0; i < n; ++i) {
        if (++*tests > 0 && a[i] == 7) return i;
    }
    return -1;
}""",
    "impure_pred": """
int probes = 0;
static bool probe(int v) { ++probes; return v == 7; }
int impure_pred(const int* a, int n) {
    for (int i = 0; i < n; ++i) {
        if (probe(a[i])) return i;
    }
    return -1;
}""",
    "work_before": """
int work_before(const int* a, int* out, int n) {
    for (int i = 0; i < n; ++i) {
        out[i] = a[i] * 2;
        if (a[i] == 7) return i;
    }
    return -1;
}""",
    "else_branch": """
int else_branch(const int* a, int n) {
    int s = 0;
    for (int i = 0; i < n; ++i) {
        if (a[i] == 7) { break; } else { s += a[i]; }
    }
    return s;
}""",
    "no_exit": """
int no_exit(const int* a, int n) {
    int last = -1;
    for (int i = 0; i < n; ++i) {
        if (a[i] == 7) { last = i; }
    }
    return last;
}""",
    "index_after": """
int index_after(const int* a, int n) {
    int i;
    for (i = 0; i < n; ++i) {
        if (a[i] == 7) break;
    }
    return i;
}""",
    "step_two": """
int step_two(const int* a, int n) {
    for (int i = 0; i < n; i += 2) {
        if (a[i] == 7) return i;
    }
    return -1;
}""",
    "at_call": """
int at_call(const std::vector<int>& a, int n) {
    for (int i = 0; i < n; ++i) {
        if (a.at(i) == 7) return i;
    }
    return -1;
}""",
    "continue_in_branch": """
int continue_in_branch(const int* a, int n) {
    int r = -1;
    for (int i = 0; i < n; ++i) {
        if (a[i] == 7) { if (i == 3) continue; r = i; break; }
    }
    return r;
}""",
    # Scans: floating sums, another index of the output read, an exclusive in-place scan,
    # the sum used otherwise, a step of two, a call in the added value, a bound on the sum.
    "float_scan": """
void float_scan(const double* __restrict a, double* __restrict out, int n) {
    double s = 0;
    for (int i = 0; i < n; ++i) {
        s += a[i];
        out[i] = s;
    }
}""",
    "reads_previous": """
void reads_previous(long* __restrict out, const long* __restrict a, int n) {
    long s = 0;
    for (int i = 1; i < n; ++i) {
        s += a[i] + out[i - 1];
        out[i] = s;
    }
}""",
    "exclusive_in_place": """
void exclusive_in_place(std::vector<long>& v) {
    long s = 0;
    for (std::size_t i = 0; i < v.size(); ++i) {
        v[i] = s;
        s += v[i];
    }
}""",
    "scan_step_two": """
void scan_step_two(const int* __restrict a, long* __restrict out, int n) {
    long s = 0;
    for (int i = 0; i < n; i += 2) {
        s += a[i];
        out[i] = s;
    }
}""",
    "scan_call": """
static int noisy(int v) { std::printf("%d", v); return v; }
void scan_call(const int* __restrict a, long* __restrict out, int n) {
    long s = 0;
    for (int i = 0; i < n; ++i) {
        s += noisy(a[i]);
        out[i] = s;
    }
}""",
    "scan_bound": """
void scan_bound(const int* __restrict a, long* __restrict out, long n) {
    long s = 0;
    for (long i = 0; i < n - s; ++i) {
        s += a[i];
        out[i] = s;
    }
}""",
    "scan_alias": """
void scan_alias(const long* a, long* out, int n) {
    long s = 0;
    for (int i = 0; i < n; ++i) {
        s += a[i];
        out[i] = s;
    }
}""",
    # Inner loops under a carried loop: a bound that calls a function (the cost model cannot
    # write the trip count), a step of two.
    "inner_call_bound": """
static int limit(int n) { return n - 1; }
void inner_call_bound(double* __restrict u, double* __restrict t, int n, int steps) {
    for (int s = 0; s < steps; ++s) {
        for (int i = 1; i < limit(n); ++i) t[i] = 0.5 * (u[i - 1] + u[i + 1]);
        for (int i = 1; i < limit(n); ++i) u[i] = t[i];
    }
}""",
    "inner_step_two": """
void inner_step_two(double* __restrict u, double* __restrict t, int n, int steps) {
    for (int s = 0; s < steps; ++s) {
        for (int i = 1; i < n - 1; i += 2) t[i] = 0.5 * (u[i - 1] + u[i + 1]);
        for (int i = 1; i < n - 1; i += 2) u[i] = t[i];
    }
}""",
}


@pytest.mark.parametrize("name", sorted(NEGATIVE))
def test_left_serial(name: str) -> None:
    res = _rewrite(name, NEGATIVE[name])
    assert "#pragma omp" not in res.code, res.code


def test_histogram_shape() -> None:
    code = """
void shape(const int* a, long* out, int n, int k) {
    std::vector<long> h(k);
    for (int i = 0; i < n; ++i) {
        ++h[a[i] & 15];
    }
    for (int q = 0; q < k; ++q) out[q] = h[q];
}"""
    res = _rewrite("shape", code)
    assert "openmp-reduction" in res.rules
    assert "#pragma omp for nowait" in res.code and "#pragma omp critical" in res.code
    assert "++h_local[a[i] & 15]" in res.code, res.code
    assert any("histogram" in a.explanation for a in res.applied)


def test_small_c_array_histogram_is_an_array_section() -> None:
    code = """
void section(const int* a, long* out, int n) {
    long h[16] = {0};
    for (int i = 0; i < n; ++i) {
        ++h[a[i] & 15];
    }
    for (int q = 0; q < 16; ++q) out[q] = h[q];
}"""
    res = _rewrite("section", code)
    assert "#pragma omp parallel for reduction(+:h[:16])" in res.code, res.code


C_HIST = """#include <stdio.h>
void chist(const int* a, int n, unsigned* out) {
    unsigned h[64] = {0};
    for (int i = 0; i < n; ++i) {
        h[(a[i] % 64 + 64) % 64] += 3;
    }
    for (int q = 0; q < 64; ++q) out[q] = h[q];
}
"""


@pytest.mark.skipif(shutil.which("gcc") is None, reason="needs gcc")
def test_c_histogram_agrees_at_four_threads(tmp_path: Path) -> None:
    res = rewrite(function_by_name(C_HIST, "c", "chist"))
    assert "reduction(+:h[:64])" in res.code, (res.code, res.notes)
    new = C_HIST.replace(C_HIST[C_HIST.index("void chist"):], res.code + "\n")
    main = ("int main(void) { static int a[5000]; unsigned o[64]; unsigned s = 7u;"
            " for (int n = 0; n <= 5000; n += 1249) { for (int i = 0; i < n; ++i) {"
            " s = s * 1103515245u + 12345u; a[i] = (int)((s >> 8) % 2001u) - 1000; }"
            " chist(a, n, o); for (int q = 0; q < 64; ++q) printf(\"%u \", o[q]);"
            " printf(\"\\n\"); } return 0; }\n")
    outs = []
    for tag, unit in (("orig", C_HIST), ("opt", new)):
        src = tmp_path / f"{tag}.c"
        src.write_text(unit + main)
        exe = tmp_path / tag
        comp = subprocess.run(["gcc", "-O1", "-fopenmp", "-o", str(exe), str(src)],
                              capture_output=True, text=True, timeout=120)
        assert comp.returncode == 0, comp.stderr + src.read_text()
        run = subprocess.run([str(exe)], capture_output=True, text=True, timeout=60,
                             env={**os.environ, "OMP_NUM_THREADS": "4"})
        assert run.returncode == 0, run.stderr
        outs.append(run.stdout)
    assert outs[0] == outs[1]


# ---------------------------------------------------------------------------------------------
# differential


SIZES = (0, 1, 2, 3, 7, 64, 1000, 4099)


def _inputs(tag: str) -> str:
    """Driver lines filling ``a_<tag>`` (ints with negatives, many ties or all equal)."""
    return (f"for (int n : {{{', '.join(map(str, SIZES))}}}) for (int v = 0; v < 3; ++v) {{ "
            f"std::vector<int> a_{tag}(n + 1); unsigned s = 977u * (unsigned)(n + 3 * v); "
            f"for (int i = 0; i <= n; ++i) {{ s = s * 1103515245u + 12345u; "
            f"int r = (int)((s >> 8) % 2001u) - 1000; if (v == 1) r %= 4; if (v == 2) r = 3; "
            f"a_{tag}[i] = r; }} std::printf(\"n=%d v=%d\\n\", n, v); ")


def _histogram_variants() -> list[Variant]:
    out = []
    elems = ("int", "long", "unsigned", "long long", "std::size_t", "short")
    updates = ("++{h}[{k}];", "{h}[{k}]++;", "{h}[{k}] += {a}[{i}];", "{h}[{k}] -= 3;",
               "{h}[{k}] += 2; --{h}[({k} + 1) % {K}];")
    for n, (elem, update) in enumerate((e, u) for e in elems for u in updates):
        K = (1, 2, 16, 1000)[n % 4]
        h, a, i = f"bins{n}", f"xs{n}", ("i", "j", "idx")[n % 3]
        key = f"(({a}[{i}] % {K}) + {K}) % {K}"
        body = update.format(h=h, k=key, a=a, i=i, K=K)
        vec = n % 2 == 1
        decl = (f"std::vector<{elem}> {h}({K});" if vec else f"{elem} {h}[{K}] = {{}};")
        extra = f"    long tot{n} = 0;\n" if n % 3 == 0 else ""
        extra_body = f"        tot{n} += {a}[{i}] * 2;\n" if n % 3 == 0 else ""
        ret_extra = f"    out[0] += (long long)tot{n};\n" if n % 3 == 0 else ""
        name = f"hist{n}"
        code = (f"void {name}(const int* {a}, int cnt, long long* out) {{\n    {decl}\n{extra}"
                f"    for (int {i} = 0; {i} < cnt; ++{i}) {{\n        {body}\n{extra_body}"
                f"    }}\n    for (int q = 0; q < {K}; ++q) out[q] = (long long){h}[q];\n"
                f"{ret_extra}}}\n")
        driver = (_inputs(name) + f"std::vector<long long> o({K} + 1); "
                  f"{name}(a_{name}.data(), n, o.data()); "
                  f"for (long long x : o) std::printf(\"%lld \", x); std::printf(\"\\n\"); }}")
        out.append(Variant(name, code, driver))
    return out


def _build_and_run(unit: str, drivers: str, folder: Path, tag: str,
                   openmp: bool = True, threads: int = 4) -> str:
    src = folder / f"{tag}.cpp"
    src.write_text(unit + "\nint main() {\n" + drivers + "\n    return 0;\n}\n")
    exe = folder / tag
    flags = ["-fopenmp"] if openmp else []
    comp = subprocess.run(["g++", "-std=c++17", "-O1", *flags, "-o", str(exe), str(src)],
                          capture_output=True, text=True, timeout=300)
    assert comp.returncode == 0, comp.stderr[:4000] + "\n" + src.read_text()[:8000]
    run = subprocess.run([str(exe)], capture_output=True, text=True, timeout=120,
                         env={**os.environ, "OMP_NUM_THREADS": str(threads)})
    assert run.returncode == 0, run.stderr
    return run.stdout


def _differential(variants: list[Variant], tmp_path: Path) -> None:
    unit, new_unit, results = rewrite_all(variants, frozenset({"openmp-for",
                                                               "openmp-reduction"}))
    missed = [k for k, r in results.items() if "openmp-reduction" not in r.rules]
    assert not missed, (missed, results[missed[0]].notes if missed else None)
    drivers = "\n".join(f"    {{ std::printf(\"== {v.name}\\n\"); {v.driver} }}"
                        for v in variants)
    before = _build_and_run(unit, drivers, tmp_path, "orig").splitlines()
    after = _build_and_run(new_unit, drivers, tmp_path, "opt").splitlines()
    assert len(before) == len(after)
    bad = [(x, y) for x, y in zip(before, after, strict=True) if x != y]
    assert not bad, bad[:5]
    # built without -fopenmp (the pragmas ignored) the rewrite computes the same, too
    serial = _build_and_run(new_unit, drivers, tmp_path, "serial", openmp=False).splitlines()
    assert serial == before


@pytest.mark.skipif(shutil.which("g++") is None, reason="needs g++")
def test_histograms_agree_at_four_threads(tmp_path: Path) -> None:
    _differential(_histogram_variants(), tmp_path)


def _algorithm_variants() -> list[Variant]:
    out = []
    elems = ("int", "long", "unsigned", "short", "long long")
    for n, elem in enumerate(elems * 2):
        name, xs, ys = f"alg{n}", f"vals{n}", f"res{n}"
        init = ("0", "0L", "-3", "7u", "base")[n % 5]
        lam = f"lam{n}"
        helper = f"static long long twice{n}(long long x) {{ return 2 * x - {n}; }}\n"
        fn = (f"[](long long x) {{ return x * x - {n}; }}", lam, f"twice{n}")[n % 3]
        pred = ("[lim](long long x) { return x > lim; }",
                "[](auto x) { return x % 3 == 0; }")[n % 2]
        code = (helper + f"long long {name}(std::vector<{elem}>& {xs}, long long* o, int lim) {{\n"
                f"    long base = lim;\n"
                f"    auto {lam} = [](long long x) {{ return x - 1; }};\n"
                f"    std::vector<long long> {ys}({xs}.size());\n"
                f"    std::transform({xs}.begin(), {xs}.end(), {ys}.begin(), {fn});\n"
                f"    auto s = std::accumulate({xs}.begin(), {xs}.end(), {init});\n"
                f"    long long r = std::reduce({ys}.begin(), {ys}.end());\n"
                f"    std::ptrdiff_t c;\n"
                f"    c = std::count_if({xs}.cbegin(), {xs}.cend(), {pred});\n"
                f"    o[0] = (long long)s; o[1] = r; o[2] = c;\n"
                f"    o[3] = std::count({xs}.begin(), {xs}.end(), lim);\n"
                f"    auto it = std::find({xs}.begin(), {xs}.end(), lim);\n"
                f"    o[4] = it - {xs}.begin();\n"
                f"    auto jt = std::find_if({xs}.cbegin(), {xs}.cend(), {pred});\n"
                f"    o[5] = jt == {xs}.cend() ? -1 : *jt;\n"
                f"    std::transform({xs}.begin(), {xs}.end(), {xs}.begin(), {lam});\n"
                f"    return std::accumulate({xs}.begin(), {xs}.end(), 0LL);\n}}\n")
        driver = (_inputs(name) + f"std::vector<{elem}> x(a_{name}.begin(), a_{name}.begin() + n); "
                  f"long long o[6]; long long z = {name}(x, o, {n % 3} - 1); "
                  f"std::printf(\"%lld %lld %lld %lld %lld %lld %lld\\n\", o[0], o[1], o[2], "
                  "o[3], o[4], o[5], z); }")
        out.append(Variant(name, code, driver))
    return out


@pytest.mark.skipif(shutil.which("g++") is None, reason="needs g++")
def test_algorithms_agree_at_four_threads(tmp_path: Path) -> None:
    variants = _algorithm_variants()
    _differential(variants, tmp_path)
    _unit, new_unit, _results = rewrite_all(variants, frozenset({"openmp-for",
                                                                "openmp-reduction"}))
    # every call became a loop
    assert "std::transform(" not in new_unit and "std::count_if(" not in new_unit
    assert "std::accumulate(" not in new_unit and "std::reduce(" not in new_unit
    assert "std::find(" not in new_unit and "std::find_if(" not in new_unit


def _search_variants() -> list[Variant]:
    out = []
    types = ("int", "long", "std::size_t", "unsigned", "long long", "short")
    for n, t in enumerate(types * 2):
        name, xs = f"search{n}", f"arr{n}"
        down = n % 3 == 2 and t not in ("std::size_t", "unsigned")
        i = ("i", "pos", "k")[n % 3]
        pred = (f"{xs}[{i}] == want", f"{xs}[{i}] < want && {xs}[{i}] % 2 == 0",
                f"{xs}[{i}] * {xs}[{i}] > want * 40")[n % 3]
        if down:
            header = f"for ({t} {i} = cnt - 1; {i} >= 0; --{i})"
        else:
            signed = t not in ("std::size_t", "unsigned")
            header = (f"for ({t} {i} = 1; {i} <= ({t})cnt - 1; {i}++)" if n % 2 and signed
                      else f"for ({t} {i} = 0; {i} < ({t})cnt; ++{i})")
        if n % 4 < 2:
            body = f"        if ({pred}) return (long long){i} * 3 - 1;\n"
            tail = "    return -7;\n"
            pre = ""
        else:
            pre = "    long long got = -5, val = 0;\n"
            body = (f"        if ({pred}) {{\n            got = (long long){i};\n"
                    f"            val = {xs}[{i}];\n            break;\n        }}\n")
            tail = "    return got * 100000 + val;\n"
        code = (f"long long {name}(const std::vector<int>& {xs}, int cnt, int want) {{\n{pre}"
                f"    {header} {{\n{body}    }}\n{tail}}}\n")
        driver = (_inputs(name) + "for (int w : {-1000, -3, 0, 1, 3, 999, 5000}) "
                  f"std::printf(\"%lld \", {name}(a_{name}, n, w)); std::printf(\"\\n\"); }}")
        out.append(Variant(name, code, driver))
    return out


@pytest.mark.skipif(shutil.which("g++") is None, reason="needs g++")
def test_searches_agree_at_four_threads(tmp_path: Path) -> None:
    _differential(_search_variants(), tmp_path)


def _scan_variants() -> list[Variant]:
    out = []
    accs = ("long", "int", "unsigned", "long long", "short", "std::size_t")
    for n, acc in enumerate(accs * 2):
        name, xs, ys = f"scan{n}", f"src{n}", f"dst{n}"
        i = ("i", "j", "p")[n % 3]
        t = ("int", "long", "std::size_t")[n % 3]
        term = (f"{xs}[{i}]", f"{xs}[{i}] * 3 - 1", f"({xs}[{i}] & 255) + (long){i}")[n % 3]
        start = ("0", "-17", "cnt")[n % 3]
        in_place = n % 4 == 3
        exclusive = n % 4 == 1
        target = xs if in_place else ys
        store, add = f"{target}[{i}] = run{n};", f"run{n} += {term};"
        body = f"        {store}\n        {add}\n" if exclusive else \
            f"        {add}\n        {store}\n"
        header = (f"for ({t} {i} = 0; {i} < ({t})cnt; ++{i})" if n % 2 == 0 else
                  f"for ({t} {i} = 1; {i} <= ({t})cnt - 1; {i}++)") if t != "std::size_t" else \
            f"for ({t} {i} = 0; {i} < {xs}.size(); ++{i})"
        code = (f"long long {name}(std::vector<long>& {xs}, std::vector<long long>& {ys}, "
                f"long cnt) {{\n    {acc} run{n} = {start};\n    {header} {{\n{body}    }}\n"
                f"    return (long long)run{n};\n}}\n")
        driver = (_inputs(name) + f"std::vector<long> x(a_{name}.begin(), a_{name}.begin() + n); "
                  f"std::vector<long long> y(n + 1, -9); long long r = {name}(x, y, n); "
                  "std::printf(\"%lld |\", r); for (long v : x) std::printf(\" %ld\", v); "
                  "for (long long v : y) std::printf(\" %lld\", v); std::printf(\"\\n\"); }")
        out.append(Variant(name, code, driver))
    return out


@pytest.mark.skipif(shutil.which("g++") is None, reason="needs g++")
def test_scans_agree_at_four_threads(tmp_path: Path) -> None:
    _differential(_scan_variants(), tmp_path)


def test_inner_loop_gets_a_cost_gate() -> None:
    code = """
void gate(long* __restrict u, long* __restrict t, int n, int steps) {
    for (int s = 0; s < steps; ++s) {
        for (int i = 1; i < n - 1; ++i) t[i] = u[i - 1] + u[i + 1];
        for (int i = 1; i < n - 1; ++i) u[i] = t[i];
    }
}"""
    res = _rewrite("gate", code)
    # A branch, not an if clause: a false if clause still enters the OpenMP runtime on every
    # outer iteration, which costs more than a short inner loop.
    assert res.code.count("if ((long long)(n - 1) - 1 > ") == 2, res.code
    assert res.code.count("#pragma omp parallel for\n") == 2, res.code
    assert res.code.count("} else {") == 2 and " if(" not in res.code, res.code
    assert res.code.count("t[i] = u[i - 1] + u[i + 1];") == 2, res.code
    assert any("pays for a parallel region" in a.explanation for a in res.applied)


def _inner_variants() -> list[Variant]:
    out = []
    for n, t in enumerate(("long", "int", "long long", "unsigned") * 2):
        name, u, w = f"inner{n}", f"cur{n}", f"nxt{n}"
        lo = ("1", "0", "2")[n % 3]
        hi = ("cnt - 1", "cnt", "cnt - 2")[n % 3]
        op = ("+", "^", "-")[n % 3]
        code = (f"long long {name}(std::vector<{t}>& {u}, int cnt, int steps) {{\n"
                f"    std::vector<{t}> {w}({u}.size());\n    long long chk = 0;\n"
                f"    for (int s = 0; s < steps; ++s) {{\n"
                f"        for (int i = {lo}; i < {hi}; ++i) {{\n"
                f"            {w}[i] = ({u}[i > 0 ? i - 1 : i] {op} {u}[i + 1]) / 2 + s;\n"
                f"        }}\n"
                f"        for (int i = {lo}; i < {hi}; ++i) {u}[i] = {w}[i];\n"
                f"        chk = chk * 31 + (long long){u}[cnt / 2];\n"
                f"    }}\n    return chk;\n}}\n")
        driver = (_inputs(name) + f"std::vector<{t}> x(a_{name}.begin(), a_{name}.end()); "
                  f"long long c = {name}(x, n, 3); std::printf(\"%lld |\", c); "
                  "for (auto v : x) std::printf(\" %lld\", (long long)v); "
                  "std::printf(\"\\n\"); }")
        out.append(Variant(name, code, driver))
    return out


@pytest.mark.skipif(shutil.which("g++") is None, reason="needs g++")
def test_inner_loops_agree_at_four_threads(tmp_path: Path) -> None:
    variants = _inner_variants()
    unit, new_unit, results = rewrite_all(variants, frozenset({"openmp-for",
                                                               "openmp-reduction"}))
    assert all("openmp-for" in r.rules for r in results.values()), \
        [r.notes for r in results.values()]
    drivers = "\n".join(f"    {{ std::printf(\"== {v.name}\\n\"); {v.driver} }}"
                        for v in variants)
    before = _build_and_run(unit, drivers, tmp_path, "orig").splitlines()
    after = _build_and_run(new_unit, drivers, tmp_path, "opt").splitlines()
    assert before == after
