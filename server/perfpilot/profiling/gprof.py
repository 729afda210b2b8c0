"""gprof's text report (``gprof [-b] PROGRAM gmon.out``): self seconds from the flat profile,
self plus children from the call graph. The report names functions only; their files and
lines come from the program's debug information when the program is given."""

from __future__ import annotations

import re
from dataclasses import dataclass

_FLAT = re.compile(r"^\s*([\d.]+)\s+([\d.]+)\s+([\d.]+)\s+"
                   r"(?:\d+\s+[\d.]+\s+[\d.]+\s+)?(\S.*?)\s*$")
_PRIMARY = re.compile(r"^\[(\d+)\]\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)\s+(?:[\d+/]+\s+)?(\S.*?)"
                      r"\s+\[\d+\]\s*$")
_TOTAL = re.compile(r"for\s+[\d.]+% of ([\d.]+) seconds")
_CYCLE = re.compile(r"\s*<cycle \d+>$")


@dataclass(frozen=True)
class GprofEntry:
    """One function of a gprof report: seconds in itself and with its callees."""

    name: str
    self_s: float
    inclusive_s: float


def parse(text: str) -> tuple[float, list[GprofEntry]]:
    """The total seconds and per-function entries of a gprof text report."""
    flat: dict[str, float] = {}
    graph: dict[str, tuple[float, float]] = {}
    total = 0.0
    section = ""
    for line in text.splitlines():
        if line.startswith("Flat profile"):
            section = "flat"
            continue
        if line.strip().startswith("Call graph"):
            section = "graph"
        if line.startswith("Index by function name"):
            section = ""
        m_total = _TOTAL.search(line)
        if m_total:
            total = max(total, float(m_total.group(1)))
        if section == "flat":
            m = _FLAT.match(line)
            if m and not line.strip().startswith(("%", "time")):
                flat[_CYCLE.sub("", m.group(4))] = float(m.group(3))
        elif section == "graph":
            m = _PRIMARY.match(line)
            if m is not None and not m.group(5).endswith("as a whole>"):
                name = _CYCLE.sub("", m.group(5))
                graph[name] = (float(m.group(3)), float(m.group(3)) + float(m.group(4)))
    total = max(total, sum(flat.values()))
    names = dict.fromkeys([*flat, *graph])
    entries = [GprofEntry(n, flat.get(n, graph.get(n, (0.0, 0.0))[0]),
                          graph.get(n, (0.0, flat.get(n, 0.0)))[1]) for n in names]
    return total, entries
