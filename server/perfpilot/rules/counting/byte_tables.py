"""Byte containers a loop reads but cannot change: the facts behind the 256-entry table
rewrites.

A loop that counts a value in the same container on every iteration (``std::count``), or asks
whether a value is one of a string's characters (``set.find(c)``), repeats a scan whose answer
depends only on the value. When the elements are one byte wide, one pass over the container
before the loop fills a 256-entry table that answers each later question with one load. That
needs:

- the container is a variable holding one-byte elements (``char``, ``signed char``,
  ``unsigned char``, ``int8_t``, ``uint8_t``): a ``std::string``, or a ``std::vector`` or
  ``std::array`` of them (``byte_container``); a view or a pointer is refused, since the
  storage it shows may belong to a local the loop writes;
- it is not declared inside the loop the table is built before, and nothing in that loop can
  change it (``read_only_copy.source_unchanged``: no write to it or to any name that may share
  its storage, no call that may run unknown code) (``table_loops``);
- for a count, the value must compare with the elements as a key does
  (``count_keys.py``, used by ``count_tables.py``).
"""

from __future__ import annotations

import re
from collections.abc import Callable

from perfpilot.code.declarations import VarType
from perfpilot.code.effects import NEVER_WRITES_MEMORY, READ_ONLY_METHODS
from perfpilot.code.facts import FunctionFacts, Loop
from perfpilot.code.read_only_copy import UnitNames, source_unchanged
from perfpilot.code.syntax import (
    Node,
    arguments,
    callee,
    declarator_name,
    node_text,
    operator,
    receiver,
    root_name,
    walk,
)
from perfpilot.rules.counting.count_keys import container_element, scalar_type

_ONE_BYTE = {
    "char": "char", "signed char": "signed char", "unsigned char": "unsigned char",
    "uint8_t": "unsigned char", "std::uint8_t": "unsigned char",
    "int8_t": "signed char", "std::int8_t": "signed char",
}
# Signed types at least as wide as int: comparing one with an element promotes the element to
# it, value for value. (An unsigned one would turn a negative element into a large value.)
_WIDE_SIGNED = {"int": "int", "signed": "int", "signed int": "int", "long": "long",
                "long int": "long", "long long": "long long", "long long int": "long long",
                "short": "short", "short int": "short"}
_CONTAINER = re.compile(r"(?:std::)?(string|vector|array)(?:<(.*)>)?")


def _plain(type_text: str) -> str:
    return " ".join(re.sub(r"\b(const|volatile)\b", " ", type_text).split())


def byte_type(type_text: str) -> str | None:
    """The one-byte type ``type_text`` names (``uint8_t`` reads as ``unsigned char``), or
    None."""
    return _ONE_BYTE.get(_plain(type_text))


def byte_container(v: VarType | None) -> str | None:
    """The element type of a ``std::string`` or a ``std::vector``/``std::array`` of one-byte
    elements held by the variable ``v`` (by value or reference), or None."""
    if v is None or v.pointer or v.array:
        return None
    m = _CONTAINER.fullmatch(_plain(v.base).replace(" <", "<").replace("< ", "<"))
    if m is None:
        return None
    if m.group(1) == "string":
        return "char" if m.group(2) is None else None
    if m.group(2) is None:
        return None
    args = [a.strip() for a in m.group(2).split(",")]
    if (m.group(1) == "vector" and len(args) != 1) or (m.group(1) == "array" and len(args) != 2):
        return None
    return byte_type(args[0])


def declared_scalar(facts: FunctionFacts, name: str, copies_only: bool = False,
                    scalar: Callable[[str], str | None] | None = None,
                    element: Callable[[VarType | None], str | None] | None = None
                    ) -> str | None:
    """The scalar type every declaration of ``name`` in the function gives it (a range-for
    ``auto`` variable takes a container's element type), or None; with ``copies_only``,
    None also when some declaration makes it a reference. ``scalar`` names the types taken
    (one-byte and signed types at least as wide as ``int`` by default), ``element`` the
    elements of a container (a byte container's by default)."""
    scalar = scalar or _scalar
    element = element or byte_container
    found: set[str | None] = set()
    for p in facts.site.params:
        if p.name == name:
            found.add(None if p.pointer or p.array or (copies_only and p.reference)
                      else scalar(p.base))
    for d in facts.nodes("declaration"):
        found |= {None if v.pointer or v.array or (copies_only and v.reference)
                  else scalar(v.base) for v in facts.local_vars(d) if v.name == name}
    for r in facts.nodes("for_range_loop"):
        decl = r.child_by_field_name("declarator")
        if declarator_name(decl) != name:
            continue
        declared = node_text(r.child_by_field_name("type"))
        right = r.child_by_field_name("right")
        if copies_only and decl is not None and decl.type != "identifier":
            found.add(None)  # a reference (or something else) to an element
        elif _plain(declared) == "auto":
            found.add(element(facts.var(node_text(right))) if right is not None and
                      right.type == "identifier" else None)
        else:
            found.add(scalar(declared))
    if not found:
        v = facts.var(name)  # a global
        found.add(None if v is None or v.pointer or v.array or v.reference or copies_only
                  else scalar(v.base))
    return found.pop() if len(found) == 1 else None


