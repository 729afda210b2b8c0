"""erase-in-loop: a loop that erases the element it is at from a vector, string or deque moves
every later element each time (O(n²) for a filter). The plain filter loop becomes the
erase-remove idiom (a g++ differential over 72 generated filters, counted ones included, checks it
computes the same);
any other such loop keeps the advice, with the reason. A list's erase, a front erase
(vector-front-op's) and an erase elsewhere than at the loop's position are not this rule's."""

from __future__ import annotations

import asyncio
import itertools
import shutil
from pathlib import Path

import pytest

from compile_support import assert_no_difference
from perfpilot.code.locate import function_by_name
from perfpilot.planning.builtin import BuiltinPlanner
from perfpilot.planning.builtin.analysis import analyze
from perfpilot.progress import JobContext
from perfpilot.rules.rewriting import rewrite

HEAD = ("#include <cstdio>\n#include <deque>\n#include <list>\n#include <string>\n"
        "#include <vector>\n")


def _rules(body: str, params: str) -> dict[str, str]:
    site = function_by_name(HEAD + f"void f({params}) {{\n{body}\n}}\n", "cpp", "f")
    return {f.rule: f.explanation for f in analyze(site)}


@pytest.mark.parametrize("body, params, erased", [
    (" for (auto p = xs.begin(); p != xs.end();) { if (*p % 3 == 0) p = xs.erase(p); "
     "else ++p; }", "std::vector<long>& xs", "xs.erase(p)"),
    (" std::size_t k = 0;\n while (k < ds.size()) { if (ds[k] > 1.5) ds.erase(ds.begin() + k);"
     " else ++k; }", "std::deque<double>& ds", "ds.erase(ds.begin() + k)"),
    (" for (std::size_t j = 0; j < text.size();) { if (text[j] == '\\t') text.erase(j, 1); "
     "else ++j; }", "std::string& text", "text.erase(j, 1)"),
    (" for (std::size_t n = 0; n < ws.size();) { if (ws[n].empty()) "
     "ws.erase(std::next(ws.begin(), n)); else ++n; }", "std::vector<std::string>& ws",
     "ws.erase(std::next(ws.begin(), n))"),
])
def test_an_erase_at_the_loops_position_is_found(body: str, params: str, erased: str) -> None:
    words = _rules(body, params)["erase-in-loop"]
    assert f"`{erased}`" in words and "O(n²)" in words and "std::remove_if" in words, words


@pytest.mark.parametrize("body, params", [
    # a list's erase moves nothing
    (" for (auto p = ls.begin(); p != ls.end();) { if (*p < 0) p = ls.erase(p); else ++p; }",
     "std::list<int>& ls"),
    # the front: vector-front-op's
    (" for (int r = 0; r < 4 && !v.empty(); ++r) v.erase(v.begin());", "std::vector<int>& v"),
    # another container than the one the loop walks
    (" for (std::size_t i = 0; i < a.size(); ++i) if (a[i] < 0) b.erase(b.begin() + i);",
     "const std::vector<int>& a, std::vector<int>& b"),
    # a position the loop's variable does not name directly
    (" for (auto q = ws.begin(); q != ws.end();) { if (q->empty()) "
     "q = ws.erase(std::next(ws.begin(), q - ws.begin())); else ++q; }",
     "std::vector<std::string>& ws"),
    # a fixed position, not the loop's
    (" for (std::size_t i = 0; i < v.size(); ++i) if (v[i] < 0) { v.erase(v.begin() + 2); "
     "break; }", "std::vector<int>& v"),
])
def test_other_erases_are_not_this_rule(body: str, params: str) -> None:
    assert "erase-in-loop" not in _rules(body, params)


