"""Calls in a loop condition whose value the body cannot change (``strlen(s)``, ``v.size()``)."""

from __future__ import annotations

import re
from collections.abc import Callable

import tree_sitter

from perfpilot.code.aliases import UNKNOWN, Storage, storage
from perfpilot.code.declarations import VarType
from perfpilot.code.effects import (
    ELEMENT_COUNT_METHODS,
    NEVER_WRITES_MEMORY,
    NO_SIDE_EFFECTS,
    PARALLEL_SAFE_METHODS,
)
from perfpilot.code.loop_body import (
    BodyFacts,
    CallSite,
)
from perfpilot.code.loop_header import counted_header
from perfpilot.code.nul_stores import stores_no_nul
from perfpilot.code.syntax import (
    callee_parts,
    enclosing_function,
    node_text,
    plain_callee,
    root_name_of,
    walk,
)

Node = tree_sitter.Node


def invariant_calls(node: Node, body: Node, types: dict[str, VarType | None],
                     f: BodyFacts, own_names: frozenset[str],
                     stores: Callable[[Node], Storage] | None = None
                     ) -> tuple[CallSite, ...]:
    cond = node.child_by_field_name("condition")
    if cond is None:
        return ()
    out: list[CallSite] = []
    store: Storage | None = None
    body_calls = [c for c, _ in f.calls]
    unknown_free = [c for c in body_calls if c.method is None and not _writes_nothing(c)]
    for n in walk(cond):
        if n.type != "call_expression":
            continue
        callee, obj, method = callee_parts(n)
        args_node = n.child_by_field_name("arguments")
        args = tuple(node_text(a) for a in args_node.named_children) if args_node else ()
        site = CallSite(node_text(n), callee, obj, method, args, n.start_byte, n.end_byte)
        if method in ELEMENT_COUNT_METHODS and obj is not None and not args and \
                re.fullmatch(r"[A-Za-z_]\w*", obj):
            name = obj
        elif plain_callee(callee) == "strlen" and len(args) == 1 and \
                re.fullmatch(r"[A-Za-z_]\w*", args[0]):
            name = args[0]
        else:
            continue
        vt = types.get(name)
        if vt is None or name in f.locals:
            continue
        if name in f.scalar_writes or name in f.escapes:
            continue
        changed = False
        for c in body_calls:
            if c.obj == name and c.method not in PARALLEL_SAFE_METHODS:
                changed = True
            if any(re.search(rf"\b{re.escape(name)}\b", a) for a in c.args) and \
                    not _writes_nothing(c):
                changed = True
            other = types.get(c.obj) if c.obj else None
            if c.method is not None and c.method not in PARALLEL_SAFE_METHODS and \
                    (other is None or other.base.replace("const", "").strip()
                     == vt.base.replace("const", "").strip()) and \
                    not _distinct(name, vt, c.obj, other):
                changed = True  # unknown or same type: might be the same object via a reference
        if method is None and (f.deref_writes or any(a.write for a, _ in f.element)) and \
                not _stores_keep_terminator(node, body, types, f, name, site.text):
            # strlen: an element write or a write through a pointer may move the terminator
            changed = True
        if unknown_free and (vt.reference or vt.pointer):
            changed = True
        if not changed:
            if store is None:
                store = stores(node) if stores is not None else \
                    storage(enclosing_function(node), types)
            changed = bool(_changed_through_alias(name, vt, types, f, store))
        if name not in own_names and (unknown_free or any(
                c.method is not None and c.method not in PARALLEL_SAFE_METHODS
                for c in body_calls)):
            changed = True  # a global: any call the loop makes could change it
        if not changed:
            out.append(site)
    return tuple(out)


def _writes_nothing(call: CallSite) -> bool:
    """A free function that changes no memory the caller can see: a pure one, or one that
    only reads memory or prints (a format with ``%n`` stores a count: not that)."""
    name = plain_callee(call.callee)
    return name in NO_SIDE_EFFECTS or (name in NEVER_WRITES_MEMORY
                                       and not any("%n" in a for a in call.args))


def aliases_of(name: str, vt: VarType, types: dict[str, VarType | None],
               store: Storage) -> list[str]:
    """The local pointers, references and iterators (``aliases.storage``) that may reach
    ``name``: traced to it, to an untraceable address, or to a pointer or reference of
    ``name``'s type that may be bound to the same object (``_distinct``)."""
    out: list[str] = []
    for alias, reach in sorted(store.origins.items()):
        if alias == name:
            continue
        if name in reach or UNKNOWN in reach or any(
                (other := types.get(o)) is not None and (other.reference or other.pointer)
                and _same_base(vt, other) and not _distinct(name, vt, o, other)
                for o in reach):
            out.append(alias)
    return out


def _changed_through_alias(name: str, vt: VarType, types: dict[str, VarType | None],
                           f: BodyFacts, store: Storage) -> str:
    """A local alias of ``name`` (``aliases_of``) the body may change ``name`` through, or "":
    a method call on it that is not a plain accessor (``q->push_back(x)``), a call it is
    passed to (``grow(*q)``), an assignment through it (``*q = w``, or to a reference), or
    its address taken."""
    aliases = aliases_of(name, vt, types, store)
    for alias in aliases:
        word = re.compile(rf"\b{re.escape(alias)}\b")
        for c, node in f.calls:
            fn = node.child_by_field_name("function")
            obj = fn.child_by_field_name("argument") if fn is not None and \
                fn.type == "field_expression" else None
            if c.method not in PARALLEL_SAFE_METHODS and obj is not None and \
                    root_name_of(obj) == alias:
                return alias
            if plain_callee(c.callee) not in NO_SIDE_EFFECTS and \
                    any(word.search(a) for a in c.args):
                return alias
        alias_type = types.get(alias)
        if alias in f.escapes or (alias in f.scalar_writes and alias_type is not None
                                  and alias_type.reference):
            return alias
        if any(word.match(d.lstrip("*( \t")) for d in f.deref_writes | f.member_writes):
            return alias
    return ""


def _same_base(a: VarType, b: VarType) -> bool:
    return a.base.replace("const", "").strip() == b.base.replace("const", "").strip()


def _plain_local(vt: VarType | None) -> bool:
    """A local object declared in the function itself, not a reference, pointer or static."""
    return vt is not None and vt.scope == "local" and not vt.reference and not vt.pointer \
        and "static" not in vt.type_text


def _distinct(name: str, vt: VarType, obj: str | None, other: VarType | None) -> bool:
    """Whether ``obj`` is surely another object than ``name``: one of them is a local object
    of its own (no parameter, global or reference can name an object the function itself
    declares), and the other is not a local reference or pointer that could be bound to it."""
    if obj is None or obj == name or other is None:
        return False
    if _plain_local(other):
        return True
    return _plain_local(vt) and not other.reference and not other.pointer


def _stores_keep_terminator(node: Node, body: Node, types: dict[str, VarType | None],
                            f: BodyFacts, name: str, call: str) -> bool:
    """In ``for (i = ...; i < strlen(name); ++i)``, the body's element writes are all
    non-NUL stores at ``name[i]``, so the terminator stays put (see ``nul_stores``)."""
    h = counted_header(node, types)
    if isinstance(h, str) or h.op != "<" or h.step != 1 or \
            "".join(h.upper.split()) != "".join(call.split()):
        return False
    if f.deref_writes or any(a.write and a.base != name for a, _ in f.element):
        return False  # another pointer may point into the string
    return stores_no_nul(body, name, h.var)
