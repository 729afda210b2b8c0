"""Checking model code before it becomes a candidate, and turning answers into candidates."""

from __future__ import annotations

import pytest

from perfpilot.code.locate import function_by_name
from perfpilot.code.site import FunctionSite
from perfpilot.prompting.candidates import (
    CandidateRejected,
    candidate_from_text,
    check_candidate,
    code_from_text,
)
from perfpilot.strategy.values import Candidate, Rejected

UNIT = """#include <vector>
#include <string>
#include <cmath>

struct Point { double x, y; };

double norm2(Point p) { return p.x * p.x + p.y * p.y; }

double total(std::vector<Point> pts, int scale) {
    double s = 0;
    for (std::size_t i = 0; i < pts.size(); ++i) s += std::sqrt(norm2(pts[i])) * scale;
    return s;
}
"""

GOOD = """double total(const std::vector<Point>& pts, int scale) {
    double s = 0;
    for (const Point& p : pts) s += std::sqrt(norm2(p));
    return s * scale;
}
"""


@pytest.fixture
def site() -> FunctionSite:
    return function_by_name(UNIT, "cpp", "total", uri="file:///t.cpp")


def test_by_value_to_const_ref_is_accepted(site: FunctionSite) -> None:
    checked = check_candidate(site, GOOD)
    assert checked.code.startswith("double total(const std::vector<Point>& pts")
    assert not checked.needs_openmp


def test_include_already_in_file_is_dropped_with_a_note(site: FunctionSite) -> None:
    checked = check_candidate(site, "#include <cmath>\n" + GOOD)
    assert "#include" not in checked.code
    assert checked.notes == ("dropped #include <cmath> (the file already has it)",)


def test_a_standard_header_the_file_lacks_is_carried_with_the_candidate(
        site: FunctionSite) -> None:
    checked = check_candidate(site, "#include <algorithm>\n#include <cmath>\n" + GOOD)
    assert "#include" not in checked.code
    assert checked.includes == ("<algorithm>",)
    assert "adds #include <algorithm>" in checked.notes


def test_openmp_pragma_marks_the_candidate(site: FunctionSite) -> None:
    code = GOOD.replace("    for", "    #pragma omp parallel for reduction(+:s)\n"
                        "    for (long i = 0; i < (long)pts.size(); ++i)"
                        " s += std::sqrt(norm2(pts[i]));\n    //")
    assert check_candidate(site, code).needs_openmp


@pytest.mark.parametrize(("code", "reason"), [
    ("", "no code"),
    (UNIT[UNIT.index("double total"):], "same as the original"),
    ('#include "points.h"\n' + GOOD, 'needs #include "points.h", a project header'),
    ("x = 3;\n" + GOOD, "code outside any definition"),
    ("struct Point { int x; };\n" + GOOD, "`Point` (line 1) redefines `Point`"),
    (GOOD.replace("double total", "double total_fast"),
     "no definition of `total`; it defines `total_fast`"),
    (GOOD + GOOD, "defines `total` 2 times"),
    (GOOD.replace("double total", "float total"), "return type from 'double' to 'float'"),
    (GOOD.replace(", int scale", ""), "takes 1 parameters instead of 2"),
    (GOOD.replace("int scale", "long scale"), "parameter 2 from 'int' to 'long'"),
    (GOOD.replace("const std::vector<Point>&", "std::vector<Point>&"), "parameter 1"),
    (GOOD.replace("return s * scale;", "return s * scale"), "does not parse"),
    ("the answer is 42", "no definition of `total`"),
])
def test_rejections_say_why(site: FunctionSite, code: str, reason: str) -> None:
    with pytest.raises(CandidateRejected, match=None) as info:
        check_candidate(site, code)
    assert reason in str(info.value)


def test_restrict_on_pointer_params_is_compatible() -> None:
    unit = "void axpy(int n, double a, const double* x, double* y) {\n" \
           "  for (int i = 0; i < n; ++i) y[i] += a * x[i];\n}\n"
    site = function_by_name(unit, "c", "axpy")
    code = "void axpy(int n, double a, const double* __restrict x, double* restrict y) {\n" \
           "  for (int i = 0; i < n; ++i) y[i] = y[i] + a * x[i];\n}\n"
    assert check_candidate(site, code).code.startswith("void axpy")


def test_candidate_from_planner_text(site: FunctionSite) -> None:
    text = ("<think>hmm</think>[SUGG/]\n- **Memory Usage and Allocation**: pass by const ref\n"
            f"[/SUGG]\n[OPT/]\n```cpp\n{GOOD}```\n[/OPT]\n")
    result = candidate_from_text(site, text, (), "local", 2, "m")
    assert isinstance(result, Candidate)
    assert (result.sample, result.backend, result.notes) == (2, "local", ("model m",))


def test_bare_code_without_markers_is_used(site: FunctionSite) -> None:
    assert code_from_text(GOOD) == GOOD


def test_rejected_record_keeps_the_code(site: FunctionSite) -> None:
    text = "```cpp\n" + GOOD.replace("double total", "double other") + "```"
    result = candidate_from_text(site, text, (), "remote", 1)
    assert isinstance(result, Rejected)
    assert result.sample == 1 and result.answer == text
    assert result.reason == ("extraction failed: one fenced block, which does not define "
                             "`total`; it defines `other`")
