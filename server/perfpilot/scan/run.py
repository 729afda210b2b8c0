"""``perfpilot scan``: many functions through the ``optimize --bench`` pipeline, resumable.

Targets come from the files and folders given (every function the planner finds something in)
or from a profile (hottest first), narrowed to the functions a diff touched with
``changed_since``. Each is measured by the workers (``workers.py``: here or on Ray), its result
kept in the state file as soon as it is back, so an interrupted scan resumes where it stopped.
``budget_s`` stops starting functions once spent; ``max_functions`` caps how many are taken.
"""

from __future__ import annotations

import asyncio
import hashlib
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path

from perfpilot.code.locate import LocateError
from perfpilot.code.site import FunctionSite
from perfpilot.engine.engine import Engine
from perfpilot.model_usage import NO_USAGE, ModelUsage, UsageMeter
from perfpilot.profiling.values import Profile
from perfpilot.progress import JobContext
from perfpilot.runner.values import Tuning
from perfpilot.scan.function_job import FunctionJob
from perfpilot.scan.git_changes import changed_lines, text_at
from perfpilot.scan.progress_bar import TerminalBar
from perfpilot.scan.progress_lines import ScanProgress
from perfpilot.scan.state import ScanState, state_path
from perfpilot.scan.targets import (
    changed_filter,
    file_sites,
    not_callable,
    profile_sites,
    source_files,
    target_of,
)
from perfpilot.scan.values import FunctionResult, RegressionCheck, Target
from perfpilot.scan.workers import Workers, make_workers
from perfpilot.settings import Settings, settings_to_dict


@dataclass(frozen=True)
class ScanOptions:
    """What to scan and how (the CLI's flags, resolved)."""

    paths: tuple[Path, ...]
    root: Path
    settings: Settings
    workers: str = "local"
    max_functions: int | None = None
    budget_s: float | None = None
    changed_since: str | None = None
    profile: Profile | None = None
    fail_on_regression: bool = False
    fresh: bool = False
    restart: bool = False
    tuning: Tuning | None = None
    cpus_per_function: float = 1.0


@dataclass(frozen=True)
class ScanResult:
    """What a scan found: a result per function worked on (in target order), the targets it
    did not reach (budget or ``max_functions``), the regression checks, and how it ran.
    ``other_usage``: model requests no result counts (planning the functions that got no
    plan or were not reached). ``left_out``: functions never planned because the harness
    cannot time them as a call (a ``main``, a function that takes and returns nothing)."""

    results: tuple[FunctionResult, ...]
    not_reached: tuple[Target, ...]
    regressions: tuple[RegressionCheck, ...]
    workers: str
    seconds: float
    reused: int = 0
    other_usage: ModelUsage = NO_USAGE
    left_out: tuple[Target, ...] = ()

    @property
    def usage(self) -> ModelUsage:
        """Every model request of the results and of choosing the targets."""
        total = self.other_usage
        for r in self.results:
            total = total + r.usage
        return total

    @property
    def regressed(self) -> tuple[RegressionCheck, ...]:
        """The changed functions that got slower beyond their interval."""
        return tuple(r for r in self.regressions if r.slower)


def fingerprint(options: ScanOptions) -> str:
    """The settings a finished result depends on: another fingerprint starts the scan over."""
    h = hashlib.sha256()
    h.update(repr(sorted(settings_to_dict(options.settings).items())).encode())
    h.update(repr(options.tuning).encode())
    h.update(b"fresh" if options.fresh else b"")
    return h.hexdigest()[:24]


async def select_sites(options: ScanOptions, engine: Engine, ctx: JobContext
                       ) -> tuple[list[tuple[FunctionSite, Path, float | None, ModelUsage]],
                                  list[tuple[FunctionSite, Path]], ModelUsage,
                                  list[tuple[FunctionSite, Path]]]:
    """The functions to optimize (in order, with what planning each asked of a model), with
    ``changed_since`` every changed function (for the regression check), what planning
    the functions without a plan asked of a model, and the functions left out because the
    harness cannot time them as a call (``not_callable``)."""
    files = source_files(options.paths)
    changes = changed_lines(options.root, options.changed_since) \
        if options.changed_since else None
    listed: list[tuple[FunctionSite, Path, float | None]]
    if options.profile is not None:
        listed = [(s, p, share) for s, p, share in profile_sites(options.profile, files,
                                                                 options.root)]
    else:
        listed = [(s, p, None) for p in files for s in file_sites(p)]
    if changes is not None:
        listed = [(s, p, sh) for s, p, sh in listed
                  if changed_filter(changes, target_of(s, p, options.root).path, s)]
    changed = [(s, p) for s, p, _ in listed] if changes is not None else []
    left_out = [(s, p) for s, p, _ in listed if not_callable(s)]
    listed = [(s, p, sh) for s, p, sh in listed if not not_callable(s)]
    picked = []
    unplanned = NO_USAGE
    for site, path, share in listed:
        ctx.check()
        meter = UsageMeter()
        plan = await engine.plan(site, replace(ctx, usage=meter), plan_only_mode=True)
        if plan.strategies:
            picked.append((site, path, share, meter.total()))
        else:
            unplanned = unplanned + meter.total()
    return picked, changed, unplanned, left_out


