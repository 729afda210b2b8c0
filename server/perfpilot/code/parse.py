"""Parsing C and C++ with tree-sitter, and small helpers over its nodes."""

from __future__ import annotations

from collections.abc import Iterator
from functools import cache
from pathlib import PurePosixPath

import tree_sitter
import tree_sitter_c
import tree_sitter_cpp

from perfpilot.code.site import Language

# Statements that repeat their body.
LOOP_TYPES = frozenset({"for_statement", "for_range_loop", "while_statement", "do_statement"})

_C_EXTENSIONS = {".c"}
_CPP_EXTENSIONS = {
    ".cc", ".cpp", ".cxx", ".c++", ".hpp", ".hh", ".hxx", ".h", ".ipp", ".tpp", ".inl",
}


@cache
def grammar(language: Language) -> tree_sitter.Language:
    """The tree-sitter grammar for ``language`` (loaded once)."""
    capsule = tree_sitter_c.language() if language == "c" else tree_sitter_cpp.language()
    return tree_sitter.Language(capsule)


def parse(text: str | bytes, language: Language) -> tree_sitter.Tree:
    """Parse a translation unit; tree-sitter never fails, errors appear as ERROR nodes."""
    data = text.encode("utf-8") if isinstance(text, str) else text
    return tree_sitter.Parser(grammar(language)).parse(data)


def language_for(path_or_uri: str, language_id: str | None = None) -> Language | None:
    """The language of a document from its LSP language id, else from its file extension.

    Returns None for documents PerfPilot does not handle.
    """
    if language_id in ("c", "cpp", "cuda-cpp", "objective-cpp"):
        return "c" if language_id == "c" else "cpp"
    if language_id:
        return None
    suffix = PurePosixPath(path_or_uri).suffix.lower()
    if suffix in _C_EXTENSIONS:
        return "c"
    if suffix in _CPP_EXTENSIONS:
        return "cpp"
    return None


def walk_all(node: tree_sitter.Node) -> Iterator[tree_sitter.Node]:
    """Every node under ``node``, named or not, in pre-order (source order)."""
    stack = [node]
    while stack:
        n = stack.pop()
        yield n
        stack.extend(reversed(n.children))


def inner_declarator(decl: tree_sitter.Node) -> tree_sitter.Node | None:
    """The declarator nested in ``decl`` (``x`` in ``*x``, ``f(int)`` in ``&f(int)``): its
    ``declarator`` field, else the first child that is a declarator or a name."""
    inner = decl.child_by_field_name("declarator")
    if inner is None:
        inner = next((c for c in decl.named_children
                      if c.type.endswith("declarator")
                      or c.type in ("identifier", "field_identifier")), None)
    return inner


def node_text(node: tree_sitter.Node) -> str:
    """The source text of a node."""
    raw = node.text
    return raw.decode("utf-8", "replace") if raw is not None else ""


def mutations(node: tree_sitter.Node) -> Iterator[tuple[tree_sitter.Node, tree_sitter.Node]]:
    """``(expression, target)`` for every assignment, ``++``/``--`` and address-of (``&x``,
    which lets ``x`` change elsewhere) under ``node``."""
    for n in walk_all(node):
        if n.type == "assignment_expression":
            target = n.child_by_field_name("left")
        elif n.type == "update_expression" or (
                n.type == "pointer_expression" and node_text(n).startswith("&")):
            target = n.child_by_field_name("argument")
        else:
            continue
        if target is not None:
            yield n, target


def unparen(node: tree_sitter.Node) -> tree_sitter.Node:
    """``node`` without the parentheses around it."""
    while node.type == "parenthesized_expression" and node.named_child_count == 1:
        child = node.named_children[0]
        if child is None:
            break
        node = child
    return node


def int_literal(node: tree_sitter.Node) -> int | None:
    """The value of an integer literal node (``42``, ``0x2a``, ``7u``), else None."""
    try:
        return int(node_text(node).rstrip("uUlL"), 0)
    except ValueError:
        return None


def unwrap(node: tree_sitter.Node | None) -> tree_sitter.Node | None:
    """The expression inside ``condition_clause`` / parentheses (C and C++ differ here)."""
    while node is not None and node.type in ("condition_clause", "parenthesized_expression"):
        inner = node.child_by_field_name("value")
        if inner is None:
            inner = next((c for c in node.named_children if c.type != "comment"), None)
        if inner is None:
            return node
        node = inner
    return node


def statements(body: tree_sitter.Node | None) -> list[tree_sitter.Node]:
    """The statements of a loop or branch body (a lone statement counts as a list of one)."""
    if body is None:
        return []
    if body.type == "compound_statement":
        return [c for c in body.named_children if c.type != "comment"]
    return [body]


def tree_shape(node: tree_sitter.Node, max_depth: int, max_nodes: int) -> tuple[int, int]:
    """``(depth, nodes)`` of the tree under ``node``, counted until either passes its bound
    (then the counts stop just past it). Iterative, so a deep tree cannot overflow a stack."""
    cursor = node.walk()
    depth = deepest = nodes = 1
    while deepest <= max_depth and nodes <= max_nodes:
        if cursor.goto_first_child():
            depth += 1
            deepest = max(deepest, depth)
            nodes += 1
            continue
        while not cursor.goto_next_sibling():
            if not cursor.goto_parent():
                return deepest, nodes
            depth -= 1
        nodes += 1
    return deepest, nodes
