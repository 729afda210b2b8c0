"""A planned strategy the built-in rewriter would leave is marked as advice when it is planned:
the plan keeps it with the rewriter's own reason, every view of the plan says so, and the
optimizer does not repeat the reason as a note of its own."""

from __future__ import annotations

import asyncio
import shutil
from pathlib import Path

import pytest

from perfpilot.cli import plan_json, print_plan
from perfpilot.code.locate import function_by_name
from perfpilot.code.site import FunctionSite
from perfpilot.engine.disk_cache import plan_from_json, plan_to_json
from perfpilot.engine.present import plan_markdown
from perfpilot.optimizing.builtin import BuiltinOptimizer
from perfpilot.optimizing.builtin.strategies import UNEXPLAINED, unkept, unsaid
from perfpilot.planning.builtin import BuiltinPlanner
from perfpilot.planning.builtin.advice import NO_REWRITE, reason_from
from perfpilot.progress import JobContext
from perfpilot.scan.report import markdown
from perfpilot.scan.run import ScanResult
from perfpilot.scan.targets import file_sites, target_of
from perfpilot.scan.values import FunctionResult, PlanStep, WorkerInfo
from perfpilot.strategy.values import Plan, Strategy, advice_label

needs_gxx = pytest.mark.skipif(shutil.which("g++") is None, reason="needs g++")

# The size is read in the loop's condition while the body appends to another string the
# caller may pass as the same object: the hoist may not move the call out of the loop.
ALIASED = """#include <iostream>
#include <string>

void copy_into(const std::string& text, std::string& out) {
    for (size_t i = 0; i < text.length(); ++i) {
        out.push_back(text[i]);
    }
    for (int k = 0; k < 3; ++k) {
        std::cout << out << std::endl;
    }
}

int count_a(const std::string& text) {
    int n = 0;
    for (size_t i = 0; i < text.length(); ++i) {
        if (text[i] == 'a') n = n + 1;
    }
    return n;
}
"""
REASON = "a call or store in the loop might change what it reads"


def _site(name: str) -> FunctionSite:
    return function_by_name(ALIASED, "cpp", name, uri="file:///t.cc", check_errors=False)


def _plan(name: str) -> Plan:
    return asyncio.run(BuiltinPlanner().plan(_site(name), JobContext()))


def _strategy(plan: Plan, rule: str) -> Strategy:
    return next(s for s in plan.strategies if s.rule == rule)


def test_a_finding_whose_rewrite_refuses_is_advice_with_the_rewriters_reason() -> None:
    plan = _plan("copy_into")
    hoist = _strategy(plan, "hoist-invariant-call")
    assert "compute it once before the loop" in hoist.explanation  # the advice stands
    assert REASON in hoist.advice and "line 5" in hoist.advice
    # a rule that only rewrites `main` says so for any other function
    assert "only at the start of `main`" in _strategy(plan, "fast-io").advice
    assert not hoist.advice.startswith("hoist-invariant-call:")  # said without the rule id
    assert _strategy(plan, "endl").advice == ""  # the rewritable finding beside it
    # the plan text models read is unchanged: no advice in it
    assert REASON not in plan.raw_text and "advice" not in plan.raw_text


def test_a_rewritable_finding_is_not_marked() -> None:
    plan = _plan("count_a")
    assert _strategy(plan, "hoist-invariant-call").advice == ""
    assert _strategy(plan, "openmp-reduction").advice == ""


def test_an_idiom_without_a_rewrite_is_advice() -> None:
    site = function_by_name(
        "void copy(int* d, const int* s, int n) {\n"
        "    for (int i = 0; i < n; ++i) {\n        d[i] = s[i];\n    }\n}\n",
        "cpp", "copy", uri="file:///t.cc", check_errors=False)
    plan = asyncio.run(BuiltinPlanner().plan(site, JobContext()))
    assert _strategy(plan, "std-algorithm").advice == NO_REWRITE


def test_every_view_of_the_plan_shows_the_advice(capsys: pytest.CaptureFixture[str]) -> None:
    site = _site("copy_into")
    plan = _plan("copy_into")
    hoist = _strategy(plan, "hoist-invariant-call")
    label = advice_label(hoist.advice)
    assert label.startswith("advice (PerfPilot leaves it to you: ")
    print_plan(site, plan)
    printed = capsys.readouterr().out
    assert f"     {label}\n" in printed
    assert f"     {advice_label(_strategy(plan, 'fast-io').advice)}\n" in printed
    assert printed.count("advice (") == 2  # the endl strategy is not advice
    assert "advice (PerfPilot leaves it to you:" in plan_markdown(plan, site.name)
    data = plan_json(site, plan)["strategies"]
    assert [s["advice"] for s in data if s["rule"] == "hoist-invariant-call"] == [hoist.advice]
    assert plan_from_json(plan_to_json(plan)) == plan


