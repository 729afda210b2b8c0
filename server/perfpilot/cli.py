"""The ``perfpilot`` command line: plan, optimize, bench, spec, serve, check-endpoint.

Every capability of the editor is reachable here, headless. Errors exit non-zero with one clear
line on stderr; the exit statuses are those of ``perfpilot.exit_codes``.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import dataclasses
import difflib
import json
import logging
import shlex
import signal
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from perfpilot import __version__, exit_codes
from perfpilot.cli_options import (
    add_backend_flags,
    add_budget_flag,
    positive_float,
    positive_int,
    setting_overrides,
)
from perfpilot.cli_profile import add_confirm_parser, add_profile_parser, cmd_confirm, cmd_profile
from perfpilot.cli_progress import ProgressPrinter
from perfpilot.code.locate import LocateError, function_at, function_by_name
from perfpilot.code.parse import language_for
from perfpilot.code.site import FunctionSite
from perfpilot.code.splice import splice
from perfpilot.engine.backends import BackendError
from perfpilot.engine.engine import Engine
from perfpilot.engine.file_write import FileSnapshot, WriteRefused, replace_if_unchanged, snapshot
from perfpilot.engine.one_function import optimize_in_file
from perfpilot.engine.outcome import Outcome
from perfpilot.engine.present import needs_spec_verdict, speedup_phrase
from perfpilot.engine.racing import Race
from perfpilot.engine.trust import TrustList
from perfpilot.engine.workspace_config import ConfigError, workspace_config
from perfpilot.evaluation.cli import add_eval_parser, cmd_eval
from perfpilot.llm.errors import ModelError
from perfpilot.llm.redact import RedactingFilter, redact_text
from perfpilot.model_usage import ModelUsage, UsageMeter
from perfpilot.profiling.proc import ProfileError
from perfpilot.progress import Cancelled, JobContext
from perfpilot.scan.targets import ScanInputError
from perfpilot.settings import Settings, merge_settings
from perfpilot.strategy.values import Plan, advice_label


class CliError(Exception):
    """A user-facing error: printed as one line, exit status 2 (``exit_codes.USAGE``)."""


class NotWritten(Exception):
    """``--write`` wrote nothing: printed as one line, exit status 4
    (``exit_codes.WRITE_REFUSED``)."""


def read_source(path: Path) -> str:
    """Read a C/C++ file as UTF-8, with a clear error for missing or non-UTF-8 files."""
    return read_snapshot(path)[0]


def read_snapshot(path: Path) -> tuple[str, FileSnapshot]:
    """The text of a C/C++ file and a snapshot of it, for a later compare-and-swap write."""
    try:
        snap = snapshot(path)
    except FileNotFoundError as exc:
        raise CliError(f"{path}: no such file") from exc
    except OSError as exc:
        raise CliError(f"{path}: cannot read: {exc.strerror}") from exc
    except RuntimeError as exc:  # a symlink loop
        raise CliError(f"{path}: cannot resolve: {exc}") from exc
    data = snap.data
    try:
        return data.decode("utf-8"), snap
    except UnicodeDecodeError as exc:
        raise CliError(f"{path}: not valid UTF-8 (byte 0x{data[exc.start]:02x} at offset "
                       f"{exc.start}); convert the file to UTF-8 first") from exc


def locate(path: Path, text: str, function: str | None, line: int | None) -> FunctionSite:
    """Find the function to work on by name or by 1-based line."""
    language = language_for(str(path))
    if language is None:
        raise CliError(f"{path}: not a C or C++ file")
    if not text.strip():
        raise CliError(f"{path}: the file is empty")
    uri = path.resolve().as_uri()
    try:
        if function:
            return function_by_name(text, language, function, uri=uri)
        assert line is not None
        if line < 1:
            raise CliError("--line is 1-based and must be at least 1")
        return function_at(text, language, line - 1, 0, uri=uri)
    except LocateError as exc:
        raise CliError(f"{path}: {exc}") from exc


def _settings(args: argparse.Namespace, root: Path, role: str = "") -> Settings:
    trusted = bool(getattr(args, "trust_workspace", False)) or TrustList.default().trusts(root)
    try:
        config = workspace_config(root, trusted=trusted)
    except ConfigError as exc:
        raise CliError(str(exc)) from exc
    notice = config.notice()
    if notice:
        print(f"perfpilot: {notice}", file=sys.stderr)
    settings = config.settings
    over = setting_overrides(args, role)
    try:
        return merge_settings(settings, over)
    except ValueError as exc:
        raise CliError(str(exc)) from exc


def plan_json(site: FunctionSite, plan: Plan) -> dict[str, Any]:
    """The ``plan --json`` object."""
    return {
        "function": site.name,
        "qualified_name": site.qualified_name,
        "range": {"start_line": site.first_line, "end_line": site.last_line},
        "strategies": [
            {"category": s.category.name, "category_id": s.category.id,
             "explanation": s.explanation, "lines": list(s.lines), "rule": s.rule,
             "callee": s.callee, "advice": s.advice}
            for s in plan.strategies
        ],
        "backend": plan.backend,
        "model": plan.model,
        "notes": list(plan.notes),
        "raw_text": plan.raw_text,
    }


def print_plan(site: FunctionSite, plan: Plan) -> None:
    """Human-readable plan."""
    print(f"Plan for {site.qualified_name} (lines {site.first_line}-{site.last_line}), "
          f"{plan.backend} planner:")
    if not plan.strategies:
        print("  no optimization opportunity found")
    for i, s in enumerate(plan.strategies, 1):
        where = f" [lines {', '.join(map(str, s.lines))}]" if s.lines else ""
        print(f"  {i}. {s.category.name}{where}\n     {s.explanation}")
        if s.advice:
            print(f"     {advice_label(s.advice)}")
    for note in plan.notes:
        print(f"  note: {note}")


def unit_diff(path: Path, before: str, after: str) -> str:
    """A unified diff of the whole file."""
    return "".join(difflib.unified_diff(
        before.splitlines(keepends=True), after.splitlines(keepends=True),
        fromfile=f"a/{path.name}", tofile=f"b/{path.name}"))


def _ctx(verbose: bool) -> JobContext:
    if not verbose:
        return JobContext()
    return JobContext(on_report=ProgressPrinter(lambda line: print(line, file=sys.stderr)))


async def _with_sigint(ctx: JobContext, coro: Any) -> Any:
    loop = asyncio.get_running_loop()
    with contextlib.suppress(NotImplementedError, RuntimeError):
        loop.add_signal_handler(signal.SIGINT, ctx.cancel)
    try:
        return await coro
    finally:
        with contextlib.suppress(NotImplementedError, RuntimeError):
            loop.remove_signal_handler(signal.SIGINT)


def _root_for(path: Path) -> Path:
    here = path.resolve().parent
    for d in (here, *here.parents):
        if (d / ".git").exists() or (d / "compile_commands.json").exists() \
                or (d / ".perfpilot.toml").exists() or (d / "pyproject.toml").exists():
            return d
    return here


async def cmd_plan(args: argparse.Namespace) -> int:
    path = Path(args.path)
    text = read_source(path)
    site = locate(path, text, args.function, args.line)
    engine = Engine(_settings(args, _root_for(path)), _root_for(path))
    ctx = _ctx(args.verbose)
    try:
        plan = await _with_sigint(ctx, engine.plan(site, ctx, plan_only_mode=True))
    finally:
        await engine.close()
    if args.json:
        print(json.dumps(plan_json(site, plan), indent=2))
    else:
        print_plan(site, plan)
    return 0


def outcome_json(path: Path, outcome: Outcome,
                 usage: ModelUsage | None = None) -> dict[str, Any]:
    """The ``optimize --json`` object: the plan keys plus candidates (and verdicts); with
    ``usage`` of a model request or more, ``model_usage`` (requests, tokens, seconds)."""
    site = outcome.site
    data = plan_json(site, outcome.plan)
    cands = []
    for t in outcome.trials:
        after = splice(site, t.candidate.code, t.candidate.includes)
        entry: dict[str, Any] = {
            "code": t.candidate.code,
            "strategies": [{"category": s.category.name, "category_id": s.category.id,
                            "rule": s.rule} for s in t.candidate.strategies],
            "backend": t.candidate.backend,
            "sample": t.candidate.sample,
            "round": t.candidate.round,
            "variant": t.candidate.variant,
            "includes": list(t.candidate.includes),
            "notes": list(t.candidate.notes),
            "diff": unit_diff(path, site.unit_text, after),
        }
        if t.verdict is not None:
            entry["measurement"] = t.verdict.to_json()
        cands.append(entry)
    data["candidates"] = cands
    # The answer is the model's own text, as it came (JSON escapes it; nothing runs it).
    data["rejected"] = [{"backend": r.backend, "reason": r.reason, "sample": r.sample,
                         "round": r.round, "code": r.code, "answer": r.answer}
                        for r in outcome.rejected]
    data["status"] = outcome.status
    data["chosen"] = outcome.best
    data["message"] = outcome.message
    data["races"] = [race_json(r) for r in outcome.races]
    if usage is not None and usage.requests:
        data["model_usage"] = usage.to_json()
    return data


def race_json(race: Race) -> dict[str, Any]:
    """A race between variants: each variant's laps and why it left, and the pairs spent."""
    return {"family": race.family, "pairs_spent": race.pairs_spent,
            "full_cost": race.full_cost,
            "variants": [{"label": e.label, "dropped": e.dropped, "pairs": e.pairs_taken,
                          "laps": [{"round": lap.round, "pairs_asked": lap.pairs,
                                    "verdict": lap.verdict.verdict,
                                    "speedup": lap.verdict.speedup,
                                    "ci95": (list(lap.verdict.ci95)
                                             if lap.verdict.ci95 is not None else None)}
                                   for lap in e.laps]}
                         for e in race.entrants]}


