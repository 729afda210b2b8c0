"""``std::count`` calls in loops that a table of counts, filled once, can answer.

``std::count(v.begin(), v.end(), x)`` (or ``cbegin``/``cend``, ``std::begin``/``std::end``)
inside a loop scans all of ``v`` on every iteration. When ``v`` is a variable holding integers
or ``std::string`` (``count_keys.py``: a ``std::string``, or a ``std::vector``,
``std::array`` or ``std::deque`` of them), nothing in some loop around the call can change it
(``byte_tables.table_loops``: the proof the byte tables use), and the value compares with the
elements as a key does (``count_keys.match_form``), one pass before that loop counts every
element and each call becomes a lookup: a 256-entry array for one-byte elements, a hash map
otherwise.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from perfpilot.code.declarations import VarType
from perfpilot.code.facts import FunctionFacts, Loop
from perfpilot.code.read_only_copy import UnitNames
from perfpilot.code.sorted_calls import sorted_calls
from perfpilot.code.sorted_ranges import std_name, unit_functions, whole_range
from perfpilot.code.syntax import (
    Node,
    arguments,
    node_text,
    operator,
)
from perfpilot.rules.counting import count_keys
from perfpilot.rules.counting.byte_tables import declared_scalar, simple_value, table_loops
from perfpilot.rules.counting.count_keys import LITERAL, Element, container_element, scalar_type


@dataclass(frozen=True)
class CountCall:
    """A count a table answers: the call, the container and its elements, the value, the
    range test the value must pass to match any element ('' when none is needed), whether the
    key is the value converted to the element type, and the loops (outermost first) before
    which the table may be filled."""

    call: Node
    container: str
    element: Element
    value: Node
    guard: str
    convert: bool
    loops: tuple[Loop, ...]


@dataclass(frozen=True)
class CountRefusal:
    """A count in a loop that stays, and why."""

    call: Node
    container: str
    why: str


def _element_name(v: VarType | None) -> str | None:
    e = container_element(v)
    return e.canonical if e is not None else None


def value_type(facts: FunctionFacts, node: Node) -> str | None:
    """The type (``count_keys.scalar_type``'s name, or ``LITERAL``) of a value counted: a
    variable (a range-for variable over a container too), an element of a container, array
    or pointer, a decimal, negated decimal, character or plain string literal, or a cast."""
    while node.type == "parenthesized_expression" and node.named_child_count == 1:
        inner = node.named_children[0]
        if inner is None:
            return None
        node = inner
    if node.type == "identifier":
        return declared_scalar(facts, node_text(node), scalar=scalar_type, element=_element_name)
    if node.type == "subscript_expression":
        base = node.child_by_field_name("argument")
        v = facts.var(node_text(base)) if base is not None and base.type == "identifier" else None
        if v is not None and not v.reference and v.pointer + int(v.array) == 1:
            return count_keys.integer_type(v.base)  # an element of an array or pointer
        return _element_name(v)
    if node.type == "char_literal":
        return "char" if node_text(node).startswith("'") else None
    if node.type == "unary_expression" and operator(node) == "-":
        arg = node.child_by_field_name("argument")
        return value_type(facts, arg) if arg is not None and \
            arg.type == "number_literal" else None
    if node.type == "number_literal":
        digits = node_text(node)
        return "int" if re.fullmatch(r"[0-9]+", digits) and int(digits) < 2 ** 31 else None
    if node.type == "string_literal":
        return LITERAL if node_text(node).startswith('"') else None
    if node.type == "cast_expression":
        ty = node.child_by_field_name("type")
        return scalar_type(node_text(ty)) if ty is not None else None
    return None


def count_calls(facts: FunctionFacts, units: UnitNames
                ) -> tuple[list[CountCall], list[CountRefusal]]:
    """The whole-container ``std::count`` calls in loops that a table answers, and those over
    a whole container that stay (with why)."""
    own = unit_functions(facts.unit)
    found: list[CountCall] = []
    refused: list[CountRefusal] = []
    sorted_data: set[int] | None = None
    for call in facts.in_loops("call_expression"):
        args = arguments(call)
        if std_name(call, own) != "count" or len(args) != 3:
            continue
        if sorted_data is None:
            # a count over data proved sorted is the width of a run found by binary search,
            # with no table to build (the sorted-linear-scan rule's)
            sorted_data = {c.call.start_byte for c in sorted_calls(facts, facts.unit)[0]}
        if call.start_byte in sorted_data:
            continue
        name = whole_range(args[0], args[1])
        if name is None:
            continue
        element = container_element(facts.var(name))
        if element is None:
            refused.append(CountRefusal(call, name, f"`{name}` is not known to hold integers "
                                                    "or strings"))
            continue
        vt = value_type(facts, args[2])
        form = count_keys.match_form(vt, element.canonical) if vt is not None else None
        if form is None or (form == "guard" and not simple_value(args[2])):
            refused.append(CountRefusal(
                call, name, "the value counted is not known to compare with the elements as "
                "a value of their own type does"))
            continue
        if element.canonical == count_keys.STRING and "==" in units.operators:
            refused.append(CountRefusal(call, name, "the unit overloads `==`"))
            continue
        loops, why = table_loops(facts, units, call, name)
        if not loops:
            refused.append(CountRefusal(call, name, why))
            continue
        guard = count_keys.range_guard(element.spelled, node_text(args[2])) if form == "guard" \
            else ""
        found.append(CountCall(call, name, element, args[2], guard,
                               vt not in (element.canonical, LITERAL), tuple(loops)))
    return found, refused
