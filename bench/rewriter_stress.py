"""Differential stress test of the builtin rewriter over the generated training corpus.

For each sampled task: the builtin optimizer rewrites the slow function (all rules, with its own
compile check), and the runner builds both sides and compares their outputs on its generated
inputs (validation only matters here; the timing comes along). Any ``incorrect`` verdict is a
rewriter bug on a shape the templates produce. Prints a table per family.

    .venv/bin/python bench/rewriter_stress.py [--per-family 2] [--json OUT.json]
"""

from __future__ import annotations

import argparse
import asyncio
import json
from collections import Counter, defaultdict
from pathlib import Path

from perfpilot.optimizing.builtin.optimizer import BuiltinOptimizer
from perfpilot.planning.builtin import BuiltinPlanner
from perfpilot.progress import JobContext
from perfpilot.runner.gate import MeasureGate
from perfpilot.runner.measure import verify_and_measure
from perfpilot.runner.values import Tuning
from perfpilot.settings import RunnerSettings
from perfpilot.training.corpus import generate


async def run(per_family: int) -> dict[str, Counter[str]]:
    """Verdict words per family."""
    settings = RunnerSettings(pairs=6, callgrind=False)
    tuning = Tuning(profiles=(0, 1, 2, 5), seeds_per_profile=1, mutants=False, coverage=False)
    gate = MeasureGate()
    out: dict[str, Counter[str]] = defaultdict(Counter)
    for task in generate(per_family):
        site = task.site()
        plan = await BuiltinPlanner(limit=64).plan(site, JobContext())
        result = await BuiltinOptimizer(variants=False).optimize(site, plan, JobContext())
        if not result.candidates:
            out[task.family]["no-rewrite"] += 1
            continue
        for cand in result.candidates:
            verdict = await verify_and_measure(site, cand.code, settings, JobContext(),
                                               tuning=tuning, gate=gate,
                                               includes=cand.includes)
            out[task.family][verdict.verdict] += 1
            if verdict.verdict == "incorrect":
                print(f"INCORRECT {task.family} {task.name}: {verdict.message}\n{cand.code}")
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--per-family", type=int, default=2)
    ap.add_argument("--json", type=Path)
    args = ap.parse_args()
    table = asyncio.run(run(args.per_family))
    words = sorted({w for c in table.values() for w in c})
    print("| family | " + " | ".join(words) + " |")
    print("|---|" + "---|" * len(words))
    for fam, counts in table.items():
        print(f"| {fam} | " + " | ".join(str(counts[w]) for w in words) + " |")
    if args.json:
        args.json.write_text(json.dumps({f: dict(c) for f, c in table.items()}, indent=2))


if __name__ == "__main__":
    main()
