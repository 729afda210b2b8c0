"""verify_and_measure: build, validate, time and count one candidate against the original."""

from __future__ import annotations

import asyncio
import shutil
from dataclasses import dataclass, replace
from pathlib import Path

from perfpilot.code.locate import LocateError, function_by_name
from perfpilot.code.parse import language_for
from perfpilot.code.site import FunctionSite
from perfpilot.code.splice import splice
from perfpilot.progress import JobContext, gate_for_tests
from perfpilot.runner import verdicts
from perfpilot.runner.admission import (
    Origin,
    object_refusal,
    policy_verdict,
    sandbox_verdict,
    whole_unit_violations,
)
from perfpilot.runner.budget import BudgetSpent, JobBudget
from perfpilot.runner.build import (
    Compiled,
    compile_driver,
    compile_placed,
    compile_shared,
    first_error,
)
from perfpilot.runner.build_stage import (
    check_objects,
    judge_objects,
    side_failure,
    start_building,
)
from perfpilot.runner.compiler_warnings import warnings_refusal
from perfpilot.runner.driver_run import (
    LIB_A,
    LIB_B,
    Calibration,
    DriverRun,
    callgrind_total,
    layout_copies,
    pairs_of,
    run_driver,
)
from perfpilot.runner.entry import ENTRY_SYMBOL, EntryError, entry_source
from perfpilot.runner.gate import MeasureGate
from perfpilot.runner.harness import HarnessUnsupported, harness_source
from perfpilot.runner.job import Job
from perfpilot.runner.measurement_inputs import MeasurementInputs, resolve_inputs
from perfpilot.runner.paired_timing import Timing, settled, time_both
from perfpilot.runner.sandbox import (
    Sandbox,
    compile_unprivileged,
    detect_sandbox,
    make_writable_for_runs,
    work_directory,
)
from perfpilot.runner.stats import classify, read_psi, summarize
from perfpilot.runner.toolchain import (
    Toolchain,
    ToolchainError,
    absolute_paths,
    compiler_folders,
    counting_blocked,
    counting_flags,
    cpu_has_avx512,
    make_toolchain,
)
from perfpilot.runner.values import Measurement, Tuning, Verdict, Verification
from perfpilot.runner.verdicts import Failure
from perfpilot.runner.verify import (
    Case,
    analyse_original,
    build_sanitized,
    check_beyond,
    check_candidate,
)
from perfpilot.settings import RunnerSettings


def _base(job_tc: Toolchain | None, mode: str, sandbox: Sandbox | None) -> Verdict:
    return Verdict(
        verdict="build-failed", message="",
        flags=job_tc.build_flags if job_tc else (),
        compiler=job_tc.cc_name if job_tc else "",
        input_mode=mode,
        sandbox=sandbox.describe() if sandbox else "",
        notes=sandbox.notes if sandbox else (),
    )


async def verify_and_measure(original: FunctionSite, candidate_code: str,
                             settings: RunnerSettings, ctx: JobContext, *,
                             workspace: Path | None = None, spec: Path | None = None,
                             source_path: Path | None = None,
                             tuning: Tuning | None = None,
                             gate: MeasureGate | None = None,
                             includes: tuple[str, ...] = (),
                             origin: Origin = "model",
                             budget: JobBudget | None = None) -> Verdict:
    """``measure_candidate`` with the inputs resolved here from ``settings``, ``source_path``,
    ``workspace``, ``spec`` and ``tuning`` (see ``resolve_inputs``), for callers without an
    engine (which resolves them once per job)."""
    inputs = resolve_inputs(settings, original, source_path, workspace, spec, tuning)
    return await measure_candidate(original, candidate_code, inputs, ctx, gate=gate,
                                   includes=includes, origin=origin, budget=budget)


