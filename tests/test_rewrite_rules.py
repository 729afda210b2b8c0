"""Each builtin rule: applied where safe, left alone where not, and the rewrite keeps behaviour.

Positive cases are compiled together into one program (original functions in ``namespace orig``,
rewritten ones in ``namespace opt``) with g++ -fopenmp and run with several threads; the driver
compares outputs (exactly, or with a relative tolerance for floating-point reductions).
"""
# ruff: noqa: E501  (C++ fixtures)

from __future__ import annotations

import os
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

import pytest

from perfpilot.code.locate import function_by_name
from perfpilot.code.splice import splice
from perfpilot.optimizing.builtin import rewrite

pytestmark = pytest.mark.skipif(shutil.which("g++") is None, reason="needs g++")

HEADERS = """#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>
"""


@dataclass(frozen=True)
class Case:
    """A function, the rules to run (None: all), the rules expected, and a C++ check."""

    name: str
    code: str
    rules: frozenset[str] | None
    expect: frozenset[str]
    driver: str


def R(*ids: str) -> frozenset[str]:
    return frozenset(ids)


POSITIVE = [
    Case("saxpy", """
void saxpy(double a, const double* __restrict x, double* __restrict y, int n) {
    // scaled add
    for (int i = 0; i < n; ++i) {
        y[i] = a * x[i] + y[i];
    }
}""", None, R("openmp-for"), """
    { std::vector<double> x(5000), y1(5000), y2(5000);
      for (int i = 0; i < 5000; ++i) { x[i] = i * 0.5; y1[i] = y2[i] = 3.0 - i; }
      orig::saxpy(1.5, x.data(), y1.data(), 5000); opt::saxpy(1.5, x.data(), y2.data(), 5000);
      check("saxpy", y1 == y2); }"""),
    Case("dot", """
double dot(const std::vector<double>& a, const std::vector<double>& b) {
    double s = 0.0;
    for (std::size_t i = 0; i < a.size(); ++i) s += a[i] * b[i];
    return s;
}""", None, R("openmp-reduction", "hoist-invariant-call"), """
    { std::vector<double> a(20000), b(20000);
      for (int i = 0; i < 20000; ++i) { a[i] = std::sin(i); b[i] = std::cos(i * 0.3); }
      check("dot", near(orig::dot(a, b), opt::dot(a, b)));
      std::vector<double> e;
      check("dot-empty", orig::dot(e, e) == opt::dot(e, e)); }"""),
    Case("maxval", """
int maxval(const int* x, int n) {
    int m = -1000000;
    for (int i = 0; i < n; i++) m = std::max(m, x[i]);
    return m;
}""", None, R("openmp-reduction"), """
    { std::vector<int> x(7777); for (int i = 0; i < 7777; ++i) x[i] = (i * 7919) % 10007 - 5000;
      check("maxval", orig::maxval(x.data(), 7777) == opt::maxval(x.data(), 7777));
      check("maxval-0", orig::maxval(x.data(), 0) == opt::maxval(x.data(), 0)); }"""),
    Case("count_upper", """
int count_upper(const char* s) {
    int k = 0;
    for (std::size_t i = 0; i < strlen(s); ++i)
        if (s[i] >= 'A' && s[i] <= 'Z') k++;
    return k;
}""", R("hoist-invariant-call"), R("hoist-invariant-call"), """
    { std::string s; for (int i = 0; i < 3000; ++i) s += char('A' + (i * 13) % 58);
      check("count_upper", orig::count_upper(s.c_str()) == opt::count_upper(s.c_str()));
      check("count_upper-empty", orig::count_upper("") == opt::count_upper("")); }"""),
    Case("count_upper_all", """
int count_upper_all(const char* s) {
    int k = 0;
    for (std::size_t i = 0; i < strlen(s); ++i)
        if (s[i] >= 'A' && s[i] <= 'Z') k++;
    return k;
}""", None, R("hoist-invariant-call", "openmp-reduction"), """
    { std::string s; for (int i = 0; i < 3000; ++i) s += char('A' + (i * 13) % 58);
      check("count_upper_all", orig::count_upper_all(s.c_str()) == opt::count_upper_all(s.c_str())); }"""),
    # Stores into the string that provably never write a NUL keep its length: hoisted.
    Case("upcase", """
void upcase(char* s) {
    for (std::size_t i = 0; i < strlen(s); ++i)
        if (s[i] >= 'a' && s[i] <= 'z') s[i] = (char)(s[i] - 'a' + 'A');
}""", R("hoist-invariant-call"), R("hoist-invariant-call"), """
    { std::string a; for (int i = 0; i < 3000; ++i) a += char(' ' + (i * 13) % 95);
      std::string b = a; orig::upcase(&a[0]); opt::upcase(&b[0]); check("upcase", a == b); }"""),
    Case("lower_all", """
void lower_all(char* s) {
    for (std::size_t i = 0; i < strlen(s); ++i) s[i] = (char)std::tolower((unsigned char)s[i]);
}""", R("hoist-invariant-call"), R("hoist-invariant-call"), """
    { std::string a; for (int i = 0; i < 3000; ++i) a += char(' ' + (i * 7) % 95);
      std::string b = a; orig::lower_all(&a[0]); opt::lower_all(&b[0]); check("lower_all", a == b); }"""),
    Case("join", """
std::string join(const std::vector<std::string>& words) {
    std::string out;
    for (std::size_t i = 0; i < words.size(); ++i) {
        if (i > 0)
            out = out + ", ";
        out = out + words[i] + "(" + std::to_string(i) + ")";
    }
    return out;
}""", R("string-concat-loop"), R("string-concat-loop"), """
    { std::vector<std::string> w; for (int i = 0; i < 300; ++i) w.push_back(std::string(i % 7, 'a' + i % 26));
      check("join", orig::join(w) == opt::join(w));
      check("join-empty", orig::join({}) == opt::join({})); }"""),
    Case("common", """
int common(const std::vector<int>& a, const std::vector<int>& b) {
    int k = 0, missing = 0;
    for (int x : a) {
        if (std::find(b.begin(), b.end(), x) != b.end()) ++k;
        k += !b.empty() && b[0] > x;  // reading an element is fine
        for (std::size_t j = 0; j < 2; ++j)
            if (std::find(b.begin(), b.end(), x + (int)j) == b.end()) ++missing;
    }
    return k * 1000 + missing;
}""", None, R("linear-search-in-loop"), """
    { std::vector<int> a, b; for (int i = 0; i < 500; ++i) { a.push_back((i * 37) % 211 - 50); b.push_back((i * 53) % 307 - 90); }
      check("common", orig::common(a, b) == opt::common(a, b));
      check("common-empty", orig::common(a, {}) == opt::common(a, {})); }"""),
    Case("known_words", """
int known_words(const std::vector<std::string>& text, const std::vector<std::string>& dict) {
    int k = 0;
    for (std::size_t i = 0; i < text.size(); ++i)
        if (std::find(dict.begin(), dict.end(), text[i]) != dict.end()) ++k;
    return k;
}""", R("linear-search-in-loop"), R("linear-search-in-loop"), """
    { std::vector<std::string> t, d; for (int i = 0; i < 300; ++i) { t.push_back(std::to_string(i * 7 % 101)); d.push_back(std::to_string(i * 3 % 89)); }
      check("known_words", orig::known_words(t, d) == opt::known_words(t, d)); }"""),
    Case("peaks", """
long peaks(const std::vector<int>& v) {
    long total = 0;
    for (std::size_t i = 0; i + 4 <= v.size(); ++i) {
        std::vector<int> w(v.begin() + i, v.begin() + i + 4);
        std::string tag = std::to_string(i % 3);
        std::sort(w.begin(), w.end());
        total += w.back() * (long)tag.size() + w.front();
    }
    return total;
}""", R("hoist-container"), R("hoist-container"), """
    { std::vector<int> v; for (int i = 0; i < 400; ++i) v.push_back((i * 31) % 97);
      check("peaks", orig::peaks(v) == opt::peaks(v)); }"""),
    Case("fmt", """
std::string fmt(const std::vector<int>& v) {
    std::string out;
    for (int x : v) {
        std::ostringstream os;
        os << x << ';' << x * 0.5;
        out += os.str();
    }
    return out;
}""", R("hoist-container"), R("hoist-container"), """
    { std::vector<int> v; for (int i = -50; i < 250; ++i) v.push_back(i * 7);
      check("fmt", orig::fmt(v) == opt::fmt(v)); }"""),
    # Textbook quadratic sorts of integers become std::sort (any order of the swap's halves).
    Case("bubble", """
void bubble(std::vector<int>& v) {
    for (std::size_t i = 0; i < v.size(); ++i)
        for (std::size_t j = 0; j + 1 < v.size() - i; ++j)
            if (v[j] > v[j + 1]) {
                int t = v[j];
                v[j] = v[j + 1];
                v[j + 1] = t;
            }
}""", R("manual-sort"), R("manual-sort"), """
    { std::vector<int> a; for (int i = 0; i < 500; ++i) a.push_back((i * 7919) % 1009 - 300);
      std::vector<int> b = a; orig::bubble(a); opt::bubble(b); check("bubble", a == b);
      std::vector<int> e; orig::bubble(e); opt::bubble(e); check("bubble-empty", e.empty()); }"""),
    Case("select_desc", """
void select_desc(long* a, int n) {
    for (int i = 0; i < n - 1; i++) {
        int m = i;
        for (int j = i + 1; j < n; j++)
            if (a[j] > a[m])
                m = j;
        if (m != i) std::swap(a[i], a[m]);
    }
}""", R("manual-sort"), R("manual-sort"), """
    { for (int n : {0, -4, 1, 2, 300}) { std::vector<long> a(n > 0 ? n : 1); for (std::size_t i = 0; i < a.size(); ++i) a[i] = (long)((i * 31) % 17) - 8;
      std::vector<long> b = a; orig::select_desc(a.data(), n); opt::select_desc(b.data(), n); check("select_desc", a == b); } }"""),
    # A vector drained from the front: a head index, and q left as the loop left it.
    Case("drain", """
long drain(std::vector<int>& q, int stop_at) {
    long total = 0;
    while (!q.empty()) {
        int job = q.front();
        q.erase(q.begin());
        if (job == stop_at) break;
        if (job > 0 && job % 5 == 0) q.push_back(job / 5);
        total += (long)job * (long)(q.size() + 1) + (q.empty() ? 7 : q[0] + q.back());
    }
    return total;
}""", R("vector-front-op"), R("vector-front-op"), """
    { for (int stop : {-1, 40}) { std::vector<int> a; for (int i = 0; i < 300; ++i) a.push_back((i * 37) % 101);
      std::vector<int> b = a; long ra = orig::drain(a, stop), rb = opt::drain(b, stop);
      check("drain", ra == rb && a == b); } }"""),
    Case("squares", """
std::vector<long> squares(int n) {
    std::vector<long> v;
    for (int i = 0; i < n; ++i) {
        v.push_back((long)i * i);
    }
    return v;
}""", None, R("reserve", "openmp-for"), """
    { for (int n : {0, -3, 1, 1000}) check("squares", orig::squares(n) == opt::squares(n)); }"""),
    Case("backwards", """
std::vector<int> backwards(const std::vector<int>& x) {
    std::vector<int> v;
    for (int i = x.size() - 1; i >= 0; --i) v.push_back(x[i] * 2);
    return v;
}""", None, R("reserve"), """
    { for (int n : {0, 1, 5}) { std::vector<int> x(n, 3);
        check("backwards", orig::backwards(x) == opt::backwards(x)); } }"""),
    Case("odds", """
std::vector<int> odds(int lo, int hi) {
    std::vector<int> v;
    v.push_back(-1);
    for (int i = lo; i <= hi; i++) v.push_back(2 * i + 1);
    return v;
}""", R("reserve"), R("reserve"), """
    { for (int lo : {-2, 0, 5}) for (int hi : {-5, 0, 4, 100})
        check("odds", orig::odds(lo, hi) == opt::odds(lo, hi)); }"""),
    Case("total", """
long total(std::vector<int> v, std::string tag) {
    long s = 0;
    for (std::size_t i = 0; i < v.size(); ++i) s += v[i];
    return s + (long)tag.size();
}""", R("const-ref-param"), R("const-ref-param"), """
    { std::vector<int> v(1000); for (int i = 0; i < 1000; ++i) v[i] = i - 300;
      check("total", orig::total(v, "abc") == opt::total(v, "abc")); }"""),
    Case("emit", """
void emit(std::ostream& os, int n) {
    for (int i = 0; i < n; ++i) {
        os << i << ' ' << i * i << std::endl;
    }
    os << "done" << std::endl;
}""", None, R("endl"), """
    { std::ostringstream a, b; orig::emit(a, 50); opt::emit(b, 50);
      check("emit", a.str() == b.str() && a.str().size() > 100); }"""),
    Case("energy", """
double energy(const double* x, int n, int k) {
    double e = 0;
    for (int i = 0; i < n; ++i) e += pow(x[i], 2) + std::pow(x[i] - 1.0, 2.0) / pow(k, 2);
    return e;
}""", R("pow-strength"), R("pow-strength"), """
    { std::vector<double> x(999); for (int i = 0; i < 999; ++i) x[i] = std::sin(i) * 1e3 + 1e-3 * i;
      check("energy", orig::energy(x.data(), 999, 7) == opt::energy(x.data(), 999, 7)); }"""),
    Case("colscale", """
void colscale(std::vector<std::vector<double>>& a, const std::vector<std::vector<double>>& b, int n, int m) {
    for (int i = 0; i < n; ++i) {
        for (int j = 0; j < m; ++j) {
            a[j][i] = b[j][i] * 2.0 + 1.0;
        }
    }
}""", R("loop-interchange"), R("loop-interchange"), """
    { std::vector<std::vector<double>> b(60, std::vector<double>(40)), a1(60, std::vector<double>(40, 0.0)), a2 = a1;
      for (int j = 0; j < 60; ++j) for (int i = 0; i < 40; ++i) b[j][i] = i * 100 + j;
      orig::colscale(a1, b, 40, 60); opt::colscale(a2, b, 40, 60);
      check("colscale", a1 == a2); }"""),
    Case("colscale_all", """
void colscale_all(std::vector<std::vector<double>>& a, const std::vector<std::vector<double>>& b, int n, int m) {
    for (int i = 0; i < n; ++i)
        for (int j = 0; j < m; ++j)
            a[j][i] = b[j][i] - 0.5;
}""", None, R("loop-interchange", "openmp-for"), """
    { std::vector<std::vector<double>> b(70, std::vector<double>(30)), a1(70, std::vector<double>(30, 0.0)), a2 = a1;
      for (int j = 0; j < 70; ++j) for (int i = 0; i < 30; ++i) b[j][i] = i * 3 - j;
      orig::colscale_all(a1, b, 30, 70); opt::colscale_all(a2, b, 30, 70);
      check("colscale_all", a1 == a2); }"""),
    Case("matvec", """
void matvec(const std::vector<std::vector<double>>& a, const std::vector<double>& x, std::vector<double>& y) {
    int n = (int)a.size();
    int j;
    double t;
    for (int i = 0; i < n; i++) {
        t = 0;
        for (j = 0; j < (int)x.size(); j++) t += a[i][j] * x[j];
        y[i] = t;
    }
}""", None, R("openmp-for", "hoist-invariant-call"), """
    { int n = 300; std::vector<std::vector<double>> a(n, std::vector<double>(n));
      std::vector<double> x(n), y1(n), y2(n);
      for (int i = 0; i < n; ++i) { x[i] = 1.0 / (i + 1); for (int j = 0; j < n; ++j) a[i][j] = (i ^ j) % 17; }
      orig::matvec(a, x, y1); opt::matvec(a, x, y2);
      check("matvec", y1 == y2); }"""),
]

