"""Pure self-recursion: a function returning an arithmetic value whose result depends on its
arguments alone, so caching it, or computing it bottom-up, keeps every result.

Its parameters are of two kinds. Key parameters: one to three integers by value, the
arguments that change between calls. Invariant parameters: read-only data that every
self-call passes on unchanged, as the very same parameter name in the same position, and the
body never writes: const ``std::string`` / ``std::vector`` of arithmetic values (nested
freely, by const reference or const value) and arithmetic scalars by value. The body reads
only its parameters, its own scalar locals and constants; it may subscript the data, ask its
``size()``, ``length()`` or ``empty()``, and call only itself and pure math. Within one
top-level call the data never change, so a memo per top-level call, keyed on the key
arguments, returns what the original computes.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import tree_sitter

from perfpilot.code.declarations import VarType, declared_types
from perfpilot.code.effects import NO_SIDE_EFFECTS, SIZE_METHODS
from perfpilot.code.syntax import (
    node_text,
    walk,
)

Node = tree_sitter.Node

_SIGNED_WORDS = frozenset({"int", "long", "short", "signed", "int32_t", "int64_t",
                           "std::int32_t", "std::int64_t", "ptrdiff_t", "std::ptrdiff_t"})
_UNSIGNED_WORDS = frozenset({"unsigned", "uint32_t", "uint64_t", "std::uint32_t",
                             "std::uint64_t", "size_t", "std::size_t"})
_ARITH_WORDS = _SIGNED_WORDS | _UNSIGNED_WORDS | frozenset({"double", "float", "char", "bool"})
# Syntax a pure recursion never needs; any of it (or anything unknown that reaches memory or
# the outside) and the function is not proved pure. Subscripts, members, casts by template and
# brace lists are checked where they occur instead.
_REJECT = frozenset({
    "pointer_expression", "string_literal", "raw_string_literal",
    "concatenated_string", "lambda_expression", "new_expression", "delete_expression",
    "goto_statement", "throw_statement", "try_statement", "asm_statement",
    "storage_class_specifier", "this", "co_await_expression",
    "co_return_statement", "co_yield_statement", "user_defined_literal",
    "gnu_asm_expression", "offsetof_expression", "compound_literal_expression",
})
# Standard limits (<climits>, <cstdint>): constants, though their definitions are not in the unit.
_STD_LIMITS = frozenset({
    "INT_MAX", "INT_MIN", "LONG_MAX", "LONG_MIN", "LLONG_MAX", "LLONG_MIN", "UINT_MAX",
    "ULONG_MAX", "ULLONG_MAX", "SHRT_MAX", "SHRT_MIN", "SIZE_MAX", "INT32_MAX", "INT32_MIN",
    "INT64_MAX", "INT64_MIN", "UINT32_MAX", "UINT64_MAX",
})


@dataclass(frozen=True)
class SelfRecursion:
    """A proved-pure self-recursive function: its parameters (names and types, in order), its
    return type, its self-calls (nodes of the function tree), the positions of its key
    parameters (the integers that change between calls; the others are invariant read-only
    data) and its locals."""

    params: tuple[tuple[str, str], ...]
    return_type: str
    calls: tuple[Node, ...]
    keys: tuple[int, ...]
    locals: frozenset[str] = frozenset()

    @property
    def small(self) -> bool:
        """One or two parameters, every one a signed integer by value: the shape the memo
        table and rolling window handle."""
        return 1 <= len(self.params) <= 2 and all(signed_integral(t) for _, t in self.params)

    @property
    def key_params(self) -> tuple[tuple[str, str], ...]:
        """The key parameters (name, type), in order."""
        return tuple(self.params[i] for i in self.keys)

    @property
    def invariant(self) -> frozenset[str]:
        """Names of the parameters every self-call passes on unchanged."""
        return frozenset(p for i, (p, _) in enumerate(self.params) if i not in self.keys)


@dataclass(frozen=True)
class _Param:
    name: str
    type_text: str
    kind: str  # int (integer by value) | scalar (other arithmetic by value) | data
    depth: int = 0  # data: how many subscripts reach an element


def _words(type_text: str) -> list[str]:
    return [w for w in type_text.replace("const", " ").split() if w]


def signed_integral(type_text: str) -> bool:
    """A plain signed integer type (``int``, ``long long``, ``std::int64_t``)."""
    words = _words(type_text)
    return bool(words) and all(w in _SIGNED_WORDS for w in words)


def integral(type_text: str) -> bool:
    """A plain signed or unsigned integer type (not ``char`` or ``bool``)."""
    words = _words(type_text)
    return bool(words) and all(w in _SIGNED_WORDS | _UNSIGNED_WORDS for w in words)


def arithmetic(type_text: str) -> bool:
    """A plain integer or floating type, as a return type."""
    words = _words(type_text)
    return bool(words) and all(w in _ARITH_WORDS for w in words)


def value_type(type_text: str) -> str:
    """The type without ``const`` (``const long long`` -> ``long long``)."""
    return " ".join(_words(type_text))


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


def _data_depth(t: Node | None) -> int | None:
    """Subscripts from a ``std::string`` / ``std::vector`` (nested) of arithmetic values to
    one element; None for any other type."""
    if t is not None and t.type == "qualified_identifier":
        scope = t.child_by_field_name("scope")
        if scope is None or node_text(scope) != "std":
            return None
        t = t.child_by_field_name("name")
    if t is None:
        return None
    if t.type == "type_identifier":
        return 1 if node_text(t) == "string" else None
    if t.type != "template_type":
        return None
    name, args = t.child_by_field_name("name"), t.child_by_field_name("arguments")
    if name is None or node_text(name) != "vector" or args is None:
        return None
    inner = [a for a in args.named_children if a.type != "comment"]
    if len(inner) != 1 or inner[0].type != "type_descriptor" or \
            inner[0].child_by_field_name("declarator") is not None:
        return None
    if arithmetic(node_text(inner[0])):
        return 1
    sub = _data_depth(inner[0].child_by_field_name("type"))
    return None if sub is None else sub + 1


def _param(p: Node) -> _Param | None:
    """One parameter's kind, or None for a type the proof does not cover."""
    if p.type not in ("parameter_declaration", "optional_parameter_declaration"):
        return None
    pd, pt = p.child_by_field_name("declarator"), p.child_by_field_name("type")
    if pd is None or pt is None:
        return None
    const = any(c.type == "type_qualifier" and node_text(c) == "const" for c in p.children)
    reference = pd.type == "reference_declarator"
    if reference:
        if any(not c.is_named and c.type == "&&" for c in pd.children):
            return None
        pd = next((c for c in pd.named_children if c.type != "comment"), None)
        if pd is None:
            return None
    if pd.type != "identifier":
        return None
    name = node_text(pd)
    scalar = " ".join(node_text(c) for c in p.children
                      if c.type in ("type_qualifier", "sized_type_specifier", "primitive_type",
                                    "type_identifier", "qualified_identifier"))
    if not reference and integral(scalar):
        return _Param(name, scalar, "int")
    if not reference and arithmetic(scalar):
        return _Param(name, scalar, "scalar")
    depth = _data_depth(pt)
    if depth is not None and const:
        return _Param(name, " ".join(node_text(p)[:pd.start_byte - p.start_byte].split()),
                      "data", depth)
    return None


