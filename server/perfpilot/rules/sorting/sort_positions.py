"""Positions in a sorted container that keep their value from the sort on.

Two rules replace a whole-container sort by a partial one (``std::nth_element`` for a position
read, ``std::partial_sort`` for a prefix kept), evaluating at the sort a position written
later (``v[k]``, ``v.resize(k)``). That is sound when the position is built from integer
literals, the container's size and integer variables that nothing changes between the sort
and the place the position is written, and when no loop around the sort keeps the container
from one iteration to the next.
"""

from __future__ import annotations

from perfpilot.code.declarations import VarType
from perfpilot.code.facts import FunctionFacts
from perfpilot.code.sorted_ranges import DECL, Mentions, SortCall, Use, is_size_of, plain_local
from perfpilot.code.syntax import (
    Node,
    int_literal,
    node_text,
    operator,
    unwrap,
)

EXACT, FLOATING = "exact", "floating"
_FLOATING_TYPES = frozenset({"float", "double", "long double"})


def element_kind(element: str) -> str:
    """``EXACT`` for integer and string elements (equal ones are identical, so any order
    statistic the sort would give is the same value), ``FLOATING`` for floating ones (``-0.0``
    and ``0.0`` are equal yet tell apart), "" for anything else."""
    words = " ".join(element.replace("std::", "").split())
    if words in _FLOATING_TYPES:
        return FLOATING
    return EXACT if VarType(words).is_integral or words == "string" else ""

def scope_ok(facts: FunctionFacts, s: SortCall, decl: Use) -> bool:
    """Every loop around the sort declares the container afresh (a parameter: no loop).

    Afresh means in the loop's body, or as a range-for's element; a ``for`` header's
    initializer makes one container for every iteration, and its update sees the order."""
    at = decl.ident.start_byte
    lp = facts.loop_of(s.statement)
    while lp is not None:
        body = lp.node.child_by_field_name("body")
        fresh = body is not None and body.start_byte <= at < body.end_byte
        element = lp.node.child_by_field_name("declarator")
        if lp.node.type == "for_range_loop" and element is not None:
            fresh = fresh or element.start_byte <= at < element.end_byte
        if not fresh:
            return False
        lp = facts.loops[lp.parent] if lp.parent is not None else None
    return True


class Positions:
    """Reads positions written after a sort as values valid at the sort."""

    def __init__(self, facts: FunctionFacts, mentions: Mentions) -> None:
        self.facts = facts
        self.mentions = mentions

    def index(self, node: Node, s: SortCall, until: int) -> tuple[str, str] | None:
        """``(key, text)`` of a position written before byte ``until``: built from the size,
        literals and variables that keep their value from the sort to ``until`` (the text is
        valid at the sort; the key is a normalized form, ``N`` the size)."""
        node = unwrap(node)
        v = s.var
        if node.type == "number_literal":
            value = int_literal(node)
            return (str(value), node_text(node)) if value is not None and value >= 0 else None
        if is_size_of(node, v):
            return "N", f"{v}.size()"
        if node.type == "identifier":
            name = node_text(node)
            if self.mentions.size_alias(name, v) is not None:
                return "N", f"{v}.size()"
            return (name, name) if self.stable(name, s, until) else None
        if node.type == "binary_expression" and operator(node) in ("+", "-", "*", "/", ">>",
                                                                   "%"):
            left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
            a = self.index(left, s, until) if left is not None else None
            b = self.index(right, s, until) if right is not None else None
            if a is None or b is None:
                return None
            op = operator(node)
            return f"({a[0]}{op}{b[0]})", f"({a[1]} {op} {b[1]})"
        return None

    def stable(self, name: str, s: SortCall, until: int) -> bool:
        """An integer variable declared before the sort, never reached through a pointer or
        reference, that nothing changes from the sort to byte ``until``."""
        f = self.facts
        vt = f.var(name)
        if vt is None or not vt.is_integral or not plain_local(f, name) or \
                not self.mentions.declared_once(name):
            return False
        uses = self.mentions.of(name)
        if vt.scope == "local" and not any(
                u.kind == DECL and u.ident.start_byte < s.statement.start_byte for u in uses):
            return False
        if any(_aliased(u.ident) for u in uses):
            return False
        return name not in f.modified_between(s.statement.start_byte, until)


def _aliased(ident: Node) -> bool:
    """Whether this mention takes the variable's address or binds a reference to it."""
    node = ident
    while node.parent is not None and node.parent.type == "parenthesized_expression":
        node = node.parent
    p = node.parent
    if p is None:
        return False
    if p.type == "pointer_expression" and operator(p) == "&":
        return True
    if p.type == "init_declarator" and p.child_by_field_name("value") == node:
        decl = p.child_by_field_name("declarator")
        return decl is not None and decl.type == "reference_declarator"
    return False