async def cmd_optimize(args: argparse.Namespace) -> int:
    path = Path(args.path)
    text, snap = read_snapshot(path)
    site = locate(path, text, args.function, args.line)
    root = _root_for(path)
    settings = _settings(args, root)
    engine = Engine(settings, root)
    meter = UsageMeter()
    ctx = dataclasses.replace(_ctx(args.verbose), usage=meter)
    # --write obeys the apply mode: a rewrite reaches the file only once measured faster, so
    # writing implies the measurement (in every mode: the mode may come from the workspace).
    measure = args.bench or args.write
    if args.write and not args.bench and settings.runner.enabled and not args.json:
        print("perfpilot: --write measures the candidates first (as --bench does): only a "
              "rewrite measured faster is written", file=sys.stderr)
    try:
        outcome: Outcome = await _with_sigint(ctx, optimize_in_file(
            engine, site, path, root, ctx, measure=measure,
            spec=Path(args.spec) if args.spec else None, fresh=args.remeasure))
    finally:
        await engine.close()
    usage = meter.total()
    if args.json:
        print(json.dumps(outcome_json(path, outcome, usage), indent=2))
    else:
        print_plan(site, outcome.plan)
        for i, t in enumerate(outcome.trials):
            about = [t.candidate.backend]
            if t.candidate.round:
                about.append(f"repair round {t.candidate.round}")
            if t.candidate.strategies:
                about.append(", ".join(s.category.name for s in t.candidate.strategies))
            print(f"\nCandidate {i + 1} ({'; '.join(about)}):")
            for note in t.candidate.notes:
                print(f"  note: {note}")
            sys.stdout.write(unit_diff(path, text, splice(site, t.candidate.code,
                                                          t.candidate.includes)))
            if t.verdict is not None:
                print(f"Measured ({t.verdict.verdict}): {t.verdict.message}")
        for r in outcome.rejected:
            round_ = f", repair round {r.round}" if r.round else ""
            print(f"Rejected ({r.backend}{round_}): {r.reason}")
        if outcome.best is not None and outcome.status == "unmeasured":
            print(f"\nCandidate {outcome.best + 1} is the proposal; it was not measured "
                  "(add --bench to verify and time it).")
        elif outcome.best is not None and outcome.status == "weakly-verified":
            print(f"\nCandidate {outcome.best + 1} was measured faster but only weakly "
                  "verified; it is not written (review it, or add a bench spec).")
        elif outcome.best is not None:
            print(f"\nChosen: candidate {outcome.best + 1}, measured faster.")
        else:
            print(f"\n{outcome.message}")
            if needs_spec_verdict(outcome) is not None:
                print(draft_command(args.path, site.qualified_name))
        if usage.requests:
            print(usage.phrase())
    if args.write:
        written = write_chosen(path, snap, outcome, settings)
        if not args.json:
            print(f"Wrote {written}")
    return 0


