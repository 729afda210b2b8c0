"""What the ``if`` tests around a statement establish where it runs.

``if (A && B) { s }`` runs ``s`` only where ``A`` and ``B`` held when tested, and
``if (C) ... else { s }`` only where ``C`` failed. A rule that would guard ``s`` with one of
those tests again can leave it out, or know the guard fails. The tests are facts at the moment
they ran: ``held`` suits tests whose value nothing can change (the addresses of named objects,
``&a != &b``), ``held_now`` any test, since nothing runs between it and ``s``. A test naming
something the branch declares again (a shadowing local) says nothing about that new name, and
is not reported.
"""

from __future__ import annotations

from dataclasses import dataclass

from perfpilot.code.syntax import (
    Node,
    declarator_name,
    identifiers,
    node_text,
    unwrap,
    walk,
)

_SCOPE_ENDS = frozenset({"function_definition", "lambda_expression"})


@dataclass(frozen=True)
class EnclosingTests:
    """Tests, written as ``compact`` writes them, that held (``held``: each conjunct of a
    taken ``if``; ``held_now``: those of the ``if`` statements the statement runs right after)
    or failed (``refuted``: a whole condition whose ``else`` was taken) where a statement
    runs."""

    held: frozenset[str] = frozenset()
    held_now: frozenset[str] = frozenset()
    refuted: frozenset[str] = frozenset()


def compact(test: str) -> str:
    """A test's text without spaces and without parentheses around the whole."""
    out = "".join(test.split())
    while out.startswith("(") and _closing(out) == len(out) - 1:
        out = out[1:-1]
    return out


def _closing(s: str) -> int:
    depth = 0
    for i, ch in enumerate(s):
        depth += {"(": 1, ")": -1}.get(ch, 0)
        if depth == 0:
            return i
    return -1


def enclosing_tests(node: Node) -> EnclosingTests:
    """The tests of the ``if`` statements around ``node`` in its function (see the module)."""
    held: set[str] = set()
    held_now: set[str] = set()
    refuted: set[str] = set()
    child = node
    parent = node.parent
    now = True  # nothing ran between the tests met so far and ``node``
    while parent is not None and child.type not in _SCOPE_ENDS:
        if parent.type == "compound_statement":
            first = next((c for c in parent.named_children if c.type != "comment"), None)
            now = now and first is not None and first.start_byte == child.start_byte
        elif parent.type not in ("if_statement", "else_clause"):
            now = False
        if parent.type == "if_statement":
            cond = parent.child_by_field_name("condition")
            branch = child
            expr = _condition_expression(cond)
            if expr is not None:
                declared = _declared_in(branch)
                if _is_field(parent, "consequence", branch):
                    tested = {compact(node_text(c)) for c in _conjuncts(expr)
                              if not identifiers(c) & declared}
                    held |= tested
                    held_now |= tested if now else set()
                elif _is_field(parent, "alternative", branch) and \
                        not identifiers(expr) & declared:
                    refuted.add(compact(node_text(expr)))
        child, parent = parent, parent.parent
    return EnclosingTests(frozenset(held), frozenset(held_now), frozenset(refuted))


def _condition_expression(cond: Node | None) -> Node | None:
    """The tested expression of ``if (expr)``; None for ``if (init; expr)`` or a declaration,
    whose names live only in the statement."""
    if cond is None:
        return None
    if cond.type == "condition_clause":
        named = cond.named_children
        if len(named) != 1 or named[0].type in ("declaration", "init_statement"):
            return None
        return unwrap(named[0])
    return unwrap(cond)


def _conjuncts(expr: Node) -> list[Node]:
    expr = unwrap(expr)
    if expr.type == "binary_expression":
        op = expr.child_by_field_name("operator")
        left, right = expr.child_by_field_name("left"), expr.child_by_field_name("right")
        if op is not None and op.type in ("&&", "and") and left is not None and \
                right is not None:
            return _conjuncts(left) + _conjuncts(right)
    return [expr]


def _is_field(parent: Node, field: str, child: Node) -> bool:
    got = parent.child_by_field_name(field)
    return got is not None and got.start_byte == child.start_byte and \
        got.end_byte == child.end_byte and got.type == child.type


def _declared_in(branch: Node) -> set[str]:
    names: set[str] = set()
    for n in walk(branch, named=True):
        if n.type in ("declaration", "parameter_declaration", "for_range_loop",
                      "init_declarator"):
            for decl in n.children_by_field_name("declarator"):
                name = declarator_name(decl)
                # A structured binding (or anything else unnamed here): all its names.
                names |= {name} if name else identifiers(decl)
    return names
