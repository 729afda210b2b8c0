"""The cross-pair-count and range-count-query rules: per outer value, a count of the elements
of an unchanged integer sequence on one side of it (or between two bounds) becomes a binary
search on a copy sorted once."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

import perfpilot.rules.counting.ordered_count as oc
from differential_support import HAVE_GXX, Variant, compare
from perfpilot.code.locate import function_by_name
from perfpilot.optimizing.builtin import rewrite
from perfpilot.planning.builtin import analyze_site

RULES = frozenset({"cross-pair-count", "range-count-query"})
HEAD = "#include <algorithm>\n#include <cstdio>\n#include <utility>\n#include <vector>\n"


def _rewritten(code: str, name: str = "f") -> tuple[str, frozenset[str]]:
    res = rewrite(function_by_name(HEAD + code, "cpp", name), RULES)
    return res.code, res.rules


def _findings(code: str, name: str = "f") -> list[str]:
    return [f.rule for f in analyze_site(function_by_name(HEAD + code, "cpp", name)).findings]


def test_a_cross_pair_count_becomes_binary_searches() -> None:
    code = """
long f(const std::vector<int>& a, const std::vector<int>& b) {
    long c = 0;
    for (int x : a) for (int y : b) if (x < y) ++c;
    return c;
}
"""
    out, rules = _rewritten(code)
    assert rules == {"cross-pair-count"}
    assert "std::sort(" in out and "std::upper_bound(" in out and "int y : b" not in out
    assert "cross-pair-count" in _findings(code)


def test_a_range_query_with_count_if_becomes_two_bounds() -> None:
    code = """
int f(const std::vector<int>& v, const std::vector<std::pair<int, int>>& qs) {
    int hits = 0;
    for (auto& q : qs)
        hits += std::count_if(v.begin(), v.end(),
                              [&](int x) { return x >= q.first && x <= q.second; });
    return hits;
}
"""
    out, rules = _rewritten(code)
    assert rules == {"range-count-query"}
    assert "count_if" not in out and "std::lower_bound(" in out and "std::upper_bound(" in out
    # the generic linear-search advice steps aside for the count this rule rewrites
    assert "range-count-query" in _findings(code)
    assert "linear-search-in-loop" not in _findings(code)
    equal = code.replace("x >= q.first && x <= q.second", "x == q.first")
    assert "linear-search-in-loop" in _findings(equal)


_VEC = "const std::vector<int>& a, const std::vector<int>& b"


@pytest.mark.parametrize(("code", "why"), [
    ("int f(const std::vector<double>& a, const std::vector<double>& b) { int c = 0;\n"
     "  for (double x : a) for (double y : b) if (x < y) ++c;\n  return c; }",
     "floating elements (NaN)"),
    ("int f(const std::vector<unsigned>& a, const std::vector<int>& b) { int c = 0;\n"
     "  for (unsigned x : a) for (int y : b) if (x < y) ++c;\n  return c; }",
     "signed elements compared with an unsigned value"),
    ("int f(const std::vector<long>& v, int lo, int hi) { int c = 0;\n"
     "  for (int k = 0; k < 3; ++k) c += std::count_if(v.begin(), v.end(),\n"
     "      [&](int x) { return x >= lo && x <= hi; });\n  return c; }",
     "the lambda converts the elements"),
    (f"int f({_VEC}) {{ int c = 0;\n"
     "  for (int x : a) for (int y : b) if (x == y) ++c;\n  return c; }",
     "equality (the nested-membership rule's)"),
    (f"int f({_VEC}) {{ int c = 0;\n"
     "  for (int x : a) for (int y : b) if (y > x && y > 1) ++c;\n  return c; }",
     "two lower bounds"),
    (f"int f({_VEC}) {{ int c = 0;\n"
     "  for (int x : a) for (int y : b) if (y < x || y > 7) ++c;\n  return c; }",
     "a disjunction"),
    (f"int f({_VEC}) {{ int c = 0, s = 0;\n"
     "  for (int x : a) for (int y : b) { if (x < y) ++c; s += y; }\n  return c + s; }",
     "the scan does something else too"),
    ("int f(const std::vector<int>& a, std::vector<int>& b) { int c = 0;\n"
     "  for (int x : a) { b.push_back(x); for (int y : b) if (x < y) ++c; }\n  return c; }",
     "the outer loop changes the sequence"),
    ("void f(const std::vector<int>& a, const std::vector<int>& b, int& c) {\n"
     "  for (int x : a) for (int y : b) if (x < y) ++c; }",
     "the counter is a reference (it may alias what is compared)"),
    (f"int g(int*); int f({_VEC}) {{ int c = 0; g(&c);\n"
     "  for (int x : a) for (int y : b) if (x < y) ++c;\n  return c; }",
     "the counter's address is taken"),
    (f"int f({_VEC}) {{ int c = 0;\n"
     "  for (int x : a) for (int y : b) if (y < x + c) ++c;\n  return c; }",
     "the value compared reads the counter"),
    (f"int h(int); int f({_VEC}) {{ int c = 0;\n"
     "  for (int x : a) for (int y : b) if (y < h(x)) ++c;\n  return c; }",
     "the value compared calls a function"),
    (f"int f({_VEC}) {{ int c = 0;\n"
     "  for (int x : a) { std::vector<int> d(b); for (int y : d) if (x < y) ++c; }\n"
     "  return c; }", "the sequence is made inside the loop"),
    (f"int f({_VEC}) {{ int c = 0;\n"
     "  for (int x : a) for (long y : b) if (x < y) ++c;\n  return c; }",
     "the range-for converts the elements"),
    (f"int f({_VEC}) {{ int c = 0;\n"
     "  for (int x : a) for (std::size_t j = 0; j + 1 < b.size(); ++j) if (x < b[j]) ++c;\n"
     "  return c; }", "not the whole sequence"),
    (f"int f({_VEC}) {{ int c = 0;\n"
     "  for (int y : b) if (y < 3) ++c;\n  return c; }", "no outer loop: nothing to gain"),
    (f"bool f({_VEC}) {{ bool c = false;\n"
     "  for (int x : a) for (int y : b) if (x < y) ++c;\n  return c; }", "a bool counter"),
])
def test_left_alone(code: str, why: str) -> None:
    _, rules = _rewritten(code)
    assert not rules, why
    assert not ({"cross-pair-count", "range-count-query"} & set(_findings(code))), why


def test_two_counts_over_one_sequence_share_one_finding_and_one_copy() -> None:
    code = """
