"""Minimum and maximum updates written as comparisons, and arg-min/arg-max pairs.

``if (x < m) m = x;`` and ``m = x < m ? x : m;`` keep the minimum in ``m`` just as
``m = std::min(m, x)`` does, so a loop doing only that to ``m`` is a ``min`` reduction. An
update that also records where the extreme was (``if (x < m) { m = x; k = i; }``) is an
arg-min: the pair needs a combine that keeps the serial tie-breaking (``<`` keeps the first
position among equal values, ``<=`` the last), which ``ArgReduction`` describes.
"""

from __future__ import annotations

from dataclasses import dataclass

import tree_sitter

from perfpilot.code.syntax import (
    identifiers,
    node_text,
    unwrap,
    walk,
)

Node = tree_sitter.Node

_FLIP = {"<": ">", "<=": ">=", ">": "<", ">=": "<="}


@dataclass(frozen=True)
class ArgReduction:
    """``if (value_expr OP var) { var = value_expr; payload... }``: ``var`` keeps the ``op``
    (``min`` or ``max``) of the values and each payload variable what was assigned with it.
    ``strict`` (``<``/``>``): among equal values the first in iteration order is kept;
    otherwise the last. ``start_byte``/``end_byte`` span the ``if`` statement."""

    op: str
    var: str
    payload: tuple[tuple[str, str], ...]  # (variable, the expression assigned to it)
    strict: bool
    start_byte: int
    end_byte: int


def _compare(cond: Node, var: str) -> tuple[str, Node] | None:
    """``(op, other)`` when ``cond`` is ``other OP var`` or ``var OP other`` with ``other``
    free of ``var``, normalized so that it reads ``other OP var``."""
    cond = unwrap(cond)
    if cond.type != "binary_expression":
        return None
    left, right = cond.child_by_field_name("left"), cond.child_by_field_name("right")
    op_node = cond.child_by_field_name("operator")
    if left is None or right is None or op_node is None:
        return None
    op = node_text(op_node)
    if op not in _FLIP:
        return None
    left, right = unwrap(left), unwrap(right)
    if node_text(right) == var and var not in identifiers(left):
        return op, left
    if node_text(left) == var and var not in identifiers(right):
        return _FLIP[op], right
    return None


def _kind(op: str) -> str:
    """``min`` when ``other OP var`` being true means ``other`` is the smaller."""
    return "min" if op in ("<", "<=") else "max"


def ternary_op(right: Node, var: str) -> str | None:
    """``min``/``max`` when ``right`` (the value assigned to ``var``) is ``c ? a : b`` choosing
    between ``var`` and the other side of a comparison ``c`` of the two."""
    right = unwrap(right)
    if right.type != "conditional_expression":
        return None
    cond = right.child_by_field_name("condition")
    yes, no = right.child_by_field_name("consequence"), right.child_by_field_name("alternative")
    if cond is None or yes is None or no is None:
        return None
    cmp = _compare(cond, var)
    if cmp is None:
        return None
    op, other = cmp
    yes_t, no_t, other_t = node_text(unwrap(yes)), node_text(unwrap(no)), node_text(other)
    if yes_t == other_t and no_t == var:
        return _kind(op)
    if yes_t == var and no_t == other_t:
        return "max" if _kind(op) == "min" else "min"
    return None


def _if_parts(stmt: Node) -> tuple[Node, list[Node]] | None:
    """The condition and the assignment expressions of ``if (c) { a = x; b = y; }`` (no else,
    nothing but plain ``=`` assignments in the branch)."""
    if stmt.type != "if_statement" or stmt.child_by_field_name("alternative") is not None:
        return None
    clause = stmt.child_by_field_name("condition")
    cons = stmt.child_by_field_name("consequence")
    cond = clause.child_by_field_name("value") if clause is not None else None
    if cond is None or cons is None:
        return None
    stmts = [c for c in cons.named_children if c.type != "comment"] \
        if cons.type == "compound_statement" else [cons]
    out: list[Node] = []
    for s in stmts:
        if s.type != "expression_statement" or s.named_child_count != 1:
            return None
        e = s.named_children[0]
        op = e.child_by_field_name("operator") if e is not None else None
        if e is None or e.type != "assignment_expression" or op is None or \
                node_text(op) != "=":
            return None
        out.append(e)
    return cond, out


def guarded_update(stmt: Node) -> tuple[str, str, list[tuple[str, Node]], bool] | None:
    """For ``if (x OP m) { m = x; p = e; ... }``: ``(op, m, [(p, e), ...], strict)``, where
    ``op`` is ``min`` or ``max``; None for any other statement."""
    parts = _if_parts(stmt)
    if parts is None:
        return None
    cond, assigns = parts
    targets = [node_text(unwrap(a.child_by_field_name("left") or a)) for a in assigns]
    if len(set(targets)) != len(targets):
        return None
    for a, var in zip(assigns, targets, strict=True):
        cmp = _compare(cond, var)
        right = a.child_by_field_name("right")
        if cmp is None or right is None or node_text(unwrap(right)) != node_text(cmp[1]):
            continue
        op, _other = cmp
        payload = [(t, r) for b, t in zip(assigns, targets, strict=True) if b is not a
                   and (r := b.child_by_field_name("right")) is not None]
        if any(not t.isidentifier() for t, _ in payload) or not var.isidentifier():
            return None
        names = set(targets)
        if any(identifiers(r) & names for _, r in payload):
            return None
        return _kind(op), var, payload, op in ("<", ">")
    return None


def guarded_op(occurrence: Node, stop: Node, var: str) -> str | None:
    """``min``/``max`` when ``occurrence`` (of ``var``) is part of an ``if (x < var) var = x;``
    with no other assignment in the branch."""
    cur: Node | None = occurrence
    while cur is not None and cur != stop:
        if cur.type == "if_statement":
            found = guarded_update(cur)
            if found is None or found[1] != var or found[2]:
                return None
            return found[0]
        cur = cur.parent
    return None


def arg_reductions(body: Node, induction: str) -> tuple[ArgReduction, ...]:
    """The arg-min/arg-max updates of a loop body: each ``if`` whose branch assigns the
    extreme and payload variables, when those variables appear nowhere else in ``body``, the
    compared value reads none of them, and the payloads read no variable the body writes but
    ``induction`` (so each records something about its own iteration)."""
    out: list[ArgReduction] = []
    for n in walk(body):
        found = guarded_update(n) if n.type == "if_statement" else None
        if found is None or not found[2]:
            continue
        op, var, payload, strict = found
        names = {var, *(p for p, _ in payload)}
        outside = [o for o in walk(body) if o.type == "identifier" and node_text(o) in names
                   and not (n.start_byte <= o.start_byte < n.end_byte)]
        if outside:
            continue
        out.append(ArgReduction(op, var, tuple((p, node_text(r)) for p, r in payload), strict,
                                n.start_byte, n.end_byte))
    return tuple(out)
