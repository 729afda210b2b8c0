"""Whether a loop may change a container it reads, by name or through another object of the
same type (a reference parameter may be the same container as another)."""

from __future__ import annotations

import re

from perfpilot.code.declarations import VarType
from perfpilot.code.effects import PARALLEL_SAFE_METHODS, SEQUENCE_END_CHANGES
from perfpilot.code.syntax import (
    Node,
    callee,
    node_text,
    receiver,
    walk,
)

# Methods of the standard sequences that change their own object only.
# The calls the proof accepts (a module name, so that a test can widen it).
_OWN_CHANGES = SEQUENCE_END_CHANGES
# Sequences of plain numbers: copying an element runs no user code.
_NUMBER = (r"(?:(?:un)?signed\s+)?(?:bool|char|short|int|long|long\s+long|float|double)"
           r"(?:\s+int)?|(?:un)?signed|(?:std::)?u?int(?:8|16|32|64)_t|(?:std::)?(?:size_t|ptrdiff_t)")
_NUMBER_SEQUENCE = re.compile(rf"^(?:std::)?(?:(?:vector|deque)<(?:{_NUMBER})>|string)$")


def _norm(text: str) -> str:
    text = re.sub(r"\bconst\b|&", "", text)
    return " ".join(text.split()).replace("< ", "<").replace(" >", ">")


def same_type(a: str, b: str) -> bool:
    """Whether two type spellings name one type (qualifiers, references, ``std::`` aside)."""
    return _norm(a).removeprefix("std::") == _norm(b).removeprefix("std::")


def _owned_elsewhere(other: VarType, b_type: VarType) -> bool:
    """Whether ``other`` is a local object of its own that ``b`` cannot be: a non-static
    local held by value, while ``b`` is no local reference (a parameter or global cannot name
    this call's locals)."""
    return other.scope == "local" and not other.reference and not other.pointer and \
        not other.array and "static" not in other.type_text.split() and \
        not (b_type.scope == "local" and b_type.reference)


def changes_only_its_own(call: Node, b: str, b_type: VarType,
                         types: dict[str, VarType | None]) -> bool:
    """Whether ``call`` is ``v.push_back(x)`` (or ``emplace_back``, ``pop_back``, ``clear``,
    ``reserve``) on a local sequence of plain numbers that cannot be ``b``: it changes ``v``
    alone (copying a number runs no user code; its arguments are only read)."""
    obj = receiver(call)
    if obj is None or obj.type != "identifier" or callee(call) not in _OWN_CHANGES or \
            node_text(obj) == b:
        return False
    other = types.get(node_text(obj))
    return other is not None and _owned_elsewhere(other, b_type) and \
        bool(_NUMBER_SEQUENCE.match(_norm(other.base)))


def changes_in_loop(loop: Node, b: str, b_type: VarType, types: dict[str, VarType | None],
                    scans: frozenset[int] = frozenset()) -> str:
    """Why ``b`` might change while the loop runs ("" when it cannot); ``scans`` are the
    start bytes of range-for loops that only read ``b``, their range being ``b``."""
    for n in walk(loop):
        if n.type == "identifier" and node_text(n) == b:
            parent = n.parent
            if parent is not None and parent.start_byte in scans and \
                    parent.child_by_field_name("right") == n:
                continue  # the range of a proved read-only scan
            if parent is not None and parent.type == "subscript_expression" and \
                    parent.parent is not None and \
                    parent.parent.type not in ("argument_list", "pointer_expression"):
                continue  # b[k] read (a store to it is an assignment, caught below)
            field = parent.child_by_field_name("field") \
                if parent is not None and parent.type == "field_expression" else None
            if field is None or node_text(field) not in PARALLEL_SAFE_METHODS:
                return f"the loop uses '{b}' other than through read-only calls"
        elif n.type == "call_expression":
            fn = n.child_by_field_name("function")
            if fn is not None and fn.type == "field_expression":
                obj = fn.child_by_field_name("argument")
                method = fn.child_by_field_name("field")
                other = types.get(node_text(obj)) if obj is not None else None
                if method is not None and node_text(method) not in PARALLEL_SAFE_METHODS and \
                        (other is None or (same_type(other.base, b_type.base) and
                                           not _owned_elsewhere(other, b_type))):
                    return (f"the loop calls '{node_text(fn)}()', which may change '{b}' "
                            "through another name")
        elif n.type in ("assignment_expression", "update_expression"):
            target = n.child_by_field_name("left") or n.child_by_field_name("argument")
            written = node_text(target) if target is not None else ""
            other = types.get(re.split(r"[.\[\-]", written)[0])
            if other is not None and same_type(other.base, b_type.base) and \
                    not _owned_elsewhere(other, b_type):
                return f"the loop writes '{written}', which may be '{b}'"
    return ""