async def measure_candidate(original: FunctionSite, candidate_code: str,
                            inputs: MeasurementInputs, ctx: JobContext, *,
                            gate: MeasureGate | None = None, includes: tuple[str, ...] = (),
                            origin: Origin = "model",
                            budget: JobBudget | None = None) -> Verdict:
    """Build original and candidate, check they agree, time them and return the verdict.

    ``inputs`` holds everything the measurement depends on besides the code: settings, flags,
    spec, stdin files, mode, tuning. ``includes`` are headers the candidate needs (added to
    its unit when missing). ``origin`` says who wrote the candidate: builtin and model
    candidates must pass the capability policy (else the verdict is ``rejected`` and nothing
    is built), and model candidates run only in bubblewrap unless
    ``settings.allow_unsandboxed``.

    Reports the stages ``building``, ``validating``, ``timing`` and ``counting`` through
    ``ctx``; cancellation kills the running subprocess group and raises ``Cancelled``.
    Measurements that share a ``gate`` build side by side but time one at a time, with no
    build running meanwhile.

    ``budget`` is the job's time budget, shared with its other candidates (by default one of
    ``settings.job_budget_s`` for this candidate alone): when it runs out the verdict is
    ``timeout``, and its message names the stage that ran out.
    """
    budget = budget or JobBudget(inputs.settings.job_budget_s)
    if budget.spent:
        return Verdict(verdict="timeout", message=budget.not_started())
    if inputs.tuning.capability_policy:
        # A thread: a large unit takes a noticeable time to parse, the event loop must not wait.
        refused = await asyncio.to_thread(policy_verdict, original, candidate_code, includes,
                                          origin=origin)
        if refused is not None:
            return refused
    return await _measure(original, splice(original, candidate_code, includes), candidate_code,
                          inputs, ctx, gate=gate or MeasureGate(), origin=origin, budget=budget)


def needs_spec_verdict(base: Verdict, name: str, exc: Exception) -> Verdict:
    """``needs-spec``: the generated harness cannot feed the function (a parameter it cannot
    build, an entry it cannot write). The message is the reason alone: each surface adds the
    way to draft a spec it offers (the editor's quick fix, the CLI's command)."""
    cause = exc.__cause__ if isinstance(exc.__cause__, type(exc)) else exc
    reason = str(cause).strip().rstrip(".")
    return replace(base, verdict="needs-spec", needs_spec=True,
                   message=f"PerfPilot cannot build inputs for {name}: {reason}.",
                   build_log=str(exc), validation_detail=reason, validation_status="skipped")


async def _measure(original: FunctionSite, candidate_unit: str, candidate_code: str,
                   inputs: MeasurementInputs, ctx: JobContext, *, gate: MeasureGate,
                   origin: Origin, budget: JobBudget | None = None) -> Verdict:
    """The stages both modes share (sandbox, toolchain, work folder, a model's compiler
    warnings), then the function's (``_run``) or the whole program's (``measure_program``),
    which share the build stage (``build_stage.py``) and the paired timing
    (``paired_timing.py``)."""
    settings = inputs.settings
    budget = budget or JobBudget(settings.job_budget_s)
    ctx = budget.watching(ctx)
    ctx.check()
    sandbox = await detect_sandbox(settings.sandbox)
    refused = sandbox_verdict(sandbox, settings, origin)
    if refused is not None:
        return refused
    # The user's own code is not policed; builtin and model candidates are, once compiled too.
    policed = inputs.tuning.capability_policy and origin != "user"
    program = inputs.mode == "program"
    mode = "stdin" if program else "spec" if inputs.spec is not None else "harness"
    if inputs.no_input:
        return Verdict(verdict="no-input", message=f"Not timed: {inputs.no_input}.",
                       validation_detail=inputs.no_input, input_mode=mode)
    try:
        tc = make_toolchain(inputs, original.unit_text,
                            candidate_unit if program else candidate_code)
    except ToolchainError as exc:
        return replace(_base(None, mode, None), message=str(exc), build_log=str(exc))
    base = _base(tc, mode, sandbox)

    entry = bench = ""
    if not program:
        try:
            entry = "\n" + (inputs.spec.entry_text if inputs.spec and inputs.spec.entry_text
                            else entry_source(original, inputs.compdb))
            bench = (inputs.spec.bench_text if inputs.spec
                     else harness_source(original, inputs.compdb))
        except (EntryError, HarnessUnsupported) as exc:
            return needs_spec_verdict(base, original.name, exc)

    try:
        async with budget.enforce(), work_directory() as workdir:
            units = (original.unit_text + entry, candidate_unit + entry)
            as_nobody = compile_unprivileged(sandbox, [*absolute_paths(tc.flags),
                                                       *compiler_folders(tc)])
            job = Job(original, inputs, inputs.tuning, tc, sandbox, workdir, ctx, mode, units,
                      as_nobody, gate, bench, object_policy=policed, budget=budget)
            if origin == "model":
                # A model's code may not add a compiler warning the original does not have.
                async with job.held("building"):
                    refused = await warnings_refusal(
                        base, sandbox, tc, workdir, original.unit_text, candidate_unit, ctx,
                        unprivileged=as_nobody, timeout_s=settings.build_timeout_s)
                if refused is not None:
                    return refused
            if program:
                from perfpilot.runner.program import measure_program

                return await measure_program(job, base)
            return await _run(job, base, units[0], units[1], bench)
    except BudgetSpent as exc:
        return replace(base, verdict="timeout", message=str(exc), validation_status="skipped")