def write_chosen(path: Path, snap: FileSnapshot, outcome: Outcome, settings: Settings) -> Path:
    """Write the outcome's chosen rewrite over the file (compare-and-swap); raises NotWritten
    unless it was measured faster and fully verified. Only where the user turned the runner
    off (``runner.enabled = false``) is an unmeasured rewrite written, as the editor applies it
    then."""
    chosen = outcome.chosen
    if chosen is None or outcome.status == "weakly-verified":
        raise NotWritten(f"{path}: not written: {outcome.message}")
    if outcome.status == "unmeasured" and settings.runner.enabled:
        raise NotWritten(f"{path}: not written: the rewrite was not measured (apply mode "
                         f"{settings.apply_mode} writes only a rewrite measured faster)")
    if outcome.status == "unmeasured":
        print("perfpilot: the runner is off (runner.enabled = false): the rewrite is written "
              "without being measured", file=sys.stderr)
    try:
        return replace_if_unchanged(
            snap, splice(outcome.site, chosen.candidate.code, chosen.candidate.includes))
    except WriteRefused as exc:
        raise NotWritten(str(exc)) from exc
    except OSError as exc:
        raise NotWritten(f"{path}: not written: {exc.strerror or exc}") from exc


async def cmd_bench(args: argparse.Namespace) -> int:
    from perfpilot.runner.measure import bench_files

    path, cand = Path(args.path), Path(args.candidate)
    for p in (path, cand):
        read_source(p)
    settings = _settings(args, _root_for(path))
    ctx = _ctx(args.verbose)
    verdict = await _with_sigint(ctx, bench_files(
        path, args.function, cand, settings.runner, ctx,
        spec=Path(args.spec) if args.spec else None))
    if args.json:
        print(json.dumps(verdict.to_json(), indent=2))
    else:
        print(f"{args.function}: {speedup_phrase(verdict)}")
        print(verdict.message)
        if verdict.verdict == "needs-spec":
            print(draft_command(args.path, args.function))
    return 0


