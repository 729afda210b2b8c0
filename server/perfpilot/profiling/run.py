"""Profile a program, or import a profile a user already has: the package's entry points."""

from __future__ import annotations

import os
import shlex
import shutil
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Literal

from perfpilot.profiling import callgrind, gprof, perf
from perfpilot.profiling.proc import ProfileError, run
from perfpilot.profiling.stacks import costs_to_profile, stacks_to_profile
from perfpilot.profiling.symbols import Extent, binutils_available, symbol_extents
from perfpilot.profiling.values import Profile
from perfpilot.progress import JobContext
from perfpilot.regular_files import FileReadError, read_regular_file_async

Profiler = Literal["auto", "perf", "callgrind"]
# An imported profile is read like any path from outside (``regular_files``): a regular file
# only (a FIFO or ``/dev/zero`` is refused at once), off the event loop, within a time and a
# size: text profiles are parsed whole, so one larger than this is refused, not loaded.
MAX_PROFILE_TEXT_BYTES = 512 * 1024 * 1024
PROFILE_READ_TIMEOUT_S = 60.0


async def choose_profiler(wanted: Profiler, ctx: JobContext | None = None
                          ) -> tuple[str, tuple[str, ...]]:
    """The profiler to use and notes on why (perf when it works here, else callgrind)."""
    if wanted in ("auto", "perf") and await perf.perf_works(ctx):
        return "perf", ()
    if wanted == "perf":
        raise ProfileError("perf does not work here (not installed, or perf_event_open is "
                           "refused: see /proc/sys/kernel/perf_event_paranoid)")
    if callgrind.valgrind_path() is None:
        raise ProfileError("no profiler: install perf (Debian: linux-perf) or valgrind")
    note = () if wanted == "callgrind" else (
        "perf is unavailable here; callgrind counts instructions instead of time "
        "(exact, about 50x slower)",)
    return "callgrind", note


async def build(command: str, cwd: Path, *, timeout_s: float,
                ctx: JobContext | None = None) -> None:
    """Run the project's build command (a shell command line); raise with its output's end on
    failure."""
    done = await run([command], cwd=cwd, timeout_s=timeout_s, ctx=ctx, shell=True)
    if done.returncode != 0:
        tail = (done.stderr.strip() or done.stdout.strip())[-800:]
        raise ProfileError(f"the build command failed (exit {done.returncode}): {tail}")


async def profile_command(argv: Sequence[str], cwd: Path, *, build_command: str = "",
                          profiler: Profiler = "auto", frequency: int = 997,
                          timeout_s: float = 600.0,
                          ctx: JobContext | None = None) -> Profile:
    """Build (when a build command is given), then run ``argv`` in ``cwd`` under a profiler.

    A program that exits with a non-zero status is still profiled; the profile says so.
    """
    if not argv:
        raise ProfileError("no command to profile")
    if not binutils_available():
        raise ProfileError("addr2line, nm and objdump are needed (Debian: binutils)")
    ctx = ctx or JobContext()
    if build_command:
        ctx.report("building", build_command)
        await build(build_command, cwd, timeout_s=timeout_s, ctx=ctx)
    _check_program(argv[0], cwd)
    tool, notes = await choose_profiler(profiler, ctx)
    ctx.report("profiling", f"{tool}: {shlex.join(argv)}")
    with tempfile.TemporaryDirectory(prefix="perfpilot-profile-") as tmp:
        if tool == "perf":
            data = Path(tmp) / "perf.data"
            done = await perf.record(argv, cwd, data, frequency=frequency,
                                     timeout_s=timeout_s, ctx=ctx)
            ctx.report("reading", "perf script")
            event, stacks = perf.parse_script(await perf.script(data, ctx))
            exit_notes = _exit_note(done.returncode)
            ctx.report("symbolizing", f"{len(stacks)} samples")
            got = await stacks_to_profile("perf", event or perf.EVENT, stacks, argv,
                                          str(cwd), (*notes, *exit_notes))
            ctx.check()  # cancelled while symbolizing: no profile rather than a late one
            return got
        done, files = await callgrind.record(argv, cwd, Path(tmp), timeout_s=timeout_s,
                                             ctx=ctx)
        cg = callgrind.CallgrindData()
        for f in files:
            callgrind.parse(f.read_text(encoding="utf-8", errors="replace"), cg)
        ctx.report("symbolizing", f"{len(cg.self_cost)} functions")
        got = await _callgrind_profile(cg, argv, str(cwd),
                                       (*notes, *_exit_note(done.returncode)))
        ctx.check()
        return got


