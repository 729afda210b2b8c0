"""Loops that repeatedly take the smallest (or largest) element out of a container.

``while (!v.empty()) { auto it = std::min_element(v.begin(), v.end()); use(*it);
v.erase(it); }`` scans and shifts the whole container on every iteration: O(n²). The values
come out in sorted order, so sorting ``v`` once before the loop and walking it with a count of
the elements taken, ``h``, gives the same values in the same order in O(n log n): the element
found is ``v[h]``, the erase is ``++h``, and ``v.size()`` / ``v.empty()`` in the loop are the
size of what is left, ``v.size() - h`` / ``h == v.size()``.

What is proved before a loop qualifies:

- ``v`` is a ``std::vector`` or ``std::deque`` of integers or ``std::string``s, a local or a
  by-value parameter declared once, never reached through a pointer, reference, iterator,
  capture or call anywhere in the function (equal elements are then identical, so which of
  several equal minima is found does not matter). Floating elements stay: ``-0.0`` and ``0.0``
  compare equal but differ, and a NaN is no order at all.
- The search is ``std::min_element`` or ``std::max_element`` over all of ``v`` in natural order
  or with ``std::less``/``std::greater``, kept in an iterator (``auto it = ...``) only read
  through (``*it``) before ``v.erase(it)``, or dereferenced into a value of the element type
  (``T m = *std::min_element(...)``) that the loop never changes, removed by
  ``v.erase(std::find(v.begin(), v.end(), m))`` (the first element equal to the minimum).
  The declaration and the erase are statements of the loop's own body, the declaration first.
- In the loop ``v`` is mentioned only by the search, the erase, ``size()`` and ``empty()``.
  No ``goto`` or label in the function; no ``try`` (an exception caught in it could see the
  container half taken). A by-value parameter also needs nothing in the loop that could write
  its elements through another name (``alias_problem``).
- After the loop the order of what is left differs (sorted instead of the original order).
  So either nothing reads ``v`` after the loop (no mention after it, and every loop around it
  declares ``v`` afresh), or the loop runs until ``v`` is empty (its condition is
  ``!v.empty()`` or ``v.size() > 0``, with no ``break`` of its own): then ``v.clear()`` after
  it leaves ``v`` as the original did.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from perfpilot.code.declarations import VarType
from perfpilot.code.facts import FunctionFacts, Loop
from perfpilot.code.sorted_ranges import (
    DECL,
    ESCAPE,
    Mentions,
    Use,
    comparator_order,
    container_type,
    element_read,
    element_type,
    flat,
    jumps_in,
    plain_local,
    std_name,
    whole_range,
)
from perfpilot.code.syntax import (
    Node,
    arguments,
    callee,
    nearest_target,
    node_text,
    operator,
    receiver,
    unwrap,
    walk,
)

_SEARCHES = frozenset({"min_element", "max_element"})
_FLOATING = frozenset({"float", "double", "long double"})
_DEQUE_OR_VECTOR = re.compile(r"^(?:std::)?(?:vector|deque)\s*<")


@dataclass(frozen=True)
class Extraction:
    """A loop proved to take the extreme element out of ``var`` on each pass.

    ``descending``: the values come out largest first. ``found``: the node standing for the
    element found (the search call for an iterator, ``*search`` for a value), replaced by the
    position ``h`` (``iterator``) or the element there. ``erase``: the statement taking it out.
    ``sizes``/``empties``: the ``v.size()``/``v.empty()`` calls in the loop. ``clear_after``:
    ``v`` is read after the loop, which ran until it was empty.
    """

    loop: Loop
    var: str
    element: str
    descending: bool
    found: Node
    iterator: bool
    erase: Node
    sizes: tuple[Node, ...]
    empties: tuple[Node, ...]
    clear_after: bool


@dataclass(frozen=True)
class Refused:
    """A loop that looks like one but must stay, and why."""

    loop: Loop
    var: str
    why: str


def extraction_loops(facts: FunctionFacts, unit: Node) -> tuple[list[Extraction],
                                                                list[Refused]]:
    """Every loop of the function proved to extract the extremes of a container one by one,
    and those that come close (a search and an erase of one container) but must stay."""
    if facts.body is None or facts.language != "cpp" or not any(
            callee(c) in _SEARCHES for c in facts.in_loops("call_expression")):
        return [], []
    mentions = Mentions(facts, unit)
    found: list[Extraction] = []
    refused: list[Refused] = []
    for call in facts.in_loops("call_expression"):
        got = _extraction(facts, mentions, call)
        if isinstance(got, Extraction):
            found.append(got)
        elif got is not None:
            refused.append(got)
    return found, refused


def _extraction(facts: FunctionFacts, mentions: Mentions,
                call: Node) -> Extraction | Refused | None:
    name = std_name(call, mentions.own)
    args = arguments(call)
    if name not in _SEARCHES or len(args) not in (2, 3):
        return None
    v = whole_range(args[0], args[1])
    loop = facts.loop_of(call)
    vt = container_type(facts, v) if v is not None else None
    if v is None or loop is None or vt is None or \
            not _DEQUE_OR_VECTOR.match(vt.base.replace("const", "").strip()):
        return None
    element = element_type(vt)
    ascending = comparator_order(args[2], element) is False if len(args) == 3 else True
    if len(args) == 3 and comparator_order(args[2], element) is None:
        return None  # another order: not a plain extreme
    shape = _shape(facts, mentions.own, loop, call, v, element)
    if shape is None:
        return None
    found, iterator, erase = shape

    def refuse(why: str) -> Refused:
        return Refused(loop, v, why)

    words = " ".join(element.replace("std::", "").split())
    if words in _FLOATING:
        return refuse(f"the elements of '{v}' are floating-point: -0.0 and 0.0 compare equal "
                      "but differ, and a NaN orders nothing, so a sort may not give the values "
                      "the searches find")
    if not (VarType(words).is_integral or words == "string"):
        return refuse(f"the elements of '{v}' are not integers or strings")
    if not plain_local(facts, v) or vt.const:
        return refuse(f"'{v}' belongs to the caller, who sees the order of what is left")
    uses = mentions.of(v)
    if sum(1 for u in uses if u.kind == DECL) != 1:
        return refuse(f"the name '{v}' is declared more than once")
    if any(u.kind == ESCAPE and not _within(u.ident, loop.node) for u in uses):
        return refuse(f"'{v}' may be reached through a pointer, reference, iterator or call")
    if jumps_in(facts) or any(n.type == "try_statement" for n in walk(facts.fn, named=True)):
        return refuse("the function has a goto or a try block, which could see the container "
                      "half taken")
    sizes: list[Node] = []
    empties: list[Node] = []
    for u in uses:
        if not _within(u.ident, loop.node) or _within(u.ident, erase) or \
                _within(u.ident, call):
            continue
        method = _size_query(u.ident)
        if method is None:
            return refuse(f"the loop uses '{v}' otherwise than to find and erase its extreme "
                          "and ask its size")
        (sizes if method == "size" else empties).append(method_call(u.ident))
    if vt.scope == "param":
        # the search and the erase are the two calls the rewrite replaces
        why = mentions.alias_problem([(loop.node.start_byte, call.start_byte),
                                      (call.end_byte, erase.start_byte),
                                      (erase.end_byte, loop.node.end_byte)], strict=False)
        if why:
            return refuse(f"'{v}' is a parameter and {why}")
    clear_after = _read_after(facts, loop, uses)
    if clear_after and not _until_empty(loop, v):
        return refuse(f"'{v}' is read after the loop, which may leave elements in it (their "
                      "order would differ)")
    descending = (name == "max_element") == ascending
    return Extraction(loop, v, element, descending, found, iterator, erase, tuple(sizes),
                      tuple(empties), clear_after)


def _shape(facts: FunctionFacts, own: frozenset[str], loop: Loop, call: Node, v: str,
           element: str) -> tuple[Node, bool, Node] | None:
    """``(found, iterator, erase)`` when the search's result is kept as the module docstring
    says, its erase follows in the same body, and the kept name is used only so."""
    body = loop.body
    if body is None or body.type != "compound_statement":
        return None
    parent = call.parent
    iterator = parent is not None and parent.type == "init_declarator"
    found = call if iterator else parent
    if found is None or (not iterator and not (
            found.type == "pointer_expression" and operator(found) == "*")):
        return None
    init = found.parent
    if init is None or init.type != "init_declarator" or \
            init.child_by_field_name("value") != found:
        return None
    decl_node = init.child_by_field_name("declarator")
    decl = init.parent
    if decl_node is None or decl_node.type != "identifier" or decl is None or \
            decl.type != "declaration" or decl.parent != body or \
            len(decl.children_by_field_name("declarator")) != 1:
        return None
    name = node_text(decl_node)
    kind = " ".join(node_text(decl.child_by_field_name("type")).replace("std::", "").split())
    if iterator:
        if kind != "auto" and not kind.endswith("iterator"):
            return None
    elif kind not in ("auto", " ".join(element.replace("std::", "").split())):
        return None
    erase = _erase_of(body, decl, v, name, iterator)
    if erase is None or not _name_used_only(facts, own, decl_node, decl, erase, iterator,
                                            loop):
        return None
    return found, iterator, erase


def _erase_of(body: Node, decl: Node, v: str, name: str, iterator: bool) -> Node | None:
    """The statement of ``body`` after ``decl`` that erases the element found."""
    after = False
    for stmt in body.named_children:
        if stmt == decl:
            after = True
            continue
        if not after or stmt.type != "expression_statement" or stmt.named_child_count != 1:
            continue
        call = stmt.named_children[0]
        if call.type != "call_expression" or callee(call) != "erase" or \
                node_text(receiver(call)) != v or len(arguments(call)) != 1:
            continue
        arg = unwrap(arguments(call)[0])
        if iterator and flat(arg) == name:
            return stmt
        if not iterator and arg.type == "call_expression" and \
                flat(arg.child_by_field_name("function")) in ("std::find", "find"):
            fargs = arguments(arg)
            if len(fargs) == 3 and whole_range(fargs[0], fargs[1]) == v and \
                    flat(fargs[2]) == name:
                return stmt
    return None


def _name_used_only(facts: FunctionFacts, own: frozenset[str], ident: Node, decl: Node,
                    erase: Node, iterator: bool, loop: Loop) -> bool:
    """The kept iterator (value) ``ident`` is mentioned only between its declaration and the
    erase, only read through (only read, never changed), and named in the erase."""
    name = node_text(ident)
    for n in walk(facts.fn, named=True):
        if n.type != "identifier" or node_text(n) != name:
            continue
        if _within(n, decl):
            if n != ident:
                return False
            continue
        if n.start_byte < decl.end_byte or (iterator and n.end_byte > erase.end_byte):
            return False  # a value is a copy: it may be read after the erase too
        if _within(n, erase):
            continue
        if iterator:
            p = n.parent
            if p is None or p.type != "pointer_expression" or operator(p) != "*" or \
                    not element_read(p, own):
                return False
    # a value must keep what it was given (its use in the erase is no write)
    return iterator or name not in (facts.modified_between(decl.end_byte, erase.start_byte) |
                                    facts.modified_between(erase.end_byte, loop.node.end_byte))


def _size_query(ident: Node) -> str | None:
    """``size`` or ``empty`` when the mention is ``v.size()`` / ``v.empty()``."""
    p = ident.parent
    if p is None or p.type != "field_expression" or p.child_by_field_name("argument") != ident \
            or operator(p) != ".":
        return None
    call = p.parent
    method = node_text(p.child_by_field_name("field"))
    if call is None or call.type != "call_expression" or arguments(call) or \
            method not in ("size", "empty"):
        return None
    return method


def method_call(ident: Node) -> Node:
    """The call ``v.m()`` around the mention ``v``."""
    p = ident.parent
    assert p is not None and p.parent is not None
    return p.parent


def _read_after(facts: FunctionFacts, loop: Loop, uses: list[Use]) -> bool:
    """Whether ``v`` may be read once the loop is over: a mention after it, or a loop around
    it that does not declare ``v`` afresh (its next iteration sees ``v``)."""
    if any(u.ident.start_byte >= loop.node.end_byte for u in uses):
        return True
    decl = next(u for u in uses if u.kind == DECL)
    lp = facts.loops[loop.parent] if loop.parent is not None else None
    while lp is not None:
        if not _within(decl.ident, lp.node):
            return True
        lp = facts.loops[lp.parent] if lp.parent is not None else None
    return False


def _until_empty(loop: Loop, v: str) -> bool:
    """The loop stops only once ``v`` is empty: its condition says so and no ``break`` of its
    own leaves it earlier (a ``return`` or ``throw`` leaves the function: ``v`` is gone)."""
    cond = loop.condition
    if cond is None or loop.kind not in ("while", "for", "do"):
        return False
    shown = flat(cond)
    while shown.startswith("(") and shown.endswith(")"):
        shown = shown[1:-1]
    if shown not in (f"!{v}.empty()", f"{v}.size()>0", f"{v}.size()!=0", f"0<{v}.size()",
                     f"{v}.size()", f"!({v}.empty())"):
        return False
    return not any(n.type == "break_statement" and nearest_target(n) == loop.node
                   for n in walk(loop.node, named=True))


def _within(inner: Node, outer: Node) -> bool:
    return outer.start_byte <= inner.start_byte and inner.end_byte <= outer.end_byte
