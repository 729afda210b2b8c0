"""The scan's outputs: a Markdown report people read, JSON, SARIF and the patch set.

``write_outputs`` writes, under the output folder: ``report.md`` (a summary table, then each
function: plan, diff, figure with its interval, verification strength), ``scan.json``,
``scan.sarif``, ``patches/NN-<function>.patch`` (one per function with a rewrite measured
faster) and ``combined.patch`` (every verified rewrite that does not overlap another).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from perfpilot.confirm.program import ProgramVerdict
from perfpilot.engine.figures import interval, ratio
from perfpilot.model_usage import ModelUsage
from perfpilot.scan.patches import Rewrite, combined, file_diff, rewrite_of
from perfpilot.scan.progress_lines import duration
from perfpilot.scan.run import ScanResult
from perfpilot.scan.sarif import sarif_log
from perfpilot.scan.values import FunctionResult
from perfpilot.strategy.values import advice_label

_SHOWN = ("improved", "weakly-verified")


@dataclass(frozen=True)
class Outputs:
    """The files one scan wrote."""

    report: Path
    json: Path
    sarif: Path
    patches: tuple[Path, ...]
    combined: Path


def cell(text: str) -> str:
    """Text for a Markdown table cell: pipes escaped, one line."""
    return text.replace("\\", "\\\\").replace("|", "\\|").replace("\n", " ")


def figure(r: FunctionResult) -> str:
    """``1.84× (95% CI 1.71–1.97)``, with the verdict word unless it is "faster", or the
    verdict word alone when nothing was timed. A noisy run gives no figure: it says that it
    could not measure (the function's section says why)."""
    if r.verdict_word == "noisy":
        return "not measured reliably (noisy)"
    if r.speedup is None:
        return r.verdict_word
    ci = f" (95% CI {interval(r.ci95)})" if r.ci95 is not None else ""
    word = "" if r.verdict_word == "faster" else f", {r.verdict_word}"
    return f"{ratio(r.speedup)}{ci}{word}"


def tokens_cell(u: ModelUsage) -> str:
    """A summary cell for a function's model use: ``1200 + 340`` (prompt + completion
    tokens), ``unknown`` when the endpoint reported none, ``—`` with no request; tokens of
    only some requests say how many."""
    if u.requests == 0:
        return "—"
    if u.reported == 0:
        return "unknown"
    counts = f"{u.prompt_tokens} + {u.completion_tokens}"
    return counts if u.tokens_known else f"{counts} ({u.reported} of {u.requests} requests)"


def _fence(text: str) -> str:
    """A code fence longer than any backtick run in ``text``."""
    longest = max((len(m) for m in re.findall(r"`+", text)), default=0)
    return "`" * max(3, longest + 1)


def markdown(scan: ScanResult, rewrites: dict[str, Rewrite], kept: int,
             confirmed: ProgramVerdict | None = None) -> str:
    """The report."""
    rs = scan.results
    verified = sum(1 for r in rs if r.verified)
    per_hour = len(rs) - scan.reused
    rate = f"{per_hour / scan.seconds * 3600:.0f} functions per hour" \
        if scan.seconds > 0 and per_hour else "no function measured in this run"
    lines = ["# PerfPilot scan", "",
             f"{len(rs)} function(s) worked on, {verified} verified speedup(s), "
             f"{kept} in the combined patch; {duration(scan.seconds)} on {scan.workers} "
             f"({rate}).", ""]
    if confirmed is not None:
        lines += [f"Whole program with the combined patch: **{confirmed.verdict}**: "
                  f"{confirmed.message.splitlines()[0] if confirmed.message else ''}", ""]
    if scan.reused:
        lines += [f"{scan.reused} result(s) come from an earlier, interrupted run.", ""]
    models = any(r.usage.requests for r in rs) or scan.other_usage.requests > 0
    if models:
        lines += [f"Model use, in all: {scan.usage.phrase().removeprefix('model: ')}"
                  + (f"; of it, planning the functions without a result: "
                     f"{scan.other_usage.phrase().removeprefix('model: ')}"
                     if scan.other_usage.requests else "") + ".", ""]
    if scan.not_reached:
        lines += [f"Not reached ({len(scan.not_reached)}, budget or --max-functions): "
                  + ", ".join(f"`{t.function}`" for t in scan.not_reached[:20]), ""]
    if scan.left_out:
        lines += [f"Left out ({len(scan.left_out)}; the harness times a function as a call, "
                  "so not a `main` or a function that takes and returns nothing: "
                  "`perfpilot profile` times whole programs): "
                  + ", ".join(f"`{t.function}`" for t in scan.left_out[:20])
                  + (", …" if len(scan.left_out) > 20 else ""), ""]
    head = "| # | Function | Where | Status | Speedup | Verification |"
    rule = "|---|---|---|---|---|---|"
    if models:
        head += " Model tokens (prompt + completion) | Model time |"
        rule += "---|---|"
    lines += [head, rule]
    for i, r in enumerate(rs, 1):
        t = r.target
        row = (f"| {i} | `{cell(t.function)}` | {cell(t.path)}:{t.first_line} | "
               f"{cell(r.status)} | {cell(figure(r))} | {cell(r.verification or '—')} |")
        if models:
            time_cell = f"{r.usage.seconds:.1f} s" if r.usage.requests else "—"
            row += f" {cell(tokens_cell(r.usage))} | {time_cell} |"
        lines.append(row)
    if scan.regressions:
        lines += ["", "## Changed functions against the base revision", "",
                  "| Function | Where | Verdict | Now / base |", "|---|---|---|---|"]
        for c in scan.regressions:
            v = c.verdict or {}
            speed = v.get("speedup")
            ci = v.get("ci95")
            fig = (f"{speed:.2f}× (95% CI {ci[0]:.2f}–{ci[1]:.2f})" if speed is not None
                   and ci else c.note or str(v.get("verdict", "")))
            word = "**slower**" if c.slower else str(v.get("verdict", "not timed"))
            lines.append(f"| `{cell(c.target.function)}` | {cell(c.target.path)}:"
                         f"{c.target.first_line} | {word} | {cell(fig)} |")
    for i, r in enumerate(rs, 1):
        t = r.target
        lines += ["", f"## {i}. `{t.function}` ({t.path}:{t.first_line}-{t.last_line})", "",
                  f"**{r.status}**: {r.message}" if r.message else f"**{r.status}**"]
        if t.share is not None:
            lines.append(f"\nProfile: {t.share:.1%} of the samples in the function itself.")
        if r.plan:
            lines += ["", "Plan:"]
            lines += [f"- {s.category}: {s.explanation}"
                      + (f" ({advice_label(s.advice)})" if s.advice else "") for s in r.plan]
        if r.speedup is not None:
            lines += ["", f"Figure: {figure(r)}."]
        if r.verification:
            lines += ["", f"Verification: {r.verification}."]
        rw = rewrites.get(t.key)
        if rw is not None and r.status in _SHOWN:
            diff = file_diff(rw.path, rw.before, rw.after)
            fence = _fence(diff)
            lines += ["", f"{fence}diff", diff.rstrip("\n"), fence]
        if r.usage.requests:
            lines += ["", f"Model use: {r.usage.phrase().removeprefix('model: ')}."]
        w = r.worker
        pinned = f" (pinned to {w.pinned})" if w.pinned else ""
        lines += ["", f"Measured on {w.host} ({w.where}): {w.cpu_model}, {w.cores} cores"
                      f"{pinned}, load {w.load1:g}; {duration(r.seconds)}."]
    return "\n".join(lines) + "\n"


def scan_json(scan: ScanResult, confirmed: ProgramVerdict | None = None) -> dict[str, Any]:
    """The JSON output."""
    return {"confirmed": confirmed.to_json() if confirmed is not None else None,
            "results": [r.to_json() for r in scan.results],
            "not_reached": [t.to_json() for t in scan.not_reached],
            "left_out": [t.to_json() for t in scan.left_out],
            "regressions": [c.to_json() for c in scan.regressions],
            "workers": scan.workers, "seconds": round(scan.seconds, 3),
            "reused": scan.reused, "model_usage": scan.usage.to_json(),
            "model_usage_unassigned": scan.other_usage.to_json()}


def _slug(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9_]+", "_", name).strip("_")[:60] or "function"


def write_outputs(scan: ScanResult, root: Path, out: Path,
                  confirmed: ProgramVerdict | None = None) -> Outputs:
    """Write every output under ``out`` (made when missing; earlier patches removed);
    ``confirmed``: the whole program timed with the combined rewrites, when it was."""
    out.mkdir(parents=True, exist_ok=True)
    rewrites: dict[str, Rewrite] = {}
    for r in scan.results:
        rw = rewrite_of(r, root) if r.status in _SHOWN else None
        if rw is not None:
            rewrites[r.target.key] = rw
    folder = out / "patches"
    folder.mkdir(exist_ok=True)
    for old in folder.glob("*.patch"):
        old.unlink()
    patches = []
    for i, r in enumerate(scan.results, 1):
        rw = rewrites.get(r.target.key)
        if rw is None:
            continue
        suffix = "" if r.verified else ".weak"
        p = folder / f"{i:02d}-{_slug(r.target.function)}{suffix}.patch"
        p.write_text(file_diff(rw.path, rw.before, rw.after), encoding="utf-8")
        patches.append(p)
    together = combined(list(scan.results), root)
    combined_path = out / "combined.patch"
    combined_path.write_text(together.patch, encoding="utf-8")
    report = out / "report.md"
    report.write_text(markdown(scan, rewrites, len(together.kept), confirmed),
                      encoding="utf-8")
    data = out / "scan.json"
    data.write_text(json.dumps(scan_json(scan, confirmed), indent=2) + "\n",
                    encoding="utf-8")
    sarif = out / "scan.sarif"
    sarif.write_text(json.dumps(sarif_log(list(rewrites.values())), indent=2) + "\n",
                     encoding="utf-8")
    return Outputs(report, data, sarif, tuple(patches), combined_path)
