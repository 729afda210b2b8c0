"""OpenMP patterns: balanced schedules for uneven nests, min/max and arg-min/arg-max
reductions, and loops calling pure helpers. Each rewrite is built with g++ -fopenmp beside the
original and both run at 4 threads over generated inputs (negative numbers, many ties)."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from perfpilot.code.locate import function_by_name
from perfpilot.optimizing.builtin import rewrite

HEADERS = "#include <cmath>\n#include <complex>\n#include <cstdio>\n#include <vector>\n"

# name -> (code, the rule set expected, a substring the rewrite must hold, the call printing
# the result for the generated inputs a (int), d (double), n)
POSITIVE: dict[str, tuple[str, set[str], str, str]] = {
    "tri_grow": ("""
void tri_grow(const double* __restrict a, double* __restrict out, int n) {
    for (int i = 0; i < n; ++i) {
        double s = 0;
        for (int j = 0; j < i; ++j) {
            s += a[j] * a[i - j];
        }
        out[i] = s;
    }
}""", {"openmp-for"}, "schedule(guided)",
        "std::vector<double> o(n); NS::tri_grow(d.data(), o.data(), n); dump(o);"),
    "tri_shrink": ("""
void tri_shrink(const double* __restrict a, double* __restrict out, int n) {
    for (int i = 0; i < n; ++i) {
        double s = 0;
        for (int j = i; j < n; ++j) {
            s += a[j] * a[j - i];
        }
        out[i] = s;
    }
}""", {"openmp-for"}, "schedule(dynamic, 16)",
        "std::vector<double> o(n); NS::tri_shrink(d.data(), o.data(), n); dump(o);"),
    "csr": ("""
void csr(const int* __restrict rows, const double* __restrict v, double* __restrict y, int n) {
    for (int i = 0; i < n; ++i) {
        double s = 0;
        for (int k = rows[i]; k < rows[i + 1]; ++k) {
            s += v[k];
        }
        y[i] = s;
    }
}""", {"openmp-for"}, "schedule(dynamic, 16)",
        "std::vector<int> r(n + 1); for (int i = 0; i < n; ++i) r[i + 1] = r[i] + (a[i] & 7);"
        " std::vector<double> v(r[n] + 1, 0.5), o(n);"
        " for (int k = 0; k < r[n]; ++k) v[k] = d[k % n];"
        " NS::csr(r.data(), v.data(), o.data(), n); dump(o);"),
    "min_if": ("""
int min_if(const int* a, int n) {
    int m = 1000;
    for (int i = 0; i < n; ++i) {
        if (a[i] < m) m = a[i];
    }
    return m;
}""", {"openmp-reduction"}, "reduction(min:m)", "std::printf(\"%d\\n\", NS::min_if(a.data(), n));"),
    "max_ternary": ("""
double max_ternary(const double* a, int n) {
    double m = -1e300;
    for (int i = 0; i < n; ++i) {
        m = (m < a[i]) ? a[i] : m;
    }
    return m;
}""", {"openmp-reduction"}, "reduction(max:m)",
        "std::printf(\"%.17g\\n\", NS::max_ternary(d.data(), n));"),
    "argmin_first": ("""
int argmin_first(const int* a, int n) {
    int best = 1 << 30;
    int at = -1;
    for (int i = 0; i < n; ++i) {
        if (a[i] < best) {
            best = a[i];
            at = i;
        }
    }
    return at * 100000 + best;
}""", {"openmp-reduction"}, "#pragma omp critical",
        "std::printf(\"%d\\n\", NS::argmin_first(a.data(), n));"),
    "argmax_last": ("""
long argmax_last(const int* a, int n) {
    int best = -(1 << 30);
    long at = -7;
    for (int i = 0; i < n; ++i) {
        if (best <= a[i] * 2) {
            best = a[i] * 2;
            at = i;
        }
    }
    return at * 100000 + best;
}""", {"openmp-reduction"}, "#pragma omp critical",
        "std::printf(\"%ld\\n\", NS::argmax_last(a.data(), n));"),
    "helper_call": ("""
