"""memo-recursion: pure recursions over one or two integers, calling themselves on smaller
arguments, become a rolling-window loop or a memo table with the same results, over generated
variants (base cases, windows, result types, constants); functions with effects, recursion over
pointers and single-call recursion are left alone. (Unsigned and three-integer recursions, and
those over read-only data, get a per-call memo: test_rule_memo_recursion_data.py.)"""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from differential_support import HAVE_GXX, Variant, compare
from perfpilot.code.locate import function_by_name
from perfpilot.optimizing.builtin import rewrite
from perfpilot.planning.builtin import analyze

RULES = frozenset({"memo-recursion"})

_RET = ("int", "long long", "double", "long")
_PARAM = ("int", "long", "long long")


def _window_variant(name: str, rnd: random.Random) -> Variant:
    """One argument, calls at n - 1 .. n - k: base cases of several shapes."""
    k = rnd.randint(2, 4)
    ret, pt, n = rnd.choice(_RET), rnd.choice(_PARAM), rnd.choice(("n", "m", "x"))
    weights = [rnd.choice(("", "2 * ", "3 * ")) for _ in range(k)]
    terms = " + ".join(f"{w}{name}({n} - {c})" for w, c in zip(weights, range(1, k + 1),
                                                                strict=True))
    extra = rnd.choice(("", f" + {n}", " - 1", " % 1000003"))
    if extra == " % 1000003" and ret == "double":
        extra = " * 0.5"
    recur = f"({terms}){extra}"
    style = rnd.randint(0, 2)
    if style == 0:  # one guard covering every small or negative argument
        guards = f"    if ({n} < {k}) return {n} + 1;\n"
        lo = -5
    elif style == 1:  # separate equalities: negative arguments never end, so not driven
        guards = "".join(f"    if ({n} == {j}) return {j * 2 + 1};\n" for j in range(k))
        lo = 0
    else:  # two guards, one of them only for negative values
        guards = f"    if ({n} < 0) return 0;\n    if ({n} <= {k - 1}) return {n} * {n};\n"
        lo = -4
    code = f"{ret} {name}({pt} {n}) {{\n{guards}    return {recur};\n}}\n"
    hi = 20
    fmt = "%.17g" if ret == "double" else "%lld"
    cast = "" if ret == "double" else "(long long)"
    driver = (f"for (int i = {lo}; i <= {hi}; ++i) "
              f"std::printf(\"{fmt}\\n\", {cast}{name}(i));")
    return Variant(name, code, driver)


_TWO_ARG = (
    # binomial coefficients
    ("{r} {f}({p} n, {p} k) {{\n    if (k < 0 || k > n) return 0;\n"
     "    if (k == 0 || k == n) return 1;\n    return {f}(n - 1, k - 1) + {f}(n - 1, k);\n}}\n",
     "for (int a = -2; a <= 22; ++a) for (int b = -2; b <= a + 2; ++b) "
     "std::printf(\"{fmt}\\n\", {cast}{f}(a, b));"),
    # lattice paths in a grid
    ("{r} {f}({p} r, {p} c) {{\n    if (r <= 0 || c <= 0) return 1;\n"
     "    return {f}(r - 1, c) + {f}(r, c - 1);\n}}\n",
     "for (int a = -1; a <= 12; ++a) for (int b = -1; b <= 12; ++b) "
     "std::printf(\"{fmt}\\n\", {cast}{f}(a, b));"),
    # partitions of n into parts of size at most k
    ("{r} {f}({p} n, {p} k) {{\n    if (n == 0) return 1;\n    if (n < 0 || k <= 0) return 0;\n"
     "    return {f}(n - k, k) + {f}(n, k - 1);\n}}\n",
     "for (int a = -1; a <= 40; ++a) for (int b = 0; b <= 12; ++b) "
     "std::printf(\"{fmt}\\n\", {cast}{f}(a, b));"),
    # one argument with a gap in its calls: a memo table, not a window
    ("{r} {f}({p} n, {p} k) {{\n    if (n <= 1) return k;\n"
     "    return {f}(n - 1, k) + {f}(n - 3, k) % 7;\n}}\n",
     "for (int a = -3; a <= 30; ++a) std::printf(\"{fmt}\\n\", {cast}{f}(a, 2));"),
)


