"""Verification: how many wrong candidates it catches, and what it costs per verdict.

For every entry of the corpus in tests/verification_corpus.py (an original, a correct rewrite
and subtly wrong rewrites) this judges each candidate twice: with the full verification (value
profiles, inputs valid for the original under sanitizers, mutants, coverage, the aliased
profile) and with the validation the runner had before it (one input profile and seed at the
edge sizes, no sanitizers, no mutants). It reports how many wrong candidates each rejects, how
many correct ones each blames, and the time per verdict: the first candidate of an original
(which pays for studying the original) and the later ones (which reuse that study).

    .venv/bin/python bench/verify_bench.py [--only NAME ...]

Prints a markdown table for docs/benchmarks.md.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from perfpilot.code.locate import function_by_name
from perfpilot.progress import JobContext
from perfpilot.runner.measure import verify_and_measure
from perfpilot.runner.values import Tuning
from perfpilot.settings import RunnerSettings

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
from verification_corpus import CORPUS

SETTINGS = RunnerSettings(pairs=6, callgrind=False, run_timeout_s=60.0, build_timeout_s=120.0)
FULL = Tuning(target_sample_s=0.0005, budget_s=3.0, noisy_retries=0)
# What validation was before: one profile (non-negative values, lower-case text), one seed,
# the edge sizes, no sanitizers, no mutants, no coverage.
BEFORE = Tuning(target_sample_s=0.0005, budget_s=3.0, noisy_retries=0, profiles=(0,),
                seeds_per_profile=1, mutants=False, coverage=False, sanitizers=False,
                edge_sizes=(0, 1, 2, 7, 33))


@dataclass
class Tally:
    """Outcomes and times of one procedure."""

    rejected: int = 0
    weak: int = 0
    passed_wrong: int = 0
    blamed: int = 0
    first_s: list[float] | None = None
    later_s: list[float] | None = None


async def _run(tuning: Tuning, names: set[str]) -> Tally:
    tally = Tally(first_s=[], later_s=[])
    assert tally.first_s is not None and tally.later_s is not None
    for entry in CORPUS:
        if names and entry.name not in names:
            continue
        site = function_by_name(entry.unit, entry.language, entry.name)  # type: ignore[arg-type]
        for k, (kind, code) in enumerate([("correct", entry.correct),
                                          *((w.kind, w.code) for w in entry.wrong)]):
            start = time.monotonic()
            v = await verify_and_measure(site, code, SETTINGS, JobContext(), tuning=tuning)
            (tally.first_s if k == 0 else tally.later_s).append(time.monotonic() - start)
            if kind == "correct":
                tally.blamed += v.verdict in ("incorrect", "build-failed", "timeout")
            elif v.verdict == "incorrect":
                tally.rejected += 1
            elif v.validation_status == "weak":
                tally.weak += 1
            else:
                tally.passed_wrong += 1
    return tally


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--only", nargs="*", default=[], help="corpus entries to run")
    args = parser.parse_args()
    names = set(args.only)
    load = os.getloadavg()[0]
    rows = []
    for label, tuning in (("before: one profile, no sanitizers, no mutants", BEFORE),
                          ("now: profiles, sanitizers, mutants, coverage", FULL)):
        # A cache of its own per procedure (builds too), so that the first candidate of each
        # original really pays for its builds and the study of the original.
        os.environ["XDG_CACHE_HOME"] = tempfile.mkdtemp(prefix="perfpilot-verify-bench-")
        t = asyncio.run(_run(tuning, names))
        wrong = t.rejected + t.weak + t.passed_wrong
        rows.append(f"| {label} | {t.rejected}/{wrong} | {t.weak} | {t.passed_wrong} | "
                    f"{t.blamed} | {statistics.median(t.first_s or [0]):.1f} s | "
                    f"{statistics.median(t.later_s or [0]):.1f} s |")
    print(f"Corpus: {len(CORPUS) if not names else len(names)} originals; load average "
          f"{load:.1f} at start, {os.cpu_count()} CPUs.\n")
    print("| Validation | wrong rejected | wrong reported weak | wrong passed as correct | "
          "correct blamed | per verdict, first candidate | per verdict, later ones |")
    print("|---|---|---|---|---|---|---|")
    print("\n".join(rows))


if __name__ == "__main__":
    main()
