"""The build stage both modes share: the work folder made ready, whether the build cache may
serve, the object policy's builds and its refusal, and the verdict of a side that does not
build. A function's mode adds its layout copies, driver and sanitized builds; a whole
program's, the program itself and its launcher (``measure.py``, ``program.py``)."""

from __future__ import annotations

import asyncio
from dataclasses import replace

from perfpilot.progress import gate_for_tests
from perfpilot.runner.admission import object_verdict
from perfpilot.runner.build import (
    BuildCache,
    Compiled,
    compile_check_object,
    first_error,
    install_headers,
)
from perfpilot.runner.job import Job
from perfpilot.runner.sandbox import make_writable_for_runs
from perfpilot.runner.values import Verdict


async def start_building(job: Job, what: str) -> BuildCache | None:
    """Enter the building stage (``what``: the progress report's text) and make the work
    folder ready: the runner's headers, a folder per side, writable by the unprivileged
    compiler when builds run as one. Returns the build cache when it may serve this job:
    headers found through include paths are not part of its key, so not with those."""
    job.budget.enter("building")
    job.ctx.report("building", what, 5)
    await gate_for_tests("building", job.ctx)
    install_headers(job.workdir)
    for side in ("a", "b"):
        (job.workdir / side).mkdir(exist_ok=True)
    if job.compile_as_nobody:
        make_writable_for_runs(job.workdir, job.sandbox)
    project_headers = any(f.startswith(("-I", "-isystem", "-include")) for f in job.tc.flags)
    return BuildCache.default() if job.tuning.build_cache and not project_headers else None


async def check_objects(job: Job, cache: BuildCache | None, units: tuple[str, str],
                        unit_name: str, *, pic: bool = True) -> tuple[Compiled, ...]:
    """Both sides built for the object policy (none when the job is not policed);
    ``pic=False`` for whole programs."""
    if not job.object_policy:
        return ()
    return tuple(await asyncio.gather(*(
        compile_check_object(job.sandbox, job.tc, job.workdir, side, unit, unit_name,
                             timeout_s=job.settings.build_timeout_s, ctx=job.ctx, cache=cache,
                             unprivileged=job.compile_as_nobody, pic=pic)
        for side, unit in zip(("a", "b"), units, strict=True))))


async def judge_objects(job: Job, base: Verdict, checks: tuple[Compiled, ...], entry: str, *,
                        state: bool = True, whole_units: tuple[tuple[str, str], ...] = ()
                         ) -> Verdict | None:
    """The object policy's verdict on the checked builds, judged from the symbol ``entry``
    (and on the ``whole_units`` pairs); ``state=False`` lets a whole program keep state, as
    it runs once per process. None when the candidate may run."""
    if len(checks) != 2 or not all(c.ok for c in checks):
        why = next((first_error(c.log) for c in checks if not c.ok), "not built")
        return replace(base, verdict="rejected", validation_status="skipped",
                       message=f"Rejected by the capability policy: the build it reads to "
                               f"check the candidate failed: {why}.")
    return await object_verdict(base, job.workdir, checks[0].output, checks[1].output, entry,
                                state=state, whole_units=whole_units)


def side_failure(base: Verdict, a: Compiled, b: Compiled) -> Verdict | None:
    """The verdict when the original (``a``) or the candidate (``b``) does not build; None
    when both do."""
    if not a.ok:
        msg = ("The original does not build on its own"
               + (" (it may need other files of the project)" if "undefined reference" in a.log
                  else "") + f": {first_error(a.log)}")
        return replace(base, message=msg, build_log=a.log)
    if not b.ok:
        verdict = "timeout" if b.timed_out else "build-failed"
        return replace(base, verdict=verdict,
                       message=f"The candidate does not compile: {first_error(b.log)}",
                       build_log=b.log)
    return None
