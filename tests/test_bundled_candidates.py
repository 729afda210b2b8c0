"""The built-in backends over every bundled task and hold-out task (examples/tasks,
examples/holdout, examples/holdout2): what they propose is code a colleague would accept, and
every strategy the plan promises ends in a candidate or in words.

- Each candidate compiles with no warning under ``-Wall -Wextra -Wshadow`` that the original
  unit does not have (checked here by the compiler, apart from the optimizer's own gate), and
  holds no immediately invoked lambda.
- Each planned strategy the built-in rewriter could carry out is carried out by a candidate or
  explained by its rule's note; the optimizer's own note for a strategy no rule explained
  (``UNEXPLAINED``) never appears.

One planning and optimizing pass is shared by the assertions; the compiles run side by side.
Optimizing a task takes about half a second (the optimizer compiles its candidates), so
``make test`` runs an evenly spread quarter of each set and ``make test-deep``
(``PERFPILOT_TEST_DEEP=1``) every task.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import subprocess
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, replace
from pathlib import Path

import pytest

from perfpilot.code.site import FunctionSite
from perfpilot.code.splice import splice
from perfpilot.evaluation.tasks import Task, load_tasks
from perfpilot.optimizing.builtin import BuiltinOptimizer
from perfpilot.optimizing.builtin.strategies import UNEXPLAINED, unkept
from perfpilot.planning.builtin import BuiltinPlanner
from perfpilot.progress import JobContext
from perfpilot.rules.registry import rule_spec
from perfpilot.runner.compiler_warnings import WARNING_FLAGS, added_warnings, warning_lines
from perfpilot.strategy.values import Candidate, OptimizeResult, Plan
from test_golden_rewrites import IMMEDIATE_LAMBDA

ROOT = Path(__file__).resolve().parent.parent
SETS = ("tasks", "holdout", "holdout2")
DEEP = os.environ.get("PERFPILOT_TEST_DEEP") == "1"
_SAMPLE_MIN = 6

pytestmark = [pytest.mark.skipif(shutil.which("g++") is None or shutil.which("gcc") is None,
                                 reason="gcc and g++ are not installed"),
              pytest.mark.sweep]


@dataclass(frozen=True)
class Outcome:
    task: Task
    site: FunctionSite
    plan: Plan
    result: OptimizeResult


async def _optimize(task: Task) -> Outcome:
    site = task.site()
    plan = await BuiltinPlanner().plan(site, JobContext())
    flags = ["-fopenmp"] if task.openmp else []
    result = await BuiltinOptimizer(flags=flags, variants=False).optimize(site, plan,
                                                                           JobContext())
    return Outcome(task, site, plan, result)


def sampled(tasks: list[Task]) -> list[Task]:
    """All of ``tasks`` under ``make test-deep``, else an evenly spread quarter (at least
    ``_SAMPLE_MIN``, the first and the last among them)."""
    if DEEP or len(tasks) <= _SAMPLE_MIN:
        return tasks
    k = max(_SAMPLE_MIN, len(tasks) // 4)
    return [tasks[i] for i in sorted({round(i * (len(tasks) - 1) / (k - 1)) for i in range(k)})]


@pytest.fixture(scope="module")
def outcomes() -> list[Outcome]:
    tasks = [t for s in SETS for t in sampled(load_tasks(ROOT / "examples" / s))]

    async def run_all() -> list[Outcome]:
        return [await _optimize(t) for t in tasks]

    return asyncio.run(run_all())


def _warnings(unit: str, task: Task, openmp: bool) -> tuple[str, ...] | str:
    c = task.language == "c"
    argv = [shutil.which("gcc" if c else "g++") or "", "-fsyntax-only", *WARNING_FLAGS,
            "-std=c11" if c else "-std=c++17", *(["-fopenmp"] if openmp else []),
            "-iquote", str(task.source.parent), "-x", "c" if c else "c++", "-"]
    done = subprocess.run(argv, input=unit, capture_output=True, text=True, timeout=120)
    if done.returncode != 0:
        return done.stderr
    return warning_lines(done.stderr)


def test_the_bundled_sets_were_all_optimized(outcomes: list[Outcome]) -> None:
    assert {o.task.directory.parent.name for o in outcomes} == set(SETS)
    assert len(outcomes) >= (90 if DEEP else 20)
    # most tasks get a candidate; the rest say why in a rejection
    with_candidates = [o for o in outcomes if o.result.candidates]
    assert len(with_candidates) >= len(outcomes) * 2 // 3
    assert all(o.result.candidates or o.result.rejected for o in outcomes)


def test_candidates_compile_without_new_warnings(outcomes: list[Outcome]) -> None:
    jobs = [(o, c) for o in outcomes for c in o.result.candidates]
    # each original once per way it is compiled
    originals = {(id(o), c.needs_openmp or o.task.openmp): o for o, c in jobs}
    with ThreadPoolExecutor(max_workers=4) as pool:
        warned = dict(zip(originals, pool.map(
            lambda k: _warnings(originals[k].site.unit_text, originals[k].task, k[1]),
            originals), strict=True))

    def check(job: tuple[Outcome, Candidate]) -> str:
        o, c = job
        openmp = c.needs_openmp or o.task.openmp
        before = warned[(id(o), openmp)]
        after = _warnings(splice(o.site, c.code, c.includes), o.task, openmp)
        name = f"{o.task.directory.parent.name}/{o.task.name}"
        if isinstance(after, str):
            return f"{name}: does not compile: {after[:300]}"
        if isinstance(before, str):
            return ""
        added = added_warnings(before, after)
        return f"{name}: new warnings {added}" if added else ""

    with ThreadPoolExecutor(max_workers=4) as pool:
        problems = [p for p in pool.map(check, jobs) if p]
    assert not problems, problems


def test_no_candidate_holds_an_immediately_invoked_lambda(outcomes: list[Outcome]) -> None:
    found = [f"{o.task.name}: {m.group(0)[:80]}" for o in outcomes for c in o.result.candidates
             for m in [IMMEDIATE_LAMBDA.search(c.code)] if m]
    assert not found, found


def silent_strategies(o: Outcome) -> list[str]:
    """The planned strategies of one task that end in neither a candidate nor a note: those
    a built-in rewrite exists for that no candidate carries out and no rule's note explains,
    and any the optimizer itself had to call unexplained."""
    carried = tuple(s for c in o.result.candidates for s in c.strategies)
    notes = tuple(n for c in o.result.candidates for n in c.notes) + \
        tuple(r.reason for r in o.result.rejected)
    silent = [f"{o.task.name}: {n}" for n in notes if UNEXPLAINED in n]
    rule_notes = tuple(n for n in notes if UNEXPLAINED not in n)
    return silent + [f"{o.task.name}: {s.rule} (lines {s.lines})"
                     for s in unkept(o.plan, carried, rule_notes)]


def test_every_planned_strategy_ends_in_a_candidate_or_a_note(outcomes: list[Outcome]) -> None:
    # counted per example set: the bundled tasks and each hold-out set
    silent = {s: [m for o in outcomes if o.task.directory.parent.name == s
                  for m in silent_strategies(o)] for s in SETS}
    planned = sum(len(o.plan.strategies) for o in outcomes)
    assert planned > len(outcomes), "the plans should not be empty"
    assert {s: len(v) for s, v in silent.items()} == dict.fromkeys(SETS, 0), silent


def test_the_count_sees_a_strategy_left_in_silence(outcomes: list[Outcome]) -> None:
    # the same count over a task whose candidates and notes are dropped names its strategies
    o = next(o for o in outcomes if o.result.candidates and any(
        (spec := rule_spec(s.rule)) is not None and spec.rewrite is not None
        for s in o.plan.strategies if s.rule and not s.callee))
    bare = replace(o, result=replace(o.result, candidates=(), rejected=()))
    assert silent_strategies(bare)
