"""Every built-in planner detector on a positive and a negative example (C++ and C)."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from perfpilot.code.locate import function_by_name
from perfpilot.code.site import Language
from perfpilot.code.syntax import node_text
from perfpilot.planning.builtin import Finding, analyze
from perfpilot.rules.containers.reserve import Appends
from perfpilot.rules.hoisting.hoist_invariant_call import ConditionHoist
from perfpilot.rules.parallel.openmp import ParallelLoop


def findings(src: str, name: str, language: Language = "cpp") -> list[Finding]:
    site = function_by_name(src, language, name, uri="file:///t.cc", check_errors=False)
    return analyze(site)


def line_of(src: str, marker: str, nth: int = 0) -> int:
    hits = [i + 1 for i, text in enumerate(src.splitlines()) if marker in text]
    assert len(hits) > nth, f"marker {marker!r} not found"
    return hits[nth]


@dataclass(frozen=True)
class Case:
    """A positive example: the rule must fire with this category, naming these things, on
    these lines (markers resolved to line numbers; the first is the finding's main line)."""

    id: str
    src: str
    func: str
    rule: str
    category: int
    names: tuple[str, ...]
    markers: tuple[str, ...]
    language: Language = "cpp"


POSITIVE = [
    Case("find-in-loop", """
#include <algorithm>
#include <vector>
int hits(const std::vector<int> &seen, int n) {
    int c = 0;
    for (int i = 0; i < n; ++i) {
        if (std::find(seen.begin(), seen.end(), i) != seen.end()) c++;
    }
    return c;
}
""", "hits", "linear-search-in-loop", 1, ("std::find", "seen"),
         ("std::find(", "for (int i")),
    Case("nested-compare", """
int dups(const int *a, int n) {
    int d = 0;
    for (int i = 0; i < n; ++i) {
        for (int j = 0; j < i; ++j) {
            if (a[j] == a[i]) { d++; break; }
        }
    }
    return d;
}
""", "dups", "linear-search-in-loop", 1, ("a[j] == a[i]", "`j`", "`i`"),
         ("if (a[j] == a[i])", "for (int j", "for (int i"), "c"),
    Case("fib", """
int fib(int n) {
    if (n < 2) return n;
    return fib(n - 1) + fib(n - 2);
}
""", "fib", "memo-recursion", 1, ("`fib`", "fib(n - 1)", "fib(n - 2)", "`n`"),
         ("return fib(",), "c"),
    Case("knapsack", """
#include <vector>
#include <algorithm>
int best(int i, int w, const std::vector<int> &wt, const std::vector<int> &val) {
    if (i < 0 || w == 0) return 0;
    int skip = best(i - 1, w, wt, val);
    if (wt[i] > w) return skip;
    return std::max(skip, val[i] + best(i - 1, w - wt[i], wt, val));
}
""", "best", "memo-recursion", 1, ("`best`", "`i`", "`w`"),
         ("int skip = best(", "return std::max(skip")),
    Case("bubble-sort", """
#include <vector>
void sort_values(std::vector<int> &v) {
    for (std::size_t i = 0; i < v.size(); ++i)
        for (std::size_t j = 0; j + 1 < v.size() - i; ++j)
            if (v[j] > v[j + 1]) {
                int t = v[j];
                v[j] = v[j + 1];
                v[j + 1] = t;
            }
}
""", "sort_values", "manual-sort", 15, ("`v`", "std::sort(v.begin(), v.end())", "O(n log n)"),
         ("for (std::size_t i", "if (v[j] > v[j + 1])", "int t = v[j];")),
    Case("selection-sort-c", """
void sel(int *a, int n) {
    for (int i = 0; i < n; i++) {
        int m = i;
        for (int j = i + 1; j < n; j++)
            if (a[j] < a[m]) m = j;
        int t = a[i];
        a[i] = a[m];
        a[m] = t;
    }
}
""", "sel", "manual-sort", 15, ("`a`", "qsort(a, n, sizeof *a, cmp)"),
         ("for (int i", "if (a[j] < a[m])", "int t = a[i];"), "c"),
    Case("range-sums", """
long long total(const int *a, const int *lo, const int *hi, int q) {
    long long all = 0;
    for (int k = 0; k < q; k++) {
        long long s = 0;
        for (int i = lo[k]; i <= hi[k]; i++)
            s += a[i];
        all += s;
    }
    return all;
}
""", "total", "prefix-sum", 1, ("`a[i]`", "p[hi + 1] - p[lo]"),
         ("s += a[i]", "for (int i", "for (int k"), "c"),
    Case("strlen-with-stores", """
#include <string.h>
void upcase(char *s) {
    for (size_t i = 0; i < strlen(s); i++) {
        if (s[i] >= 'a' && s[i] <= 'z')
            s[i] = (char)(s[i] - 'a' + 'A');
    }
}
""", "upcase", "strlen-condition", 4, ("strlen(s)", "`s[i]`", "NUL"),
         ("strlen(s)",), "c"),
    Case("local-std-function", """
#include <functional>
#include <vector>
double apply_all(const std::vector<double> &v, double scale) {
    std::function<double(double)> f = [scale](double x) { return x * scale; };
    double total = 0.0;
    for (double x : v)
        total += f(x);
    return total;
}
""", "apply_all", "call-in-hot-loop", 10, ("`f`", "`auto`"), ("total += f(x)", "for (double x")),
    Case("map-aggregate", """
#include <map>
#include <vector>
int most_frequent(const std::vector<int> &v) {
    std::map<int, int> counts;
    for (int x : v) counts[x]++;
    int best = -1, best_count = 0;
    for (const auto &kv : counts) {
        if (kv.second > best_count) { best = kv.first; best_count = kv.second; }
    }
    return best;
}
""", "most_frequent", "ordered-map-unneeded", 2, ("`counts`", "smallest key"),
         ("std::map<int, int> counts", "counts[x]++")),
    Case("dot-chain", """
double dot(const double *a, const double *b, int n) {
    double s = 0.0;
    for (int i = 0; i < n; i++)
        s += a[i] * b[i];
    return s;
}
""", "dot", "accumulator-chain", 9, ("`s`", "partial sums"), ("for (int i",), "c"),
    Case("simd-elementwise", """
void axpby(float *out, const float *x, const float *y, float alpha, float beta, int n) {
    for (int i = 0; i < n; i++)
        out[i] = alpha * x[i] + beta * y[i];
}
""", "axpby", "simd-loop", 13, ("`out[i]`", "#pragma omp simd"), ("for (int i",), "c"),
    Case("ordered-map", """
#include <map>
int freq(const int *a, int n) {
    std::map<int, int> cnt;
    for (int i = 0; i < n; ++i) cnt[a[i]]++;
    return cnt.count(7) ? cnt[7] : 0;
}
""", "freq", "ordered-map-unneeded", 2, ("`cnt`", "std::unordered_map", "operator[]"),
         ("std::map<int, int> cnt", "cnt[a[i]]++", "return cnt.count")),
    Case("list", """
#include <list>
double total(int n) {
    std::list<double> xs;
    for (int i = 0; i < n; ++i) xs.push_back(i * 0.5);
    double s = 0;
    for (double x : xs) s += x;
    return s;
}
""", "total", "list-to-vector", 2, ("`xs`", "std::vector", "push_back"),
         ("std::list<double> xs", "xs.push_back")),
    Case("vector-front", """
#include <vector>
long drain(std::vector<int> &q) {
    long s = 0;
    while (!q.empty()) {
        s += q.front();
        q.erase(q.begin());
    }
    return s;
}
""", "drain", "vector-front-op", 2, ("q.erase(q.begin())", "std::deque"),
         ("q.erase(", "while (")),
    Case("reserve", """
#include <vector>
std::vector<int> squares(int n) {
    std::vector<int> out;
    for (int i = 0; i < n; ++i) {
        out.push_back(i * i);
    }
    return out;
}
""", "squares", "reserve", 3, ("`out", "out.reserve(n)", "push_back"),
         ("out.push_back", "for (int i", "std::vector<int> out;")),
    Case("string-copy-concat", """
#include <string>
std::string join(int n) {
    std::string s;
    for (int i = 0; i < n; ++i) {
        s = s + "x";
    }
    return s;
}
""", "join", "string-concat-loop", 3, ("`s = s + \"x\"`", "`s += ...`"),
         ("s = s + ", "for (int i")),
    Case("local-string-shadows-global-int", """
#include <string>
int s;
std::string build(int n) {
    std::string s;
    for (int i = 0; i < n; ++i) {
        s = s + "ab";
    }
    return s;
}
""", "build", "string-concat-loop", 3, ("`s`",), ("s = s + ", "for (int i")),
    Case("strcat", """
#include <string.h>
void cat(char *dst, const char *part, int n) {
    for (int i = 0; i < n; i++) {
        strcat(dst, part);
    }
}
""", "cat", "string-concat-loop", 3, ("strcat(dst, part)", "`dst`"),
         ("strcat(", "for (int i"), "c"),
    Case("malloc-in-loop", """
#include <stdlib.h>
#include <string.h>
long work(const char *src, int n, int w) {
    long t = 0;
    for (int i = 0; i < n; i++) {
        char *buf = malloc(w);
        memcpy(buf, src, w);
        t += buf[0];
        free(buf);
    }
    return t;
}
""", "work", "alloc-in-loop", 3, ("malloc(w)", "`malloc`"),
         ("malloc(w)", "for (int i", "free(buf)"), "c"),
    Case("container-in-loop", """
#include <vector>
int rows(int n, int m) {
    int t = 0;
    for (int i = 0; i < n; ++i) {
        std::vector<int> row(m);
        row[0] = i;
        t += row[0];
    }
    return t;
}
""", "rows", "hoist-container", 14, ("`row`", "std::vector<int>", "clear()"),
         ("std::vector<int> row(m)", "for (int i")),
    Case("strlen-cond", """
#include <string.h>
int upper(const char *s) {
    int c = 0;
    for (int i = 0; i < strlen(s); i++) {
        if (s[i] >= 'A' && s[i] <= 'Z') c++;
    }
    return c;
}
""", "upper", "hoist-invariant-call", 4, ("strlen(s)", "`s`", "loop-invariant"),
         ("strlen(s)",), "c"),
    Case("invariant-factors", """
#include <vector>
double total(const std::vector<std::vector<double>> &m, double w, int rows, int cols) {
    double t = 0.0;
    for (int j = 0; j < cols; ++j)
        for (int i = 0; i < rows; ++i)
            t += m[i][j] * w * (double)(j + 1);
    return t;
}
""", "total", "invariant-expression", 4, ("`w`", "`(double)(j + 1)`", "w * (double)(j + 1)"),
         ("t += m[i][j]", "for (int i")),
    Case("invariant-branch", """
void scale(float *a, int n, int mode) {
    for (int i = 0; i < n; ++i) {
        if (mode == 2) a[i] *= 2.0f;
        else a[i] += 1.0f;
    }
}
""", "scale", "invariant-branch", 11, ("mode == 2", "`mode`", "unswitching"),
         ("if (mode == 2)", "for (int i"), "c"),
    Case("invariant-global-flag", """
int verbose;
long run(const int *a, int n) {
    long s = 0;
    for (int i = 0; i < n; ++i) {
        if (verbose) s += a[i];
    }
    return s;
}
""", "run", "invariant-branch", 11, ("`verbose`",), ("if (verbose)", "for (int i"), "c"),
    Case("interchange-2d", """
double colsum(double a[512][512], int n) {
    double s = 0;
    for (int i = 0; i < n; ++i)
        for (int j = 0; j < n; ++j)
            s += a[j][i];
    return s;
}
""", "colsum", "loop-interchange", 7, ("a[j][i]", "`j`", "`i`"),
         ("s += a[j][i]", "for (int i", "for (int j"), "c"),
    Case("endl", """
#include <iostream>
void show(int n) {
    std::ios::sync_with_stdio(false);
    for (int i = 0; i < n; ++i) {
        std::cout << i << std::endl;
    }
}
""", "show", "endl", 8, ("std::endl", "std::cout", "'\\n'"),
         ("std::endl", "for (int i")),
    Case("fast-io", """
#include <iostream>
long readsum(int n) {
    long s = 0, x;
    for (int i = 0; i < n; ++i) {
        std::cin >> x;
        s += x;
    }
    return s;
}
""", "readsum", "fast-io", 8, ("std::cin >> x", "sync_with_stdio(false)", "cin.tie"),
         ("std::cin >> x", "for (int i")),
    Case("scanf-loop", """
#include <stdio.h>
long readall(int n) {
    long s = 0;
    int x;
    for (int i = 0; i < n; i++) {
        scanf("%d", &x);
        s += x;
    }
    return s;
}
""", "readall", "stdio-loop", 8, ("`scanf`", "fread"),
         ("scanf(", "for (int i"), "c"),
    Case("pow2-mod", """
int evens(const int *a, int n) {
    int c = 0;
    for (int i = 0; i < n; i++) {
        int v = a[i];
        if (v % 2 == 0) c++;
    }
    return c;
}
""", "evens", "pow2-divmod", 9, ("`v % 2`", "v & 1"),
         ("v % 2", "for (int i"), "c"),
    Case("mod-wrap", """
long ring(const int *buf, int n, int steps) {
    long s = 0;
    int k = 0;
    for (int i = 0; i < steps; ++i) {
        s += buf[k];
        k = (k + 1) % n;
    }
    return s;
}
""", "ring", "mod-wrap", 9, ("`k`", "if (++k == n) k = 0;"),
         ("k = (k + 1) % n", "for (int i"), "c"),
    Case("branchless", """
long above(const int *a, int n, int t) {
    long s = 0;
    for (int i = 0; i < n; ++i) {
        if (a[i] > t) s += a[i];
    }
    return s;
}
""", "above", "branchless-select", 11, ("a[i] > t", "s += (a[i] > t) ? a[i] : 0;"),
         ("if (a[i] > t)", "for (int i"), "c"),
    Case("const-ref", """
#include <vector>
long sum(std::vector<long> v) {
    long s = 0;
    for (long x : v) s += x;
    return s;
}
""", "sum", "const-ref-param", 10, ("`v`", "const std::vector<long> &"),
         ("long sum(",)),
    Case("const-ref-range-for-read", """
#include <map>
#include <string>
double sum(std::map<std::string, double> prices) {
    double s = 0;
    for (auto &kv : prices) s += kv.second;
    return s;
}
""", "sum", "const-ref-param", 10, ("`prices`", "const std::map<std::string, double> &"),
         ("double sum(",)),
    Case("const-ref-struct", """
struct Big { double m[64]; int k; };
double first(Big b) { return b.m[0] + b.k; }
""", "first", "const-ref-param", 10, ("`b`", "const Big &"), ("double first(",)),
    Case("interposable-call", """
int twice(int x) { return 2 * x; }
int total(const int *a, int n) {
    int s = 0;
    for (int i = 0; i < n; ++i) s += twice(a[i]);
    return s;
}
""", "total", "call-in-hot-loop", 10, ("`twice`", "static inline", "interposed"),
         ("s += twice(", "for (int i", "int twice(")),
    Case("indirect-call", """
#include <functional>
double apply(const double *a, int n, std::function<double(double)> f) {
    double s = 0;
    for (int i = 0; i < n; ++i) s += f(a[i]);
    return s;
}
""", "apply", "call-in-hot-loop", 10, ("`f`", "template"),
         ("s += f(", "for (int i")),
    Case("restrict", """
void axpy(double *y, const double *x, double a, int n) {
    for (int i = 0; i < n; ++i) {
        y[i] = a * x[i] + y[i];
    }
}
""", "axpy", "restrict-alias", 5, ("`y`", "`x`", "restrict"),
         ("y[i] = a", "for (int i"), "c"),
    Case("pow", """
#include <cmath>
double norm2(const double *x, int n) {
    double s = 0;
    for (int i = 0; i < n; ++i) s += pow(x[i], 2);
    return sqrt(s);
}
""", "norm2", "pow-strength", 12, ("pow(x[i], 2)", "x[i] * x[i]"),
         ("pow(x[i], 2)", "for (int i")),
    Case("pow-half", """
#include <math.h>
double root(double v) { return pow(v, 0.5); }
""", "root", "pow-strength", 12, ("pow(v, 0.5)", "sqrt(v)"), ("return pow(",), "c"),
    Case("div-invariant", """
void normalize(double *a, int n, double total) {
    for (int i = 0; i < n; ++i) a[i] = a[i] / total;
}
""", "normalize", "div-by-invariant", 12, ("`total`", "1.0 / total"),
         ("a[i] = a[i] / total",), "c"),
    Case("simd-reduction", """
float dot(const float *a, const float *b, int n) {
    float s = 0.0f;
    for (int i = 0; i < n; ++i) s += a[i] * b[i];
    return s;
}
""", "dot", "simd-loop", 13, ("`s`", "#pragma omp simd reduction(+:s)"),
         ("for (int i",), "c"),
    Case("std-copy", """
void copy(int *dst, const int *src, int n) {
    for (int i = 0; i < n; ++i) dst[i] = src[i];
}
""", "copy", "std-algorithm", 15, ("`dst`", "`src`", "std::copy(src, src + n, dst)"),
         ("for (int i",)),
    Case("vector-fill", """
#include <vector>
void reset(std::vector<double> &v) {
    for (size_t i = 0; i < v.size(); ++i) v[i] = 1.5;
}
""", "reset", "std-algorithm", 15, ("`v`", "std::fill(v.begin(), v.end(), 1.5)"),
         ("for (size_t i",)),
    Case("vector-sum", """
#include <vector>
long total(const std::vector<long> &v, int n) {
    long s = 0;
    for (int i = 0; i < n; ++i) s += v[i];
    return s;
}
""", "total", "std-algorithm", 15, ("sum", "s = std::accumulate(v.begin(), v.begin() + n, s)"),
         ("for (int i",)),
    Case("c-memset", """
void clear(double *a, int n) {
    for (int i = 0; i < n; i++) a[i] = 0;
}
""", "clear", "std-algorithm", 15, ("`a`", "memset(a, 0, (n) * sizeof *a)"),
         ("for (int i",), "c"),
    Case("manual-max", """
int biggest(const int *a, int n) {
    int m = a[0];
    for (int i = 0; i < n; ++i) {
        if (a[i] > m) m = a[i];
    }
    return m;
}
""", "biggest", "std-algorithm", 15, ("maximum", "std::max_element(a, a + n)"),
         ("for (int i",)),
    Case("openmp-for", """
void saxpy(float *__restrict y, const float *__restrict x, float a, int n) {
    for (int i = 0; i < n; ++i) {
        y[i] = a * x[i] + y[i];
    }
}
""", "saxpy", "openmp-for", 6, ("`i`", "`y`", "#pragma omp parallel for"),
         ("for (int i",)),
    Case("openmp-reduction", """
long total(const int *a, int n) {
    long s = 0;
    for (int i = 0; i < n; ++i) {
        s += a[i];
    }
    return s;
}
""", "total", "openmp-reduction", 6, ("`s`", "reduction(+:s)"), ("for (int i",)),
]


@pytest.mark.parametrize("case", POSITIVE, ids=[c.id for c in POSITIVE])
def test_detector_fires(case: Case) -> None:
    got = [f for f in findings(case.src, case.func, case.language) if f.rule == case.rule]
    assert got, f"{case.rule} did not fire"
    f = got[0]
    assert f.category_id == case.category
    assert f.category.id == case.category
    for name in case.names:
        assert name in f.explanation, (name, f.explanation)
    expected = tuple(dict.fromkeys(line_of(case.src, m) for m in case.markers))
    assert f.lines[: len(expected)] == expected
    strategy = f.to_strategy()
    assert strategy.rule == case.rule and strategy.lines == f.lines
    assert 0 < f.impact <= 1


@dataclass(frozen=True)
class Negative:
    id: str
    src: str
    func: str
    rule: str
    language: Language = "cpp"


NEGATIVE = [
    Negative("find-outside-loop", """
#include <algorithm>
#include <vector>
bool has(const std::vector<int> &v, int x) { return std::find(v.begin(), v.end(), x) != v.end(); }
""", "has", "linear-search-in-loop"),
    Negative("nested-no-compare", """
int tri(int n) {
    int s = 0;
    for (int i = 0; i < n; ++i) for (int j = 0; j < i; ++j) s += j;
    return s;
}
""", "tri", "linear-search-in-loop", "c"),
    Negative("merge-sort", """
void msort(int *a, int lo, int hi) {
    if (hi - lo < 2) return;
    int mid = (lo + hi) / 2;
    msort(a, lo, mid);
    msort(a, mid, hi);
}
""", "msort", "memo-recursion", "c"),
    Negative("memoized-fib", """
long long memo[100];
long long fib(int n) {
    if (n < 2) return n;
    if (memo[n]) return memo[n];
    return memo[n] = fib(n - 1) + fib(n - 2);
}
""", "fib", "memo-recursion", "c"),
    Negative("ordered-iteration", """
#include <map>
#include <cstdio>
void show(const int *a, int n) {
    std::map<int, int> cnt;
    for (int i = 0; i < n; ++i) cnt[a[i]]++;
    for (auto &kv : cnt) printf("%d %d\\n", kv.first, kv.second);
}
""", "show", "ordered-map-unneeded"),
    Negative("map-lower-bound", """
#include <map>
int near(int k) {
    std::map<int, int> m;
    m[1] = 2;
    return m.lower_bound(k)->second;
}
""", "near", "ordered-map-unneeded"),
    Negative("list-splice-middle", """
#include <list>
void mid(int n) {
    std::list<int> xs;
    for (int i = 0; i < n; ++i) xs.insert(xs.begin(), i);
}
""", "mid", "list-to-vector"),
    Negative("erase-back", """
#include <vector>
void trim(std::vector<int> &q) {
    while (!q.empty()) q.erase(q.end() - 1);
}
""", "trim", "vector-front-op"),
    Negative("strlen-stores-nul", """
#include <string.h>
void cut(char *s) {
    for (size_t i = 0; i < strlen(s); i++) {
        if (s[i] == ',') s[i] = '\\0';
    }
}
""", "cut", "strlen-condition", "c"),
    Negative("no-swap-no-sort", """
int pairs(const int *a, int n) {
    int c = 0;
    for (int i = 0; i < n; i++)
        for (int j = i + 1; j < n; j++)
            if (a[i] < a[j]) c++;
    return c;
}
""", "pairs", "manual-sort", "c"),
    Negative("prefix-array-written", """
void smooth(int *a, const int *lo, const int *hi, int q) {
    for (int k = 0; k < q; k++) {
        int s = 0;
        for (int i = lo[k]; i <= hi[k]; i++) s += a[i];
        a[k] = s;
    }
}
""", "smooth", "prefix-sum", "c"),
    Negative("int-accumulator", """
long total(const int *a, int n) {
    long s = 0;
    for (int i = 0; i < n; i++) s += a[i];
    return s;
}
""", "total", "accumulator-chain", "c"),
    Negative("int-elementwise", """
void add(int *out, const int *x, int n) {
    for (int i = 0; i < n; i++) out[i] = x[i] + 1;
}
""", "add", "simd-loop", "c"),
    Negative("reserved", """
#include <vector>
std::vector<int> squares(int n) {
    std::vector<int> out;
    out.reserve(n);
    for (int i = 0; i < n; ++i) out.push_back(i * i);
    return out;
}
""", "squares", "reserve"),
    Negative("conditional-push", """
#include <vector>
std::vector<int> evens(int n) {
    std::vector<int> out;
    for (int i = 0; i < n; ++i) if (i % 2 == 0) out.push_back(i);
    return out;
}
""", "evens", "reserve"),
    Negative("int-concat", """
int acc(int n) {
    int s = 0;
    for (int i = 0; i < n; ++i) s = s + i;
    return s;
}
""", "acc", "string-concat-loop"),
    Negative("malloc-outside", """
#include <stdlib.h>
void fill(int n) {
    int *b = malloc(n * sizeof *b);
    for (int i = 0; i < n; i++) b[i] = i;
    free(b);
}
""", "fill", "alloc-in-loop", "c"),
    Negative("reference-in-loop", """
#include <vector>
int rows(const std::vector<std::vector<int>> &g) {
    int t = 0;
    for (size_t i = 0; i < g.size(); ++i) {
        const std::vector<int> &row = g[i];
        t += row[0];
    }
    return t;
}
""", "rows", "hoist-container"),
    Negative("strlen-modified", """
#include <string.h>
void chop(char *s) {
    for (int i = 0; i < strlen(s); i++) {
        if (s[i] == ' ') s[i] = 0;
    }
}
""", "chop", "hoist-invariant-call", "c"),
    Negative("size-grows", """
#include <vector>
void grow(std::vector<int> &v) {
    for (size_t i = 0; i < v.size(); ++i) if (v[i] > 0 && v.size() < 100) v.push_back(v[i] - 1);
}
""", "grow", "hoist-invariant-call"),
    Negative("grouped-factors", """
double total(const double *a, double w, double k, int n) {
    double t = 0.0;
    for (int i = 0; i < n; ++i) t += a[i] * (w * k);
    return t;
}
""", "total", "invariant-expression", "c"),
    Negative("variant-branch", """
void f(int *a, int n) {
    for (int i = 0; i < n; ++i) {
        if (a[i] > 0) a[i] = 0;
    }
}
""", "f", "invariant-branch", "c"),
    Negative("global-flag-with-unknown-call", """
int verbose;
void step(int i);
void run(int n) {
    for (int i = 0; i < n; ++i) {
        if (verbose) step(i);
    }
}
""", "run", "invariant-branch", "c"),
    Negative("local-shadows-global", """
#include <string>
int s;
std::string build(int n) {
    std::string s;
    for (int i = 0; i < n; ++i) s = s + "ab";
    return s.size() > 3 ? s : "";
}
int count_plain(int n) {
    int total = 0;
    for (int i = 0; i < n; ++i) total = total + i;
    return total;
}
""", "count_plain", "string-concat-loop"),
    Negative("row-order", """
double rowsum(double a[512][512], int n) {
    double s = 0;
    for (int i = 0; i < n; ++i)
        for (int j = 0; j < n; ++j)
            s += a[i][j];
    return s;
}
""", "rowsum", "loop-interchange", "c"),
    # A flat index the dependence test cannot prove distinct across both loops: no swap is
    # offered (one that may be wrong is worse than a missed one).
    Negative("interchange-flat-unproven", """
void add(float *a, const float *b, int n) {
    for (int i = 0; i < n; ++i)
        for (int j = 0; j < n; ++j)
            a[j * n + i] += b[j * n + i];
}
""", "add", "loop-interchange", "c"),
    # Imperfect nests with carried dependences: swapping the loops would change the result.
    Negative("interchange-pivot-search", """
#include <cmath>
void solve(double a[64][64], int n) {
    for (int i = 0; i < n; ++i) {
        int p = i;
        for (int k = i + 1; k < n; ++k)
            if (std::fabs(a[k][i]) > std::fabs(a[p][i])) p = k;
        for (int k = 0; k < n; ++k) {
            double t = a[i][k]; a[i][k] = a[p][k]; a[p][k] = t;
        }
        for (int k = i + 1; k < n; ++k)
            a[k][i] = a[k][i] / a[i][i];
    }
}
""", "solve", "loop-interchange"),
    Negative("interchange-elimination", """
void elim(double a[64][64], double* x, int n) {
    for (int j = 0; j < n; ++j) {
        x[j] = x[j] / a[j][j];
        for (int k = 0; k < n; ++k)
            a[k][j] = a[k][j] - x[j] * a[k][0];
    }
}
""", "elim", "loop-interchange"),
    Negative("interchange-carried", """
void carried(double a[64][64], int n) {
    for (int i = 1; i < n; ++i)
        for (int k = 0; k < n; ++k)
            a[k][i] = a[k][i - 1] + 1.0;
}
""", "carried", "loop-interchange", "c"),
    Negative("endl-outside-loop", """
#include <iostream>
void once(int x) { std::cout << x << std::endl; }
""", "once", "endl"),
    Negative("synced-io", """
#include <iostream>
long readsum(int n) {
    std::ios::sync_with_stdio(false);
    long s = 0, x;
    for (int i = 0; i < n; ++i) { std::cin >> x; s += x; }
    return s;
}
""", "readsum", "fast-io"),
    # each iteration scans its own row once: O(total), no repeated scan
    Negative("scan-of-each-row", """
#include <algorithm>
#include <vector>
double peaks(const std::vector<std::vector<double>>& rows, const std::vector<int>& t) {
    double total = 0;
    for (const auto& r : rows) total += *std::max_element(r.begin(), r.end());
    for (std::size_t i = 0; i < t.size(); ++i)
        total += std::count(rows[i].begin(), rows[i].end(), 0.0);
    return total;
}
""", "peaks", "linear-search-in-loop"),
    Negative("printf-once", """
#include <stdio.h>
void report(int x) { printf("%d\\n", x); }
""", "report", "stdio-loop", "c"),
    Negative("unsigned-mod", """
unsigned evens(const unsigned *a, unsigned n) {
    unsigned c = 0;
    for (unsigned i = 0; i < n; i++) if (a[i] % 2 == 0) c++;
    return c;
}
""", "evens", "pow2-divmod", "c"),
    Negative("mod-by-literal", """
int ring(int n) {
    int k = 0;
    for (int i = 0; i < n; ++i) k = (k + 1) % 8;
    return k;
}
""", "ring", "mod-wrap", "c"),
    Negative("branch-with-call", """
void report(int v);
void scan(const int *a, int n) {
    for (int i = 0; i < n; ++i) {
        if (a[i] < 0) report(a[i]);
    }
}
""", "scan", "branchless-select", "c"),
    Negative("param-modified", """
#include <vector>
#include <algorithm>
int median(std::vector<int> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}
""", "median", "const-ref-param"),
    Negative("range-for-writes", """
#include <vector>
int bump(std::vector<int> v) {
    for (auto &x : v) x += 1;
    return v[0];
}
""", "bump", "const-ref-param"),
    Negative("scalar-by-value", """
int add(int a, int b) { return a + b; }
""", "add", "const-ref-param"),
    Negative("static-helper", """
static int twice(int x) { return 2 * x; }
int total(const int *a, int n) {
    int s = 0;
    for (int i = 0; i < n; ++i) s += twice(a[i]);
    return s;
}
""", "total", "call-in-hot-loop"),
    Negative("already-restrict", """
void axpy(double *restrict y, const double *restrict x, double a, int n) {
    for (int i = 0; i < n; ++i) y[i] = a * x[i] + y[i];
}
""", "axpy", "restrict-alias", "c"),
    Negative("pow-general", """
#include <math.h>
double p(double x, double y) { return pow(x, y) + pow(x, 2.5); }
""", "p", "pow-strength", "c"),
    Negative("div-by-loop-var", """
void harm(double *a, int n) {
    for (int i = 1; i < n; ++i) a[i] = a[i] / i;
}
""", "harm", "div-by-invariant", "c"),
    Negative("int-reduction-simd", """
int total(const int *a, int n) {
    int s = 0;
    for (int i = 0; i < n; ++i) s += a[i];
    return s;
}
""", "total", "simd-loop", "c"),
    Negative("two-statement-loop", """
void twice(int *dst, const int *src, int n) {
    for (int i = 0; i < n; ++i) { dst[i] = src[i]; dst[i] *= 2; }
}
""", "twice", "std-algorithm"),
    Negative("dependent-loop", """
void prefix(int *a, int n) {
    for (int i = 1; i < n; ++i) a[i] = a[i] + a[i - 1];
}
""", "prefix", "openmp-for", "c"),
    Negative("io-loop-no-openmp", """
#include <stdio.h>
void show(const int *a, int n) {
    for (int i = 0; i < n; ++i) printf("%d\\n", a[i]);
}
""", "show", "openmp-for", "c"),
]


@pytest.mark.parametrize("case", NEGATIVE, ids=[c.id for c in NEGATIVE])
def test_detector_stays_quiet(case: Negative) -> None:
    got = [f for f in findings(case.src, case.func, case.language) if f.rule == case.rule]
    assert not got, [f.explanation for f in got]


def test_reserve_data_for_rewriter() -> None:
    src = POSITIVE[[c.id for c in POSITIVE].index("reserve")].src
    (f,) = [f for f in findings(src, "squares") if f.rule == "reserve"]
    assert isinstance(f.proof, Appends)
    assert f.proof.var == "out" and f.proof.count == "n"
    assert f.loop_range is not None
    data = src.encode()
    assert data[f.loop_range[0]:f.loop_range[1]].decode().startswith("for (int i = 0")
    assert f.node_range is not None
    assert data[f.node_range[0]:f.node_range[1]].decode() == "out.push_back(i * i)"


def test_hoist_points_at_the_call() -> None:
    src = "#include <string.h>\nint f(const char *s) {\n  int c = 0;\n" \
          "  for (int i = 0; i < strlen(s); i++) c += s[i];\n  return c;\n}\n"
    (f,) = [f for f in findings(src, "f", "c") if f.rule == "hoist-invariant-call"]
    assert f.node_range is not None
    assert src.encode()[f.node_range[0]:f.node_range[1]] == b"strlen(s)"
    # the proof is the condition hoist of that call, under the name `strlen(s)` computes
    assert isinstance(f.proof, ConditionHoist)
    assert [node_text(c) for c in f.proof.calls] == ["strlen(s)"] and f.proof.stem == "s_len"


def test_openmp_private_and_pragma() -> None:
    src = """
void mm(const double *restrict a, const double *restrict b, double *restrict c, int n) {
    double s;
    for (int i = 0; i < n; ++i) {
        for (int j = 0; j < n; ++j) {
            s = 0;
            for (int k = 0; k < n; ++k) s += a[i * n + k] * b[k * n + j];
            c[i * n + j] = s;
        }
    }
}
"""
    got = [f for f in findings(src, "mm", "c") if f.rule.startswith("openmp")]
    assert len(got) == 1
    f = got[0]
    assert f.rule == "openmp-for"
    # The loop analysis cannot bound `j` to one row, so the outermost provable loop is `j`'s;
    # the `k` loop inside it is covered by that pragma and not reported again.
    assert f.lines == (line_of(src, "for (int j"),)
    assert isinstance(f.proof, ParallelLoop)
    assert f.proof.pragma.startswith("#pragma omp parallel for")
    assert "private(s)" in f.proof.pragma and f.proof.analysis.private_vars == ("s",)
    assert "`s` must be private" in f.explanation


def test_endl_lists_every_line() -> None:
    src = """
#include <iostream>
void show(int n) {
    for (int i = 0; i < n; ++i) {
        std::cout << i << std::endl;
        std::cout << -i << std::endl;
    }
}
"""
    (f,) = [f for f in findings(src, "show") if f.rule == "endl"]
    assert f.lines[:2] == (line_of(src, "<< i <<"), line_of(src, "<< -i <<"))
    assert f.proof is not None and len(f.proof.operands) == 2  # type: ignore[attr-defined]
