"""Comparisons of a ``std::string::substr`` temporary that ``compare`` answers in place.

``s.substr(p, n) == t`` builds a new string (an allocation once it outgrows the small buffer)
only to compare it and throw it away. ``s.compare(p, n, t) == 0`` compares the same characters
where they are: ``substr`` and ``compare`` both throw ``std::out_of_range`` exactly when
``p > s.size()``, both clamp ``n`` to the characters left, and ``==``, ``!=``, ``<`` and the rest
are defined on strings as ``compare`` against 0. ``t`` may be another ``std::string``, a string
literal, a character pointer or array (the overloads of C++98, so any standard builds it), or
another ``substr`` of a string (``compare(p, n, t, q, m)``, which checks ``q`` as ``substr``
does). Each operand is still evaluated once. Only where both sides are proved to be strings of
``char``: a user type with a ``substr`` may mean something else.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

from perfpilot.code.declarations import VarType
from perfpilot.code.facts import FunctionFacts
from perfpilot.code.syntax import (
    Node,
    arguments,
    callee,
    node_text,
    operator,
    receiver,
    unparenthesized,
    unwrap,
)

_STRING = re.compile(r"^(const\s+)?(std::)?(string|basic_string\s*<\s*char\s*>)$")
_STRING_CONTAINER = re.compile(
    r"^(const\s+)?(std::)?(vector|array|deque)\s*<\s*(std::)?(string|basic_string\s*<\s*char\s*>)"
    r"\s*(,[^<>]*)?>$")
_CHAR = re.compile(r"^(const\s+)?char$")
_MIRROR = {"==": "==", "!=": "!=", "<": ">", "<=": ">=", ">": "<", ">=": "<="}


@dataclass(frozen=True)
class SubstrComparison:
    """One comparison (``node``), its text, and the ``compare`` expression that replaces it."""

    node: Node
    original: str
    replacement: str


def substr_comparisons(facts: FunctionFacts, in_loops_only: bool = True
                       ) -> Iterator[SubstrComparison]:
    """Every comparison of a ``substr`` temporary of a proved string (see the module)."""
    calls = facts.in_loops("call_expression") if in_loops_only else \
        facts.nodes("call_expression")
    done: set[int] = set()
    for call in calls:
        if _substr_parts(call, facts) is None:
            continue
        top = unparenthesized(call)
        cmp = top.parent
        if cmp is None or cmp.type != "binary_expression" or operator(cmp) not in _MIRROR or \
                cmp.start_byte in done:
            continue
        left, right = cmp.child_by_field_name("left"), cmp.child_by_field_name("right")
        if left is None or right is None:
            continue
        here, other = (left, right) if left.start_byte == top.start_byte else (right, left)
        op = operator(cmp) if here is left else _MIRROR[operator(cmp)]
        replacement = _replacement(call, other, facts)
        if replacement is None:
            continue
        done.add(cmp.start_byte)
        yield SubstrComparison(cmp, node_text(cmp), f"{replacement} {op} 0")


def _substr_parts(call: Node, facts: FunctionFacts) -> tuple[str, list[str]] | None:
    """``(receiver text, [pos] or [pos, count])`` of ``s.substr(...)`` on a proved string."""
    fn = call.child_by_field_name("function")
    if fn is None or fn.type != "field_expression" or callee(call) != "substr":
        return None
    op = fn.child_by_field_name("operator")
    recv = receiver(call)
    args = arguments(call)
    if op is None or node_text(op) != "." or recv is None or not 1 <= len(args) <= 2 or \
            not _is_string_object(recv, facts):
        return None
    return node_text(recv), [node_text(a) for a in args]


def _replacement(call: Node, other: Node, facts: FunctionFacts) -> str | None:
    parts = _substr_parts(call, facts)
    assert parts is not None
    recv, args = parts
    count = args[1] if len(args) == 2 else "std::string::npos"
    other = unwrap(other)
    if other.type == "call_expression" and (second := _substr_parts(other, facts)) is not None:
        recv2, args2 = second
        count2 = args2[1] if len(args2) == 2 else "std::string::npos"
        return f"{recv}.compare({args[0]}, {count}, {recv2}, {args2[0]}, {count2})"
    if not _is_string_operand(other, facts):
        return None
    return f"{recv}.compare({args[0]}, {count}, {node_text(other)})"


def _is_string_object(node: Node, facts: FunctionFacts) -> bool:
    """A named ``std::string`` or an element of a named container of them."""
    node = unwrap(node)
    if node.type == "identifier":
        return _string(facts.var(node_text(node)))
    if node.type == "subscript_expression":
        base = node.child_by_field_name("argument")
        vt = facts.var(node_text(base)) if base is not None and base.type == "identifier" else None
        if vt is None or vt.pointer:
            return False
        base_type = " ".join(vt.base.split())
        return bool(_STRING_CONTAINER.match(base_type)) or (vt.array and _string(vt, True))
    return False


def _is_string_operand(node: Node, facts: FunctionFacts) -> bool:
    if node.type == "string_literal":
        return node_text(node).startswith('"')
    if _is_string_object(node, facts):
        return True
    if node.type != "identifier":
        return False
    vt = facts.var(node_text(node))
    return vt is not None and bool(_CHAR.match(" ".join(vt.base.split()))) and \
        (vt.pointer == 1) != vt.array and vt.pointer <= 1


def _string(vt: VarType | None, element: bool = False) -> bool:
    return vt is not None and not vt.pointer and (element or not vt.array) and \
        bool(_STRING.match(" ".join(vt.base.split())))
