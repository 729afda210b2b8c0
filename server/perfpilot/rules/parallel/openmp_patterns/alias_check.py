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

Over a perfect nest (run in another order: ``reorder_guard.py``) the same test bounds a
pointer's span by the ends of its counters' ranges, when each subscript is a sum of terms each
an invariant times at most one counter (``nest_no_overlap_condition``).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from functools import partial

from perfpilot.code.index_algebra import Poly, Range, atom_root, header_range, poly_of
from perfpilot.code.loops import LoopFacts
from perfpilot.code.storage_type import Extent, address

_PLAIN_BOUND = re.compile(r"^[\w\s+\-*/%().]*$")


class SpanNames:
    """Names for the ends of the spans a run-time overlap test compares: each span is then
    declared once, on a line of its own (``const long long y_begin = ...;``), and the test
    reads ``y_end <= x_begin || x_end <= y_begin`` instead of repeating the address
    arithmetic inline. ``fresh`` turns a stem into a name the function does not use."""

    def __init__(self, fresh: Callable[[str], str]) -> None:
        self.fresh = fresh
        self.declarations: list[str] = []
        self._named: dict[str, tuple[str, str]] = {}

    def span(self, p: str, ends: tuple[str, str]) -> tuple[str, str]:
        """The names of ``p``'s span ``ends`` (declared the first time they are asked for)."""
        if p not in self._named:
            stem = re.sub(r"\W+", "_", p).strip("_") or "span"
            begin, end = self.fresh(f"{stem}_begin"), self.fresh(f"{stem}_end")
            first, last = ends
            if last.startswith(first + " + "):
                last = begin + last[len(first):]
            self.declarations += [f"const long long {begin} = {first};",
                                  f"const long long {end} = {last};"]
            self._named[p] = (begin, end)
        return self._named[p]
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
                         pairs: Sequence[tuple[str, str]] | None = None,
                         names: SpanNames | None = None) -> str | None:
    """A C/C++ condition, true when the loop's accesses through ``pointers`` cannot overlap
    (so its iterations stay independent), or None when it cannot be written.

    A name with an entry in ``extents`` (a container or view) spans its whole extent; any
    other name spans what the loop reaches through it, so its accesses must all be
    ``p[i + c]`` over a counted loop with step 1 and plain bounds. ``pairs`` are the
    (written, other) pairs to test; by default every written name against every other.
    With ``names``, the spans are declared there and the test reads their names."""
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

    def same_element(w: str, p: str) -> bool:
        return not {w, p} & placed and set(offsets[w]) == {0} and set(offsets[p]) == {0}

    # An empty range (lo >= hi) may fail the test: the loop then runs serially, and does nothing.
    named = _named(span, names)
    return _pair_tests(pairs, named, partial(_start, extents) if names is None else
                       (lambda p: named(p)[0]), partial(_size, extents), same_element)


def _named(span: Callable[[str], tuple[str, str]], names: SpanNames | None
           ) -> Callable[[str], tuple[str, str]]:
    """``span``, or the names ``names`` declares for its ends."""
    if names is None:
        return span
    return lambda p: names.span(p, span(p))


def _start(extents: Mapping[str, Extent], p: str) -> str:
    """The address ``p``'s elements start at, as a ``const void *`` expression."""
    e = extents.get(p)
    return f"(const void *)({e.begin})" if e is not None else f"(const void *){p}"


def _size(extents: Mapping[str, Extent], p: str) -> str:
    """The size of one of ``p``'s elements, as an expression."""
    e = extents.get(p)
    return f"({e.size})" if e is not None else f"sizeof *{p}"


def _pair_tests(pairs: Sequence[tuple[str, str]], span: Callable[[str], tuple[str, str]],
                start: Callable[[str], str], size: Callable[[str], str],
                same_element: Callable[[str, str], bool]) -> str | None:
    """The conjunction, over ``pairs``, of: their spans do not meet, or (where
    ``same_element`` says both are touched only at one index, each element by the iteration
    that touches it through the other name too) they start at one address with one element
    size."""
    tests: list[str] = []
    done: set[frozenset[str]] = set()
    for w, p in pairs:
        pair = frozenset({w, p})
        if p == w or pair in done:
            continue
        done.add(pair)
        (w0, w1), (p0, p1) = span(w), span(p)
        apart = f"{w1} <= {p0} || {p1} <= {w0}"
        if same_element(w, p):
            # each iteration touches its own element of the one array (of one element size:
            # a character pointer may view a double array at its first byte)
            apart = f"({start(w)} == {start(p)} && {size(w)} == {size(p)}) || {apart}"
        tests.append(f"({apart})")
    return " && ".join(tests) if tests else None


def _c(p: Poly) -> str:
    """A polynomial as a C expression computed in ``long long`` (its first factor cast)."""
    parts = []
    for m, c in sorted(p.terms, key=lambda t: not t[0]):  # the constant last
        if not m:
            parts.append(f"{c}LL")
            continue
        atoms = " * ".join([f"(long long){m[0]}", *m[1:]])
        parts.append(atoms if c == 1 else f"-{atoms}" if c == -1 else f"{c}LL * {atoms}")
    if not parts:
        return "0LL"
    text = " + ".join(parts).replace("+ -", "- ")
    return text if len(parts) == 1 and "*" not in text else f"({text})"


