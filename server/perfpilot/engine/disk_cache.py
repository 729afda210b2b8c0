"""Measured verdicts persisted in the workspace's ``.perfpilot/results/`` folder.

A verdict is keyed by a hash of everything that decides it (unit, candidate, runner settings,
flags, spec and input files), so a restart finds it again and any change misses the cache.
Noisy and timed-out results are never stored: they are worth measuring again.
"""

from __future__ import annotations

import json
import logging
import os
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from perfpilot.runner.values import Verdict

log = logging.getLogger(__name__)
FOLDER = Path(".perfpilot") / "results"
_SCHEMA = 1


def _pair(value: Any) -> tuple[float, float] | None:
    if isinstance(value, list | tuple) and len(value) == 2:
        return (float(value[0]), float(value[1]))
    return None


def verdict_from_json(data: dict[str, Any]) -> Verdict:
    """Rebuild a Verdict from ``Verdict.to_json()`` output (detailed samples are not kept)."""
    from perfpilot.runner.values import Verdict

    validation = data.get("validation") or {}
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
    )


def private_folder(root: Path, *parts: str) -> Path:
    """A folder under ``root/.perfpilot`` (created), with a ``.gitignore`` that hides it all."""
    base = root / ".perfpilot"
    folder = base.joinpath(*parts)
    folder.mkdir(parents=True, exist_ok=True)
    ignore = base / ".gitignore"
    if not ignore.exists():
        ignore.write_text("# PerfPilot's local results and reports\n*\n", encoding="utf-8")
    return folder


class DiskCache:
    """Verdicts stored as one JSON file per key under ``root/.perfpilot/results``."""

    def __init__(self, root: Path) -> None:
        self.folder = root / FOLDER

    def _path(self, key: str) -> Path:
        return self.folder / f"{key}.json"

    def get(self, key: str) -> Verdict | None:
        """The stored verdict, or None (a corrupt file counts as a miss)."""
        path = self._path(key)
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
            if data.get("schema") != _SCHEMA:
                return None
            return verdict_from_json(data["verdict"])
        except FileNotFoundError:
            return None
        except (OSError, ValueError, KeyError, TypeError) as exc:
            log.warning("ignoring unreadable cached result %s: %s", path.name, exc)
            return None

    def put(self, key: str, verdict: Verdict) -> None:
        """Store a verdict atomically; failures to write are logged, never raised."""
        try:
            private_folder(self.folder.parent.parent, self.folder.name)
            fd, tmp = tempfile.mkstemp(dir=self.folder, suffix=".tmp")
            with os.fdopen(fd, "w", encoding="utf-8") as fh:
                json.dump({"schema": _SCHEMA, "verdict": verdict.to_json()}, fh)
            os.replace(tmp, self._path(key))
        except OSError as exc:
            log.warning("could not store a result: %s", exc)
