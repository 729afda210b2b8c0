"""Small, total helpers over tree-sitter nodes, for the rules and the loop model.

Every helper accepts odd or partial syntax (ERROR nodes, missing fields) and answers ``None`` or an
empty value rather than raising.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import overload

import tree_sitter

Node = tree_sitter.Node

# Statements that repeat their body.
LOOP_TYPES = frozenset({"for_statement", "for_range_loop", "while_statement", "do_statement"})

# Wrappers that do not change which variable an lvalue refers to.
_LVALUE_WRAPPERS = frozenset({
    "subscript_expression", "field_expression", "pointer_expression",
    "parenthesized_expression", "cast_expression",
})
# The one-letter escapes of a character literal, by the letter after the backslash.
_ESCAPES = {"n": 10, "t": 9, "r": 13, "0": 0, "\\": 92, "'": 39, '"': 34, "a": 7, "b": 8,
            "f": 12, "v": 11, "?": 63}


def node_text(node: Node | None) -> str:
    """The source text of a node ('' for None)."""
    raw = node.text if node is not None else None
    return raw.decode("utf-8", "replace") if raw is not None else ""


def line(node: Node) -> int:
    """1-based line of the node's first character in the translation unit."""
    return int(node.start_point[0]) + 1


def walk(node: Node, *, named: bool = False) -> Iterator[Node]:
    """Every node below and including ``node``, in pre-order (source order); with ``named``
    only the named ones (no punctuation or keyword tokens)."""
    stack = [node]
    if named:
        while stack:
            n = stack.pop()
            yield n
            stack.extend(reversed(n.named_children))
    else:
        while stack:
            n = stack.pop()
            yield n
            stack.extend(reversed(n.children))


@overload
def unwrap(node: Node) -> Node: ...
@overload
def unwrap(node: None) -> None: ...
@overload
def unwrap(node: Node | None) -> Node | None: ...
def unwrap(node: Node | None) -> Node | None:
    """The expression inside parentheses and ``condition_clause`` (C and C++ differ here)."""
    while node is not None and node.type in ("condition_clause", "parenthesized_expression"):
        inner = node.child_by_field_name("value")
        if inner is None:
            inner = next((c for c in node.named_children if c.type != "comment"), None)
        if inner is None:
            return node
        node = inner
    return node


def inner_declarator(decl: Node) -> Node | None:
    """The declarator nested in ``decl`` (``x`` in ``*x``, ``f(int)`` in ``&f(int)``): its
    ``declarator`` field, else the first child that is a declarator or a name."""
    inner = decl.child_by_field_name("declarator")
    if inner is None:
        inner = next((c for c in decl.named_children
                      if c.type.endswith("declarator")
                      or c.type in ("identifier", "field_identifier")), None)
    return inner


def mutations(node: Node) -> Iterator[tuple[Node, Node]]:
    """``(expression, target)`` for every assignment, ``++``/``--`` and address-of (``&x``,
    which lets ``x`` change elsewhere) under ``node``."""
    for n in walk(node):
        if n.type == "assignment_expression":
            target = n.child_by_field_name("left")
        elif n.type == "update_expression" or (
                n.type == "pointer_expression" and node_text(n).startswith("&")):
            target = n.child_by_field_name("argument")
        else:
            continue
        if target is not None:
            yield n, target


def int_literal(node: Node) -> int | None:
    """The value of an integer literal node (``42``, ``0x2a``, ``7u``), else None."""
    try:
        return int(node_text(node).rstrip("uUlL"), 0)
    except ValueError:
        return None


def statements(body: Node | None) -> list[Node]:
    """The statements of a loop or branch body (a lone statement counts as a list of one)."""
    if body is None:
        return []
    if body.type == "compound_statement":
        return [c for c in body.named_children if c.type != "comment"]
    return [body]


def tree_shape(node: Node, max_depth: int, max_nodes: int) -> tuple[int, int]:
    """``(depth, nodes)`` of the tree under ``node``, counted until either passes its bound
    (then the counts stop just past it). Iterative, so a deep tree cannot overflow a stack."""
    cursor = node.walk()
    depth = deepest = nodes = 1
    while deepest <= max_depth and nodes <= max_nodes:
        if cursor.goto_first_child():
            depth += 1
            deepest = max(deepest, depth)
            nodes += 1
            continue
        while not cursor.goto_next_sibling():
            if not cursor.goto_parent():
                return deepest, nodes
            depth -= 1
        nodes += 1
    return deepest, nodes


def identifiers(node: Node | None) -> set[str]:
    """Names of the identifiers (variables, functions) used inside ``node``."""
    if node is None:
        return set()
    return {node_text(n) for n in walk(node, named=True) if n.type == "identifier"}


def root_name(node: Node | None) -> str | None:
    """The variable an lvalue expression is rooted at: ``a`` for ``a[i].x``, ``*a``, ``(a)``."""
    while node is not None and node.type in _LVALUE_WRAPPERS:
        if node.type == "field_expression" or node.type == "subscript_expression":
            node = node.child_by_field_name("argument")
        elif node.type == "cast_expression":
            node = node.child_by_field_name("value")
        elif node.type == "pointer_expression":
            node = node.child_by_field_name("argument")
        else:
            node = unwrap(node)
            if node is not None and node.type == "parenthesized_expression":
                return None
    if node is None:
        return None
    if node.type == "identifier":
        return node_text(node)
    if node.type == "this":
        return "this"
    if node.type == "qualified_identifier":
        return node_text(node)
    return None