def draft_command(path: str, function: str) -> str:
    """The command that drafts a bench spec, with the file as the user named it."""
    return (f"Draft a bench spec to complete: perfpilot spec --draft {shlex.quote(path)} "
            f"--function {shlex.quote(function)}")


async def cmd_check_endpoint(args: argparse.Namespace) -> int:
    import os

    from perfpilot.llm.check import check_endpoint

    settings = _settings(args, Path.cwd(), role=args.role)
    role = getattr(settings, args.role)
    if role.backend == "builtin":
        # Nothing chosen: an endpoint means a remote model, a model alone a local one.
        if role.endpoint:
            role = dataclasses.replace(role, backend="remote")
        elif role.model:
            role = dataclasses.replace(role, backend="local")
        else:
            raise CliError(f"nothing to check: the {args.role} uses the builtin backend; pass "
                           "--endpoint URL (a remote model) or --model PATH (a local one)")
    key = os.environ.get(role.api_key_env) if role.api_key_env else None
    ok, message = await check_endpoint(role, key)
    if not ok:
        raise ModelError(redact_text(message), role=args.role)
    print(f"{args.role}: {redact_text(message)}")
    return exit_codes.OK


def cmd_trust(args: argparse.Namespace) -> int:
    """List, add or remove trusted workspace folders."""
    trust = TrustList.default()
    if args.list:
        for folder in trust.folders():
            print(folder)
        return 0
    folder = Path(args.folder or ".")
    if not folder.is_dir():
        raise CliError(f"{folder}: not a folder")
    if args.remove:
        removed = trust.remove(folder)
        print(f"{folder.resolve()} {'is no longer trusted' if removed else 'was not trusted'}")
        return 0
    print(f"trusted {trust.add(folder)} (its configuration may now choose endpoints, API key "
          f"variables, models and compilers; list in {trust.path})")
    return 0