def test_a_loop_that_does_more_is_advice_in_the_plan() -> None:
    site = function_by_name(HEAD + """
#include <cstdio>
int drop_blank(std::vector<std::string>& lines) {
    int dropped = 0;
    for (auto it = lines.begin(); it != lines.end();) {
        if (it->empty()) { it = lines.erase(it); std::printf("dropped\\n"); }
        else ++it;
    }
    return dropped;
}
""", "cpp", "drop_blank")
    plan = asyncio.run(BuiltinPlanner().plan(site, JobContext()))
    (s,) = [s for s in plan.strategies if s.rule == "erase-in-loop"]
    assert s.category.id == 15 and "lines.erase(std::remove_if" in s.explanation
    # a print is more than a filter: the plan must not promise a rewrite
    assert "a branch does more than erase" in s.advice, s.advice


def test_a_counted_filter_adds_the_count_from_the_sizes() -> None:
    code, notes = _filter(" int removed = 0;\n for (auto it = v.begin(); it != v.end();) {\n"
                          "  if (*it % 2 == 0) { it = v.erase(it); ++removed; }\n"
                          "  else ++it;\n }\n v.push_back(removed);", "std::vector<int>& v")
    assert "const auto old_size = v.size();" in code, (code, notes)
    assert "removed += static_cast<int>(old_size - v.size());" in code, code
    assert "[&](int x) { return x % 2 == 0; }" in code, code


def _filter(body: str, params: str) -> tuple[str, tuple[str, ...]]:
    site = function_by_name(HEAD + f"void f({params}) {{\n{body}\n}}\n", "cpp", "f")
    res = rewrite(site, {"erase-in-loop"})
    return res.code, res.notes


@pytest.mark.parametrize("body, params, why", [
    # the count is kept in a reference (it might be an element), or the condition reads it
    (" for (auto p = v.begin(); p != v.end();) { if (*p < 0) { p = v.erase(p); ++n; } "
     "else ++p; }", "std::vector<int>& v, int& n", "not a plain local number"),
    (" int n = 0;\n for (auto p = v.begin(); p != v.end();) { if (*p < n) { p = v.erase(p); "
     "++n; } else ++p; }", "std::vector<int>& v", "not a plain local number"),
    # the loop prints what it erases
    (" for (auto p = v.begin(); p != v.end();) { if (*p < 0) { p = v.erase(p); "
     "std::printf(\"-\"); } else ++p; }", "std::vector<int>& v", "a branch does more"),
    # a reference may name an element the filter moves
    (" const int& first = v[0];\n for (std::size_t i = 0; i < v.size();) { if (v[i] == first) "
     "v.erase(v.begin() + i); else ++i; }", "std::vector<int>& v", "condition does more"),
    # the condition reads the cursor itself, or a neighbour
    (" for (std::size_t i = 0; i < v.size();) { if (i % 2 == 0) v.erase(v.begin() + i); "
     "else ++i; }", "std::vector<int>& v", "condition does more"),
    (" for (std::size_t i = 0; i < v.size();) { if (v[i] == v[0]) v.erase(v.begin() + i); "
     "else ++i; }", "std::vector<int>& v", "condition does more"),
    # a call that may have an effect
    (" for (auto p = v.begin(); p != v.end();) { if (check(*p)) p = v.erase(p); else ++p; }",
     "std::vector<int>& v", "condition does more"),
    # the cursor outlives the loop
    (" std::size_t i = 0;\n for (; i < v.size();) { if (v[i] < 0) v.erase(v.begin() + i); "
     "else ++i; }", "std::vector<int>& v", "does not declare"),
    (" std::size_t i = 0;\n while (i < v.size()) { if (v[i] < 0) v.erase(v.begin() + i); "
     "else ++i; }", "std::vector<int>& v", "not a `for` loop"),
])
def test_a_loop_that_is_more_than_a_filter_stays_with_the_reason(body: str, params: str,
                                                                  why: str) -> None:
    code, notes = _filter(body, params)
    assert "remove_if" not in code, code
    assert any(why in n for n in notes), notes