DRIVER_PRELUDE = """
static int failures = 0;
static void check(const char* name, bool ok) {
    std::printf("%s %s\\n", name, ok ? "OK" : "FAIL");
    if (!ok) ++failures;
}
static bool near(double a, double b) {
    return std::fabs(a - b) <= 1e-9 * std::max(1.0, std::fabs(a));
}
"""


def _rewritten(cases: list[Case]) -> tuple[str, dict[str, object]]:
    body = "\n".join(c.code for c in cases) + "\n"
    unit = HEADERS + body
    results = {}
    sites = []
    for c in cases:
        site = function_by_name(unit, "cpp", c.name)
        res = rewrite(site, c.rules)
        results[c.name] = res
        sites.append((site, res.code))
    new_unit = unit
    for site, code in sorted(sites, key=lambda sc: sc[0].start_byte, reverse=True):
        new_unit = splice(site.__class__(**{**site.__dict__, "unit_text": new_unit}), code)
    return new_unit[len(HEADERS):], results


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict[str, object], dict[str, str]]:
    opt_body, results = _rewritten(POSITIVE)
    orig_body = "\n".join(c.code for c in POSITIVE) + "\n"
    program = (HEADERS + "namespace orig {\n" + orig_body + "}\nnamespace opt {\n" + opt_body +
               "}\n" + DRIVER_PRELUDE + "int main() {\n" +
               "\n".join(c.driver for c in POSITIVE) + "\n    return failures ? 1 : 0;\n}\n")
    folder = tmp_path_factory.mktemp("rewrite")
    src = folder / "check.cpp"
    src.write_text(program)
    exe = folder / "check"
    comp = subprocess.run(["g++", "-std=c++17", "-O1", "-fopenmp", "-Wall", "-o", str(exe),
                           str(src)], capture_output=True, text=True, timeout=240)
    assert comp.returncode == 0, comp.stderr + "\n" + program
    run = subprocess.run([str(exe)], capture_output=True, text=True, timeout=60,
                         env={**os.environ, "OMP_NUM_THREADS": "4"})
    status = {}
    for line in run.stdout.splitlines():
        name, word = line.rsplit(" ", 1)
        status[name] = word if status.get(name, "OK") == "OK" else status[name]
    return results, status