async def cmd_profile_cli(args: argparse.Namespace) -> int:
    # The workspace holding the working directory gives the [profile] run settings.
    root = _root_for((Path(args.cwd) if args.cwd else Path.cwd()) / "-")
    settings = _settings(args, root)
    ctx = _ctx(args.verbose)
    return int(await _with_sigint(ctx, cmd_profile(args, settings.profile, root, ctx)))


async def cmd_confirm_cli(args: argparse.Namespace) -> int:
    root = _root_for(Path(args.path))
    settings = _settings(args, root)
    ctx = _ctx(args.verbose)
    return int(await _with_sigint(ctx, cmd_confirm(args, settings.profile, root, ctx)))


def cmd_serve(args: argparse.Namespace) -> int:
    from perfpilot.lsp.log_lines import one_line_logging
    from perfpilot.lsp.server import create_server

    one_line_logging(logging.getLogger().handlers)  # a hostile client cannot flood stderr
    server = create_server()
    if args.tcp:
        host, _, port = args.tcp.rpartition(":")
        if not port.isdigit():
            raise CliError("--tcp takes HOST:PORT")
        server.start_tcp(host or "127.0.0.1", int(port))
    else:
        server.start_io()
    return 0


def cmd_spec(args: argparse.Namespace) -> int:
    """Write a draft bench spec next to the source (never over an existing one)."""
    from perfpilot.engine.spec_drafts import write_spec_draft

    path = Path(args.draft)
    site = locate(path, read_source(path), args.function, args.line)
    try:
        written = write_spec_draft(site)
    except FileExistsError as exc:
        raise CliError(str(exc)) from exc
    print(f"Wrote {written}: complete its TODOs; 'perfpilot bench' then uses it for "
          f"'{site.qualified_name}'.")
    return 0


