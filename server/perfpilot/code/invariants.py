"""Calls in a loop condition whose value the body cannot change (``strlen(s)``, ``v.size()``)."""

from __future__ import annotations

import re

import tree_sitter

from perfpilot.code.declarations import VarType
from perfpilot.code.effects import ELEMENT_COUNT_METHODS, NO_SIDE_EFFECTS, PARALLEL_SAFE_METHODS
from perfpilot.code.loop_body import (
    BodyFacts,
    CallSite,
)
from perfpilot.code.loop_header import counted_header
from perfpilot.code.nul_stores import stores_no_nul
from perfpilot.code.syntax import (
    callee_parts,
    node_text,
    plain_callee,
    walk,
)

Node = tree_sitter.Node


def invariant_calls(node: Node, body: Node, types: dict[str, VarType | None],
                     f: BodyFacts, own_names: frozenset[str]) -> tuple[CallSite, ...]:
    cond = node.child_by_field_name("condition")
    if cond is None:
        return ()
    out: list[CallSite] = []
    body_calls = [c for c, _ in f.calls]
    unknown_free = [c for c in body_calls if c.method is None and
                    plain_callee(c.callee) not in NO_SIDE_EFFECTS]
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
                    plain_callee(c.callee) not in NO_SIDE_EFFECTS:
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
        if name not in own_names and (unknown_free or any(
                c.method is not None and c.method not in PARALLEL_SAFE_METHODS
                for c in body_calls)):
            changed = True  # a global: any call the loop makes could change it
        if not changed:
            out.append(site)
    return tuple(out)


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