def _data_chain(node: Node) -> tuple[Node, int]:
    """The outermost subscript over ``node`` (``g[i][j]`` over ``g``) and how many."""
    cur, depth = node, 0
    while cur.parent is not None and cur.parent.type == "subscript_expression" and \
            cur.parent.child_by_field_name("argument") == cur:
        cur, depth = cur.parent, depth + 1
    return cur, depth


def _asks_size(node: Node) -> bool:
    """``node.size()`` / ``.length()`` / ``.empty()``, called with no arguments."""
    field = node.parent
    if field is None or field.type != "field_expression" or \
            field.child_by_field_name("argument") != node or \
            any(not c.is_named and c.type == "->" for c in field.children):
        return False
    name, call = field.child_by_field_name("field"), field.parent
    return name is not None and node_text(name) in SIZE_METHODS and call is not None and \
        call.type == "call_expression" and call.child_by_field_name("function") == field and \
        not [a for a in (call.child_by_field_name("arguments") or field).named_children
             if a.type != "comment"]


def _data_use(n: Node, param: _Param, position: int, name: str) -> bool:
    """Whether a use of data parameter ``param`` only reads it: an element, a size question,
    or the argument in its own position of a self-call."""
    top, depth = _data_chain(n)
    if depth > param.depth:
        return False
    if depth == param.depth:
        return True
    if _asks_size(top):
        return True
    parent = top.parent
    call = parent.parent if parent is not None else None
    if depth or parent is None or parent.type != "argument_list" or call is None or \
            call.type != "call_expression":
        return False
    fn = call.child_by_field_name("function")
    args = [a for a in parent.named_children if a.type != "comment"]
    return fn is not None and node_text(fn) == name and position < len(args) and \
        args[position] == n


