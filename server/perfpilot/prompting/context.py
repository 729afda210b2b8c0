"""The parts of a translation unit a model needs to rewrite one function, within a budget.

In order of priority: preprocessor lines (includes, defines) and using-declarations, the types
the function names, the globals it reads or writes, then the helpers it calls (whole, or only
their signature when the budget is short). Sizes are estimated at four characters a token.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

import tree_sitter

from perfpilot.code.locate import list_functions
from perfpilot.code.parse import parse
from perfpilot.code.site import FunctionSite
from perfpilot.code.syntax import (
    node_text,
)

_WORD = re.compile(r"[A-Za-z_]\w*")
_TYPE_NODES = {"struct_specifier", "class_specifier", "union_specifier", "enum_specifier"}
_SCOPES = {"namespace_definition", "declaration_list", "linkage_specification",
           "preproc_if", "preproc_ifdef", "preproc_else", "preproc_elif"}


def estimate_tokens(text: str) -> int:
    """An approximate token count (four characters a token)."""
    return (len(text) + 3) // 4


def _top_level(root: tree_sitter.Node) -> Iterator[tree_sitter.Node]:
    stack = list(reversed(root.children))
    while stack:
        node = stack.pop()
        if node.type in _SCOPES:
            stack.extend(reversed(node.children))
            continue
        yield node


def _declared_names(node: tree_sitter.Node) -> set[str]:
    names: set[str] = set()
    stack = [c for c in node.children_by_field_name("declarator")]
    while stack:
        d = stack.pop()
        if d.type in ("identifier", "field_identifier", "type_identifier"):
            names.add(node_text(d))
            continue
        inner = d.child_by_field_name("declarator")
        if inner is not None:
            stack.append(inner)
        elif d.type == "qualified_identifier":
            name = d.child_by_field_name("name")
            if name is not None:
                names.add(node_text(name))
    return names


def _type_name(node: tree_sitter.Node) -> str | None:
    """The name a top-level node defines as a type (struct, class, enum, typedef, alias)."""
    if node.type in _TYPE_NODES:
        name = node.child_by_field_name("name")
        return node_text(name) if name is not None else None
    if node.type == "alias_declaration":
        name = node.child_by_field_name("name")
        return node_text(name) if name is not None else None
    if node.type == "type_definition":
        names = _declared_names(node)
        return next(iter(names)) if names else None
    if node.type == "declaration":
        # "struct P { ... };" parses as a declaration whose type is the struct.
        t = node.child_by_field_name("type")
        if t is not None and t.type in _TYPE_NODES and t.child_by_field_name("body") is not None:
            name = t.child_by_field_name("name")
            return node_text(name) if name is not None else None
    if node.type == "template_declaration":
        for child in node.named_children:
            found = _type_name(child)
            if found:
                return found
    return None


def _calls(site: FunctionSite) -> set[str]:
    tree = parse(site.text, site.language)
    names: set[str] = set()
    stack = [tree.root_node]
    while stack:
        n = stack.pop()
        if n.type == "call_expression":
            fn = n.child_by_field_name("function")
            if fn is not None:
                words = _WORD.findall(node_text(fn))
                if words:
                    names.add(words[-1])
        stack.extend(n.children)
    return names


def unit_context(site: FunctionSite, budget_tokens: int = 1500) -> str:
    """The context of ``site`` from its translation unit, at most ``budget_tokens`` long.

    Never includes the function itself. Returns an empty string when nothing is relevant.
    """
    words = set(_WORD.findall(site.text))
    tree = parse(site.unit_text, site.language)
    preproc: list[str] = []
    types: list[str] = []
    globals_: list[str] = []
    for node in _top_level(tree.root_node):
        if node.start_byte >= site.start_byte and node.end_byte <= site.end_byte:
            continue
        text = node_text(node).strip()
        if node.type in ("preproc_include", "preproc_def", "preproc_function_def",
                         "using_declaration") or (node.type == "preproc_call"
                                                  and "pragma" in text):
            preproc.append(text)
            continue
        tname = _type_name(node)
        if tname is not None:
            if tname in words:
                types.append(text)
            continue
        if node.type == "declaration" and _declared_names(node) & words:
            if "(" in text and ")" in text and "=" not in text and "{" not in text:
                continue  # a prototype; helpers come below
            globals_.append(text)
    called = _calls(site) - {site.name}
    helpers = [f for f in list_functions(site.unit_text, site.language)
               if f.name in called and f.start_byte != site.start_byte]
    pieces: list[str] = []
    used = 0

    def add(text: str) -> bool:
        nonlocal used
        cost = estimate_tokens(text) + 1
        if used + cost > budget_tokens:
            return False
        pieces.append(text)
        used += cost
        return True

    for group in (preproc, types, globals_):
        for text in group:
            add(text)
    for helper in helpers:
        if not add(helper.text.strip()):
            add(helper.signature + ";")
    return "\n".join(pieces)
