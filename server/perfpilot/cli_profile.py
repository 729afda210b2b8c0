"""``perfpilot profile``: where a program spends its time, per source function.

``perfpilot profile [--build CMD] [--cwd DIR] [--] PROGRAM ARGS...`` runs the program under perf
(or callgrind where perf does not work); ``perfpilot profile --import FILE`` reads a profile
the user already has. Without a program, the workspace's ``[profile]`` run settings are used.
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
from pathlib import Path
from typing import Any

from perfpilot.cli_options import positive_float, positive_int
from perfpilot.profiling.proc import ProfileError
from perfpilot.profiling.run import Profiler, import_profile, profile_command
from perfpilot.profiling.values import FunctionCost, Profile
from perfpilot.progress import JobContext
from perfpilot.settings import ProfileSettings


def add_profile_parser(sub: Any) -> None:
    """The ``profile`` subcommand's arguments."""
    p = sub.add_parser("profile", help="profile a program (or import a profile): the hot "
                                       "functions with their files and lines")
    p.add_argument("--import", dest="import_file", metavar="FILE",
                   help="read a profile instead: perf.data, perf script text, a callgrind "
                        "output file, or a gprof report")
    p.add_argument("--binary", metavar="PROGRAM",
                   help="with --import of a gprof report: the profiled program (for files "
                        "and lines)")
    p.add_argument("--build", metavar="CMD", help="shell command that builds the program first")
    p.add_argument("--cwd", metavar="DIR", help="working directory of the build and the run")
    p.add_argument("--profiler", choices=["auto", "perf", "callgrind"],
                   help="auto (default): perf with the cpu-clock event when it works, "
                        "else callgrind")
    p.add_argument("--frequency", type=positive_int, metavar="HZ",
                   help="perf samples per second (default 997)")
    p.add_argument("--timeout", type=positive_float, metavar="SECONDS",
                   help="limit for the build and for the run (default 600)")
    p.add_argument("--top", type=positive_int, default=15, metavar="N",
                   help="functions to list (default 15)")
    p.add_argument("--all", action="store_true",
                   help="list functions without debug information too (libraries, kernel)")
    p.add_argument("--output", "-o", metavar="FILE", help="also write the profile as JSON")
    p.add_argument("--json", action="store_true", help="print the profile as JSON")
    p.add_argument("program", nargs=argparse.REMAINDER,
                   help="the program and its arguments (after --)")


def _where(f: FunctionCost, base: Path) -> str:
    if not f.file:
        return f"(no debug information: {Path(f.binary).name or 'unknown'})"
    try:
        name = os.path.relpath(f.file, base)
    except ValueError:
        name = f.file
    if name.startswith(".."):
        name = f.file
    span = f"{f.first_line}" if f.first_line == f.last_line else f"{f.first_line}-{f.last_line}"
    return f"{name}:{span}"


def format_profile(profile: Profile, top: int, with_source: bool, base: Path) -> str:
    """The text report: one line per function, by self share."""
    what = shlex.join(profile.command) if profile.command else "imported profile"
    lines = [f"Profile of {what} ({profile.tool}, {profile.event}, total {profile.total:g})",
             f"{'self':>7} {'incl':>7}  function  (file:lines)"]
    ranked = profile.hottest(len(profile.functions), with_source=with_source)
    if with_source:
        # The user's own code: sources on this machine (libraries' debug information names
        # files of their build trees).
        ranked = tuple(f for f in ranked if (base / f.file).is_file())
    shown = ranked[:top]
    for f in shown:
        lines.append(f"{f.self_share:7.1%} {f.inclusive_share:7.1%}  {f.name}  "
                     f"({_where(f, base)})")
    if not shown:
        lines.append("  no function with debug information was sampled: build with -g "
                     "(or pass --all)")
    lines.extend(f"note: {n}" for n in profile.notes)
    return "\n".join(lines)


async def cmd_profile(args: argparse.Namespace, settings: ProfileSettings,
                      root: Path, ctx: JobContext) -> int:
    """Run ``perfpilot profile``; raises ProfileError for the CLI to print."""
    if args.import_file:
        if args.program:
            raise ProfileError("give either --import FILE or a program to run, not both")
        profile = await import_profile(Path(args.import_file),
                                       binary=Path(args.binary) if args.binary else None,
                                       ctx=ctx)
        base = Path.cwd()
    else:
        argv = list(args.program)
        if argv and argv[0] == "--":
            argv = argv[1:]
        if not argv and settings.run_command:
            argv = shlex.split(settings.run_command)
        if not argv:
            raise ProfileError("nothing to profile: give a program (perfpilot profile -- "
                               "PROGRAM ARGS...), --import FILE, or set profile.run_command "
                               "in .perfpilot.toml")
        cwd = Path(args.cwd) if args.cwd else (root / settings.cwd if settings.cwd else root)
        build = args.build if args.build is not None else (
            settings.build_command if not args.program else "")
        wanted: Profiler = args.profiler or settings.profiler  # type: ignore[assignment]
        profile = await profile_command(
            argv, cwd.resolve(), build_command=build, profiler=wanted,
            frequency=args.frequency or settings.frequency,
            timeout_s=args.timeout or settings.timeout_s, ctx=ctx)
        base = cwd.resolve()
    if args.output:
        Path(args.output).write_text(json.dumps(profile.to_json(), indent=2) + "\n",
                                     encoding="utf-8")
    if args.json:
        print(json.dumps(profile.to_json(), indent=2))
    else:
        print(format_profile(profile, args.top, not args.all, base))
    return 0


def add_confirm_parser(sub: Any) -> None:
    """The ``confirm`` subcommand's arguments."""
    p = sub.add_parser("confirm", help="time the whole program with a rewritten file against "
                                       "the original (build, test, paired runs)")
    p.add_argument("path", help="the source file as it is now (the original)")
    p.add_argument("--candidate", required=True,
                   help="the same file with the rewrite (the whole file)")
    p.add_argument("--build", metavar="CMD", help="the project's build command")
    p.add_argument("--run", metavar="CMD", help="the command that runs the program")
    p.add_argument("--test", metavar="CMD", help="the project's test command (optional)")
    p.add_argument("--cwd", metavar="DIR", help="folder of the commands, relative to the "
                                                "workspace root")
    p.add_argument("--pairs", type=positive_int, help="paired runs (default 10)")
    p.add_argument("--timeout", type=positive_float, metavar="SECONDS")
    p.add_argument("--json", action="store_true")


async def cmd_confirm(args: argparse.Namespace, settings: ProfileSettings, root: Path,
                      ctx: JobContext) -> int:
    """Run ``perfpilot confirm``; exit status 0 whatever the verdict (it is printed)."""
    from perfpilot.confirm.program import ProgramCommands, confirm_in_program

    path, cand = Path(args.path), Path(args.candidate)
    try:
        original = path.read_text(encoding="utf-8")
        rewritten = cand.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ProfileError(f"cannot read the files: {exc}") from exc
    commands = ProgramCommands(
        build=args.build if args.build is not None else settings.build_command,
        run=args.run if args.run is not None else settings.run_command,
        test=args.test if args.test is not None else settings.test_command,
        cwd=args.cwd if args.cwd is not None else settings.cwd)
    verdict = await confirm_in_program(root, path, original, rewritten, commands,
                                       pairs=args.pairs or settings.confirm_pairs,
                                       timeout_s=args.timeout or settings.timeout_s, ctx=ctx)
    if args.json:
        print(json.dumps(verdict.to_json(), indent=2))
    else:
        print(f"{verdict.verdict}: {verdict.message}")
    return 0
