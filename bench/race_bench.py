"""Racing variants: pairs and time a race of k schedule variants takes, against measuring each
variant in full.

For each function below (uneven loop nests, where the builtin OpenMP rule writes a schedule
and the optimizer adds the other schedules as variants) this runs the engine's race, then
measures every variant in full with a fresh engine, and reports pairs timed, seconds, and the
variant each way picks.

    .venv/bin/python bench/race_bench.py [--pairs 30] [--threads 2]

Prints a markdown table for docs/benchmarks.md.
"""

from __future__ import annotations

import argparse
import asyncio
import time

from perfpilot.code.locate import function_by_name
from perfpilot.engine.engine import Engine, origin_of
from perfpilot.engine.racing import figure, pairs_of
from perfpilot.progress import JobContext
from perfpilot.runner.values import Tuning
from perfpilot.settings import RunnerSettings, Settings

UNITS = {
    "pair_sum (grows)": ("pair_sum", """\
#include <vector>

double pair_sum(const std::vector<double>& a) {
  double total = 0.0;
  long n = (long)a.size();
  for (long i = 0; i < n; ++i) {
    double s = 0.0;
    for (long j = 0; j < i; ++j) s += a[j] * a[i - j];
    total += s;
  }
  return total;
}
"""),
    "tail_dots (shrinks)": ("tail_dots", """\
#include <vector>

void tail_dots(const std::vector<double>& a, std::vector<double>& out) {
  long n = (long)a.size();
  out.assign(a.size(), 0.0);
  for (long i = 0; i < n; ++i) {
    double s = 0.0;
    for (long j = i; j < n; ++j) s += a[j] * a[j - i];
    out[i] = s;
  }
}
"""),
}

# Verification is measured in bench/verify_bench.py: fewer cases here, the timing is the point.
TUNING = Tuning(profiles=(0, 1), seeds_per_profile=1, mutants=False, coverage=False)


def _fig(speedup: float | None, ci: tuple[float, float] | None) -> str:
    if speedup is None or ci is None:
        return "–"
    return f"{speedup:.2f}× ({ci[0]:.2f}–{ci[1]:.2f})"


async def one(name: str, function: str, unit: str, settings: Settings) -> str:
    site = function_by_name(unit, "cpp", function, uri=f"file:///bench/{function}.cpp")
    # Warm-up: the original's builds and study are cached and shared by both ways, so neither
    # pays for them; plan and candidates are made before the clock starts.
    racer = Engine(settings, tuning=TUNING)
    result = await racer.candidates(site, await racer.plan(site, JobContext()), JobContext())
    if result.candidates:
        await racer.measure(site, result.candidates[0].code, JobContext(), pairs=5,
                            includes=result.candidates[0].includes, origin="builtin")
    start = time.perf_counter()
    outcome = await racer.optimize(site, JobContext())
    race_s = time.perf_counter() - start
    if not outcome.races:
        return f"| {name} | no race ({outcome.message}) | | | | |"
    race = outcome.races[0]
    (winner,) = race.finalists or (None,)
    engine = Engine(settings, tuning=TUNING)  # a fresh cache: every variant measured anew
    result = await engine.candidates(site, await engine.plan(site, JobContext()), JobContext())
    start = time.perf_counter()
    full: list[tuple[str, float | None, tuple[float, float] | None, int]] = []
    for cand in result.candidates:
        if not cand.family:
            continue
        v = await engine.measure(site, cand.code, JobContext(), includes=cand.includes,
                                 origin=origin_of(cand))
        ok = figure(v) is not None
        full.append((cand.variant, v.speedup if ok else None, v.ci95 if ok else None,
                     pairs_of(v)))
    full_s = time.perf_counter() - start
    best = max(full, key=lambda f: f[2][0] if f[2] is not None else -1.0)
    won = (f"{winner.label}: {_fig(winner.last.speedup, winner.last.ci95)}"
           if winner is not None and winner.last is not None else "–")
    every = "; ".join(f"{label} {_fig(s, ci)}" for label, s, ci, _ in full)
    return (f"| {name} | {len(race.entrants)} | {race.pairs_spent} pairs, {race_s:.0f} s "
            f"| {sum(p for *_, p in full)} pairs, {full_s:.0f} s | {won} "
            f"| {best[0]} ({every}) |")


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--pairs", type=int, default=30)
    parser.add_argument("--threads", type=int, default=2)
    args = parser.parse_args()
    settings = Settings(runner=RunnerSettings(threads=args.threads, pairs=args.pairs,
                                              callgrind=False))
    print("| function | variants | race | every variant in full | race chose | "
          "best in full (all) |")
    print("|---|---|---|---|---|---|")
    for name, (function, unit) in UNITS.items():
        print(await one(name, function, unit, settings), flush=True)


if __name__ == "__main__":
    asyncio.run(main())