def _cast(n: Node) -> bool:
    """``static_cast<arithmetic>`` as the function of a call."""
    name, targs = n.child_by_field_name("name"), n.child_by_field_name("arguments")
    types = [a for a in targs.named_children if a.type != "comment"] if targs else []
    return name is not None and node_text(name) == "static_cast" and len(types) == 1 and \
        types[0].type == "type_descriptor" and arithmetic(node_text(types[0])) and \
        n.parent is not None and n.parent.type == "call_expression" and \
        n.parent.child_by_field_name("function") == n


def _min_max_list(n: Node) -> bool:
    """A brace list as the argument of ``std::min`` / ``std::max``."""
    call = n.parent.parent if n.parent is not None else None
    fn = call.child_by_field_name("function") if call is not None else None
    return call is not None and call.type == "call_expression" and fn is not None and \
        node_text(fn) in ("min", "max", "std::min", "std::max")


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
    params: list[_Param] = []
    for p in plist.named_children if plist is not None else []:
        if p.type == "comment":
            continue
        param = _param(p)
        if param is None:
            return None
        params.append(param)
    local = declared_types(body)
    if any(vt is None or vt.pointer or vt.array or vt.reference or not arithmetic(vt.base)
           for vt in local.values()) or any(p.name in local for p in params):
        return None
    calls: list[Node] = []
    written: set[str] = set()
    for n in walk(body):
        if n.type in ("assignment_expression", "update_expression"):
            target = n.child_by_field_name("left") or n.child_by_field_name("argument")
            if target is None or target.type != "identifier":
                return None
            written.add(node_text(target))
        elif n.type == "call_expression":
            f = n.child_by_field_name("function")
            if f is not None and node_text(f) == name:
                if len(arguments_of(n)) != len(params):
                    return None
                calls.append(n)
    if len(calls) < 2:
        return None
    by_name = {p.name: (i, p) for i, p in enumerate(params)}
    keys = tuple(i for i, p in enumerate(params)
                 if p.name in written or
                 any(node_text(arguments_of(c)[i]) != p.name for c in calls))
    if not 1 <= len(keys) <= 3 or any(params[i].kind != "int" for i in keys):
        return None
    writable = set(local) | {params[i].name for i in keys}
    if not written <= writable:
        return None
    readable = writable | {p.name for p in params if p.kind != "data"}
    data = {p.name for p in params if p.kind == "data"}
    macros = _numeric_macros(unit_text)
    for n in walk(body):
        if n.type in _REJECT:
            return None
        if n.type == "subscript_expression":
            indices = n.child_by_field_name("indices")
            if indices is None or len([c for c in indices.named_children
                                       if c.type != "comment"]) != 1:
                return None
        elif (n.type == "template_function" and not _cast(n)) or \
                (n.type == "initializer_list" and not _min_max_list(n)):
            return None
        elif n.type == "call_expression":
            f = n.child_by_field_name("function")
            ftext = node_text(f) if f is not None else ""
            bare = ftext[5:] if ftext.startswith("std::") else ftext
            if f is None or ftext == name or f.type in ("field_expression", "template_function"):
                continue  # self-calls counted above; members and casts checked where they are
            if bare not in NO_SIDE_EFFECTS or bare in local:
                return None
        elif n.type == "field_expression":
            base = n.child_by_field_name("argument")
            root = base
            while root is not None and root.type == "subscript_expression":
                root = root.child_by_field_name("argument")
            if base is None or root is None or root.type != "identifier" or \
                    not _asks_size(base) or node_text(root) not in data:
                return None
        if n.type != "identifier" or _in_callee(n) or \
                (n.parent is not None and n.parent.type == "template_function"):
            continue
        word = node_text(n)
        if word == name:
            return None  # the function named other than in a call (its address)
        if word in by_name and by_name[word][1].kind == "data":
            position, param = by_name[word]
            if not _data_use(n, param, position, name):
                return None
            continue
        if word in readable or word in macros or word in _STD_LIMITS:
            continue
        if word in unit_globals and _constant(word, unit_globals[word], unit_text):
            continue
        return None
    return SelfRecursion(tuple((p.name, p.type_text) for p in params), ret, tuple(calls), keys,
                         frozenset(local))


def arguments_of(call: Node) -> list[Node]:
    """A call's argument expressions, comments dropped."""
    args = call.child_by_field_name("arguments")
    return [a for a in args.named_children if a.type != "comment"] if args is not None else []
