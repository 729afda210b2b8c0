"""memo-recursion over read-only data: pure recursions of up to three integer arguments plus
const strings / vectors (and scalars) passed on unchanged (edit distance, LCS, subset sums,
grid paths, knapsacks) get a memo per top-level call with the same results, over generated
variants; data written, changed between calls or read from globals, effects, pointers, one
self-call and calls to other functions are left alone."""

from __future__ import annotations

import itertools
import random
import re
from collections.abc import Callable
from pathlib import Path

import pytest

from differential_support import HAVE_GXX, Variant, compare
from perfpilot.code.locate import function_by_name
from perfpilot.optimizing.builtin import rewrite
from perfpilot.planning.builtin import analyze
from perfpilot.progress import JobContext
from perfpilot.runner.measure import verify_and_measure
from perfpilot.runner.values import Tuning
from perfpilot.settings import RunnerSettings

RULES = frozenset({"memo-recursion"})

_SIGNED = ("int", "long", "long long")
_ANY_INT = (*_SIGNED, "unsigned", "std::size_t", "unsigned long")


def _strings(rnd: random.Random, count: int, longest: int) -> list[str]:
    return ["".join(rnd.choice("abc") for _ in range(rnd.randint(0, longest)))
            for _ in range(count)]


def _vec(values: list[int]) -> str:
    return "{" + ", ".join(str(v) for v in values) + "}"


def _order(rnd: random.Random, data: list[str], ints: list[str]) -> list[str]:
    """Parameters in one of three orders: data first, integers first, or interleaved."""
    style = rnd.randint(0, 2)
    if style == 0:
        return data + ints
    if style == 1:
        return ints + data
    out: list[str] = []
    for i in range(max(len(data), len(ints))):
        out += data[i:i + 1] + ints[i:i + 1]
    return out


def _call(order: list[str], values: dict[str, str]) -> str:
    return ", ".join(values[p.split()[-1].lstrip("&")] for p in order)


def _edit_distance(name: str, rnd: random.Random) -> Variant:
    """Backward edit distance over two strings; optionally a by-value substitution cost."""
    it, ret = rnd.choice(_ANY_INT), rnd.choice(("int", "long long"))
    cost = rnd.random() < 0.5
    data = ["const std::string &a", "const std::string& b"] + (["int sub"] if cost else [])
    order = _order(rnd, data, [f"{it} i", f"{it} j"])

    def self_call(i: str, j: str) -> str:
        return f"{name}({_call(order, {'a': 'a', 'b': 'b', 'sub': 'sub', 'i': i, 'j': j})})"
    mn = rnd.choice((
        f"std::min({{{self_call('i - 1', 'j')}, {self_call('i', 'j - 1')}, "
        f"{self_call('i - 1', 'j - 1')}{' + sub - 1' if cost else ''}}}) + 1",
        f"1 + std::min(std::min({self_call('i - 1', 'j')}, {self_call('i', 'j - 1')}), "
        f"{self_call('i - 1', 'j - 1')}{' + sub - 1' if cost else ''})"))
    code = (f"{ret} {name}({', '.join(order)}) {{\n"
            f"    if (i == 0) return ({ret})j;\n    if (j == 0) return ({ret})i;\n"
            f"    if (a[i - 1] == b[j - 1]) return {self_call('i - 1', 'j - 1')};\n"
            f"    return {mn};\n}}\n")
    words = _strings(rnd, 6, 6)
    calls = []
    for x, y in itertools.pairwise(words):
        vals = {"a": f"std::string(\"{x}\")", "b": f"std::string(\"{y}\")", "sub": "2",
                "i": f"({it}){len(x)}", "j": f"({it}){len(y)}"}
        calls.append(f"std::printf(\"%lld\\n\", (long long){name}({_call(order, vals)}));")
    return Variant(name, code, " ".join(calls))


