# ruff: noqa: E501  (C++ fixtures keep one function a line)
"""A loop that changes a container through another name for it (a local pointer, reference or
iterator, declared in the body or before the loop) is neither parallelized nor has the
container's size hoisted out of its condition; the same loops without the alias still are.
Likewise an invariant math call is not hoisted past a write through a pointer or reference to
what it reads."""

from __future__ import annotations

import pytest

from perfpilot.code.locate import function_by_name
from perfpilot.code.loops import LoopFacts, all_loops, function_loops
from perfpilot.rules.rewriting import RewriteResult, rewrite

OPENMP = frozenset({"openmp-for", "openmp-reduction"})
HOIST = frozenset({"hoist-invariant-call"})

HEAD = "#include <cmath>\n#include <map>\n#include <vector>\nvoid grow(std::vector<int>& v);\n"

# Each loop sums v[i] while growing v through an alias of it; the condition reads v.size().
GROWS = {
    "reference_in_body": "int f(std::vector<int>& v) { int s = 0; for (std::size_t i = 0; i < v.size(); ++i) { std::vector<int>& r = v; if (v[i] == 3) r.push_back(4); s += v[i]; } return s; }",
    "reference_before_loop": "int f(std::vector<int>& v) { int s = 0; std::vector<int>& r = v; for (std::size_t i = 0; i < v.size(); ++i) { if (v[i] == 3) r.push_back(4); s += v[i]; } return s; }",
    "auto_pointer_before_loop": "int f(std::vector<int>& v) { int s = 0; auto* q = &v; for (std::size_t i = 0; i < v.size(); ++i) { if (v[i] == 3) q->push_back(4); s += v[i]; } return s; }",
    "pointer_in_body": "int f(std::vector<int>& v) { int s = 0; for (std::size_t i = 0; i < v.size(); ++i) { std::vector<int>* q = &v; if (v[i] == 3) q->push_back(4); s += v[i]; } return s; }",
    "auto_reference_clear": "int f(std::vector<int>& v) { int s = 0; auto& r = v; for (std::size_t i = 0; i < v.size(); ++i) { s += v[i]; if (s > 100) r.clear(); } return s; }",
    "pointer_passed_to_call": "int f(std::vector<int>& v) { int s = 0; auto* q = &v; for (std::size_t i = 0; i < v.size(); ++i) { if (v[i] == 3) grow(*q); s += v[i]; } return s; }",
    "pointer_through_pointer": "int f(std::vector<int>& v) { int s = 0; std::vector<int>* p = &v; auto* q = p; for (std::size_t i = 0; i < v.size(); ++i) { if (v[i] == 3) q->resize(1); s += v[i]; } return s; }",
    "dereferenced_pointer_method": "int f(std::vector<int>& v) { int s = 0; auto* q = &v; for (std::size_t i = 0; i < v.size(); ++i) { if (v[i] == 3) (*q).pop_back(); s += v[i]; } return s; }",
}

# The same loops with nothing reaching v but v itself (reads through an alias are fine).
CLEAN = "int f(std::vector<int>& v) { int s = 0; for (std::size_t i = 0; i < v.size(); ++i) { s += v[i]; } return s; }"
CLEAN_READ_ALIAS = "int f(std::vector<int>& v) { int s = 0; const std::vector<int>& r = v; for (std::size_t i = 0; i < v.size(); ++i) { s += r[i]; } return s; }"

# A vector of vectors grown through an iterator into it: parallel iterations would race.
ITERATOR_GROWS = "int f(std::vector<std::vector<int>>& m, int n) { int s = 0; for (int i = 0; i < n; ++i) { auto it = m.begin(); it->push_back(i); s += i; } return s; }"
ITERATOR_CLEAN = "int f(std::vector<std::vector<int>>& m, int n) { int s = 0; for (int i = 0; i < n; ++i) { std::vector<int> t; auto it = t.begin(); s += i + (int)m[i].size() + (it == t.end()); } return s; }"


def _site(code: str):  # type: ignore[no-untyped-def]
    return function_by_name(HEAD + code + "\n", "cpp", "f")


def _outer(code: str) -> LoopFacts:
    return next(lp for lp in all_loops(function_loops(_site(code))) if lp.depth == 0)


def _rewrite(code: str, rules: frozenset[str]) -> RewriteResult:
    return rewrite(_site(code), rules)


