"""Small expression helpers of the loop analysis: names read, subscripts, callees, targets."""

from __future__ import annotations

import tree_sitter

from perfpilot.code.parse import (
    LOOP_TYPES,
    node_text,
    unparen,
    walk_all,
)

Node = tree_sitter.Node


def identifiers_of(node: Node) -> set[str]:
    """Variable names referenced in an expression (not field names, not callee names)."""
    out: set[str] = set()
    for n in walk_all(node):
        if n.type == "identifier":
            parent = n.parent
            if parent is not None and parent.type == "call_expression" and \
                    parent.child_by_field_name("function") == n:
                continue
            if parent is not None and parent.type == "qualified_identifier":
                continue
            out.add(node_text(n))
    return out


def subscript_parts(node: Node) -> tuple[Node, list[str]]:
    """For ``a[i][j]`` the base node ``a`` and the index texts ``["i", "j"]``."""
    indices: list[str] = []
    while node.type == "subscript_expression":
        idx = node.child_by_field_name("index")
        if idx is None:
            lst = node.child_by_field_name("indices")
            idx_text = ",".join(node_text(c) for c in lst.named_children) if lst else ""
        else:
            idx_text = node_text(idx)
        indices.append(" ".join(idx_text.split()))
        arg = node.child_by_field_name("argument")
        if arg is None:
            break
        node = unparen(arg)
    return node, list(reversed(indices))


def root_name_of(node: Node) -> str | None:
    """The variable at the root of an lvalue: ``x`` for ``x``, ``x.y``, ``x[i]``, ``*x``."""
    node = unparen(node)
    while True:
        if node.type == "identifier":
            return node_text(node)
        if node.type == "this":
            return "this"
        if node.type in ("subscript_expression", "field_expression", "pointer_expression"):
            arg = node.child_by_field_name("argument")
            if arg is None:
                return None
            node = unparen(arg)
            continue
        return None


def callee_parts(call: Node) -> tuple[str, str | None, str | None]:
    """(callee text, object text, method name) of a call expression."""
    fn = call.child_by_field_name("function")
    if fn is None:
        return "", None, None
    text = node_text(fn)
    if fn.type == "field_expression":
        obj = fn.child_by_field_name("argument")
        field = fn.child_by_field_name("field")
        return text, node_text(obj) if obj else None, node_text(field) if field else None
    if fn.type == "template_function":
        name = fn.child_by_field_name("name")
        return node_text(name) if name else text, None, None
    return text, None, None


def plain_callee(callee: str) -> str:
    return callee.removeprefix("std::").removeprefix("::")


def enclosing_function(node: Node) -> Node:
    top = node
    while top.parent is not None:
        top = top.parent
        if top.type in ("function_definition", "lambda_expression"):
            return top
    return top


def nearest_target(node: Node) -> Node | None:
    """The loop or switch that a ``break`` inside ``node``'s subtree binds to."""
    parent = node.parent
    while parent is not None:
        if parent.type in LOOP_TYPES or parent.type == "switch_statement":
            return parent
        parent = parent.parent
    return None