@pytest.mark.parametrize("case", POSITIVE, ids=lambda c: c.name)
def test_rule_applies_and_keeps_behaviour(case: Case, built: tuple[dict[str, object], dict[str, str]]) -> None:
    results, status = built
    res = results[case.name]
    assert res.rules == case.expect, (res.code, res.notes)  # type: ignore[attr-defined]
    checks = {k: v for k, v in status.items() if k == case.name or k.startswith(case.name + "-")}
    assert checks, f"driver did not run {case.name}"
    assert set(checks.values()) == {"OK"}, checks


def _site(code: str, name: str, language: str = "cpp"):  # type: ignore[no-untyped-def]
    return function_by_name(HEADERS + code if language == "cpp" else code, language, name)  # type: ignore[arg-type]


NEGATIVE = [
    # (rule, function, name, words expected in the notes or "" when the rule is just absent)
    ("openmp-for", "void pre(double* x, int n) { for (int i = 1; i < n; ++i) x[i] = x[i - 1] + x[i]; }", "pre", "different indices"),
    ("openmp-for", "void stop(double* x, int n) { for (int i = 0; i < n; ++i) { if (x[i] < 0) break; x[i] = 0; } }", "stop", "break"),
    ("openmp-for", "void show(const int* x, int n) { for (int i = 0; i < n; ++i) std::cout << x[i]; }", "show", "input/output"),
    ("openmp-for", "void tiny(double* x) { for (int i = 0; i < 8; ++i) x[i] = 0; }", "tiny", "small constant"),
    # Nothing says y does not point into x: with y == x + 1 parallel iterations change the result.
    # Overlap at a strided index: no run-time test bounds it (a plain x[i] gets one).
    ("openmp-for", "void axpy(double a, const double* x, double* y, int n) { for (int i = 0; i < n; ++i) y[i] = a * x[2 * i] + y[i]; }", "axpy", "overlapping"),
    ("openmp-reduction", "void scan(double* x, double* out, int n) { double s = 0; for (int i = 0; i < n; ++i) { s += x[i]; out[i] = s; } }", "scan", "shared variable 's'"),
    ("openmp-reduction", "void cat(const std::vector<std::string>& v, std::string& out) { for (std::size_t i = 0; i < v.size(); ++i) out += v[i]; }", "cat", ""),
    # A store that can be a NUL (' ' - 32), one beside s[i], or through another pointer that
    # may point into the string, can move the terminator.
    ("hoist-invariant-call", "void up(char* s) { for (std::size_t i = 0; i < strlen(s); ++i) s[i] = s[i] - 32; }", "up", ""),
    ("hoist-invariant-call", "void up2(char* s) { for (std::size_t i = 0; i < strlen(s); ++i) if (s[i] >= ' ') s[i] -= 32; }", "up2", ""),
    ("hoist-invariant-call", "void next(char* s) { for (std::size_t i = 0; i < strlen(s); ++i) s[i + 1] = 'x'; }", "next", ""),
    ("hoist-invariant-call", "void other(char* s, char* t) { for (std::size_t i = 0; i < strlen(s); ++i) t[i] = 'x'; }", "other", ""),
    ("hoist-invariant-call", "void cut(char* s) { for (std::size_t i = 0; i < strlen(s); ++i) { if (s[i] == ',') s[i] = 'x'; else s[i] = 0; } }", "cut", ""),
    ("hoist-invariant-call", "void bump(char* s) { for (std::size_t i = 0; i < strlen(s); ++i) s[i]++; }", "bump", ""),
    ("hoist-invariant-call", "void upto(char* s) { for (std::size_t i = 0; i <= strlen(s); ++i) s[i] = 'x'; }", "upto", ""),
    ("hoist-invariant-call", "void grow(std::vector<int>& v) { for (std::size_t i = 0; i < v.size() && i < 10; ++i) v.push_back(1); }", "grow", ""),
    ("string-concat-loop", "std::string twice(int n) { std::string s = \"a\"; for (int i = 0; i < n; ++i) s = s + \",\" + s; return s; }", "twice", "reads 's'"),
    ("string-concat-loop", "int count(int n) { int x = 0; for (int i = 0; i < n; ++i) x = x + i; return x; }", "count", ""),
    ("string-concat-loop", "std::string wrap(std::string s, int n) { for (int i = 0; i < n; ++i) s = \"<\" + s; return s; }", "wrap", ""),
    ("string-concat-loop", "void grow(std::string& s, std::string (*f)(std::string&)) { for (int i = 0; i < 3; ++i) s = s + f(s); }", "grow", "reads 's'"),
    ("linear-search-in-loop", "int grow(const std::vector<int>& a, std::vector<int>& b) { int k = 0; for (int x : a) { if (std::find(b.begin(), b.end(), x) == b.end()) b.push_back(x); else ++k; } return k; }", "grow", "push_back"),
    ("linear-search-in-loop", "int poke(std::vector<int>& b, const std::vector<int>& a) { int k = 0; for (int x : a) { k += std::find(b.begin(), b.end(), x) != b.end(); b[0] = x; } return k; }", "poke", "may be 'b'"),
    ("linear-search-in-loop", "void bump(int& r); int ref(std::vector<int>& b, const std::vector<int>& a) { int k = 0; for (int x : a) { k += std::find(b.begin(), b.end(), x) != b.end(); bump(b[0]); } return k; }", "ref", "other than through read-only"),
    ("linear-search-in-loop", "int fl(const std::vector<double>& a, const std::vector<double>& b) { int k = 0; for (double x : a) k += std::find(b.begin(), b.end(), x) != b.end(); return k; }", "fl", "not integers or strings"),
    ("linear-search-in-loop", "int wide(const std::vector<long>& a, const std::vector<int>& b) { int k = 0; for (long x : a) k += std::find(b.begin(), b.end(), x) != b.end(); return k; }", "wide", "element type"),
    ("linear-search-in-loop", "int alias(std::vector<int>& a, const std::vector<int>& b) { int k = 0; for (std::size_t i = 0; i < a.size(); ++i) { k += std::find(b.begin(), b.end(), a[i]) != b.end(); a[i] = 0; } return k; }", "alias", "may be 'b'"),
    ("hoist-container", "std::string hx(const std::vector<int>& v) { std::string out; for (int x : v) { std::ostringstream os; if (x > 5) os << std::hex; os << x; out += os.str(); } return out; }", "hx", "formatting"),
    ("hoist-container", "int shadow(const std::vector<int>& v) { int w = 3, s = 0; for (int x : v) { s += w + x; std::vector<int> w(v.begin(), v.end()); s += (int)w.size(); } return s; }", "shadow", "used elsewhere"),
    ("hoist-container", "int G; int global(const std::vector<int>& v) { int s = 0; for (int x : v) { s += G + x; std::vector<int> G(v.begin(), v.end()); s += (int)G.size(); } return s; }", "global", "used elsewhere"),
    ("hoist-container", "int reused(const std::vector<int>& v) { int s = 0; for (int x : v) { std::vector<int> w(v.begin(), v.end()); s += x; } { std::vector<int> w; s += (int)w.size(); } return s; }", "reused", "used elsewhere"),
    ("hoist-container", "int counted(const std::vector<int>& v) { int s = 0; for (int x : v) { std::vector<int> w(x); s += (int)w.size(); } return s; }", "counted", ""),
    ("hoist-container", "int fixed(const std::vector<int>& v) { int s = 0; for (int x : v) { const std::vector<int> w(v.begin(), v.end()); s += w[0] + x; } return s; }", "fixed", ""),
    ("manual-sort", "void fsort(std::vector<double>& v) { for (std::size_t i = 0; i < v.size(); ++i) for (std::size_t j = 0; j + 1 < v.size() - i; ++j) if (v[j] > v[j + 1]) std::swap(v[j], v[j + 1]); }", "fsort", "integers"),
    ("manual-sort", "void short_pass(std::vector<int>& v) { for (std::size_t i = 0; i < 3; ++i) for (std::size_t j = 0; j + 1 < v.size() - i; ++j) if (v[j] > v[j + 1]) std::swap(v[j], v[j + 1]); }", "short_pass", ""),
    ("manual-sort", "void half(std::vector<int>& v) { for (std::size_t i = 0; i < v.size(); ++i) for (std::size_t j = 0; j + 1 < v.size() - i; ++j) if (v[j] > v[j + 1]) v[j] = v[j + 1]; }", "half", ""),
    ("manual-sort", "int counted(std::vector<int>& v) { int k = 0; for (std::size_t i = 0; i < v.size(); ++i) for (std::size_t j = 0; j + 1 < v.size() - i; ++j) if (v[j] > v[j + 1]) { std::swap(v[j], v[j + 1]); ++k; } return k; }", "counted", ""),
    ("vector-front-op", "long it(std::vector<int>& q) { long t = 0; while (!q.empty()) { q.erase(q.begin()); for (int x : q) t += x; } return t; }", "it", "head index cannot follow"),
    ("vector-front-op", "long mid(std::vector<int>& q) { long t = 0; while (!q.empty()) { t += q.front(); q.erase(q.begin() + 1); } return t; }", "mid", ""),
    ("vector-front-op", "void pass(std::vector<int>& q, void (*f)(std::vector<int>&)) { while (!q.empty()) { q.erase(q.begin()); f(q); } }", "pass", "head index cannot follow"),
    ("reserve", "void fill(std::vector<int>& v, int n) { for (int i = 0; i < n; ++i) v.push_back(i); }", "fill", ""),
    ("reserve", "std::vector<int> some(int n) { std::vector<int> v; for (int i = 0; i < n; ++i) { if (i > 3) break; v.push_back(i); } return v; }", "some", ""),
    ("reserve", "std::vector<int> evens(int n) { std::vector<int> v; for (int i = 0; i < n; ++i) if (i % 2 == 0) v.push_back(i); return v; }", "evens", ""),
    ("const-ref-param", "int first(std::vector<int> v) { v[0] = 1; return v[0] + v[1]; }", "first", "assigns"),
    ("const-ref-param", "int low(std::vector<int> v) { std::sort(v.begin(), v.end()); return v[0]; }", "low", "sort"),
    ("const-ref-param", "void both(std::vector<int> v, std::vector<int>& out) { out.push_back(v[0]); }", "both", "alias"),
    ("const-ref-param", "int main() { std::vector<int> v; return 0; }", "main", ""),
    ("endl", "void once(int x) { std::cout << x << std::endl; }", "once", ""),
    ("fast-io", "void io(int n) { for (int i = 0; i < n; ++i) std::cout << i << '\\n'; }", "io", ""),
    ("fast-io", "int main() { int n; std::cin >> n; for (int i = 0; i < n; ++i) { std::cout << i; printf(\"%d\", i); } return 0; }", "main", "C stdio"),
    ("pow-strength", "double root(double x) { return pow(x, 0.5); }", "root", "-0"),
    ("pow-strength", "long double cube(long double x) { return pow(x, 3); }", "cube", "type"),
    ("pow-strength", "double big(double x) { return pow(x, 9); }", "big", ""),
    ("pow-strength", "struct P { double x; }; double sq(P p) { return pow(p.x, 2); }", "sq", "type"),
    ("loop-interchange", "void rows(std::vector<std::vector<double>>& a, int n) { for (int i = 0; i < n; ++i) for (int j = 0; j < n; ++j) a[i][j] = 1; }", "rows", ""),
    ("loop-interchange", "void dep(std::vector<std::vector<double>>& a, int n) { for (int i = 1; i < n; ++i) for (int j = 1; j < n; ++j) a[j][i] = a[j - 1][i] + 1; }", "dep", "cannot be swapped"),
    ("loop-interchange", "void tri(std::vector<std::vector<double>>& a, int n) { for (int i = 0; i < n; ++i) for (int j = 0; j < i; ++j) a[j][i] = 1; }", "tri", ""),
    # s[i + j] is updated by many iterations; the swap would reverse their order
    ("loop-interchange", "void diag(std::vector<long>& s, const std::vector<std::vector<long>>& a, int n, int m) { for (int i = 0; i < n; ++i) for (int j = 0; j < m; ++j) s[i + j] = s[i + j] * 3 + a[j][i]; }", "diag", "cannot tell which iterations write the same element"),
]


