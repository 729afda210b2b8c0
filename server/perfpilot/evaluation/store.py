"""Per-task result files in the output directory, so an interrupted run resumes where it stopped.

``tasks/<name>.json`` holds a task's result and ``reference/<name>.json`` its reference
measurement; each carries a key (task files + settings) and is reused only while the key matches.
Files are written whole to a temporary name and renamed, so an interruption never leaves half a
file behind.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from perfpilot.evaluation.results import SampleResult, TaskResult


def _write(path: Path, data: dict[str, Any]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
    os.replace(tmp, path)


def _read(path: Path) -> dict[str, Any] | None:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None  # missing or damaged: the task simply runs again
    return data if isinstance(data, dict) else None


class ResultStore:
    """Reads and writes the result files under one output directory."""

    def __init__(self, out_dir: Path) -> None:
        self.out_dir = out_dir

    def _task_path(self, name: str) -> Path:
        return self.out_dir / "tasks" / f"{name}.json"

    def _ref_path(self, name: str) -> Path:
        return self.out_dir / "reference" / f"{name}.json"

    def load_task(self, name: str, key: str) -> TaskResult | None:
        """The stored result of ``name`` if it was made with ``key``."""
        data = _read(self._task_path(name))
        if data is None or data.get("key") != key:
            return None
        try:
            return TaskResult.from_json(data)
        except (KeyError, TypeError, ValueError, IndexError):
            return None

    def save_task(self, result: TaskResult) -> None:
        """Store one task's result."""
        _write(self._task_path(result.task), result.to_json())

    def load_reference(self, name: str, key: str) -> SampleResult | None:
        """The stored reference measurement of ``name`` if made with ``key``."""
        data = _read(self._ref_path(name))
        if data is None or data.get("key") != key or not isinstance(data.get("result"), dict):
            return None
        try:
            return SampleResult.from_json(data["result"])
        except (KeyError, TypeError, ValueError):
            return None

    def save_reference(self, name: str, key: str, result: SampleResult) -> None:
        """Store one reference measurement."""
        _write(self._ref_path(name), {"key": key, "result": result.to_json()})

    def save_summary(self, metrics: dict[str, Any]) -> Path:
        """Write ``summary.json`` (the metrics of the whole run)."""
        path = self.out_dir / "summary.json"
        _write(path, metrics)
        return path
