"""sort-compare-counts: two byte sequences sorted only to be compared for equality become a
comparison of sizes and of 256 byte counts. Generated variants (strings and vectors of the
one-byte types, by-value parameters and local copies, both orders, `==` and `!=` either way
round) are built and run on pairs with anagrams, repeated and high bytes, NULs and different
sizes; sequences the caller sees, other uses, different orders and wider elements stay."""

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
from perfpilot.rules.counting import sort_compare_counts as scc

RULE = "sort-compare-counts"
RULES = frozenset({RULE})
_PRELUDE = "#include <algorithm>\n#include <cstdint>\n#include <functional>\n#include <string>\n" \
    "#include <vector>\n"
_TYPES = ("std::string", "std::vector<char>", "std::vector<signed char>",
          "std::vector<unsigned char>", "std::vector<std::uint8_t>", "std::string")
_WORDS = ('""', '"a"', '"ab"', '"ba"', '"abc"', '"cab"', '"aab"', '"abb"', '"listen"',
          '"silent"', '"\\xff\\x80a"', '"a\\x80\\xff"', '"\\xffa"', 'std::string("a\\0b", 3)',
          'std::string("\\0ab", 3)', '"aabbcc"', '"abcabc"', '"abcab"')


def _variant(rnd: random.Random, name: str) -> Variant:
    t = rnd.choice(_TYPES)
    ret = rnd.choice(("bool", "int"))
    order = rnd.choice(("", ", std::less<>()", ", std::greater<>()"))
    form = rnd.randrange(3)
    if form == 0:
        head, pre = f"{ret} {name}({t} a, {t} b) {{", []
    elif form == 1:
        head, pre = f"{ret} {name}(const {t}& x, {t} b) {{", [f"{t} a = x;"]
    else:
        head, pre = f"{ret} {name}(const {t}& x, const {t}& y) {{", \
            [f"{t} a(x.begin(), x.end());", f"{t} b = y;", "if (a.empty()) return 2;"]
    sorts = [f"std::sort(a.begin(), a.end(){order});", f"std::sort(b.begin(), b.end(){order});"]
    rnd.shuffle(sorts)
    op = rnd.choice(("==", "!="))
    cmp = rnd.choice((f"a {op} b", f"b {op} a", f"(a {op} b)"))
    code = "\n".join([head, *(f"    {s}" for s in [*pre, *sorts, f"return {cmp};"]), "}"]) + "\n"
    make = "std::string" if t == "std::string" else t
    conv = "" if t == "std::string" else ".begin(), w.end()"
    driver = ("const std::string words[] = {" + ", ".join(_WORDS) + "}; "
              "for (const auto& w : words) { for (const auto& u : words) { "
              f"{make} p(w{conv}); std::string q0(u); {make} q(q0.begin(), q0.end()); "
              f"std::printf(\"%d\", (int){name}(p, q)); }} std::printf(\"\\n\"); }}")
    return Variant(name, code, driver)


def _variants(count: int = 40, seed: int = 16) -> list[Variant]:
    rnd = random.Random(seed)
    out = [_variant(rnd, f"same{k}") for k in range(count)]
    out[0] = Variant(out[0].name, "#include <cstdint>\n#include <functional>\n" + out[0].code,
                     out[0].driver)
    return out


@pytest.mark.skipif(not HAVE_GXX, reason="needs g++")
def test_generated_variants_keep_results(tmp_path: Path) -> None:
    results = compare_rewritten(_variants(), RULES, tmp_path)
    for res in results.values():
        assert "std::sort(" not in res.code and "[256]" in res.code, res.code


@pytest.mark.skipif(not HAVE_GXX, reason="needs g++")
def test_the_differential_test_catches_a_missing_size_test(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Without the size test, a sequence whose bytes all occur in the other passes."""
    real = scc._replacement

    def bad(c: scc.SortedCompare, counts: str, byte: str, sep: str) -> str:
        return real(c, counts, byte, sep).split(sep, 1)[1]

    monkeypatch.setattr(scc, "_replacement", bad)
    assert_outputs_differ(_variants(), RULES, tmp_path)


def test_an_anagram_test_counts_bytes() -> None:
    code = ("bool f(std::string a, std::string b) {\n    std::sort(a.begin(), a.end());\n"
            "    std::sort(b.begin(), b.end());\n    return a == b;\n}\n")
    assert RULE in finding_rules(_PRELUDE + code)
    res = rewrite_function(_PRELUDE + code, RULES)
    assert "    if (a.size() != b.size()) return false;\n    std::size_t counts[256] = {};\n" \
        in res.code and "std::sort" not in res.code, res.code


_TAIL = "std::sort(a.begin(), a.end()); std::sort(b.begin(), b.end()); return a == b; }"


@pytest.mark.parametrize(("code", "why"), [
    # the caller's strings see the order
    ("bool f(std::string& a, std::string b) { " + _TAIL, "caller"),
    ("bool f(std::string a, const std::string& c) { std::string& b = a; " + _TAIL, ""),
    # the order is used after the comparison, or between
    ("bool f(std::string a, std::string b) { std::sort(a.begin(), a.end()); "
     "std::sort(b.begin(), b.end()); bool s = a == b; return s && a[0] == 'x'; }", ""),
    ("bool f(std::string a, std::string b) { std::sort(a.begin(), a.end()); a.pop_back(); "
     "std::sort(b.begin(), b.end()); return a == b; }", ""),
    # different orders, other comparators
    ("bool f(std::string a, std::string b) { std::sort(a.begin(), a.end()); "
     "std::sort(b.begin(), b.end(), std::greater<>()); return a == b; }", "orders"),
    ("bool f(std::string a, std::string b) { std::sort(a.begin(), a.end(), "
     "[](char x, char y) { return x % 3 < y % 3; }); std::sort(b.begin(), b.end(), "
     "[](char x, char y) { return x % 3 < y % 3; }); return a == b; }", ""),
    # wider elements, other comparisons, one sequence twice
    ("bool f(std::vector<int> a, std::vector<int> b) { " + _TAIL, ""),
    ("bool f(std::string a, std::string b) { std::sort(a.begin(), a.end()); "
     "std::sort(b.begin(), b.end()); return a < b; }", ""),
    ("bool f(std::string a, std::string b) { std::sort(a.begin(), a.end()); "
     "std::sort(a.begin(), a.end()); return a == b; }", ""),
    # a pointer kept to one of them
    ("bool g(const char*);\nbool f(std::string a, std::string b) { const char* p = a.data(); "
     "if (g(p)) return false; " + _TAIL, "pointer"),
    # part of a sequence
    ("bool f(std::string a, std::string b) { std::sort(a.begin() + 1, a.end()); "
     "std::sort(b.begin(), b.end()); return a == b; }", ""),
])
def test_left_alone(code: str, why: str) -> None:
    unit = _PRELUDE + code
    assert RULE not in finding_rules(unit), code
    res = rewrite_function(unit, RULES)
    assert not res.changed, res.code
    if why:
        assert any(why in n for n in res.notes), res.notes