def _variants(count: int, seed: int) -> list[Variant]:
    rnd = random.Random(seed)
    out: list[Variant] = []
    for i in range(count):
        name = f"w{i}"
        if i % 2 == 0:
            out.append(_window_variant(name, rnd))
            continue
        tpl, drv = _TWO_ARG[(i // 2) % len(_TWO_ARG)]
        ret = rnd.choice(("long long", "double")) if "% 7" not in tpl else "long long"
        fmt, cast = ("%.17g", "") if ret == "double" else ("%lld", "(long long)")
        out.append(Variant(name, tpl.format(r=ret, f=name, p=rnd.choice(_PARAM)),
                           drv.format(f=name, fmt=fmt, cast=cast)))
    return out


@pytest.mark.skipif(not HAVE_GXX, reason="needs g++")
def test_generated_variants_keep_results(tmp_path: Path) -> None:
    variants = _variants(24, seed=11)
    variants.append(Variant("modfib", """
const long long MOD = 1000000007LL;
long long modfib(int n) {
    if (n <= 1) return 1;
    long long a = modfib(n - 1);
    return (a + modfib(n - 2)) % MOD;
}
""", "for (int i = -2; i <= 24; ++i) std::printf(\"%lld\\n\", modfib(i));"))
    variants.append(Variant("halves", """
double halves(int n) {
    if (n <= 0) return 1.0;
    return std::sqrt(halves(n - 1)) * 0.5 + halves(n - 2) / 3.0;
}
""", "for (int i = -2; i <= 24; ++i) std::printf(\"%.17g\\n\", halves(i));"))
    results = compare(variants, RULES, tmp_path)
    missed = [name for name, res in results.items() if "memo-recursion" not in res.rules]
    assert not missed, [results[m].notes for m in missed]
    windows = [n for n, r in results.items() if "rolling window" in r.applied[0].explanation]
    tables = [n for n, r in results.items() if "memo table" in r.applied[0].explanation]
    assert len(windows) >= 12 and len(tables) >= 10, (windows, tables)


@pytest.mark.skipif(not HAVE_GXX, reason="needs g++")
def test_c_window_keeps_results(tmp_path: Path) -> None:
    # the rolling window is plain C; built here as C++ like every differential program
    rnd = random.Random(5)
    variants = [_window_variant(f"c{i}", rnd) for i in range(6)]
    for v in variants:
        site = function_by_name(v.code, "c", v.name)
        assert "memo-recursion" in rewrite(site, RULES).rules
    compare(variants, RULES, tmp_path)


def _result(code: str, name: str, language: str = "cpp") -> tuple[frozenset[str], tuple[str, ...]]:
    src = "#include <cstdio>\n#include <cmath>\n" if language == "cpp" else "#include <stdio.h>\n"
    res = rewrite(function_by_name(src + code, language, name), RULES)  # type: ignore[arg-type]
    return res.rules, res.notes


LEFT = {
    "prints": """
int fib(int n) {
    printf("%d\\n", n);
    if (n < 2) return n;
    return fib(n - 1) + fib(n - 2);
}""",
    "counts-calls": """
int calls = 0;
int fib(int n) {
    calls++;
    if (n < 2) return n;
    return fib(n - 1) + fib(n - 2);
}""",
    "reads-global": """
int base = 1;
int fib(int n) {
    if (n < 2) return base;
    return fib(n - 1) + fib(n - 2);
}""",
    "static-local": """
int fib(int n) {
    static int seen;
    seen = n;
    if (n < 2) return n;
    return fib(n - 1) + fib(n - 2);
}""",
    "tree": """
struct Node { Node *left, *right; int v; };
int fib(Node *t) {
    if (!t) return 0;
    return t->v + fib(t->left) + fib(t->right);
}""",
    "reference-param": """
int fib(const int &n) {
    if (n < 2) return n;
    return fib(n - 1) + fib(n - 2);
}""",
    "single-call": """
long long fib(int n) {
    if (n <= 1) return 1;
    return n * fib(n - 1);
}""",
    "void": """
void fib(int n) {
    if (n < 2) return;
    fib(n - 1);
    fib(n - 2);
}""",
    "already-memo": """
long long memo[100];
long long fib(int n) {
    if (n < 2) return n;
    if (memo[n]) return memo[n];
    return memo[n] = fib(n - 1) + fib(n - 2);
}""",
    "calls-other": """
int g(int);
int fib(int n) {
    if (n < 2) return g(n);
    return fib(n - 1) + fib(n - 2);
}""",
}


@pytest.mark.parametrize("key", sorted(LEFT))
def test_left_alone(key: str) -> None:
    rules, _notes = _result(LEFT[key], "fib")
    assert "memo-recursion" not in rules


@pytest.mark.parametrize("key", ["prints", "counts-calls", "tree", "single-call", "void"])
def test_not_reported(key: str) -> None:
    site = function_by_name("#include <cstdio>\n" + LEFT[key], "cpp", "fib", check_errors=False)
    assert not [f for f in analyze(site) if f.rule == "memo-recursion"]


def test_c_table_shape_is_left_with_a_note() -> None:
    rules, notes = _result("""
long long f(int n, int k) {
    if (k <= 0 || k >= n) return 1;
    return f(n - 1, k - 1) + f(n - 1, k);
}""", "f", "c")
    assert "memo-recursion" not in rules
    assert any("C has no local helper" in n for n in notes), notes