@pytest.mark.parametrize(("rule", "code", "name", "words"), NEGATIVE,
                         ids=[f"{r}-{n}" for r, _c, n, _w in NEGATIVE])
def test_rule_left_alone(rule: str, code: str, name: str, words: str) -> None:
    res = rewrite(_site(code, name))
    assert rule not in res.rules, res.code
    if words:
        assert any(words in note for note in res.notes), res.notes


def test_reserve_emits_the_plain_bound() -> None:
    for header in ("for (int i = x.size() - 1; i >= 0; --i)",
                   "for (int i = 0; i <= x.size() - 1; ++i)"):
        code = ("std::vector<int> f(const std::vector<int>& x) { std::vector<int> v; "
                f"{header} v.push_back(x[i]); return v; }}")
        res = rewrite(_site(code, "f"))
        assert "reserve" in res.rules, res.notes
        # counting up, a fresh vector of numbers is sized once (then filled by index)
        sized = "v.resize(x.size());"  # an unsigned size needs no test and no cast
        reserved = "v.reserve(v.size() + x.size());"
        assert (sized if "++i" in header else reserved) in res.code, res.code


def test_untouched_text_is_kept() -> None:
    code = """
double mean(const double* x, int n) {
    /* keep me */  double s = 0;   // and me
    for (int i = 0; i < n; ++i)
        s += x[i];   // sum
    return n ? s / n : 0.0;
}"""
    res = rewrite(_site(code, "mean"))
    assert res.rules == {"openmp-reduction"}
    new_lines = res.code.splitlines()
    pragma = [ln for ln in new_lines if "#pragma" in ln]
    assert pragma == ["    #pragma omp parallel for reduction(+:s)"]
    assert [ln for ln in new_lines if "#pragma" not in ln] == code.strip("\n").splitlines()