# Generated filters: element types, loop forms (iterator or index, the erase taken when the
# condition holds or when it fails), conditions reading parameters.
FORMS = {
    "iterator": ("for (auto it = v.begin(); it != v.end();) {{\n  if ({c}) it = v.erase(it);\n"
                 "  else ++it;\n}}", "*it"),
    "index": ("for (std::size_t i = 0; i < v.size();) {{\n  if ({c}) v.erase(v.begin() + i);\n"
              "  else ++i;\n}}", "v[i]"),
    "kept-first": ("for (auto it = v.begin(); it != v.end();) {{\n  if ({c}) {{\n    it++;\n"
                   "  }} else {{\n    it = v.erase(it);\n  }}\n}}", "*it"),
    "next": ("for (std::size_t j = 0; j < v.size();) {{\n  if ({c}) "
             "v.erase(std::next(v.begin(), j));\n  else ++j;\n}}", "v[j]"),
    "counted": ("for (auto it = v.begin(); it != v.end();) {{\n  if ({c}) {{\n"
                "    it = v.erase(it);\n    removed++;\n  }} else {{\n    ++it;\n  }}\n}}",
                "*it"),
    "counted-kept-first": ("for (std::size_t i = 0; i < v.size();) {{\n  if ({c})\n    ++i;\n"
                           "  else {{\n    removed += 1;\n    v.erase(v.begin() + i);\n  }}\n}}",
                           "v[i]"),
}
TYPES = {"std::vector<int>": "int", "std::deque<long>": "long", "std::vector<double>": "double",
         "std::string": "char"}
CONDS = ("{e} < k", "{e} % 3 == 0 || {e} > k", "!({e} >= k - 2 && {e} <= k + 2)")


def _variants() -> list[tuple[str, str, str]]:
    out = []
    for form, (vtype, etype), cond in itertools.product(FORMS, TYPES.items(), CONDS):
        loop, elem = FORMS[form]
        c = cond.format(e=elem if etype != "double" else f"(long){elem}")
        name = f"f_{form.replace('-', '_')}_{len(out)}"
        code = (f"long {name}({vtype}& v, long k) {{\n    long removed = 0;\n" + "\n".join(
            "    " + ln for ln in loop.format(c=c).splitlines()) + "\n    return removed;\n}\n")
        out.append((name, vtype, code))
    return out


@pytest.mark.skipif(shutil.which("g++") is None, reason="needs g++")
def test_generated_filters_compute_what_the_loops_computed(tmp_path: Path) -> None:
    variants = _variants()
    orig, opt, calls = [], [], []
    for name, vtype, code in variants:
        new = rewrite(function_by_name(HEAD + code, "cpp", name), {"erase-in-loop"})
        assert "std::remove_if" in new.code and "erase(it)" not in new.code, new.notes
        orig.append(code)
        opt.append(new.code)
        make = f"{vtype} v, w;"
        push = "v.push_back(static_cast<char>('0' + (x % 75)));" if vtype == "std::string" \
            else "v.push_back(x);"
        calls.append(f"""
    for (int n = 0; n < 40; ++n) {{
        {make}
        for (int t = 0; t < n; ++t) {{ long x = (t * 7919L + n * 31L) % 97 - 20; {push} }}
        w = v;
        const long a = orig::{name}(v, n % 13), b = opt::{name}(w, n % 13);
        if (v != w || a != b) {{ std::printf("{name} differs at n=%d\\n", n); ++bad; }}
    }}""")
    program = (HEAD + "#include <algorithm>\n#include <cstdio>\n#include <iterator>\n"
               "namespace orig {\n" + "".join(orig) + "}\nnamespace opt {\n" + "".join(opt)
               + "}\nint main() {\n    int bad = 0;" + "".join(calls)
               + "\n    std::printf(\"%d\\n\", bad);\n    return bad != 0;\n}\n")
    assert_no_difference(tmp_path, program)
