"""``perfpilot eval TASKS_DIR``: evaluate the configured backends over a task set.

Writes one result file per task (so an interrupted run resumes), ``summary.json``,
``report.md`` and ``eval.png`` into ``--out``; ``--report-md`` and ``--chart`` write the report
and chart elsewhere too (``make eval`` regenerates ``docs/eval.md`` this way).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import shlex
import signal
import sys
from pathlib import Path
from typing import Any

from perfpilot import exit_codes
from perfpilot.cli_options import add_backend_flags, setting_overrides
from perfpilot.engine.engine import Engine
from perfpilot.evaluation.evaluate import EvalOptions, Evaluator
from perfpilot.evaluation.metrics import compute_metrics
from perfpilot.evaluation.report import markdown_report, write_chart
from perfpilot.evaluation.store import ResultStore
from perfpilot.evaluation.tasks import TaskError, load_tasks
from perfpilot.progress import JobContext
from perfpilot.settings import Settings, merge_settings

DEFAULT_OUT = "eval-out"
DEFAULT_PAIRS = 20
DEFAULT_RETRIES = 1


def add_eval_parser(subparsers: Any) -> None:
    """Add the ``eval`` subcommand to the main parser's ``subparsers``."""
    p = subparsers.add_parser("eval", help="evaluate the backends over a task set",
                              description=__doc__,
                              formatter_class=argparse.RawDescriptionHelpFormatter)
    configure_parser(p)


def configure_parser(p: argparse.ArgumentParser) -> None:
    """Add the ``eval`` arguments to ``p``."""
    p.add_argument("tasks_dir", metavar="TASKS_DIR",
                   help="a directory of tasks (each with a task.toml), or one task directory")
    add_backend_flags(p, samples_default=1)
    p.add_argument("--task", action="append", default=[], metavar="NAME",
                   help="evaluate only this task (repeatable)")
    p.add_argument("--out", default=DEFAULT_OUT, help=f"output directory (default {DEFAULT_OUT})")
    p.add_argument("--fresh", action="store_true", help="ignore stored results and rerun all")
    p.add_argument("--json", action="store_true", help="print the metrics as JSON")
    p.add_argument("--report-md", metavar="PATH", help="also write the Markdown report here")
    p.add_argument("--chart", metavar="PATH", help="also write the chart (PNG) here")
    p.add_argument("--jobs", type=int, default=2, help="tasks planned at once (default 2)")
    p.add_argument("--no-reference", action="store_true",
                   help="do not measure the tasks' reference versions")
    p.add_argument("--retries", type=int, default=DEFAULT_RETRIES,
                   help=f"times to re-measure noisy results at the end (default "
                        f"{DEFAULT_RETRIES})")
    p.add_argument("--threads", type=int, help="OpenMP threads (0 = all cores)")
    p.add_argument("--compiler", help="compiler (g++, clang++, gcc, clang)")
    p.add_argument("--code-key", default="",
                   help="label of the code version for reusing stored results (default: a "
                        "hash of PerfPilot's code, so results of other code are not reused)")
    p.add_argument("--pairs", type=int, default=DEFAULT_PAIRS,
                   help=f"timed pairs per measurement (default {DEFAULT_PAIRS}; the editor "
                        "uses 30)")
    p.add_argument("--callgrind", action="store_true",
                   help="also count instructions with callgrind (slower)")


class _UsageError(Exception):
    pass


def eval_settings(args: argparse.Namespace) -> Settings:
    """Default settings overlaid with the command's flags (no workspace files: reproducible)."""
    over = setting_overrides(args)
    over["runner"]["pairs"] = args.pairs
    # Instruction counts are not part of the scores and cost seconds per candidate.
    over["runner"]["callgrind"] = bool(args.callgrind)
    try:
        return merge_settings(Settings(), over)
    except ValueError as exc:
        raise _UsageError(str(exc)) from exc


def _command_line(args: argparse.Namespace) -> str:
    parts = ["perfpilot", "eval", args.tasks_dir]
    for flag in ("planner", "optimizer", "model", "planner_model", "endpoint",
                 "planner_endpoint", "answers"):
        value = getattr(args, flag)
        if value:
            parts += [f"--{flag.replace('_', '-')}", value]
    if args.samples != 1:
        parts += ["--samples", str(args.samples)]
    if args.repair_rounds is not None:
        parts += ["--repair-rounds", str(args.repair_rounds)]
    for name in args.task:
        parts += ["--task", name]
    parts += ["--out", args.out]
    if args.report_md:
        parts += ["--report-md", args.report_md]
    if args.chart:
        parts += ["--chart", args.chart]
    # Every flag that changes the figures is part of the stated command: a report made with
    # --no-reference or fewer pairs must say so, or its empty Reference column reads as a fault.
    if args.no_reference:
        parts.append("--no-reference")
    if args.pairs != DEFAULT_PAIRS:
        parts += ["--pairs", str(args.pairs)]
    if args.threads is not None:
        parts += ["--threads", str(args.threads)]
    if args.compiler:
        parts += ["--compiler", args.compiler]
    if args.callgrind:
        parts.append("--callgrind")
    if args.retries != DEFAULT_RETRIES:
        parts += ["--retries", str(args.retries)]
    if args.fresh:
        parts.append("--fresh")
    if args.code_key:
        parts += ["--code-key", args.code_key]
    return shlex.join(parts)


def _backends(settings: Settings) -> str:
    def one(role: str) -> str:
        r = getattr(settings, role)
        return f"{role} {r.backend}" + (f" ({r.model})" if r.model else "")

    repairs = "" if settings.optimizer.backend == "builtin" else \
        f", repair rounds {settings.optimizer.repair_rounds}"
    return f"{one('planner')}, {one('optimizer')}, k = {settings.optimizer.samples}{repairs}"


