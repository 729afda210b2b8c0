"""repeated-extraction: a loop that finds the extreme element of a container, uses it and
erases it on every pass becomes one sort before the loop and a walk with a count of the elements
taken (``rules/sorting/extraction_loops.py``). Positives, the code it must leave alone, and a g++
differential over generated variants (element types, comparators, iterator and value
forms, loops until empty and counted, vectors and deques) that fails when the sort goes the
wrong way."""

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
from perfpilot.rules.sorting.repeated_extraction import ExtractionProof

RULE = "repeated-extraction"
RULES = frozenset({RULE})
HEAD = ("#include <algorithm>\n#include <deque>\n#include <functional>\n#include <string>\n"
        "#include <vector>\n")


def _rewritten(code: str) -> tuple[str, tuple[str, ...]]:
    res = rewrite(function_by_name(HEAD + code, "cpp", "f"), RULES)
    return (res.code if RULE in res.rules else ""), tuple(res.notes)


@pytest.mark.parametrize(("code", "expected"), [
    ("std::vector<int> f(std::vector<int> pool) { std::vector<int> order; "
     "while (!pool.empty()) { auto it = std::min_element(pool.begin(), pool.end()); "
     "order.push_back(*it); pool.erase(it); } return order; }",
     ["std::sort(pool.begin(), pool.end());", "auto it = pool.begin() + pool_taken;",
      "++pool_taken;", "while (pool_taken != pool.size())"]),
    ("long f(const std::vector<long>& in, int k) { std::vector<long> v(in); long s = 0; "
     "for (int i = 0; i < k && !v.empty(); ++i) { long m = *std::max_element(v.begin(), "
     "v.end()); v.erase(std::find(v.begin(), v.end(), m)); s += m * (long)v.size(); } "
     "return s; }",
     ["std::sort(v.begin(), v.end(), std::greater<long>());", "long m = v[v_taken];",
      "s += m * (long)(v.size() - v_taken);"]),
    # read after a loop that ran until empty: cleared after it
    ("int f(std::deque<int> v) { int s = 0; while (v.size() > 0) { auto it = "
     "std::min_element(v.begin(), v.end(), std::greater<int>()); s = s * 7 + *it; "
     "v.erase(it); } return s + (int)v.size(); }",
     ["std::sort(v.begin(), v.end(), std::greater<int>());", "v.clear();"]),
])
def test_extraction_loops_become_a_sort_and_a_walk(code: str, expected: list[str]) -> None:
    got, notes = _rewritten(code)
    for piece in expected:
        assert piece in got, (got, notes)
    assert "min_element" not in got and "max_element" not in got and ".erase(" not in got


def test_the_finding_names_the_search_and_the_order() -> None:
    code = HEAD + ("std::vector<int> f(std::vector<int> p) {\n    std::vector<int> o;\n"
                   "    while (!p.empty()) {\n"
                   "        auto it = std::max_element(p.begin(), p.end());\n"
                   "        o.push_back(*it);\n        p.erase(it);\n    }\n    return o;\n}\n")
    (finding,) = [f for f in analyze_site(function_by_name(code, "cpp", "f")).findings
                  if f.rule == RULE]
    assert "largest" in finding.explanation and finding.lines[0] == 9
    assert isinstance(finding.proof, ExtractionProof) and finding.proof.extraction.descending


_LOOP = ("while (!v.empty()) { auto it = std::min_element(v.begin(), v.end()); s = s * 3 + *it; "
         "v.erase(it); }")


@pytest.mark.parametrize(("code", "why"), [
    # floating elements: -0.0/0.0 and NaN
    ("double f(std::vector<double> v) { double s = 0; " + _LOOP + " return s; }",
     "floating-point"),
    # the caller's container
    ("int f(std::vector<int>& v) { int s = 0; " + _LOOP + " return s; }", "caller"),
    # what is left is read after a loop that may stop early
    ("int f(std::vector<int> v, int k) { int s = 0; for (int i = 0; i < k; ++i) { "
     "auto it = std::min_element(v.begin(), v.end()); s += *it; v.erase(it); } "
     "return s + v.front(); }", "read after the loop"),
    ("int f(std::vector<int> v) { int s = 0; while (!v.empty()) { auto it = "
     "std::min_element(v.begin(), v.end()); if (*it > 9) break; s += *it; v.erase(it); } "
     "return s + (int)v.size(); }", "read after the loop"),
    # another use of the container in the loop
    ("int f(std::vector<int> v) { int s = 0; while (!v.empty()) { auto it = "
     "std::min_element(v.begin(), v.end()); s += *it + v[0]; v.erase(it); } return s; }",
     "otherwise"),
    # reached another way
    ("int f(std::vector<int> v) { int* p = v.data(); int s = 0; " + _LOOP + " return s + *p; }",
     "reached"),
    ("int f(std::vector<int> v) { int s = 0; auto g = [&] { return v.size(); }; "
     "while (!v.empty()) { auto it = std::min_element(v.begin(), v.end()); s += *it + g(); "
     "v.erase(it); } return s; }", "reached"),
    ("int f(std::vector<int> v) { int s = 0; try { " + _LOOP + " } catch (...) { "
     "return (int)v.size(); } return s; }", "try"),
])
def test_loops_that_must_stay_say_why(code: str, why: str) -> None:
    got, notes = _rewritten(code)
    assert got == ""
    assert any(why in n for n in notes), notes