async def cmd_scan(args: argparse.Namespace) -> int:
    """``perfpilot scan``: the flags as ``ScanOptions``; ``perfpilot.scan`` does the rest."""
    from perfpilot.profiling.run import import_profile, profile_command
    from perfpilot.scan.report import write_outputs
    from perfpilot.scan.run import ScanOptions, run_scan

    paths = tuple(Path(p) for p in (args.paths or ["."]))
    first = paths[0]
    root = Path(args.root).resolve() if args.root else _root_for(
        first / "-" if first.is_dir() else first)
    settings = _settings(args, root)
    if args.fail_on == "regression" and not args.changed_since:
        raise CliError("--fail-on regression needs --changed-since REF (the base revision)")
    workers = "local" if args.workers is None else args.workers
    if args.jobs is not None and args.jobs != 1:
        raise CliError("--jobs: only 1 runs here (measurements on one machine disturb each "
                       "other); use --workers for more")
    ctx = _ctx(args.verbose)
    profile = None
    if args.profile_import:
        profile = await import_profile(Path(args.profile_import), ctx=ctx)
    elif args.profile_run:
        profile = await _with_sigint(ctx, profile_command(
            shlex.split(args.profile_run), root / settings.profile.cwd if settings.profile.cwd
            else root, build_command=settings.profile.build_command,
            profiler=settings.profile.profiler,  # type: ignore[arg-type]
            frequency=settings.profile.frequency, timeout_s=settings.profile.timeout_s,
            ctx=ctx))
    options = ScanOptions(
        paths, root, settings, workers=workers, max_functions=args.max_functions,
        budget_s=args.budget * 60 if args.budget is not None else None,
        changed_since=args.changed_since, profile=profile,
        fail_on_regression=args.fail_on == "regression", fresh=args.remeasure,
        restart=args.restart, cpus_per_function=args.cpus_per_function)
    result = await _with_sigint(ctx, run_scan(options, ctx))
    confirmed = None
    if args.confirm is not None:
        from perfpilot.confirm.program import ProgramCommands
        from perfpilot.scan.confirm_all import confirm_together

        prof = settings.profile
        commands = ProgramCommands(
            build=args.build if args.build is not None else prof.build_command,
            run=args.confirm or prof.run_command,
            test=args.test if args.test is not None else prof.test_command, cwd=prof.cwd)
        confirmed = await _with_sigint(ctx, confirm_together(
            result, root, commands, pairs=prof.confirm_pairs, timeout_s=prof.timeout_s,
            ctx=ctx))
    out = Path(args.out) if args.out else root / ".perfpilot" / "scan"
    written = write_outputs(result, root, out, confirmed)
    if confirmed is not None:
        print(f"whole program with the combined patch: {confirmed.verdict}: "
              f"{confirmed.message}")
    verified = sum(1 for r in result.results if r.verified)
    print(f"{len(result.results)} function(s), {verified} verified speedup(s); report "
          f"{written.report}, SARIF {written.sarif}, JSON {written.json}, "
          f"{len(written.patches)} patch(es) and {written.combined}")
    if result.usage.requests:
        print(result.usage.phrase())
    for check in result.regressed:
        print(f"regression: {check.target.function} ({check.target.path}:"
              f"{check.target.first_line}) is slower than at {args.changed_since}: "
              f"{(check.verdict or {}).get('message', '')}")
    return exit_codes.REGRESSION if result.regressed else exit_codes.OK


def _add_scan_parser(sub: Any) -> None:
    p = sub.add_parser("scan", help="plan, rewrite, verify and measure many functions (files "
                                    "and folders, a profile or a diff); report, SARIF, patches")
    p.add_argument("paths", nargs="*", metavar="PATH",
                   help="C/C++ files and folders (default: the current folder)")
    p.add_argument("--root", help="the workspace root (default: found from the first path)")
    p.add_argument("--out", "-o", metavar="DIR",
                   help="folder of the outputs (default: <root>/.perfpilot/scan)")
    p.add_argument("--profile-run", metavar="CMD",
                   help="profile this command first and take its hot functions, hottest "
                        "first (profile.buildCommand builds before)")
    p.add_argument("--profile-import", metavar="FILE",
                   help="take the hot functions of a profile the user has (as perfpilot "
                        "profile --import reads)")
    p.add_argument("--changed-since", metavar="REF",
                   help="only functions a git diff against REF touches")
    p.add_argument("--fail-on", choices=["regression"],
                   help="regression: also time each changed function against REF and exit "
                        f"with status {exit_codes.REGRESSION} when one got slower beyond its "
                        "interval")
    p.add_argument("--confirm", nargs="?", const="", metavar="RUN_CMD",
                   help="build the project with every verified rewrite together, run its tests "
                        "and time the whole program on RUN_CMD (default profile.runCommand) "
                        "against the original")
    p.add_argument("--build", metavar="CMD",
                   help="with --confirm: the build command (default profile.buildCommand)")
    p.add_argument("--test", metavar="CMD",
                   help="with --confirm: the test command (default profile.testCommand)")
    p.add_argument("--budget", type=positive_float, metavar="MINUTES",
                   help="start no function once this many minutes are spent (run again to go "
                        "on)")
    p.add_argument("--max-functions", type=positive_int, metavar="N")
    p.add_argument("--jobs", type=positive_int, metavar="1",
                   help="functions measured at once on this machine (only 1)")
    p.add_argument("--workers", metavar="auto|ray://ADDRESS",
                   help="measure on Ray workers, one function per worker at a time (the "
                        "[scale] extra)")
    p.add_argument("--cpus-per-function", type=positive_float, default=1.0, metavar="N",
                   help="with --workers: the CPUs Ray reserves for each function (default 1)")
    p.add_argument("--restart", action="store_true",
                   help="forget the functions an earlier, interrupted scan finished")
    p.add_argument("--remeasure", action="store_true",
                   help="measure again instead of reusing cached verdicts")
    add_backend_flags(p)
    _add_trust_flag(p)
    p.add_argument("--threads", type=int, help="OpenMP threads (0 = all cores)")
    p.add_argument("--compiler", help="compiler (g++, clang++, gcc, clang)")
    add_budget_flag(p)


