"""sorted-insert: a container sorted whole after each element added in a loop, though nothing
else unsorts it, gets the element inserted at ``std::upper_bound`` and loses the sort
(``rules/sorting/kept_sorted.py``). Positives, what must stay, and a g++ differential over generated
variants (element types, vector and deque, orders, conversions of the value pushed, reads,
clears and pops between) that fails when the element goes in at the front."""

from __future__ import annotations

import random
import re
from pathlib import Path

import pytest

from differential_support import (
    HAVE_GXX,
    Variant,
    assert_breaking_changes_output,
    compare_rewritten,
    rewrite_all,
)
from perfpilot.code.locate import function_by_name
from perfpilot.optimizing.builtin import rewrite
from perfpilot.planning.builtin import analyze_site

RULE = "sorted-insert"
RULES = frozenset({RULE})
HEAD = ("#include <algorithm>\n#include <deque>\n#include <functional>\n#include <string>\n"
        "#include <vector>\n")


def _rewritten(code: str) -> tuple[str, tuple[str, ...]]:
    res = rewrite(function_by_name(HEAD + code, "cpp", "f"), RULES)
    return (res.code if RULE in res.rules else ""), tuple(res.notes)


@pytest.mark.parametrize(("code", "expected"), [
    ("long f(const std::vector<int>& xs) { std::vector<int> seen; long acc = 0; "
     "for (int x : xs) { seen.push_back(x); std::sort(seen.begin(), seen.end()); "
     "acc += seen[seen.size() / 2]; } return acc; }",
     "seen.insert(std::upper_bound(seen.begin(), seen.end(), x), x);"),
    ("int f(int n) { std::deque<short> d{}; int s = 0; for (int i = 0; i < n; ++i) { "
     "d.push_back(i * 37 % 11); std::stable_sort(d.begin(), d.end(), std::greater<short>()); "
     "s += d.front() * d.back(); if (i % 5 == 4) d.pop_back(); } return s; }",
     "{ const short d_new = i * 37 % 11; d.insert(std::upper_bound(d.begin(), d.end(), d_new, "
     "std::greater<short>()), d_new); }"),
])
def test_pushes_then_sorts_become_inserts(code: str, expected: str) -> None:
    got, notes = _rewritten(code)
    assert expected in got, (got, notes)
    assert "sort(" not in got


def test_the_finding_names_the_sort() -> None:
    code = HEAD + ("long f(const std::vector<int>& xs) {\n    std::vector<int> s;\n"
                   "    long a = 0;\n    for (int x : xs) {\n        s.push_back(x);\n"
                   "        std::sort(s.begin(), s.end());\n        a += s[0];\n    }\n"
                   "    return a;\n}\n")
    (finding,) = [f for f in analyze_site(function_by_name(code, "cpp", "f")).findings
                  if f.rule == RULE]
    assert "upper_bound" in finding.explanation and finding.lines[0] == 11


_PAIR = "v.push_back(x); std::sort(v.begin(), v.end());"


@pytest.mark.parametrize(("code", "why"), [
    ("double f(const std::vector<double>& xs) { std::vector<double> v; double a = 0; "
     "for (double x : xs) { " + _PAIR + " a += v[v.size() / 2]; } return a; }",
     "floating-point"),
    # not known to start sorted
    ("int f(std::vector<int> v, const std::vector<int>& xs) { int a = 0; for (int x : xs) { "
     + _PAIR + " a += v[0]; } return a; }", "start empty"),
    ("int f(const std::vector<int>& xs) { std::vector<int> v(xs); int a = 0; for (int x : xs) "
     "{ " + _PAIR + " a += v[0]; } return a; }", "without elements"),
    ("int f(const std::vector<int>& xs) { std::vector<int> v = {3, 1}; int a = 0; "
     "for (int x : xs) { " + _PAIR + " a += v[0]; } return a; }", "without elements"),
    # changed otherwise
    ("int f(const std::vector<int>& xs) { std::vector<int> v; int a = 0; for (int x : xs) { "
     + _PAIR + " v[0] = -x; a += v[0]; } return a; }", "changed elsewhere"),
    ("int f(const std::vector<int>& xs) { std::vector<int> v; int a = 0; for (int x : xs) { "
     + _PAIR + " a += v[0]; } v.push_back(-1); for (int x : xs) { " + _PAIR + " } "
     "return a + v[0]; }", "changed elsewhere"),
    ("int f(const std::vector<int>& xs) { std::vector<int> v; int a = 0; for (int x : xs) { "
     "v.push_back(x); std::sort(v.begin(), v.end(), std::greater<int>()); v.push_back(x); "
     "std::sort(v.begin(), v.end()); a += v[0]; } return a; }", "two orders"),
    ("int f(const std::vector<int>& xs) { std::vector<int> v; int* p = nullptr; int a = 0; "
     "for (int x : xs) { " + _PAIR + " p = v.data(); a += *p; } return a; }", "reached"),
    ("int f(const std::vector<int>& xs) { std::vector<int> v; int a = 0; "
     "auto g = [&] { v.push_back(0); }; for (int x : xs) { " + _PAIR + " g(); a += v[0]; } "
     "return a; }", "reached"),
])
def test_pairs_that_must_stay_say_why(code: str, why: str) -> None:
    got, notes = _rewritten(code)
    assert got == ""
    assert any(why in n for n in notes), notes


