"""Containers kept sorted by sorting them whole after every element added.

``v.push_back(x); std::sort(v.begin(), v.end());`` in a loop sorts all of ``v`` each time one
element joins it: O(n log n) per element (more for an introsort of nearly sorted data). When
``v`` was already sorted before the ``push_back``, putting ``x`` at
``std::upper_bound(v.begin(), v.end(), x)`` leaves the same sorted sequence in O(n) (a binary
search and one shift): the multiset is the same, and for integers and strings there is only one
sorted arrangement of it, since elements that compare equal are identical.

``v`` is sorted before every such ``push_back`` when it starts empty and nothing else changes
it but these pairs (all in one order), ``clear()`` and ``pop_back()``. So: ``v`` is a local
``std::vector`` or ``std::deque`` of integers or ``std::string``s declared once without
elements (``std::vector<int> v;`` or ``v{}``), never reached through a pointer, reference,
iterator, capture or call; every other mention of it only reads it (elements, size, a loop
over it, a copy); each ``push_back`` of it is directly followed, in the same block, by the
sort of all of it; no ``goto`` or label in the function. Floating elements are refused:
``-0.0`` and ``0.0`` compare equal but differ, and the sort may order them otherwise.
"""

from __future__ import annotations

from dataclasses import dataclass

from perfpilot.code.declarations import VarType
from perfpilot.code.facts import FunctionFacts
from perfpilot.code.sorted_ranges import (
    DECL,
    ESCAPE,
    RESIZE,
    WRITE,
    Mentions,
    SortCall,
    container_type,
    element_type,
    flat,
    jumps_in,
    plain_local,
    sort_call,
    sorts_anything,
)
from perfpilot.code.syntax import (
    Node,
    arguments,
    callee,
    node_text,
)

_FLOATING = frozenset({"float", "double", "long double"})
_KEEPS_ORDER = frozenset({"clear", "pop_back"})


@dataclass(frozen=True)
class SortedPush:
    """A ``push_back`` statement followed by a whole sort of the container kept sorted:
    the statement, the value pushed, the sort, and the element type as written."""

    push: Node
    value: Node
    sort: SortCall
    element: str


@dataclass(frozen=True)
class RefusedPush:
    """A push-and-sort pair in a loop that must stay, and why."""

    sort: SortCall
    why: str


def sorted_pushes(facts: FunctionFacts, unit: Node) -> tuple[list[SortedPush],
                                                             list[RefusedPush]]:
    """The push-and-sort pairs inside loops proved to keep a container sorted, and the pairs
    that must stay (with why)."""
    if facts.body is None or facts.language != "cpp" or not sorts_anything(facts):
        return [], []
    mentions = Mentions(facts, unit)

    def element_of(var: str) -> str | None:
        vt = container_type(facts, var)
        return element_type(vt) if vt is not None else None

    pairs: dict[str, list[tuple[Node, SortCall]]] = {}
    for call in facts.in_loops("call_expression"):
        stmt = call.parent
        s = sort_call(stmt, mentions.own, element_of) if stmt is not None else None
        prev = stmt.prev_named_sibling if stmt is not None else None
        if s is None or prev is None or _pushed(prev, s.var) is None:
            continue
        pairs.setdefault(s.var, []).append((prev, s))
    found: list[SortedPush] = []
    refused: list[RefusedPush] = []
    for v, group in pairs.items():
        why = _why_not(facts, mentions, v, group)
        if why:
            refused.extend(RefusedPush(s, why) for _p, s in group)
            continue
        element = element_of(v) or ""
        for push, s in group:
            value = _pushed(push, v)
            assert value is not None
            found.append(SortedPush(push, value, s, element))
    return found, refused


def _pushed(stmt: Node, v: str) -> Node | None:
    """The argument of ``v.push_back(x);`` as a whole statement."""
    if stmt.type != "expression_statement" or stmt.named_child_count != 1:
        return None
    call = stmt.named_children[0]
    if call.type != "call_expression" or callee(call) != "push_back":
        return None
    fn = call.child_by_field_name("function")
    obj = fn.child_by_field_name("argument") if fn is not None else None
    args = arguments(call)
    if fn is None or fn.type != "field_expression" or obj is None or node_text(obj) != v or \
            flat(fn) != f"{v}.push_back" or len(args) != 1:
        return None
    return args[0]


def _why_not(facts: FunctionFacts, mentions: Mentions, v: str,
             group: list[tuple[Node, SortCall]]) -> str:
    """Why ``v`` cannot be proved sorted before each of its pushes ('' when it can)."""
    vt = container_type(facts, v)
    if vt is None:
        return f"'{v}' is not a vector or deque"
    words = " ".join(element_type(vt).replace("std::", "").split())
    if words in _FLOATING:
        return (f"the elements of '{v}' are floating-point: -0.0 and 0.0 compare equal but "
                "differ, and the sort may put them in another order than an insertion")
    if not (VarType(words).is_integral or words == "string"):
        return f"the elements of '{v}' are not integers or strings"
    if not plain_local(facts, v) or vt.scope != "local":
        return f"'{v}' does not start empty in the function"
    if jumps_in(facts):
        return "the function has a goto or a label"
    if len({s.descending for _p, s in group}) != 1:
        return f"'{v}' is sorted in two orders"
    uses = mentions.of(v)
    decls = [u for u in uses if u.kind == DECL]
    if len(decls) != 1 or not _starts_empty(decls[0].ident):
        return f"'{v}' is not declared once without elements"
    spans = [(p.start_byte, s.statement.end_byte) for p, s in group]
    for u in uses:
        if u.kind == ESCAPE:
            return f"'{v}' may be reached through a pointer, reference, iterator or call"
        if u.kind not in (WRITE, RESIZE) or \
                any(a <= u.ident.start_byte < b for a, b in spans):
            continue  # reads (its size, its elements, a loop over it, a copy), or a pair
        if u.kind == RESIZE and u.access.type == "call_expression" and \
                callee(u.access) in _KEEPS_ORDER and not arguments(u.access) and \
                node_text(u.ident) == v and u.access.child_by_field_name("function") is not None \
                and flat(u.access.child_by_field_name("function")).startswith(f"{v}."):
            continue
        return f"'{v}' is changed elsewhere than by the pushes each followed by a sort"
    return ""


def _starts_empty(ident: Node) -> bool:
    """``std::vector<T> v;`` or ``v{}``/``v = {}``: a declarator without elements."""
    p = ident.parent
    if p is not None and p.type == "declaration":
        return True
    if p is None or p.type != "init_declarator":
        return False
    value = p.child_by_field_name("value")
    return value is not None and flat(value) in ("{}", "()")
