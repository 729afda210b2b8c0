"""Counted ``for`` headers: the induction variable, its bounds, its step, when all are canonical."""

from __future__ import annotations

from dataclasses import dataclass

import tree_sitter

from perfpilot.code.declarations import VarType
from perfpilot.code.syntax import (
    identifiers_of,
    int_literal,
    node_text,
    unwrap,
)

Node = tree_sitter.Node


@dataclass(frozen=True)
class CountedHeader:
    var: str
    lower: str
    upper: str
    op: str
    step: int
    declared: bool
    var_type: VarType | None


def counted_header(node: Node, types: dict[str, VarType | None]) -> CountedHeader | str:
    """Parse a canonical counted ``for`` header, or return why it is not one."""
    init = node.child_by_field_name("initializer")
    cond = node.child_by_field_name("condition")
    update = node.child_by_field_name("update")
    if init is None or cond is None or update is None:
        return "the loop header is not a counted loop (missing init, condition or update)"
    var: str | None = None
    lower: str | None = None
    declared = False
    var_type: VarType | None = None
    if init.type == "declaration":
        decls = [c for i, c in enumerate(init.children)
                 if init.field_name_for_child(i) == "declarator"]
        type_node = init.child_by_field_name("type")
        if len(decls) == 1 and decls[0].type == "init_declarator":
            name = decls[0].child_by_field_name("declarator")
            value = decls[0].child_by_field_name("value")
            if name is not None and name.type == "identifier" and value is not None:
                var, lower, declared = node_text(name), node_text(value), True
                base = node_text(type_node) if type_node is not None else ""
                if base == "auto" and value.type == "number_literal" and \
                        int_literal(value) is not None:
                    base = "int"
                var_type = VarType(base)
    elif init.type == "assignment_expression":
        left = init.child_by_field_name("left")
        right = init.child_by_field_name("right")
        op = init.child_by_field_name("operator")
        if left is not None and left.type == "identifier" and right is not None and \
                op is not None and node_text(op) == "=":
            var, lower = node_text(left), node_text(right)
            var_type = types.get(var)
    if var is None or lower is None:
        return "the loop initializer is not 'i = start'"
    if var_type is None or not var_type.is_integral:
        return f"the induction variable '{var}' is not of a known integer type"
    cond = unwrap(cond)
    if cond.type != "binary_expression":
        return "the loop condition is not a comparison"
    left = cond.child_by_field_name("left")
    right = cond.child_by_field_name("right")
    op_node = cond.child_by_field_name("operator")
    if left is None or right is None or op_node is None:
        return "the loop condition is not a comparison"
    cmp = node_text(op_node)
    flip = {"<": ">", "<=": ">=", ">": "<", ">=": "<=", "!=": "!="}
    if cmp not in flip:
        return "the loop condition is not a comparison"
    if node_text(unwrap(left)) == var:
        upper_node = right
    elif node_text(unwrap(right)) == var:
        upper_node, cmp = left, flip[cmp]
    else:
        return f"the loop condition does not compare '{var}'"
    if var in identifiers_of(upper_node):
        return "the loop bound depends on the induction variable"
    step: int | None = None
    update = unwrap(update)
    if update.type == "update_expression":
        arg = update.child_by_field_name("argument")
        uop = update.child_by_field_name("operator")
        if arg is not None and node_text(arg) == var and uop is not None:
            step = 1 if node_text(uop) == "++" else -1
    elif update.type == "assignment_expression":
        uleft = update.child_by_field_name("left")
        uright = update.child_by_field_name("right")
        uop = update.child_by_field_name("operator")
        if uleft is not None and node_text(uleft) == var and uright is not None and \
                uop is not None:
            o = node_text(uop)
            if o in ("+=", "-=") and uright.type == "number_literal":
                k = int_literal(uright)
                if k is not None and k > 0:
                    step = k if o == "+=" else -k
            elif o == "=" and unwrap(uright).type == "binary_expression":
                b = unwrap(uright)
                bl, br = b.child_by_field_name("left"), b.child_by_field_name("right")
                bo = b.child_by_field_name("operator")
                if bl is not None and br is not None and bo is not None and \
                        node_text(bl) == var and br.type == "number_literal":
                    k = int_literal(br)
                    if k is not None and k > 0 and node_text(bo) in ("+", "-"):
                        step = k if node_text(bo) == "+" else -k
    if step is None:
        return f"the loop update is not a constant step of '{var}'"
    if (step > 0 and cmp not in ("<", "<=", "!=")) or \
            (step < 0 and cmp not in (">", ">=", "!=")):
        return "the loop condition does not match the direction of the step"
    if cmp == "!=" and abs(step) != 1:
        return "a '!=' condition with a step other than 1"
    return CountedHeader(var, " ".join(lower.split()), " ".join(node_text(upper_node).split()), cmp,
                   step, declared, var_type)