def test_hoisted_name_does_not_collide() -> None:
    code = """
int count(const std::vector<int>& v, int v_size) {
    int c = 0;
    for (std::size_t i = 0; i < v.size(); ++i) c += v[i] > v_size;
    return c;
}"""
    res = rewrite(_site(code, "count"), {"hoist-invariant-call"})
    assert "const auto v_size2 = v.size();" in res.code
    assert "i < v_size2;" in res.code


def test_c_function_gets_pragma_and_c_hoist() -> None:
    code = """#include <string.h>
int vowels(const char *s, int *out) {
  int k = 0;
  size_t i;
  for (i = 0; i < strlen(s); i++) out[i] = s[i] == 'a';
  for (i = 0; i < strlen(s); i++) k += out[i];
  return k;
}
"""
    site = function_by_name(code, "c", "vowels")
    res = rewrite(site)
    assert "const size_t s_len = strlen(s);" in res.code
    assert "endl" not in res.rules and "const-ref-param" not in res.rules
    # i is declared outside and used again after the first loop: that loop stays serial;
    # the second (a reduction into k) is parallel
    assert res.code.count("#pragma omp") == 1
    assert "#pragma omp parallel for reduction(+:k)\n  for (i = 0; i < s_len; i++) k" in res.code
    assert any("used after the loop" in n for n in res.notes), res.notes


