"""What PerfPilot keeps in the workspace's ``.perfpilot/`` folder across restarts.

Measured verdicts (``results/``) are keyed by a hash of everything that decides them (unit,
candidate, runner settings, flags, spec and input files), so a restart finds them again and any
change misses; noisy and timed-out results are never stored. Plans and candidates from models
(``plans/``, ``candidates/``) are keyed by the function, its context, backend, model and plan.
"""

from __future__ import annotations

import json
import logging
import os
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from perfpilot.strategy.categories import category_by_id
from perfpilot.strategy.values import Candidate, OptimizeResult, Plan, Rejected, Strategy

if TYPE_CHECKING:
    from perfpilot.runner.values import Verdict

log = logging.getLogger(__name__)
T = TypeVar("T")
_SCHEMA = 2


def _pair(value: Any) -> tuple[float, float] | None:
    if isinstance(value, list | tuple) and len(value) == 2:
        return (float(value[0]), float(value[1]))
    return None


def verdict_from_json(data: dict[str, Any]) -> Verdict:
    """Rebuild a Verdict from ``Verdict.to_json()`` output (detailed samples are not kept)."""
    from perfpilot.runner.values import Verdict, Verification

    validation = data.get("validation") or {}
    checked = data.get("verification")
    return Verdict(
        verdict=str(data["verdict"]),
        message=str(data.get("message", "")),
        speedup=data.get("speedup"),
        ci95=_pair(data.get("ci95")),
        threads=int(data.get("threads", 1)),
        serial_speedup=data.get("serial_speedup"),
        serial_ci95=_pair(data.get("serial_ci95")),
        instructions_ratio=data.get("instructions_ratio"),
        validation_status=str(validation.get("status", "skipped")),
        validation_detail=str(validation.get("detail", "")),
        pairs=int(data.get("pairs", 0)),
        dropped_pairs=int(data.get("dropped_pairs", 0)),
        flags=tuple(data.get("flags", ())),
        compiler=str(data.get("compiler", "")),
        median_a_s=data.get("median_a_s"),
        median_b_s=data.get("median_b_s"),
        build_log=str(data.get("build_log", "")),
        input_mode=str(data.get("input_mode", "harness")),
        psi=data.get("psi"),
        sandbox=str(data.get("sandbox", "")),
        notes=tuple(data.get("notes", ())),
        verification=Verification.from_json(checked) if isinstance(checked, dict) else None,
        added_flags=tuple(data.get("added_flags", ())),
        without_added_speedup=data.get("without_added_speedup"),
        without_added_ci95=_pair(data.get("without_added_ci95")),
        needs_spec=data.get("needs_spec") is True,
    )


_IGNORE_HEAD = ("# PerfPilot's caches. Bench specs, stdin inputs and settings in this folder are "
                "not listed:\n# commit them. This file lists itself, so a folder of caches "
                "alone is never untracked.\n/.gitignore\n")
# What earlier versions wrote: it hid the specs too.
_LEGACY_IGNORE = "# PerfPilot's local results and reports\n*\n"


def private_folder(root: Path, *parts: str) -> Path:
    """A cache folder under ``root/.perfpilot`` (created), listed in ``.perfpilot/.gitignore``.

    Only the cache folders are ignored: the specs and inputs beside them belong in version
    control.
    """
    base = root / ".perfpilot"
    folder = base.joinpath(*parts)
    folder.mkdir(parents=True, exist_ok=True)
    if parts:
        _ignore(base / ".gitignore", f"/{parts[0]}/")
        _ignore(base / ".gitignore", "/.gitignore")  # an older file may lack it
    return folder


