"""Confirm in program: build the project twice (original and rewrite) with its own build
command, run its test command on the rewrite, and time the whole program A/B.

Each side is a copy of the workspace (without ``.git``, ``.perfpilot`` and CMake build folders,
which the build command makes again), so the user's tree is never touched. Runs alternate
A B B A, each a whole process; the estimate is the median of the per-pair time ratios with a
bootstrap interval (``perfpilot.runner.stats``), judged with the runner's verdict rule and
its rules for a figure a user sees (``runner/paired_timing.py``): a noisy run is timed again,
and a slowdown is reported only when a second run shows it too.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import resource
import shlex
import shutil
import signal
import tempfile
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from perfpilot.profiling.proc import Finished, ProfileError, run
from perfpilot.progress import JobContext
from perfpilot.runner.driver_run import Calibration
from perfpilot.runner.paired_timing import Timing, confirm_slowdown, settled
from perfpilot.runner.stats import PairSample, classify, summarize
from perfpilot.runner.values import Measurement, Tuning
from perfpilot.runner.verdicts import Failure


@dataclass(frozen=True)
class ProgramVerdict:
    """The program-level result of a rewrite.

    ``verdict``: faster, slower, no-change, noisy (as the runner's), or build-failed,
    test-failed, run-failed. ``speedup`` is original time / rewrite time (above 1: faster).
    """

    verdict: str
    message: str
    speedup: float | None = None
    ci95: tuple[float, float] | None = None
    pairs: int = 0
    median_a_s: float = 0.0
    median_b_s: float = 0.0
    basis: str = "wall"
    failed_test: str = ""

    def to_json(self) -> dict[str, Any]:
        """A plain dict for JSON."""
        return {"verdict": self.verdict, "message": self.message, "speedup": self.speedup,
                "ci95": list(self.ci95) if self.ci95 else None, "pairs": self.pairs,
                "median_a_s": self.median_a_s, "median_b_s": self.median_b_s,
                "basis": self.basis, "failed_test": self.failed_test}


@dataclass(frozen=True)
class ProgramCommands:
    """The project's own commands (shell command lines) and where they run."""

    build: str
    run: str
    test: str = ""
    cwd: str = ""  # relative to the workspace root


def _skip(folder: str, names: list[str]) -> set[str]:
    skipped = {n for n in names if n in (".git", ".perfpilot")}
    # CMake build folders hold absolute paths of the original tree: the build makes them anew.
    skipped |= {n for n in names if (Path(folder) / n / "CMakeCache.txt").is_file()}
    return skipped


def _copy(root: Path, dest: Path, files: Mapping[Path, str]) -> None:
    shutil.copytree(root, dest, ignore=_skip, symlinks=True)
    for rel, text in files.items():
        (dest / rel).write_text(text, encoding="utf-8")


def _tail(done: Finished, lines: int = 15) -> str:
    text = (done.stdout + "\n" + done.stderr).strip().splitlines()
    return "\n".join(text[-lines:])


def failing_tests(output: str) -> str:
    """The lines of a test command's output that name failures (else its last lines)."""
    marked = [line.strip() for line in output.splitlines()
              if any(w in line.lower() for w in ("fail", "error", "assert", "mismatch"))]
    return "\n".join(marked[:10]) if marked else "\n".join(output.strip().splitlines()[-10:])


async def _timed(argv: Sequence[str], cwd: Path, timeout_s: float,
                 ctx: JobContext) -> tuple[int, int, int]:
    """Run once with output discarded: (exit status, wall ns, CPU ns of the child)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter_ns()
    proc = await asyncio.create_subprocess_exec(
        *argv, cwd=str(cwd), stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.DEVNULL, stderr=asyncio.subprocess.DEVNULL,
        start_new_session=True)
    try:
        code = await asyncio.wait_for(proc.wait(), timeout_s)
    except (asyncio.TimeoutError, asyncio.CancelledError):
        _kill_group(proc.pid)
        raise
    wall = time.perf_counter_ns() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = ((after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)) * 1e9
    ctx.check()
    return code, wall, int(cpu)


def _kill_group(pid: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pid, signal.SIGKILL)


class _RunFailed(Exception):
    """The run command failed in a timed pair (its message says which)."""


async def _paired_runs(argv: Sequence[str], cwd: Mapping[str, Path], pairs: int,
                       timeout_s: float, ctx: JobContext, tuning: Tuning) -> Measurement:
    """``pairs`` whole runs of each side, alternating A B B A, summarised."""
    samples: list[PairSample] = []
    for i in range(pairs):
        order = ("a", "b") if i % 2 == 0 else ("b", "a")
        got: dict[str, tuple[int, int]] = {}
        for side in order:
            code, wall, cpu = await _timed(argv, cwd[side], timeout_s, ctx)
            if code != 0:
                raise _RunFailed(f"the run command exited with status {code} (pair {i + 1})")
            got[side] = (wall, cpu)
        samples.append(PairSample(a_ns=got["a"][0], b_ns=got["b"][0],
                                  a_cpu_ns=got["a"][1], b_cpu_ns=got["b"][1]))
        ctx.report("timing", f"pair {i + 1} of {pairs}", int(100 * (i + 1) / pairs))
    return summarize(samples, threads=1, tuning=tuning)


async def confirm_in_program(root: Path, source: Path, original: str, rewritten: str,
                             commands: ProgramCommands, *, pairs: int = 10,
                             timeout_s: float = 600.0,
                             ctx: JobContext | None = None,
                             tuning: Tuning | None = None,
                             more: Mapping[Path, str] | None = None) -> ProgramVerdict:
    """Build both versions, test the rewrite, time the program A/B on the run command.

    ``more``: other files the rewrite changes (paths relative to ``root``, their new texts),
    written into the rewrite's copy with ``source`` (a scan's rewrites confirmed together)."""
    ctx = ctx or JobContext()
    tuning = tuning or Tuning()
    if not commands.build.strip() or not commands.run.strip():
        raise ProfileError("confirming in the program needs a build command and a run command")
    try:
        rel = source.resolve().relative_to(root.resolve())
    except ValueError as exc:
        raise ProfileError(f"{source} is not inside the workspace {root}") from exc
    argv = shlex.split(commands.run)
    with tempfile.TemporaryDirectory(prefix="perfpilot-confirm-") as tmp:
        sides = {"a": Path(tmp) / "a", "b": Path(tmp) / "b"}
        ctx.report("copying", str(root))
        await asyncio.to_thread(_copy, root, sides["a"], {rel: original})
        await asyncio.to_thread(_copy, root, sides["b"], {**(more or {}), rel: rewritten})
        cwd = {k: (v / commands.cwd if commands.cwd else v) for k, v in sides.items()}
        for key, label in (("a", "the original"), ("b", "the rewrite")):
            ctx.report("building", f"{label}: {commands.build}")
            done = await run([commands.build], cwd=cwd[key], timeout_s=timeout_s, ctx=ctx,
                             shell=True)
            if done.returncode != 0:
                return ProgramVerdict("build-failed", f"the project's build failed with "
                                      f"{label} (exit {done.returncode}):\n{_tail(done)}")
        if commands.test.strip():
            ctx.report("testing", commands.test)
            done = await run([commands.test], cwd=cwd["b"], timeout_s=timeout_s, ctx=ctx,
                             shell=True)
            if done.returncode != 0:
                base = await run([commands.test], cwd=cwd["a"], timeout_s=timeout_s, ctx=ctx,
                                 shell=True)
                also = (" (it fails on the original too)" if base.returncode != 0 else "")
                failed = failing_tests(done.stdout + "\n" + done.stderr)
                return ProgramVerdict(
                    "test-failed", f"the test command failed with the rewrite (exit "
                    f"{done.returncode}){also}:\n{failed}", failed_test=failed)
        for side in ("a", "b"):  # warm-up: caches, and a first check that both run
            code, _, _ = await _timed(argv, cwd[side], timeout_s, ctx)
            if code != 0:
                which = "original" if side == "a" else "rewrite"
                return ProgramVerdict("run-failed", f"the run command exited with status "
                                      f"{code} with the {which}")

        async def once() -> Timing:
            ctx.report("timing", f"{pairs} pairs of whole runs: {commands.run}")
            return await _paired_runs(argv, cwd, pairs, timeout_s, ctx, tuning), Calibration()

        try:
            # The runner's rules for a figure shown to the user: a noisy one is timed again,
            # and a slowdown must show twice before it is reported.
            got = await settled(once, tuning)
            assert not isinstance(got, Failure)  # ``once`` raises instead
            m = got[0]
            if classify(m, tuning.no_change_band) == "slower":
                ctx.report("timing", "timing again to confirm a slowdown")
                m = confirm_slowdown(m, (await once())[0], tuning)
        except _RunFailed as failed:
            return ProgramVerdict("run-failed", str(failed))
    verdict = classify(m, tuning.no_change_band)
    message = (f"whole program: {m.speedup:.2f}× (95% CI {m.ci95_low:.2f}–{m.ci95_high:.2f}, "
               f"{m.pairs} paired runs, {m.median_a_s:.3f} s → {m.median_b_s:.3f} s)")
    if m.withheld:
        message += f"; not reliable: {m.withheld}"
    elif verdict == "slower":
        message += "; " + m.notes[-1]  # the second run that confirmed it
    return ProgramVerdict(verdict, message, m.speedup, (m.ci95_low, m.ci95_high), m.pairs,
                          m.median_a_s, m.median_b_s, m.basis)
