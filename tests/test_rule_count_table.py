"""count-table: ``std::count`` over the same byte container on every iteration of a loop becomes
one counting pass into a 256-entry table (generated containers, element and value types, loop
forms, all 256 byte values, built and run both ways); other shapes stay."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from differential_support import HAVE_GXX, Variant, compare
from perfpilot.code.locate import function_by_name
from perfpilot.optimizing.builtin import rewrite
from perfpilot.planning.builtin import analyze

RULES = frozenset({"count-table"})

_CONTAINERS = (  # parameter, the driver's argument built from the byte string `str`
    ("const std::string& s", "str"),
    ("std::string s", "str"),
    ("const std::vector<unsigned char>& s", "std::vector<unsigned char>(str.begin(), str.end())"),
    ("const std::vector<signed char>& s", "std::vector<signed char>(str.begin(), str.end())"),
    ("std::vector<char> s", "std::vector<char>(str.begin(), str.end())"),
    ("const std::vector<uint8_t>& s", "std::vector<uint8_t>(str.begin(), str.end())"),
)
_LOOPS = (  # the loop header and the value it counts
    ("for (char c = 'a'; c <= 'z'; ++c)", "c"),
    ("for (int v = -130; v < 260; ++v)", "v"),
    ("for (long v = -300; v <= 300; v += 7)", "v"),
    ("for (unsigned char c = 0; c < 255; ++c)", "c"),
    ("for (signed char c = -128; c < 127; ++c)", "c"),
    ("for (char c : keys)", "c"),
    ("for (auto c : keys)", "c"),
    ("for (std::size_t i = 0; i < keys.size(); ++i)", "keys[i]"),
)
_RANGES = ("s.begin(), s.end()", "s.cbegin(), s.cend()", "std::begin(s), std::end(s)")


def _variants(count: int, seed: int) -> list[Variant]:
    rnd = random.Random(seed)
    out: list[Variant] = []
    for n in range(count):
        param, arg = _CONTAINERS[n % len(_CONTAINERS)]
        header, value = rnd.choice(_LOOPS)
        call = f"std::count({rnd.choice(_RANGES)}, {value})"
        name = f"counts{n}"
        use = rnd.choice((
            f"h = h * 31 + (unsigned long){call};",
            f"if ({call} > 1) h = h * 7 + 1; else h = h * 5 + 2;",
            f"int k = (int){call}; seen.push_back(k); h += k;",
        ))
        code = (f"unsigned long {name}({param}, const std::string& keys) {{\n"
                "    unsigned long h = 0; std::vector<int> seen;\n"
                f"    {header} {{\n        {use}\n    }}\n"
                "    for (int k : seen) h = h * 3 + k;\n    return h;\n}\n")
        driver = ("std::string str; for (int b = 0; b < 256; ++b) str.push_back((char)b); "
                  "for (int b = 255; b >= 0; b -= 3) str.push_back((char)b); "
                  "str += \"banana\"; std::string keys = str; "
                  f"std::printf(\"%lu\\n\", {name}({arg}, keys));")
        out.append(Variant(name, "#include <array>\n#include <cstdint>\n" + code, driver))
    return out


@pytest.mark.skipif(not HAVE_GXX, reason="needs g++")
def test_generated_variants_keep_results(tmp_path: Path) -> None:
    variants = _variants(48, seed=11)
    results = compare(variants, RULES, tmp_path)
    for v in variants:
        res = results[v.name]
        assert res.rules >= RULES, (v.code, res.notes)
        assert "std::count" not in res.code and "s_counts[256]" in res.code, res.code


@pytest.mark.skipif(not HAVE_GXX, reason="needs g++")
def test_the_differential_catches_a_lookup_without_the_range_test(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from perfpilot.rules.counting import count_keys
    real = count_keys.match_form
    monkeypatch.setattr(count_keys, "match_form",
                        lambda value, element: real(value, element) and "plain")
    variants = [v for v in _variants(48, seed=11) if "int v" in v.code or "long v" in v.code]
    assert variants
    # both builds compile; what they print differs (an int of 200 is no signed char)
    with pytest.raises(AssertionError, match=r"^\[\('"):
        compare(variants, RULES, tmp_path)


def _site(code: str):  # type: ignore[no-untyped-def]
    return function_by_name("#include <algorithm>\n#include <string>\n#include <vector>\n"
                            "#include <string_view>\nvoid g(char);\n" + code, "cpp", "f")


def test_the_letter_histogram_is_counted_once() -> None:
    code = ("std::vector<int> f(const std::string& text) { std::vector<int> out(26, 0);\n"
            "    for (char c = 'a'; c <= 'z'; ++c) out[c - 'a'] = (int)std::count(text.begin(), "
            "text.end(), c);\n    return out; }")
    res = rewrite(_site(code), RULES)
    assert "for (unsigned char byte : text) ++text_counts[byte];" in res.code, res.code
    assert "(int)text_counts[(unsigned char)c]" in res.code
    assert "count-table" in {f.rule for f in analyze(_site(code))}


@pytest.mark.parametrize("code", [
    # the loop changes the container, directly or through a name that may share it
    "int f(std::string s) { int n = 0; for (char c = 'a'; c <= 'z'; ++c) { n += "
    "std::count(s.begin(), s.end(), c); s.push_back(c); } return n; }",
    "int f(std::string s) { int n = 0; for (char c = 'a'; c <= 'z'; ++c) { n += "
    "std::count(s.begin(), s.end(), c); s[0] = c; } return n; }",
    "int f(const std::string& s, std::string& t) { int n = 0; for (char c = 'a'; c <= 'z'; "
    "++c) { n += std::count(s.begin(), s.end(), c); t += c; } return n; }",
    "int f(const std::string& s, char* p) { int n = 0; for (char c = 'a'; c <= 'z'; ++c) { "
    "n += std::count(s.begin(), s.end(), c); *p = c; } return n; }",
    # an unknown call may change it
    "int f(const std::string& s) { int n = 0; for (char c = 'a'; c <= 'z'; ++c) { n += "
    "std::count(s.begin(), s.end(), c); g(c); } return n; }",
    # made inside the loop
    "int f(const std::string& t) { int n = 0; for (char c = 'a'; c <= 'z'; ++c) { std::string "
    "s = t + c; n += std::count(s.begin(), s.end(), c); } return n; }",
    # floating elements, a view, a pointer range, a part of the container
    "int f(const std::vector<double>& s) { int n = 0; for (int c = 0; c < 300; ++c) n += "
    "std::count(s.begin(), s.end(), c); return n; }",
    "int f(std::string_view s) { int n = 0; for (char c = 'a'; c <= 'z'; ++c) n += "
    "std::count(s.begin(), s.end(), c); return n; }",
    "int f(const char* s, int m) { int n = 0; for (char c = 'a'; c <= 'z'; ++c) n += "
    "std::count(s, s + m, c); return n; }",
    "int f(const std::string& s) { int n = 0; for (char c = 'a'; c <= 'z'; ++c) n += "
    "std::count(s.begin() + 1, s.end(), c); return n; }",
    # an unsigned wide value (a negative char compares as a large number), a computed value
    # needing the range test, a value of unknown type
    "int f(const std::string& s) { int n = 0; for (unsigned v = 0; v < 300; ++v) n += "
    "std::count(s.begin(), s.end(), v); return n; }",
    "int f(const std::string& s) { int n = 0; for (int v = 0; v < 300; ++v) n += "
    "std::count(s.begin(), s.end(), v + 1); return n; }",
    "template <class T> int f(const std::string& s, T w) { int n = 0; for (int v = 0; v < 3; "
    "++v) n += std::count(s.begin(), s.end(), w); return n; }",
    # not in a loop
    "int f(const std::string& s) { return std::count(s.begin(), s.end(), 'a'); }",
])
def test_left_alone(code: str) -> None:
    res = rewrite(_site(code), RULES)
    assert not res.changed, res.code
    assert "count-table" not in {f.rule for f in analyze(_site(code))}


def test_two_counts_over_one_container_are_one_finding_and_one_table() -> None:
    code = ("int f(const std::string& s) { int n = 0;\n"
            "    for (char c = 'a'; c <= 'z'; ++c) {\n"
            "        n += std::count(s.begin(), s.end(), c);\n"
            "        n -= std::count(s.begin(), s.end(), 'q');\n"
            "    }\n    return n; }")
    found = [f for f in analyze(_site(code)) if f.rule == "count-table"]
    assert len(found) == 1 and "1 more count" in found[0].explanation
    res = rewrite(_site(code), RULES)
    assert res.code.count("s_counts[256]") == 1 and "std::count" not in res.code, res.code
    assert [a.rule for a in res.applied] == ["count-table"]


def test_a_count_the_proof_refuses_ends_in_a_note() -> None:
    code = ("int f(const std::vector<double>& s) { int n = 0; for (int c = 0; c < 300; ++c) "
            "n += std::count(s.begin(), s.end(), c); return n; }")
    assert "count-table" not in {f.rule for f in analyze(_site(code))}
    res = rewrite(_site(code), RULES)
    assert not res.changed
    assert any(n.startswith("count-table: the count on line") and "integers" in n
               for n in res.notes), res.notes
