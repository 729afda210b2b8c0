"""Where a declared name is visible: the byte range of its scope in the syntax tree.

A block-scope name is visible from its declaration to the end of its block, a parameter
inside its function or lambda, a member inside its class (and the class's member functions
defined outside it), a label inside its function, a template parameter inside its template.
The capability policy uses this so that a name the candidate declares excuses only the uses
it really names: ``{ int system = 0; } std::system(cmd);`` calls the library.
"""

from __future__ import annotations

import re

import tree_sitter

from perfpilot.code.syntax import (
    node_text,
)

Span = tuple[int, int]

# Scopes whose names are visible from the point of declaration onwards.
_SEQUENTIAL = frozenset({"compound_statement", "translation_unit", "declaration_list"})
_SCOPES = _SEQUENTIAL | frozenset({"field_declaration_list", "for_statement",
                                   "for_range_loop", "if_statement", "while_statement",
                                   "switch_statement", "catch_clause"})
_PARAMETER_LISTS = frozenset({"parameter_list", "template_parameter_list"})
# What a parameter list belongs to when its names are visible beyond the list itself.
_PARAMETER_OWNERS = frozenset({"function_definition", "lambda_expression", "catch_clause",
                               "template_declaration", "requires_expression"})
_FUNCTIONS = frozenset({"function_definition", "lambda_expression"})


def visibility(name: tree_sitter.Node, unit_end: int) -> Span:
    """The bytes where the declaration ``name`` (the identifier node that declares it) is
    visible; ``(0, unit_end)`` at file scope."""
    if name.type == "statement_identifier":  # labels have function scope
        node = name.parent
        while node is not None and node.type not in _FUNCTIONS:
            node = node.parent
        return (node.start_byte, node.end_byte) if node is not None else (0, unit_end)
    child, node = name, name.parent
    while node is not None:
        if node.type in _PARAMETER_LISTS:
            owner = node.parent
            while owner is not None and owner.type.endswith("declarator"):
                owner = owner.parent
            if owner is not None and owner.type in _PARAMETER_OWNERS:
                return owner.start_byte, owner.end_byte
            return node.start_byte, node.end_byte  # a prototype's or a type's parameters
        if node.type == "declaration_list":
            # A namespace's (or extern "C" block's) names stay visible after it closes.
            return child.start_byte, unit_end
        if node.type in _SCOPES:
            start = child.start_byte if node.type in _SEQUENTIAL else node.start_byte
            return start, node.end_byte
        child, node = node, node.parent
    return 0, unit_end


def class_bodies(nodes: tuple[tree_sitter.Node, ...]) -> dict[Span, list[Span]]:
    """For each named class body, the spans of that class's member functions defined outside
    it (``long Memo::get() { ... }``): its members are visible there too."""
    bodies: dict[str, list[Span]] = {}
    for node in nodes:
        if node.type in ("struct_specifier", "class_specifier", "union_specifier"):
            name, body = node.child_by_field_name("name"), node.child_by_field_name("body")
            if name is not None and body is not None:
                bodies.setdefault(node_text(name), []).append((body.start_byte, body.end_byte))
    out: dict[Span, list[Span]] = {}
    for node in nodes:
        if node.type != "function_definition":
            continue
        decl = node.child_by_field_name("declarator")
        while decl is not None and decl.type != "function_declarator":
            decl = decl.child_by_field_name("declarator")
        qualified = decl.child_by_field_name("declarator") if decl is not None else None
        if qualified is None or qualified.type != "qualified_identifier":
            continue
        owner = re.sub(r"<[^<>]*>", "", node_text(qualified)).split("::")[-2:-1]
        for span in bodies.get(owner[0].strip() if owner else "", []):
            out.setdefault(span, []).append((node.start_byte, node.end_byte))
    return out
