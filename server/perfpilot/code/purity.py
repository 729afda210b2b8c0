"""Whether a helper a loop calls is pure: a function defined in the same file, or a lambda the
enclosing function declares, that writes nothing but its own locals and by-value parameters,
does no input/output, and calls only pure functions. Such calls may run in parallel
iterations like ``std::sqrt``.
"""

from __future__ import annotations

import tree_sitter

from perfpilot.code.effects import DOES_IO, NO_SIDE_EFFECTS, PARALLEL_SAFE_METHODS
from perfpilot.code.loop_body import collect_body
from perfpilot.code.syntax import (
    declarator_name,
    node_text,
    plain_callee,
    walk,
)

Node = tree_sitter.Node

_MAX_DEPTH = 4  # helpers calling helpers: beyond this, not proved


def _root(node: Node) -> Node:
    while node.parent is not None:
        node = node.parent
    return node


def _enclosing_function(node: Node) -> Node | None:
    cur = node.parent
    while cur is not None and cur.type != "function_definition":
        cur = cur.parent
    return cur


def _value_params(params: Node | None) -> set[str]:
    """Parameters passed by value (not pointers, references or arrays): the callee's copies."""
    out: set[str] = set()
    if params is None:
        return out
    for p in params.named_children:
        decl = p.child_by_field_name("declarator")
        if decl is None or decl.type != "identifier":
            continue
        out.add(node_text(decl))
    return out


def _definition(name: str, at: Node, unit: Node | None) -> tuple[Node | None, Node] | None:
    """``(parameters, body)`` of the lambda ``name`` declared in the function around ``at``,
    else of the function ``name`` defined at the top level of ``unit`` (by default the file
    ``at`` is in)."""
    fn = _enclosing_function(at)
    if fn is not None:
        for n in walk(fn):
            if n.type != "init_declarator" or declarator_name(n) != name:
                continue
            value = n.child_by_field_name("value")
            if value is not None and value.type == "lambda_expression":
                body = value.child_by_field_name("body")
                decl = value.child_by_field_name("declarator")
                params = decl.child_by_field_name("parameters") if decl is not None else None
                return (params, body) if body is not None else None
    for n in (unit if unit is not None else _root(at)).named_children:
        if n.type != "function_definition":
            continue
        decl = n.child_by_field_name("declarator")
        if decl is None or decl.type != "function_declarator":
            continue
        callee = decl.child_by_field_name("declarator")
        if callee is None or plain_callee(node_text(callee)) != name:
            continue
        body = n.child_by_field_name("body")
        return (decl.child_by_field_name("parameters"), body) if body is not None else None
    return None


def pure_helper(name: str, at: Node, unit: Node | None = None, depth: int = 0,
                seen: frozenset[str] = frozenset()) -> bool:
    """Whether calling ``name`` from the code at ``at`` has no side effect at all (see the
    module's docstring); False whenever it cannot be proved. ``unit``: the parsed file, when
    ``at`` belongs to a tree of the function alone."""
    if name in NO_SIDE_EFFECTS or name in seen:
        return True  # a helper calling itself is pure when the rest of it is
    if depth > _MAX_DEPTH:
        return False
    found = _definition(name, at, unit)
    if found is None:
        return False
    params, body = found
    return _pure_body(params, body, unit, depth, seen | {name})


def pure_lambda(lam: Node, unit: Node | None = None) -> bool:
    """Whether calling the lambda expression ``lam`` has no side effect at all (its body as
    a same-file helper's; a by-reference capture may be read, never written)."""
    if lam.type != "lambda_expression":
        return False
    body = lam.child_by_field_name("body")
    decl = lam.child_by_field_name("declarator")
    params = decl.child_by_field_name("parameters") if decl is not None else None
    return body is not None and _pure_body(params, body, unit, 0, frozenset())


def _pure_body(params: Node | None, body: Node, unit: Node | None, depth: int,
               seen: frozenset[str]) -> bool:
    f = collect_body(body, body)
    own = f.locals | _value_params(params)
    if f.has_io or f.static_locals or f.other or f.escapes - own:
        return False
    if any(j != "return" for j in f.jumps):
        return False
    if any(n.type in ("new_expression", "delete_expression") or
           (n.type == "identifier" and node_text(n) in DOES_IO) for n in walk(body)):
        return False
    if set(f.scalar_writes) - own:
        return False
    for acc, base in f.element:
        root = node_text(base).split("[")[0].strip()
        if acc.write and (root not in f.locals or root in f.local_refs):
            return False
    for w in (*f.member_writes, *f.deref_writes):
        root = w.lstrip("*( ").split(".")[0].split("-")[0].split("[")[0].strip()
        if root not in f.locals or root in f.local_refs:
            return False
    for call, _node in f.calls:
        if call.method is not None:
            obj = (call.obj or "").split(".")[0].split("[")[0]
            if call.method in PARALLEL_SAFE_METHODS or obj in f.locals:
                continue
            return False
        if not pure_helper(plain_callee(call.callee), body, unit, depth + 1, seen):
            return False
    return True