def test_the_scan_report_shows_the_advice(tmp_path: Path) -> None:
    path = tmp_path / "t.cpp"
    path.write_text(ALIASED)
    site = next(s for s in file_sites(path) if s.name == "copy_into")
    step = PlanStep("Loop Efficiency Techniques", "compute it once", (5,),
                    "hoist-invariant-call", "it stays: a store may change it")
    result = FunctionResult(target_of(site, path, tmp_path), "no-candidate", "none",
                            WorkerInfo("local", "h", "cpu", 1, 0.0), 1.0, plan=(step,))
    assert FunctionResult.from_json(result.to_json()) == result
    report = markdown(ScanResult((result,), (), (), "local", 1.0), {}, 0)
    assert "- Loop Efficiency Techniques: compute it once (advice (PerfPilot leaves it to " \
        "you: it stays: a store may change it))" in report


def test_reason_keeps_the_notes_about_the_strategys_lines() -> None:
    notes = ("hoist-invariant-call: `a.size()` in the condition on line 5 stays: x",
             "hoist-invariant-call: `b.size()` in the condition on line 9 stays: y",
             "openmp: the function has no loop")
    assert reason_from(notes, (5,)) == \
        "`a.size()` in the condition on line 5 stays: x; the function has no loop"
    assert reason_from((), (4, 3)) == "the rewrite finds nothing on lines 3, 4 it may change"


def test_an_advice_strategy_counts_as_explained_and_its_note_is_not_repeated() -> None:
    plan = _plan("copy_into")
    hoist = _strategy(plan, "hoist-invariant-call")
    # the reason as the rewrite says it, with its rule id: already in the plan
    note = f"hoist-invariant-call: {hoist.advice}"
    assert unsaid(plan, (note, "endl: other")) == ("endl: other",)
    assert hoist not in unkept(plan, (), ())
    assert _strategy(plan, "endl") in unkept(plan, (), ())  # not advice: still owed


@needs_gxx
def test_the_optimizer_does_not_repeat_the_advice() -> None:
    site = _site("copy_into")
    plan = _plan("copy_into")
    out = asyncio.run(BuiltinOptimizer(variants=False).optimize(site, plan, JobContext()))
    assert out.candidates, out.rejected
    said = [n for c in out.candidates for n in c.notes] + [r.reason for r in out.rejected]
    assert not any(REASON in n or UNEXPLAINED in n for n in said), said
    # the candidate carries out the rewritable strategy, and the hoist stays advice
    assert {s.rule for s in out.candidates[0].strategies} == {"endl"}


@needs_gxx
def test_a_plan_of_advice_only_is_rejected_without_repeating_it() -> None:
    site = _site("copy_into")
    plan = _plan("copy_into")
    only = Plan(tuple(s for s in plan.strategies if s.advice), plan.backend)
    out = asyncio.run(BuiltinOptimizer(variants=False).optimize(site, only, JobContext()))
    assert not out.candidates
    (rejected,) = out.rejected
    assert REASON not in rejected.reason and UNEXPLAINED not in rejected.reason
    assert "advice" in rejected.reason


CALLER = ALIASED + """
void copy_twice(const std::string& text, std::string& out) {
    copy_into(text, out);
    copy_into(text, out);
}
"""


def test_a_strategy_in_a_callee_is_asked_of_that_callee() -> None:
    site = function_by_name(CALLER, "cpp", "copy_twice", uri="file:///t.cc",
                            check_errors=False)
    plan = asyncio.run(BuiltinPlanner().plan(site, JobContext()))
    by_rule = {s.rule: s for s in plan.strategies if s.callee == "copy_into"}
    assert REASON in by_rule["hoist-invariant-call"].advice
    assert by_rule["endl"].advice == ""


@needs_gxx
def test_a_callee_left_entirely_as_advice_is_rejected_without_repeating_it() -> None:
    site = function_by_name(CALLER, "cpp", "copy_twice", uri="file:///t.cc",
                            check_errors=False)
    plan = asyncio.run(BuiltinPlanner().plan(site, JobContext()))
    only = Plan(tuple(s for s in plan.strategies if s.callee and s.advice), plan.backend)
    assert only.strategies
    out = asyncio.run(BuiltinOptimizer(variants=False).optimize(site, only, JobContext()))
    assert not out.candidates
    assert [r.reason for r in out.rejected] == [
        "callee `copy_into`: the plan leaves its strategies there to you as advice"]
    # with the callee's rewritable strategy planned too, its copy is rewritten
    out = asyncio.run(BuiltinOptimizer(variants=False).optimize(site, plan, JobContext()))
    assert any("copy_into" in c.code and "'\\n'" in c.code for c in out.candidates), out
