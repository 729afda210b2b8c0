"""Valgrind's callgrind: run a program under it, read its output files.

Callgrind names functions by symbol and their object files (``ob=``); the source file and lines
of each function are then read from that object's debug information.
"""

from __future__ import annotations

import re
import shutil
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from perfpilot.profiling.proc import Finished, ProfileError, run
from perfpilot.progress import JobContext

_COMPRESSED = re.compile(r"^\((\d+)\)(?:\s+(.*))?$")


@dataclass
class CallgrindData:
    """Costs read from one or more callgrind files, per (function, object)."""

    event: str = ""
    total: float = 0.0
    self_cost: dict[tuple[str, str], float] = field(default_factory=dict)
    call_cost: dict[tuple[str, str], float] = field(default_factory=dict)
    commands: list[str] = field(default_factory=list)


class _Names:
    """callgrind's name compression: ``(id) name`` defines, ``(id)`` refers."""

    def __init__(self) -> None:
        self.table: dict[str, dict[str, str]] = {}

    def read(self, kind: str, value: str) -> str:
        m = _COMPRESSED.match(value.strip())
        if m is None:
            return value.strip()
        names = self.table.setdefault(kind, {})
        if m.group(2) is not None:
            names[m.group(1)] = m.group(2)
            return m.group(2)
        return names.get(m.group(1), f"({m.group(1)})")


_KINDS = {"ob": "ob", "cob": "ob", "fl": "fl", "fi": "fl", "fe": "fl", "cfi": "fl",
          "cfl": "fl", "fn": "fn", "cfn": "fn"}


def _cost(fields: list[str], npos: int) -> float:
    values = fields[npos:npos + 1]
    try:
        return float(values[0]) if values else 0.0
    except ValueError:
        return 0.0


def parse(text: str, into: CallgrindData | None = None) -> CallgrindData:
    """Read one callgrind output file (compressed names and positions allowed); costs of the
    first event. Adds to ``into`` when given, so several processes' files sum up."""
    data = into if into is not None else CallgrindData()
    names = _Names()
    npos = 1
    ob = fn = cfn = ""
    in_call = False
    totals_seen = 0.0
    summary = 0.0
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        head, sep, value = line.partition("=")
        if sep and head in _KINDS:
            name = names.read(_KINDS[head], value)
            if head == "ob":
                ob = name
            elif head == "fn":
                fn = name
            elif head == "cfn":
                cfn = name
            continue
        if sep and head == "calls":
            in_call = True
            continue
        if sep and head in ("jump", "jcnd"):
            continue
        key, colon, rest = line.partition(":")
        if colon and key in ("positions", "events", "totals", "summary", "cmd"):
            if key == "positions":
                npos = len(rest.split())
            elif key == "events":
                data.event = data.event or (rest.split() or [""])[0]
            elif key == "totals":
                totals_seen += _cost(rest.split(), 0)
            elif key == "summary":
                summary += _cost(rest.split(), 0)
            else:
                data.commands.append(rest.strip())
            continue
        if colon and not line[0].isdigit() and line[0] not in "+-*":
            continue  # other header lines (version, creator, pid, part, desc ...)
        cost = _cost(line.split(), npos)
        if in_call:
            # The line after calls= carries the inclusive cost of the calls from fn to cfn.
            if cfn != fn:
                data.call_cost[(fn, ob)] = data.call_cost.get((fn, ob), 0.0) + cost
            in_call = False
            continue
        data.self_cost[(fn, ob)] = data.self_cost.get((fn, ob), 0.0) + cost
    data.total += totals_seen or summary
    return data


def valgrind_path() -> str | None:
    """The ``valgrind`` program, if installed."""
    return shutil.which("valgrind")


async def record(argv: Sequence[str], cwd: Path, out_dir: Path, *, timeout_s: float,
                 ctx: JobContext | None = None) -> tuple[Finished, list[Path]]:
    """Run ``argv`` under callgrind (child processes too); returns the output files."""
    pattern = out_dir / "callgrind.out.%p"
    done = await run(["valgrind", "--tool=callgrind", "--trace-children=yes",
                      f"--callgrind-out-file={pattern}", "--", *argv],
                     cwd=cwd, timeout_s=timeout_s, ctx=ctx)
    files = sorted(out_dir.glob("callgrind.out.*"))
    if not files:
        raise ProfileError(f"callgrind wrote no profile: {done.stderr.strip()[-400:]}")
    return done, files
