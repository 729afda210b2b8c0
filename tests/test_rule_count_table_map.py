"""count-table over elements wider than a byte: ``std::count`` over the same container of
integers or strings on every iteration of a loop becomes one counting pass into a
``std::unordered_map`` (generated element and value types, signed and unsigned, 16 to 64 bits,
strings, containers, loop forms, values at and past every type's limits, duplicates; built and
run both ways); values that compare otherwise than as keys, and other shapes, stay."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from differential_support import HAVE_GXX, Variant, compare, finding_rules, rewrite_function
from perfpilot.rules.counting import count_keys
from perfpilot.rules.counting.count_keys import LITERAL, STRING, match_form

RULES = frozenset({"count-table"})
_HEAD = ("#include <algorithm>\n#include <cstdint>\n#include <deque>\n#include <string>\n"
         "#include <vector>\nvoid g(int);\nstruct P { int a; };\n")

# element type -> value types whose comparison is a key lookup (by hand, from the usual
# arithmetic conversions in every data model)
_INCLUDES = "#include <cstdint>\n#include <deque>\n#include <limits>\n"
_ACCEPTED = {
    "short": ("short", "int", "long long"),
    "unsigned short": ("int", "unsigned", "long long", "unsigned short"),
    "int": ("int", "short", "long", "long long"),
    "unsigned": ("int", "unsigned", "long long", "unsigned long long", "unsigned long"),
    "long": ("int", "long", "long long"),
    "unsigned long": ("int", "unsigned", "unsigned long"),
    "long long": ("int", "unsigned", "long", "long long"),
    "unsigned long long": ("int", "long long", "unsigned", "unsigned long long"),
    "std::int64_t": ("int", "std::int64_t", "long long"),
    "std::uint32_t": ("int", "std::uint32_t", "long long"),
}
# a signed element compared in an unsigned type, or a pair the data models disagree on
_REFUSED = (("int", "unsigned"), ("short", "unsigned"), ("long", "unsigned"),
            ("unsigned long", "long long"), ("long long", "unsigned long long"),
            ("int", "unsigned long long"), ("long", "unsigned long"))
_VALUES = ("0", "1", "1", "-1", "-1", "2", "2", "2", "255", "65535", "65536", "-32768", "32767",
           "-32769", "2147483647", "-2147483648LL", "4294967295LL", "4294967296LL",
           "4294967297LL", "(1LL << 40)", "-(1LL << 40)", "9223372036854775807LL",
           "(-9223372036854775807LL - 1)", "7", "7", "-7")
_LOOPS = (  # the loop around the count, the value counted, a header needing V == E
    ("for ({V} x : keys)", "x", False),
    ("for (const auto& x : keys)", "x", False),
    ("for (std::size_t i = 0; i < keys.size(); ++i)", "keys[i]", False),
    ("for (int r = 0; r < 2; ++r) for ({V} x : keys)", "x", False),
    ("for (const auto& x : v)", "x", True),
)


def _integer_variants(count: int, seed: int, pairs: list[tuple[str, str]]) -> list[Variant]:
    rnd = random.Random(seed)
    out = []
    for n in range(count):
        elem, val = pairs[n % len(pairs)]
        header, value, own = rnd.choice(_LOOPS)
        if own and elem != val:
            header, value, own = _LOOPS[0]
        container = rnd.choice(("std::vector", "std::deque"))
        rng = rnd.choice(("v.begin(), v.end()", "v.cbegin(), v.cend()",
                          "std::begin(v), std::end(v)"))
        call = f"std::count({rng}, {value})"
        use = rnd.choice((
            f"h = h * 31 + (unsigned long long){call};",
            f"if ({call} > 1) h = h * 7 + 1; else h = h * 5 + 2;",
            f"auto c = {call}; if (c > best) best = c; h += c;",
        ))
        name = f"counts{n}"
        code = (f"unsigned long long {name}(const {container}<{elem}>& v, "
                f"const std::vector<{val}>& keys) {{\n"
                "    unsigned long long h = 0; long long best = 0;\n"
                f"    {header.format(V=val)} {{\n        {use}\n    }}\n"
                "    return h * 1000003ULL + (unsigned long long)best;\n}\n")
        vals = ", ".join(f"(long long)({x})" for x in _VALUES)
        driver = (f"std::vector<long long> raw = {{{vals}}}; "
                  f"{container}<{elem}> v; std::vector<{val}> keys; "
                  f"for (long long r : raw) {{ v.push_back(({elem})r); "
                  f"keys.push_back(({val})r); }} "
                  f"std::printf(\"%llu\\n\", {name}(v, keys));")
        out.append(Variant(name, _INCLUDES + code, driver))
    return out


def _accepted_pairs() -> list[tuple[str, str]]:
    return [(e, v) for e, vs in _ACCEPTED.items() for v in vs]


def _string_variants() -> list[Variant]:
    out = []
    forms = (
        ("for (const std::string& x : keys)", "x"),
        ("for (auto x : keys)", "x"),
        ("for (std::size_t i = 0; i < keys.size(); ++i)", "keys[i]"),
        ("for (const auto& x : v)", "x"),
        ("for (int r = 0; r < 3; ++r)", '"pear"'),
    )
    for n, (header, value) in enumerate(forms):
        name = f"words{n}"
        code = (f"long {name}(const std::vector<std::string>& v, "
                "const std::vector<std::string>& keys) {\n    long h = 0;\n"
                f"    {header} h = h * 31 + std::count(v.begin(), v.end(), {value});\n"
                "    return h;\n}\n")
        driver = ('std::vector<std::string> v = {"apple", "pear", "", "apple", "fig", '
                  '"pear", "pear", std::string("a\\0b", 3), "a"}; '
                  'std::vector<std::string> keys = v; keys.push_back("kiwi"); '
                  'keys.push_back(""); keys.push_back("a"); '
                  f"std::printf(\"%ld\\n\", {name}(v, keys));")
        out.append(Variant(name, code, driver))
    return out


@pytest.mark.skipif(not HAVE_GXX, reason="needs g++")
def test_generated_variants_keep_results(tmp_path: Path) -> None:
    variants = _integer_variants(72, 5, _accepted_pairs()) + _string_variants()
    results = compare(variants, RULES, tmp_path)
    for v in variants:
        res = results[v.name]
        assert res.rules == RULES, (v.code, res.notes)
        assert "std::count" not in res.code and "std::unordered_map<" in res.code, res.code
        assert "[key]" not in res.code  # looked up with find, never inserting


@pytest.mark.skipif(not HAVE_GXX, reason="needs g++")
def test_the_differential_catches_a_lookup_without_the_range_test(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    real = count_keys.match_form
    monkeypatch.setattr(count_keys, "match_form",
                        lambda value, element: real(value, element) and "plain")
    variants = _integer_variants(12, 7, [("int", "long long"), ("short", "int"),
                                         ("unsigned", "long long")])
    # both builds compile; what they print differs (a long long of 2^32 + 1 is no int)
    with pytest.raises(AssertionError, match=r"^\[\('"):
        compare(variants, RULES, tmp_path)


@pytest.mark.skipif(not HAVE_GXX, reason="needs g++")
def test_the_differential_catches_a_signed_element_compared_unsigned(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    real = count_keys.match_form
    monkeypatch.setattr(count_keys, "match_form",
                        lambda value, element: real(value, element) or "guard")
    variants = _integer_variants(6, 9, [("short", "unsigned"), ("int", "unsigned long long")])
    # a short -1 equals an unsigned 4294967295, which the range test turns away
    with pytest.raises(AssertionError, match=r"^\[\('"):
        compare(variants, RULES, tmp_path)


def test_the_type_pairs_are_judged_in_every_data_model() -> None:
    for e, v in _accepted_pairs():
        canon_e = count_keys.scalar_type(e)
        canon_v = count_keys.scalar_type(v)
        assert canon_e and canon_v and match_form(canon_v, canon_e) is not None, (e, v)
    for e, v in _REFUSED:
        assert match_form(v, e) is None, (e, v)
    assert match_form("int", "long long") == "plain"
    assert match_form("long long", "int") == "guard"
    assert match_form("int", "unsigned") == "plain"  # converted modulo 2^32, as == does
    assert match_form(LITERAL, STRING) == "plain"
    assert match_form("int", STRING) is None and match_form(LITERAL, "int") is None


def test_the_most_frequent_element_is_counted_once() -> None:
    code = _HEAD + ("int f(const std::vector<int>& v) {\n    int best = 0, bestc = 0;\n"
                    "    for (int x : v) {\n      int c = std::count(v.begin(), v.end(), x);\n"
                    "      if (c > bestc || (c == bestc && x < best)) { bestc = c; best = x; }\n"
                    "    }\n    return best; }\n")
    res = rewrite_function(code, RULES)
    assert "std::unordered_map<int, std::ptrdiff_t> v_counts;" in res.code, res.code
    assert "int c = v_count(x);" in res.code
    assert ".find(key)" in res.code
    rules = finding_rules(code)
    assert "count-table" in rules and "linear-search-in-loop" not in rules, rules


@pytest.mark.parametrize("code", [
    # elements that are no integers or strings, or with an allocator
    "int f(const std::vector<double>& v) { int n = 0; for (double x : v) n += "
    "std::count(v.begin(), v.end(), x); return n; }",
    "int f(const std::vector<bool>& v) { int n = 0; for (bool x : v) n += "
    "std::count(v.begin(), v.end(), x); return n; }",
    "int f(const std::vector<P*>& v) { int n = 0; for (P* x : v) n += "
    "std::count(v.begin(), v.end(), x); return n; }",
    "template <class A> int f(const std::vector<int, A>& v) { int n = 0; for (int x : v) n "
    "+= std::count(v.begin(), v.end(), x); return n; }",
    # a signed element compared in an unsigned type; a pair the data models disagree on
    "int f(const std::vector<int>& v) { int n = 0; for (unsigned x = 0; x < 9; ++x) n += "
    "std::count(v.begin(), v.end(), x); return n; }",
    "int f(const std::vector<long>& v) { int n = 0; for (unsigned x = 0; x < 9; ++x) n += "
    "std::count(v.begin(), v.end(), x); return n; }",
    "int f(const std::vector<unsigned long>& v, const std::vector<long long>& k) { int n = 0; "
    "for (long long x : k) n += std::count(v.begin(), v.end(), x); return n; }",
    # a computed value needing the range test (read twice); a value of unknown type
    "int f(const std::vector<int>& v) { int n = 0; for (long long x = 0; x < 9; ++x) n += "
    "std::count(v.begin(), v.end(), x + 1); return n; }",
    "template <class T> int f(const std::vector<int>& v, T w) { int n = 0; for (int x = 0; "
    "x < 3; ++x) n += std::count(v.begin(), v.end(), w); return n; }",
    # a string counted with a character pointer; a unit with its own ==
    "int f(const std::vector<std::string>& v, const char* w) { int n = 0; for (int x = 0; "
    "x < 3; ++x) n += std::count(v.begin(), v.end(), w); return n; }",
    "bool operator==(const P& a, const P& b) { return a.a == b.a; }\n"
    "int f(const std::vector<std::string>& v) { int n = 0; for (const auto& x : v) n += "
    "std::count(v.begin(), v.end(), x); return n; }",
    # the loop changes the container: directly, through an element reference, through a
    # name that may be it, by an unknown call
    "int f(std::vector<int> v) { int n = 0; for (int x = 0; x < 9; ++x) { n += "
    "std::count(v.begin(), v.end(), x); v.push_back(x); } return n; }",
    "int f(std::vector<int> v) { int n = 0; for (int x = 0; x < 9; ++x) { n += "
    "std::count(v.begin(), v.end(), x); v[0] = x; } return n; }",
    "int f(std::vector<int>& v) { int n = 0; for (auto& x : v) { n += "
    "std::count(v.begin(), v.end(), x); x = 0; } return n; }",
    "int f(const std::vector<int>& v, std::vector<int>& w) { int n = 0; for (int x = 0; "
    "x < 9; ++x) { n += std::count(v.begin(), v.end(), x); w.push_back(x); } return n; }",
    "int f(const std::vector<int>& v) { int n = 0; for (int x = 0; x < 9; ++x) { n += "
    "std::count(v.begin(), v.end(), x); g(x); } return n; }",
    # made inside the loop; a part of it; a pointer range
    "int f(const std::vector<int>& w) { int n = 0; for (int x = 0; x < 9; ++x) { "
    "std::vector<int> v = w; n += std::count(v.begin(), v.end(), x); } return n; }",
    "int f(const std::vector<int>& v) { int n = 0; for (int x = 0; x < 9; ++x) n += "
    "std::count(v.begin() + 1, v.end(), x); return n; }",
    "int f(const int* v, int m) { int n = 0; for (int x = 0; x < 9; ++x) n += "
    "std::count(v, v + m, x); return n; }",
    # not in a loop
    "int f(const std::vector<int>& v, int x) { return std::count(v.begin(), v.end(), x); }",
])
def test_left_alone(code: str) -> None:
    res = rewrite_function(_HEAD + code, RULES)
    assert not res.changed, res.code
    assert "count-table" not in finding_rules(_HEAD + code)
