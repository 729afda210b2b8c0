"""Calls of standard algorithms over a whole container that are loops in disguise:
``std::transform`` with a pure function, integer ``std::accumulate``/``std::reduce`` with
``+``, and ``std::count``/``std::count_if`` with a pure predicate. Each can run as an OpenMP loop
over the container's indices with exactly the serial result (integer sums and counts do not
depend on the order of the additions). libstdc++ runs ``std::execution::par`` on its serial
back end unless TBB is installed and linked, so the loop form is the portable one.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass

import tree_sitter

from perfpilot.code.declarations import VarType
from perfpilot.code.purity import pure_helper, pure_lambda
from perfpilot.code.syntax import (
    LOOP_TYPES,
    node_text,
    unwrap,
    walk,
)

Node = tree_sitter.Node

_CONTAINER = re.compile(r"^(?:std::)?(?:vector|array)\s*<\s*([^<>,]+?)\s*(?:,[^<>]*)?>$")
_INT_LITERAL = re.compile(
    r"^[+-]?(?:0[xX][0-9a-fA-F']+|[0-9][0-9']*)(?:[uU]?[lL]{0,2}|[lL]{1,2}[uU])$")
_KINDS = {"transform": 4, "accumulate": 3, "reduce": (2, 3), "count_if": 3, "count": 3,
          "find_if": 3, "find": 3}


@dataclass(frozen=True)
class AlgorithmCall:
    """One whole-container algorithm call: its kind (``transform``, ``accumulate``,
    ``reduce``, ``count_if``, ``count``, ``find_if``, ``find``), the call's and its statement's
    byte ranges, the container read, the one written (transform), its element type, the
    function or predicate text, the initial value (``""`` for ``reduce`` without one) or the
    value counted or searched for, and the text of the first argument (``x.begin()``)."""

    kind: str
    call: tuple[int, int]
    statement: tuple[int, int]
    source: str
    target: str
    element: str
    functor: str
    init: str
    line: int
    begin: str = ""


def _element(vt: VarType | None) -> str | None:
    if vt is None or vt.pointer or vt.array:
        return None
    m = _CONTAINER.match(re.sub(r"\s+", " ", vt.base.replace("const", "")).strip())
    if m is None or m.group(1).strip() == "bool":
        return None
    return m.group(1).strip()


def whole_range(first: Node, last: Node) -> str | None:
    """``x`` when the arguments are ``x.begin(), x.end()`` (or ``cbegin``/``cend``)."""
    names = []
    for arg, want in ((first, ("begin", "cbegin")), (last, ("end", "cend"))):
        arg = unwrap(arg)
        fn = arg.child_by_field_name("function") if arg.type == "call_expression" else None
        args = arg.child_by_field_name("arguments") if arg.type == "call_expression" else None
        if fn is None or fn.type != "field_expression" or args is None or args.named_children:
            return None
        obj, field = fn.child_by_field_name("argument"), fn.child_by_field_name("field")
        if obj is None or field is None or obj.type != "identifier" or \
                node_text(field) not in want or node_text(fn.child_by_field_name("operator")
                                                         or field) != ".":
            return None
        names.append(node_text(obj))
    return names[0] if names[0] == names[1] else None


def _integral(text: str, types: Mapping[str, VarType | None]) -> bool:
    if _INT_LITERAL.match(text.replace(" ", "")):
        return True
    vt = types.get(text)
    return vt is not None and vt.is_integral and not vt.reference


def _pure_functor(node: Node, unit: Node | None) -> bool:
    node = unwrap(node)
    if node.type == "lambda_expression":
        return pure_lambda(node, unit)
    if node.type in ("identifier", "qualified_identifier"):
        return pure_helper(node_text(node).removeprefix("::"), node, unit)
    return False


def _statement(call: Node, fn: Node) -> Node | None:
    """The statement the call is the whole of, the whole initializer of, the whole right side
    of ``=`` in, or the whole value returned by; None otherwise or when it is in a loop or a
    lambda (a parallel region per iteration costs more than it saves)."""
    up = call.parent
    while up is not None and up.type == "parenthesized_expression":
        up = up.parent
    if up is None:
        return None
    declared = (up.type == "init_declarator" and up.parent is not None
                and up.parent.type == "declaration"
                and unwrap(up.child_by_field_name("value") or up) == call
                and len([c for c in up.parent.named_children
                         if c.type == "init_declarator"]) == 1)
    assigned = (up.type == "assignment_expression" and up.parent is not None
                and node_text(up.child_by_field_name("operator") or up) == "="
                and unwrap(up.child_by_field_name("right") or up) == call
                and up.parent.type == "expression_statement")
    if (up.type == "expression_statement" and unwrap(up.named_children[0]) == call) or \
            up.type == "return_statement":
        stmt = up
    elif (declared or assigned) and up.parent is not None:
        stmt = up.parent
    else:
        return None
    p = stmt.parent
    if p is None or p.type != "compound_statement":
        return None
    while p is not None and p != fn:
        if p.type in LOOP_TYPES or p.type == "lambda_expression":
            return None
        p = p.parent
    return stmt


def algorithm_calls(fn: Node, types: Mapping[str, VarType | None], unit: Node | None,
                    line_base: int = 0) -> Iterator[AlgorithmCall]:
    """The whole-container algorithm calls of a function that can run as parallel loops."""
    for call in walk(fn):
        if call.type != "call_expression":
            continue
        callee = call.child_by_field_name("function")
        args_node = call.child_by_field_name("arguments")
        if callee is None or args_node is None:
            continue
        name = node_text(callee).replace(" ", "")
        if not name.startswith("std::") or name[5:] not in _KINDS:
            continue
        kind = name[5:]
        args = [a for a in args_node.named_children if a.type != "comment"]
        want = _KINDS[kind]
        if len(args) not in (want if isinstance(want, tuple) else (want,)):
            continue
        source = whole_range(args[0], args[1])
        element = _element(types.get(source or ""))
        if source is None or element is None:
            continue
        stmt = _statement(call, fn)
        whole = stmt is not None and stmt.named_children and \
            unwrap(stmt.named_children[0]) == call and stmt.type == "expression_statement"
        if stmt is None or whole != (kind == "transform"):
            continue
        target = functor = init = ""
        if kind == "transform":
            out = unwrap(args[2])
            fn_out = out.child_by_field_name("function") if out.type == "call_expression" \
                else None
            obj = fn_out.child_by_field_name("argument") if fn_out is not None and \
                fn_out.type == "field_expression" else None
            field = fn_out.child_by_field_name("field") if fn_out is not None else None
            if obj is None or obj.type != "identifier" or field is None or \
                    node_text(field) != "begin" or _element(types.get(node_text(obj))) is None:
                continue
            target, functor = node_text(obj), node_text(args[3])
            if not _pure_functor(args[3], unit):
                continue
        elif kind in ("accumulate", "reduce"):
            if not VarType(base=element).is_integral:
                continue
            init = node_text(args[2]) if len(args) == 3 else ""
            if init and not _integral(init, types):
                continue
        elif kind in ("count_if", "find_if"):
            functor = node_text(args[2])
            if not _pure_functor(args[2], unit):
                continue
        else:  # count, find: the value compared must not change (a literal or a variable)
            value = unwrap(args[2])
            if value.type not in ("identifier", "number_literal", "char_literal"):
                continue
            init = node_text(value)
        yield AlgorithmCall(kind, (call.start_byte, call.end_byte),
                            (stmt.start_byte, stmt.end_byte), source, target, element, functor,
                            init, call.start_point[0] + line_base + 1, node_text(args[0]))
