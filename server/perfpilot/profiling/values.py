"""Profile values: per-function costs with their source location, and the sources' stamps."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any


@dataclass(frozen=True)
class FunctionCost:
    """One function's share of a profile.

    ``self_share`` counts samples (or instructions, or seconds) spent in the function's own
    code, inlined callees' code excluded; ``inclusive_share`` counts those with the function
    anywhere on the stack (each sample once, so recursion never counts twice). ``file`` and the
    1-based line range come from the debug information; they are empty for code without it.
    """

    name: str
    self_cost: float
    inclusive_cost: float
    self_share: float
    inclusive_share: float
    file: str = ""
    first_line: int = 0
    last_line: int = 0
    binary: str = ""

    def to_json(self) -> dict[str, Any]:
        """A plain dict for JSON."""
        return {"name": self.name, "self_cost": self.self_cost,
                "inclusive_cost": self.inclusive_cost, "self_share": self.self_share,
                "inclusive_share": self.inclusive_share, "file": self.file,
                "first_line": self.first_line, "last_line": self.last_line,
                "binary": self.binary}

    @staticmethod
    def from_json(data: dict[str, Any]) -> FunctionCost:
        """The inverse of ``to_json``."""
        return FunctionCost(
            name=str(data["name"]), self_cost=float(data["self_cost"]),
            inclusive_cost=float(data["inclusive_cost"]),
            self_share=float(data["self_share"]),
            inclusive_share=float(data["inclusive_share"]), file=str(data.get("file", "")),
            first_line=int(data.get("first_line", 0)), last_line=int(data.get("last_line", 0)),
            binary=str(data.get("binary", "")))


@dataclass(frozen=True)
class SourceStamp:
    """A source file's content hash when the profile was taken (to tell a stale profile)."""

    path: str
    sha256: str


def file_digest(path: Path) -> str:
    """SHA-256 of a file's bytes, or "" when it cannot be read."""
    try:
        return hashlib.sha256(path.read_bytes()).hexdigest()
    except OSError:
        return ""


def text_digest(text: str) -> str:
    """SHA-256 of a text as UTF-8 (an editor buffer compared with a stamp)."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


@dataclass(frozen=True)
class Profile:
    """A whole profile: where it came from, what was counted, and functions by self cost."""

    tool: str  # perf, callgrind, gprof
    event: str  # cpu-clock, Ir, seconds ...
    total: float
    functions: tuple[FunctionCost, ...]
    command: tuple[str, ...] = ()
    cwd: str = ""
    notes: tuple[str, ...] = ()
    sources: tuple[SourceStamp, ...] = field(default=())

    def hottest(self, count: int, min_share: float = 0.0,
                with_source: bool = True) -> tuple[FunctionCost, ...]:
        """The ``count`` functions with the largest self share (those with a source file only,
        unless ``with_source`` is False), dropping shares below ``min_share``."""
        picked = [f for f in self.functions
                  if f.self_share >= min_share and (f.file or not with_source)]
        picked.sort(key=lambda f: (-f.self_share, -f.inclusive_share, f.name))
        return tuple(picked[:count])

    def stale_files(self) -> tuple[str, ...]:
        """Source files that changed on disk (or vanished) since the profile was taken."""
        return tuple(s.path for s in self.sources if file_digest(Path(s.path)) != s.sha256)

    def to_json(self) -> dict[str, Any]:
        """A plain dict for JSON (``perfpilot profile --json``)."""
        return {"tool": self.tool, "event": self.event, "total": self.total,
                "command": list(self.command), "cwd": self.cwd, "notes": list(self.notes),
                "sources": [{"path": s.path, "sha256": s.sha256} for s in self.sources],
                "functions": [f.to_json() for f in self.functions]}

    @staticmethod
    def from_json(data: dict[str, Any]) -> Profile:
        """The inverse of ``to_json``."""
        return Profile(
            tool=str(data["tool"]), event=str(data["event"]), total=float(data["total"]),
            functions=tuple(FunctionCost.from_json(f) for f in data.get("functions", [])),
            command=tuple(str(c) for c in data.get("command", [])),
            cwd=str(data.get("cwd", "")), notes=tuple(str(n) for n in data.get("notes", [])),
            sources=tuple(SourceStamp(str(s["path"]), str(s["sha256"]))
                          for s in data.get("sources", [])))
