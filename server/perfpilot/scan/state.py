"""The scan's state file: the functions already finished, so an interrupted scan resumes.

It lives in the workspace's ``.perfpilot/scan/state.json`` and is rewritten (atomically) after
each function. A finished result is reused only under the same settings (``fingerprint``) and
while its function and file are unchanged (the target's digest).
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import Any

from perfpilot.scan.values import FunctionResult, Target

VERSION = 1


def state_path(root: Path) -> Path:
    """Where the state file of the workspace ``root`` lives."""
    return root / ".perfpilot" / "scan" / "state.json"


class ScanState:
    """Finished functions, by target key, under one settings fingerprint."""

    def __init__(self, path: Path, fingerprint: str) -> None:
        self.path = path
        self.fingerprint = fingerprint
        self._finished: dict[str, FunctionResult] = {}

    @classmethod
    def load(cls, path: Path, fingerprint: str) -> ScanState:
        """The state kept at ``path``; empty when there is none, it is unreadable, or it was
        made under other settings."""
        state = cls(path, fingerprint)
        try:
            data: Any = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return state
        if not isinstance(data, dict) or data.get("version") != VERSION \
                or data.get("fingerprint") != fingerprint:
            return state
        for key, item in dict(data.get("finished", {})).items():
            try:
                state._finished[str(key)] = FunctionResult.from_json(item)
            except (KeyError, TypeError, ValueError):
                continue  # one damaged entry is measured again
        return state

    def result(self, target: Target) -> FunctionResult | None:
        """The finished result for ``target``, while its function is unchanged."""
        found = self._finished.get(target.key)
        if found is None or found.target.digest != target.digest:
            return None
        return found

    def record(self, result: FunctionResult) -> None:
        """Keep a finished function and write the file."""
        self._finished[result.target.key] = result
        self.save()

    def save(self) -> None:
        """Write the file atomically (a scan killed mid-write leaves the previous one)."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        data = {"version": VERSION, "fingerprint": self.fingerprint,
                "finished": {k: r.to_json() for k, r in self._finished.items()}}
        fd, tmp = tempfile.mkstemp(dir=self.path.parent, prefix=".state-", suffix=".json")
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as f:
                json.dump(data, f)
            os.replace(tmp, self.path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise

    def __len__(self) -> int:
        return len(self._finished)
