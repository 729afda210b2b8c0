"""The benchmark runner against hyperfine on the same pair of functions.

For one kernel (count duplicates: an O(n^2) loop against a hash-map pass) this measures
- the runner: time to a verdict per candidate, and the spread of ten A/A runs (the same function
  against itself: every figure should be 1.00) and ten A/B runs;
- hyperfine: the same functions built into two whole programs at the same input size, timed as
  processes (``-N``, warm-up 2, 20 runs each), ratio of mean times, ten times over.

    .venv/bin/python bench/runner_bench.py [--runs 10] [--pairs 30] [--no-callgrind]

Prints a markdown table (and the machine's load), to paste into docs/benchmarks.md.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shutil
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

from perfpilot.code.locate import function_by_name
from perfpilot.progress import JobContext
from perfpilot.runner.measure import bench_files, verify_and_measure
from perfpilot.runner.stats import read_psi
from perfpilot.runner.values import Tuning, Verdict
from perfpilot.settings import RunnerSettings

UNIT = """\
#include <cstddef>
#include <unordered_map>
#include <vector>

long count_dups(const std::vector<int>& v) {
  long c = 0;
  for (std::size_t i = 0; i < v.size(); ++i)
    for (std::size_t j = i + 1; j < v.size(); ++j)
      if (v[i] == v[j]) { ++c; break; }
  return c;
}
"""

CANDIDATE = """\
long count_dups(const std::vector<int>& v) {
  std::unordered_map<int, int> seen;
  seen.reserve(v.size());
  long c = 0;
  for (std::size_t i = v.size(); i-- > 0;)
    if (seen[v[i]]++) ++c;
  return c;
}"""

# A whole program around the function for hyperfine: the same seeded input as the harness is
# not needed, only the same size and distribution.
MAIN = """
#include <cstdio>
#include <cstdlib>
#include <random>
int main(int argc, char** argv) {
  std::size_t n = std::strtoul(argv[1], nullptr, 10);
  std::mt19937_64 rng(12345);
  std::vector<int> v(n);
  for (auto& x : v) x = static_cast<int>(rng() % n);
  std::printf("%ld\\n", count_dups(v));
  return 0;
}
"""


def _fmt(values: list[float]) -> str:
    if not values:
        return "n/a"
    return (f"{statistics.median(values):.3f} (range {min(values):.3f}–{max(values):.3f}, "
            f"n={len(values)})")


async def _runner(runs: int, pairs: int, callgrind: bool) -> dict[str, object]:
    site = function_by_name(UNIT, "cpp", "count_dups")
    settings = RunnerSettings(pairs=pairs, callgrind=callgrind)
    tuning = Tuning()
    out: dict[str, list[float]] = {"aa": [], "ab": [], "aa_s": [], "ab_s": [], "aa_ci": [],
                                   "ab_ci": []}
    words: dict[str, list[str]] = {"aa": [], "ab": []}
    basis: list[str] = []
    size = 0
    for _ in range(runs):
        for key, code in (("aa", site.text), ("ab", CANDIDATE)):
            start = time.monotonic()
            v: Verdict = await verify_and_measure(site, code, settings, JobContext(),
                                                  tuning=tuning)
            out[f"{key}_s"].append(time.monotonic() - start)
            words[key].append(v.verdict)
            if v.speedup is not None and v.ci95 is not None:
                out[key].append(v.speedup)
                out[f"{key}_ci"].append(v.ci95[1] - v.ci95[0])
            if v.measurement is not None:
                size = v.measurement.size
                basis.append(v.measurement.basis)
    return {"values": out, "words": words, "size": size, "basis": basis}


# The same function behind an unused function of varying size: only where the code sits
# differs, so every honest ratio is 1.00.
LAYOUT_SHIFT = """
__attribute__((used, noinline)) static long perfpilot_bench_unused(long x) {{
  volatile long y = x;{body}
  return y;
}}
"""


async def _layout(runs: int, pairs: int) -> dict[int, list[float]]:
    """Ratios of the original against a copy of itself moved in memory, with one layout a
    side (identical copies) and with four placements a side."""
    out: dict[int, list[float]] = {1: [], 4: []}
    settings = RunnerSettings(pairs=pairs, callgrind=False)
    with tempfile.TemporaryDirectory(prefix="perfpilot-layout-") as tmp:
        original = Path(tmp) / "unit.cpp"
        original.write_text(UNIT)
        for k in range(runs):
            body = "\n  y = y * 3 + 1;" * (k % 5 + 1)
            shifted = UNIT.replace("long count_dups", LAYOUT_SHIFT.format(body=body) +
                                   "long count_dups")
            moved = Path(tmp) / f"moved{k}.cpp"
            moved.write_text(shifted)
            for copies in (1, 4):
                v = await bench_files(original, "count_dups", moved, settings, JobContext(),
                                      tuning=Tuning(layout_copies=copies, mutants=False,
                                                    coverage=False))
                if v.speedup is not None and v.verdict != "noisy":
                    out[copies].append(v.speedup)
    return out


def _hyperfine(runs: int, size: int, workdir: Path) -> dict[str, list[float]]:
    hyperfine = shutil.which("hyperfine")
    if hyperfine is None:
        return {}
    for name, text in (("a", UNIT), ("a2", UNIT), ("b", UNIT.replace(
            UNIT[UNIT.index("long count_dups"):], CANDIDATE + "\n"))):
        (workdir / f"{name}.cpp").write_text(text + MAIN)
        subprocess.run(["g++", "-O2", "-std=c++17", f"{name}.cpp", "-o", name], cwd=workdir,
                       check=True)
    out: dict[str, list[float]] = {"aa": [], "ab": [], "aa_s": [], "ab_s": []}
    for _ in range(runs):
        for key, other in (("aa", "a2"), ("ab", "b")):
            start = time.monotonic()
            subprocess.run([hyperfine, "-N", "--warmup", "2", "--runs", "20", "--export-json",
                            "h.json", "--style", "none", f"./a {size}", f"./{other} {size}"],
                           cwd=workdir, check=True, capture_output=True)
            out[f"{key}_s"].append(time.monotonic() - start)
            data = json.loads((workdir / "h.json").read_text())
            mean_a, mean_b = (r["mean"] for r in data["results"])
            out[key].append(mean_a / mean_b)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--pairs", type=int, default=30)
    parser.add_argument("--no-callgrind", action="store_true")
    parser.add_argument("--layout-only", action="store_true",
                        help="only the layout pair: the same code moved in memory")
    args = parser.parse_args()
    if args.layout_only:
        _print_layout(asyncio.run(_layout(args.runs, args.pairs)))
        return
    psi_before = read_psi()
    load_before = os.getloadavg()[0]
    runner = asyncio.run(_runner(args.runs, args.pairs, not args.no_callgrind))
    values = runner["values"]
    words = runner["words"]
    assert isinstance(values, dict) and isinstance(words, dict)
    size = int(str(runner["size"])) or 4096
    with tempfile.TemporaryDirectory(prefix="perfpilot-bench-") as tmp:
        hf = _hyperfine(args.runs, size, Path(tmp))
    print(f"count_dups, n = {size} (the runner's calibrated size); {args.runs} runs each; "
          f"load average {load_before:.1f}, CPU pressure {psi_before}% at start, "
          f"{os.cpu_count()} CPUs.\n")
    print("| Method | A/A ratio, median (range) | A/B speedup, median (range) | "
          "Time per verdict, median |")
    print("|---|---|---|---|")
    print(f"| PerfPilot runner (paired, in-process, {args.pairs} clean pairs"
          f"{'' if args.no_callgrind else ', callgrind'}) | {_fmt(values['aa'])} | "
          f"{_fmt(values['ab'])} | {statistics.median(values['ab_s']):.2f} s |")
    if hf:
        print(f"| hyperfine -N, 20 runs + 2 warm-up per program | {_fmt(hf['aa'])} | "
              f"{_fmt(hf['ab'])} | {statistics.median(hf['ab_s']):.2f} s (no build, no "
              "validation) |")
    else:
        print("| hyperfine | not installed | | |")
    basis = runner["basis"]
    assert isinstance(basis, list)
    aa_words = words["aa"]
    ab_words = words["ab"]
    print()
    print(f"Runner verdicts: A/A {dict((w, aa_words.count(w)) for w in set(aa_words))}; "
          f"A/B {dict((w, ab_words.count(w)) for w in set(ab_words))}. "
          f"Median 95% CI width: A/A {statistics.median(values['aa_ci'] or [0]):.3f}, "
          f"A/B {statistics.median(values['ab_ci'] or [0]):.3f}. "
          f"{basis.count('cpu')} of {len(basis)} runner figures came from CPU time (too few "
          "pairs free of CPU waits).")
    _print_layout(asyncio.run(_layout(args.runs, args.pairs)))


def _print_layout(layout: dict[int, list[float]]) -> None:
    print("\n| Placements a side | same code moved in memory: ratio, median (range) |")
    print("|---|---|")
    for copies, values in layout.items():
        print(f"| {copies} | {_fmt(values)} |")


if __name__ == "__main__":
    main()
