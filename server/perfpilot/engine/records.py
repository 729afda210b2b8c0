"""Training records: each measurement the engine makes, appended to a local JSONL store.

One JSON object a line, in the ``perfpilot-train/1`` schema that ``perfpilot train collect``
reads: the function and its unit context, the unit's hash, the plan (strategies and the
planner's whole text), the candidate, the runner's verdict with its speedup, interval and
validation strength, the machine and the compiler. The store is
``<workspace>/.perfpilot/records/measurements.jsonl`` (or the folder ``records.folder`` names);
``records.enabled = false`` turns it off. Nothing leaves the machine. Appending runs on a worker
thread, and a failure to write is logged, never raised: a record is never worth a failed job.
"""

from __future__ import annotations

import asyncio
import functools
import hashlib
import json
import logging
import platform
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from perfpilot.code.site import FunctionSite
from perfpilot.engine.disk_cache import private_folder
from perfpilot.settings import Settings
from perfpilot.strategy.values import Plan

if TYPE_CHECKING:
    from perfpilot.runner.values import Verdict

log = logging.getLogger(__name__)

SCHEMA = "perfpilot-train/1"
RECORDS_DIR = Path(".perfpilot") / "records"
RECORDS_FILE = "measurements.jsonl"


@dataclass(frozen=True)
class Measured:
    """One final verdict and what it was a verdict on."""

    site: FunctionSite
    code: str
    verdict: Verdict
    plan: Plan | None = None
    includes: tuple[str, ...] = ()
    origin: str = "model"  # who wrote the code: builtin or model
    optimizer: str = ""  # the optimizer role's backend and model
    source: str = "engine"  # engine, grpo, eval
    task: str = ""


def records_folder(settings: Settings, workspace: Path | None) -> Path | None:
    """Where records go under ``settings``, or None when they are off or have no place."""
    if not settings.records.enabled:
        return None
    if settings.records.folder:
        folder = Path(settings.records.folder).expanduser()
        if not folder.is_absolute() and workspace is not None:
            folder = workspace / folder
        return folder
    return workspace / RECORDS_DIR if workspace is not None else None


@functools.lru_cache(maxsize=1)
def machine_name() -> str:
    """A short description of this machine (architecture and CPU model)."""
    model = ""
    try:
        for line in Path("/proc/cpuinfo").read_text(encoding="utf-8").splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return " ".join(p for p in (platform.machine(), model or platform.processor()) if p)


def unit_hash(text: str) -> str:
    """The hash that names a translation unit across records."""
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def _strength(verdict: Verdict) -> dict[str, Any] | None:
    v = verdict.verification
    if v is None:
        return None
    return {"cases": v.cases, "mutants": v.mutants, "killed": v.killed,
            "strong_survivors": v.strong_survivors, "blind": v.blind, "weak": v.weak}


def record_json(m: Measured) -> dict[str, Any]:
    """The record of one measurement, as the JSONL line's object."""
    from perfpilot.prompting.context import unit_context

    v = m.verdict
    plan = m.plan
    weak = (v.verification is not None and v.verification.weak) \
        or v.validation_status == "weak" or v.verdict == "weakly-verified"
    return {
        "schema": SCHEMA, "source": m.source, "function": m.site.text, "name": m.site.name,
        "language": m.site.language, "context": unit_context(m.site),
        "unit_hash": unit_hash(m.site.unit_text), "task": m.task,
        "plan": [{"category": s.category.name, "explanation": s.explanation}
                 for s in (plan.strategies if plan is not None else ())],
        "plan_text": plan.raw_text if plan is not None else "",
        "planner": (f"{plan.backend}:{plan.model}" if plan is not None and plan.model
                    else plan.backend if plan is not None else ""),
        "candidate": m.code, "includes": list(m.includes), "author": m.origin,
        "optimizer": m.optimizer, "verdict": v.verdict, "speedup": v.speedup,
        "ci95": list(v.ci95) if v.ci95 is not None else None, "threads": v.threads,
        "pairs": v.pairs, "validation": v.validation_status, "weak": weak,
        "verification": _strength(v), "needs_spec": v.needs_spec,
        "machine": machine_name(), "compiler": v.compiler, "notes": [],
    }


def append(folder: Path, rows: list[dict[str, Any]]) -> Path:
    """Append ``rows`` to the store in ``folder`` (one write, under a file lock where the
    platform has one, so that an editor and a CLI run may share the store)."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / RECORDS_FILE
    data = "".join(json.dumps(r, sort_keys=True) + "\n" for r in rows)
    with path.open("a", encoding="utf-8") as fh:
        try:
            import fcntl

            fcntl.flock(fh, fcntl.LOCK_EX)
        except ImportError:  # pragma: no cover - no POSIX locks: a single append still lands
            pass
        fh.write(data)
    return path


async def keep(settings: Settings, workspace: Path | None, measured: Measured) -> None:
    """Append the record of ``measured`` to the store ``settings`` name, off the event loop."""
    folder = records_folder(settings, workspace)
    if folder is None:
        return
    default = workspace is not None and not settings.records.folder

    def write(where: Path) -> None:
        if default and workspace is not None:
            private_folder(workspace, "records")  # listed in .perfpilot/.gitignore
        append(where, [record_json(measured)])

    try:
        await asyncio.to_thread(write, folder)
    except (OSError, ValueError) as exc:
        log.warning("training record not written to %s: %s", folder, exc)
