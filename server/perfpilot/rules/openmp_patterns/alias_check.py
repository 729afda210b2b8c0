"""A run-time check that arrays a caller may pass overlapping do not overlap where a loop
touches them.

A loop that writes through one pointer parameter and reads through another (or through a
container or view a pointer may point into: ``f(v, v.data() + 1, n)``) is independent only
when the two do not overlap, which the code cannot prove without ``restrict``. Compilers
version such loops on a run-time test; so does this: when every access through a pointer is
``p[i + c]`` (the loop's own index plus a constant), the bytes its accesses span over the
loop's range are known; a container or view spans ``[data(), data() + size())``. The loop runs
in parallel only when the written spans do not meet any other span. One array read and written
only at ``[i]`` through both names is harmless: each iteration touches its own element.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

from perfpilot.code.loops import LoopFacts
from perfpilot.code.storage_type import Extent, address

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
    base = address(name)
    if index == "0":
        return base
    whole = index.startswith("(") and index.endswith(")") and index.count("(") == 1
    idx = index if whole or re.fullmatch(r"[\w.]+", index) else f"({index})"
    return f"{base} + {idx} * (long long)sizeof *{name}"


def no_overlap_condition(lp: LoopFacts, pointers: Sequence[str],
                         extents: Mapping[str, Extent] | None = None,
                         pairs: Sequence[tuple[str, str]] | None = None) -> str | None:
    """A C/C++ condition, true when the loop's accesses through ``pointers`` cannot overlap
    (so its iterations stay independent), or None when it cannot be written.

    A name with an entry in ``extents`` (a container or view) spans its whole extent; any
    other name spans what the loop reaches through it, so its accesses must all be
    ``p[i + c]`` over a counted loop with step 1 and plain bounds. ``pairs`` are the
    (written, other) pairs to test; by default every written name against every other."""
    extents = extents or {}
    var, lo, hi = lp.induction, lp.lower, lp.upper
    if not pointers:
        return None
    offsets: dict[str, list[int]] = {p: [] for p in pointers}
    placed: set[str] = set()  # names with an access not of the form ``p[i + c]``
    written: set[str] = set()
    for a in lp.element_accesses:
        if a.base not in offsets:
            continue
        if a.write:
            written.add(a.base)
        c = _offset(a.indices[0], var) if var is not None and len(a.indices) == 1 else None
        if c is None:
            placed.add(a.base)
        else:
            offsets[a.base].append(c)
    bounded = [p for p in pointers if p not in extents]
    if any(p in placed or not offsets[p] for p in bounded):
        return None
    if bounded and (var is None or lo is None or hi is None or lp.step != 1 or
                    lp.cond_op not in ("<", "<=") or
                    any(not _PLAIN_BOUND.match(b) or _CALL.search(b) for b in (lo, hi))):
        return None
    if pairs is None:
        pairs = [(w, p) for w in sorted(written) for p in sorted(offsets) if p != w]
    if not pairs:
        return None
    # The span of p's accesses: [lo + min offset, last + max offset + 1) in elements.
    end = _plus(hi or "", 1) if lp.cond_op == "<=" else hi or ""

    def span(p: str) -> tuple[str, str]:
        e = extents.get(p)
        if e is not None:
            first = address(e.begin)
            return first, f"{first} + (long long)({e.count}) * (long long)({e.size})"
        return (_address(p, _plus(lo or "", min(offsets[p]))),
                _address(p, _plus(end, max(offsets[p]))))

    def start(p: str) -> str:
        e = extents.get(p)
        return f"(const void *)({e.begin})" if e is not None else f"(const void *){p}"

    def size(p: str) -> str:
        e = extents.get(p)
        return f"({e.size})" if e is not None else f"sizeof *{p}"

    tests: list[str] = []
    done: set[frozenset[str]] = set()
    for w, p in pairs:
        pair = frozenset({w, p})
        if p == w or pair in done:
            continue
        done.add(pair)
        (w0, w1), (p0, p1) = span(w), span(p)
        apart = f"{w1} <= {p0} || {p1} <= {w0}"
        if not pair & placed and set(offsets[w]) == {0} and set(offsets[p]) == {0}:
            # each iteration touches its own element of the one array (of one element size:
            # a character pointer may view a double array at its first byte)
            apart = f"({start(w)} == {start(p)} && {size(w)} == {size(p)}) || {apart}"
        tests.append(f"({apart})")
    # An empty range (lo >= hi) may fail the test: the loop then runs serially, and does nothing.
    return " && ".join(tests) if tests else None