def _lcs(name: str, rnd: random.Random) -> Variant:
    """Longest common subsequence, forward (indices up to the sizes) or backward, over strings
    or vectors."""
    it = rnd.choice(_ANY_INT)
    container = rnd.choice(("const std::string &", "const std::vector<int> &",
                            "const std::vector<long long>& "))
    order = _order(rnd, [f"{container}x", f"{container}y"], [f"{it} i", f"{it} j"])

    def self_call(i: str, j: str) -> str:
        return f"{name}({_call(order, {'x': 'x', 'y': 'y', 'i': i, 'j': j})})"
    if rnd.random() < 0.5:
        body = (f"    if (i >= ({it})x.size() || j >= ({it})y.size()) return 0;\n"
                f"    if (x[i] == y[j]) return 1 + {self_call('i + 1', 'j + 1')};\n"
                f"    return std::max({self_call('i + 1', 'j')}, {self_call('i', 'j + 1')});\n")
        start = ("0", "0")
    else:
        body = (f"    if (i == 0 || j == 0) return 0;\n"
                f"    if (x[i - 1] == y[j - 1]) return {self_call('i - 1', 'j - 1')} + 1;\n"
                f"    const int l = {self_call('i - 1', 'j')};\n"
                f"    const int r = {self_call('i', 'j - 1')};\n"
                "    return l > r ? l : r;\n")
        start = ("x.size()", "y.size()")
    code = f"int {name}({', '.join(order)}) {{\n{body}}}\n"
    words = _strings(rnd, 5, 7)
    calls = []
    ctype = container.replace("const", "").replace("&", "").strip()
    for xs, ys in itertools.pairwise(words):
        def lit(s: str) -> str:
            return f"std::string(\"{s}\")" if "string" in ctype else _vec([ord(c) for c in s])
        args = _call(order, {"x": "x", "y": "y", "i": f"({it}){start[0]}",
                             "j": f"({it}){start[1]}"})
        calls.append(f"{{ const {ctype} x = {lit(xs)}; const {ctype} y = {lit(ys)}; "
                     f"std::printf(\"%d\\n\", {name}({args})); }}")
    return Variant(name, code, " ".join(calls))


def _subset_sum(name: str, rnd: random.Random) -> Variant:
    """Subsets of a vector reaching a target: counted, or only whether one exists."""
    it, tt = rnd.choice(_ANY_INT), rnd.choice(_SIGNED)
    order = _order(rnd, ["const std::vector<int> &v"], [f"{it} i", f"{tt} t"])

    def self_call(i: str, t: str) -> str:
        return f"{name}({_call(order, {'v': 'v', 'i': i, 't': t})})"
    if rnd.random() < 0.5:
        ret = "long long"
        last = f"{self_call('i - 1', 't')} + {self_call('i - 1', 't - v[i - 1]')}"
    else:
        ret = "bool"
        last = f"{self_call('i - 1', 't')} || {self_call('i - 1', 't - v[i - 1]')}"
    code = (f"{ret} {name}({', '.join(order)}) {{\n"
            "    if (t == 0) return 1;\n    if (i == 0 || t < 0) return 0;\n"
            f"    return {last};\n}}\n")
    calls = []
    for _ in range(3):
        vals = [rnd.randint(1, 9) for _ in range(rnd.randint(0, 14))]
        target = rnd.randint(0, 30)
        args = _call(order, {"v": "v", "i": f"({it})v.size()", "t": f"({tt}){target}"})
        calls.append(f"{{ const std::vector<int> v = {_vec(vals)}; "
                     f"std::printf(\"%lld\\n\", (long long){name}({args})); }}")
    return Variant(name, code, " ".join(calls))


def _grid_paths(name: str, rnd: random.Random) -> Variant:
    """Monotone paths through a grid of free (0) and blocked cells, backward or forward."""
    it = rnd.choice(_SIGNED)
    order = _order(rnd, ["const std::vector<std::vector<int>> &g"], [f"{it} r", f"{it} c"])

    def self_call(r: str, c: str) -> str:
        return f"{name}({_call(order, {'g': 'g', 'r': r, 'c': c})})"
    if rnd.random() < 0.5:
        body = ("    if (r < 0 || c < 0 || g[r][c] != 0) return 0;\n"
                "    if (r == 0 && c == 0) return 1;\n"
                f"    return {self_call('r - 1', 'c')} + {self_call('r', 'c - 1')};\n")
        start = ("g.size() - 1", "g[0].size() - 1")
    else:
        body = (f"    if (r >= ({it})g.size() || c >= ({it})g[r].size() || g[r][c]) return 0;\n"
                f"    if (r + 1 == ({it})g.size() && c + 1 == ({it})g[0].size()) return 1;\n"
                f"    return {self_call('r + 1', 'c')} + {self_call('r', 'c + 1')};\n")
        start = ("0", "0")
    code = f"long long {name}({', '.join(order)}) {{\n{body}}}\n"
    calls = []
    for _ in range(2):
        rows, cols = rnd.randint(1, 8), rnd.randint(1, 8)
        grid = [[int(rnd.random() < 0.15) for _ in range(cols)] for _ in range(rows)]
        lit = "{" + ", ".join(_vec(row) for row in grid) + "}"
        args = _call(order, {"g": "g", "r": f"({it})({start[0]})", "c": f"({it})({start[1]})"})
        calls.append(f"{{ const std::vector<std::vector<int>> g = {lit}; "
                     f"std::printf(\"%lld\\n\", {name}({args})); }}")
    return Variant(name, code, " ".join(calls))