def _check_program(program: str, cwd: Path) -> None:
    """A program that cannot start would leave an empty profile: say so plainly instead."""
    if "/" in program:
        path = cwd / program
        if not (path.is_file() and os.access(path, os.X_OK)):
            raise ProfileError(f"{program}: no such program in {cwd} (did the build make it?)")
    elif shutil.which(program) is None:
        raise ProfileError(f"{program}: not found on PATH")


def _exit_note(returncode: int) -> tuple[str, ...]:
    return () if returncode == 0 else (f"the program exited with status {returncode}",)


async def _callgrind_profile(cg: callgrind.CallgrindData, command: Sequence[str], cwd: str,
                             notes: Sequence[str]) -> Profile:
    by_object: dict[str, set[str]] = {}
    for fn, ob in cg.self_cost:
        by_object.setdefault(ob, set()).add(fn)
    spans = await _spans(by_object)
    costs = {k: (own, own + cg.call_cost.get(k, 0.0)) for k, own in cg.self_cost.items()}
    return costs_to_profile("callgrind", cg.event or "Ir", cg.total, costs, spans, command,
                            cwd, notes)


async def _spans(by_object: dict[str, set[str]]) -> dict[str, Extent]:
    spans: dict[str, Extent] = {}
    for ob, names in sorted(by_object.items()):
        if ob and Path(ob).is_file():
            for name, extent in (await symbol_extents(Path(ob), names)).items():
                spans[f"{ob}\0{name}"] = extent
    return spans


def detect_format(path: Path, head: bytes) -> str:
    """The format of a profile file: perf-data, perf-script, callgrind or gprof."""
    if head.startswith(b"PERFILE"):
        return "perf-data"
    text = head.decode("utf-8", "replace")
    if "events:" in text and ("fn=" in text or "creator: callgrind" in text
                              or path.name.startswith("callgrind.out")):
        return "callgrind"
    if "Flat profile" in text or "Call graph" in text or "granularity:" in text:
        return "gprof"
    return "perf-script"


async def import_profile(path: Path, *, binary: Path | None = None,
                         ctx: JobContext | None = None) -> Profile:
    """Read a profile a user already has: ``perf.data`` (through ``perf script``), ``perf
    script`` text, a callgrind output file, or a gprof text report (``binary``: the profiled
    program, for gprof's file and line information)."""
    path = path.absolute()
    try:
        head = await read_regular_file_async(path, MAX_PROFILE_TEXT_BYTES,
                                             PROFILE_READ_TIMEOUT_S, head=65536)
        kind = detect_format(path, head)
        if kind == "perf-data":  # perf reads it (of any size); the file is a regular one
            if perf.perf_path() is None:
                raise ProfileError(f"{path} is a perf.data file; reading it needs perf")
            text = await perf.script(path, ctx)
            kind = "perf-script"
        else:
            data = await read_regular_file_async(path, MAX_PROFILE_TEXT_BYTES,
                                                 PROFILE_READ_TIMEOUT_S)
            text = data.decode("utf-8", errors="replace")
    except FileReadError as exc:
        raise ProfileError(str(exc)) from exc
    if kind == "perf-script":
        event, stacks = perf.parse_script(text)
        if not stacks:
            raise ProfileError(f"{path}: no samples found (not a perf script, callgrind or "
                               "gprof file?)")
        return await stacks_to_profile("perf", event or "samples", stacks)
    if kind == "callgrind":
        cg = callgrind.parse(text)
        return await _callgrind_profile(cg, tuple(cg.commands[:1]), "", ())
    total, entries = gprof.parse(text)
    if not entries:
        raise ProfileError(f"{path}: no functions in this gprof report")
    ob = str(binary.resolve()) if binary is not None else ""
    spans = await _spans({ob: {e.name for e in entries}}) if ob else {}
    notes = () if ob else ("gprof reports name functions only: pass the program "
                           "(--binary) to find their files and lines",)
    costs = {(e.name, ob): (e.self_s, e.inclusive_s) for e in entries}
    return costs_to_profile("gprof", "seconds", total, costs, spans, notes=notes)