async def run_scan(options: ScanOptions, ctx: JobContext | None = None, *,
                   write: Callable[[str], None] | None = None) -> ScanResult:
    """Scan as ``options`` say; progress lines go to ``write`` (by default stderr: a progress
    bar with the finished functions' lines above it on a terminal, plain lines elsewhere)."""
    ctx = ctx or JobContext()
    bar = TerminalBar() if write is None and sys.stderr.isatty() else None
    say = write or (bar.print if bar is not None
                    else lambda line: print(line, file=sys.stderr, flush=True))
    start = time.monotonic()
    engine = Engine(options.settings, options.root, tuning=options.tuning)
    workers: Workers | None = None
    try:
        picked, changed, other_usage, uncallable = await select_sites(options, engine, ctx)
        left_out = tuple(target_of(s, p, options.root) for s, p in uncallable)
        targets = [target_of(s, p, options.root, share) for s, p, share, _ in picked]
        planned = {t.key: u for t, (*_, u) in zip(targets, picked, strict=True)}
        cap = options.max_functions
        not_reached = targets[cap:] if cap is not None else []
        targets = targets[:cap] if cap is not None else targets
        state = ScanState(state_path(options.root), fingerprint(options)) if options.restart \
            else ScanState.load(state_path(options.root), fingerprint(options))
        workers = make_workers(options.workers, engine, ctx, options.cpus_per_function)
        say(f"scan: {len(targets)} function(s) to work on ({workers.description})")
        results, late, reused = await _measure_all(options, targets, state, workers, ctx,
                                                   say, start, planned, bar)
        not_reached = late + not_reached
        for t in not_reached:
            other_usage = other_usage + planned.get(t.key, NO_USAGE)
        checks: list[RegressionCheck] = []
        if options.fail_on_regression and options.changed_since:
            checks = await regression_checks(options, changed, ctx, say)
    finally:
        if bar is not None:
            bar.stop()
        if workers is not None:
            await workers.close()
        else:
            await engine.close()
    order = {t.key: i for i, t in enumerate(targets)}
    results.sort(key=lambda r: order.get(r.target.key, len(order)))
    return ScanResult(tuple(results), tuple(not_reached), tuple(checks),
                      workers.description, time.monotonic() - start, reused, other_usage,
                      left_out)


async def _measure_all(options: ScanOptions, targets: list[Target], state: ScanState,
                       workers: Workers, ctx: JobContext, say: Callable[[str], None],
                       start: float, planned: dict[str, ModelUsage],
                       bar: TerminalBar | None = None
                       ) -> tuple[list[FunctionResult], list[Target], int]:
    progress = ScanProgress(len(targets), workers.capacity, say, bar=bar)
    results: list[FunctionResult] = []
    queue: list[Target] = []
    for target in targets:
        done = state.result(target)
        if done is not None:
            results.append(done)
            progress.reused(done)
        else:
            queue.append(target)
    reused = len(results)
    running: dict[asyncio.Future[FunctionResult], Target] = {}
    late: list[Target] = []
    try:
        while queue or running:
            while queue and len(running) < workers.capacity:
                if options.budget_s is not None and time.monotonic() - start >= options.budget_s:
                    late.extend(queue)
                    say(f"scan: the budget is spent: {len(queue)} function(s) not started "
                        "(run the scan again to go on)")
                    queue.clear()
                    break
                ctx.check()
                target = queue.pop(0)
                job = FunctionJob(options.settings, options.root, target, options.fresh,
                                  options.tuning)
                future = workers.start(job, _reporter(progress, target))
                running[future] = target
            if not running:
                break
            finished, _ = await asyncio.wait(running, return_when=asyncio.FIRST_COMPLETED)
            for future in finished:
                running.pop(future)
                result = future.result()
                # The plan that chose the function is part of what it asked of a model.
                ahead = planned.get(result.target.key)
                if ahead is not None and ahead.requests:
                    result = replace(result, usage=ahead + result.usage)
                results.append(result)
                state.record(result)
                progress.finished(result)
    finally:
        for future in running:
            future.cancel()
    return results, late, reused


def _reporter(progress: ScanProgress, target: Target) -> Callable[[str, str], None]:
    def report(stage: str, message: str) -> None:
        progress.stage(target, stage, message)
    return report


async def regression_checks(options: ScanOptions, changed: list[tuple[FunctionSite, Path]],
                            ctx: JobContext, say: Callable[[str], None]
                            ) -> list[RegressionCheck]:
    """Each changed function that existed at the base revision, timed as it is now against
    its base version (here, one at a time, as ``perfpilot bench`` times two files)."""
    from perfpilot.runner.measure import bench_files

    assert options.changed_since is not None
    checks = []
    for site, path in changed:
        target = target_of(site, path, options.root)
        base = text_at(options.root, options.changed_since, target.path)
        if base is None:
            checks.append(RegressionCheck(target, None, "new since the base revision"))
            continue
        ctx.check()
        say(f"scan: timing {target.function} against {options.changed_since}")
        with tempfile.TemporaryDirectory(prefix="perfpilot-base-") as tmp:
            base_file = Path(tmp) / path.name
            base_file.write_text(base, encoding="utf-8")
            try:
                # Built as the file is now: its folder's headers, its compile flags.
                verdict = await bench_files(base_file, site.qualified_name, path,
                                            options.settings.runner, ctx,
                                            tuning=options.tuning, built_as=path,
                                            workspace=options.root)
            except LocateError as exc:
                checks.append(RegressionCheck(target, None, f"not at the base revision: {exc}"))
                continue
        checks.append(RegressionCheck(target, verdict.to_json()))
    return checks