def _write_outputs(args: argparse.Namespace, metrics: dict[str, Any], settings: Settings,
                   store: ResultStore) -> list[str]:
    """Write summary, report and chart; returns warnings."""
    out = Path(args.out)
    warnings: list[str] = []
    store.save_summary(metrics)
    charts = [out / "eval.png"] + ([Path(args.chart)] if args.chart else [])
    made: list[Path] = []
    for chart in charts:
        try:
            made.append(write_chart(metrics, chart))
        except ImportError:
            warnings.append("matplotlib is not installed (pip install 'perfpilot[eval]'): "
                            "no chart written")
            break
    if args.chart and Path(args.chart) not in made:
        raise _UsageError(f"cannot write the chart {args.chart}: matplotlib is missing")
    command, backends = _command_line(args), _backends(settings) + "; " + _machine(metrics)
    reports = [(out / "report.md", out / "eval.png")]
    if args.report_md:
        reports.append((Path(args.report_md), Path(args.chart) if args.chart else out / "eval.png"))
    for path, chart in reports:
        link = os.path.relpath(chart, path.parent) if chart in made else None
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(markdown_report(metrics, command=command, backends=backends,
                                        chart=link), encoding="utf-8")
    return warnings


def _load() -> float | None:
    """The one-minute load average (how busy the machine was), where the system tells it."""
    try:
        return round(os.getloadavg()[0], 2)
    except OSError:
        return None


def _machine(metrics: dict[str, Any]) -> str:
    m = metrics.get("machine") or {}
    loads = [v for v in (m.get("load_before"), m.get("load_after")) if v is not None]
    text = f"{m.get('cpus') or '?'} CPUs"
    if loads:
        text += ", load average " + " → ".join(f"{v:.1f}" for v in loads)
    return text


def _print_summary(metrics: dict[str, Any], out: Path) -> None:
    def x(v: Any) -> str:
        return f"{v:.2f}×" if isinstance(v, int | float) else "–"

    def pct(v: Any) -> str:
        return f"{v * 100:.0f}%" if isinstance(v, int | float) else "-"

    for row in metrics["per_task"]:
        ref = row.get("reference_speedup")
        print(f"  {row['task']:<28} {row['verdict']:<13} {x(row['measured_speedup']):>8}  "
              f"reference {x(ref) if ref else '-':>8}")
    print(f"{metrics['tasks']} tasks: correct {pct(metrics['correct_rate'])}, optimized "
          f"{pct(metrics['opt_rate'])}, mean speedup {x(metrics['mean_speedup'])}, "
          f"speedup@{metrics['k']} {x(metrics['speedup_at_k'])}, category recall "
          f"{pct(metrics['category_recall'])}, unmeasured {metrics['unmeasured']}")
    for mode in ("serial", "openmp"):
        m = metrics["by_mode"][mode]
        print(f"  {mode}: {m['tasks']} tasks, correct {pct(m['correct_rate'])}, optimized "
              f"{pct(m['opt_rate'])}, mean {x(m['mean_speedup'])}")
    ref = metrics["reference"]
    print(f"  reference: mean {x(ref['mean_speedup'])} over {ref['tasks']} tasks")
    flow = metrics.get("pass_through") or {}
    if flow.get("tasks"):
        print(f"  pass-through: {flow['verified_measured']}/{flow['tasks']} answers verified "
              f"and measured, {x(flow.get('geomean'))} of the reference's speedup "
              f"({len(flow.get('losses') or [])} losses)")
    print(f"Results in {out}/ (report.md, summary.json, eval.png)")


async def cmd_eval(args: argparse.Namespace) -> int:
    """Run ``perfpilot eval``; returns the exit status (2 for unusable tasks or flags)."""
    try:
        if args.samples < 1:
            raise _UsageError("--samples must be at least 1")
        tasks = load_tasks(Path(args.tasks_dir), tuple(args.task))
        settings = eval_settings(args)
    except (TaskError, _UsageError) as exc:
        print(f"perfpilot eval: {exc}", file=sys.stderr)
        return exit_codes.USAGE
    out = Path(args.out)
    store = ResultStore(out)
    engine = Engine(settings, None)
    ctx = JobContext()
    loop = asyncio.get_running_loop()
    with contextlib.suppress(NotImplementedError, RuntimeError):
        loop.add_signal_handler(signal.SIGINT, ctx.cancel)
    evaluator = Evaluator(engine, store, EvalOptions(
        jobs=args.jobs, fresh=args.fresh, reference=not args.no_reference,
        retries=max(0, args.retries), code_key=args.code_key),
        log=lambda msg: print(msg, file=sys.stderr, flush=True))
    load_before = _load()
    try:
        results = await evaluator.run(tasks, ctx)
    finally:
        with contextlib.suppress(NotImplementedError, RuntimeError):
            loop.remove_signal_handler(signal.SIGINT)
        await engine.close()
    metrics = compute_metrics(results, args.samples)
    if settings.optimizer.backend != "replay":
        # Pass-through measures how much of a replayed answer's worth reaches the user; for
        # another optimizer the references are not its answers.
        metrics.pop("pass_through", None)
    metrics["resumed"] = list(evaluator.resumed)
    metrics["machine"] = {"cpus": os.cpu_count(), "load_before": load_before,
                          "load_after": _load()}
    try:
        warnings = _write_outputs(args, metrics, settings, store)
    except _UsageError as exc:
        print(f"perfpilot eval: {exc}", file=sys.stderr)
        return exit_codes.USAGE
    for w in warnings:
        print(f"perfpilot eval: {w}", file=sys.stderr)
    if args.json:
        print(json.dumps(metrics, indent=2))
    else:
        _print_summary(metrics, out)
    return exit_codes.OK