@pytest.mark.parametrize("code", [
    # something between the push and the sort; a sort of part of it; another comparator
    "int f(const std::vector<int>& xs) { std::vector<int> v; int a = 0; for (int x : xs) { "
    "v.push_back(x); a += v.back(); std::sort(v.begin(), v.end()); } return a; }",
    "int f(const std::vector<int>& xs) { std::vector<int> v; int a = 0; for (int x : xs) { "
    "v.push_back(x); std::sort(v.begin() + 1, v.end()); a += v[0]; } return a; }",
    "int f(const std::vector<int>& xs) { std::vector<int> v; int a = 0; for (int x : xs) { "
    "v.push_back(x); std::sort(v.begin(), v.end(), [](int p, int q) { return p % 5 < q % 5; });"
    " a += v[0]; } return a; }",
])
def test_other_sorts_stay(code: str) -> None:
    assert _rewritten(code)[0] == ""


# -- differential ---------------------------------------------------------------------------

_TYPES = ("int", "long long", "unsigned", "short", "char", "std::string")


def _variant(rnd: random.Random, name: str) -> Variant:
    t = rnd.choice(_TYPES)
    box = rnd.choice(("std::vector", "std::deque"))
    sort = rnd.choice(("std::sort", "std::stable_sort"))
    comp = rnd.choice(("", f", std::less<{t}>()", f", std::greater<{t}>()", ", std::greater<>()"))
    if t == "std::string":
        value = rnd.choice(("x", "x + \"a\"", "std::string(1, x.empty() ? 'q' : x[0])"))
        src, hashed = "std::string", "(unsigned long)w.size() * 7 + (w.empty() ? 0 : w[0])"
    else:
        # a negative double converted to an unsigned type is undefined: no division there
        value = rnd.choice(("x", "x * 3 - 7", "x % 4") if t == "unsigned" else
                           ("x", "x * 3 - 7", "x / 2.5", "x % 4"))
        src = rnd.choice(("long", "int", t))
        hashed = "(unsigned long)(long long)w"
    read = rnd.choice((
        "{ auto w = v[v.size() / 2]; h = h * 131 + " + hashed + "; }",
        "{ auto w = v.front(); h = h * 131 + " + hashed + "; }",
        "for (const auto& w : v) h = h * 31 + " + hashed + ";",
        "h += v.size();"))
    extra = rnd.choice(("", "if (h % 7 == 3) v.clear();", "if (h % 5 == 1) v.pop_back();"))
    loop = rnd.choice(("for (const auto& x : in)", "for (std::size_t i = 0; i < in.size(); ++i)"
                       " for (auto x = in[i]; ; )"))
    if loop.endswith("; )"):
        pre, post = "", " break;"
    else:
        pre, post = "", ""
    code = (f"unsigned long {name}(const std::vector<{src}>& in) {{\n"
            f"    {box}<{t}> v;\n    unsigned long h = 3;\n"
            f"    {loop} {{ {pre}v.push_back({value}); {sort}(v.begin(), v.end(){comp}); "
            f"{read} {extra}{post} }}\n    return h + v.size();\n}}\n")
    calls = []
    for _ in range(4):
        size = rnd.choice((0, 1, 5, 17, 40))
        if src == "std::string":
            items = [rnd.choice(('"b"', '"ab"', '""', '"zz"', '"abc"')) for _ in range(size)]
        elif src in ("unsigned", "char"):
            items = [str(rnd.randint(0, 90)) for _ in range(size)]
        else:
            items = [str(rnd.randint(-30, 30)) for _ in range(size)]
        calls.append(f"std::printf(\"%lu\\n\", {name}(std::vector<{src}>{{{', '.join(items)}}}));")
    return Variant(name, code, " ".join(calls))


def _variants(seed: int, count: int) -> list[Variant]:
    rnd = random.Random(seed)
    out = [_variant(rnd, f"si{i}") for i in range(count)]
    first = out[0]
    # the shared headers lack these
    return [Variant(first.name, "#include <deque>\n#include <functional>\n" + first.code,
                    first.driver), *out[1:]]


@pytest.mark.skipif(not HAVE_GXX, reason="needs g++")
def test_inserted_elements_keep_the_same_sequences(tmp_path: Path) -> None:
    compare_rewritten(_variants(3, 60), RULES, tmp_path)


@pytest.mark.skipif(not HAVE_GXX, reason="needs g++")
def test_an_insert_at_the_front_changes_results(tmp_path: Path) -> None:
    variants = _variants(3, 60)

    def at_the_front(unit: str) -> str:
        return re.sub(r"std::upper_bound\((\w+)\.begin\(\), \1\.end\(\)",
                      r"std::upper_bound(\1.begin(), \1.begin()", unit)

    _, new_unit, _ = rewrite_all(variants, RULES)
    assert at_the_front(new_unit) != new_unit
    assert_breaking_changes_output(variants, RULES, tmp_path, at_the_front)
