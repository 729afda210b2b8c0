"""Whether a variable of static storage duration is a constant table or state.

A ``static`` local, a static data member or a namespace-scope variable lives across calls.
It is harmless only as a constant table: ``const`` or ``constexpr``, of a literal type with no
``mutable``, pointer, reference or smart-pointer parts (numbers, characters, enumerations,
arrays of them, ``std::array``/``std::pair``/``std::tuple`` of them, plain structs of them),
initialised from constants. Anything else can remember an earlier call and answer from it:
``static const std::unique_ptr<std::vector<long>>`` (the pointer is const, the vector is not),
a ``static const`` struct with ``mutable`` members, ``static const long first = n``.
"""

from __future__ import annotations

import re

import tree_sitter

from perfpilot.code.syntax import (
    node_text,
    walk,
)
from perfpilot.runner import capability_lists as L

_SCALAR_NAMES = frozenset({"size_t", "ssize_t", "ptrdiff_t", "intptr_t", "uintptr_t",
                           "intmax_t", "uintmax_t", "wchar_t", "char8_t", "char16_t",
                           "char32_t", "float_t", "double_t", "byte", "bool"})
# Literal class templates whose arguments are their only parts.
_AGGREGATES = frozenset({"array", "pair", "tuple", "complex"})
_INDIRECT = frozenset({"pointer_declarator", "reference_declarator", "function_declarator",
                       "abstract_pointer_declarator", "abstract_reference_declarator",
                       "abstract_function_declarator"})
# What a constant initialiser may contain: literals, operators, brace lists, sizeof.
_CONSTANT_NODES = frozenset({
    "number_literal", "char_literal", "string_literal", "raw_string_literal",
    "concatenated_string", "string_content", "escape_sequence", "character", "true", "false",
    "initializer_list", "initializer_pair", "field_designator", "subscript_designator",
    "unary_expression", "binary_expression", "parenthesized_expression",
    "conditional_expression", "sizeof_expression", "alignof_expression", "type_descriptor",
    "primitive_type", "sized_type_specifier", "comment", "nullptr"})
STATIC_WORDS = frozenset({"static", "thread_local", "_Thread_local", "__thread"})


def qualifier_words(decl: tree_sitter.Node) -> frozenset[str]:
    """The storage classes and qualifiers a declaration spells (``static``, ``const``...)."""
    return frozenset(node_text(c) for c in decl.children
                     if c.type in ("storage_class_specifier", "type_qualifier"))


def literal_types(nodes: tuple[tree_sitter.Node, ...]) -> frozenset[str]:
    """Names of the enumerations and plain structs among ``nodes`` that a constant table may
    hold: no ``mutable``, pointer or reference member, no base class, every member a literal
    type (structs of structs resolved to a fixed point)."""
    known = {node_text(n.child_by_field_name("name") or n) for n in nodes
             if n.type == "enum_specifier" and n.child_by_field_name("name") is not None}
    structs = [n for n in nodes if n.type in ("struct_specifier", "class_specifier")
               and n.child_by_field_name("name") is not None
               and n.child_by_field_name("body") is not None]
    changed = True
    while changed:
        changed = False
        for node in structs:
            name = node_text(node.child_by_field_name("name") or node)
            if name not in known and _plain_struct(node, frozenset(known)):
                known.add(name)
                changed = True
    return frozenset(known)


def _plain_struct(node: tree_sitter.Node, known: frozenset[str]) -> bool:
    if any(c.type == "base_class_clause" for c in node.children):
        return False
    body = node.child_by_field_name("body")
    for field in body.named_children if body is not None else []:
        if field.type != "field_declaration":
            continue
        words = qualifier_words(field)
        if "mutable" in words:
            return False
        if words & STATIC_WORDS:
            continue  # a static member is a variable of its own, judged where it stands
        if any(n.type in _INDIRECT for d in field.children_by_field_name("declarator")
               for n in walk(d)) and not _method(field):
            return False
        if not _method(field) and not literal_type(field.child_by_field_name("type"), known):
            return False
    return True


def _method(field: tree_sitter.Node) -> bool:
    return any(d.type == "function_declarator" for d in field.children_by_field_name("declarator"))


def literal_type(node: tree_sitter.Node | None, known: frozenset[str]) -> bool:
    """Whether the type ``node`` spells has no parts a constant could change through: a
    number, character, enumeration, or an array, ``std::array``, pair, tuple or plain struct
    of those (``known`` names the unit's and candidate's enumerations and plain structs)."""
    if node is None:
        return False
    if node.type in ("primitive_type", "sized_type_specifier"):
        return True
    if node.type in ("enum_specifier",):
        return True
    if node.type in ("struct_specifier", "class_specifier"):
        return node.child_by_field_name("body") is not None and _plain_struct(node, known)
    if node.type == "type_descriptor":
        declarator = node.child_by_field_name("declarator")
        return (declarator is None or declarator.type not in _INDIRECT) and \
            literal_type(node.child_by_field_name("type"), known)
    if node.type == "type_identifier":
        text = node_text(node)
        return text in _SCALAR_NAMES or text in known or bool(L.INT_TYPE.match(text))
    if node.type == "qualified_identifier":
        scope = node.child_by_field_name("scope")
        inner = node.child_by_field_name("name")
        if scope is None or node_text(scope) != "std":
            return inner is not None and inner.type == "type_identifier" \
                and node_text(inner) in known
        return literal_type(inner, known)
    if node.type == "template_type":
        name = node.child_by_field_name("name")
        args = node.child_by_field_name("arguments")
        if name is None or node_text(name) not in _AGGREGATES or args is None:
            return False
        types = [a for a in args.named_children if a.type == "type_descriptor"]
        return bool(types) and all(literal_type(a, known) for a in types)
    return False


def constant_value(node: tree_sitter.Node, constants: frozenset[str]) -> bool:
    """Whether an initialiser is made of literals, operators and ``constants`` (names of
    constants, or capitalised macros) only: no call, no parameter, no variable."""
    for n in walk(node):
        if n.type in ("identifier", "qualified_identifier"):
            text = node_text(n)
            last = re.split(r"::", text)[-1].strip()
            if last not in constants and not L.CONSTANT.match(last):
                return False
            continue
        if n.parent is not None and n.parent.type == "qualified_identifier":
            continue
        if n.is_named and n.type not in _CONSTANT_NODES and n.type not in (
                "namespace_identifier", "field_identifier", "argument_list"):
            return False
    return True


def constant_table(decl: tree_sitter.Node, known: frozenset[str],
                   constants: frozenset[str]) -> bool:
    """Whether ``decl`` (a declaration or field declaration of static storage) declares a
    constant table, see the module's description."""
    words = qualifier_words(decl)
    if not words & {"const", "constexpr"} or words & (STATIC_WORDS - {"static"}):
        return False
    type_node = decl.child_by_field_name("type")
    auto = type_node is not None and type_node.type == "placeholder_type_specifier"
    if not auto and not literal_type(type_node, known):
        return False
    values: list[tree_sitter.Node] = []
    for top in decl.children_by_field_name("declarator"):
        if any(n.type in _INDIRECT for n in walk(top)):
            return False
        if top.type == "init_declarator":
            value = top.child_by_field_name("value")
            if value is not None:
                values.append(value)
    values += decl.children_by_field_name("default_value")
    if auto and not values:
        return False
    # constexpr guarantees a value fixed at compile time, of a type ``auto`` could hide only
    # with literal parts; plain const needs constant initialisers to be fixed before any call.
    return all(constant_value(v, constants) for v in values) if (auto or "constexpr" not in
                                                                 words) else True
