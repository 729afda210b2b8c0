"""Text edits over a function's UTF-8 bytes, applied back to front."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Edit:
    """Replace bytes ``[start, end)`` with ``text``; ``order`` sorts insertions at one point.

    Insertions at the same offset are emitted by ascending ``order`` (declarations before a
    ``#pragma`` that must stay right above its loop).
    """

    start: int
    end: int
    text: str
    rule: str
    order: int = 0


def overlaps(a: Edit, b: Edit) -> bool:
    """Whether two edits touch the same bytes (pure insertions at one point never overlap)."""
    if a.start == a.end or b.start == b.end:
        point, other = (a, b) if a.start == a.end else (b, a)
        return other.start < point.start < other.end
    return a.start < b.end and b.start < a.end


def select(edits: list[Edit]) -> tuple[list[Edit], list[Edit]]:
    """Keep edits in the given order unless they overlap one already kept; return kept, dropped."""
    kept: list[Edit] = []
    dropped: list[Edit] = []
    for e in edits:
        if any(overlaps(e, k) for k in kept):
            dropped.append(e)
        else:
            kept.append(e)
    return kept, dropped


def apply_edits(text: str, edits: list[Edit]) -> str:
    """Apply non-overlapping edits to ``text`` (offsets are UTF-8 byte offsets)."""
    data = text.encode("utf-8")
    # back to front so earlier offsets stay valid; at one point, higher order goes in first
    # and so ends up after the lower-order text
    for e in sorted(edits, key=lambda e: (e.start, e.end, e.order), reverse=True):
        data = data[:e.start] + e.text.encode("utf-8") + data[e.end:]
    return data.decode("utf-8")
