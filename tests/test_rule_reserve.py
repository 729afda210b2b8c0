"""reserve (counted appends): a fresh vector of plain numbers that a counted loop appends to once
per iteration is sized once and filled by index; other element types are reserved. Generated
variants (element types, names, bounds, loop forms) must keep their results; the shapes it
cannot prove are left alone."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from differential_support import HAVE_GXX, Variant, compare
from perfpilot.code.locate import function_by_name
from perfpilot.optimizing.builtin import rewrite
from perfpilot.rules.rewriting import RewriteResult

RULES = frozenset({"reserve"})

_ELEMENTS = ("int", "double", "long", "float", "unsigned", "std::string")
_HEADERS = (
    ("for (int {i} = 0; {i} < n; ++{i})", "{i}"),
    ("for (int {i} = 2; {i} < n; {i}++)", "{i}"),
    ("for (int {i} = 1; {i} <= n; ++{i})", "{i}"),
    ("for (std::size_t {i} = 0; {i} < {src}.size(); ++{i})", "{src}[{i}]"),
    ("for (int {i} = 0; {i} != n; {i} += 1)", "{i}"),
    ("for (int {i} = -3; {i} < n - 1; ++{i})", "{i}"),
)


def _value(element: str, x: str, rnd: random.Random) -> str:
    if element == "std::string":
        return f"std::to_string({x})"
    return rnd.choice((f"{x} * 3 + 1", f"{x} / 2", f"({x}) * ({x})", f"{x} - 7"))


def _variants(count: int, seed: int) -> list[Variant]:
    rnd = random.Random(seed)
    out: list[Variant] = []
    for k in range(count):
        element = rnd.choice(_ELEMENTS)
        header, item = rnd.choice(_HEADERS)
        i, v, src = rnd.choice(("i", "j", "k")), rnd.choice(("out", "res", "vals")), \
            rnd.choice(("a", "input"))
        x = item.format(i=i, src=src)
        method = rnd.choice(("push_back", "emplace_back"))
        body = rnd.choice((
            f"{v}.{method}({_value(element, x, rnd)});",
            f"{{ long t = {x}; t += 2; {v}.{method}({_value(element, 't', rnd)}); }}",
            f"{{ {v}.{method}({_value(element, x, rnd)}); }}",
        ))
        name = f"fill{k}"
        code = (f"std::vector<{element}> {name}(const std::vector<int>& {src}, int n) {{\n"
                f"    int unused = 0;\n    std::vector<{element}> {v};\n    (void)unused;\n"
                f"    {header.format(i=i, src=src)} {body}\n    return {v};\n}}\n")
        fmt = '"%s\\n", e.c_str()' if element == "std::string" else \
            '"%.17g\\n", (double)e'
        driver = (
            f"for (int n : {{{'0' if '!=' in header else '-2, 0'}, 1, 5, 9}}) {{ "
            f"std::vector<int> in(9); "
            f"for (int q = 0; q < 9; ++q) in[q] = q * 7 - 20; "
            f"auto r = {name}(in, n); std::printf(\"size %zu\\n\", r.size()); "
            f"for (auto& e : r) std::printf({fmt}); }}")
        out.append(Variant(name, code, driver))
    return out


@pytest.mark.skipif(not HAVE_GXX, reason="needs g++")
def test_generated_variants_keep_results(tmp_path: Path) -> None:
    variants = _variants(40, seed=3)
    results = compare(variants, RULES, tmp_path)
    for v in variants:
        res = results[v.name]
        assert "reserve" in res.rules, (v.code, res.notes)
        sized = ".resize(" in res.code
        assert sized == ("std::string" not in v.code), res.code
        if sized:
            assert "push_back" not in res.code and "emplace_back" not in res.code


def _rewritten(code: str, name: str) -> RewriteResult:
    src = "#include <string>\n#include <vector>\n" + code
    return rewrite(function_by_name(src, "cpp", name), RULES)


@pytest.mark.parametrize(("code", "words"), [
    # conditional append: the count is not the trip count
    ("std::vector<int> f(int n) { std::vector<int> v; for (int i = 0; i < n; ++i) "
     "if (i % 3) v.push_back(i); return v; }", None),
    # the vector's size is read inside the loop
    ("std::vector<int> f(int n) { std::vector<int> v; for (int i = 0; i < n; ++i) "
     "v.push_back((int)v.size() * 2); return v; }", "reads it"),
    ("std::vector<int> f(int n) { std::vector<int> v; v.push_back(1); for (int i = 1; i < n; "
     "++i) v.push_back(v.back() + i); return v; }", "not declared empty"),
    ("std::vector<int> f(int n) { std::vector<int> v; for (int i = 0; i < n; ++i) { "
     "v.push_back(i); if (v[0] > 3) v[0] = 0; } return v; }", "reads it"),
    # the count is not provable: the body changes the bound, or the loop has no count
    ("std::vector<int> f(int n) { std::vector<int> v; for (int i = 0; i < n; ++i) { "
     "v.push_back(i); if (i == 2) n = 4; } return v; }", "changes 'n'"),
    ("std::vector<int> f(std::vector<int>& a) { std::vector<int> v; for (std::size_t i = 0; "
     "i < a.size(); ++i) { v.push_back(a[i]); if (a[i] > 5) a.push_back(1); } return v; }",
     "may change 'a'"),
    ("std::vector<int> f(int n) { std::vector<int> v; int i = 0; while (i < n) "
     "v.push_back(i++); return v; }", None),
    ("std::vector<int> f(int n) { std::vector<int> v; for (int i = 0; i < n; ++i) { "
     "if (i == 5) continue; v.push_back(i); } return v; }", None),
    # not empty before the loop, or not a local
    ("std::vector<int> f(int n) { std::vector<int> v(3, 1); for (int i = 0; i < n; ++i) "
     "v.push_back(i); return v; }", "not declared empty"),
    ("void f(std::vector<int>& v, int n) { for (int i = 0; i < n; ++i) v.push_back(i); }",
     None),
    ("std::vector<int> f(int n, int s) { std::vector<int> v; for (int i = 0; i < n; i += s) "
     "v.push_back(i); return v; }", None),
])
def test_not_sized(code: str, words: str | None) -> None:
    res = _rewritten(code, "f")
    assert ".resize(" not in res.code, res.code
    assert "push_back" in res.code
    if words:
        said = [*res.notes, *(a.explanation for a in res.applied)]
        assert any(words in n for n in said), said


def test_strings_fall_back_to_reserve() -> None:
    res = _rewritten("std::vector<std::string> f(int n) { std::vector<std::string> v; "
                     "for (int i = 0; i < n; ++i) v.push_back(std::to_string(i)); return v; }",
                     "f")
    assert "v.reserve(" in res.code and "push_back" in res.code
    assert "not plain numbers" in res.applied[0].explanation, res.applied


def test_sized_form_assigns_by_index() -> None:
    res = _rewritten("std::vector<double> f(int n) { std::vector<double> v; "
                     "for (int i = 0; i < n; ++i) v.push_back(i * 0.5); return v; }", "f")
    assert "if (n > 0) v.resize(static_cast<std::size_t>(n));" in res.code, res.code
    assert "v[i] = i * 0.5;" in res.code
    assert "sizing the vector once" in res.applied[0].explanation
