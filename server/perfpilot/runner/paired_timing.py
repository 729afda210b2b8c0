"""The paired timing both modes share, around one mode's timed run (the driver's calls of a
function, or the launcher's whole processes): a noisy figure timed again, the multi-thread
gate, the 1-thread figure of a parallel run, and a slowdown confirmed by a second run.

A mode gives ``TimeRun``: one paired run at some thread count, its ``Measurement`` (from
``stats.summarize``) and its calibration, or the ``Failure`` that ends the measurement.
``time_both`` returns what ``verdicts.from_measurement`` turns into the verdict.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, replace

from perfpilot.progress import gate_for_tests
from perfpilot.runner.driver_run import Calibration
from perfpilot.runner.job import Job
from perfpilot.runner.stats import CpuSnapshot, classify, gate_parallel, read_psi
from perfpilot.runner.values import Measurement, Tuning, Verdict
from perfpilot.runner.verdicts import Failure

Timing = tuple[Measurement, Calibration]
# One paired run at the given thread count (a whole program's has no calibration).
TimeRun = Callable[[int], Awaitable[Timing | Failure]]


@dataclass(frozen=True)
class Timed:
    """The timing results of one candidate: at the job's threads, at one thread when that
    differs (OpenMP), the calibration, and the CPU pressure before."""

    measurement: Measurement
    serial: Measurement | None
    calib: Calibration
    psi: float | None


async def settled(once: Callable[[], Awaitable[Timing | Failure]],
                  tuning: Tuning) -> Timing | Failure:
    """``once``, run again after a short pause while its figure is noisy (at most
    ``tuning.noisy_retries`` more times): a burst of other work rarely lasts."""
    result: Timing | None = None
    for attempt in range(tuning.noisy_retries + 1):
        if attempt:
            await asyncio.sleep(0.5)
        got = await once()
        if isinstance(got, Failure):
            return got
        result = got
        if classify(got[0], tuning.no_change_band) != "noisy":
            break
    assert result is not None  # the loop runs at least once
    return result


async def gated(run: TimeRun, threads: int, tuning: Tuning) -> Timing | Failure:
    """``run`` at ``threads``, with a multi-thread figure withheld when the machine's counters
    say that other work held the cores meanwhile (run-queue waits of worker threads miss part
    of it)."""
    before = CpuSnapshot.now()
    timing = await run(threads)
    if isinstance(timing, Failure):
        return timing
    measurement, calib = timing
    return gate_parallel(measurement, before, CpuSnapshot.now(), tuning), calib


def confirm_slowdown(first: Measurement, repeat: Measurement, tuning: Tuning) -> Measurement:
    """The first measurement, serial or parallel, withheld unless ``repeat`` shows the
    slowdown too."""
    if classify(repeat, tuning.no_change_band) == "slower":
        return replace(first, notes=(*first.notes, f"slowdown confirmed by a second run: "
                                                   f"{repeat.speedup:.2f}×"))
    run = f"{first.threads}-thread" if first.threads > 1 else "serial"
    why = repeat.withheld or (f"the {run} run measured {first.speedup:.2f}× but a second run "
                              f"{repeat.speedup:.2f}×, so the slowdown does not reproduce.")
    return replace(first, withheld=why[0].upper() + why[1:])


async def time_both(job: Job, base: Verdict, run: TimeRun, what: str = "paired timing"
                    ) -> Timed | Verdict:
    """Paired timing at the job's threads (and at one thread for OpenMP), a slowdown timed
    again before it is believed; a failure is the final verdict. ``what`` names the timing
    in the progress reports."""
    ctx, tc = job.ctx, job.tc
    threads = job.threads
    psi = read_psi()
    job.budget.enter("timing")
    ctx.report("timing", f"{what} at {threads} thread(s)", 40)
    await gate_for_tests("timing", ctx)
    timing = await gated(run, threads, job.tuning)
    if isinstance(timing, Failure):
        return timing.apply(replace(base, psi=psi, threads=threads))
    measurement, calib = timing
    serial: Measurement | None = None
    if tc.openmp and threads > 1:
        ctx.report("timing", f"{what} at 1 thread", 60)
        serial_timing = await run(1)
        if isinstance(serial_timing, Failure):
            return serial_timing.apply(replace(base, psi=psi))
        serial = serial_timing[0]
    if classify(measurement, job.tuning.no_change_band) == "slower":
        # A slowdown is what a neighbour stealing a core or a burst of other work fakes best
        # (a function timed against itself has come out 0.82x on a loaded machine): it must
        # show again before it is reported.
        ctx.report("timing", f"timing again at {threads} thread(s) to confirm a slowdown", 70)
        repeat = await gated(run, threads, job.tuning)
        if isinstance(repeat, Failure):
            return repeat.apply(replace(base, psi=psi))
        measurement = confirm_slowdown(measurement, repeat[0], job.tuning)
    return Timed(measurement, serial, calib, psi)