async def _run(job: Job, base: Verdict, unit_a: str, unit_b: str, bench: str) -> Verdict:
    async with job.held("building"):
        prepared = await _build_and_validate(job, base, unit_a, unit_b, bench)
    if isinstance(prepared, Verdict):
        return prepared
    base = prepared.base
    # Sizes past this one were invalid for the original (else only timing stops there).
    valid_up_to = prepared.timing_max_size \
        if prepared.timing_max_size < job.tuning.max_size else None
    job = _at_study_sizes(job, prepared.edge_sizes)
    job = replace(job, tuning=replace(job.tuning, max_size=min(job.tuning.max_size,
                                                              prepared.timing_max_size)))
    async with job.held("timing"):
        timed = await time_both(job, base,
                                lambda threads: _time(job, threads, prepared.timing_case))
    if isinstance(timed, Verdict):
        return timed
    measurement, serial, calib, psi = timed.measurement, timed.serial, timed.calib, timed.psi
    async with job.held("building"):
        beyond = await check_beyond(job, prepared.timing_case, max(
            measurement.size, serial.size if serial else 0), measurement.threads,
            valid_up_to, calib.steps, prepared.timing_why)
    if isinstance(beyond, Failure):
        return beyond.apply(replace(base, verification=prepared.verification))
    verification = replace(prepared.verification, beyond=beyond)
    ratio: float | None = None
    notes = list(base.notes) + list(measurement.notes)
    if job.settings.callgrind:
        # Counting instructions is deterministic: it may share the cores with builds.
        job.budget.enter("counting instructions")
        job.ctx.report("counting", "counting instructions with callgrind", 80)
        await gate_for_tests("counting", job.ctx)
        async with job.held("building"):
            counted = await _count(job, calib, measurement.threads, prepared.timing_case)
            ratio, note = await _count_at_timed_size(job, measurement, serial,
                                                     prepared.timing_case, counted, calib)
        if note:
            notes.append(note)
    if prepared.size_note:
        # The user is told the sizes the verdict rests on, and why they stop where they do.
        notes.insert(0, f"{prepared.size_note}, timed at n = {measurement.size}")
    verdict = verdicts.from_measurement(replace(base, notes=tuple(notes), psi=psi), measurement,
                                        serial, ratio, job.tuning, verification,
                                        same_code=only_the_signature_changed(job.site,
                                                                             *job.units))
    if prepared.size_note:
        verdict = replace(verdict, message=f"{verdict.message} Sizes: {notes[0]}.")
    if job.tc.added_flags and verdict.verdict in ("faster", "weakly-verified"):
        async with job.held("timing"):
            verdict = await _without_added_flags(job, verdict, prepared.timing_case)
    return verdict


