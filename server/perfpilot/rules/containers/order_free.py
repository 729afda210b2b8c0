"""Whether a loop over a container folds its elements in a way no visiting order can change.

Used where a rewrite changes the order a container is iterated in (an ordered map made a hash
table, a hash table made an array): every statement of the loop must fold integer values into
integer accumulators with a commutative operation (``+=``, ``-=``, ``|=``, ``&=``, ``^=``,
``++``, ``--``, ``std::max``/``std::min``, ``if (e > m) m = e``), read no accumulator
otherwise, and not touch the container itself.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from perfpilot.code.declarations import VarType
from perfpilot.code.syntax import (
    Node,
    arguments,
    callee,
    node_text,
    operator,
    unwrap,
    walk,
)

_FOLD_OPS = frozenset({"+=", "-=", "|=", "&=", "^="})


def order_free_fold(loop: Node, container: str, types: Mapping[str, VarType | None]) -> bool:
    """Every statement of ``loop``'s body folds integer values into integer accumulators (of
    ``types``, not references) with a commutative operation, reading no accumulator and not
    ``container`` otherwise: any visiting order gives the same results."""
    body = loop.child_by_field_name("body")
    if body is None:
        return False
    accs: set[str] = set()
    for n in walk(body):
        if n.type in ("assignment_expression", "compound_assignment_expression"):
            left = n.child_by_field_name("left")
            accs.add(node_text(left) if left is not None else "")
        elif n.type == "update_expression":
            arg = n.child_by_field_name("argument")
            accs.add(node_text(arg) if arg is not None else "")
    kinds: dict[str, set[str]] = {}
    for n in walk(body):
        if n.type in ("assignment_expression", "compound_assignment_expression"):
            op = operator(n)
            right = n.child_by_field_name("right")
            if op == "=" and right is not None and right.type == "call_expression":
                op = callee(right)
            elif op == "=" and n.parent is not None:
                op = "extremum"
            kinds.setdefault(node_text(n.child_by_field_name("left") or n), set()).add(op)
        elif n.type == "update_expression":
            kinds.setdefault(node_text(n.child_by_field_name("argument") or n), set()).add(
                "++" if "++" in node_text(n) else "--")
    if any(len(k - {"++", "+=", "--", "-="}) > 0 and len(k) > 1 for k in kinds.values()):
        return False  # one accumulator folded two ways (a sum then a max) depends on order
    for a in accs:
        vt = types.get(a)
        if vt is None or not vt.is_integral or vt.reference:
            return False

    def pure(e: Node | None) -> bool:  # reads no accumulator and changes nothing
        return e is not None and not any(
            (n.type == "identifier" and node_text(n) in (*accs, container)) or n.type in (
                "assignment_expression", "compound_assignment_expression",
                "update_expression") or (n.type == "call_expression" and
                                         callee(n) not in ("max", "min"))
            for n in walk(e))

    def fold(st: Node) -> bool:
        if st.type == "compound_statement":
            return all(fold(c) for c in st.named_children if c.type != "comment")
        if st.type == "if_statement":
            cond = unwrap(st.child_by_field_name("condition"))
            then = st.child_by_field_name("consequence")
            if st.child_by_field_name("alternative") is not None or cond is None or \
                    then is None:
                return False
            return (pure(cond) and fold(then)) or _extremum(cond, then, pure)
        if st.type != "expression_statement" or st.named_child_count != 1:
            return False
        e = st.named_children[0]
        if e.type == "update_expression":
            return True
        if e.type in ("assignment_expression", "compound_assignment_expression") and \
                operator(e) != "=":
            return operator(e) in _FOLD_OPS and pure(e.child_by_field_name("right"))
        if e.type == "assignment_expression":
            left, right = e.child_by_field_name("left"), e.child_by_field_name("right")
            if left is None or right is None or right.type != "call_expression" or \
                    callee(right) not in ("max", "min"):
                return False
            args = arguments(right)
            return len(args) == 2 and sorted(
                [node_text(args[0]) == node_text(left), node_text(args[1]) == node_text(left)]
            ) == [False, True] and all(pure(a) for a in args if node_text(a) != node_text(left))
        return False

    return fold(body)


def _extremum(cond: Node, then: Node, pure: Callable[[Node | None], bool]) -> bool:
    """``if (e > m) m = e;`` (or ``<``, either side): a max or min of values, tie-free."""
    if then.type == "compound_statement":
        kids = [c for c in then.named_children if c.type != "comment"]
        if len(kids) != 1:
            return False
        then = kids[0]
    if then.type != "expression_statement" or then.named_child_count != 1:
        return False
    a = then.named_children[0]
    if a.type != "assignment_expression" or operator(a) != "=" or \
            cond.type != "binary_expression" or operator(cond) not in ("<", ">", "<=", ">="):
        return False
    acc, val = node_text(a.child_by_field_name("left")), a.child_by_field_name("right")
    sides = {node_text(cond.child_by_field_name("left")),
             node_text(cond.child_by_field_name("right"))}
    return val is not None and sides == {acc, node_text(val)} and pure(val)
