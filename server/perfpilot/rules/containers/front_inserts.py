"""Loops that only ever add to the front of a local vector or string.

``r = c + r;`` (a string), ``r.insert(r.begin(), c)`` and ``v.insert(v.begin(), x)`` move every
element already there, so building ``n`` elements this way costs O(n²). When the loop does
nothing else with the container, pushing the new elements onto the back of a scratch container
and putting them, reversed, in front of the old contents once after the loop leaves exactly the
same elements in the same order: the last one added first, then the one before, ..., then what
was there before the loop.

The proof asked of a loop: the container is a local vector or ``std::string`` (not static, not
a reference) declared outside it; inside it every mention of the container is such a front
insert, of one element (a ``char`` for a string, converted as ``push_back`` converts), or of a
whole string for ``r = s + r``; the loop has no ``return``, ``goto`` or ``throw`` (which would
leave before the pieces are put in place; ``break`` and ``continue`` are fine); and nothing can
reach the container another way: no ``&r``, no reference bound to it, no lambda capturing by
reference, and no ``try`` in the function (an exception caught there would see it half built).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from perfpilot.code.declarations import VarType
from perfpilot.code.facts import FunctionFacts, Loop
from perfpilot.code.syntax import (
    Node,
    arguments,
    callee,
    declarator_name,
    node_text,
    operator,
    receiver,
    unwrap,
    walk,
)

_VECTOR = re.compile(r"^(std::)?vector\s*<.+>$")
_STRING = re.compile(r"^(std::)?(string|basic_string\s*<\s*char\s*>)$")
_CHAR_CASTS = re.compile(r"^(\(char\)|char\(|static_cast<char>\()")


@dataclass(frozen=True)
class FrontInsert:
    """One front insert: the statement, the added element or string (``whole``: a string
    whose characters all go in front), as source text."""

    statement: Node
    piece: str
    whole: bool


@dataclass(frozen=True)
class FrontBuilt:
    """A loop that only adds to the front of ``name`` (``string``: a ``std::string``)."""

    loop: Loop
    name: str
    type_text: str
    string: bool
    inserts: tuple[FrontInsert, ...]


def front_built(facts: FunctionFacts) -> list[FrontBuilt]:
    """Every outermost loop proved to only add to the front of a local container."""
    out: list[FrontBuilt] = []
    if any(n.type == "try_statement" for n in walk(facts.fn, named=True)) or \
            any(_captures_by_reference(n) for n in facts.nodes("lambda_expression")):
        return out
    names: dict[str, list[FrontInsert]] = {}
    for e in facts.nodes("assignment_expression") + facts.nodes("call_expression"):
        stmt = e.parent
        if stmt is None or stmt.type != "expression_statement":
            continue
        found = _front_insert(stmt, facts)
        if found is not None:
            names.setdefault(found[0], []).append(found[1])
    for name, inserts in names.items():
        vt = facts.var(name)
        if vt is None or not _local_container(vt) or _aliased(facts, name):
            continue
        is_string = bool(_STRING.match(" ".join(vt.base.split())))
        for loop in _outermost_loops(facts, name, inserts):
            inside = tuple(i for i in inserts if _within(i.statement, loop.node))
            if inside and all(is_string or not i.whole for i in inside):
                out.append(FrontBuilt(loop, name, vt.base, is_string, inside))
    return out


def _front_insert(stmt: Node, facts: FunctionFacts) -> tuple[str, FrontInsert] | None:
    if not stmt.named_children:
        return None
    e = unwrap(stmt.named_children[0])
    if e.type == "assignment_expression" and operator(e) == "=":
        left, right = e.child_by_field_name("left"), e.child_by_field_name("right")
        right = unwrap(right) if right is not None else None
        if left is None or left.type != "identifier" or right is None or \
                right.type != "binary_expression" or operator(right) != "+":
            return None
        piece, last = right.child_by_field_name("left"), right.child_by_field_name("right")
        name = node_text(left)
        if piece is None or last is None or node_text(unwrap(last)) != name or \
                name in _names(piece):
            return None
        kind = _piece_kind(unwrap(piece), facts)
        if kind is None:
            return None
        return name, FrontInsert(stmt, node_text(piece), kind == "string")
    if e.type == "call_expression" and callee(e) == "insert":
        recv, args = receiver(e), arguments(e)
        fn = e.child_by_field_name("function")
        op = fn.child_by_field_name("operator") if fn is not None else None
        if recv is None or recv.type != "identifier" or op is None or node_text(op) != "." or \
                len(args) != 2:
            return None
        name = node_text(recv)
        at = unwrap(args[0])
        begins = "".join(node_text(at).split()) in (f"{name}.begin()", f"{name}.cbegin()")
        if not begins or name in _names(args[1]) or args[1].type == "initializer_list":
            return None  # `{a, b}` inserts two elements
        return name, FrontInsert(stmt, node_text(args[1]), False)
    return None


def _piece_kind(piece: Node, facts: FunctionFacts) -> str | None:
    """``char`` or ``string`` for a piece whose type the source shows, else None."""
    if piece.type == "char_literal":
        return "char"
    if piece.type == "string_literal":
        return "string"
    if piece.type in ("cast_expression", "call_expression") and \
            _CHAR_CASTS.match("".join(node_text(piece).split())):
        return "char"
    if piece.type == "call_expression" and callee(piece) == "to_string":
        return "string"
    if piece.type == "identifier":
        vt = facts.var(node_text(piece))
        if vt is None or vt.array:
            return None
        base = " ".join(vt.base.replace("const", "").split())
        if base == "char" and not vt.pointer:
            return "char"
        if (base == "char" and vt.pointer == 1) or (_STRING.match(base) and not vt.pointer):
            return "string"
    return None


def _local_container(vt: VarType) -> bool:
    base = " ".join(vt.base.split())
    return vt.scope == "local" and not vt.pointer and not vt.array and not vt.reference and \
        not vt.const and "static" not in vt.type_text.split() and \
        bool(_VECTOR.match(base) or _STRING.match(base))


def _aliased(facts: FunctionFacts, name: str) -> bool:
    """``&name`` anywhere, or a reference or pointer declared from it."""
    for n in facts.nodes("pointer_expression"):
        arg = n.child_by_field_name("argument")
        if operator(n) == "&" and arg is not None and node_text(unwrap(arg)) == name:
            return True
    for n in (d for d in walk(facts.fn, named=True) if d.type == "init_declarator"):
        decl, value = n.child_by_field_name("declarator"), n.child_by_field_name("value")
        if decl is not None and decl.type == "reference_declarator" and value is not None \
                and name in _names(value):
            return True
    return False


def _captures_by_reference(lam: Node) -> bool:
    caps = lam.child_by_field_name("captures")
    return caps is not None and "&" in node_text(caps)


def _outermost_loops(facts: FunctionFacts, name: str,
                     inserts: list[FrontInsert]) -> list[Loop]:
    """For each insert, the outermost enclosing loop in which the container is declared
    outside and mentioned only by the inserts, with no way out but ``break``."""
    chosen: dict[int, Loop] = {}
    statements = [i.statement for i in inserts]
    for ins in inserts:
        best: Loop | None = None
        for loop in reversed(facts.enclosing_loops(ins.statement)):  # innermost first
            if not _only_inserts(loop.node, name, statements) or _leaves(loop.node):
                break
            best = loop
        if best is not None:
            chosen[best.node.start_byte] = best
    return list(chosen.values())


def _only_inserts(region: Node, name: str, statements: list[Node]) -> bool:
    for n in walk(region, named=True):
        if n.type == "identifier" and node_text(n) == name and \
                not any(_within(n, s) for s in statements):
            return False
        if n.type in ("declaration", "parameter_declaration") and name in _declared(n):
            return False
    return True


def _declared(decl: Node) -> set[str]:
    out: set[str] = set()
    for d in decl.children_by_field_name("declarator"):
        name = declarator_name(d)
        out |= {name} if name else _names(d)
    return out


def _leaves(loop: Node) -> bool:
    return any(n.type in ("return_statement", "goto_statement", "throw_expression",
                          "co_return_statement") for n in walk(loop, named=True))


def _within(inner: Node, outer: Node) -> bool:
    return outer.start_byte <= inner.start_byte and inner.end_byte <= outer.end_byte


def _names(node: Node) -> set[str]:
    return {node_text(n) for n in walk(node, named=True) if n.type == "identifier"}