def _knapsack(name: str, rnd: random.Random) -> Variant:
    """0/1 knapsack over two vectors (weights and values), integer or floating values."""
    it, wt = rnd.choice(("std::size_t", "int", "unsigned")), rnd.choice(_SIGNED)
    vt = rnd.choice(("long", "double", "int"))
    order = _order(rnd, ["const std::vector<int> &w", f"const std::vector<{vt}> &val"],
                   [f"{it} i", f"{wt} cap"])

    def self_call(i: str, c: str) -> str:
        return f"{name}({_call(order, {'w': 'w', 'val': 'val', 'i': i, 'cap': c})})"
    code = (f"{vt} {name}({', '.join(order)}) {{\n"
            f"    if (i >= ({it})w.size() || cap <= 0) return 0;\n"
            f"    {vt} skip = {self_call('i + 1', 'cap')};\n"
            "    if (w[i] > cap) return skip;\n"
            f"    {vt} take = val[i] + {self_call('i + 1', 'cap - w[i]')};\n"
            "    return take > skip ? take : skip;\n}\n")
    fmt, cast = ("%.17g", "(double)") if vt == "double" else ("%lld", "(long long)")
    calls = []
    for _ in range(3):
        n = rnd.randint(0, 16)
        ws = [rnd.randint(1, 9) for _ in range(n)]
        vs = [rnd.randint(1, 20) for _ in range(n)]
        vlit = "{" + ", ".join(f"{v}.25" if vt == "double" else str(v) for v in vs) + "}"
        args = _call(order, {"w": "w", "val": "val", "i": f"({it})0",
                             "cap": f"({wt}){rnd.randint(0, 30)}"})
        calls.append(f"{{ const std::vector<int> w = {_vec(ws)}; const std::vector<{vt}> val "
                     f"= {vlit}; std::printf(\"{fmt}\\n\", {cast}{name}({args})); }}")
    return Variant(name, code, " ".join(calls))


def _lcs3(name: str, rnd: random.Random) -> Variant:
    """Longest common subsequence of three strings: three integer keys."""
    it = rnd.choice(_ANY_INT)
    order = _order(rnd, ["const std::string &a", "const std::string &b", "const std::string &c"],
                   [f"{it} i", f"{it} j", f"{it} k"])

    def self_call(i: str, j: str, k: str) -> str:
        return f"{name}({_call(order, {'a': 'a', 'b': 'b', 'c': 'c', 'i': i, 'j': j, 'k': k})})"
    code = (f"int {name}({', '.join(order)}) {{\n"
            "    if (i == 0 || j == 0 || k == 0) return 0;\n"
            "    if (a[i - 1] == b[j - 1] && b[j - 1] == c[k - 1])\n"
            f"        return 1 + {self_call('i - 1', 'j - 1', 'k - 1')};\n"
            f"    return std::max({{{self_call('i - 1', 'j', 'k')}, "
            f"{self_call('i', 'j - 1', 'k')}, {self_call('i', 'j', 'k - 1')}}});\n}}\n")
    words = _strings(rnd, 4, 4)
    calls = []
    for x, y, z in zip(words, words[1:], words[2:], strict=False):
        vals = {"a": f"std::string(\"{x}\")", "b": f"std::string(\"{y}\")",
                "c": f"std::string(\"{z}\")", "i": f"({it}){len(x)}", "j": f"({it}){len(y)}",
                "k": f"({it}){len(z)}"}
        calls.append(f"std::printf(\"%d\\n\", {name}({_call(order, vals)}));")
    return Variant(name, code, " ".join(calls))


