"""Whole programs (the function is ``main``): the program mode of the runner's pipeline.

The measurement's inputs (mode ``program``) carry the stdin files ``perfpilot.runner.stdin_inputs``
found (``NAME.in``, ``NAME.*.in``, or any ``*.in`` in ``.perfpilot/NAME/``; a ``.out`` file with
the same stem holds the expected output); ``measure.py`` runs the stages both modes share
(sandbox, toolchain, work folder) and answers ``no-input``, saying what to add, for a program
whose every input is empty or missing. The build goes through the shared build stage
(``build_stage.py``: cache, object policy judged from ``main``), the timing through the shared
paired timing (``paired_timing.py``: noisy runs again, the multi-thread gate, a slowdown
confirmed) and the verdict through ``verdicts.from_measurement``. What is the program's own is
here: running both programs on each stdin file and comparing their outputs (token by token,
numbers with a relative tolerance of 1e-9), and one timed run of the launcher, which runs
whole processes in ABBA order.
"""

from __future__ import annotations

import asyncio
import math
import shutil
from dataclasses import replace

from perfpilot.runner import verdicts
from perfpilot.runner.build import compile_launcher, compile_program, first_error
from perfpilot.runner.build_stage import (
    check_objects,
    judge_objects,
    side_failure,
    start_building,
)
from perfpilot.runner.driver_run import Calibration, pairs_of, parse_events
from perfpilot.runner.job import Job
from perfpilot.runner.paired_timing import Timing, settled, time_both
from perfpilot.runner.sandbox import Limits, make_writable_for_runs, run_sandboxed, signal_name
from perfpilot.runner.stats import read_psi, summarize
from perfpilot.runner.values import Verdict
from perfpilot.runner.verdicts import Failure

_TOL = 1e-9


def _number(token: str) -> float | None:
    try:
        value = float(token)
    except ValueError:
        return None
    return value if math.isfinite(value) else None


def compare_output(expected: str, actual: str) -> str:
    """Empty when the outputs agree (token-wise, numbers within 1e-9), else the first difference."""
    exp_lines, act_lines = expected.split(), actual.split()
    for k, (e, a) in enumerate(zip(exp_lines, act_lines, strict=False)):
        if e == a:
            continue
        x, y = _number(e), _number(a)
        if x is not None and y is not None and abs(x - y) <= _TOL * max(abs(x), abs(y), 1e-300):
            continue
        return f"token {k + 1}: expected {e[:60]!r}, got {a[:60]!r}"
    if len(exp_lines) != len(act_lines):
        return f"expected {len(exp_lines)} tokens, got {len(act_lines)}"
    return ""


async def measure_program(job: Job, base: Verdict) -> Verdict:
    """Build both programs (``job.units``), check their outputs on the stdin files the inputs
    found, time them per process: the whole-program stages of ``measure.py``'s job.

    Builds and output checks hold the gate shared with other builds; timing holds it alone.
    Policed candidates (``job.object_policy``) are judged on their compiled objects before
    they run (a program may keep state, it runs once per process)."""
    async with job.held("building"):
        built = await _build(job, base)
        if isinstance(built, Verdict):
            return built
        base = replace(base, build_log=built)
        names = _stage_inputs(job)
        failed = await _compare_outputs(job, names)
    if failed is not None:
        return failed.apply(base)
    async with job.held("timing"):
        timed = await time_both(job, base, lambda threads: settled(
            lambda: _time_once(job, names, threads), job.tuning), "timing whole programs (ABBA)")
    if isinstance(timed, Verdict):
        return timed
    verdict = verdicts.from_measurement(replace(base, psi=timed.psi), timed.measurement,
                                        timed.serial, None, job.tuning)
    return replace(verdict, validation_detail=f"outputs agree on {len(job.inputs.stdin)} "
                                              "input file(s)")


def _limits(job: Job) -> Limits:
    """Limits of a program's run (and of the launcher's, which runs both several times)."""
    return Limits(memory_mb=job.tuning.memory_mb, cpu_s=int(job.settings.run_timeout_s) * 4 + 5)


