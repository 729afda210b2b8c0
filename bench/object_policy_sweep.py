"""The object policy on every builtin candidate of the bundled tasks: none may be refused.

For each task of examples/tasks, examples/holdout and examples/holdout2 this plans with the
builtin planner, lets the builtin optimizer write its candidates (variants included), compiles
original and candidate as the runner does for the object policy (its flags plus function and
data sections) and prints every violation. A rewrite rule that starts to use a library
facility the policy does not know shows up here before it shows up as a refused candidate.

    .venv/bin/python bench/object_policy_sweep.py [--only NAME ...]

Exits with status 1 when any candidate is refused.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import time
from pathlib import Path

from perfpilot.code.splice import splice
from perfpilot.evaluation.tasks import Task, load_tasks
from perfpilot.optimizing.builtin import BuiltinOptimizer
from perfpilot.planning.builtin.planner import BuiltinPlanner
from perfpilot.progress import JobContext
from perfpilot.runner.entry import ENTRY_SYMBOL, EntryError, entry_source
from perfpilot.runner.spec import load_spec
from perfpilot.runner.toolchain import make_toolchain
from perfpilot.settings import RunnerSettings

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
from object_policy_support import described, judge

ROOT = Path(__file__).resolve().parent.parent

SETS = ("examples/tasks", "examples/holdout", "examples/holdout2")


async def _task(task: Task, limit: asyncio.Semaphore) -> tuple[int, list[str]]:
    site = task.site()
    program = site.name == "main"
    spec = load_spec(task.spec) if task.spec is not None else None
    try:
        entry = "" if program else (spec.entry_text if spec and spec.entry_text
                                    else entry_source(site))
    except EntryError as exc:
        return 0, [f"{task.name}: no entry ({exc})"]
    plan = await BuiltinPlanner().plan(site, JobContext())
    result = await BuiltinOptimizer().optimize(site, plan, JobContext())
    problems: list[str] = []
    for cand in result.candidates:
        unit = splice(site, cand.code, cand.includes)
        tc = make_toolchain(RunnerSettings(), site.language, task.source, None,
                            site.unit_text, cand.code)
        flags = tuple(f for f in tc.flags if f not in ("-O2", "-std=c11", "-std=c++17"))
        async with limit:
            found = await judge(site.unit_text + "\n" + entry, unit + "\n" + entry,
                                entry="main" if program else ENTRY_SYMBOL,
                                language=site.language, flags=flags, openmp=tc.openmp,
                                state=not program)
        if found:
            problems.append(f"{task.name} [{cand.backend}-{cand.sample} {cand.variant}]: "
                            f"{described(found)}")
    return len(result.candidates), problems


async def _main(only: set[str]) -> int:
    tasks = [t for root in SETS for t in load_tasks(ROOT / root)
             if not only or t.name in only]
    limit = asyncio.Semaphore(2)
    start = time.monotonic()
    results = await asyncio.gather(*(_task(t, limit) for t in tasks))
    count = sum(n for n, _ in results)
    problems = [p for _, ps in results for p in ps]
    for line in problems:
        print(line)
    print(f"{len(tasks)} tasks, {count} builtin candidates, {len(problems)} refused by the "
          f"object policy ({time.monotonic() - start:.0f} s)")
    return 1 if problems else 0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--only", nargs="*", default=[], help="task names to check")
    args = parser.parse_args()
    sys.exit(asyncio.run(_main(set(args.only))))


if __name__ == "__main__":
    main()