async def _without_added_flags(job: Job, verdict: Verdict, case: Case) -> Verdict:
    """The figure the project's own build gets: both sides built without the flags the
    measurement added (OpenMP pragmas are then ignored), timed on one thread."""
    flags = " ".join(job.tc.added_flags)
    job.budget.enter("timing without the added flags")
    job.ctx.report("timing", f"timing as your build compiles it (without {flags})", 75)
    tc = replace(job.tc, openmp=False)
    t = job.settings.build_timeout_s
    built = await asyncio.gather(*(
        compile_placed(job.sandbox, tc, job.workdir, side, unit, f"unit{tc.suffix}",
                       copies=job.tuning.layout_copies, timeout_s=t, ctx=job.ctx,
                       unprivileged=job.compile_as_nobody)
        for side, unit in (("a_plain", job.units[0]), ("b_plain", job.units[1]))))
    where = job.tc.flags_source
    head = f"Needs {flags} in your build ({where} lacks it)"
    if not all(c.ok for c in built):
        note = f"{head}; without it: not measured (the build without it failed)."
        return replace(verdict, added_flags=job.tc.added_flags,
                       message=f"{verdict.message} {note}")
    if job.object_policy:
        # Other macros (no _OPENMP): the build that runs next is judged on its own.
        found = await whole_unit_violations(job.workdir,
                                            ((built[0].output, built[1].output),))
        fresh = Verdict(verdict="rejected", message="", flags=verdict.flags,
                        compiler=verdict.compiler, input_mode=verdict.input_mode,
                        sandbox=verdict.sandbox)
        refused = object_refusal(fresh, found)
        if refused is not None:
            return refused
    make_writable_for_runs(job.workdir, job.sandbox)
    timed = await _time(job, 1, case, libs=(built[0].output, built[1].output))
    if isinstance(timed, Failure):
        note = f"{head}; without it: not measured ({timed.message.rstrip('.')})."
        return replace(verdict, added_flags=job.tc.added_flags,
                       message=f"{verdict.message} {note}")
    m = timed[0]
    word = classify(m, job.tuning.no_change_band)
    figure = (f"{m.speedup:.2f}× (95% CI {m.ci95_low:.2f}–{m.ci95_high:.2f})"
              if word != "noisy" else "not measurable on this busy machine")
    return replace(verdict, added_flags=job.tc.added_flags,
                   without_added_speedup=m.speedup if word != "noisy" else None,
                   without_added_ci95=(m.ci95_low, m.ci95_high) if word != "noisy" else None,
                   message=f"{verdict.message} {head}; without it: {figure}.")


@dataclass(frozen=True)
class _Built:
    """Both sides built and in agreement: the verdict so far (build log, notes), how strongly
    the inputs checked the candidate, and the input case to time with."""

    base: Verdict
    verification: Verification
    timing_case: Case
    timing_max_size: int
    edge_sizes: tuple[int, ...] = ()
    size_note: str = ""  # why validation stopped short of the largest edge size, if it did
    timing_why: str = ""  # why timing stops at timing_max_size, when it is not invalid inputs


async def _build_and_validate(job: Job, base: Verdict, unit_a: str, unit_b: str,
                              bench: str) -> _Built | Verdict:
    """Build A, B and the driver, then compare outputs; a failure is the final verdict."""
    ctx, tc, settings = job.ctx, job.tc, job.settings
    cache = await start_building(job, "compiling original and candidate")
    nobody = job.compile_as_nobody
    name = f"unit{tc.suffix}"
    t = settings.build_timeout_s
    sanitize = job.tuning.sanitizers
    copies = job.tuning.layout_copies
    builds = asyncio.gather(
        compile_placed(job.sandbox, tc, job.workdir, "a", unit_a, name, copies=copies,
                       timeout_s=t, ctx=ctx, cache=cache, unprivileged=nobody),
        compile_placed(job.sandbox, tc, job.workdir, "b", unit_b, name, copies=copies,
                       timeout_s=t, ctx=ctx, cache=cache, unprivileged=nobody),
        compile_driver(job.sandbox, tc, job.workdir, bench, timeout_s=t, ctx=ctx, cache=cache,
                       unprivileged=nobody))
    san_builds = build_sanitized(job, cache) if sanitize else _nothing()
    checks = check_objects(job, cache, (unit_a, unit_b), name)
    (a, b, drv), san, checked_builds = await asyncio.gather(builds, san_builds, checks)
    failed = side_failure(base, a, b) or _driver_failure(base, drv, job.mode, job.site.name)
    if failed is not None:
        return failed
    sanitized = bool(san) and all(c.ok for c in san)
    if job.object_policy:
        # Before anything of the candidate runs: what its compiled code reaches.
        refused = await judge_objects(job, base, checked_builds, ENTRY_SYMBOL,
                                      whole_units=((san[0].output, san[1].output),)
                                      if sanitized else ())
        if refused is not None:
            return refused
    base = replace(base, build_log=b.log)
    if sanitize and not sanitized:
        why = next((first_error(c.log) for c in san if not c.ok), "")
        base = replace(base, notes=(*base.notes, "sanitizers unavailable, validation without "
                                    f"them: {why}"))
    make_writable_for_runs(job.workdir, job.sandbox)

    analysis = await analyse_original(job, sanitized)
    if isinstance(analysis, Failure):
        return analysis.apply(base)
    job = _at_study_sizes(job, analysis.edge_sizes)
    checked = await check_candidate(job, analysis, sanitized)
    if isinstance(checked, Failure):
        return checked.apply(replace(base, verification=analysis.verification))
    notes = tuple(checked.notes) + ((checked.races,) if checked.races else ())
    if analysis.rejected:
        more = f" (and {len(analysis.rejected) - 1} more)" if len(analysis.rejected) > 1 else ""
        notes += (f"inputs skipped as invalid: {analysis.rejected[0]}{more}",)
    if analysis.timing_max_size < job.tuning.max_size:
        why = analysis.timing_why or "larger generated inputs are invalid for the original"
        notes += (f"timed at sizes up to {analysis.timing_max_size}: {why}",)
    return _Built(replace(base, notes=base.notes + notes), checked, analysis.valid[0],
                  analysis.timing_max_size, analysis.edge_sizes, analysis.size_note,
                  analysis.timing_why)


