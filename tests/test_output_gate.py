"""The output gate: what a candidate's text must look like before it reaches the user's file.

- The lines a candidate changed are formatted in the file's style (clang-format with the
  project's ``.clang-format``, else a style read off the file), and only those lines; the same
  for a model's candidates, whose logic is never touched.
- A candidate may not add a compiler warning (``-Wall -Wextra -Wshadow``) the original does not
  have: the warnings are compared without their places and type spellings, as multisets, and
  the runner rejects a model's candidate that adds one before building it.
"""

from __future__ import annotations

import asyncio
import shutil
from pathlib import Path

import pytest

from perfpilot.code.locate import function_by_name
from perfpilot.code.site import FunctionSite
from perfpilot.optimizing import formatting
from perfpilot.optimizing.builtin import BuiltinOptimizer
from perfpilot.optimizing.formatting import changed_lines, format_candidate, inferred_style
from perfpilot.optimizing.llm_optimizer import result_from_answers
from perfpilot.planning.builtin import BuiltinPlanner
from perfpilot.progress import JobContext
from perfpilot.runner.admission import sandbox_verdict
from perfpilot.runner.compiler_warnings import (
    added_warnings,
    check_flags,
    describe_added,
    warning_lines,
)
from perfpilot.runner.measure import verify_and_measure
from perfpilot.runner.sandbox import detect_sandbox
from perfpilot.runner.values import Verdict
from perfpilot.settings import RunnerSettings
from perfpilot.strategy.values import Plan

needs_clang_format = pytest.mark.skipif(shutil.which("clang-format") is None,
                                        reason="clang-format is not installed")

TWO_SPACES = """\
#include <vector>

double energy(const std::vector<double>& v) {
  double   acc = 0;
  for (std::size_t i = 0; i < v.size(); ++i) {
    acc += v[i] * v[i] * v[i];
  }
  return acc;
}
"""


def _site(unit: str, name: str, uri: str = "untitled:gate.cpp") -> FunctionSite:
    return function_by_name(unit, "cpp", name, uri=uri)


def _style(unit: str, name: str) -> str:
    site = _site(unit, name)
    return inferred_style(unit, site.text, 0)


# ---- the style read off a file ---------------------------------------------------------------


def test_the_indentation_step_is_read_off_the_file() -> None:
    assert "IndentWidth: 2," in _style(TWO_SPACES, "energy")
    four = TWO_SPACES.replace("\n  ", "\n    ").replace("\n      ", "\n        ")
    assert "IndentWidth: 4," in _style(four, "energy")
    tabs = TWO_SPACES.replace("\n    ", "\n\t\t").replace("\n  ", "\n\t")
    assert "UseTab: ForIndentation" in _style(tabs, "energy")


def test_braces_on_their_own_lines_are_read_off_the_file() -> None:
    allman = ("int f(int n)\n{\n    int s = 0;\n    for (int i = 0; i < n; ++i)\n    {\n"
              "        s += i;\n    }\n    if (s > 3)\n    {\n        s = 3;\n    }\n"
              "    return s;\n}\n")
    assert "BreakBeforeBraces: Allman" in _style(allman, "f")
    attached = allman.replace(")\n    {", ") {").replace(")\n{", ") {")
    style = _style(attached, "f")
    assert "BreakBeforeBraces: Custom" in style and "AfterFunction: false" in style


def test_one_line_ifs_and_functions_stay_allowed_where_the_file_has_them() -> None:
    short = "int f(int n) { return n + 1; }\nint g(int n) {\n    if (n < 0) return 0;\n" \
        "    return n;\n}\n"
    assert "AllowShortIfStatementsOnASingleLine: WithoutElse" in _style(short, "g")
    assert "AllowShortFunctionsOnASingleLine: All" in _style(short, "f")
    assert "AllowShortFunctionsOnASingleLine: None" in _style(short, "g")
    assert "AllowShortIfStatementsOnASingleLine: Never" in _style(TWO_SPACES, "energy")


def test_changed_lines_are_those_added_or_replaced() -> None:
    before = "a\nb\nc\nd"
    assert changed_lines(before, "a\nB\nc\nd") == [(2, 2)]
    assert changed_lines(before, "a\nb\nx\ny\nc\nd") == [(3, 4)]
    assert changed_lines(before, "a\nc\nd") == []


