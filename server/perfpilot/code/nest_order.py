"""Perfect loop nests, and whether their loops may run in another order.

A nest of counted ``for`` loops is *perfect* when each loop's body is exactly the next loop and
the innermost body holds no loop. When the nest is also rectangular (no loop's bounds use
another's variable), an order of its loops is legal when it keeps, for every memory location,
the sequence in which iterations touch it. Two iterations touch one element of a written array
only when they agree on every loop variable its subscript pins (a subscript position that is one
variable shifted by an invariant, or a row-major ``v * S + w`` with ``0 <= w < S`` from the
loop of ``w``); they differ only in the array's *free* loops, and meet the element in the
lexicographic order of those. An order that keeps the free loops of every written array in
their relative order therefore keeps every element's reads and writes in sequence, and the nest
computes exactly what it did, floating-point sums into one element included. An accumulation
into a scalar (every loop free) allows no other order; anything the independence test refuses
(calls with effects, jumps, I/O, writes through pointers) allows none either. Distinct arrays
are taken not to overlap, as everywhere in the loop model; callers that reorder code guard or
refuse parameters that may alias.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import tree_sitter

from perfpilot.code.declarations import VarType
from perfpilot.code.dependence import affine_position, check_independent
from perfpilot.code.loop_body import collect_body, direct_loops
from perfpilot.code.loop_header import CountedHeader, counted_header
from perfpilot.code.syntax import (
    statements,
)

Node = tree_sitter.Node


@dataclass(frozen=True)
class Nest:
    """A perfect nest: its loops outermost first, their counted headers and variables."""

    loops: tuple[Node, ...]
    headers: tuple[CountedHeader, ...]

    @property
    def vars(self) -> tuple[str, ...]:
        """The induction variables, outermost first."""
        return tuple(h.var for h in self.headers)

    @property
    def innermost_body(self) -> Node | None:
        """The body of the innermost loop."""
        return self.loops[-1].child_by_field_name("body")


def header_moves(data: bytes, loops: list[Node], order: list[int]
                 ) -> list[tuple[int, int, str]]:
    """Replacements ``(start, end, text)`` that put the header ``for (...)`` of
    ``loops[order[k]]`` where the header of ``loops[k]`` is, bodies untouched: a loop
    interchange when the loops form a perfect nest."""
    spans = [(loop.start_byte, _header_end(loop)) for loop in loops]
    return [(s, e, data[spans[k][0]:spans[k][1]].decode("utf-8"))
            for (s, e), k in zip(spans, order, strict=True)]


def _header_end(loop: Node) -> int:
    """The byte just past ``for (...)``: where the loop's body begins."""
    body = loop.child_by_field_name("body")
    end = loop.start_byte
    for child in loop.children:
        if child == body:
            break
        end = child.end_byte
    return end


def sole_loop(loop: Node) -> Node | None:
    """The loop that is the whole body of ``loop`` (comments aside), if it is one."""
    stmts = statements(loop.child_by_field_name("body"))
    return stmts[0] if len(stmts) == 1 and stmts[0].type == "for_statement" else None


def perfect_nest(top: Node, types: dict[str, VarType | None]) -> Nest | str:
    """The perfect nest of counted loops that starts at ``top``, or why there is none: each
    loop canonical with its variable declared in its header, each body exactly the next loop,
    the last body without loops."""
    loops: list[Node] = []
    headers: list[CountedHeader] = []
    node: Node | None = top
    while node is not None:
        if node.type != "for_statement":
            return "not a counted for loop"
        h = counted_header(node, types)
        if isinstance(h, str):
            return h
        if not h.declared:
            return f"'{h.var}' is declared outside its loop"
        loops.append(node)
        headers.append(h)
        node = sole_loop(node)
    body = loops[-1].child_by_field_name("body")
    if body is None or any(True for _ in direct_loops(body)):
        return "the nest is not perfect: a loop runs other statements around an inner loop"
    if len({h.var for h in headers}) != len(headers):
        return "two loops of the nest share a variable"
    return Nest(tuple(loops), tuple(headers))


def _pinned(position: str, nest: Nest, changing: set[str]) -> set[str] | None:
    """The loop variables one subscript position pins (equal positions imply equal values
    of these), or None when the position depends on something else the body computes."""
    names = set(re.findall(r"[A-Za-z_]\w*", position))
    used = [v for v in nest.vars if v in names]
    if not used:
        return set() if not names & changing else None
    if len(used) == 1:
        return {used[0]} if affine_position(position, used[0], changing) else None
    if len(used) == 2:
        text = position.replace(" ", "")
        for outer, inner in (used, used[::-1]):
            h = nest.headers[nest.vars.index(inner)]
            o, i = re.escape(outer), re.escape(inner)
            size = re.escape(h.upper)
            if not (h.lower == "0" and h.op == "<" and h.step == 1
                    and re.fullmatch(r"[A-Za-z_]\w*|\d+", h.upper)
                    and h.upper not in changing and h.upper not in nest.vars):
                continue
            row = rf"(?:{o}\*{size}|{size}\*{o})"
            if re.fullmatch(rf"{row}\+{i}|{i}\+{row}", text):
                return {outer, inner}
    return None


def order_blocker(nest: Nest, order: tuple[str, ...], types: dict[str, VarType | None], *,
                  allow_reductions: bool = False) -> str:
    """Why the loops of ``nest`` may not run in ``order`` (its variables, outermost first),
    or "" when the order computes exactly what the nest does (see the module docstring).
    ``allow_reductions`` passes accumulations into scalars (a caller that accepts their
    reordering) and judges the written arrays alone."""
    if sorted(order) != sorted(nest.vars):
        return "the order does not name the nest's loops"
    if order == nest.vars:
        return ""
    for h in nest.headers:
        bound = f"{h.lower} {h.upper}"
        other = [v for v in nest.vars if v != h.var and re.search(rf"\b{v}\b", bound)]
        if other:
            return f"the bounds of the loop over '{h.var}' use '{other[0]}' (not rectangular)"
    inner = nest.loops[-1]
    body = nest.innermost_body
    if body is None:
        return "the innermost loop has no body"
    bound_vars = {n for h in nest.headers
                  for n in re.findall(r"[A-Za-z_]\w*", f"{h.lower} {h.upper}")} - set(nest.vars)
    ok, reason, reductions, _private, _locals = check_independent(
        inner, body, (), types, bound_vars)
    if not ok:
        return reason or "an iteration depends on another"
    if reductions and not allow_reductions:
        return (f"it accumulates into '{reductions[0][1]}', whose order of additions another "
                "loop order would change")
    f = collect_body(inner, body)
    changing = set(f.scalar_writes) | f.locals | set(nest.vars)
    rank = {v: order.index(v) for v in nest.vars}
    for acc, _node in f.element:
        if not acc.write or acc.base in f.locals:
            continue
        pinned: set[str] = set()
        for position in acc.indices:
            got = _pinned(position, nest, changing - set(nest.vars))
            if got is None:
                return (f"cannot tell which iterations write the same element of "
                        f"'{acc.base}[{']['.join(acc.indices)}]'")
            pinned |= got
        free = [v for v in nest.vars if v not in pinned]
        if sorted(free, key=rank.__getitem__) != free:
            return (f"'{acc.base}[{']['.join(acc.indices)}]' is updated across the loops over "
                    f"{', '.join(repr(v) for v in free)}, whose order this one changes")
    return ""
