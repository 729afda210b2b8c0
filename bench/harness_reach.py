"""How much real-style C++ the runner measures with no hand-written bench spec.

Every function listed in a ``// perfpilot-corpus: a, b, ...`` line of ``bench/corpus/*.cpp``
(written in the style of open-source code: geometry, particles, ledgers, orders, graphs,
histograms, tokenizers, inventories, matrix classes, schedulers, an algorithms collection, a
class declared in a project header, plus a few signatures a generator cannot feed) goes
through the engine's real path against itself: generate the harness and entry, build both
sides, validate, calibrate and time (small tuning so the whole corpus takes a few minutes). A
function counts as *measured* when it reaches a timing verdict (``faster``, ``slower``,
``no-change`` or ``noisy``) with validation passed.

    .venv/bin/python bench/harness_reach.py [--only NAME] [--file F.cpp] [--warm] [--json]

Builds start cold (a fresh build cache) unless ``--warm`` keeps the user's cache, so that the
time per verdict includes compiling both sides and the driver, as a first verdict does.

Prints a markdown table per function and the totals, to paste into docs/benchmarks.md.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from perfpilot.code.locate import function_by_name
from perfpilot.progress import JobContext
from perfpilot.runner.gate import MeasureGate
from perfpilot.runner.measure import verify_and_measure
from perfpilot.runner.values import Tuning
from perfpilot.settings import RunnerSettings

CORPUS = Path(__file__).resolve().parent / "corpus"
MARKS = {"perfpilot-corpus:": "user types", "perfpilot-baseline:": "plain data"}
TIMED = {"faster", "slower", "no-change", "noisy"}
SETTINGS = RunnerSettings(pairs=10, callgrind=False, run_timeout_s=30.0)
TUNING = Tuning(target_sample_s=0.002, edge_sizes=(0, 1, 2, 7, 33), budget_s=10.0,
                noisy_retries=1)


@dataclass(frozen=True)
class Row:
    """One function's outcome."""

    file: str
    function: str
    group: str
    verdict: str
    validation: str
    measured: bool
    seconds: float
    why: str


def corpus() -> list[tuple[Path, str, str]]:
    """(file, function, group) for every function the corpus lists, the groups interleaved
    (so that both see the same machine load while the run goes on)."""
    groups: dict[str, list[tuple[Path, str, str]]] = {g: [] for g in MARKS.values()}
    for path in sorted(CORPUS.glob("*.cpp")):
        for line in path.read_text(encoding="utf-8").splitlines():
            for mark, group in MARKS.items():
                if mark in line:
                    groups[group] += [(path, name.strip(), group)
                                      for name in line.split(mark, 1)[1].split(",")
                                      if name.strip()]
    users, plain = groups["user types"], groups["plain data"]
    out: list[tuple[Path, str, str]] = []
    step = max(1, len(users) // max(1, len(plain)))
    for i, row in enumerate(users):
        out.append(row)
        if i % step == step - 1 and plain:
            out.append(plain.pop(0))
    return out + plain


async def measure_one(path: Path, name: str, group: str, gate: MeasureGate) -> Row:
    """The engine's verdict on ``name`` against itself."""
    unit = path.read_text(encoding="utf-8")
    site = function_by_name(unit, "cpp", name, uri=path.as_uri())
    start = time.perf_counter()
    v = await verify_and_measure(site, site.text, SETTINGS, JobContext(), tuning=TUNING,
                                 gate=gate, source_path=path)
    seconds = time.perf_counter() - start
    measured = v.verdict in TIMED and v.validation_status == "passed"
    why = "" if measured else (v.validation_detail or v.message).splitlines()[0][:160]
    return Row(path.name, name, group, v.verdict, v.validation_status, measured, seconds, why)


async def main_async(only: str | None, files: list[str] | None = None) -> list[Row]:
    gate = MeasureGate()
    rows = []
    for path, name, group in corpus():
        if (only and name != only) or (files and path.name not in files):
            continue
        rows.append(await measure_one(path, name, group, gate))
        r = rows[-1]
        print(f"{r.file}:{r.function}: {r.verdict} ({r.validation}) {r.seconds:.1f}s {r.why}",
              flush=True)
    return rows


def table(rows: list[Row]) -> str:
    """The results as markdown."""
    lines = ["| Group | File | Function | Verdict | Validation | Measured | Seconds | Why not |",
             "|---|---|---|---|---|---|---|---|"]
    for r in rows:
        why = r.why.replace("|", "\\|")
        lines.append(f"| {r.group} | {r.file} | `{r.function}` | {r.verdict} | {r.validation} | "
                     f"{'yes' if r.measured else 'no'} | {r.seconds:.1f} | {why} |")
    lines.append("")
    for group in MARKS.values():
        mine = [r for r in rows if r.group == group]
        if not mine:
            continue
        measured = [r for r in mine if r.measured]
        share = 100.0 * len(measured) / len(mine)
        per = [r.seconds for r in measured]
        lines.append(f"- {group}: measured with no spec {len(measured)} of {len(mine)} "
                     f"({share:.0f}%); time per measured verdict median "
                     f"{statistics.median(per) if per else 0:.1f} s, max "
                     f"{max(per) if per else 0:.1f} s.")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", help="one function of the corpus")
    parser.add_argument("--file", action="append", help="only the functions of this corpus "
                        "file (repeatable)")
    parser.add_argument("--json", action="store_true", help="print rows as JSON as well")
    parser.add_argument("--warm", action="store_true", help="reuse the user's build cache")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="perfpilot-reach-") as cache:
        if not args.warm:
            os.environ["XDG_CACHE_HOME"] = cache
        rows = asyncio.run(main_async(args.only, args.file))
    print()
    print(table(rows))
    if args.json:
        print(json.dumps([r.__dict__ for r in rows], indent=1))


if __name__ == "__main__":
    main()