def _at_study_sizes(job: Job, sizes: tuple[int, ...]) -> Job:
    """``job`` validating at the sizes the study kept (those the original's time allows)."""
    if not sizes or tuple(sizes) == tuple(job.tuning.edge_sizes):
        return job
    return replace(job, tuning=replace(job.tuning, edge_sizes=tuple(sizes)))


async def _nothing() -> tuple[Compiled, ...]:
    return ()


def _driver_failure(base: Verdict, drv: Compiled, mode: str, name: str) -> Verdict | None:
    """The verdict when the bench (generated or a spec) does not compile with the driver."""
    if drv.ok:
        return None
    if mode == "harness":
        # The inputs PerfPilot wrote do not compile: a bench spec is what the user can do.
        return verdicts.inputs_unusable(
            mode, name, f"the generated harness does not compile ({first_error(drv.log)})",
            first_error(drv.log)).apply(replace(base, build_log=drv.log))
    return replace(base, message=f"The bench spec does not compile: {first_error(drv.log)}",
                   build_log=drv.log)


def _load_failure(event: dict[str, object]) -> Failure:
    side = "candidate" if event.get("side") == "B" else "original"
    return Failure("build-failed", f"The {side} cannot be loaded on its own: "
                   f"{event.get('message')}", "skipped", "", str(event.get("message", "")))


async def _time(job: Job, threads: int, case: Case, *, libs: tuple[str, str] = (LIB_A, LIB_B)
                ) -> Timing | Failure:
    """One paired timing run of ``libs`` by the driver, timed again while noisy."""
    tuning = job.tuning
    budget_ms = int(min(tuning.budget_s, job.settings.run_timeout_s * 0.7) * 1000)
    args = {"target_ns": int(tuning.target_sample_s * 1e9), "pairs": job.settings.pairs,
            "warmup": tuning.warmup, "seed": tuning.seed, "min_size": tuning.min_size,
            "max_size": tuning.max_size, "budget_ms": budget_ms,
            "max_pairs": job.settings.pairs * tuning.max_pairs_factor,
            "wait_ppm": int(tuning.wait_fraction * 1e6), "case": case.arg,
            "cut_factor": tuning.cutoff_factor, "cut_floor_ns": int(tuning.cutoff_floor_s * 1e9)}
    libs = (layout_copies(job.workdir, libs[0], tuning.layout_copies),
            layout_copies(job.workdir, libs[1], tuning.layout_copies))
    cut_seen = False

    async def once() -> Timing | Failure:
        nonlocal cut_seen
        while True:
            psi = read_psi()
            run = await run_driver(job.sandbox, job.workdir, "time", args,
                                   env=job.env(threads), timeout_s=job.settings.run_timeout_s,
                                   limits=job.limits(threads), ctx=job.ctx, libs=libs)
            failure = _timing_failure(job, run)
            if failure is not None and run.first("cutoff") is not None and not cut_seen:
                # One stalled call (a descheduled OpenMP worker holding a barrier on a busy
                # machine) fakes a far slower candidate: the cut-off must happen again.
                cut_seen = True
                await asyncio.sleep(0.5)
                continue
            if failure is not None:
                return failure
            event = run.last("timing")
            assert event is not None
            m = summarize(pairs_of(event), threads, tuning, psi=psi, size=int(event["size"]),
                          reps=int(event.get("reps", 1)), wanted=job.settings.pairs)
            chosen = run.last("chosen")
            if chosen is not None and chosen.get("reached") is False:
                m = replace(m, notes=(*m.notes, calibration_note(chosen)))
            disturbed = disturbed_calibration(chosen, m, tuning.target_sample_s)
            if disturbed and not m.withheld:
                m = replace(m, withheld=disturbed)
            return m, Calibration.of(run)

    return await settled(once, tuning)