# ---- formatting a candidate ------------------------------------------------------------------


def _rewritten(site: FunctionSite, old: str, new: str) -> str:
    assert old in site.text
    return site.text.replace(old, new)


@needs_clang_format
def test_only_the_changed_lines_are_formatted_in_the_files_style() -> None:
    site = _site(TWO_SPACES, "energy")
    code = _rewritten(site, "    acc += v[i] * v[i] * v[i];",
                      "    const double x=v[i];\n    acc+=x*x*x;")
    out = format_candidate(site, code)
    # the new lines at the file's two-space step, spaced as the file spaces them
    assert "\n    const double x = v[i];\n    acc += x * x * x;\n" in out, out
    # a line the candidate did not change keeps its own spacing
    assert "  double   acc = 0;" in out, out


@needs_clang_format
def test_blank_lines_beside_the_change_keep_their_own_whitespace() -> None:
    unit = TWO_SPACES.replace("  double   acc = 0;\n", "  double   acc = 0;\n  \n").replace(
        "  }\n  return acc;", "  }\n  \t\n  return acc;")
    site = _site(unit, "energy")
    code = _rewritten(site, "  for (std::size_t i = 0; i < v.size(); ++i) {",
                      "  const auto n=v.size();\n  for (std::size_t i = 0; i < n; ++i) {")
    out = format_candidate(site, code)
    assert "\n  const auto n = v.size();\n  for (" in out, out
    # the file's whitespace-only lines are not the rewrite's to clean up
    assert "acc = 0;\n  \n  const" in out and "  }\n  \t\n  return acc;" in out, repr(out)


@needs_clang_format
def test_a_pragma_keeps_its_text_at_the_loops_indentation() -> None:
    site = _site(TWO_SPACES, "energy")
    code = _rewritten(site, "  for (std::size_t", "  #pragma omp parallel for reduction(+:acc)\n"
                      "  for (std::size_t")
    out = format_candidate(site, code)
    assert "\n  #pragma omp parallel for reduction(+:acc)\n  for (" in out, out


@needs_clang_format
def test_a_project_style_file_wins_over_the_inferred_style(tmp_path: Path) -> None:
    (tmp_path / ".clang-format").write_text("BasedOnStyle: LLVM\nIndentWidth: 3\n")
    source = tmp_path / "src" / "energy.cpp"
    source.parent.mkdir()
    source.write_text(TWO_SPACES)
    site = _site(TWO_SPACES, "energy", uri=source.as_uri())
    code = _rewritten(site, "    acc += v[i] * v[i] * v[i];",
                      "    const double x=v[i];\n    acc+=x*x*x;")
    out = format_candidate(site, code)
    # one step of three inside the loop the file indents by two
    assert "\n     const double x = v[i];\n     acc += x * x * x;\n" in out, out


