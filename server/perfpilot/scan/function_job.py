"""One function's work in a scan, the same wherever it runs (this process or a Ray worker):
``optimize --bench`` on it (``engine.one_function``), with the worker's description."""

from __future__ import annotations

import os
import platform
import time
from dataclasses import dataclass, replace
from pathlib import Path

from perfpilot.engine.engine import Engine
from perfpilot.engine.one_function import optimize_in_file
from perfpilot.engine.outcome import Outcome, Trial
from perfpilot.model_usage import NO_USAGE, ModelUsage, UsageMeter
from perfpilot.progress import Cancelled, JobContext
from perfpilot.runner.values import Tuning
from perfpilot.scan.core_pinning import core_list
from perfpilot.scan.targets import site_for
from perfpilot.scan.values import FunctionResult, PlanStep, Target, WorkerInfo
from perfpilot.settings import Settings
from perfpilot.strategy.values import OptimizeResult, Plan


@dataclass(frozen=True)
class Drafts:
    """A function's plan and candidates, made where the models are (the scan's driver), so a
    worker that only measures asks no model for them; ``usage``: what asking cost."""

    plan: Plan
    result: OptimizeResult
    flags: tuple[str, ...] = ()
    usage: ModelUsage = NO_USAGE


@dataclass(frozen=True)
class FunctionJob:
    """What a worker needs for one function: the settings the driver resolved (trust rules
    applied there), the workspace root, the measurement's knobs, the target and, when the
    driver drafted them, its plan and candidates."""

    settings: Settings
    root: Path
    target: Target
    fresh: bool = False
    tuning: Tuning | None = None
    drafts: Drafts | None = None


async def draft(job: FunctionJob, engine: Engine, ctx: JobContext) -> FunctionJob:
    """The job with the plan and candidates ``engine`` makes for its function (the engine's
    own caches serve them again later); unchanged when the function cannot be found."""
    site = site_for(job.target, job.root)
    if site is None:
        return job
    meter = UsageMeter()
    ctx = replace(ctx, usage=meter)
    flags = engine.measurement_inputs(site, (job.root / job.target.path).resolve()).compdb_flags
    plan = await engine.plan(site, ctx)
    result = await engine.candidates(site, plan, ctx, flags)
    return replace(job, drafts=Drafts(plan, result, flags, meter.total()))


def cpu_model() -> str:
    """The CPU's model name (``/proc/cpuinfo`` on Linux), else what the platform says."""
    try:
        with open("/proc/cpuinfo", encoding="utf-8", errors="replace") as f:
            for line in f:
                if line.lower().startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine() or "unknown"


def worker_info(where: str) -> WorkerInfo:
    """This machine, as a result records it: CPU model, usable cores (and which, when this
    thread is pinned to some of them), load average."""
    pinned = ""
    try:
        usable = tuple(sorted(os.sched_getaffinity(0)))
        cores = len(usable)
        if cores < (os.cpu_count() or cores):
            pinned = core_list(usable)
    except (AttributeError, OSError):
        cores = os.cpu_count() or 1
    try:
        load1 = os.getloadavg()[0]
    except OSError:
        load1 = -1.0
    return WorkerInfo(where, platform.node(), cpu_model(), cores, round(load1, 2), pinned)


def _shown(outcome: Outcome) -> Trial | None:
    """The trial the result reports: the chosen one, else the first one measured."""
    if outcome.chosen is not None:
        return outcome.chosen
    return next((t for t in outcome.trials if t.verdict is not None), None)


def result_of(target: Target, outcome: Outcome, worker: WorkerInfo,
              seconds: float, usage: ModelUsage = NO_USAGE) -> FunctionResult:
    """The scan's record of an outcome."""
    plan = tuple(PlanStep(s.category.name, s.explanation, tuple(s.lines), s.rule or "",
                          s.advice)
                 for s in outcome.plan.strategies)
    trial = _shown(outcome)
    return FunctionResult(
        target, outcome.status, outcome.message, worker, round(seconds, 3), plan,
        trial.candidate.code if trial is not None else "",
        tuple(trial.candidate.includes) if trial is not None else (),
        trial.verdict.to_json() if trial is not None and trial.verdict is not None else None,
        usage)


async def run_job(job: FunctionJob, ctx: JobContext, engine: Engine | None = None,
                  where: str = "local") -> FunctionResult:
    """Plan, rewrite, verify and measure one function as ``optimize --bench`` does.

    ``engine``: one to share between functions (its caches); else one is made and closed
    here. A function that cannot be worked on gives an ``error`` result, never an exception
    (cancellation excepted). The result's ``usage`` adds up the job's model requests and
    those that drafted it."""
    start = time.monotonic()
    meter = UsageMeter()
    ctx = replace(ctx, usage=meter)
    before = job.drafts.usage if job.drafts is not None else NO_USAGE
    worker = worker_info(where)
    own = engine is None
    engine = engine or Engine(job.settings, job.root, tuning=job.tuning)
    try:
        site = site_for(job.target, job.root)
        if site is None:
            return FunctionResult(job.target, "error", "the function changed or is gone since "
                                  "the scan listed it", worker, time.monotonic() - start,
                                  usage=before)
        if job.drafts is not None:
            engine.remember_drafts(site, job.drafts.plan, job.drafts.result, job.drafts.flags)
        outcome = await optimize_in_file(engine, site, job.root / job.target.path, job.root,
                                         ctx, measure=True, fresh=job.fresh)
        return result_of(job.target, outcome, worker, time.monotonic() - start,
                         before + meter.total())
    except Cancelled:
        raise
    except Exception as exc:  # one function's failure does not end the scan
        return FunctionResult(job.target, "error", f"{type(exc).__name__}: {exc}", worker,
                              round(time.monotonic() - start, 3),
                              usage=before + meter.total())
    finally:
        if own:
            await engine.close()
