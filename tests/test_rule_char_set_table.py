"""char-set-table: a character tested against four or more constants in a loop becomes one
lookup in a 256-entry table (generated subjects, sets, chain forms, all 256 byte values as
input, built and run both ways); other shapes stay."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from differential_support import HAVE_GXX, Variant, compare
from perfpilot.code.locate import function_by_name
from perfpilot.code.syntax import (
    char_value,
)
from perfpilot.optimizing.builtin import rewrite
from perfpilot.planning.builtin import analyze

RULES = frozenset({"char-set-table"})
_POOL = ("'a'", "'e'", "'i'", "'o'", "'u'", "' '", "'\\n'", "'\\t'", "','", "'.'", "'\\\\'",
         "'\\''", "'0'", "'9'", "'Z'", "'\\x7f'", "'\\0'", "65", "127", "'\\101'", "';'")


def _variants(count: int, seed: int) -> list[Variant]:
    rnd = random.Random(seed)
    out: list[Variant] = []
    for n in range(count):
        consts = rnd.sample(_POOL, rnd.randrange(4, 9))
        negated = rnd.random() < 0.3
        form = rnd.randrange(4)
        name = f"in_set{n}"
        if form == 0:
            subject, params = "s[i]", "const std::string& s"
            loop, arg = "for (std::size_t i = 0; i < s.size(); ++i)", "str"
        elif form == 1:
            subject, params = "c", "const std::string& s"
            loop, arg = "for (char c : s)", "str"
        elif form == 2:
            subject, params = "*p", "const char* p, const char* e"
            loop, arg = "for (; p != e; ++p)", "str.data(), str.data() + str.size()"
        else:
            subject, params = "u[k]", "const unsigned char* u, int m"
            loop = "for (int k = 0; k < m; ++k)"
            arg = "(const unsigned char*)str.data(), (int)str.size()"
        op, joint = ("!=", " && ") if negated else ("==", " || ")
        tests = [f"{subject} {op} {k}" if rnd.random() < 0.8 else f"{k} {op} {subject}"
                 for k in consts]
        cond = joint.join(tests)
        if rnd.random() < 0.3:
            cond = f"({joint.join(tests[:2])}){joint}{joint.join(tests[2:])}"
        use = rnd.choice((f"if ({cond}) h = h * 31 + {'k' if form == 3 else '1'};",
                          f"h += ({cond}) * 3;", f"bool b = {cond}; h = h * 7 + b;"))
        code = (f"long {name}({params}) {{\n    long h = 0;\n    {loop} {{\n        {use}\n"
                "    }\n    return h;\n}\n")
        driver = ("std::string str; for (int b = 0; b < 256; ++b) str.push_back((char)b); "
                  "for (int b = 255; b >= 0; b -= 3) str.push_back((char)b); "
                  f"std::printf(\"%ld\\n\", {name}({arg}));")
        out.append(Variant(name, code, driver))
    return out


@pytest.mark.skipif(not HAVE_GXX, reason="needs g++")
def test_generated_variants_keep_results(tmp_path: Path) -> None:
    variants = _variants(40, seed=9)
    results = compare(variants, RULES, tmp_path)
    for v in variants:
        res = results[v.name]
        assert res.rules >= RULES, (v.code, res.notes)
        assert "static const unsigned char char_set[256]" in res.code, res.code


def test_character_literals_decode() -> None:
    from perfpilot.code.parse import parse
    lits = {"'a'": 97, "'\\n'": 10, "'\\\\'": 92, "'\\''": 39, "'\\x41'": 65, "'\\101'": 65,
            "'\\0'": 0, "L'a'": None, "u8'a'": None, "'ab'": None, "'\\1234'": None,
            "'\\x'": None}
    for lit, want in lits.items():
        tree = parse(f"int x = {lit};", "cpp")
        node = next(n for n in _nodes(tree.root_node) if n.type == "char_literal")
        assert char_value(node) == want, lit


def _nodes(n):  # type: ignore[no-untyped-def]
    yield n
    for c in n.children:
        yield from _nodes(c)


def _site(code: str, lang: str = "cpp"):  # type: ignore[no-untyped-def]
    return function_by_name("#include <string>\n" + code, lang, "f")


def test_c_gets_the_table_too() -> None:
    code = ("int f(const char* s, int n) { int k = 0; for (int i = 0; i < n; ++i) if (s[i] == "
            "' ' || s[i] == '\\t' || s[i] == '\\n' || s[i] == '\\r') ++k; return k; }")
    res = rewrite(function_by_name(code, "c", "f"), RULES)
    assert "static const unsigned char char_set[256]" in res.code
    assert "char_set[(unsigned char)s[i]] != 0" in res.code


@pytest.mark.parametrize("code", [
    # three tests only
    "int f(const std::string& s) { int n = 0; for (char c : s) if (c == 'a' || c == 'b' || "
    "c == 'c') ++n; return n; }",
    # two different subjects
    "int f(const std::string& s, char d) { int n = 0; for (char c : s) if (c == 'a' || "
    "c == 'b' || d == 'c' || c == 'd') ++n; return n; }",
    # an int subject (EOF and values past 255)
    "int f(const int* v, int m) { int n = 0; for (int i = 0; i < m; ++i) if (v[i] == 'a' || "
    "v[i] == 'b' || v[i] == 'c' || v[i] == 'd') ++n; return n; }",
    # a constant past 127 (its meaning depends on the signedness of char)
    "int f(const std::string& s) { int n = 0; for (char c : s) if (c == 'a' || c == 'b' || "
    "c == 'c' || c == 200) ++n; return n; }",
    # a subject with an effect, or a call
    "int f(const char* p, const char* e) { int n = 0; while (p != e) if (*p++ == 'a' || "
    "*p == 'b' || *p == 'c' || *p == 'd') ++n; return n; }",
    "int f(const std::string& s) { int n = 0; for (std::size_t i = 0; i < s.size(); ++i) if "
    "(s.at(i) == 'a' || s.at(i) == 'b' || s.at(i) == 'c' || s.at(i) == 'd') ++n; return n; }",
    # something else in the chain
    "int f(const std::string& s) { int n = 0; for (char c : s) if (c == 'a' || c == 'b' || "
    "c == 'c' || c == 'd' || c > 'x') ++n; return n; }",
    # mixed joints
    "int f(const std::string& s) { int n = 0; for (char c : s) if (c != 'a' || c != 'b' || "
    "c != 'c' || c != 'd') ++n; return n; }",
    # not in a loop
    "bool f(char c) { return c == 'a' || c == 'b' || c == 'c' || c == 'd'; }",
])
def test_left_alone(code: str) -> None:
    res = rewrite(_site(code), RULES)
    assert not res.changed, res.code
    assert "char-set-table" not in {f.rule for f in analyze(_site(code))}


# -- a character looked up in a string literal --------------------------------------------------

_LITERALS = ('"aeiouAEIOU"', '" \\t\\n\\r"', '",.;:!?"', '"\\\\\\"\'"', '"\\x41\\102C"',
             '"0123456789"', '"xy"', '"\\x7f~"')


def _membership_variants(count: int, seed: int) -> list[Variant]:
    rnd = random.Random(seed)
    out: list[Variant] = []
    for n in range(count):
        lit = rnd.choice(_LITERALS)
        name = f"member{n}"
        subject, loop, params, arg = rnd.choice((
            ("c", "for (char c : s)", "const std::string& s", "str"),
            ("s[i]", "for (std::size_t i = 0; i < s.size(); ++i)", "const std::string& s", "str"),
            ("u[k]", "for (int k = 0; k < m; ++k)", "const unsigned char* u, int m",
             "(const unsigned char*)str.data(), (int)str.size()"),
            ("*p", "for (; p != e; ++p)", "const char* p, const char* e",
             "str.data(), str.data() + str.size()")))
        form = rnd.randrange(7)
        if form == 0:
            test = f"std::string({lit}).find({subject}) != std::string::npos"
        elif form == 1:
            test = f"std::string{{{lit}}}.find({subject}) == std::string::npos"
        elif form == 2:
            test = f"std::string_view({lit}).find({subject}) != std::string_view::npos"
        elif form == 3:
            test = f"strchr({lit}, {subject})"
        elif form == 4:
            test = f"!std::strchr({lit}, {subject})"
        elif form == 5:
            test = f"strchr({lit}, {subject}) == NULL"
        else:
            test = f"(k0 > 1 && strchr({lit}, {subject}) != nullptr)"
        uses = (f"if ({test}) h = h * 31 + 1; else h = h * 5 + 2;",
                f"h += ({test}) * 3;", f"bool b = {test}; h = h * 7 + b;")
        # a bare strchr is a pointer: only a condition takes it as a test
        use = uses[0] if form == 3 else rnd.choice(uses)
        code = ("#include <cstring>\n#include <string_view>\n"
                f"unsigned long {name}({params}) {{\n    unsigned long h = 0; int k0 = 0;\n"
                f"    {loop} {{\n        ++k0;\n        {use}\n    }}\n    return h;\n}}\n")
        driver = ("std::string str; for (int b = 0; b < 256; ++b) str.push_back((char)b); "
                  "for (int b = 255; b >= 0; b -= 3) str.push_back((char)b); "
                  f"std::printf(\"%lu\\n\", {name}({arg}));")
        out.append(Variant(name, code, driver))
    return out


@pytest.mark.skipif(not HAVE_GXX, reason="needs g++")
def test_generated_literal_lookups_keep_results(tmp_path: Path) -> None:
    variants = _membership_variants(56, seed=4)
    results = compare(variants, RULES, tmp_path)
    for v in variants:
        res = results[v.name]
        assert res.rules >= RULES, (v.code, res.notes)
        assert "find(" not in res.code and "strchr(" not in res.code, res.code


@pytest.mark.skipif(not HAVE_GXX, reason="needs g++")
def test_the_differential_catches_a_table_without_the_nul_strchr_finds(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from perfpilot.rules.counting import char_membership
    monkeypatch.setattr(char_membership, "STRCHR_ALSO_FINDS", frozenset())
    variants = [v for v in _membership_variants(56, seed=4) if "strchr" in v.code]
    assert variants
    # both builds compile; what they print differs
    with pytest.raises(AssertionError, match=r"^\[\('"):
        compare(variants, RULES, tmp_path)


def test_a_string_literal_decodes() -> None:
    from perfpilot.code.parse import parse
    from perfpilot.rules.counting.char_membership import literal_chars
    lits = {'"ab"': {97, 98}, '"\\t\\n"': {9, 10}, '"\\x41g"': {65, 103}, '"\\1012"': {65, 50},
            '"\\\\\\""': {92, 34}, 'L"ab"': None, 'u8"ab"': None, '"\\x80"': None,
            '"\\u00e9"': None}
    for lit, want in lits.items():
        tree = parse(f"auto x = {lit};", "cpp")
        node = next(n for n in _nodes(tree.root_node) if n.type == "string_literal")
        got = literal_chars(node)
        assert (set(got) if got is not None else None) == want, lit


@pytest.mark.parametrize("code", [
    # the position is used, not only found or not
    "int f(const std::string& s) { int n = 0; for (char c : s) n += std::string(\"abc\")"
    ".find(c); return n; }",
    "int f(const std::string& s) { int n = 0; for (char c : s) if (std::string(\"abc\")"
    ".find(c) < 2) ++n; return n; }",
    # a start position, a named string (which may change), a prefixed or non-ASCII literal
    "int f(const std::string& s) { int n = 0; for (char c : s) if (std::string(\"abc\")"
    ".find(c, 1) != std::string::npos) ++n; return n; }",
    "int f(const std::string& s, std::string t) { int n = 0; for (char c : s) { if "
    "(t.find(c) != std::string::npos) ++n; t += c; } return n; }",
    "int f(const std::wstring& s) { int n = 0; for (wchar_t c : s) if (std::wstring(L\"abc\")"
    ".find(c) != std::wstring::npos) ++n; return n; }",
    "int f(const std::string& s) { int n = 0; for (char c : s) if (std::string(\"ab\\x80\")"
    ".find(c) != std::string::npos) ++n; return n; }",
    # an int subject (EOF)
    "int f(const int* v, int m) { int n = 0; for (int i = 0; i < m; ++i) if (strchr(\"abc\", "
    "v[i])) ++n; return n; }",
    # strchr's pointer is kept
    "int f(const std::string& s) { int n = 0; for (char c : s) { const char* p = "
    "strchr(\"abc\", c); if (p) n += p[0]; } return n; }",
    # one character only
    "int f(const std::string& s) { int n = 0; for (char c : s) if (std::string(\"a\")"
    ".find(c) != std::string::npos) ++n; return n; }",
])
def test_other_lookups_are_left_alone(code: str) -> None:
    site = _site("#include <cstring>\n" + code)
    res = rewrite(site, RULES)
    assert not res.changed, res.code
    assert "char-set-table" not in {f.rule for f in analyze(site)}


# -- a character looked up in a named string ----------------------------------------------------

_SET_TESTS = (
    "{set}.find({x}) != std::string::npos", "{set}.find({x}) == std::string::npos",
    "{set}.find({x}) != {set}.npos", "({set}.find({x}) < {set}.size())",
    "{set}.find({x}) >= {set}.length()", "strchr({set}.c_str(), {x})",
    "!std::strchr({set}.c_str(), {x})", "strchr({set}.c_str(), {x}) != nullptr",
    "strchr({set}.c_str(), {x}) == NULL",
)
_SETS = ('std::string("aeiou")', 'std::string("ab\\0cd\\xff\\x80", 7)', "std::string()",
         'std::string("\\0", 1)', 'std::string(" \\t\\n,.;")', "str")


def _named_variants(count: int, seed: int) -> list[Variant]:
    rnd = random.Random(seed)
    out: list[Variant] = []
    for n in range(count):
        name = f"named{n}"
        subject, loop, params, arg = rnd.choice((
            ("c", "for (char c : s)", "const std::string& s", "str"),
            ("c", "for (unsigned char c : s)", "const std::string& s", "str"),
            ("s[i]", "for (std::size_t i = 0; i < s.size(); ++i)", "const std::string& s", "str"),
            ("u[k]", "for (int k = 0; k < m; ++k)", "const unsigned char* u, int m",
             "(const unsigned char*)str.data(), (int)str.size()"),
            ("*p", "for (const char* p = b; p != e; ++p)", "const char* b, const char* e",
             "str.data(), str.data() + str.size()")))
        set_param, setup = rnd.choice((("const std::string& t", "const std::string& set = t;"),
                                       ("std::string set", ""),
                                       ("const std::string& set", ""),
                                       ("const std::string& t", "std::string set = t;")))
        test = rnd.choice(_SET_TESTS).format(set="set", x=subject)
        uses = (f"if ({test}) h = h * 31 + 1; else h = h * 5 + 2;",
                f"h += ({test}) ? 3 : 0;",
                f"bool in = ({test}); h = h * 7 + in; out.push_back(in);")
        # a bare strchr is a pointer: only a condition takes it as a test
        use = uses[0] if test.startswith("strchr") and test.endswith(")") else rnd.choice(uses)
        if setup.startswith("const std::string&"):
            setup = "std::string set = t;"  # a reference to a parameter: a copy keeps it simple
        body = f"{loop} {{\n        ++k0;\n        {use}\n    }}"
        if rnd.random() < 0.4:
            body = f"for (int r = 0; r < 2; ++r) {{\n    {body}\n    }}"
        code = ("#include <cstring>\n"
                f"unsigned long {name}({params}, {set_param}) {{\n    {setup}\n"
                "    unsigned long h = 0; int k0 = 0; std::vector<int> out;\n"
                f"    {body}\n    for (int v : out) h = h * 3 + v;\n    return h + k0;\n}}\n")
        calls = " ".join(f"std::printf(\"%lu\\n\", {name}({arg}, {st}));" for st in _SETS)
        driver = ("std::string str; for (int b = 0; b < 256; ++b) str.push_back((char)b); "
                  "for (int b = 255; b >= 0; b -= 3) str.push_back((char)b); " + calls)
        out.append(Variant(name, code, driver))
    return out


@pytest.mark.skipif(not HAVE_GXX, reason="needs g++")
def test_generated_named_lookups_keep_results(tmp_path: Path) -> None:
    variants = _named_variants(48, seed=7)
    results = compare(variants, RULES, tmp_path)
    for v in variants:
        res = results[v.name]
        assert res.rules >= RULES, (v.code, res.notes)
        assert "find(" not in res.code and "strchr(" not in res.code, res.code
        assert "set_has[256]" in res.code, res.code


@pytest.mark.skipif(not HAVE_GXX, reason="needs g++")
def test_the_differential_catches_a_named_table_without_the_nul(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from perfpilot.rules.counting import char_set_table
    monkeypatch.setattr(char_set_table, "STRCHR_ALSO_FINDS", frozenset())
    variants = [v for v in _named_variants(48, seed=7) if "strchr" in v.code]
    assert variants
    with pytest.raises(AssertionError, match=r"^\[\('"):
        compare(variants, RULES, tmp_path)


def test_the_named_table_is_built_before_the_outermost_loop_that_keeps_the_string() -> None:
    code = ("int f(const std::string& s, const std::string& set) { int n = 0;\n"
            "    for (int r = 0; r < 3; ++r) {\n        for (char c : s) if (set.find(c) != "
            "std::string::npos) ++n;\n    }\n    return n; }")
    res = rewrite(_site(code), RULES)
    assert res.code.index("set_has[256]") < res.code.index("for (int r"), res.code
    assert "set_has[(unsigned char)c] != 0" in res.code


def test_two_searches_of_one_string_are_one_finding_and_one_table() -> None:
    code = ("int f(const std::string& s, const std::string& set) { int n = 0;\n"
            "    for (char c : s) {\n        if (set.find(c) != std::string::npos) ++n;\n"
            "        if (set.find(c) == std::string::npos) --n;\n    }\n    return n; }")
    found = [f for f in analyze(_site(code)) if f.rule == "char-set-table"]
    assert len(found) == 1 and "1 more search" in found[0].explanation
    res = rewrite(_site(code), RULES)
    assert res.code.count("set_has[256]") == 1 and ".find(" not in res.code, res.code


def test_a_named_search_no_table_answers_ends_in_a_note() -> None:
    code = ("void g(); int f(const std::string& s, const std::string& t) { int n = 0;\n"
            "    for (char c : s) { if (t.find(c) != std::string::npos) ++n; g(); }\n"
            "    return n; }")
    res = rewrite(_site(code), RULES)
    assert not res.changed
    assert any(n.startswith("char-set-table: the search of 't' on line 3 stays:")
               for n in res.notes), res.notes


@pytest.mark.parametrize("code", [
    # the string changes in the loop, directly or through a name that may be it
    "int f(const std::string& s, std::string t) { int n = 0; for (char c : s) { if "
    "(t.find(c) == std::string::npos) t.push_back(c); else ++n; } return n; }",
    "int f(const std::string& s, const std::string& t, std::string& u) { int n = 0; for (char "
    "c : s) { if (t.find(c) != std::string::npos) ++n; u += c; } return n; }",
    "void g(); int f(const std::string& s, const std::string& t) { int n = 0; for (char c : s) "
    "{ if (t.find(c) != std::string::npos) ++n; g(); } return n; }",
    "int f(char* b, char* e, const std::string& t) { int n = 0; for (char* p = b; p != e; ++p) "
    "{ if (t.find(*p) != std::string::npos) ++n; *p = 'x'; } return n; }",
    # made in the loop
    "int f(const std::string& s) { int n = 0; for (char c : s) { std::string t = s.substr(1); "
    "if (t.find(c) != std::string::npos) ++n; } return n; }",
    # a view or a C string (their bytes may change through another name), a vector
    "int f(const std::string& s, std::string_view t) { int n = 0; for (char c : s) if "
    "(t.find(c) != std::string_view::npos) ++n; return n; }",
    "int f(const std::string& s, const char* t) { int n = 0; for (char c : s) if "
    "(strchr(t, c)) ++n; return n; }",
    # the position is used, a start position, another string's size, an int subject
    "int f(const std::string& s, const std::string& t) { int n = 0; for (char c : s) n += "
    "t.find(c) < 3; return n; }",
    "int f(const std::string& s, const std::string& t) { int n = 0; for (char c : s) if "
    "(t.find(c, 1) != std::string::npos) ++n; return n; }",
    "int f(const std::string& s, const std::string& t) { int n = 0; for (char c : s) if "
    "(t.find(c) < s.size()) ++n; return n; }",
    "int f(const std::vector<int>& s, const std::string& t) { int n = 0; for (int c : s) if "
    "(t.find(c) != std::string::npos) ++n; return n; }",
    # not in a loop
    "bool f(char c, const std::string& t) { return t.find(c) != std::string::npos; }",
])
def test_named_lookups_left_alone(code: str) -> None:
    site = _site("#include <cstring>\n#include <string_view>\n#include <vector>\n" + code)
    res = rewrite(site, RULES)
    assert not res.changed, res.code
    assert "char-set-table" not in {f.rule for f in analyze(site)}
