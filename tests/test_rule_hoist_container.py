"""hoist-container fixes what its detection proved: each per-iteration container it reports is
hoisted, or left with a note that names it and says why."""

from __future__ import annotations

from perfpilot.code.locate import function_by_name
from perfpilot.optimizing.builtin import rewrite

_HEAD = "#include <string>\n#include <vector>\n"


def _rewrite(code: str, name: str) -> tuple[str, frozenset[str], tuple[str, ...]]:
    res = rewrite(function_by_name(_HEAD + code, "cpp", name), {"hoist-container"})
    return res.code, res.rules, res.notes


def test_a_container_declared_directly_in_the_body_is_hoisted() -> None:
    text, rules, _ = _rewrite("long f(const std::vector<int>& v, int n) { long t = 0; "
                              "for (int i = 0; i < n; ++i) { std::vector<int> w(v.begin(), "
                              "v.end()); t += (long)w.size(); } return t; }", "f")
    assert rules == frozenset({"hoist-container"})
    assert "std::vector<int> w;" in text and "w.assign(v.begin(), v.end());" in text


def test_a_container_under_a_branch_is_left_with_its_reason() -> None:
    _, rules, notes = _rewrite("long f(const std::vector<int>& v, int n) { long t = 0; "
                               "for (int i = 0; i < n; ++i) { if (i > 2) { std::vector<int> "
                               "w(v.begin(), v.end()); t += (long)w.size(); } } return t; }", "f")
    assert not rules
    assert any(n.startswith("hoist-container: 'w' on line") and
               "not declared directly in the loop's body" in n for n in notes), notes


def test_a_declaration_of_two_containers_is_left_whole() -> None:
    text, rules, notes = _rewrite("long f(int n) { long t = 0; for (int i = 0; i < n; ++i) "
                                  "{ std::string a, b; a += 'x'; b += 'y'; "
                                  "t += (long)(a.size() + b.size()); } return t; }", "f")
    assert not rules and "std::string a, b;" in text
    assert sum("declares more than one variable" in n for n in notes) == 2, notes
