"""A run-time check that pointer parameters do not overlap where a loop touches them.

A loop that writes through one pointer parameter and reads through another is independent only
when the two do not overlap, which the code cannot prove without ``restrict``. Compilers
version such loops on a run-time test; so does this: when every access through those pointers
is ``p[i + c]`` (the loop's own index plus a constant), the bytes each pointer's accesses span
over the loop's range are known, and the loop runs in parallel only when the written spans do
not meet any other span. The same pointer read and written only at ``p[i]`` is harmless: each
iteration touches its own element.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from perfpilot.code.loops import LoopFacts

_PLAIN_BOUND = re.compile(r"^[\w\s+\-*/%().]*$")
_CALL = re.compile(r"\w\s*\(")


def _offset(index: str, var: str) -> int | None:
    """``c`` for an index ``var``, ``var + c``, ``var - c`` or ``c + var``; else None."""
    s = "".join(index.split())
    if s == var:
        return 0
    m = re.fullmatch(rf"{re.escape(var)}([+-])(\d+)", s) or \
        re.fullmatch(rf"(\d+)\+{re.escape(var)}", s)
    if m is None:
        return None
    if m.re.pattern.startswith("(\\d+)"):
        return int(m.group(1))
    return int(m.group(2)) * (1 if m.group(1) == "+" else -1)


def _plus(expr: str, c: int) -> str:
    """``expr + c`` written plainly (``n``, ``n + 1``, ``(a - b) - 2``)."""
    if re.fullmatch(r"-?\d+", expr.strip()):
        return str(int(expr) + c)
    e = expr if re.fullmatch(r"[\w.]+", expr) else f"({expr})"
    return e if c == 0 else f"{e} + {c}" if c > 0 else f"{e} - {-c}"


def _address(name: str, index: str) -> str:
    """The address of ``name[index]`` as an integer (no pointer arithmetic out of bounds)."""
    base = f"(long long)(unsigned long long)(const void *){name}"
    if index == "0":
        return base
    whole = index.startswith("(") and index.endswith(")") and index.count("(") == 1
    idx = index if whole or re.fullmatch(r"[\w.]+", index) else f"({index})"
    return f"{base} + {idx} * (long long)sizeof *{name}"


def no_overlap_condition(lp: LoopFacts, pointers: Sequence[str]) -> str | None:
    """A C/C++ condition, true when the loop's accesses through ``pointers`` cannot overlap
    (so its iterations stay independent), or None when the accesses are not all of the form
    ``p[i + c]`` over a counted loop with step 1 and plain bounds."""
    var, lo, hi = lp.induction, lp.lower, lp.upper
    if var is None or lo is None or hi is None or lp.step != 1 or \
            lp.cond_op not in ("<", "<=") or not pointers:
        return None
    if any(not _PLAIN_BOUND.match(b) or _CALL.search(b) for b in (lo, hi)):
        return None
    offsets: dict[str, list[int]] = {p: [] for p in pointers}
    written: set[str] = set()
    for a in lp.element_accesses:
        if a.base not in offsets:
            continue
        if len(a.indices) != 1:
            return None
        c = _offset(a.indices[0], var)
        if c is None:
            return None
        offsets[a.base].append(c)
        if a.write:
            written.add(a.base)
    if not written or any(not cs for cs in offsets.values()):
        return None
    # The span of p's accesses: [lo + min offset, last + max offset + 1) in elements.
    end = _plus(hi, 1) if lp.cond_op == "<=" else hi

    def span(p: str) -> tuple[str, str]:
        return _address(p, _plus(lo, min(offsets[p]))), _address(p, _plus(end, max(offsets[p])))

    tests: list[str] = []
    done: set[frozenset[str]] = set()
    for w in sorted(written):
        for p in sorted(offsets):
            pair = frozenset({w, p})
            if p == w or pair in done:
                continue
            done.add(pair)
            (w0, w1), (p0, p1) = span(w), span(p)
            apart = f"{w1} <= {p0} || {p1} <= {w0}"
            if set(offsets[w]) == {0} and set(offsets[p]) == {0}:
                apart = f"(const void *){w} == (const void *){p} || {apart}"
            tests.append(f"({apart})")
    # An empty range (lo >= hi) may fail the test: the loop then runs serially, and does nothing.
    return " && ".join(tests) if tests else None