static int steps_of(long x) {
    int c = 0;
    x = x < 0 ? -x : x;
    while (x > 1) {
        x = (x & 1) ? 3 * x + 1 : (x >> 1);
        ++c;
    }
    return c;
}
void helper_call(const int* __restrict a, int* __restrict out, int n) {
    auto twice = [](int v) { return v * 2; };
    for (int i = 0; i < n; ++i) {
        out[i] = twice(steps_of(a[i])) + ((a[i] + 5) >> 1);
    }
}""", {"openmp-for"}, "#pragma omp parallel for",
        "std::vector<int> o(n); NS::helper_call(a.data(), o.data(), n); dump(o);"),
    "complex_norm": ("""
void complex_norm(const std::complex<double>* __restrict z, double* __restrict out, int n) {
    for (int i = 0; i < n; ++i) {
        out[i] = std::abs(z[i] * std::conj(z[i]));
    }
}""", {"openmp-for"}, "#pragma omp parallel for",
        "std::vector<std::complex<double>> z(n); for (int i = 0; i < n; ++i)"
        " z[i] = {d[i], -d[(i + 1) % n]}; std::vector<double> o(n);"
        " NS::complex_norm(z.data(), o.data(), n); dump(o);"),
}

NEGATIVE: dict[str, tuple[str, str]] = {
    # Rectangular nests keep the default static schedule.
    "rect": ("""
void rect(const double* __restrict a, double* __restrict out, int n, int m) {
    for (int i = 0; i < n; ++i) {
        double s = 0;
        int w = m;
        for (int j = 0; j < w; ++j) {
            s += a[j];
        }
        out[i] = s;
    }
}""", "no schedule"),
    # The branch assigns something else than what was compared: no min reduction.
    "not_min": ("""
int not_min(const int* a, int n) {
    int m = 1000;
    for (int i = 0; i < n; ++i) {
        if (a[i] < m) m = a[i] + 1;
    }
    return m;
}""", "serial"),
    # The index is read outside the update: not an arg-min.
    "arg_used": ("""
int arg_used(const int* a, int* out, int n) {
    int best = 1000;
    int at = 0;
    for (int i = 0; i < n; ++i) {
        if (a[i] < best) {
            best = a[i];
            at = i;
        }
        out[i] = at;
    }
    return best;
}""", "serial"),
    # A helper that writes a global, or prints, is not pure.
    "impure": ("""
int counter = 0;
static int bump(int x) { counter += x; return x; }
void impure(const int* __restrict a, int* __restrict out, int n) {
    for (int i = 0; i < n; ++i) {
        out[i] = bump(a[i]);
    }
}""", "serial"),
    "prints": ("""
static int shout(int x) { std::printf("%d", x); return x; }
void prints(const int* __restrict a, int* __restrict out, int n) {
    for (int i = 0; i < n; ++i) {
        out[i] = shout(a[i]);
    }
}""", "serial"),
    "writes_ptr": ("""
static int poke(int* p, int x) { *p = x; return x; }
void writes_ptr(int* __restrict a, int* __restrict out, int n) {
    for (int i = 0; i < n; ++i) {
        out[i] = poke(a, i);
    }
}""", "serial"),
    # Trip counts bounded by a small constant in a test the loop runs under: a macro, a
    # constant object, the span of an inclusive range, a count.
    "guarded_search": ("""
#define CUTOFF 10
int guarded_search(const int* a, int lo, int hi, int x) {
    if (hi - lo < CUTOFF) {
        for (int i = lo; i <= hi; i++)
            if (a[i] == x)
                return i;
        return -1;
    }
    return -2;
}""", "serial"),
    "guarded_scale": ("""
constexpr int kSmall = 16;
void guarded_scale(const double* __restrict a, double* __restrict out, int n) {
    if (n <= kSmall) {
        for (int i = 0; i < n; ++i) {
            out[i] = a[i] * 2.0;
        }
    }
}""", "serial"),
    "lambda_ref": ("""
