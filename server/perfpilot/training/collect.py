"""Gather stored measurements into training records.

Three stores are read: the workspace's ``.perfpilot/records/`` (every measurement the engine
made, with function, plan and candidate: ``engine/records.py``), its ``.perfpilot/results/``
(one verdict per file, as the engine's disk cache writes it) and evaluation output folders
(``tasks/<name>.json``). A verdict file keeps no function text, so its records carry the verdict
alone; an evaluation result is joined with its task folder, when given, for the function and
its context. A file that cannot be read, or that is only partly there, is skipped with a
message; the same measurement found twice is kept once.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from perfpilot.engine.records import RECORDS_DIR, machine_name
from perfpilot.training.records import PlanStep, Record, read_jsonl


@dataclass(frozen=True)
class Collected:
    """What a collection found: records, and one message per skipped file."""

    records: tuple[Record, ...]
    skipped: tuple[str, ...]


def _pair(value: Any) -> tuple[float, float] | None:
    if isinstance(value, list) and len(value) == 2 and all(
            isinstance(v, int | float) for v in value):
        return (float(value[0]), float(value[1]))
    return None


def _read(path: Path) -> dict[str, Any]:
    data = json.loads(path.read_text(encoding="utf-8"))
    if not isinstance(data, dict):
        raise ValueError("not a JSON object")
    return data


def record_from_verdict(body: dict[str, Any], *, source: str, machine: str, origin: str,
                        **fields: Any) -> Record:
    """A record from ``Verdict.to_json()`` output (plus the function fields given)."""
    if not isinstance(body.get("verdict"), str):
        raise ValueError("no verdict")
    validation = body.get("validation")
    status = str(validation.get("status", "skipped")) if isinstance(validation, dict) \
        else "skipped"
    checked = body.get("verification")
    weak = bool(checked.get("weak", False)) if isinstance(checked, dict) else False
    speedup = body.get("speedup")
    return Record(source=source, verdict=str(body["verdict"]),
                  speedup=float(speedup) if isinstance(speedup, int | float) else None,
                  ci95=_pair(body.get("ci95")), threads=int(body.get("threads", 1) or 1),
                  validation=status, weak=weak or status == "weak" or
                  body["verdict"] == "weakly-verified",
                  machine=machine, compiler=str(body.get("compiler", "")), origin=origin,
                  **fields)


def from_results(root: Path, machine: str | None = None) -> Collected:
    """Records from ``root/.perfpilot/results/*.json`` (``root`` may be that folder itself)."""
    folder = root if root.name == "results" else root / ".perfpilot" / "results"
    where = machine if machine is not None else machine_name()
    records: list[Record] = []
    skipped: list[str] = []
    for path in sorted(folder.glob("*.json")):
        try:
            data = _read(path)
            body = data.get("body")
            if not isinstance(body, dict):
                raise ValueError("no verdict body")
            records.append(record_from_verdict(body, source="results", machine=where,
                                               origin=str(path)))
        except (OSError, ValueError, TypeError) as exc:
            skipped.append(f"{path}: skipped ({exc})")
    return Collected(tuple(records), tuple(skipped))


def _task_sites(tasks_root: Path | None) -> dict[str, tuple[str, str, str, str]]:
    """Task name -> (function text, name, language, context), for the tasks that load."""
    if tasks_root is None:
        return {}
    from perfpilot.evaluation.tasks import TaskError, load_tasks
    from perfpilot.prompting.context import unit_context

    out: dict[str, tuple[str, str, str, str]] = {}
    try:
        tasks = load_tasks(tasks_root)
    except TaskError:
        return {}
    for task in tasks:
        try:
            site = task.site()
        except Exception:  # a task that no longer locates has no function text
            continue
        out[task.name] = (site.text, site.name, site.language, unit_context(site))
    return out


def _sample_validation(verdict: str) -> str:
    # The runner validates before it times, so a timed sample passed; evaluation files keep
    # the verdict word only.
    if verdict in ("faster", "slower", "no-change", "noisy", "suspicious"):
        return "passed"
    if verdict == "weakly-verified":
        return "weak"
    return "failed" if verdict == "incorrect" else "skipped"


def from_eval(out_dir: Path, tasks_root: Path | None = None,
              machine: str | None = None) -> Collected:
    """Records from an evaluation output folder (one per measured sample)."""
    where = machine if machine is not None else machine_name()
    sites = _task_sites(tasks_root)
    records: list[Record] = []
    skipped: list[str] = []
    for path in sorted((out_dir / "tasks").glob("*.json")):
        try:
            data = _read(path)
            name = str(data["task"])
            planned = tuple(PlanStep(str(c)) for c in data.get("planned", ()))
            fn, fname, lang, ctx = sites.get(name, ("", "", "cpp", ""))
            samples = data.get("samples", ())
            if not isinstance(samples, list):
                raise ValueError("samples is not a list")
            for sample in samples:
                verdict = str(sample["verdict"])
                speedup = sample.get("speedup")
                records.append(Record(
                    source="eval", task=name, function=fn, name=fname, language=lang,
                    context=ctx, plan=tuple(PlanStep(str(c)) for c in sample.get(
                        "categories", ())) or planned,
                    verdict=verdict,
                    speedup=float(speedup) if isinstance(speedup, int | float) else None,
                    ci95=_pair(sample.get("ci95")), threads=int(sample.get("threads", 1)),
                    validation=_sample_validation(verdict),
                    weak=verdict == "weakly-verified", machine=where, origin=str(path)))
        except (OSError, ValueError, TypeError, KeyError) as exc:
            skipped.append(f"{path}: skipped ({exc})")
    return Collected(tuple(records), tuple(skipped))


def from_records(root: Path) -> Collected:
    """Records from a records store: ``root/.perfpilot/records/*.jsonl`` (``root`` may be that
    folder, or one JSONL file). Damaged lines are skipped with a message each."""
    if root.is_file():
        files = [root]
    else:
        folder = root if (root / "measurements.jsonl").exists() or root.name == "records" \
            else root / RECORDS_DIR
        files = sorted(folder.glob("*.jsonl"))
    records: list[Record] = []
    skipped: list[str] = []
    for path in files:
        try:
            records.extend(read_jsonl(path, skipped))
        except OSError as exc:
            skipped.append(f"{path}: skipped ({exc})")
    return Collected(tuple(records), tuple(skipped))


def merge(*parts: Collected) -> Collected:
    """Several collections as one; a measurement found twice (the same function, plan,
    candidate, verdict, figure and machine) is kept once."""
    seen: set[tuple[object, ...]] = set()
    records: list[Record] = []
    for rec in (r for p in parts for r in p.records):
        if rec.function and rec.key in seen:
            continue
        seen.add(rec.key)
        records.append(rec)
    return Collected(tuple(records), tuple(s for p in parts for s in p.skipped))
