"""The tests around a statement (``rules/parallel/enclosing_tests.py``) and the OpenMP rule's use of
them: under ``if (&a != &b)`` the loop needs no second test, in its ``else`` it stays serial, and a
name the branch declares again keeps its test."""

from __future__ import annotations

import pytest

from perfpilot.code.locate import function_by_name
from perfpilot.code.parse import parse
from perfpilot.code.syntax import (
    walk,
)
from perfpilot.optimizing.builtin import rewrite
from perfpilot.rules.parallel.enclosing_tests import EnclosingTests, compact, enclosing_tests

HEADERS = "#include <vector>\n"
V = "std::vector<std::vector<double>>"
NEST = "for (int i = 1; i < n; ++i) for (int j = 1; j < m; ++j) a[j][i] = b[j - 1][i + 1] + 1;"
OPENMP = frozenset({"openmp-for"})


def _enclosing(code: str, marker: str) -> EnclosingTests:
    tree = parse(code, "cpp")
    (stmt,) = [n for n in walk(tree.root_node)
               if n.type == "expression_statement" and marker in n.text.decode()]
    return enclosing_tests(stmt)


def _tests_at(code: str, marker: str) -> tuple[frozenset[str], frozenset[str]]:
    got = _enclosing(code, marker)
    return got.held, got.refuted


def test_a_taken_if_holds_each_conjunct_and_an_else_refutes_the_whole_test() -> None:
    code = """void f(int* p, int* q, int n) {
        if ((p != q) && n > 2) { if (n < 9) { mark1(); } else { mark2(); } }
        else { mark3(); }
        auto g = [&] { if (n) { mark4(); } };
    }"""
    assert _tests_at(code, "mark1") == ({"p!=q", "n>2", "n<9"}, frozenset())
    assert _tests_at(code, "mark2") == ({"p!=q", "n>2"}, {"n<9"})
    assert _tests_at(code, "mark3") == (frozenset(), {"(p!=q)&&n>2"})
    # a lambda's body runs when the lambda is called: nothing outside it holds there
    assert _tests_at(code, "mark4") == ({"n"}, frozenset())


def test_a_name_declared_again_in_the_branch_or_an_if_with_a_declaration_says_nothing() -> None:
    code = """void f(int* p, int* q, int* r) {
        if (p != q && q != r) { int* p = r; mark1(); }
        if (p != q) { } else { auto [p, s] = g(); mark2(); }
        if (int* t = p; t != q) { mark3(); }
        if (p != q || q != r) { mark4(); }
    }"""
    assert _tests_at(code, "mark1") == ({"q!=r"}, frozenset())
    assert _tests_at(code, "mark2") == (frozenset(), frozenset())
    assert _tests_at(code, "mark3") == (frozenset(), frozenset())
    # a disjunction holds as a whole, never its parts
    assert _tests_at(code, "mark4") == ({"p!=q||q!=r"}, frozenset())
    assert compact(" & a != & b ") == "&a!=&b"
    assert compact("((p < q) || (q < p))") == "(p<q)||(q<p)"


def test_only_tests_the_statement_runs_right_after_hold_now() -> None:
    code = """void f(int* p, int* q, int n) {
        if (p < q) { if (n > 1) { /* first */ mark1(); } }
        if (p < q) { p = q; mark2(); }
        if (p < q) { for (int i = 0; i < n; ++i) mark3(); }
        if (p < q) mark4(); else { mark5(); }
    }"""
    assert _enclosing(code, "mark1").held_now == {"p<q", "n>1"}
    assert _enclosing(code, "mark2").held_now == frozenset()
    assert _enclosing(code, "mark2").held == {"p<q"}
    assert _enclosing(code, "mark3").held_now == frozenset()
    assert _enclosing(code, "mark4").held_now == {"p<q"}
    assert _enclosing(code, "mark5").refuted == {"p<q"}


def _parallel(code: str) -> tuple[str, tuple[str, ...]]:
    res = rewrite(function_by_name(HEADERS + code, "cpp", "f"), OPENMP)
    return res.code, res.notes


def test_a_loop_under_the_address_test_needs_no_second_one() -> None:
    code, _ = _parallel(f"void f({V}& a, const {V}& b, int n, int m) {{\n"
                        f"    if (&b != &a) {{\n        {NEST}\n    }}\n}}")
    assert "#pragma omp parallel for\n" in code and "if(&" not in code, code


def test_a_loop_in_the_else_of_the_address_test_stays_serial() -> None:
    code, notes = _parallel(f"void f({V}& a, const {V}& b, int n, int m) {{\n"
                            f"    if (&a != &b) {{\n        return;\n    }} else {{\n"
                            f"        {NEST}\n    }}\n}}")
    assert "pragma" not in code, code
    assert any("are one object" in n for n in notes), notes


ROW = "for (int i = 1; i < n; ++i) for (int j = 1; j < m; ++j) a[j][i] = b[i + 1] * 2;"


def test_a_range_test_the_loop_runs_right_after_is_not_repeated() -> None:
    # `b` may be a row of `a`: the rule's own test, and the same test written around the loop
    sig = f"void f({V}& a, const std::vector<double>& b, int n, int m) {{\n"
    alone, _ = _parallel(sig + f"    {ROW}\n}}")
    (test,) = [ln.split("= ", 1)[1].rstrip(";") for ln in alone.splitlines() if "apart =" in ln]
    code, _ = _parallel(sig + f"    if ({test}) {{\n        {ROW}\n    }}\n}}")
    assert "#pragma omp parallel for\n" in code and "apart" not in code, code
    serial, notes = _parallel(sig + f"    if ({test}) return;\n    else {{\n        {ROW}\n"
                              "    }\n}")
    assert "pragma" not in serial and any("overlap" in n for n in notes), (serial, notes)
    # something runs between the test and the loop: it may have moved `a`'s elements
    later, _ = _parallel(sig + f"    if ({test}) {{\n        a.resize(n);\n        {ROW}\n"
                         "    }\n}")
    assert "if(apart" in later, later


@pytest.mark.parametrize("code", [
    # no test around the loop
    f"void f({V}& a, const {V}& b, int n, int m) {{\n    {NEST}\n}}",
    # another test
    f"void f({V}& a, const {V}& b, int n, int m) {{\n    if (n > 1) {{\n        {NEST}\n    }}\n}}",
    # the tested name is declared again in the branch: the loop's `b` is another object
    f"void f({V}& a, const {V}& b, {V}& c, int n, int m) {{\n    if (&a != &b) {{\n"
    f"        const {V}& b = c;\n        {NEST}\n    }}\n}}",
    # the else of a test with more than one part does not say which part failed
    f"void f({V}& a, const {V}& b, int n, int m) {{\n    if (&a != &b && n > 4) {{\n"
    f"        return;\n    }} else {{\n        {NEST}\n    }}\n}}",
])
def test_the_loop_keeps_its_own_test_where_nothing_proves_it(code: str) -> None:
    got, _ = _parallel(code)
    assert "#pragma omp parallel for if(&a != &b)" in got, got
