"""How evenly a loop's iterations share its work: whether the loops it holds run the same trip
count in every iteration (rectangular), a count that follows the induction variable
(triangular), or a count read from data (irregular).

The answer keys on shape alone: which inner bounds depend on the outer induction variable or on
values computed in each iteration, never on names.
"""

from __future__ import annotations

from typing import Literal

import tree_sitter

from perfpilot.code.loop_header import ForHeader, read_header
from perfpilot.code.syntax import (
    LOOP_TYPES,
    declarator_name,
    identifiers,
    mutations,
    node_text,
    walk,
)

Node = tree_sitter.Node

Balance = Literal["rectangular", "triangular-growing", "triangular", "irregular"]

# Bound expressions that read data rather than compute from integers.
_DATA = frozenset({"subscript_expression", "call_expression", "field_expression",
                   "pointer_expression"})


def _counters(h: ForHeader) -> set[str]:
    """The name a ``for`` header's initializer declares or assigns (its counter)."""
    return {h.var} if h.initializer is not None and h.var is not None else set()


def _bounds(h: ForHeader) -> list[Node]:
    """The parts of a ``for`` header that decide its trip count: its start and condition (the
    whole initializer where it is more than one plain start value)."""
    start = h.init if h.plain_init else h.initializer
    return [n for n in (start, h.condition) if n is not None]


def _per_iteration_values(body: Node, var: str) -> set[str]:
    """Variables declared in ``body`` (outside ``for`` headers) whose value may differ between
    iterations over ``var``: computed from ``var``, from data (a subscript, call, member or
    dereference), or assigned again after their declaration. An invariant copy (``int m =
    n;``) is not among them."""
    varying = {var}
    assigned = {node_text(t) for _, t in mutations(body)}
    for n in walk(body):
        if n.type != "declaration" or (n.parent is not None and n.parent.type == "for_statement"):
            continue
        for d in n.children_by_field_name("declarator"):
            name = declarator_name(d)
            if not name:
                continue
            value = d.child_by_field_name("value")
            if value is None or name in assigned or identifiers(value) & varying or any(
                    m.type in _DATA for m in walk(value)):
                varying.add(name)
    return varying


def loop_balance(loop: Node, var: str) -> Balance:
    """How the work of the loop ``loop`` over ``var`` is spread over its iterations.

    ``irregular``: some inner loop's trip count depends on data that differs per iteration (a
    ``while``/``do`` loop, a bound read through a subscript, call or member, or a range over
    such a value). ``triangular-growing``: an inner bound follows ``var`` arithmetically in its
    condition only (``j < i``: later iterations do more); ``triangular``: it follows ``var``
    otherwise (``j = i``: earlier iterations do more). ``rectangular``: every iteration runs
    the same inner trip counts.
    """
    body = loop.child_by_field_name("body")
    if body is None:
        return "rectangular"
    varying = _per_iteration_values(body, var)
    found: Balance = "rectangular"
    for n in walk(body):
        if n.type not in LOOP_TYPES or n == loop:
            continue
        if n.type in ("while_statement", "do_statement"):
            return "irregular"
        if n.type == "for_range_loop":
            right = n.child_by_field_name("right")
            if identifiers(right) & varying:
                return "irregular"
            continue
        header = read_header(n)
        own = _counters(header)
        parts = _bounds(header)
        used = set().union(*(identifiers(p) for p in parts)) - own if parts else set()
        if not parts or header.condition is None:
            return "irregular"  # no condition: the body decides when it stops
        if not used & varying:
            continue
        varying |= own  # a counter whose range varies varies itself
        data = any(m.type in _DATA for p in parts for m in walk(p)
                   if identifiers(m) & varying)
        if data or (used & varying) - {var} - _counter_names(body):
            return "irregular"
        in_init = any(var in identifiers(p) for p in parts if p != header.condition)
        growing = not in_init and found in ("rectangular", "triangular-growing")
        found = "triangular-growing" if growing else "triangular"
    return found


def _counter_names(body: Node) -> set[str]:
    """Every ``for`` counter below ``body``: a bound following an outer counter is triangular
    too (``k < j`` with ``j < i``)."""
    return set().union(*(_counters(read_header(n)) for n in walk(body)
                         if n.type == "for_statement"))
