"""The built-in backends over every bundled task and hold-out task (examples/tasks,
examples/holdout, examples/holdout2): what they propose is code a colleague would accept, and
every strategy the plan promises ends in a candidate or in words.

- Each candidate compiles with no warning under ``-Wall -Wextra -Wshadow`` that the original
  unit does not have (checked here by the compiler, apart from the optimizer's own gate), and
  holds no immediately invoked lambda.
- Each planned strategy the built-in rewriter could carry out is carried out by a candidate or
  explained by its rule's note; the optimizer's own note for a strategy no rule explained
  (``UNEXPLAINED``) never appears.

One planning and optimizing pass over all tasks is shared by the assertions (seconds); the
compiles run side by side.
"""

from __future__ import annotations

import asyncio
import shutil
import subprocess
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import pytest

from perfpilot.code.site import FunctionSite
from perfpilot.code.splice import splice
from perfpilot.evaluation.tasks import Task, load_tasks
from perfpilot.optimizing.builtin import BuiltinOptimizer
from perfpilot.optimizing.builtin.strategies import UNEXPLAINED, unkept
from perfpilot.planning.builtin import BuiltinPlanner
from perfpilot.progress import JobContext
from perfpilot.runner.compiler_warnings import WARNING_FLAGS, added_warnings, warning_lines
from perfpilot.strategy.values import OptimizeResult, Plan
from test_golden_rewrites import IMMEDIATE_LAMBDA

ROOT = Path(__file__).resolve().parent.parent
SETS = ("tasks", "holdout", "holdout2")

pytestmark = pytest.mark.skipif(shutil.which("g++") is None or shutil.which("gcc") is None,
                                reason="gcc and g++ are not installed")


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


@pytest.fixture(scope="module")
def outcomes() -> list[Outcome]:
    tasks = [t for s in SETS for t in load_tasks(ROOT / "examples" / s)]

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
    assert len(outcomes) >= 90
    # most tasks get a candidate; the rest say why in a rejection
    with_candidates = [o for o in outcomes if o.result.candidates]
    assert len(with_candidates) >= len(outcomes) * 2 // 3
    assert all(o.result.candidates or o.result.rejected for o in outcomes)


def test_candidates_compile_without_new_warnings(outcomes: list[Outcome]) -> None:
    jobs = [(o, c) for o in outcomes for c in o.result.candidates]

    def check(job: tuple[Outcome, object]) -> str:
        o, c = job
        code = getattr(c, "code", "")
        openmp = bool(getattr(c, "needs_openmp", False)) or o.task.openmp
        before = _warnings(o.site.unit_text, o.task, openmp)
        after = _warnings(splice(o.site, code, getattr(c, "includes", ())), o.task, openmp)
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


def test_every_planned_strategy_ends_in_a_candidate_or_a_note(outcomes: list[Outcome]) -> None:
    silent: list[str] = []
    for o in outcomes:
        carried = tuple(s for c in o.result.candidates for s in c.strategies)
        notes = tuple(n for c in o.result.candidates for n in c.notes) + \
            tuple(r.reason for r in o.result.rejected)
        # no rule left a planned strategy unexplained, so the optimizer never had to
        silent += [f"{o.task.name}: {n}" for n in notes if UNEXPLAINED in n]
        rule_notes = tuple(n for n in notes if UNEXPLAINED not in n)
        silent += [f"{o.task.name}: {s.rule} (lines {s.lines})"
                   for s in unkept(o.plan, carried, rule_notes)]
    assert not silent, silent