def disturbed_calibration(chosen: dict[str, object] | None, m: Measurement,
                          target_s: float) -> str:
    """Why the size calibration chose cannot be trusted, or "" when it can.

    Calibration stops at the first size where one call of the slower side takes the target
    time (the faster of two tries). Those tries meet memory for the first time, so a function
    that allocates pays its page faults there and runs several times faster once warm (a
    copied 4 MB vector: over 2 ms calibrating, 0.2 ms timed). Only a gap of two orders of
    magnitude means something else held the CPU during both tries (a preempted OpenMP thread,
    say): the size is then far too small, and each sample would time a call of microseconds.
    """
    if chosen is None or chosen.get("reached") is not True:
        return ""
    call_s = float(str(chosen.get("call_ns", 0))) / 1e9
    timed_s = max(m.median_a_s, m.median_b_s) * max(m.reps, 1)
    if call_s <= 0 or timed_s <= 0 or timed_s * 100 >= max(call_s, target_s):
        return ""
    return (f"Calibration was disturbed: one call at size {m.size} took {call_s * 1e3:.3g} ms "
            f"while the size was chosen but {timed_s * 1e6:.3g} µs when timed, so the size is "
            "far too small to time.")


def calibration_note(chosen: dict[str, object]) -> str:
    """What calibration settled for when one call never reached the target time."""
    call_us = float(str(chosen.get("call_ns", 0))) / 1000
    return (f"calibration could not reach the target call time: at size {chosen.get('size')} "
            f"(the largest valid or allowed) one call takes {call_us:.3g} µs, so each sample "
            f"repeats it {chosen.get('reps')} times")


def cutoff_failure(event: dict[str, object], factor: int) -> Failure:
    """``slower``: a call of the candidate ran past ``factor`` times the original's time on
    the same inputs and was stopped (the driver's cutoff event). It passed validation; it is
    only far too slow to be worth timing."""
    a_s = float(str(event.get("a_ns", 0))) / 1e9
    limit_s = float(str(event.get("limit_ns", 0))) / 1e9
    size = event.get("size")
    return Failure("slower", f"Far slower: at size {size} the candidate ran past "
                   f"{_seconds(limit_s)} where the original took {_seconds(a_s)} (the cut-off "
                   f"is {factor}× the original's time), so it was stopped.", "passed",
                   f"candidate stopped at size {size} after {_seconds(limit_s)}, over {factor}× "
                   "the original's time")


def _seconds(value: float) -> str:
    """``2.1 s``, ``35 ms``, ``120 µs``."""
    if value >= 1:
        return f"{value:.3g} s"
    return f"{value * 1e3:.3g} ms" if value >= 1e-3 else f"{value * 1e6:.3g} µs"


def _load_or_mismatch(run: DriverRun) -> Failure | None:
    """A forged channel, a side that would not load, or outputs that disagree, end the
    measurement."""
    failed = verdicts.forged(run.forged)
    if failed is not None:
        return failed
    load = run.first("load-error")
    if load is not None:
        return _load_failure(load)
    mismatch = run.first("mismatch")
    if mismatch is not None:
        return verdicts.mismatch(mismatch)
    return None


def _timing_failure(job: Job, run: DriverRun) -> Failure | None:
    failed = _load_or_mismatch(run)
    if failed is not None:
        return failed
    cut = run.first("cutoff")
    if cut is not None:
        return cutoff_failure(cut, job.tuning.cutoff_factor)
    error = run.first("error")
    if error is not None and run.last("timing") is None:
        return verdicts.inputs_unusable(job.mode, job.site.name,
                                        f"inputs could not be built ({error.get('message')})")
    if run.proc.timed_out:
        chosen = run.last("chosen") or run.last("calib")
        where = f" at size {chosen['size']}" if chosen else ""
        return Failure("timeout", f"Timing did not finish within "
                       f"{job.settings.run_timeout_s:g} s{where}.", "passed")
    if run.last("timing") is None:
        crash = run.crashed or "stopped without a result"
        begin = run.last("begin")
        size = begin["size"] if begin else "?"
        if begin is not None and begin.get("side") == "A":
            return verdicts.inputs_unusable(
                job.mode, job.site.name, f"the original crashes ({crash}) on its inputs of size "
                f"{size}", f"original crashed at size {size}")
        detail = f"candidate crashed ({crash}) at size {size}; the original did not"
        return Failure("incorrect", f"The {detail}.", "failed", detail)
    return None