void lambda_ref(const int* __restrict a, int* __restrict out, int n) {
    int total = 0;
    auto add = [&](int v) { total += v; return total; };
    for (int i = 0; i < n; ++i) {
        out[i] = add(a[i]);
    }
}""", "serial"),
}


def _rewrite(name: str, code: str):  # type: ignore[no-untyped-def]
    return rewrite(function_by_name(HEADERS + code, "cpp", name))


@pytest.mark.parametrize("name", sorted(NEGATIVE))
def test_left_alone(name: str) -> None:
    code, expect = NEGATIVE[name]
    res = _rewrite(name, code)
    if expect == "no schedule":
        assert "#pragma omp parallel for" in res.code and "schedule" not in res.code, res.code
    else:
        assert "#pragma omp" not in res.code, res.code


@pytest.mark.parametrize("name", sorted(POSITIVE))
def test_rewrite_shape(name: str) -> None:
    code, rules, needle, _call = POSITIVE[name]
    res = _rewrite(name, code)
    assert rules <= set(res.rules), (res.code, res.notes)
    assert needle in res.code, res.code


def test_a_test_that_bounds_the_trip_count_by_a_large_number_leaves_it_parallel() -> None:
    code = """
int guarded_wide(const int* a, int lo, int hi, int x) {
    if (hi - lo < 1000000) {
        for (int i = lo; i <= hi; i++)
            if (a[i] == x)
                return i;
    }
    return -1;
}"""
    assert "#pragma omp parallel for" in _rewrite("guarded_wide", code).code


DRIVER = """
static void dump(const std::vector<double>& v) { for (double x : v) std::printf("%.12g ", x);
    std::printf("\\n"); }
static void dump(const std::vector<int>& v) { for (int x : v) std::printf("%d ", x);
    std::printf("\\n"); }
int main(int argc, char** argv) {
    int which = std::atoi(argv[1]);
    unsigned seed = 12345u + 7919u * (unsigned)which;
    int sizes[] = {0, 1, 2, 3, 7, 64, 1000, 4099};
    for (int n : sizes) {
        for (int variant = 0; variant < 3; ++variant) {
            std::vector<int> a(n + 1);
            std::vector<double> d(n + 1);
            for (int i = 0; i <= n; ++i) {
                seed = seed * 1103515245u + 12345u;
                int r = (int)((seed >> 8) % 2001u) - 1000;  // negative numbers
                if (variant == 1) r %= 4;  // many ties
                if (variant == 2) r = 3;   // all equal
                a[i] = r;
                d[i] = r * 0.25;
            }
            std::printf("n=%d v=%d\\n", n, variant);
            if (n > 0) { CALLS }
        }
    }
    return 0;
}
"""


@pytest.mark.skipif(shutil.which("g++") is None, reason="needs g++")
def test_rewrites_agree_with_the_originals_at_four_threads(tmp_path: Path) -> None:
    names = sorted(POSITIVE)
    orig = "\n".join(POSITIVE[k][0] for k in names)
    opt = "\n".join(_rewrite(k, POSITIVE[k][0]).code if k != "helper_call" else
                    _helper_rewritten() for k in names)
    outputs = []
    for ns, body in (("orig", orig), ("opt", opt)):
        calls = " ".join(f"if (which == {i}) {{ {POSITIVE[k][3].replace('NS', ns)} }}"
                         for i, k in enumerate(names))
        src = tmp_path / f"{ns}.cpp"
        src.write_text(HEADERS + "#include <cstdlib>\nnamespace " + ns + " {\n" + body +
                       "\n}\n" + DRIVER.replace("CALLS", calls))
        exe = tmp_path / ns
        comp = subprocess.run(["g++", "-std=c++17", "-O1", "-fopenmp", "-o", str(exe), str(src)],
                              capture_output=True, text=True, timeout=240)
        assert comp.returncode == 0, comp.stderr + src.read_text()
        outs = []
        for i in range(len(names)):
            run = subprocess.run([str(exe), str(i)], capture_output=True, text=True, timeout=60,
                                 env={**os.environ, "OMP_NUM_THREADS": "4"})
            assert run.returncode == 0, run.stderr
            outs.append(run.stdout)
        outputs.append(outs)
    # Each element's sum keeps its order, and min/max/arg results are exact: outputs agree
    # to the last digit.
    for i, k in enumerate(names):
        assert outputs[0][i] == outputs[1][i], k


def _helper_rewritten() -> str:
    code = POSITIVE["helper_call"][0]
    res = _rewrite("helper_call", code)
    # The rewrite is of the function alone: the helper it calls stays as it was.
    helper = code[:code.index("void helper_call")]
    return helper + res.code
