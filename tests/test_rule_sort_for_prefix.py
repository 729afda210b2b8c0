"""sort-for-prefix: a local container sorted whole and then cut to a prefix (``resize``,
``erase`` of the tail) gets ``std::partial_sort`` of the prefix kept. Generated variants
(vectors and deques of integers and strings, by-value parameters and local copies, both
orders, cuts past the size and negative ones that throw, statements between the sort and the
cut, sorts in loops) are built and run both ways; containers the caller sees, other uses
before the cut, other comparators and floating elements are left alone."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from differential_support import (
    HAVE_GXX,
    Variant,
    assert_outputs_differ,
    compare_rewritten,
    finding_rules,
    rewrite_function,
)
from perfpilot.rules.sorting import sort_for_prefix as sfp

RULE = "sort-for-prefix"
RULES = frozenset({RULE})
_PRELUDE = ("#include <algorithm>\n#include <deque>\n#include <functional>\n#include <string>\n"
            "#include <vector>\n")
_TYPES = ("int", "long long", "unsigned", "short", "char", "std::string")


def _sort(rnd: random.Random, t: str) -> str:
    return rnd.choice(("std::sort(v.begin(), v.end());", "std::stable_sort(v.begin(), v.end());",
                       "std::sort(v.begin(), v.end(), std::less<>());",
                       "std::sort(v.begin(), v.end(), std::greater<>());",
                       f"std::sort(v.begin(), v.end(), std::greater<{t}>());"))


def _cut(rnd: random.Random, t: str) -> tuple[list[str], str]:
    """Statements before the sort (guards, sizes) and the cut."""
    fill = '"z"' if t == "std::string" else "7"
    shape = rnd.randrange(10)
    if shape == 0:
        return [], "v.resize(k);"
    if shape == 1:
        return [], f"v.resize(k, {fill});"
    if shape == 2:
        return [], rnd.choice(("v.resize(v.size() / 2);", "v.resize(v.size() - 1);",
                               "v.resize(3);", "v.resize(v.size() >> 1);"))
    if shape == 3:
        return ["const int n = static_cast<int>(v.size());"], \
            rnd.choice(("v.resize(n - k);", "v.resize(n / 3 + 1);", "v.resize(k + 1);"))
    if shape == 4:
        return ["if (k < 0 || k > (int)v.size()) return v;"], \
            rnd.choice(("v.erase(v.begin() + k, v.end());",
                        "v.erase(std::begin(v) + k, std::end(v));",
                        "v.erase(v.begin() + k, v.cend());"))
    if shape == 5:
        return [], "v.erase(v.begin() + v.size() / 2, v.end());"
    if shape == 6:
        return ["if (v.size() < 2) return v;"], "v.erase(v.begin() + 2, v.end());"
    if shape == 7:
        return ["int n = v.size();"], "v.resize(n * 2 - k);"
    if shape == 8:  # a guarded cut: skipped when k, as the test converts it, is past the size
        return [], rnd.choice(("if (v.size() > k) v.resize(k);",
                               "if (k < v.size()) { v.resize(k); }",
                               "if (v.size() >= k + 1) v.resize(k + 1);"))
    return [], rnd.choice(("if (k < v.size()) v.erase(v.begin() + k, v.end());",
                           "if (v.size() > k) { v.erase(v.begin() + k, v.end()); }",
                           "if (k <= v.size()) v.erase(v.begin() + k, v.end());"))


def _variant(rnd: random.Random, name: str) -> Variant:
    t = rnd.choice(_TYPES)
    box = rnd.choice(("std::vector", "std::deque"))
    cont = f"{box}<{t}>"
    form = rnd.randrange(3)
    if form == 0:
        head, pre = f"{cont} {name}({cont} v, int k) {{", []
    else:
        head = f"{cont} {name}(const {cont}& in, int k) {{"
        pre = [("auto v = in;", f"{cont} v(in.begin(), in.end());")[form - 1]]
    before, cut = _cut(rnd, t)
    between = rnd.choice(([], ["int unused = k * 2; (void)unused;"],
                          ["int z = 3; z += 1; (void)z;"]))
    after = rnd.choice(([], ["if (!v.empty()) v.push_back(v.front());"],
                        ["std::reverse(v.begin(), v.end());"]))
    body = [*pre, *before, _sort(rnd, t), *between, cut, *after, "return v;"]
    code = "\n".join([head, *(f"    {s}" for s in body), "}"]) + "\n"
    make = "std::to_string((i * 37 + m * 11) % 9 - 3)" if t == "std::string" else \
        f"({t})((i * 37 + m * 11) % 9 - 3)"
    show = "std::printf(\"%s,\", x.c_str());" if t == "std::string" else \
        "std::printf(\"%lld,\", (long long)x);"
    driver = (f"const int sizes[] = {{0, 1, 2, 3, 4, 5, 7, 8, 9, 16, 33}}; "
              f"for (int m : sizes) {{ {cont} v; for (int i = 0; i < m; ++i) "
              f"v.push_back({make}); "
              "for (int k : {-1, 0, 1, 2, m / 2, m - 1, m, m + 3}) { "
              f"try {{ auto r = {name}(v, k); for (const auto& x : r) {show} }} "
              "catch (const std::length_error&) { std::printf(\"LE\"); } "
              "std::printf(\"|\"); } std::printf(\"\\n\"); }")
    return Variant(name, code, driver)


def _loop_variant(rnd: random.Random, name: str) -> Variant:
    """The sort inside a loop, the container declared afresh in each iteration."""
    t = rnd.choice(("int", "unsigned", "std::string"))
    show = "r += x + \",\";" if t == "std::string" else "r += std::to_string(x) + \",\";"
    code = (f"std::string {name}(const std::vector<{t}>& in) {{\n    std::string r;\n"
            f"    for (int q = 0; q < 4; ++q) {{\n        std::vector<{t}> v = in;\n"
            f"        {_sort(rnd, t)}\n        v.resize(q);\n"
            f"        for (const auto& x : v) {show}\n        r += \"|\";\n    }}\n"
            "    return r;\n}\n")
    make = "std::to_string((i * 37 + m * 11) % 9 - 3)" if t == "std::string" else \
        f"({t})((i * 37 + m * 11) % 9 - 3)"
    driver = (f"for (int m : {{0, 1, 3, 6, 11}}) {{ std::vector<{t}> v; "
              f"for (int i = 0; i < m; ++i) v.push_back({make}); "
              f"std::printf(\"%s\\n\", {name}(v).c_str()); }}")
    return Variant(name, code, driver)


def _variants(count: int = 64, seed: int = 15) -> list[Variant]:
    rnd = random.Random(seed)
    out = [_variant(rnd, f"cut{k}") for k in range(count)]
    out += [_loop_variant(rnd, f"cutloop{k}") for k in range(4)]
    first = out[0]
    out[0] = Variant(first.name, "#include <deque>\n#include <functional>\n"
                     "#include <stdexcept>\n" + first.code, first.driver)
    return out


@pytest.mark.skipif(not HAVE_GXX, reason="needs g++")
def test_generated_variants_keep_results(tmp_path: Path) -> None:
    results = compare_rewritten(_variants(), RULES, tmp_path)
    for res in results.values():
        assert "std::partial_sort(" in res.code and "std::sort(" not in res.code, res.code


@pytest.mark.skipif(not HAVE_GXX, reason="needs g++")
@pytest.mark.parametrize("wrong", ["clamped low", "half the prefix"])
def test_the_differential_test_catches_a_wrong_prefix(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, wrong: str) -> None:
    """The same variants, rewritten with a deliberate mistake, must fail the comparison."""
    real = sfp._partial_sort

    def bad(t: sfp.Truncation) -> str:
        out = real(t)
        if wrong == "clamped low":  # a prefix shorter than the one kept, when k is large
            return out.replace(", v.size()), ", ", v.size() / 2 + 1), ")
        return out.replace(f"{t.middle}, ", f"v.begin() + ({t.middle} - v.begin()) / 2, ")

    monkeypatch.setattr(sfp, "_partial_sort", bad)
    assert_outputs_differ(_variants(), RULES, tmp_path)


def _unit(code: str) -> str:
    return _PRELUDE + code


def test_a_top_k_becomes_a_partial_sort() -> None:
    code = ("std::vector<int> f(std::vector<int> v, int k) { "
            "std::sort(v.begin(), v.end(), std::greater<int>()); v.resize(k); return v; }")
    assert RULE in finding_rules(_unit(code))
    res = rewrite_function(_unit(code), RULES)
    assert ("std::partial_sort(v.begin(), v.begin() + std::min<std::size_t>(k, v.size()), "
            "v.end(), std::greater<int>()); v.resize(k); return v;") in res.code, res.code


def test_an_erased_tail_keeps_its_position() -> None:
    code = ("std::vector<std::string> f(std::vector<std::string> v) { "
            "std::sort(v.begin(), v.end()); v.erase(v.begin() + v.size() / 2, v.end()); "
            "return v; }")
    res = rewrite_function(_unit(code), RULES)
    assert "std::partial_sort(v.begin(), v.begin() + (v.size() / 2), v.end());" in res.code


def test_a_guarded_cut_clamps_the_prefix() -> None:
    code = ("std::vector<int> f(std::vector<int> v, long k) { std::sort(v.begin(), v.end()); "
            "if (k < v.size()) v.erase(v.begin() + k, v.end()); return v; }")
    res = rewrite_function(_unit(code), RULES)
    # the partial sort runs whether or not the erase does: a negative k must not reach it
    assert ("std::partial_sort(v.begin(), v.begin() + std::min<std::size_t>(k, v.size()), "
            "v.end());") in res.code, res.code


def test_floating_elements_are_advised_but_kept() -> None:
    code = ("std::vector<double> f(std::vector<double> v) { std::sort(v.begin(), v.end()); "
            "v.resize(3); return v; }")
    assert RULE in finding_rules(_unit(code))
    res = rewrite_function(_unit(code), RULES)
    assert not res.changed and any("floating" in n for n in res.notes), res.notes


_CUT = "v.resize(k); return v; }"
_HEAD = "std::vector<int> f(std::vector<int> v, int k) { "


@pytest.mark.parametrize(("code", "why"), [
    # the caller's container: the caller sees every element
    ("void f(std::vector<int>& v, int k) { std::sort(v.begin(), v.end()); v.resize(k); }",
     "caller"),
    ("std::vector<int> g;\nvoid f(int k) { std::sort(g.begin(), g.end()); g.resize(k); }", ""),
    ("std::vector<int> f(std::vector<int> in, int k) { static std::vector<int> v; v = in; "
     "std::sort(v.begin(), v.end()); " + _CUT, "caller"),
    # the order is read before the cut
    (_HEAD + "std::sort(v.begin(), v.end()); int s = v.back(); v.resize(k); "
     "v.push_back(s); return v; }", ""),
    (_HEAD + "std::sort(v.begin(), v.end()); if (k > 2) { v.resize(k); } return v; }", ""),
    # the position changes between the sort and the cut
    (_HEAD + "std::sort(v.begin(), v.end()); k++; " + _CUT, ""),
    (_HEAD + "int* p = &k; std::sort(v.begin(), v.end()); *p = 1; " + _CUT, ""),
    # a position read from the data, or a call
    (_HEAD + "std::sort(v.begin(), v.end()); v.resize(v[0]); return v; }", ""),
    ("int g(int);\n" + _HEAD + "std::sort(v.begin(), v.end()); v.resize(g(k)); return v; }",
     ""),
    # the cut may be skipped, or something may read the container before it
    (_HEAD + "std::sort(v.begin(), v.end()); if (k < 0) return {}; " + _CUT, "leave"),
    (_HEAD + "const std::vector<int>& w = v; std::sort(v.begin(), v.end()); int s = w[0]; "
     "v.resize(k); v.push_back(s); return v; }", "pointer"),
    ("void g();\n" + _HEAD + "auto* p = &v; std::sort(v.begin(), v.end()); g(); " + _CUT,
     "pointer"),
    # the sort may not have run, or a loop keeps the container between sorts
    (_HEAD + "if (k) std::sort(v.begin(), v.end()); " + _CUT, ""),
    ("std::vector<int> f(const std::vector<int>& in, int k) { std::vector<int> v; "
     "for (int x : in) { v.push_back(x); std::sort(v.begin(), v.end()); v.resize(k); } "
     "return v; }", "loop"),
    # another order, a part of the container, an array
    (_HEAD + "std::sort(v.begin(), v.end(), [](int a, int b) { return a % 7 < b % 7; }); "
     + _CUT, ""),
    (_HEAD + "std::sort(v.begin() + 1, v.end()); " + _CUT, ""),
    # a guard that tests something else, or lets the cut be skipped while k is below the size
    (_HEAD + "std::sort(v.begin(), v.end()); if (v.size() > k + 1) v.resize(k); return v; }",
     ""),
    (_HEAD + "std::sort(v.begin(), v.end()); if (v.size() > 2 * k) v.resize(k); return v; }",
     ""),
    (_HEAD + "std::sort(v.begin(), v.end()); if (v.size() > k) v.resize(k); else v.clear(); "
     "return v; }", ""),
    (_HEAD + "std::sort(v.begin(), v.end()); if (v.size() > k) { v.resize(k); k = 0; } "
     "return v; }", ""),
    (_HEAD + "std::sort(v.begin(), v.end()); if (v.size() == k) v.resize(k); return v; }",
     ""),
    # a cut at the front
    (_HEAD + "std::sort(v.begin(), v.end()); v.erase(v.begin(), v.begin() + k); "
     "return v; }", ""),
    # records
    ("struct P { int a; bool operator<(const P& o) const { return a < o.a; } };\n"
     "std::vector<P> f(std::vector<P> v, int k) { std::sort(v.begin(), v.end()); " + _CUT,
     ""),
])
def test_left_alone(code: str, why: str) -> None:
    unit = _unit(code)
    assert RULE not in finding_rules(unit), code
    res = rewrite_function(unit, RULES)
    assert not res.changed, res.code
    if why:
        assert any(why in n for n in res.notes), res.notes
