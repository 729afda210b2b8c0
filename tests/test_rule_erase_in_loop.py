"""erase-in-loop: a loop that erases the element it is at from a vector, string or deque moves
every later element each time (O(n²) for a filter); the advice names the erase-remove idiom.
A list's erase, a front erase (vector-front-op's) and an erase elsewhere than at the loop's
position are not this rule's."""

from __future__ import annotations

import asyncio

import pytest

from perfpilot.code.locate import function_by_name
from perfpilot.planning.builtin import BuiltinPlanner
from perfpilot.planning.builtin.analysis import analyze
from perfpilot.progress import JobContext

HEAD = "#include <deque>\n#include <list>\n#include <string>\n#include <vector>\n"


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


def test_the_plan_gives_it_as_advice() -> None:
    site = function_by_name(HEAD + """
int drop_blank(std::vector<std::string>& lines) {
    int dropped = 0;
    for (auto it = lines.begin(); it != lines.end();) {
        if (it->empty()) { it = lines.erase(it); ++dropped; }
        else ++it;
    }
    return dropped;
}
""", "cpp", "drop_blank")
    plan = asyncio.run(BuiltinPlanner().plan(site, JobContext()))
    (s,) = [s for s in plan.strategies if s.rule == "erase-in-loop"]
    assert s.category.id == 15 and "lines.erase(std::remove_if" in s.explanation
    assert s.advice, "no rewrite of its own: the plan must not promise one"
