"""What the inputs reached in the original function: branches and lines, from gcov's JSON."""

from __future__ import annotations

import json
from dataclasses import dataclass


@dataclass(frozen=True)
class Reach:
    """Branches of the function (and how many were taken), its executable lines and those
    that ran."""

    branches: int
    taken: int
    lines: tuple[int, ...]
    reached: frozenset[int]

    @property
    def unreached(self) -> tuple[int, ...]:
        """Executable lines no input ran, in order."""
        return tuple(n for n in self.lines if n not in self.reached)

    def grew(self, before: Reach | None) -> bool:
        """Whether this reaches more than ``before`` (a line or a branch outcome more)."""
        if before is None:
            return bool(self.reached or self.taken)
        return self.taken > before.taken or not self.reached <= before.reached


def read_gcov(gcov_json: str, unit_name: str, first: int, last: int) -> Reach | None:
    """The reach of lines ``first``..``last`` (1-based) of ``unit_name`` in gcov's JSON
    (``gcov --json-format``), or None when it holds nothing for them."""
    try:
        data = json.loads(gcov_json)
    except ValueError:
        return None
    total = taken = 0
    counts: dict[int, int] = {}
    for f in data.get("files", []):
        if not str(f.get("file", "")).endswith(unit_name):
            continue
        for line in f.get("lines", []):
            number = int(line.get("line_number", 0))
            if not first <= number <= last:
                continue
            counts[number] = max(counts.get(number, 0), int(line.get("count", 0)))
            for b in line.get("branches", []):
                if b.get("throw"):
                    continue
                total += 1
                taken += 1 if int(b.get("count", 0)) > 0 else 0
    if not counts:
        return None
    return Reach(total, taken, tuple(sorted(counts)),
                 frozenset(n for n, c in counts.items() if c > 0))
