"""``for`` headers: the one reader of ``var = start; var CMP bound; var += step``.

``read_header`` reads any ``for`` header as far as it has that shape (the fact model's ``Loop``
takes its variable, start, bound, comparison and step from it); ``counted_header`` is the strict
view the loop analysis proves things with: one integer variable, a comparison with a bound that
does not depend on it, a constant step in the direction of the comparison.
"""

from __future__ import annotations

from dataclasses import dataclass

import tree_sitter

from perfpilot.code.declarations import VarType
from perfpilot.code.syntax import (
    declarator_name,
    identifiers_of,
    int_literal,
    node_text,
    operator,
    unwrap,
)

Node = tree_sitter.Node

# A comparison read with its two sides swapped.
_FLIP = {"<": ">", "<=": ">=", ">": "<", ">=": "<=", "!=": "!="}


@dataclass(frozen=True)
class ForHeader:
    """What a ``for`` header says of its loop variable, as far as it has the counted shape.

    ``var`` comes from the initializer (the first variable it declares or the one it assigns),
    else from the left side of the condition; ``compare`` is the comparison with ``var`` on the
    left (``bound`` on the right; ``flipped`` when the source spells it the other way round).
    ``step`` is the constant amount the update adds to ``var``; ``step_text`` is ``++``/``--``
    for a unit step spelled ``++``, ``--``, ``+= 1`` or ``-= 1``, else the update's operator and
    operand (``+=2``, ``=i + 1``), '' when the update does not assign ``var``.
    """

    initializer: Node | None
    condition: Node | None
    update: Node | None
    var: str | None
    init: Node | None
    declared: bool
    # The initializer is ``T var = start`` (one plain variable) or ``var = start``.
    plain_init: bool
    type_node: Node | None
    comparison: bool
    bound: Node | None
    compare: str
    flipped: bool
    step: int | None
    step_text: str


@dataclass(frozen=True)
class CountedHeader:
    var: str
    lower: str
    upper: str
    op: str
    step: int
    declared: bool
    var_type: VarType | None


def _read_init(init: Node | None) -> tuple[str | None, Node | None, bool, Node | None]:
    """``(var, start, plain, type)`` of a ``for`` initializer."""
    if init is None:
        return None, None, False, None
    if init.type == "declaration":
        decls = init.children_by_field_name("declarator")
        first = next((d for d in decls if d.type == "init_declarator"), None)
        if first is None:
            return None, None, False, None
        name = first.child_by_field_name("declarator")
        value = first.child_by_field_name("value")
        plain = len(decls) == 1 and name is not None and name.type == "identifier" and \
            value is not None
        return declarator_name(name), value, plain, init.child_by_field_name("type")
    if init.type == "assignment_expression" and operator(init) == "=":
        left = init.child_by_field_name("left")
        if left is not None and left.type == "identifier":
            right = init.child_by_field_name("right")
            return node_text(left), right, right is not None, None
    if init.type == "comma_expression":
        var, value, _, _ = _read_init(init.child_by_field_name("left"))
        return var, value, False, None
    return None, None, False, None


def _read_step(update: Node | None, var: str | None) -> tuple[int | None, str]:
    """``(step, step_text)`` of a ``for`` update (see ``ForHeader``)."""
    if update is None or var is None:
        return None, ""
    if update.type == "update_expression":
        if node_text(update.child_by_field_name("argument")) != var:
            return None, ""
        return (1, "++") if "++" in node_text(update) else (-1, "--")
    if update.type not in ("assignment_expression", "compound_assignment_expression") or \
            node_text(update.child_by_field_name("left")) != var:
        return None, ""
    op = operator(update)
    right = update.child_by_field_name("right")
    rtext = node_text(right)
    step: int | None = None
    if op in ("+=", "-=") and right is not None and right.type == "number_literal":
        k = int_literal(right)
        if k is not None and k > 0:
            step = k if op == "+=" else -k
    elif op == "=" and right is not None and unwrap(right).type == "binary_expression":
        b = unwrap(right)
        bl, br = b.child_by_field_name("left"), b.child_by_field_name("right")
        bo = b.child_by_field_name("operator")
        if bl is not None and br is not None and bo is not None and \
                node_text(bl) == var and br.type == "number_literal":
            k = int_literal(br)
            if k is not None and k > 0 and node_text(bo) in ("+", "-"):
                step = k if node_text(bo) == "+" else -k
    if op in ("+=", "-=") and rtext == "1":
        return step, "++" if op == "+=" else "--"
    return step, op + rtext


def read_header(node: Node) -> ForHeader:
    """The header of a ``for`` statement read as ``var = start; var CMP bound; var += step``,
    as far as it has that shape (see ``ForHeader``)."""
    initializer = node.child_by_field_name("initializer")
    cond = node.child_by_field_name("condition")
    update = node.child_by_field_name("update")
    var, start, plain, type_node = _read_init(initializer)
    declared = initializer is not None and initializer.type == "declaration"
    comparison = False
    bound: Node | None = None
    compare = ""
    flipped = False
    test = unwrap(cond)
    if test is not None and test.type == "binary_expression":
        op = operator(test)
        left, right = test.child_by_field_name("left"), test.child_by_field_name("right")
        if op in _FLIP and left is not None and right is not None:
            comparison = True
            if var is None and left.type == "identifier":
                var = node_text(left)
            if node_text(unwrap(left)) == var:
                bound, compare = right, op
            elif node_text(unwrap(right)) == var:
                bound, compare, flipped = left, _FLIP[op], True
    step, step_text = _read_step(unwrap(update), var)
    return ForHeader(initializer, cond, update, var, start, declared, plain, type_node,
                     comparison, bound, compare, flipped, step, step_text)


def counted_header(node: Node, types: dict[str, VarType | None]) -> CountedHeader | str:
    """Parse a canonical counted ``for`` header, or return why it is not one."""
    h = read_header(node)
    if h.initializer is None or h.condition is None or h.update is None:
        return "the loop header is not a counted loop (missing init, condition or update)"
    var, start = h.var, h.init
    if not h.plain_init or var is None or start is None:
        return "the loop initializer is not 'i = start'"
    if h.declared:
        base = node_text(h.type_node)
        if base == "auto" and start.type == "number_literal" and int_literal(start) is not None:
            base = "int"
        var_type: VarType | None = VarType(base)
    else:
        var_type = types.get(var)
    if var_type is None or not var_type.is_integral:
        return f"the induction variable '{var}' is not of a known integer type"
    if not h.comparison:
        return "the loop condition is not a comparison"
    if h.bound is None:
        return f"the loop condition does not compare '{var}'"
    if var in identifiers_of(h.bound):
        return "the loop bound depends on the induction variable"
    step, cmp = h.step, h.compare
    if step is None:
        return f"the loop update is not a constant step of '{var}'"
    if (step > 0 and cmp not in ("<", "<=", "!=")) or \
            (step < 0 and cmp not in (">", ">=", "!=")):
        return "the loop condition does not match the direction of the step"
    if cmp == "!=" and abs(step) != 1:
        return "a '!=' condition with a step other than 1"
    return CountedHeader(var, " ".join(node_text(start).split()),
                         " ".join(node_text(h.bound).split()), cmp, step, h.declared, var_type)