async def _build(job: Job, base: Verdict) -> str | Verdict:
    """Both programs and the launcher built, the candidate judged by the object policy when
    policed: the candidate's build log, or the final verdict."""
    tc, nobody, t = job.tc, job.compile_as_nobody, job.settings.build_timeout_s
    cache = await start_building(job, "compiling both programs")
    name = f"main{tc.suffix}"
    original_unit, candidate_unit = job.units
    (a, b, launcher), checks = await asyncio.gather(asyncio.gather(
        compile_program(job.sandbox, tc, job.workdir, "a", original_unit, name, timeout_s=t,
                        ctx=job.ctx, cache=cache, unprivileged=nobody),
        compile_program(job.sandbox, tc, job.workdir, "b", candidate_unit, name, timeout_s=t,
                        ctx=job.ctx, cache=cache, unprivileged=nobody),
        compile_launcher(job.sandbox, tc, job.workdir, timeout_s=t, ctx=job.ctx, cache=cache,
                         unprivileged=nobody)),
        check_objects(job, cache, job.units, name, pic=False))
    failed = side_failure(base, a, b)
    if failed is not None:
        return failed
    if not launcher.ok:
        return replace(base, message="The program launcher does not compile: "
                       + first_error(launcher.log), build_log=launcher.log)
    if job.object_policy:
        refused = await judge_objects(job, base, checks, "main", state=False)
        if refused is not None:
            return refused
    return b.log


def _stage_inputs(job: Job) -> list[str]:
    """The stdin files copied into the work folder (the sandbox sees only it), by name."""
    names: list[str] = []
    for k, (path, _expected) in enumerate(job.inputs.stdin):
        shutil.copyfile(path, job.workdir / f"in{k}.txt")
        names.append(f"in{k}.txt")
    make_writable_for_runs(job.workdir, job.sandbox)
    return names


async def _compare_outputs(job: Job, names: list[str]) -> Failure | None:
    """Both programs run on each stdin file: the candidate must finish, not fail where the
    original does not, and print what the ``.out`` file (else the original) says."""
    inputs, settings = job.inputs.stdin, job.settings
    job.budget.enter("comparing the programs' outputs")
    job.ctx.report("validating", f"running both programs on {len(inputs)} input(s)", 20)
    env, limits = job.env(job.threads), _limits(job)
    for stdin_name, (path, expected_path) in zip(names, inputs, strict=True):
        label = path.name
        ra, rb = [await run_sandboxed(job.sandbox, [prog], job.workdir, ctx=job.ctx, env=env,
                                      timeout_s=settings.run_timeout_s, limits=limits,
                                      stdin_path=job.workdir / stdin_name)
                  for prog in ("a/prog", "b/prog")]
        for who, r in (("original", ra), ("candidate", rb)):
            if r.timed_out:
                return Failure("timeout", f"The {who} did not finish within "
                               f"{settings.run_timeout_s:g} s on {label}.", "failed",
                               f"{who} on {label}")
            if r.returncode != 0 and who == "candidate" and ra.returncode == 0:
                how = signal_name(r.signal) if r.signal else f"exit code {r.returncode}"
                return Failure("incorrect", f"The candidate failed on {label} ({how}).",
                               "failed", f"{label}: candidate failed ({how})")
        expected = (expected_path.read_text(encoding="utf-8", errors="replace")
                    if expected_path is not None else ra.stdout)
        diff = compare_output(expected, rb.stdout)
        if diff:
            detail = f"{label}: {diff}"
            return Failure("incorrect", f"The candidate's output differs on {detail}.",
                           "failed", detail)
    return None


async def _time_once(job: Job, names: list[str], threads: int) -> Timing | Failure:
    """One launcher run: both programs in ABBA order on the stdin files, a process per run."""
    settings = job.settings
    pairs = max(4, min(settings.pairs, job.tuning.program_pairs))
    psi = read_psi()
    run = await run_sandboxed(job.sandbox, ["./launcher", "a/prog", "b/prog", f"pairs={pairs}",
                                            *names], job.workdir, ctx=job.ctx,
                              env=job.env(threads), timeout_s=settings.run_timeout_s * 2,
                              limits=_limits(job))
    events = parse_events(run.stdout)
    timing = next((e for e in events if e.get("event") == "timing"), None)
    if run.timed_out:
        return Failure("timeout", f"Timing did not finish within "
                       f"{settings.run_timeout_s * 2:g} s.", "passed")
    if timing is None:
        failed = next((e for e in events if e.get("event") == "failed"), None)
        who = "candidate" if failed and failed.get("side") == "B" else "original"
        return Failure("incorrect", f"The {who} failed during timing "
                       f"({failed or run.stderr.strip()[:200]}).", "failed")
    return summarize(pairs_of(timing), max(threads, 1), job.tuning, psi=psi), Calibration()