long f(const std::vector<int>& a, const std::vector<int>& b) {
    long lt = 0, gt = 0;
    for (int x : a) {
        lt += std::count_if(b.begin(), b.end(), [&](int y) { return y < x; });
        gt += std::count_if(b.begin(), b.end(), [&](int y) { return y > x; });
    }
    return lt - gt;
}
"""
    assert _findings(code).count("cross-pair-count") == 1
    out, rules = _rewritten(code)
    assert rules == {"cross-pair-count"}
    assert out.count("std::sort(") == 1 and "count_if" not in out, out


_ELEMENTS = ("int", "long", "short", "unsigned", "long long", "signed char", "unsigned short")
_OPS = ("<", "<=", ">", ">=")


def _pair_variant(k: int, rnd: random.Random) -> Variant:
    elem = _ELEMENTS[k % len(_ELEMENTS)]
    unsigned = elem == "unsigned"
    key_t = rnd.choice(("unsigned", "unsigned long") if unsigned else
                       ("int", "long", "short", "long long"))
    op = _OPS[k % 4]
    counter = rnd.choice(("int", "long", "unsigned", "short", "long long", "std::size_t"))
    form = k % 3
    y = "b[j]" if form else "y"
    test = f"x {op} {y}" if (k // 4) % 2 == 0 else f"{y} {op} x"
    step = rnd.choice(("++c", "c++", "c += 1", "--c"))
    name = f"pc{k}"
    start = rnd.choice(("0", "5", "-3")) if counter not in ("unsigned", "std::size_t") else "2"
    if form == 0:
        params = f"const std::vector<{key_t}>& a, const std::vector<{elem}>& b"
        loops = f"for (auto x : a) for (const auto& y : b) if ({test}) {step};"
        call = "a, b"
    elif form == 1:
        params = f"const std::vector<{key_t}>& a, const std::vector<{elem}>& b"
        loops = (f"for (std::size_t i = 0; i < a.size(); ++i) {{ {key_t} x = a[i]; "
                 f"for (std::size_t j = 0; j < b.size(); ++j) {{ if ({test}) {step}; }} }}")
        call = "a, b"
    else:
        params = f"const {key_t}* a, int n, const {elem}* b, int m"
        loops = (f"for (int i = 0; i < n; ++i) {{ {key_t} x = a[i]; "
                 f"for (int j = 0; j < m; ++j) if ({test}) {step}; }}")
        call = "a.data(), (int)a.size(), b.data(), (int)b.size()"
    code = (f"{counter} {name}({params}) {{\n    {counter} c = {start};\n    {loops}\n"
            f"    return c;\n}}\n")
    return Variant(name, code, _driver(name, key_t, elem, call, rnd))


def _driver(name: str, key_t: str, elem: str, call: str, rnd: random.Random) -> str:
    lines = []
    for size_a, size_b in ((0, 3), (4, 0), (1, 1), (7, 9), (13, 30)):
        lo = 0 if "unsigned" in elem else -6
        av = ", ".join(str(rnd.randint(lo, 8)) for _ in range(size_a))
        bv = ", ".join(str(rnd.randint(lo, 8)) for _ in range(size_b))
        lines.append(f"{{ std::vector<{key_t}> a{{{av}}}; std::vector<{elem}> b{{{bv}}}; "
                     f"std::printf(\"%lld\\n\", (long long){name}({call})); }}")
    return " ".join(lines)


def _range_variant(k: int, rnd: random.Random) -> Variant:
    elem = ("int", "long", "short", "unsigned", "long long")[k % 5]
    key_t = "unsigned" if elem == "unsigned" else rnd.choice(("int", "long"))
    lo_op, hi_op = (">=", ">")[k % 2], ("<=", "<")[(k // 2) % 2]
    lo_t = f"x {lo_op} q.first" if rnd.random() < 0.5 else \
        f"q.first {'<=' if lo_op == '>=' else '<'} x"
    hi_t = f"x {hi_op} q.second" if rnd.random() < 0.5 else \
        f"q.second {'>=' if hi_op == '<=' else '>'} x"
    cond = f"{lo_t} && {hi_t}" if (k // 4) % 2 == 0 else f"{hi_t} && {lo_t}"
    name = f"rq{k}"
    params = f"const std::vector<{elem}>& v, const std::vector<std::pair<{key_t}, {key_t}>>& qs"
    if k % 3 == 0:
        body = (f"long hits = 0;\n    for (auto& q : qs) hits += std::count_if(v.begin(), "
                f"v.end(), [&]({elem} x) {{ return {cond}; }});\n    return hits;")
    elif k % 3 == 1:
        body = ("long hits = 0;\n    for (const auto& q : qs) { std::ptrdiff_t n = "
                f"std::count_if(v.begin(), v.end(), [=](const auto& x) {{ return {cond}; }});"
                " hits = hits * 31 + n; }\n    return hits;")
    else:
        body = ("long hits = 0;\n    for (std::size_t k = 0; k < qs.size(); ++k) {\n"
                "        const std::pair<" + key_t + ", " + key_t + "> q = qs[k];\n"
                "        int n = 0;\n"
                f"        for (auto x : v) if ({cond}) ++n;\n"
                "        hits = hits * 31 + n;\n    }\n    return hits;")
    code = f"long {name}({params}) {{\n    {body}\n}}\n"
    lines = []
    for size_v, size_q in ((0, 2), (5, 0), (1, 3), (12, 9), (30, 12)):
        low = 0 if elem == "unsigned" else -5
        vv = ", ".join(str(rnd.randint(low, 9)) for _ in range(size_v))
        qv = ", ".join(f"{{{rnd.randint(low, 9)}, {rnd.randint(low, 9)}}}" for _ in range(size_q))
        lines.append(f"{{ std::vector<{elem}> v{{{vv}}}; std::vector<std::pair<{key_t}, "
                     f"{key_t}>> qs{{{qv}}}; std::printf(\"%ld\\n\", {name}(v, qs)); }}")
    return Variant(name, code, " ".join(lines))


def _variants() -> list[Variant]:
    rnd = random.Random(12)
    return [_pair_variant(k, rnd) for k in range(36)] + \
        [_range_variant(k, rnd) for k in range(24)]


@pytest.mark.skipif(not HAVE_GXX, reason="needs g++")
def test_generated_variants_keep_results(tmp_path: Path) -> None:
    variants = _variants()
    results = compare(variants, RULES, tmp_path)
    done = [n for n, r in results.items() if r.rules]
    assert len(done) == len(variants), sorted(set(results) - set(done))


@pytest.mark.skipif(not HAVE_GXX, reason="needs g++")
@pytest.mark.parametrize(("kind", "good", "bad"), [
    # strict and non-strict mixed up: lower_bound where upper_bound belongs
    ("pc", "std::upper_bound", "std::lower_bound"),
    ("rq", "std::upper_bound", "std::lower_bound"),
    # crossing bounds no longer counted as 0
    ("rq", "std::max<std::ptrdiff_t>(0, ", "("),
])
def test_the_differential_test_catches_a_wrong_count(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, kind: str, good: str, bad: str) -> None:
    real = oc.count_text

    def wrong(c: oc.OrderedCount, s: str) -> str:
        return real(c, s).replace(good, bad)

    monkeypatch.setattr(oc, "count_text", wrong)
    with pytest.raises(AssertionError):
        compare([v for v in _variants() if v.name.startswith(kind)], RULES, tmp_path)