def only_the_signature_changed(site: FunctionSite, a: str, b: str) -> bool:
    """Whether unit ``b`` differs from unit ``a`` only in the parameter list of ``site``'s
    function: the same body and the same rest of the unit (spacing aside). Such a candidate
    adds no code that could tamper with its timing or answer from memory."""
    try:
        fa = function_by_name(a, site.language, site.qualified_name, check_errors=False)
        fb = function_by_name(b, site.language, site.qualified_name, check_errors=False)
    except LocateError:
        return False

    def parts(unit: str, f: FunctionSite) -> tuple[str, str] | None:
        data = unit.encode("utf-8")
        text = f.text
        opening = text.find("{")
        if opening < 0:
            return None
        rest = (data[:f.start_byte] + data[f.end_byte:]).decode("utf-8", "replace")
        return "".join(text[opening:].split()), "".join(rest.split())

    pa, pb = parts(a, fa), parts(b, fb)
    return pa is not None and pa == pb and fa.text != fb.text


async def _count_at_timed_size(job: Job, measurement: Measurement, serial: Measurement | None,
                               case: Case, counted: _Counted,
                               calib: Calibration | None = None) -> tuple[float | None, str]:
    """The count again at the size the wall-time figure comes from, when the wall time claims
    more than ten times the gain the count at the reduced size shows: a rewrite that changes
    the complexity class gains more the larger the input, so only counts at the timed size
    can confirm (or refute) its wall time. Kept as it was when that count cannot be had."""
    timed = serial if serial is not None else measurement
    if counted.ratio is None or counted.size >= timed.size or \
            not verdicts.wall_outruns_counts(timed.speedup, counted.ratio):
        return counted.ratio, counted.note
    again = await _count(job, calib, measurement.threads, case, size=timed.size)
    if again.ratio is None:
        return counted.ratio, counted.note
    return again.ratio, (f"{again.note} (at size {counted.size} they said "
                         f"{counted.ratio:.3g}×: the gain grows with the size)")


@dataclass(frozen=True)
class _Counted:
    """An instruction ratio (original / candidate), or None with ``note`` saying why, and the
    size it was counted at (0 when none)."""

    ratio: float | None
    note: str
    size: int = 0


async def _count(job: Job, calib: Calibration | None, threads: int,
                 case: Case, size: int | None = None) -> _Counted:
    """Callgrind instruction ratio (original / candidate) at ``size``, by default a reduced
    size from the calibration, if possible."""
    valgrind = shutil.which("valgrind")
    if valgrind is None:
        return _Counted(None, "instruction counts skipped: valgrind not installed")
    libs = (LIB_A, LIB_B)
    note = ""
    blocked = counting_blocked(job.tc.flags, cpu_has_avx512())
    if blocked:
        # Valgrind cannot run AVX-512 code: count separate builds for x86-64-v3.
        tc = replace(job.tc, flags=counting_flags(job.tc.flags))
        t = job.settings.build_timeout_s
        a, b = await asyncio.gather(*(
            compile_shared(job.sandbox, tc, job.workdir, side, unit, f"unit{tc.suffix}",
                           timeout_s=t, ctx=job.ctx, tag="_cg",
                           unprivileged=job.compile_as_nobody)
            for side, unit in (("a", job.units[0]), ("b", job.units[1]))))
        if not (a.ok and b.ok):
            return _Counted(None, f"instruction counts skipped: {blocked} and no x86-64-v3 build")
        found = await whole_unit_violations(job.workdir, ((a.output, b.output),)) \
            if job.object_policy else ()
        if found:
            # Other macros (no AVX-512): this build is never run when it imports more.
            return _Counted(None, f"instruction counts skipped: the x86-64-v3 build of the "
                            f"candidate {found[0].describe()}")
        libs = (a.output, b.output)
        make_writable_for_runs(job.workdir, job.sandbox)
        note = " (x86-64-v3 builds)"
    probe = await run_driver(job.sandbox, job.workdir, "probe", {}, env={}, timeout_s=10,
                             limits=job.limits(1), ctx=job.ctx)
    info = probe.first("probe")
    if not info or not info.get("callgrind"):
        return _Counted(None, "instruction counts skipped: valgrind/callgrind.h not available")
    if size is None and calib is not None:
        size = calib.size_for(job.tuning.count_target_s)
    if size is None:
        return _Counted(None, "instruction counts skipped: no calibrated size")
    slow = _too_slow_to_count(job, calib, size)
    if slow:
        return _Counted(None, f"instruction counts skipped: {slow}")
    env = {"OMP_WAIT_POLICY": "passive", **job.env(threads)}
    timeout = max(job.settings.run_timeout_s, 30.0)

    async def one(side: str) -> int | None:
        out = f"cg.{side}.out"
        run = await run_driver(
            job.sandbox, job.workdir, "count",
            {"size": size, "side": side, "case": case.arg}, env=env, timeout_s=timeout,
            limits=replace(job.limits(threads), memory_mb=max(job.tuning.memory_mb, 8192)),
            ctx=job.ctx, libs=libs,
            prefix=[valgrind, "--tool=callgrind", "--instr-atstart=no",
                    f"--callgrind-out-file={out}"])
        path = job.workdir / out
        if run.first("counted") is None or not path.is_file():
            return None
        return callgrind_total(path.read_text(encoding="utf-8", errors="replace"))

    ir_a, ir_b = await asyncio.gather(one("A"), one("B"))
    if not ir_a or not ir_b:
        return _Counted(None, "instruction counts skipped: callgrind run failed")
    return _Counted(ir_a / ir_b, f"callgrind at size {size}{note}: {ir_a:,} vs {ir_b:,} "
                    "instructions", size)


