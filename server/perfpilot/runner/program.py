"""Whole programs (the function is ``main``): stdin test files, per-process ABBA timing.

The measurement's inputs carry the stdin files ``perfpilot.runner.stdin_inputs`` found
(``NAME.in``, ``NAME.*.in``, or any ``*.in`` in ``.perfpilot/NAME/``; a ``.out`` file with the
same stem holds the expected output); ``measure.py`` runs the stages both modes share (sandbox,
toolchain, work folder) and answers ``no-input``, saying what to add, for a program whose every
input is empty or missing. Outputs are compared token by token, numbers with a relative
tolerance of 1e-9.
"""

from __future__ import annotations

import asyncio
import math
import shutil
from dataclasses import replace
from pathlib import Path

from perfpilot.progress import JobContext
from perfpilot.runner import verdicts
from perfpilot.runner.admission import object_verdict
from perfpilot.runner.build import (
    Compiled,
    compile_check_object,
    compile_program,
    first_error,
    install_headers,
)
from perfpilot.runner.driver_run import pairs_of, parse_events
from perfpilot.runner.job import Job
from perfpilot.runner.sandbox import (
    Limits,
    Sandbox,
    make_writable_for_runs,
    run_sandboxed,
    signal_name,
)
from perfpilot.runner.stats import CpuSnapshot, gate_parallel, read_psi, summarize
from perfpilot.runner.toolchain import Toolchain
from perfpilot.runner.values import Measurement, Tuning, Verdict
from perfpilot.settings import RunnerSettings

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

    With a shared gate the builds may overlap other builds; timing runs alone. Policed
    candidates (``job.object_policy``) are judged on their compiled objects before they run
    (a program may keep state, it runs once per process)."""
    ctx, tc, sandbox, workdir, settings, tuning = (job.ctx, job.tc, job.sandbox, job.workdir,
                                                   job.settings, job.tuning)
    gate, nobody, policed, inputs = (job.gate, job.compile_as_nobody, job.object_policy,
                                     job.inputs.stdin)
    original_unit, candidate_unit = job.units
    threads = job.inputs.threads if tc.openmp else 1
    env = job.env(threads)
    limits = Limits(memory_mb=tuning.memory_mb, cpu_s=int(settings.run_timeout_s) * 4 + 5)
    ctx.report("building", "compiling both programs", 5)
    install_headers(workdir)
    for side in ("a", "b"):
        (workdir / side).mkdir(exist_ok=True)
    if nobody:
        make_writable_for_runs(workdir, sandbox)
    name = f"main{tc.suffix}"
    (workdir / "launcher.cpp").write_text("#include <perfpilot_launcher.hpp>\n",
                                          encoding="utf-8")
    t = settings.build_timeout_s
    async with gate.building():
        (a, b, launcher), checks = await asyncio.gather(asyncio.gather(
            compile_program(sandbox, tc, workdir, "a", original_unit, name,
                            timeout_s=t, ctx=ctx, unprivileged=nobody),
            compile_program(sandbox, tc, workdir, "b", candidate_unit, name, timeout_s=t,
                            ctx=ctx, unprivileged=nobody),
            run_sandboxed(sandbox, [tc.cxx, "-O2", "-std=c++17", "-Iinclude",
                                    "launcher.cpp", "-o", "launcher"], workdir,
                          timeout_s=t, limits=Limits(cpu_s=int(t) + 5), ctx=ctx,
                          unprivileged=nobody)),
            _check_objects(sandbox, tc, workdir, job.units,
                           name, t, ctx, nobody) if policed else _none())
    if not a.ok:
        return replace(base, message=f"The original does not build: {first_error(a.log)}",
                       build_log=a.log)
    if not b.ok:
        return replace(base, verdict="timeout" if b.timed_out else "build-failed",
                       message=f"The candidate does not compile: {first_error(b.log)}",
                       build_log=b.log)
    if launcher.returncode != 0:
        return replace(base, message="The program launcher does not compile: "
                       + first_error(launcher.stderr), build_log=launcher.stderr)
    if policed:
        refused = await _object_refusal(base, workdir, checks)
        if refused is not None:
            return refused
    base = replace(base, build_log=b.log)
    names: list[str] = []
    for k, (path, _exp) in enumerate(inputs):
        shutil.copyfile(path, workdir / f"in{k}.txt")
        names.append(f"in{k}.txt")
    make_writable_for_runs(workdir, sandbox)

    ctx.report("validating", f"running both programs on {len(inputs)} input(s)", 20)
    for stdin_name, (path, expected_path) in zip(names, inputs, strict=True):
        stdin = workdir / stdin_name
        label = path.name
        ra, rb = [await run_sandboxed(sandbox, [prog], workdir, ctx=ctx, env=env,
                                      timeout_s=settings.run_timeout_s, limits=limits,
                                      stdin_path=stdin)
                  for prog in ("a/prog", "b/prog")]
        for who, r in (("original", ra), ("candidate", rb)):
            if r.timed_out:
                return replace(base, verdict="timeout", validation_status="failed",
                               validation_detail=f"{who} on {label}",
                               message=(f"The {who} did not finish within "
                                        f"{settings.run_timeout_s:g} s on {label}."))
            if r.returncode != 0 and who == "candidate" and ra.returncode == 0:
                sig = r.signal
                how = signal_name(sig) if sig else f"exit code {r.returncode}"
                detail = f"{label}: candidate failed ({how})"
                return replace(base, verdict="incorrect", validation_status="failed",
                               validation_detail=detail,
                               message=f"The candidate failed on {label} ({how}).")
        expected = (expected_path.read_text(encoding="utf-8", errors="replace")
                    if expected_path is not None else ra.stdout)
        diff = compare_output(expected, rb.stdout)
        if diff:
            detail = f"{label}: {diff}"
            return replace(base, verdict="incorrect", validation_status="failed",
                           validation_detail=detail,
                           message=f"The candidate's output differs on {detail}.")

    ctx.report("timing", "timing whole programs (ABBA)", 50)
    pairs = max(4, min(settings.pairs, tuning.program_pairs))
    async with gate.timing():
        result = await _time_programs(sandbox, workdir, names, pairs, env, limits, settings,
                                      tuning, threads, base, ctx)
    if isinstance(result, Verdict):
        return result
    m, psi = result
    verdict = verdicts.from_measurement(replace(base, psi=psi), m, None, None, tuning)
    return replace(verdict, validation_detail=f"outputs agree on {len(inputs)} input file(s)")


async def _none() -> tuple[Compiled, ...]:
    return ()


async def _check_objects(sandbox: Sandbox, tc: Toolchain, workdir: Path, units: tuple[str, str],
                         name: str, timeout_s: float, ctx: JobContext,
                         nobody: bool) -> tuple[Compiled, ...]:
    """Both programs compiled as objects for the object policy."""
    return tuple(await asyncio.gather(*(
        compile_check_object(sandbox, tc, workdir, side, unit, name, timeout_s=timeout_s,
                             ctx=ctx, unprivileged=nobody, pic=False)
        for side, unit in zip(("a", "b"), units, strict=True))))


async def _object_refusal(base: Verdict, workdir: Path,
                          checks: tuple[Compiled, ...]) -> Verdict | None:
    """The object policy's verdict on the candidate program, judged from ``main``."""
    if len(checks) != 2 or not all(c.ok for c in checks):
        why = next((first_error(c.log) for c in checks if not c.ok), "not built")
        return replace(base, verdict="rejected", validation_status="skipped",
                       message=f"Rejected by the capability policy: the build it reads to "
                               f"check the candidate failed: {why}.")
    return await object_verdict(base, workdir, checks[0].output, checks[1].output, "main",
                                state=False)