def test_fast_io_and_endl_keep_program_output(tmp_path: Path) -> None:
    program = HEADERS + """
int main() {
    int n;
    std::cin >> n;
    long total = 0;
    for (int i = 0; i < n; ++i) {
        int x;
        std::cin >> x;
        total += x;
        std::cout << x * 2 << std::endl;
    }
    std::cout << "total " << total << std::endl;
    return 0;
}
"""
    site = function_by_name(program, "cpp", "main")
    res = rewrite(site)
    assert {"fast-io", "endl"} <= res.rules
    assert "std::ios::sync_with_stdio(false);" in res.code
    outputs = []
    for label, text in (("a", program), ("b", splice(site, res.code))):
        src = tmp_path / f"{label}.cpp"
        src.write_text(text)
        exe = tmp_path / label
        subprocess.run(["g++", "-std=c++17", "-O1", "-o", str(exe), str(src)], check=True,
                       timeout=120)
        stdin = "500\n" + " ".join(str(i * 37 % 1001) for i in range(500)) + "\n"
        outputs.append(subprocess.run([str(exe)], input=stdin, capture_output=True, text=True,
                                      timeout=30, check=True).stdout)
    assert outputs[0] == outputs[1]
    assert outputs[0].endswith("total 249500\n") or "total" in outputs[0]