_KINDS: tuple[Callable[[str, random.Random], Variant], ...] = (
    _edit_distance, _lcs, _subset_sum, _grid_paths, _knapsack, _lcs3)


def _variants(count: int, seed: int) -> list[Variant]:
    rnd = random.Random(seed)
    return [_KINDS[i % len(_KINDS)](f"d{i}", rnd) for i in range(count)]


@pytest.mark.skipif(not HAVE_GXX, reason="needs g++")
def test_generated_variants_keep_results(tmp_path: Path) -> None:
    variants = _variants(36, seed=7)
    variants.append(Variant("ufib", """
unsigned long long ufib(unsigned n) {
    if (n < 2) return n;
    return ufib(n - 1) + ufib(n - 2);
}
""", "for (unsigned i = 0; i <= 30; ++i) std::printf(\"%llu\\n\", ufib(i));"))
    variants.append(Variant("swaps", """
int swaps(int a, int b, int c) {
    if (a < 2) return b + 2 * c;
    return swaps(a - 1, b, c) + swaps(a - 2, c, b);
}
""", "for (int i = -1; i <= 24; ++i) std::printf(\"%d\\n\", swaps(i, i % 3, 5));"))
    variants.append(Variant("coins", """
#define NO_WAY 1000000
int coins(const std::vector<int> &c, std::size_t i, int amount, int limit) {
    if (amount == 0) return 0;
    if (i == c.size() || amount < 0 || c.empty()) return NO_WAY;
    const int take = 1 + coins(c, i, amount - c[i], limit);
    const int skip = coins(c, i + 1, amount, limit);
    return std::min(std::min(take, skip), limit);
}
""", "{ const std::vector<int> c = {1, 3, 4, 7}; for (int a = 0; a <= 24; ++a) "
       "std::printf(\"%d\\n\", coins(c, 0, a, 99)); }"))
    results = compare(variants, RULES, tmp_path)
    missed = [name for name, res in results.items() if "memo-recursion" not in res.rules]
    assert not missed, [results[m].notes for m in missed]
    for name, res in results.items():
        if name == "ufib":
            # one unsigned argument with constant base cases: the loop an engineer writes
            assert "rolling window" in res.applied[0].explanation
            assert re.search(r"for \(unsigned (\w+) = 2; \1 <= n; \+\+\1\)", res.code), res.code
            continue
        assert "that each top-level call creates for itself" in res.applied[0].explanation, name
        assert "<map>" in res.includes


def _result(code: str, name: str = "f") -> tuple[frozenset[str], tuple[str, ...]]:
    src = "#include <cstdio>\n#include <string>\n#include <vector>\n#include <algorithm>\n"
    res = rewrite(function_by_name(src + code, "cpp", name), RULES)
    return res.rules, res.notes


ED = """
int f(const std::string &a, const std::string &b, int i, int j) {
    if (i == 0 || j == 0) return i + j;
    if (a[i - 1] == b[j - 1]) return f(a, b, i - 1, j - 1);
    return 1 + std::min(f(a, b, i - 1, j), f(a, b, i, j - 1));
}"""

