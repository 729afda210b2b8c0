"""Import slow/fast program pairs in the PIE and PerfCoder JSONL shapes.

Accepted fields per line (first present wins):
- slow code: ``src_code``, ``input``, ``slow_code``, ``code_v0``
- fast code: ``tgt_code``, ``target``, ``fast_code``, ``code_v1``
- timings: ``cpu_time_v0``/``cpu_time_v1`` or ``slow_time``/``fast_time`` (any unit, the same for
  both), else ``speedup`` or ``improvement_frac`` (percent saved)
- plan: ``plan``, ``suggestion``, ``strategy`` (text in the ``[SUGG/]`` format, or a list of
  ``{"category", "explanation"}``)
- ``problem_id`` names the task.

Each pair becomes a record whose function is the slow program (its ``main``), whose candidate is
the fast one, verdict ``faster`` (or ``slower``) with the recorded speedup, and validation
``passed`` (the datasets keep only accepted submissions). Nothing is shipped with PerfPilot.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from perfpilot.strategy.plan_format import parse_strategies, strip_think
from perfpilot.training.collect import Collected
from perfpilot.training.records import PlanStep, Record

SLOW = ("src_code", "input", "slow_code", "code_v0")
FAST = ("tgt_code", "target", "fast_code", "code_v1")
PLAN = ("plan", "suggestion", "strategy")


def _first(data: dict[str, Any], keys: tuple[str, ...]) -> Any:
    for k in keys:
        if data.get(k) not in (None, ""):
            return data[k]
    return None


def _speedup(data: dict[str, Any]) -> float | None:
    for slow_key, fast_key in (("cpu_time_v0", "cpu_time_v1"), ("slow_time", "fast_time")):
        slow, fast = data.get(slow_key), data.get(fast_key)
        if isinstance(slow, int | float) and isinstance(fast, int | float) and fast > 0:
            return float(slow) / float(fast)
    if isinstance(data.get("speedup"), int | float) and data["speedup"] > 0:
        return float(data["speedup"])
    frac = data.get("improvement_frac")
    if isinstance(frac, int | float) and 0 <= frac < 100:
        return 100.0 / (100.0 - float(frac))
    return None


def _plan(value: Any) -> tuple[PlanStep, ...]:
    if isinstance(value, str):
        block = strip_think(value).replace("[SUGG/]", "").split("[/SUGG]")[0]
        strategies, _ = parse_strategies(block)
        return tuple(PlanStep(s.category.name, s.explanation) for s in strategies)
    if isinstance(value, list):
        return tuple(PlanStep(str(v["category"]), str(v.get("explanation", "")))
                     for v in value if isinstance(v, dict) and "category" in v)
    return ()


def import_pairs(path: Path, language: str = "cpp") -> Collected:
    """Records from one PIE/PerfCoder JSONL file; lines without both codes are skipped."""
    records: list[Record] = []
    skipped: list[str] = []
    with path.open(encoding="utf-8") as fh:
        for number, line in enumerate(fh, 1):
            if not line.strip():
                continue
            try:
                data = json.loads(line)
                if not isinstance(data, dict):
                    raise ValueError("not a JSON object")
                slow, fast = _first(data, SLOW), _first(data, FAST)
                if not isinstance(slow, str) or not isinstance(fast, str):
                    raise ValueError("no slow and fast code")
                speedup = _speedup(data)
                records.append(Record(
                    source="pie", function=slow, name="main", language=language,
                    plan=_plan(_first(data, PLAN)), candidate=fast,
                    verdict="slower" if speedup is not None and speedup < 1 else "faster",
                    speedup=speedup, validation="passed", task=str(data.get("problem_id", "")),
                    origin=f"{path}:{number}"))
            except (ValueError, KeyError, TypeError) as exc:
                skipped.append(f"{path}:{number}: skipped ({exc})")
    return Collected(tuple(records), tuple(skipped))
