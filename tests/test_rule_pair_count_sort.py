"""The pair-count-sort rule: a double loop counting the pairs of one signed integer sequence
whose sum compares with a fixed limit becomes a sort and a two-pointer count."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

import perfpilot.rules.counting.pair_count_sort as pcs
from differential_support import (
    HAVE_GXX,
    Variant,
    assert_outputs_differ,
    compare_rewritten,
    finding_rules,
    rewrite_function,
)

RULES = frozenset({"pair-count-sort"})
HEAD = "#include <cstdio>\n#include <vector>\n"


def _rewritten(code: str, name: str = "f") -> tuple[str, frozenset[str]]:
    res = rewrite_function(HEAD + code, RULES, name)
    return res.code, res.rules


def _findings(code: str, name: str = "f") -> list[str]:
    return finding_rules(HEAD + code, name)


def test_a_pair_count_becomes_a_sort_and_two_pointers() -> None:
    code = """
long f(const std::vector<int>& v, int limit) {
    long c = 0;
    for (std::size_t i = 0; i < v.size(); ++i)
        for (std::size_t j = i + 1; j < v.size(); ++j)
            if (v[i] + v[j] < limit) ++c;
    return c;
}
"""
    out, rules = _rewritten(code)
    assert rules == RULES
    assert "std::sort(" in out and "while (lo < hi)" in out and "for (" not in out
    assert "pair-count-sort" in _findings(code)


_OK_LOOP = ("  for (int i = 0; i < n; ++i)\n    for (int j = i + 1; j < n; ++j)\n")


@pytest.mark.parametrize(("code", "why"), [
    ("int f(const double* a, int n, double t) { int c = 0;\n" + _OK_LOOP +
     "      if (a[i] + a[j] < t) ++c;\n  return c; }", "floating elements (NaN, rounding)"),
    ("int f(const unsigned* a, int n, unsigned t) { int c = 0;\n" + _OK_LOOP +
     "      if (a[i] + a[j] < t) ++c;\n  return c; }", "unsigned sums wrap"),
    ("int f(const int* a, int n, unsigned t) { int c = 0;\n" + _OK_LOOP +
     "      if (a[i] + a[j] < t) ++c;\n  return c; }", "a signed sum against an unsigned limit"),
    ("int f(const int* a, int n, int t) { int c = 0, s = 0;\n" + _OK_LOOP +
     "      { if (a[i] + a[j] < t) ++c; s += a[j]; }\n  return c + s; }",
     "the body does something else too"),
    ("int f(const int* a, int n, int t) { int c = 0;\n"
     "  for (int i = 0; i < n; ++i)\n    for (int j = 0; j < n; ++j)\n"
     "      if (a[i] + a[j] < t) ++c;\n  return c; }", "j from 0: pairs with i == j count"),
    ("int f(const int* a, int n, int t) { int c = 0;\n" + _OK_LOOP +
     "      if (a[i] + a[j] < t++) ++c;\n  return c; }", "the limit is written in the loop"),
    ("int f(int* a, int n, int t) { int c = 0;\n" + _OK_LOOP +
     "      if (a[i] + a[j]++ < t) ++c;\n  return c; }", "the sequence is written in the loop"),
    ("int f(const int* a, int n, int m, int t) { int c = 0;\n"
     "  for (int i = 0; i < n; ++i)\n    for (int j = i + 1; j < m; ++j)\n"
     "      if (a[i] + a[j] < t) ++c;\n  return c; }", "different bounds"),
    ("int f(const int* a, int n, int t) { int c = 0;\n" + _OK_LOOP +
     "      if (a[i] + a[j] < t + c) ++c;\n  return c; }", "the counter is read inside"),
    ("int g(int);\nint f(const int* a, int n, int t) { int c = 0;\n" + _OK_LOOP +
     "      if (a[i] + a[j] < g(t)) ++c;\n  return c; }", "a call in the condition"),
    ("int f(const int* a, int n, int t) { int c = 0;\n" + _OK_LOOP +
     "      if (a[i] + a[j] != t) ++c;\n  return c; }", "not an ordering comparison"),
    ("int f(const int* a, const int* b, int n, int t) { int c = 0;\n" + _OK_LOOP +
     "      if (a[i] + b[j] < t) ++c;\n  return c; }", "two sequences"),
    ("int f(const int* a, int n, int t) { int c = 0;\n" + _OK_LOOP +
     "      if (a[i] + a[j] < t) c += 2;\n  return c; }", "adds two"),
    ("int f(const int* a, int n, const int& t) { int c = 0;\n" + _OK_LOOP +
     "      if (a[i] + a[j] < t) ++c;\n  return c; }", "the limit is a reference"),
    ("int f(const int* a, int n, int t, int& c) {\n" + _OK_LOOP +
     "      if (a[i] + a[j] < t) ++c;\n  return c; }", "the counter is a reference parameter"),
    ("int f(const int* a, int n, int t) { int c = 0; int* p = &c;\n" + _OK_LOOP +
     "      if (a[i] + a[j] < t) ++c;\n  return *p; }", "the counter's address is taken"),
    ("int f(const char* a, int n, int t) { int c = 0;\n" + _OK_LOOP +
     "      if (a[i] + a[j] < t) ++c;\n  return c; }", "plain char: signedness unknown"),
    ("int f(const int* a, int n, int t) { int c = 0;\n"
     "  for (int i = 1; i < n; ++i)\n    for (int j = i + 1; j < n; ++j)\n"
     "      if (a[i] + a[j] < t) ++c;\n  return c; }", "the outer loop skips the first element"),
    ("int f(const int* a, int n, int t) { int c = 0;\n"
     "  for (int i = 0; i < n; ++i)\n    for (int j = i + 1; j < n; j += 2)\n"
     "      if (a[i] + a[j] < t) ++c;\n  return c; }", "the inner step is two"),
    ("int f(const int* a, int n, int t) { int c = 0;\n"
     "  for (int i = 0; i < n; ++i)\n    for (int j = 0; j < n; ++j)\n"
     "      if (a[i] + a[j] < t && i != j) ++c;\n  return c; }",
     "i != j tested after the sum: the original computes a[i] + a[i]"),
    ("int f(const int* a, int n, int t) { int c = 0;\n"
     "  for (int i = 0; i < n; ++i)\n    for (int j = 0; j < n; ++j)\n"
     "      if (i != j || a[i] + a[j] < t) ++c;\n  return c; }", "'||', not '&&'"),
    ("int f(const int* a, int n) { int c = 0;\n" + _OK_LOOP +
     "      if (a[i] + a[j] < j) ++c;\n  return c; }", "the limit is the inner counter"),
    ("int f(const int* a, int n) { int c = 0;\n" + _OK_LOOP +
     "      if (i > a[i] + a[j]) ++c;\n  return c; }", "the limit is the outer counter"),
    ("int f(const double* a, int n) { int c = 0;\n" + _OK_LOOP +
     "      if (a[i] == a[j]) ++c;\n  return c; }", "equal floating values (NaN, -0.0)"),
    ("int f(const int* a, int n) { int c = 0;\n" + _OK_LOOP +
     "      if (a[i] == a[j] + 1) ++c;\n  return c; }", "not plain equality"),
    ("int f(const int* a, const int* b, int n) { int c = 0;\n" + _OK_LOOP +
     "      if (a[i] == b[j]) ++c;\n  return c; }", "equality across two sequences"),
])
def test_left_alone(code: str, why: str) -> None:
    _out, rules = _rewritten(code)
    assert "pair-count-sort" not in rules, why
    assert "pair-count-sort" not in _findings(code), why


_OPS = ("<", "<=", ">", ">=")
_MIRROR = {"<": ">", "<=": ">=", ">": "<", ">=": "<="}


def _variant(rnd: random.Random, n: int) -> Variant:
    """One pair count in a random shape, called on random vectors with negative values and
    duplicates, over a range of limits."""
    elem = rnd.choice(("int", "long", "long long", "short", "int64_t"))
    limit_type = rnd.choice(("int", "long", "long long"))
    counter = rnd.choice(("long", "int", "long long", "unsigned", "short", "std::size_t"))
    seq = rnd.choice(("vec", "ptr", "n_vec"))
    op = rnd.choice((*_OPS, "==", "=="))
    s, t = rnd.choice((("i", "j"), ("j", "i")))
    cond = f"a[{s}] + a[{t}] {op} lim"
    if rnd.random() < 0.5:
        cond = f"lim {_MIRROR[op]} a[{s}] + a[{t}]" if op != "==" else f"a[{s}] == a[{t}]"
    elif op == "==":
        cond = f"a[{s}] == a[{t}]"
        if rnd.random() < 0.5:
            elem = rnd.choice(("unsigned", "unsigned char", "char", "std::uint64_t"))
    square = rnd.random() < 0.35
    if square:
        cond = f"{rnd.choice(('i != j', 'j != i'))} && {cond}"
    inc = rnd.choice(("++c;", "c++;", "c += 1;", "{ ++c; }"))
    idx = rnd.choice(("std::size_t", "int", "long"))
    upd_i, upd_j = rnd.choice((("++i", "++j"), ("i++", "j++"), ("i += 1", "j += 1")))
    name = f"pairs{n}"
    if seq == "vec":
        params, call = f"const std::vector<{elem}>& a", "a"
        bound = rnd.choice(("a.size()", "a.size()", "(int)a.size()",
                            "static_cast<long>(a.size())"))
    elif seq == "ptr":
        params, bound, call = f"const {elem}* a, int n", "n", "a.data(), (int)a.size()"
        idx = "int" if idx == "std::size_t" else idx
    else:
        params, bound, call = f"const std::vector<{elem}>& a, std::size_t n", "n", \
            "a, a.size()"
    start = "0" if square else rnd.choice(("i + 1", "1 + i"))
    init = rnd.choice(("0", "3", "-2")) if counter not in ("unsigned", "std::size_t") else "0"
    code = (f"long long {name}({params}, {limit_type} lim) {{\n"
            f"    {counter} c = {init};\n"
            f"    for ({idx} i = 0; i < {bound}; {upd_i})\n"
            f"        for ({idx} j = {start}; j < {bound}; {upd_j})\n"
            f"            if ({cond}) {inc}\n"
            f"    return (long long)c * 7 + 1;\n}}\n")
    span = rnd.choice((3, 10, 1000))
    driver = (f"{{ for (int size = 0; size < 40; size += (size < 6 ? 1 : 7)) {{ "
              f"std::vector<{elem}> a; unsigned x = {n * 31 + 7}u + size; "
              f"for (int k = 0; k < size; ++k) {{ x = x * 1103515245u + 12345u; "
              f"a.push_back(({elem})((int)((x >> 8) % {2 * span + 1}) - {span})); }} "
              f"for (int lim = -{2 * span + 1}; lim <= {2 * span + 1}; "
              f"lim += {max(1, span // 5)}) "
              f"std::printf(\"%lld\\n\", {name}({call}, ({limit_type})lim)); }} }}")
    return Variant(name, code, driver)


def _variants() -> list[Variant]:
    rnd = random.Random(17)
    return [_variant(rnd, n) for n in range(80)]


@pytest.mark.skipif(not HAVE_GXX, reason="needs g++")
def test_generated_variants_keep_results(tmp_path: Path) -> None:
    results = compare_rewritten(_variants(), RULES, tmp_path)
    for res in results.values():
        assert "std::sort(" in res.code, res.code


@pytest.mark.skipif(not HAVE_GXX, reason="needs g++")
@pytest.mark.parametrize(("good", "bad"), [
    (".size() - 1;", ".size() - 2;"),  # the two pointers start one short of the top
    ("2 * (", "("),  # the square counted as the triangle
    (" - 1) / 2", ") / 2"),  # a run of k equal values counted as k * k / 2 pairs
])
def test_the_differential_test_catches_a_wrong_count(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, good: str, bad: str) -> None:
    """The same variants, rewritten with a deliberate mistake, must fail the comparison."""
    real = pcs._replacement

    def wrong(found: pcs.PairCount, names: tuple[str, str, str], indent: str,
              nl: str) -> str:
        return real(found, names, indent, nl).replace(good, bad)

    monkeypatch.setattr(pcs, "_replacement", wrong)
    assert_outputs_differ(_variants(), RULES, tmp_path)