def test_non_ascii_text_and_crlf_are_kept() -> None:
    code = ("void halve(double* __restrict y, const double* __restrict x, int n) {\r\n"
            "    // moitié — ½ of every value\r\n"
            "    for (int i = 0; i < n; ++i) y[i] = x[i] / 2;\r\n"
            "}\r\n")
    res = rewrite(_site(code, "halve"))
    assert res.rules == {"openmp-for"}
    expected = code.replace("    for", "    #pragma omp parallel for\r\n    for")
    assert res.code == expected.rstrip("\r\n")
    assert "assuming y, x do not overlap" in res.applied[0].explanation


def test_rules_name_the_headers_they_need() -> None:
    sort = _site("void up(std::vector<int>& v) { for (std::size_t i = 0; i < v.size(); ++i) "
                 "for (std::size_t j = 0; j < v.size() - i - 1; ++j) if (v[j + 1] < v[j]) "
                 "std::swap(v[j], v[j + 1]); }", "up")
    assert rewrite(sort).includes == ("<algorithm>",)
    desc = _site("void down(int* a, int n) { for (int i = 0; i < n; ++i) for (int j = 0; "
                 "j < n - 1; ++j) if (a[j] < a[j + 1]) std::swap(a[j], a[j + 1]); }", "down")
    res = rewrite(desc)
    assert "std::sort(a, a + n, std::greater<int>())" in res.code
    assert res.includes == ("<algorithm>", "<functional>")
    assert rewrite(_site("int id(int x) { return x; }", "id")).includes == ()