@pytest.mark.parametrize("name", sorted(GROWS))
def test_a_loop_growing_its_container_through_an_alias_is_not_parallel(name: str) -> None:
    lp = _outer(GROWS[name])
    assert not lp.independent, name
    assert "changes a shared object" in lp.reason or "may have side effects" in lp.reason, \
        (name, lp.reason)
    assert "#pragma omp" not in _rewrite(GROWS[name], OPENMP).code, name


def test_the_refusal_names_the_container_the_alias_reaches() -> None:
    reason = _outer(GROWS["reference_in_body"]).reason
    assert "'r.push_back()'" in reason and "'v'" in reason, reason


@pytest.mark.parametrize("name", sorted(GROWS))
def test_a_size_changed_through_an_alias_stays_in_the_condition(name: str) -> None:
    lp = _outer(GROWS[name])
    assert not any(c.text == "v.size()" for c in lp.invariant_calls), name
    out = _rewrite(GROWS[name], HOIST)
    assert "v_size" not in out.code and "i < v.size()" in out.code, (name, out.code)


def test_a_pointer_declared_before_the_loop_gets_the_parameters_refusal() -> None:
    out = _rewrite(GROWS["auto_pointer_before_loop"], HOIST)
    assert any("`v.size()` in the condition" in n and "reached through a reference or pointer"
               in n for n in out.notes), out.notes


def test_an_iterator_into_a_container_of_containers_blocks_parallel() -> None:
    lp = _outer(ITERATOR_GROWS)
    assert not lp.independent and "it.push_back()" in lp.reason, lp.reason
    assert "#pragma omp" not in _rewrite(ITERATOR_GROWS, OPENMP).code


def test_an_iterator_into_a_local_of_the_body_is_private() -> None:
    lp = _outer(ITERATOR_CLEAN)
    assert lp.independent, lp.reason


@pytest.mark.parametrize("code", [CLEAN, CLEAN_READ_ALIAS])
def test_without_a_write_through_an_alias_both_rules_still_rewrite(code: str) -> None:
    assert "#pragma omp parallel for reduction(+:s)" in _rewrite(code, OPENMP).code
    out = _rewrite(code, HOIST).code
    assert "const auto v_size = v.size();" in out and "i < v_size" in out, out


# An invariant math call whose argument the loop changes through a pointer or reference.
MATH_CHANGED = {
    "pointer": "double f(const double* a, int n, double x) { double* p = &x; double s = 0; for (int i = 0; i < n; ++i) { *p += 1.0; s += std::sqrt(x) * a[i]; } return s; }",
    "reference": "double f(const double* a, int n, double x) { double& r = x; double s = 0; for (int i = 0; i < n; ++i) { r += 1.0; s += std::sqrt(x) * a[i]; } return s; }",
    "read_through_pointer": "double f(const double* a, int n, double x) { double* p = &x; double s = 0; for (int i = 0; i < n; ++i) { x += 1.0; s += std::sqrt(*p) * a[i]; } return s; }",
}
MATH_CLEAN = "double f(const double* a, int n, double x) { double y = 0; double* p = &y; double s = 0; for (int i = 0; i < n; ++i) { *p += 1.0; s += std::sqrt(x) * a[i]; } return s + y; }"


@pytest.mark.parametrize("name", sorted(MATH_CHANGED))
def test_a_math_call_changed_through_an_alias_stays(name: str) -> None:
    out = _rewrite(MATH_CHANGED[name], HOIST).code
    assert "const auto sqrt" not in out and "std::sqrt(" in out.split("for (")[1], (name, out)


def test_a_write_through_an_alias_of_something_else_still_hoists() -> None:
    out = _rewrite(MATH_CLEAN, HOIST).code
    assert "const auto sqrt_x = std::sqrt(x);" in out, out


def test_a_position_another_containers_method_returns_does_not_reach_the_condition() -> None:
    # ``it`` points into ``index`` (the map whose find made it): writing through it cannot
    # change v, so v.size() still moves out of the condition; a find on v itself would not
    code = ("int f(std::vector<int>& v, std::map<int, int>& index) { int s = 0; "
            "for (std::size_t i = 0; i < v.size(); ++i) { auto it = index.find(s); "
            "if (it != index.end()) it->second += 1; s += v[i]; } return s; }")
    out = _rewrite(code, HOIST)
    assert "const auto v_size = v.size();" in out.code, out.notes