@pytest.mark.parametrize("code", [
    # the iterator used otherwise, or after the erase
    "int f(std::vector<int> v) { int s = 0; while (!v.empty()) { auto it = "
    "std::min_element(v.begin(), v.end()); if (it == v.begin()) s++; v.erase(it); } return s; }",
    "int f(std::vector<int> v) { int s = 0; while (!v.empty()) { auto it = "
    "std::min_element(v.begin(), v.end()); *it += 1; s += *it; v.erase(it); } return s; }",
    # erases something else; the value's type differs from the element's; the value changes
    "int f(std::vector<int> v) { int s = 0; while (!v.empty()) { auto it = "
    "std::min_element(v.begin(), v.end()); s += *it; v.erase(v.begin()); } return s; }",
    "long f(std::vector<long> v) { long s = 0; while (!v.empty()) { int m = "
    "*std::min_element(v.begin(), v.end()); s += m; v.erase(std::find(v.begin(), v.end(), m)); "
    "} return s; }",
    "int f(std::vector<int> v) { int s = 0; while (!v.empty()) { int m = "
    "*std::min_element(v.begin(), v.end()); m += 1; s += m; "
    "v.erase(std::find(v.begin(), v.end(), m)); } return s; }",
    # another order; the erase under a condition
    "int f(std::vector<int> v) { int s = 0; while (!v.empty()) { auto it = std::min_element("
    "v.begin(), v.end(), [](int a, int b) { return a % 7 < b % 7; }); s = s * 3 + *it; "
    "v.erase(it); } return s; }",
    "int f(std::vector<int> v) { int s = 0; while (!v.empty()) { auto it = "
    "std::min_element(v.begin(), v.end()); s += *it; if (s > 3) v.erase(it); else break; } "
    "return s; }",
    # not the whole container
    "int f(std::vector<int> v) { int s = 0; while (v.size() > 1) { auto it = "
    "std::min_element(v.begin() + 1, v.end()); s += *it; v.erase(it); } return s; }",
])
def test_other_loops_stay(code: str) -> None:
    assert _rewritten(code)[0] == ""


# -- differential ---------------------------------------------------------------------------

_TYPES = ("int", "long long", "unsigned", "short", "char", "std::string")


def _variant(rnd: random.Random, name: str) -> Variant:
    t = rnd.choice(_TYPES)
    box = rnd.choice(("std::vector", "std::deque"))
    search = rnd.choice(("min_element", "max_element"))
    comp = rnd.choice(("", f", std::less<{t}>()", f", std::greater<{t}>()", ", std::greater<>()",
                       ", std::less<>()"))
    call = f"std::{search}(v.begin(), v.end(){comp})"
    value = rnd.random() < 0.5
    if value:
        kind = rnd.choice((t, "auto", f"const {t}"))
        take = [f"{kind} m = *{call};"]
        erase = "v.erase(std::find(v.begin(), v.end(), m));"
        got = "m"
    else:
        kind = rnd.choice(("auto", f"typename {box}<{t}>::iterator", "const auto"))
        take = [f"{kind} it = {call};"]
        erase = "v.erase(it);"
        got = "(*it)"
    mix = f"h = h * 131 + {_hash(t, got)};"
    if t == "std::string" and not value:
        mix = f"{{ std::string w = *it; h = h * 131 + {_hash(t, 'w')}; }}"
    sized = rnd.choice(("", "h += v.size();", "if (v.empty()) h ^= 5;"))
    form = rnd.randrange(5)
    after = rnd.choice(("", "h += v.size() * 1000003;"))
    if form == 0:
        head, guard = "while (!v.empty())", ""
    elif form == 1:
        head, guard = "while (v.size() > 0)", ""
    elif form == 2:
        head, guard, after = "for (int i = 0; i < k; ++i)", "if (v.empty()) break;", ""
    elif form == 3:
        head, guard, after = "for (int i = 0; i < k && !v.empty(); ++i)", "", ""
    else:
        head, guard = "for (; !v.empty();)", ""
    tail = rnd.choice(("", "if (h % 3 == 0) continue;", "h ^= 77;"))
    before, rest = (take, [mix, sized, erase, tail]) if rnd.random() < 0.5 else \
        (take, [erase, mix, sized, tail]) if value else (take, [mix, erase, sized, tail])
    body = " ".join(x for x in [guard, *before, *rest] if x)
    by_value = rnd.random() < 0.5
    params = f"{box}<{t}> v, int k" if by_value else f"const std::vector<{t}>& in, int k"
    copy = "" if by_value else f"{box}<{t}> v(in.begin(), in.end());"
    code = (f"unsigned long {name}({params}) {{\n    {copy}\n    unsigned long h = 7;\n"
            f"    (void)k;\n    {head} {{ {body} }}\n    {after}\n    return h;\n}}\n")
    calls = []
    for data in _inputs(rnd, t):
        arg = f"{box}<{t}>{data}" if by_value else f"std::vector<{t}>{data}"
        for k in (0, 2, 5, 40):
            calls.append(f"std::printf(\"%lu\\n\", {name}({arg}, {k}));")
    return Variant(name, code, " ".join(calls))