def _add_target(p: argparse.ArgumentParser) -> None:
    p.add_argument("path", help="C or C++ source file")
    g = p.add_mutually_exclusive_group(required=True)
    g.add_argument("--function", "-f", help="function name (plain or qualified)")
    g.add_argument("--line", "-l", type=int, help="a 1-based line inside the function")


def _add_trust_flag(p: argparse.ArgumentParser) -> None:
    p.add_argument("--trust-workspace", action="store_true",
                   help="for this run, let the workspace's .perfpilot.toml choose endpoints, "
                        "API key variables, models and compilers")


def build_parser() -> argparse.ArgumentParser:
    """The argument parser."""
    parser = argparse.ArgumentParser(prog="perfpilot", description=__doc__)
    parser.add_argument("--version", action="version", version=f"perfpilot {__version__}")
    parser.add_argument("-v", "--verbose", action="store_true", help="print progress to stderr")
    sub = parser.add_subparsers(dest="command", required=True)

    p = sub.add_parser("plan", help="print a strategy plan for a function")
    _add_target(p)
    add_backend_flags(p)
    _add_trust_flag(p)
    p.add_argument("--json", action="store_true")

    p = sub.add_parser("optimize", help="plan, rewrite, and show the diff")
    _add_target(p)
    add_backend_flags(p)
    _add_trust_flag(p)
    p.add_argument("--json", action="store_true")
    p.add_argument("--write", action="store_true",
                   help="measure the candidates (as --bench) and write the one measured faster "
                        "to the file; exit status 4 when nothing is written")
    p.add_argument("--bench", action="store_true", help="verify and measure each candidate")
    p.add_argument("--remeasure", action="store_true",
                   help="with --bench: measure again instead of reusing cached verdicts")
    p.add_argument("--spec", help="bench spec file for functions the harness cannot feed")
    p.add_argument("--threads", type=int, help="OpenMP threads (0 = all cores)")
    p.add_argument("--compiler", help="compiler (g++, clang++, gcc, clang)")
    add_budget_flag(p)

    p = sub.add_parser("bench", help="time a function against the same function in another file")
    p.add_argument("path")
    p.add_argument("--function", "-f", required=True)
    p.add_argument("--candidate", required=True, help="file with the candidate version")
    p.add_argument("--spec")
    p.add_argument("--threads", type=int)
    p.add_argument("--compiler")
    add_budget_flag(p)
    p.add_argument("--json", action="store_true")
    _add_trust_flag(p)

    p = sub.add_parser("spec", help="draft a bench spec for a function the harness cannot feed")
    p.add_argument("--draft", required=True, metavar="FILE", help="C or C++ source file")
    g = p.add_mutually_exclusive_group(required=True)
    g.add_argument("--function", "-f", help="function name (plain or qualified)")
    g.add_argument("--line", "-l", type=int, help="a 1-based line inside the function")

    _add_scan_parser(sub)
    add_eval_parser(sub)
    add_profile_parser(sub)
    add_confirm_parser(sub)
    from perfpilot.training.cli import add_train_parser  # the trainers load only when used
    add_train_parser(sub)

    p = sub.add_parser("serve", help="run the language server (stdio, or --tcp HOST:PORT)")
    p.add_argument("--tcp", metavar="HOST:PORT")

    p = sub.add_parser("check-endpoint", help="test the connection to a model endpoint")
    p.add_argument("--role", choices=["planner", "optimizer"], default="optimizer")
    add_backend_flags(p)
    _add_trust_flag(p)

    p = sub.add_parser("trust", help="trust a workspace folder to choose endpoints, keys, "
                                     "models and compilers in its .perfpilot.toml")
    p.add_argument("folder", nargs="?", help="the folder (default: the current one)")
    g = p.add_mutually_exclusive_group()
    g.add_argument("--remove", action="store_true", help="stop trusting the folder")
    g.add_argument("--list", action="store_true", help="list the trusted folders")

    p = sub.add_parser("doctor", help="report the isolation and tools this machine gives")
    p.add_argument("--json", action="store_true")
    return parser


