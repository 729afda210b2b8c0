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

from perfpilot.engine.records import SCHEMA

log = logging.getLogger(__name__)

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

    source: str  # "engine", "grpo", "results", "eval", "pie", "corpus"
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
    unit_hash: str = ""  # names the translation unit (engine records)
    plan_text: str = ""  # the planner's whole text, explanations included
    planner: str = ""  # the planner's backend (and model)
    optimizer: str = ""  # the optimizer role's backend and model
    author: str = ""  # who wrote the candidate: builtin or model
    includes: tuple[str, ...] = ()
    pairs: int = 0  # timed pairs behind the figure
    verification: dict[str, Any] | None = None  # cases, mutants, killed, weak ...
    needs_spec: bool = False  # the harness could not feed the function

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
        data["includes"] = list(self.includes)
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
            notes=tuple(str(n) for n in data.get("notes", ())),
            unit_hash=str(data.get("unit_hash", "")), plan_text=str(data.get("plan_text", "")),
            planner=str(data.get("planner", "")), optimizer=str(data.get("optimizer", "")),
            author=str(data.get("author", "")),
            includes=tuple(str(h) for h in data.get("includes", ())),
            pairs=int(data.get("pairs", 0) or 0),
            verification=dict(data["verification"]) if isinstance(
                data.get("verification"), dict) else None,
            needs_spec=bool(data.get("needs_spec", False)))

    @property
    def key(self) -> tuple[str, str, str, str, float | None, str]:
        """What makes two records the same measurement (for de-duplication)."""
        return (self.function, self.candidate, self.plan_text or repr(self.plan), self.verdict,
                self.speedup, self.machine)


def strong(record: Record) -> bool:
    """Whether the record may become training signal (a preference pair or a reward).

    It must be a timed verdict on a candidate whose validation passed outright, with no weak
    verification, and (for ``faster``/``slower``) an interval that excludes 1. Noisy,
    weakly-verified, suspicious and needs-spec results never qualify.
    """
    if record.needs_spec:
        return False
    if record.verdict == "incorrect":
        # Wrong output is a strong negative only when validation ran (it did, to say so).
        return record.validation == "failed" or record.source in ("pie", "corpus")
    if record.verdict not in TIMED or record.speedup is None or record.weak:
        return False
    if record.verification is not None and (record.verification.get("weak")
                                            or record.verification.get("blind")):
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


def read_jsonl(path: Path, skipped: list[str] | None = None) -> Iterator[Record]:
    """Records from a dataset file; a damaged line is skipped with a message (added to
    ``skipped`` when given, else logged as a warning)."""
    with path.open(encoding="utf-8") as fh:
        for number, line in enumerate(fh, 1):
            if not line.strip():
                continue
            try:
                yield Record.from_json(json.loads(line))
            except (ValueError, KeyError, TypeError) as exc:
                if skipped is not None:
                    skipped.append(f"{path}:{number}: skipped ({exc})")
                else:
                    log.warning("%s:%d: skipped: %s", path, number, exc)