LEFT = {
    "non-const-reference": ED.replace("const std::string &a", "std::string &a"),
    "by-value-copy": ED.replace("const std::string &a", "std::string a"),
    "swapped-data": ED.replace("f(a, b, i, j - 1)", "f(b, a, j - 1, i)"),
    "other-data": ED.replace("f(a, b, i, j - 1)", "f(b, b, i, j - 1)"),
    "pointer-param": """
int f(const int *v, int i, int t) {
    if (t == 0) return 1;
    if (i == 0 || t < 0) return 0;
    return f(v, i - 1, t) + f(v, i - 1, t - v[i - 1]);
}""",
    "writes-data": """
int f(std::vector<int> v, int i, int t) {
    if (t == 0) return 1;
    if (i == 0 || t < 0) return 0;
    v[i - 1] = 0;
    return f(v, i - 1, t) + f(v, i - 1, t - 1);
}""",
    "written-scalar": """
int f(const std::vector<int> &v, int i, double s) {
    if (i == 0) return 1;
    s = s * 2;
    return f(v, i - 1, s) + f(v, i - 2, s) + v[0];
}""",
    "global-read": """
std::vector<int> g;
int f(int i, int t) {
    if (t == 0) return 1;
    if (i == 0 || t < 0) return 0;
    return f(i - 1, t) + f(i - 1, t - g[i - 1]);
}""",
    "global-scalar": """
int seen = 3;
int f(const std::string &a, int i, int j) {
    if (i == 0 || j == 0) return seen;
    return f(a, i - 1, j) + f(a, i, j - 1);
}""",
    "prints": ED.replace("if (i == 0", "std::printf(\"%d\\n\", i);\n    if (i == 0"),
    "single-call": """
int f(const std::string &a, int i) {
    if (i == 0) return 0;
    return (a[i - 1] == 'x') + f(a, i - 1);
}""",
    "calls-other": """
int g(const std::string &s, int i);
int f(const std::string &a, int i, int j) {
    if (i == 0 || j == 0) return g(a, i);
    return f(a, i - 1, j) + f(a, i, j - 1);
}""",
    "data-to-other": """
int g(const std::string &s);
int f(const std::string &a, int i, int j) {
    if (i == 0 || j == 0) return g(a);
    return f(a, i - 1, j) + f(a, i, j - 1);
}""",
    "data-method": """
int f(const std::string &a, int i, int j) {
    if (i == 0 || j == 0) return (int)a.find('x');
    return f(a, i - 1, j) + f(a, i, j - 1);
}""",
    "range-for": """
int f(const std::vector<int> &v, int i, int j) {
    if (i == 0 || j == 0) { int s = 0; for (int x : v) s += x; return s; }
    return f(v, i - 1, j) + f(v, i, j - 1);
}""",
    "reference-local": """
int f(const std::vector<std::vector<int>> &g, int r, int c) {
    if (r == 0 || c == 0) return 1;
    const std::vector<int> &row = g[r];
    return row[c] + f(g, r - 1, c) + f(g, r, c - 1);
}""",
    "static-local": ED.replace("if (i == 0", "static int calls;\n    calls = i;\n    if (i == 0"),
    "shadowed-param": """
int f(const std::vector<int> &v, int i, int k) {
    if (i <= 0) return k;
    { int k = 2; return f(v, i - 1, k) + f(v, i - 2, k); }
}""",
    "four-keys": """
int f(int a, int b, int c, int d) {
    if (a <= 0) return b + c + d;
    return f(a - 1, b + 1, c, d) + f(a - 2, b, c + 1, d - 1);
}""",
    "halving": """
long f(const std::vector<int> &v, int lo, int hi) {
    if (hi - lo <= 1) return lo < hi ? v[lo] : 0;
    return f(v, lo, (lo + hi) / 2) + f(v, (lo + hi) / 2, hi);
}""",
    "lambda": """
int f(const std::string &a, int i, int j) {
    auto g = [&](int x) { return x; };
    if (i == 0 || j == 0) return g(i);
    return f(a, i - 1, j) + f(a, i, j - 1);
}""",
    "float-key": """
double f(const std::vector<double> &v, double x, int i) {
    if (i == 0) return x;
    return f(v, x * 0.5, i - 1) + f(v, x + v[0], i - 1);
}""",
}


@pytest.mark.parametrize("key", sorted(LEFT))
def test_left_alone(key: str) -> None:
    rules, notes = _result(LEFT[key])
    assert "memo-recursion" not in rules, notes


def test_left_with_a_note_on_why() -> None:
    # reported (a global read is no memo table), but the global may change between calls
    _rules, notes = _result(LEFT["global-scalar"])
    assert any("not proved pure" in n for n in notes), notes
    # reported (its calls shrink), proved pure, but one call steps by another key: no overlap
    _rules, notes = _result(STEPS_BY_A_KEY)
    assert any("do not step" in n for n in notes), notes


STEPS_BY_A_KEY = """
int f(const std::vector<int> &v, int i, int t) {
    if (i == 0 || t <= 0) return v[0];
    return f(v, i - 1, t - i) + f(v, i - 1, t);
}"""


def test_halving_is_not_reported_nor_rewritten() -> None:
    # halving never reaches one argument by two paths: no finding, so no note either
    rules, _notes = _result(LEFT["halving"])
    assert "memo-recursion" not in rules
    site = function_by_name("#include <vector>\n" + LEFT["halving"], "cpp", "f")
    assert not [f for f in analyze(site) if f.rule == "memo-recursion"]