def _times(k: str, x: str) -> str:
    if "0LL" in (k, x):
        return "0LL"
    return x if k == "1LL" else k if x == "1LL" else f"{k} * {x}"


def _sum(parts: list[str]) -> str:
    kept = [p for p in parts if p != "0LL"]
    return " + ".join(kept) if kept else "0LL"


def _bounds(p: Poly, ranges: Mapping[str, Range]) -> tuple[str, str] | None:
    """C expressions for the least and greatest value ``p`` takes while each counter of
    ``ranges`` stays in its range (bounds that may be wide of the mark, never inside it), or
    None when a term multiplies counters (it is then not monotone in each)."""
    low: list[str] = []
    high: list[str] = []
    for m, c in p.terms:
        counters = [a for a in m if a in ranges]
        if not counters:
            low.append(_c(Poly.of({m: c})))
            high.append(low[-1])
            continue
        if len(counters) > 1 or m.count(counters[0]) > 1:
            return None
        v = counters[0]
        rest = list(m)
        rest.remove(v)
        k = Poly.of({tuple(rest): c})
        lo, hi = _c(ranges[v].low), _c(ranges[v].high)
        if not rest:  # c * v: the sign of c says which end is least
            at_lo, at_hi = _times(_c(k), lo), _times(_c(k), hi)
            low.append(at_lo if c > 0 else at_hi)
            high.append(at_hi if c > 0 else at_lo)
        else:
            kc = _c(k)
            low.append(f"({kc} < 0 ? {_times(kc, hi)} : {_times(kc, lo)})")
            high.append(f"({kc} < 0 ? {_times(kc, lo)} : {_times(kc, hi)})")
    return _sum(low), _sum(high)


def _extreme(values: list[str], op: str) -> str:
    """The least (``op`` ``<``) or greatest (``>``) of ``values``, as nested conditionals."""
    out = values[0]
    for v in values[1:]:
        out = f"({v} {op} {out} ? {v} : {out})"
    return out


def nest_no_overlap_condition(loops: Sequence[LoopFacts], pointers: Sequence[str],
                              extents: Mapping[str, Extent] | None = None,
                              pairs: Sequence[tuple[str, str]] | None = None,
                              names: SpanNames | None = None) -> str | None:
    """``no_overlap_condition`` over a perfect nest of counted loops (``loops``, outermost
    first): true when the nest's accesses through ``pointers`` cannot overlap, or None when it
    cannot be written.

    A pointer's accesses must each have one subscript, a sum of terms (``i * n + j - 1``) each
    an invariant times at most one counter; the counters count up by a positive step between
    plain bounds that no loop of the nest changes or reads another counter in. Each term is
    least and greatest at an end of its counter's range, so the sum of those ends bounds every
    element the nest reaches (the span may be wider than the elements touched, never
    narrower). Names touched only at one and the same subscript may also be one array at one
    address: each element is then reached through both names by the same iterations."""
    extents = extents or {}
    if not loops or not pointers:
        return None
    top = loops[0]
    counters = [lp.induction for lp in loops]
    changing = set(top.writes) | set(top.locals)
    ranges: dict[str, Range] = {}
    for lp in loops:
        var, lo, hi, op = lp.induction, lp.lower, lp.upper, lp.cond_op
        if var is None or lo is None or hi is None or op is None or lp.step is None or \
                lp.step <= 0 or any(not _PLAIN_BOUND.match(b) or _CALL.search(b)
                                    for b in (lo, hi)):
            return None
        r = header_range(lo, hi, op, lp.step)
        if r is None or any(atom_root(a) in changing or a in counters
                            for a in r.low.atoms() | r.high.atoms()):
            return None
        ranges[var] = r
    indices: dict[str, set[str]] = {p: set() for p in pointers}
    written: set[str] = set()
    for a in top.element_accesses:
        if a.base in indices:
            indices[a.base].add(a.indices[0] if len(a.indices) == 1 else "")
            written |= {a.base} if a.write else set()
    spans: dict[str, tuple[str, str]] = {}
    for p in pointers:
        e = extents.get(p)
        if e is not None:
            first = address(e.begin)
            spans[p] = first, f"{first} + (long long)({e.count}) * (long long)({e.size})"
            continue
        low: list[str] = []
        high: list[str] = []
        for index in sorted(indices[p]):
            poly = poly_of(index) if index else None
            if poly is None or any(atom_root(a) in changing - set(ranges)
                                   for a in poly.atoms()):
                return None
            got = _bounds(poly, ranges)
            if got is None:
                return None
            low.append(got[0])
            high.append(got[1])
        if not low:
            return None
        spans[p] = _address(p, f"({_extreme(low, '<')})"), \
            _address(p, f"({_extreme(high, '>')}) + 1")
    if pairs is None:
        pairs = [(w, p) for w in sorted(written) for p in sorted(indices) if p != w]
    if not pairs:
        return None

    def same_element(w: str, p: str) -> bool:
        return len(indices[w] | indices[p]) == 1 and "" not in indices[w]

    # An empty loop may fail the test: the original order then runs, and does nothing.
    named = _named(spans.__getitem__, names)
    return _pair_tests(pairs, named, partial(_start, extents) if names is None else
                       (lambda p: named(p)[0]), partial(_size, extents), same_element)
