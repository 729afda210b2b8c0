"""Applied rewrites kept in the workspace's ``.perfpilot/applied/`` across restarts.

One document per source file holds, for each function whose rewrite the editor applied, the
original text, the applied text (and what the edit added around it) and the job's outcome
(plan, candidates, verdicts, the choice). A restarted server (or a reloaded editor) finds them
again for a function whose text still matches the applied text, so the lens, inlay hint, hover
and Revert come back; a function edited since is known to have changed, so Revert can say so.
The races between variants are kept with their laps' verdicts (detailed samples are not), so
the hover and Details say after a reload what they said before it.
"""

from __future__ import annotations

import dataclasses
import hashlib
import logging
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from perfpilot.code.site import FunctionSite
from perfpilot.engine.disk_cache import (
    JsonStore,
    plan_from_json,
    plan_to_json,
    result_from_json,
    result_to_json,
    verdict_from_json,
)
from perfpilot.engine.outcome import Outcome, Trial
from perfpilot.engine.racing import Entrant, Lap, Race
from perfpilot.strategy.values import OptimizeResult

log = logging.getLogger(__name__)


def text_hash(text: str) -> str:
    """The hash a function's text is matched by (surrounding whitespace ignored)."""
    return hashlib.sha256(text.strip().encode("utf-8")).hexdigest()


@dataclass(frozen=True)
class StoredRewrite:
    """An applied rewrite as kept on disk: enough to show its result and to revert it."""

    function: str
    original_text: str
    applied_text: str
    added_before: str
    added_includes: tuple[str, ...]
    outcome_json: dict[str, Any]

    def matches(self, text: str) -> bool:
        """Whether ``text`` is still the applied rewrite (nothing edited since)."""
        return text_hash(text) == text_hash(self.applied_text)


def outcome_to_json(outcome: Outcome) -> dict[str, Any]:
    """An outcome without its site (the site is rebuilt from the document) as plain JSON."""
    cands = tuple(t.candidate for t in outcome.trials)
    return {"plan": plan_to_json(outcome.plan),
            "result": result_to_json(OptimizeResult(cands, outcome.rejected)),
            "variants": [[c.family, c.variant] for c in cands],
            "verdicts": [t.verdict.to_json() if t.verdict is not None else None
                         for t in outcome.trials],
            "best": outcome.best, "status": outcome.status, "message": outcome.message,
            "races": [race_to_json(r) for r in outcome.races]}


def race_to_json(race: Race) -> dict[str, Any]:
    """A race between variants as plain JSON (each lap's verdict without its samples)."""
    return {"family": race.family, "full_pairs": race.full_pairs,
            "entrants": [{"index": e.index, "label": e.label, "dropped": e.dropped,
                          "laps": [{"round": lap.round, "pairs": lap.pairs,
                                    "verdict": lap.verdict.to_json()} for lap in e.laps]}
                         for e in race.entrants]}


def race_from_json(data: dict[str, Any]) -> Race:
    """The race back from ``race_to_json``."""
    return Race(str(data["family"]), tuple(
        Entrant(int(e["index"]), str(e["label"]), tuple(
            Lap(int(lap["round"]), int(lap["pairs"]), verdict_from_json(lap["verdict"]))
            for lap in e.get("laps", ())), str(e.get("dropped", "")))
        for e in data["entrants"]), int(data["full_pairs"]))


def outcome_from_json(data: dict[str, Any], site: FunctionSite) -> Outcome:
    """The outcome back from ``outcome_to_json``, for ``site`` (the original function)."""
    result = result_from_json(data["result"])
    variants = data.get("variants") or [["", ""]] * len(result.candidates)
    verdicts = data.get("verdicts") or [None] * len(result.candidates)
    trials = tuple(
        Trial(dataclasses.replace(c, family=str(fam), variant=str(var)),
              verdict_from_json(v) if isinstance(v, dict) else None)
        for c, (fam, var), v in zip(result.candidates, variants, verdicts, strict=True))
    best = data.get("best")
    races = tuple(race_from_json(r) for r in data.get("races") or () if isinstance(r, dict))
    return Outcome(site, plan_from_json(data["plan"]), trials, result.rejected,
                   best if isinstance(best, int) and 0 <= best < len(trials) else None,
                   str(data.get("status", "improved")), str(data.get("message", "")), races)


class AppliedStore:
    """The applied rewrites of a workspace, one JSON document per source file."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.store = JsonStore(root, "applied")

    def _key(self, path: Path) -> str:
        try:
            name = path.resolve().relative_to(self.root.resolve()).as_posix()
        except (OSError, ValueError):
            name = path.as_posix()
        return hashlib.sha256(name.encode("utf-8")).hexdigest()[:32]

    def _entries(self, path: Path) -> dict[str, Any]:
        body = self.store.get(self._key(path)) or {}
        functions = body.get("functions")
        return functions if isinstance(functions, dict) else {}

    def put(self, path: Path, rewrite: StoredRewrite) -> None:
        """Keep (or replace) the applied rewrite of one function of ``path``."""
        entries = self._entries(path)
        entries[rewrite.function] = {
            "original_text": rewrite.original_text, "applied_text": rewrite.applied_text,
            "added_before": rewrite.added_before,
            "added_includes": list(rewrite.added_includes), "outcome": rewrite.outcome_json}
        self.store.put(self._key(path), {"file": path.name, "functions": entries})

    def remove(self, path: Path, function: str) -> None:
        """Forget one function's applied rewrite (it was reverted)."""
        entries = self._entries(path)
        if entries.pop(function, None) is None:
            return
        if entries:
            self.store.put(self._key(path), {"file": path.name, "functions": entries})
        else:
            self.store.delete(self._key(path))

    def get(self, path: Path, function: str) -> StoredRewrite | None:
        """The kept rewrite of one function of ``path``, or None (also when unreadable)."""
        entry = self._entries(path).get(function)
        if not isinstance(entry, dict):
            return None
        try:
            return StoredRewrite(function, str(entry["original_text"]),
                                 str(entry["applied_text"]), str(entry.get("added_before", "")),
                                 tuple(str(h) for h in entry.get("added_includes", ())),
                                 dict(entry["outcome"]))
        except (KeyError, TypeError, ValueError) as exc:
            log.warning("ignoring a kept rewrite of %s: %s", function, exc)
            return None
