"""Prefix sums (scans): a counted loop whose body is ``s += e;`` and ``out[i] = s;`` (in either
order: inclusive or exclusive) over integers. A two-pass scan over blocks of the range gives
exactly the serial result, since integer addition (wrapping alike) is associative: the first
pass sums each block, the block offsets follow serially, the second pass redoes each block from
its offset.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass

import tree_sitter

from perfpilot.code.declarations import VarType
from perfpilot.code.dependence import counter_type
from perfpilot.code.syntax import (
    node_text,
    statements,
    unwrap,
    walk,
)

Node = tree_sitter.Node

_CONTAINER = re.compile(r"^(?:std::)?(?:vector|array)\s*<\s*([^<>,]+?)\s*(?:,[^<>]*)?>$")
_INT_LITERAL = re.compile(r"^(?:0[xX][0-9a-fA-F']+|[0-9][0-9']*)[uUlL]*$")
_INT_OPS = frozenset({"+", "-", "*", "&", "|", "^", "<<", ">>"})


@dataclass(frozen=True)
class Scan:
    """A scan loop: the accumulator and its type, the induction variable and its type, the
    array written, the added expression's byte range, the accumulator's byte ranges in the
    body, and the header's bounds (``<=`` when ``inclusive_bound``)."""

    acc: str
    acc_type: str
    var: str
    var_type: str
    out: str
    term: tuple[int, int]
    acc_uses: tuple[tuple[int, int], ...]
    lower: str
    upper: str
    inclusive_bound: bool


def _int_elements(vt: VarType | None) -> bool:
    if vt is None:
        return False
    base = re.sub(r"\s+", " ", vt.base.replace("const", "")).strip()
    if vt.pointer == 1 or vt.array:
        return VarType(base=base).is_integral
    m = _CONTAINER.match(base)
    return m is not None and not vt.pointer and VarType(base=m.group(1).strip()).is_integral


def _integer_term(node: Node, var: str, types: Mapping[str, VarType | None],
                  banned: set[str]) -> bool:
    """An integer expression of integer variables, literals and elements, with no effect."""
    node = unwrap(node)
    t = node.type
    if t == "number_literal":
        return bool(_INT_LITERAL.match(node_text(node)))
    if t == "identifier":
        name = node_text(node)
        vt = types.get(name)
        return name not in banned and (name == var or (vt is not None and vt.is_integral))
    if t == "subscript_expression":
        base = node.child_by_field_name("argument")
        idx = node.child_by_field_name("index") or node.child_by_field_name("indices")
        if base is None or idx is None or base.type != "identifier" or \
                node_text(base) in banned or not _int_elements(types.get(node_text(base))):
            return False
        inner = [c for c in idx.named_children] if idx.type == "subscript_argument_list" \
            else [idx]
        return len(inner) == 1 and _integer_term(inner[0], var, types, banned)
    if t == "binary_expression":
        op = node.child_by_field_name("operator")
        left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
        return op is not None and node_text(op) in _INT_OPS and left is not None and \
            right is not None and _integer_term(left, var, types, banned) and \
            _integer_term(right, var, types, banned)
    if t == "cast_expression":
        ty = node.child_by_field_name("type")
        value = node.child_by_field_name("value")
        return ty is not None and value is not None and \
            VarType(base=node_text(ty)).is_integral and _integer_term(value, var, types, banned)
    if t == "unary_expression":
        op = node.child_by_field_name("operator")
        arg = node.child_by_field_name("argument")
        return op is not None and node_text(op) in ("-", "+", "~") and arg is not None and \
            _integer_term(arg, var, types, banned)
    return False


def scan(loop: Node, var: str, step: int | None, cond_op: str | None, lower: str | None,
         upper: str | None, declared: bool, types: Mapping[str, VarType | None]) -> Scan | str:
    """The loop as an integer scan, or why it is not one."""
    if step != 1 or cond_op not in ("<", "<=") or lower is None or upper is None:
        return "not a loop counting up by one"
    body = loop.child_by_field_name("body")
    stmts = statements(body)
    if body is None or len(stmts) != 2 or any(s.type != "expression_statement" or
                                               s.named_child_count != 1 for s in stmts):
        return "the body is not two expression statements"
    exprs = [unwrap(s.named_children[0]) for s in stmts]
    adds = [e for e in exprs if e.type == "assignment_expression" and
            node_text(e.child_by_field_name("operator") or e) == "+="]
    stores = [e for e in exprs if e.type == "assignment_expression" and
              node_text(e.child_by_field_name("operator") or e) == "="]
    if len(adds) != 1 or len(stores) != 1:
        return "not 's += e' and 'out[i] = s'"
    add, store = adds[0], stores[0]
    acc_node = unwrap(add.child_by_field_name("left") or add)
    term = add.child_by_field_name("right")
    target = unwrap(store.child_by_field_name("left") or store)
    value = unwrap(store.child_by_field_name("right") or store)
    if acc_node.type != "identifier" or term is None or target.type != "subscript_expression" \
            or value.type != "identifier" or node_text(value) != node_text(acc_node):
        return "not 's += e' and 'out[i] = s'"
    acc = node_text(acc_node)
    acc_vt = types.get(acc)
    if acc_vt is None or not acc_vt.is_integral or acc_vt.reference:
        return f"'{acc}' is not a plain integer variable"
    out_node = target.child_by_field_name("argument")
    idx = target.child_by_field_name("index") or target.child_by_field_name("indices")
    if out_node is None or out_node.type != "identifier" or idx is None or \
            node_text(idx).strip("[] ") != var:
        return "the sum is not stored at the loop index"
    out = node_text(out_node)
    vt_out = types.get(out)
    if vt_out is None or not vt_out.is_indexable:
        return f"cannot tell that '{out}' has distinct elements"
    # an in-place scan may read its own element before the sum is stored there
    banned = {acc} if add == exprs[0] else {acc, out}
    if out not in banned and any(
            (p := o.parent) is None or p.type != "subscript_expression" or
            node_text(p) != node_text(target) for o in walk(term)
            if o.type == "identifier" and node_text(o) == out):
        return f"'{out}' is read at another index"
    if not _integer_term(term, var, types, banned):
        return "the added value is not an integer expression without effects"
    # the output's elements change, its size does not
    cond = loop.child_by_field_name("condition")
    bound_text = re.sub(rf"\b{re.escape(out)}\s*\.\s*(?:size|length)\s*\(\s*\)", "",
                        f"{node_text(cond) if cond is not None else ''} {lower}")
    if {acc, out} & set(re.findall(r"\w+", bound_text)):
        return "the bounds depend on the sum"
    var_type, why = counter_type(loop, var, declared, types)
    if why:
        return why
    uses = tuple((n.start_byte, n.end_byte) for n in walk(body)
                 if n.type == "identifier" and node_text(n) == acc)
    return Scan(acc, acc_vt.base, var, var_type, out, (term.start_byte, term.end_byte), uses,
                lower, upper, cond_op == "<=")