def _moved_pointer(facts: FunctionFacts, region: Node, name: str) -> bool:
    """``name`` is a pointer variable (not a reference to one) that ``region`` only moves
    (``++p``, ``p = e``, ``p += k``): no store through it, no address taken, no call given it
    that may write, so its writes change nothing but itself."""
    decls = [v for d in facts.nodes("declaration") for v in facts.local_vars(d) if v.name == name]
    decls += [VarType(p.base, p.pointer, p.array, p.reference) for p in facts.site.params
              if p.name == name]
    if not decls or any(v.pointer != 1 or v.array or v.reference for v in decls) or \
            any(declarator_name(r.child_by_field_name("declarator")) == name
                for r in facts.nodes("for_range_loop")):
        return False
    for n in walk(region, named=True):
        if n.type in ("assignment_expression", "compound_assignment_expression",
                      "update_expression"):
            target = n.child_by_field_name("left") or n.child_by_field_name("argument")
            if root_name(target) == name and (target is None or target.type != "identifier"):
                return False
        elif n.type == "pointer_expression" and operator(n) == "&" and \
                root_name(n.child_by_field_name("argument")) == name:
            return False
        elif n.type == "call_expression":
            rcv = receiver(n)
            reads = READ_ONLY_METHODS if rcv is not None else NEVER_WRITES_MEMORY
            if (rcv is not None and root_name(rcv) == name) or (
                    callee(n) not in reads and any(root_name(a) == name for a in arguments(n))):
                return False
        elif n.type == "delete_expression":
            return False
    return True


def _element_binding(facts: FunctionFacts, name: str) -> bool:
    """``name`` is declared only by range-based for loops, each time as a ``const`` reference
    or as a copy of an integer or string: binding it on each iteration writes no other
    object, and no store can go through it."""
    if any(p.name == name for p in facts.site.params) or any(
            v.name == name for d in facts.nodes("declaration") for v in facts.local_vars(d)):
        return False
    found = False
    for r in facts.nodes("for_range_loop"):
        decl = r.child_by_field_name("declarator")
        if decl is None or declarator_name(decl) != name:
            continue
        found = True
        if decl.type == "reference_declarator":
            const = any(c.type == "type_qualifier" and node_text(c) == "const"
                        for c in r.children if c.end_byte <= decl.start_byte)
            if not const or node_text(decl).lstrip().startswith("&&"):
                return False
            continue
        right = r.child_by_field_name("right")
        declared = _plain(node_text(r.child_by_field_name("type")))
        copied = container_element(facts.var(node_text(right))) if declared == "auto" and \
            right is not None and right.type == "identifier" else \
            (scalar_type(declared) if declared != "auto" else None)
        if decl.type != "identifier" or copied is None:
            return False
    return found


def _scalar(type_text: str) -> str | None:
    plain = _plain(type_text)
    return _ONE_BYTE.get(plain) or _WIDE_SIGNED.get(plain)


def simple_value(node: Node) -> bool:
    """A value that may be read more than once: a variable, a literal, or an element
    ``v[k]`` of a variable at a variable or literal index."""
    if node.type == "subscript_expression":
        base = node.child_by_field_name("argument")
        index = node.child_by_field_name("indices") or node.child_by_field_name("index")
        inner = index.named_children if index is not None and \
            index.type == "subscript_argument_list" else [index]
        return base is not None and base.type == "identifier" and len(inner) == 1 and \
            inner[0] is not None and inner[0].type in ("identifier", "number_literal")
    return node.type in ("identifier", "char_literal", "number_literal")


def table_loops(facts: FunctionFacts, unit: UnitNames, node: Node, name: str
                ) -> tuple[list[Loop], str]:
    """The loops around ``node``, outermost first, before which a table of the container
    ``name`` may be built (it is declared outside and no write in them may reach it), and
    why the others may not."""
    ok: list[Loop] = []
    why = ""
    for lp in facts.enclosing_loops(node):
        if name in facts.declared_in(lp.node):
            why = why or f"`{name}` is declared inside the loop on line {lp.line}"
            continue
        # scalars the function holds by value own their storage: writing them (or handing
        # them to a call by value) changes nothing else
        own = frozenset(n for n in facts.modified_in(lp.node)
                        if declared_scalar(facts, n, copies_only=True) is not None
                        or _moved_pointer(facts, lp.node, n) or _element_binding(facts, n))
        problem = source_unchanged(facts, unit, name, "", lp.node.start_byte, lp.node.end_byte,
                                   lp.node, own)
        if problem:
            why = why or f"in the loop on line {lp.line}, {problem}"
            continue
        ok.append(lp)
    return ok, why
