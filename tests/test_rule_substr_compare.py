"""The substr-compare rule: a ``substr`` temporary built in a loop only to be compared becomes
``compare`` in place. Its forms, the code it must leave alone, and a g++ differential over
generated variants (every operator, either side, every kind of other operand, positions past
the end that throw), which a deliberately wrong rewrite fails."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from differential_support import HAVE_GXX, Variant, compare
from perfpilot.code.locate import function_by_name
from perfpilot.optimizing.builtin import rewrite
from perfpilot.planning.builtin import analyze_site
from perfpilot.rules.containers import substr_temporaries as substr_compare

HEAD = "#include <string>\n#include <vector>\n#include <array>\n"
RULES = frozenset({"substr-compare"})


def _rewritten(body: str, params: str = "const std::string& s, const std::string& t",
               prefix: str = "") -> str:
    code = f"{HEAD}{prefix}int f({params}) {{\n    int c = 0;\n" \
           f"    for (int i = 0; i < 9; ++i) {{\n        {body}\n    }}\n    return c;\n}}\n"
    res = rewrite(function_by_name(code, "cpp", "f"), RULES)
    return res.code if "substr-compare" in res.rules else ""


@pytest.mark.parametrize(("body", "params", "expected"), [
    ("if (s.substr(i, 3) == t) ++c;", "const std::string& s, const std::string& t",
     "s.compare(i, 3, t) == 0"),
    ("c += s.substr(i) != t;", "std::string s, std::string t",
     "s.compare(i, std::string::npos, t) != 0"),
    # the substr on the right: the operator turns round
    ("if (t < s.substr(i, 2)) ++c;", "const std::string& s, const std::string& t",
     "s.compare(i, 2, t) > 0"),
    ("if (\"ab\" >= s.substr(i, 2)) ++c;", "const std::string& s, const std::string& t",
     "s.compare(i, 2, \"ab\") <= 0"),
    ("if (s.substr(i, 2) <= p) ++c;", "const std::string& s, const char* p",
     "s.compare(i, 2, p) <= 0"),
    ("if ((s.substr(i, 2)) == (t.substr(1))) ++c;", "const std::string& s, const std::string& t",
     "s.compare(i, 2, t, 1, std::string::npos) == 0"),
    ("if (w[i % 2].substr(0, 2) == t) ++c;", "const std::vector<std::string>& w, std::string t",
     "w[i % 2].compare(0, 2, t) == 0"),
    ("char buf[4] = \"ab\"; if (s.substr(i, 2) == buf) ++c;", "const std::string& s",
     "s.compare(i, 2, buf) == 0"),
])
def test_each_form_becomes_compare(body: str, params: str, expected: str) -> None:
    code = _rewritten(body, params)
    assert expected in code and ".substr(i" not in code, code


def test_a_bare_string_needs_the_standard_namespace_in_scope() -> None:
    code = _rewritten("if (s.substr(i, 2) == t) ++c;", "const string& s, const string& t",
                      prefix="using namespace std;\n")
    assert "s.compare(i, 2, t) == 0" in code, code


@pytest.mark.parametrize(("body", "params", "prefix"), [
    # not a std::string: a user type with its own substr, a view (substr is cheap there),
    # a wide string, a pointer to a string
    ("if (s.substr(i, 2) == t) ++c;", "const Text& s, const Text& t",
     "struct Text { Text substr(int, int) const; bool operator==(const Text&) const; };\n"),
    ("if (s.substr(i, 2) == t) ++c;", "std::string_view s, std::string_view t",
     "#include <string_view>\n"),
    ("if (s.substr(i, 2) == t) ++c;", "const std::wstring& s, const std::wstring& t", ""),
    ("if (s->substr(i, 2) == t) ++c;", "const std::string* s, const std::string& t", ""),
    # the other side is not known to be a string of char
    ("if (s.substr(i, 2) == g()) ++c;", "const std::string& s, const std::string& t",
     "std::string g();\n"),
    ("if (s.substr(i, 2) == v) ++c;", "const std::string& s, std::string_view v",
     "#include <string_view>\n"),
    # the temporary is kept or used otherwise than compared
    ("std::string u = s.substr(i, 2); if (u == t) ++c;",
     "const std::string& s, const std::string& t", ""),
    ("c += (s.substr(i, 2) + t).size();", "const std::string& s, const std::string& t", ""),
    ("if (s.substr(i, 2).size() == t.size()) ++c;",
     "const std::string& s, const std::string& t", ""),
])
def test_other_code_is_left_alone(body: str, params: str, prefix: str) -> None:
    assert _rewritten(body, params, prefix) == ""


def test_outside_loops_nothing_is_planned_or_rewritten() -> None:
    code = f"{HEAD}bool f(const std::string& s, const std::string& t) {{\n" \
           "    return s.substr(1, 2) == t;\n}\n"
    site = function_by_name(code, "cpp", "f")
    assert "substr-compare" not in rewrite(site, RULES).rules
    assert all(f.rule != "substr-compare" for f in analyze_site(site).findings)


def test_the_finding_names_the_comparison_and_its_replacement() -> None:
    code = f"{HEAD}int f(const std::string& s, const std::string& t) {{\n    int c = 0;\n" \
           "    for (std::size_t i = 0; i + t.size() <= s.size(); ++i)\n" \
           "        if (s.substr(i, t.size()) == t) ++c;\n    return c;\n}\n"
    (finding,) = [f for f in analyze_site(function_by_name(code, "cpp", "f")).findings
                  if f.rule == "substr-compare"]
    assert "`s.substr(i, t.size()) == t`" in finding.explanation
    assert "`s.compare(i, t.size(), t) == 0`" in finding.explanation
    assert finding.lines[:2] == (7, 6)


# -- differential ---------------------------------------------------------------------------

_OPS = ("==", "!=", "<", "<=", ">", ">=")


def _variants(seed: int, count: int) -> list[Variant]:
    rnd = random.Random(seed)
    out: list[Variant] = []
    texts = ('"abcabcab"', '"ab"', '""', '"zzzabzz"', '"aaaaaaaaaaaaaaaaaaaaaaaaaa"')
    for k in range(count):
        name = f"sc{k}"
        op = rnd.choice(_OPS)
        length = rnd.choice(("2", "3", "0", "40"))
        sub = rnd.choice((f"s.substr(i, {length})", "s.substr(i)"))
        kind = rnd.choice(("string", "literal", "pointer", "array", "substr", "element"))
        params = "const std::string& s, const std::string& t"
        pre = ""
        other = {"string": "t", "literal": rnd.choice(('"ab"', '"b"', '""', '"abcab"')),
                 "pointer": "p", "array": "buf", "substr": "t.substr(1, 2)",
                 "element": "w[i % 2]"}[kind]
        if kind == "pointer":
            pre = "const char* p = t.c_str();"
        elif kind == "array":
            pre = "char buf[3] = {'b', 'c', 0};"
        elif kind == "element":
            pre = "std::vector<std::string> w{t, \"ca\"};"
        left, right = (sub, other) if rnd.random() < 0.5 else (other, sub)
        code = (("#include <stdexcept>\n" if k == 0 else "") +
                f"long {name}({params}) {{\n    long c = 0;\n    {pre}\n"
                f"    for (std::size_t i = 0; i <= s.size() + 1; ++i) {{\n"
                f"        try {{ if ({left} {op} {right}) c = c * 3 + 1; else c = c * 3 + 2; }}\n"
                "        catch (const std::out_of_range&) { c = c * 3; }\n"
                "    }\n    return c;\n}\n")
        calls = " ".join(f"std::printf(\"%ld\\n\", {name}({a}, {b}));"
                         for a, b in ((rnd.choice(texts), rnd.choice(texts)) for _ in range(4)))
        out.append(Variant(name, code, calls))
    return out


@pytest.mark.skipif(not HAVE_GXX, reason="needs g++")
@pytest.mark.parametrize("seed", [3, 17])
def test_rewritten_comparisons_print_what_the_originals_print(seed: int, tmp_path: Path) -> None:
    variants = _variants(seed, 60)
    results = compare(variants, RULES, tmp_path)
    assert all("substr-compare" in r.rules for r in results.values()), \
        [n for n, r in results.items() if "substr-compare" not in r.rules]


@pytest.mark.skipif(not HAVE_GXX, reason="needs g++")
def test_the_differential_catches_an_operator_not_turned_round(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(substr_compare, "_MIRROR", {op: op for op in _OPS})
    with pytest.raises(AssertionError):
        compare(_variants(3, 60), RULES, tmp_path)