def test_without_clang_format_the_text_stays_as_written(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(formatting, "clang_format", lambda: None)
    site = _site(TWO_SPACES, "energy")
    code = _rewritten(site, "    acc += v[i] * v[i] * v[i];", "    acc+=v[i]*v[i]*v[i];")
    assert format_candidate(site, code) == code


@needs_clang_format
def test_a_models_candidate_gets_the_same_formatting_and_keeps_its_logic() -> None:
    site = _site(TWO_SPACES, "energy")
    answer = ("```cpp\ndouble energy(const std::vector<double>& v) {\n"
              "        double acc=0;\n"
              "        for(std::size_t i=0;i<v.size();++i){ const double x=v[i]; "
              "acc+=x*x*x; }\n"
              "        return acc;\n}\n```\n")
    result = result_from_answers(site, [(0, answer)], Plan((), "test"), "test")
    (cand,) = result.candidates
    assert "  double acc = 0;\n" in cand.code, cand.code
    assert "    const double x = v[i];\n    acc += x * x * x;\n" in cand.code, cand.code
    # formatting only: the same tokens in the same order
    assert "".join(cand.code.split()) == "".join(answer.split("```cpp")[1]
                                                  .split("```")[0].split())


# ---- warnings --------------------------------------------------------------------------------

LOG = """\
unit.cpp: In function 'int f(const std::vector<int>&)':
unit.cpp:4:23: warning: comparison of integer expressions of different signedness: 'int' \
and 'std::vector<int>::size_type' {aka 'long unsigned int'} [-Wsign-compare]
unit.cpp:9:13: warning: declaration of 'int n' shadows a parameter [-Wshadow]
"""


def test_warnings_are_read_without_place_or_type_spelling() -> None:
    assert warning_lines(LOG) == (
        # a type's spelling is left out, a one-word name (a variable's, a type's) stays, a
        # declaration is its name
        "comparison of integer expressions of different signedness: 'int' and '…' "
        "[-Wsign-compare]",
        "declaration of 'n' shadows a parameter [-Wshadow]",
    )


def test_a_moved_warning_is_the_same_and_one_more_is_new() -> None:
    before = warning_lines(LOG)
    moved = warning_lines(LOG.replace(":4:23:", ":12:5:").replace(":9:13:", ":2:1:"))
    assert added_warnings(before, moved) == ()
    twice = warning_lines(LOG + "unit.cpp:20:9: warning: declaration of 'long int n' "
                          "shadows a parameter [-Wshadow]\n")
    assert added_warnings(before, twice) == ("declaration of 'n' shadows a parameter [-Wshadow]",)
    assert "shadows a parameter" in describe_added(added_warnings(before, twice))


def test_the_check_keeps_the_units_flags_but_never_fails_on_a_warning() -> None:
    flags = check_flags(["-O2", "-Werror", "-o", "out.o", "-c", "-Werror=shadow", "-DN=3",
                         "-w", "-std=c++17"])
    assert flags == ["-O2", "-DN=3", "-std=c++17", "-Wall", "-Wextra", "-Wshadow"]


SHADOWING = """\
int count_up(const int* a, int n) {
    int c = 0;
    for (int i = 0; i < n; ++i) {
        int n = a[i];
        if (n > 0) ++c;
    }
    return c;
}
"""

ORIGINAL = """\
int count_up(const int* a, int n) {
    int c = 0;
    for (int i = 0; i < n; ++i)
        if (a[i] > 0) ++c;
    return c;
}
"""


@pytest.mark.skipif(shutil.which("g++") is None, reason="g++ is not installed")
def test_the_runner_rejects_a_models_candidate_that_adds_a_warning() -> None:
    settings = RunnerSettings(pairs=4, callgrind=False, build_timeout_s=60.0)

    async def go() -> tuple[Verdict | None, str]:
        refused = sandbox_verdict(await detect_sandbox(settings.sandbox), settings, "model")
        if refused is not None:
            return None, refused.message
        site = function_by_name(ORIGINAL, "cpp", "count_up")
        verdict = await verify_and_measure(site, SHADOWING, settings, JobContext(),
                                           origin="model")
        return verdict, ""

    verdict, why = asyncio.run(go())
    if verdict is None:
        pytest.skip(f"no sandbox for a model's code here: {why}")
    assert verdict.verdict == "rejected", verdict
    message = verdict.message
    assert message.startswith("Rejected, never built: it adds a compiler warning"), message
    assert "declaration of 'n' shadows a parameter [-Wshadow]" in message, message


def test_a_parallel_search_whose_exit_ignores_the_index_declares_no_unused_copy() -> None:
    unit = ("#include <cstddef>\n\n"
            "bool same_prefix(const char* a, const char* b, std::size_t n) {\n"
            "    for (std::size_t k = 0; k < n; k++) {\n"
            "        if (a[k] != b[k]) {\n"
            "            return false;\n"
            "        }\n"
            "    }\n"
            "    return true;\n"
            "}\n")
    site = _site(unit, "same_prefix")

    async def optimize() -> list[str]:
        plan = await BuiltinPlanner().plan(site, JobContext())
        result = await BuiltinOptimizer(flags=["-fopenmp"], variants=False).optimize(
            site, plan, JobContext())
        return [c.code for c in result.candidates]

    codes = asyncio.run(optimize())
    # Before, the exit branch got `std::size_t k = k_at;` whether it used `k` or not, and the
    # gate then rejected the only candidate for its unused-variable warning.
    assert any("#pragma omp parallel for" in c for c in codes), codes
    assert not any("k = k_at;" in c for c in codes), codes
