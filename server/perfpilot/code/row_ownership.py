"""Iterations that own a row: the proof behind parallel row updates under a carried loop.

In Gaussian elimination's ``for (i = k + 1; i < n; ++i) { f = a[i][k] / a[k][k]; for (j...)
a[i][j] -= f * a[k][j]; }`` the accesses of ``a`` have different indices, so the plain test (one
index shape per array) refuses the ``i`` loop; yet iteration ``i`` writes only row ``i`` and
reads row ``k``, which no iteration writes, since ``i`` never equals ``k``.

The proof, for one array and one index position (the row): every write's row index is the same
``±i + c`` (``c`` unchanged by the loop), so distinct iterations write distinct rows; every other
access either uses that same row index (the iteration's own row) or one the loop does not change
that the ranges prove lies outside every row the loop owns (``k < k + 1 <= i``, or ``i <= j - 1
< j``). A flat array ``a[i * n + j]`` is cut into rows of ``n`` (or of a literal width) when every
access's column is proved to lie in ``[0, n)``. Nothing is matched by name: the rows, offsets and
ranges are read from the indices and the loop headers (``code/index_algebra.py``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

import tree_sitter

from perfpilot.code.declarations import VarType
from perfpilot.code.index_algebra import (
    Poly,
    Range,
    atom_root,
    loop_range,
    nonnegative,
    poly_of,
    ranges_at,
    within,
)
from perfpilot.code.loop_body import ElementAccess

Node = tree_sitter.Node

Access = tuple[ElementAccess, Node]  # the access and its base node (for the loops around it)


@dataclass(frozen=True)
class _Fixed:
    """Whether a polynomial keeps its value through the loop: no atom is a name the loop
    changes, and no ``x.size()`` atom a container it assigns whole or declares."""

    changing: frozenset[str]
    resized: frozenset[str]

    def __call__(self, p: Poly) -> bool:
        return not any(atom_root(a) in self.resized if atom_root(a) != a else a in self.changing
                       for a in p.atoms())


def _split(index: Poly, stride: Poly) -> tuple[Poly, Poly] | None:
    """``index`` as ``row * stride + column``: the row gathers the terms that hold the stride
    (an atom) once, or whose coefficient it divides (a literal); None when it cannot."""
    width = stride.constant()
    row: dict[tuple[str, ...], int] = {}
    col: dict[tuple[str, ...], int] = {}
    if width is not None:
        if width <= 1:
            return None
        for m, c in index.terms:
            q, r = divmod(c, width) if not m else ((c // width, 0) if c % width == 0 else
                                                   (0, c))
            if q:
                row[m] = q
            if r:
                col[m] = r
        return Poly.of(row), Poly.of(col)
    (name,) = stride.atoms()
    for m, c in index.terms:
        uses = m.count(name)
        if uses > 1:
            return None
        if uses:
            rest = list(m)
            rest.remove(name)
            row[tuple(rest)] = c
        else:
            col[m] = c
    return Poly.of(row), Poly.of(col)


def _strides(var: str, writes: Sequence[Poly]) -> list[Poly]:
    """Row widths a flat write index suggests: ``n`` for ``i * n + ...``, ``4`` for ``4 * i``."""
    out: list[Poly] = []
    for w in writes:
        for m, c in w.terms:
            if var not in m:
                continue
            others = [a for a in m if a != var]
            cand = Poly.atom(others[0]) if len(others) == 1 and abs(c) == 1 and \
                m.count(var) == 1 else Poly.const(abs(c)) if not others and abs(c) > 1 else None
            if cand is not None and cand not in out:
                out.append(cand)
    return out


def rows_apart(loop: Node, var: str, accesses: Sequence[Access], changing: frozenset[str],
               resized: frozenset[str], types: Mapping[str, VarType | None]) -> bool:
    """Whether the iterations of ``loop`` over ``var`` touch one array (``accesses``, all of
    it in the loop) so that each writes only a row no other iteration touches.

    ``changing`` are the names the loop body writes (whole or in part) or declares: a row index
    outside the loop's rows, a row offset and a row width must use none of them. ``resized``
    are those it assigns whole or declares: their ``size()`` may change (writing elements
    keeps it).
    """
    found = loop_range(loop, types)
    if found is None or found[0] != var or not accesses or var in changing:
        return False
    own = found[1]
    fixed = _Fixed(changing | {var}, resized | {var})
    if not (fixed(own.low) and fixed(own.high)):
        return False
    counts = {len(a.indices) for a, _ in accesses}
    if len(counts) != 1:
        return False
    (count,) = counts
    outer = ranges_at(loop, types)
    at: dict[int, dict[str, Range]] = {}

    def ranges(k: int) -> Mapping[str, Range]:
        if k not in at:
            at[k] = ranges_at(accesses[k][1], types)
        return at[k]

    for pos in range(count):
        parsed = [poly_of(a.indices[pos]) for a, _ in accesses]
        column = [p for p in parsed if p is not None]
        if len(column) != len(parsed):
            continue
        if _owned(var, own, accesses, column, None, fixed, outer, ranges):
            return True
        if count == 1:
            writes = [p for p, (a, _) in zip(column, accesses, strict=True) if a.write]
            if any(_owned(var, own, accesses, column, s, fixed, outer, ranges)
                   for s in _strides(var, writes)):
                return True
    return False


def _owned(var: str, own: Range, accesses: Sequence[Access], index: Sequence[Poly],
           stride: Poly | None, fixed: _Fixed, outer: Mapping[str, Range],
           ranges: Callable[[int], Mapping[str, Range]]) -> bool:
    """The proof for one index position (and row width, for a flat array)."""
    rows: list[Poly] = []
    for k, ix in enumerate(index):
        if stride is None:
            rows.append(ix)
            continue
        if not fixed(stride):
            return False
        parts = _split(ix, stride)
        if parts is None or not within(parts[1], stride, ranges(k)):
            return False
        rows.append(parts[0])
    owned = {r for r, (a, _) in zip(rows, accesses, strict=True) if var in r.atoms()}
    if len(owned) != 1 or any(a.write and var not in r.atoms()
                              for r, (a, _) in zip(rows, accesses, strict=True)):
        return False
    (row,) = owned
    sign = row.coefficient(var)
    offset = row.without(var)
    if sign not in (1, -1) or row != Poly.atom(var).scale(sign) + offset or not fixed(offset):
        return False
    # the rows the loop owns: [first, last]
    first = own.low.scale(sign) + offset if sign > 0 else own.high.scale(sign) + offset
    last = own.high.scale(sign) + offset if sign > 0 else own.low.scale(sign) + offset
    one = Poly.const(1)
    for r in rows:
        if var in r.atoms():
            continue
        if not fixed(r):
            return False
        if not (nonnegative(first - r - one, outer) or nonnegative(r - last - one, outer)):
            return False
    return True