async def cmd_doctor(args: argparse.Namespace) -> int:
    """Print which sandbox layers work here, and the compilers and tools found."""
    from perfpilot.runner.doctor import checks, model_code_policy, render

    found = await checks()
    if args.json:
        print(json.dumps({"checks": [vars(c) for c in found],
                          "model_code": model_code_policy(found)}, indent=2))
    else:
        print(render(found))
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``perfpilot`` console script."""
    args = build_parser().parse_args(argv)
    logging.basicConfig(level=logging.INFO if args.verbose else logging.WARNING,
                        stream=sys.stderr, format="%(levelname)s %(name)s: %(message)s")
    for log_handler in logging.getLogger().handlers:
        log_handler.addFilter(RedactingFilter())  # no key in a URL reaches a log
    try:
        if args.command == "serve":
            return cmd_serve(args)
        if args.command == "spec":
            return cmd_spec(args)
        if args.command == "trust":
            return cmd_trust(args)
        if args.command == "train":
            from perfpilot.training.cli import cmd_train
            return cmd_train(args)
        handler = {"plan": cmd_plan, "optimize": cmd_optimize, "bench": cmd_bench,
                   "check-endpoint": cmd_check_endpoint, "eval": cmd_eval,
                   "doctor": cmd_doctor, "profile": cmd_profile_cli,
                   "confirm": cmd_confirm_cli, "scan": cmd_scan}[args.command]
        return asyncio.run(handler(args))
    except (CliError, ProfileError, ScanInputError) as exc:
        print(f"perfpilot: {redact_text(str(exc))}", file=sys.stderr)
        return exit_codes.USAGE
    except NotWritten as exc:
        print(f"perfpilot: {redact_text(str(exc))}", file=sys.stderr)
        return exit_codes.WRITE_REFUSED
    except (ModelError, BackendError) as exc:  # the message names the role that failed
        print(f"perfpilot: {redact_text(str(exc))}", file=sys.stderr)
        return exit_codes.MODEL
    except Cancelled:
        print("perfpilot: cancelled", file=sys.stderr)
        return exit_codes.CANCELLED
    except KeyboardInterrupt:
        print("perfpilot: interrupted", file=sys.stderr)
        return exit_codes.CANCELLED
    except Exception as exc:  # a last resort: one line, never a traceback for users
        name = type(exc).__name__
        print(f"perfpilot: {name}: {redact_text(str(exc))}", file=sys.stderr)
        if args.verbose:
            raise
        return exit_codes.INTERNAL


if __name__ == "__main__":
    sys.exit(main())
