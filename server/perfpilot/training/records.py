"""One measured example as a versioned JSONL record, and the rule for what may become signal.

A record carries the function and its unit context, the plan (categories and explanations),
the candidate, the runner's verdict with its speedup and interval, threads, machine and
compiler. Only strongly verified, validated, timed results may form preference pairs or earn a
reward: a noisy, unvalidated or weakly verified one proved nothing about speed or correctness.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Iterable, Iterator
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

log = logging.getLogger(__name__)

SCHEMA = "perfpilot-train/1"
# Verdicts that are measurements of a correct candidate.
TIMED = ("faster", "slower", "no-change")


@dataclass(frozen=True)
class PlanStep:
    """One strategy of a plan: its category name and the explanation."""

    category: str
    explanation: str = ""


@dataclass(frozen=True)
class Record:
    """One measured (or imported) candidate for one function."""

    source: str  # "results", "eval", "pie", "corpus", "grpo"
    function: str = ""  # the function's text (empty when the store did not keep it)
    name: str = ""
    language: str = "cpp"
    context: str = ""  # the rest of the unit the function needs
    plan: tuple[PlanStep, ...] = ()
    candidate: str = ""
    verdict: str = ""
    speedup: float | None = None
    ci95: tuple[float, float] | None = None
    threads: int = 1
    validation: str = "skipped"  # passed | weak | failed | skipped
    weak: bool = False  # the verification object said so
    machine: str = ""
    compiler: str = ""
    task: str = ""
    origin: str = ""  # the file it came from
    notes: tuple[str, ...] = field(default_factory=tuple)

    @property
    def categories(self) -> tuple[str, ...]:
        """The plan's category names, in order."""
        return tuple(s.category for s in self.plan)

    def to_json(self) -> dict[str, Any]:
        """The JSONL form (with the schema tag)."""
        data = asdict(self)
        data["plan"] = [asdict(s) for s in self.plan]
        data["ci95"] = list(self.ci95) if self.ci95 is not None else None
        data["notes"] = list(self.notes)
        return {"schema": SCHEMA, **data}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Record:
        """The inverse of ``to_json``; raises ValueError for another schema."""
        if data.get("schema") != SCHEMA:
            raise ValueError(f"not a {SCHEMA} record: schema {data.get('schema')!r}")
        ci = data.get("ci95")
        return cls(
            source=str(data["source"]), function=str(data.get("function", "")),
            name=str(data.get("name", "")), language=str(data.get("language", "cpp")),
            context=str(data.get("context", "")),
            plan=tuple(PlanStep(str(p["category"]), str(p.get("explanation", "")))
                       for p in data.get("plan", ())),
            candidate=str(data.get("candidate", "")), verdict=str(data.get("verdict", "")),
            speedup=float(data["speedup"]) if data.get("speedup") is not None else None,
            ci95=(float(ci[0]), float(ci[1])) if ci else None,
            threads=int(data.get("threads", 1)), validation=str(data.get("validation", "")),
            weak=bool(data.get("weak", False)), machine=str(data.get("machine", "")),
            compiler=str(data.get("compiler", "")), task=str(data.get("task", "")),
            origin=str(data.get("origin", "")),
            notes=tuple(str(n) for n in data.get("notes", ())))


def strong(record: Record) -> bool:
    """Whether the record may become training signal (a preference pair or a reward).

    It must be a timed verdict on a candidate whose validation passed outright, with no weak
    verification, and (for ``faster``/``slower``) an interval that excludes 1.
    """
    if record.verdict == "incorrect":
        # Wrong output is a strong negative only when validation ran (it did, to say so).
        return record.validation == "failed" or record.source in ("pie", "corpus")
    if record.verdict not in TIMED or record.speedup is None or record.weak:
        return False
    if record.validation != "passed":
        return False
    if record.verdict in ("faster", "slower") and record.ci95 is not None:
        low, high = record.ci95
        return not (low <= 1.0 <= high)
    return True


def write_jsonl(path: Path, records: Iterable[Record]) -> int:
    """Write records one per line; returns how many."""
    path.parent.mkdir(parents=True, exist_ok=True)
    count = 0
    with path.open("w", encoding="utf-8") as fh:
        for rec in records:
            fh.write(json.dumps(rec.to_json(), sort_keys=True) + "\n")
            count += 1
    return count


def read_jsonl(path: Path) -> Iterator[Record]:
    """Records from a dataset file; a damaged line is skipped with a warning."""
    with path.open(encoding="utf-8") as fh:
        for number, line in enumerate(fh, 1):
            if not line.strip():
                continue
            try:
                yield Record.from_json(json.loads(line))
            except (ValueError, KeyError, TypeError) as exc:
                log.warning("%s:%d: skipped: %s", path, number, exc)