def callee(call: Node) -> str:
    """The called name: ``strlen``, ``std::find`` -> ``find``, ``v.size`` -> ``size``."""
    fn = call.child_by_field_name("function")
    if fn is None:
        return ""
    if fn.type == "field_expression":
        return node_text(fn.child_by_field_name("field"))
    if fn.type == "qualified_identifier":
        name = fn.child_by_field_name("name")
        while name is not None and name.type == "qualified_identifier":
            name = name.child_by_field_name("name")
        if name is not None and name.type == "template_function":
            name = name.child_by_field_name("name")
        return node_text(name)
    if fn.type == "template_function":
        return node_text(fn.child_by_field_name("name"))
    return node_text(fn)


def receiver(call: Node) -> Node | None:
    """The object of a method call (``v`` in ``v.size()``), else None."""
    fn = call.child_by_field_name("function")
    if fn is not None and fn.type == "field_expression":
        return fn.child_by_field_name("argument")
    return None


def arguments(call: Node) -> list[Node]:
    """The call's argument expressions (comments dropped)."""
    args = call.child_by_field_name("arguments")
    if args is None:
        return []
    return [a for a in args.named_children if a.type != "comment"]


def operator(node: Node) -> str:
    """The operator token of a binary/assignment/update/unary expression."""
    op = node.child_by_field_name("operator")
    if op is not None:
        # An anonymous token's type is its spelling; no need to decode the source.
        return str(op.type) if not op.is_named else node_text(op)
    for c in node.children:
        if not c.is_named:
            return str(c.type)
    return ""


def number(node: Node | None) -> float | None:
    """The value of a numeric literal (``2``, ``2.0``, ``0.5f``, ``8u``), else None."""
    node = unwrap(node)
    if node is None or node.type != "number_literal":
        return None
    raw = node_text(node).lower().replace("'", "").rstrip("ulf")
    try:
        return float(int(raw, 0)) if raw.startswith(("0x", "0b")) else float(raw)
    except ValueError:
        return None


def char_value(lit: Node) -> int | None:
    """The value of an integer literal or of a plain character literal (``'a'``, ``'\\n'``,
    ``'\\x41'``, ``'\\101'``), else None: prefixed (``L'a'``), multi-character or beyond ASCII
    literals have values that depend on the compiler."""
    if lit.type == "number_literal":
        return int_literal(lit)
    if lit.type != "char_literal":
        return None
    body = node_text(lit)
    if not (body.startswith("'") and body.endswith("'")) or len(body) < 3:
        return None  # prefixed (u8'a', L'a') or odd
    inner = body[1:-1]
    if len(inner) == 1:
        return ord(inner) if ord(inner) < 128 else None
    if inner[0] != "\\":
        return None
    esc = inner[1:]
    if esc in _ESCAPES:
        return _ESCAPES[esc]
    try:
        if esc[0] == "x" and len(esc) > 1:
            return int(esc[1:], 16)
        if esc.isdigit() and len(esc) <= 3:
            return int(esc, 8)
    except ValueError:
        return None
    return None


def is_within(inner: Node, outer: Node) -> bool:
    """Whether ``inner`` lies inside ``outer`` (by byte range)."""
    return outer.start_byte <= inner.start_byte and inner.end_byte <= outer.end_byte


def unparenthesized(node: Node) -> Node:
    """The outermost parenthesized expression around ``node``, or ``node`` itself: what its
    value takes part in is that node's parent."""
    while node.parent is not None and node.parent.type == "parenthesized_expression":
        node = node.parent
    return node


def ancestors(node: Node, stop: Node | None = None) -> Iterator[Node]:
    """Parents of ``node`` up to (not including) ``stop``."""
    p = node.parent
    while p is not None and (stop is None or p.start_byte != stop.start_byte
                             or p.end_byte != stop.end_byte or p.type != stop.type):
        yield p
        p = p.parent


def declarator_name(decl: Node | None) -> str | None:
    """The declared name inside a declarator (``x`` in ``*x = 0``, ``a[10]``, ``&r``)."""
    while decl is not None and decl.type not in ("identifier", "field_identifier"):
        decl = inner_declarator(decl)
    return node_text(decl) if decl is not None else None


# The loop model's stricter views (``loops``, ``dependence``): names that are variables only (no
# callees, no qualified names), and lvalue roots that stop at casts, so that anything the
# dependence test does not understand stays unknown.


def identifiers_of(node: Node) -> set[str]:
    """Variable names referenced in an expression (not field names, not callee names)."""
    out: set[str] = set()
    for n in walk(node):
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
        node = unwrap(arg)
    return node, list(reversed(indices))


def root_name_of(node: Node) -> str | None:
    """The variable at the root of an lvalue: ``x`` for ``x``, ``x.y``, ``x[i]``, ``*x``."""
    node = unwrap(node)
    while True:
        if node.type == "identifier":
            return node_text(node)
        if node.type == "this":
            return "this"
        if node.type in ("subscript_expression", "field_expression", "pointer_expression"):
            arg = node.child_by_field_name("argument")
            if arg is None:
                return None
            node = unwrap(arg)
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