def _ignore(path: Path, entry: str) -> None:
    """Add ``entry`` to the ignore file, keeping lines the user added."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        text = ""
    if text == _LEGACY_IGNORE or not text:
        text = _IGNORE_HEAD
    if entry in text.splitlines():
        if not path.exists() or path.read_text(encoding="utf-8") != text:
            path.write_text(text, encoding="utf-8")
        return
    if not text.endswith("\n"):
        text += "\n"
    path.write_text(text + entry + "\n", encoding="utf-8")


def plan_to_json(plan: Plan) -> dict[str, Any]:
    """A plan as plain JSON."""
    return {"strategies": [_strategy_to_json(st) for st in plan.strategies],
            "backend": plan.backend, "raw_text": plan.raw_text, "notes": list(plan.notes),
            "model": plan.model}


def plan_from_json(data: dict[str, Any]) -> Plan:
    """The plan back from ``plan_to_json``."""
    return Plan(tuple(_strategy_from_json(d) for d in data["strategies"]), str(data["backend"]),
                raw_text=str(data.get("raw_text", "")), notes=tuple(data.get("notes", ())),
                model=str(data.get("model", "")))


def result_to_json(result: OptimizeResult) -> dict[str, Any]:
    """Candidates and rejections as plain JSON."""
    return {
        "candidates": [{"code": c.code, "strategies": [_strategy_to_json(st)
                                                       for st in c.strategies],
                        "backend": c.backend, "sample": c.sample, "notes": list(c.notes),
                        "needs_openmp": c.needs_openmp, "includes": list(c.includes),
                        "round": c.round}
                       for c in result.candidates],
        "rejected": [{"backend": r.backend, "reason": r.reason, "sample": r.sample,
                      "code": r.code, "answer": r.answer, "round": r.round}
                     for r in result.rejected],
    }


def result_from_json(data: dict[str, Any]) -> OptimizeResult:
    """The result back from ``result_to_json``."""
    cands = tuple(Candidate(str(c["code"]),
                            tuple(_strategy_from_json(d) for d in c["strategies"]),
                            str(c["backend"]), int(c.get("sample", 0)),
                            tuple(c.get("notes", ())), bool(c.get("needs_openmp", False)),
                            tuple(str(h) for h in c.get("includes", ())),
                            round=int(c.get("round", 0)))
                  for c in data["candidates"])
    rejected = tuple(Rejected(str(r["backend"]), str(r["reason"]), int(r.get("sample", 0)),
                              str(r.get("code", "")), str(r.get("answer", "")),
                              int(r.get("round", 0))) for r in data["rejected"])
    return OptimizeResult(cands, rejected)


def _strategy_to_json(st: Strategy) -> dict[str, Any]:
    return {"category_id": st.category.id, "explanation": st.explanation,
            "lines": list(st.lines), "impact": st.impact, "rule": st.rule,
            "callee": st.callee, "advice": st.advice}


def _strategy_from_json(d: dict[str, Any]) -> Strategy:
    return Strategy(category_by_id(int(d["category_id"])), str(d["explanation"]),
                    tuple(int(n) for n in d.get("lines", ())), float(d.get("impact", 0.0)),
                    str(d.get("rule", "")), str(d.get("callee", "")), str(d.get("advice", "")))


class JsonStore:
    """One JSON document per key under ``root/.perfpilot/<folder>``, written atomically.

    Unreadable or outdated files count as misses; failures to write are logged, never raised.
    """

    def __init__(self, root: Path, folder: str) -> None:
        self.root = root
        self.folder = root / ".perfpilot" / folder

    def _path(self, key: str) -> Path:
        return self.folder / f"{key}.json"

    def get(self, key: str) -> dict[str, Any] | None:
        """The stored document, or None."""
        path = self._path(key)
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return None
        except (OSError, ValueError) as exc:
            log.warning("ignoring unreadable cached file %s: %s", path.name, exc)
            return None
        if not isinstance(data, dict) or data.get("schema") != _SCHEMA:
            return None
        body = data.get("body")
        return body if isinstance(body, dict) else None

    def delete(self, key: str) -> None:
        """Remove a stored document, if any."""
        try:
            self._path(key).unlink(missing_ok=True)
        except OSError as exc:
            log.warning("could not remove a cached %s: %s", self.folder.name, exc)

    def put(self, key: str, body: dict[str, Any]) -> None:
        """Store a document."""
        try:
            private_folder(self.root, self.folder.name)
            fd, tmp = tempfile.mkstemp(dir=self.folder, suffix=".tmp")
            with os.fdopen(fd, "w", encoding="utf-8") as fh:
                json.dump({"schema": _SCHEMA, "body": body}, fh)
            os.replace(tmp, self._path(key))
        except OSError as exc:
            log.warning("could not store %s: %s", self.folder.name, exc)


def _load(store: JsonStore, key: str, decode: Callable[[dict[str, Any]], T]) -> T | None:
    """A stored document decoded, or None (a document that no longer decodes is a miss)."""
    body = store.get(key)
    if body is None:
        return None
    try:
        return decode(body)
    except (KeyError, TypeError, ValueError) as exc:
        log.warning("ignoring cached %s: %s", store.folder.name, exc)
        return None


class DiskCache:
    """What is worth keeping across restarts: verdicts, and plans and candidates from models
    (the builtin backends are cheap to run again)."""

    def __init__(self, root: Path) -> None:
        self.verdicts = JsonStore(root, "results")
        self.plans = JsonStore(root, "plans")
        self.candidates = JsonStore(root, "candidates")

    def get(self, key: str) -> Verdict | None:
        """A stored verdict, or None."""
        return _load(self.verdicts, key, verdict_from_json)

    def put(self, key: str, verdict: Verdict) -> None:
        """Store a verdict."""
        self.verdicts.put(key, verdict.to_json())

    def forget(self, key: str) -> None:
        """Drop a stored verdict (it is being measured again)."""
        self.verdicts.delete(key)

    def get_plan(self, key: str) -> Plan | None:
        """A stored plan, or None."""
        return _load(self.plans, key, plan_from_json)

    def put_plan(self, key: str, plan: Plan) -> None:
        """Store a plan."""
        self.plans.put(key, plan_to_json(plan))

    def get_candidates(self, key: str) -> OptimizeResult | None:
        """Stored candidates, or None."""
        return _load(self.candidates, key, result_from_json)

    def put_candidates(self, key: str, result: OptimizeResult) -> None:
        """Store candidates."""
        self.candidates.put(key, result_to_json(result))