def _hash(t: str, got: str) -> str:
    if t == "std::string":
        return f"(unsigned long){got}.size() * 29 + (unsigned long)({got}.empty() ? 0 : " \
               f"(unsigned char){got}[0])"
    return f"(unsigned long)(long long){got}"


def _inputs(rnd: random.Random, t: str) -> list[str]:
    out = ["{}"]
    for size in (1, 4, 9, 23):
        if t == "std::string":
            pool = ['"b"', '"ab"', '""', '"zz"', '"b"', '"abc"', '"q"']
        elif t in ("unsigned", "char"):
            pool = [str(rnd.randint(0, 90)) for _ in range(6)]
        else:
            pool = [str(rnd.randint(-40, 40)) for _ in range(6)]
        out.append("{" + ", ".join(rnd.choice(pool) for _ in range(size)) + "}")
    return out


def _variants(seed: int, count: int) -> list[Variant]:
    rnd = random.Random(seed)
    out = [_variant(rnd, f"rx{i}") for i in range(count)]
    first = out[0]
    # the shared headers lack these
    return [Variant(first.name, "#include <deque>\n#include <functional>\n" + first.code,
                    first.driver), *out[1:]]


@pytest.mark.skipif(not HAVE_GXX, reason="needs g++")
def test_rewritten_loops_take_the_same_values(tmp_path: Path) -> None:
    compare_rewritten(_variants(11, 60), RULES, tmp_path)


@pytest.mark.skipif(not HAVE_GXX, reason="needs g++")
def test_a_sort_the_wrong_way_changes_results(tmp_path: Path) -> None:
    variants = _variants(11, 60)

    def flip(m: re.Match[str]) -> str:
        v, comp = m.group(1), m.group(2)
        return f"std::sort({v}.begin(), {v}.end(){'' if comp else ', std::greater<>()'});"

    def the_wrong_way(unit: str) -> str:
        return re.sub(r"std::sort\((\w+)\.begin\(\), \1\.end\(\)(, std::greater<[^;]*>\(\))?\);",
                      flip, unit)

    _, new_unit, _ = rewrite_all(variants, RULES)
    assert the_wrong_way(new_unit) != new_unit
    assert_breaking_changes_output(variants, RULES, tmp_path, the_wrong_way)


def test_linear_search_leaves_the_extraction_loop_to_this_rule() -> None:
    # The generic "maintain the running result" advice would come first in the plan and name
    # no fix; a scan whose container is not taken apart element by element keeps it.
    taken = HEAD + ("std::vector<int> f(std::vector<int> p) { std::vector<int> o; "
                    "while (!p.empty()) { auto it = std::min_element(p.begin(), p.end()); "
                    "o.push_back(*it); p.erase(it); } return o; }")
    kept = HEAD + ("long f(std::vector<int>& p, int k) { long s = 0; "
                   "for (int i = 0; i < k; ++i) { s += *std::min_element(p.begin(), p.end()); "
                   "p[i % p.size()] += 3; } return s; }")
    rules = [f.rule for f in analyze_site(function_by_name(taken, "cpp", "f")).findings]
    assert RULE in rules and "linear-search-in-loop" not in rules
    rules = [f.rule for f in analyze_site(function_by_name(kept, "cpp", "f")).findings]
    assert "linear-search-in-loop" in rules and RULE not in rules
