"""Pure self-recursion over small integers: a function of one or two signed integer parameters,
returning an arithmetic value, whose body reads only its parameters, its own scalar locals and
constants, does no input/output, and calls only itself and pure math. Such a function's value
depends on its arguments alone, so caching it, or computing it bottom-up, keeps every result.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import tree_sitter

from perfpilot.code.declarations import VarType, declared_types
from perfpilot.code.effects import NO_SIDE_EFFECTS
from perfpilot.code.parse import node_text, walk_all

Node = tree_sitter.Node

_SIGNED_WORDS = frozenset({"int", "long", "short", "signed", "int32_t", "int64_t",
                           "std::int32_t", "std::int64_t", "ptrdiff_t", "std::ptrdiff_t"})
_ARITH_WORDS = _SIGNED_WORDS | frozenset({"unsigned", "double", "float", "uint32_t", "uint64_t",
                                          "std::uint32_t", "std::uint64_t", "size_t",
                                          "std::size_t", "char", "bool"})
# Syntax a pure integer recursion never needs; any of it (or anything unknown that reaches
# memory or the outside) and the function is not proved pure.
_REJECT = frozenset({
    "field_expression", "pointer_expression", "string_literal", "raw_string_literal",
    "concatenated_string", "lambda_expression", "new_expression", "delete_expression",
    "goto_statement", "throw_statement", "try_statement", "asm_statement",
    "storage_class_specifier", "subscript_expression", "this", "co_await_expression",
    "co_return_statement", "co_yield_statement", "template_function", "user_defined_literal",
    "gnu_asm_expression", "offsetof_expression", "compound_literal_expression",
    "initializer_list",
})


@dataclass(frozen=True)
class SelfRecursion:
    """A proved-pure self-recursive function: its parameters (names and types, in order), its
    return type, and its self-calls (nodes of the function tree)."""

    params: tuple[tuple[str, str], ...]
    return_type: str
    calls: tuple[Node, ...]


def _words(type_text: str) -> list[str]:
    return [w for w in type_text.replace("const", " ").split() if w]


def signed_integral(type_text: str) -> bool:
    """A plain signed integer type (``int``, ``long long``, ``std::int64_t``)."""
    words = _words(type_text)
    return bool(words) and all(w in _SIGNED_WORDS for w in words)


def arithmetic(type_text: str) -> bool:
    """A plain integer or floating type, as a return type."""
    words = _words(type_text)
    return bool(words) and all(w in _ARITH_WORDS for w in words)


def _constant(name: str, vt: VarType | None, unit_text: str) -> bool:
    """A global the function may read: a const or constexpr arithmetic scalar (it never
    changes)."""
    if vt is None or vt.pointer or vt.array or vt.reference or not arithmetic(vt.base):
        return False
    return vt.const or re.search(rf"\bconstexpr\b[^;=]*\b{re.escape(name)}\s*=", unit_text) \
        is not None


def _numeric_macros(unit_text: str) -> frozenset[str]:
    """``#define NAME <number>`` names of the unit (constants like a modulus)."""
    return frozenset(re.findall(r"^\s*#\s*define\s+([A-Za-z_]\w*)\s+\(?\s*-?[\d.]+[A-Za-z]*"
                                r"\s*\)?\s*$", unit_text, re.M))


def _in_callee(node: Node) -> bool:
    """Whether ``node`` is (part of) the name a call calls (``std::max``)."""
    cur, parent = node, node.parent
    while parent is not None and parent.type == "qualified_identifier":
        cur, parent = parent, parent.parent
    return parent is not None and parent.type == "call_expression" and \
        parent.child_by_field_name("function") == cur


def self_recursion(fn: Node, name: str, unit_globals: dict[str, VarType | None],
                   unit_text: str) -> SelfRecursion | None:
    """The function's pure self-recursion, or None when any part of the proof fails."""
    decl = fn.child_by_field_name("declarator")
    body = fn.child_by_field_name("body")
    type_node = fn.child_by_field_name("type")
    if decl is None or body is None or type_node is None or decl.type != "function_declarator":
        return None
    own = decl.child_by_field_name("declarator")
    ret = node_text(type_node)
    if own is None or not arithmetic(ret) or node_text(own) != name:
        return None
    plist = decl.child_by_field_name("parameters")
    params: list[tuple[str, str]] = []
    for p in plist.named_children if plist is not None else []:
        if p.type == "comment":
            continue
        pd = p.child_by_field_name("declarator")
        pt = p.child_by_field_name("type")
        if p.type != "parameter_declaration" or pd is None or pt is None or \
                pd.type != "identifier":
            return None
        ptype = " ".join(node_text(c) for c in p.children
                         if c.type in ("type_qualifier", "sized_type_specifier",
                                       "primitive_type", "type_identifier",
                                       "qualified_identifier"))
        if not signed_integral(ptype):
            return None
        params.append((node_text(pd), ptype))
    if not 1 <= len(params) <= 2:
        return None
    local = declared_types(body)
    if any(vt is None or vt.pointer or vt.array or vt.reference or not arithmetic(vt.base)
           for vt in local.values()):
        return None
    known = set(local) | {p for p, _ in params}
    macros = _numeric_macros(unit_text)
    calls: list[Node] = []
    for n in walk_all(body):
        if n.type in _REJECT:
            return None
        if n.type in ("assignment_expression", "update_expression"):
            target = n.child_by_field_name("left") or n.child_by_field_name("argument")
            if target is None or target.type != "identifier" or node_text(target) not in known:
                return None
        if n.type == "call_expression":
            f = n.child_by_field_name("function")
            ftext = node_text(f) if f is not None else ""
            bare = ftext[5:] if ftext.startswith("std::") else ftext
            if ftext == name:
                args = n.child_by_field_name("arguments")
                if args is None or len([a for a in args.named_children
                                        if a.type != "comment"]) != len(params):
                    return None
                calls.append(n)
            elif bare not in NO_SIDE_EFFECTS or bare in local:
                return None
            continue
        if n.type != "identifier":
            continue
        if _in_callee(n):
            continue
        word = node_text(n)
        if word == name:
            return None  # the function named other than in a call (its address)
        if word in known or word in macros:
            continue
        if word in unit_globals and _constant(word, unit_globals[word], unit_text):
            continue
        return None
    if len(calls) < 2:
        return None
    return SelfRecursion(tuple(params), ret, tuple(calls))
