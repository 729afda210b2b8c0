"""The engine never applies a candidate the capability policy refuses, and says why."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from perfpilot.code.locate import function_by_name
from perfpilot.engine.engine import Engine
from perfpilot.engine.present import lens_title, report_markdown
from perfpilot.progress import JobContext
from perfpilot.runner.admission import NO_SANDBOX
from perfpilot.settings import Settings
from perfpilot.strategy.values import Candidate, OptimizeResult, Plan
from sandbox_support import path_without_bwrap

UNIT = "long sum(const long* a, long n) {\n  long s = 0;\n" \
       "  for (long i = 0; i < n; ++i) s += a[i];\n  return s;\n}\n"
HOSTILE = ("long sum(const long* a, long n) {\n  std::system(\"id\");\n  long s = 0;\n"
           "  for (long i = 0; i < n; ++i) s += a[i];\n  return s;\n}\n")
HARMLESS = ("long sum(const long* a, long n) {\n  long s = 0;\n"
            "  for (long i = 0; i < n; ++i) s = s + a[i];\n  return s;\n}\n")


class _Stand(Engine):
    """An engine whose planner and optimizer are replaced by fixed answers."""

    def __init__(self, codes: tuple[str, ...], settings: Settings) -> None:
        super().__init__(settings)
        self.codes = codes

    async def plan(self, site: Any, ctx: JobContext) -> Plan:
        return Plan((), "stand-in")

    async def candidates(self, site: Any, plan: Plan, ctx: JobContext,
                         flags: tuple[str, ...] = ()) -> OptimizeResult:
        return OptimizeResult(tuple(Candidate(code, (), "remote", i)
                                    for i, code in enumerate(self.codes)))


def _unmeasured() -> Settings:
    s = Settings()
    return replace(s, runner=replace(s.runner, enabled=False))


async def test_an_unmeasured_proposal_is_never_a_refused_candidate(tmp_path: Path) -> None:
    site = function_by_name(UNIT, "cpp", "sum")
    outcome = await _Stand((HOSTILE, HARMLESS), _unmeasured()).optimize(site, JobContext())
    assert outcome.status == "unmeasured"
    assert outcome.chosen is not None and outcome.chosen.candidate.code == HARMLESS
    refused = outcome.trials[0].verdict
    assert refused is not None and refused.verdict == "rejected"
    report = report_markdown(outcome)
    assert "Rejected, not applied" in report and "system" in report and "line 2" in report


async def test_when_every_candidate_is_refused_nothing_is_applied(tmp_path: Path) -> None:
    site = function_by_name(UNIT, "cpp", "sum")
    for settings in (_unmeasured(), Settings()):
        outcome = await _Stand((HOSTILE,), settings).optimize(site, JobContext())
        assert outcome.chosen is None and outcome.status == "not-improved"
        assert "capability policy" in outcome.message and "`system`" in outcome.message
        assert "rejected" in lens_title(outcome)


async def test_without_a_sandbox_the_user_is_told_once_and_plainly(
        monkeypatch: pytest.MonkeyPatch) -> None:
    site = function_by_name(UNIT, "cpp", "sum")
    with path_without_bwrap() as path:
        monkeypatch.setenv("PATH", path)
        outcome = await _Stand((HARMLESS, HARMLESS.replace("s = s +", "s +=")),
                               Settings()).optimize(site, JobContext())
    assert outcome.chosen is None
    assert outcome.message == NO_SANDBOX
    assert all(t.verdict is not None and t.verdict.verdict == "rejected"
               for t in outcome.trials)
    assert "bubblewrap" in lens_title(outcome) or "sandbox" in lens_title(outcome)