# Callgrind runs code about this many times slower than it runs natively.
_CALLGRIND_SLOWDOWN = 50


def _too_slow_to_count(job: Job, calib: Calibration | None, size: int) -> str:
    """Why counting at ``size`` would take too long (empty when it would not): the slower
    side's calibrated call there, times callgrind's slowdown, past ``Tuning.count_limit_s``
    (an exponential original timed at a size where one call takes a second)."""
    steps = calib.steps if calib is not None else ()
    call_ns = max((max(a, b) for s, a, b in steps if s == size), default=0)
    predicted_s = call_ns * _CALLGRIND_SLOWDOWN / 1e9
    if predicted_s <= job.tuning.count_limit_s:
        return ""
    return (f"one call at size {size} would take about {predicted_s:.0f} s under callgrind "
            f"(over {job.tuning.count_limit_s:g} s)")


async def bench_files(path: Path, function: str, candidate_path: Path,
                      settings: RunnerSettings, ctx: JobContext, spec: Path | None = None,
                      *, tuning: Tuning | None = None,
                      gate: MeasureGate | None = None, origin: Origin = "user",
                      built_as: Path | None = None, workspace: Path | None = None) -> Verdict:
    """Compare ``function`` in ``path`` with the same function in ``candidate_path``.

    The candidate file may be a whole unit (the function is located in it) or just the new
    function's text. Files the user names are their own code (``origin="user"``): pass
    ``"model"`` for files a model wrote, to hold them to the policy and the sandbox.
    ``built_as``: the file whose folder (quote includes) and compile flags both sides are
    built with, when ``path`` is a copy kept elsewhere (a file's text at another revision);
    ``workspace``: its workspace (by default ``path``'s folder).
    """
    language = language_for(str(path)) or "cpp"
    unit = path.read_text(encoding="utf-8", errors="replace")
    cand_text = candidate_path.read_text(encoding="utf-8", errors="replace")
    site = function_by_name(unit, language, function, uri=path.resolve().as_uri())
    try:
        # A whole unit: use it as it is (it may add includes or helpers).
        cand_site = function_by_name(cand_text, language, function, check_errors=False)
        cand_unit, new_text = cand_text, cand_site.text
    except LocateError:
        cand_unit, new_text = splice(site, cand_text), cand_text
    tuning = tuning or Tuning()
    if tuning.capability_policy:
        refused = await asyncio.to_thread(policy_verdict, site, cand_unit, origin=origin,
                                          whole_unit=True)
        if refused is not None:
            return refused
    source = built_as or path
    inputs = resolve_inputs(settings, site, source, workspace or source.resolve().parent, spec,
                            tuning)
    return await _measure(site, cand_unit, new_text, inputs, ctx, gate=gate or MeasureGate(),
                          origin=origin)