async def _time_programs(sandbox: Sandbox, workdir: Path, names: list[str], pairs: int,
                         env: dict[str, str], limits: Limits, settings: RunnerSettings,
                         tuning: Tuning, threads: int, base: Verdict, ctx: JobContext
                         ) -> tuple[Measurement, float | None] | Verdict:
    """ABBA timing of the two programs (retried once when too contended)."""
    m: Measurement | None = None
    psi: float | None = None
    for attempt in range(tuning.noisy_retries + 1):
        if attempt:
            await asyncio.sleep(0.5)
        psi = read_psi()
        before = CpuSnapshot.now()
        run = await run_sandboxed(sandbox, ["./launcher", "a/prog", "b/prog",
                                            f"pairs={pairs}", *names], workdir, ctx=ctx,
                                  env=env, timeout_s=settings.run_timeout_s * 2,
                                  limits=limits)
        events = parse_events(run.stdout)
        timing = next((e for e in events if e.get("event") == "timing"), None)
        if run.timed_out:
            return replace(base, verdict="timeout", validation_status="passed",
                           message=("Timing did not finish within "
                                    f"{settings.run_timeout_s * 2:g} s."))
        if timing is None:
            failed = next((e for e in events if e.get("event") == "failed"), None)
            who = "candidate" if failed and failed.get("side") == "B" else "original"
            return replace(base, verdict="incorrect", validation_status="failed",
                           message=f"The {who} failed during timing "
                                   f"({failed or run.stderr.strip()[:200]}).")
        m = gate_parallel(summarize(pairs_of(timing), max(threads, 1), tuning, psi=psi),
                          before, CpuSnapshot.now(), tuning)
        if m.clean and not m.withheld:
            break
    assert m is not None  # the loop runs at least once
    return m, psi