def test_c_unsigned_window_is_the_loop_an_engineer_writes() -> None:
    code = "unsigned f(unsigned n) {\n    if (n < 2) return n;\n" \
        "    return f(n - 1) + f(n - 2);\n}\n"
    res = rewrite(function_by_name(code, "c", "f"), RULES)
    assert res.rules == RULES, res.notes
    assert "for (unsigned i = 2; i <= n; ++i) {" in res.code, res.code
    assert "[&]" not in res.code


def test_c_keeps_a_keyed_shape_with_a_note() -> None:
    code = "unsigned f(unsigned n, unsigned k) {\n    if (n < 2 || k < 2) return n + k;\n" \
        "    return f(n - 1, k) + f(n - 2, k - 1);\n}\n"
    res = rewrite(function_by_name(code, "c", "f"), RULES)
    assert "memo-recursion" not in res.rules
    assert any("C has no local helper" in n for n in res.notes), res.notes


def test_rewrite_keeps_the_signature_and_keys_on_the_changing_arguments() -> None:
    src = "#include <string>\n#include <algorithm>\n" + ED
    res = rewrite(function_by_name(src, "cpp", "f"), RULES)
    assert res.rules == RULES
    head = res.code.split("{", 1)[0]
    assert head.strip() == "int f(const std::string &a, const std::string &b, int i, int j)"
    assert "std::map<std::tuple<int, int>, int>" in res.code
    # the helper takes the keys only; the data come from the enclosing call
    assert "solve(i - 1, j - 1)" in res.code
    assert "return Memo{a, b, {}}.solve(i, j);" in res.code
    assert "f(a, b" not in res.code.split("{", 1)[1]


@pytest.mark.parametrize("code", [ED, ED.replace("i - 1, j - 1)", "i + 1, j + 1)")
                                  .replace("(a, b, i - 1, j)", "(a, b, i + 1, j)")
                                  .replace("(a, b, i, j - 1)", "(a, b, i, j + 1)")])
def test_reported(code: str) -> None:
    site = function_by_name("#include <string>\n#include <algorithm>\n" + code, "cpp", "f")
    assert [f for f in analyze(site) if f.rule == "memo-recursion"]


@pytest.mark.parametrize("key", ["non-const-reference", "prints", "single-call"])
def test_not_reported(key: str) -> None:
    site = function_by_name("#include <cstdio>\n#include <string>\n#include <algorithm>\n"
                            + LEFT[key], "cpp", "f", check_errors=False)
    assert not [f for f in analyze(site) if f.rule == "memo-recursion"]


LCS_UNIT = """\
#include <algorithm>
#include <string>

// Longest common subsequence of the first n characters of a and the first m of b.
int lcs(const std::string& a, const std::string& b, int n, int m) {
  if (n <= 0 || m <= 0) return 0;
  if (a[n - 1] == b[m - 1]) return 1 + lcs(a, b, n - 1, m - 1);
  return std::max(lcs(a, b, n - 1, m), lcs(a, b, n, m - 1));
}
"""


@pytest.mark.skipif(not HAVE_GXX, reason="needs g++")
async def test_runner_feeds_strings_and_measures_the_memo() -> None:
    # The generated bench builds the strings and sizes itself (n, m are sizes), validates the
    # rewrite against the original and times both; the memo is polynomial, the original not,
    # so sizes stay small (at 16 the original's calls outlast the timing budget).
    site = function_by_name(LCS_UNIT, "cpp", "lcs")
    res = rewrite(site, RULES)
    assert res.rules == RULES
    tuning = Tuning(target_sample_s=0.002, edge_sizes=(0, 1, 2, 7), budget_s=10.0,
                    noisy_retries=2, max_pairs_factor=6, profiles=(0, 1), seeds_per_profile=1,
                    mutants=False, coverage=False, min_size=8, max_size=12)
    settings = RunnerSettings(pairs=16, callgrind=False, run_timeout_s=30.0,
                              build_timeout_s=60.0)
    v = await verify_and_measure(site, res.code, settings, JobContext(), tuning=tuning,
                                 includes=res.includes, origin="builtin")
    assert v.validation_status == "passed", v.message
    assert v.verdict == "faster", v.message
    assert v.speedup is not None and v.speedup > 1.0
