"""The top-level pieces of code a model wrote: each definition, what it names, and its text.

A model asked for one function often answers with more: a helper struct, a helper function, a
constant, a ``using`` line, sometimes the whole file. ``split_items`` cuts such code into its
top-level items (each with the comments above it and its closing ``;``), says what kind each
is and which names it defines at namespace scope; ``unit_names`` gives the names a translation
unit already defines there, so a helper that would redefine one can be told apart from one
that is new. ``rename_calls`` renames a function where it is only called by its plain name.
Pure syntax: no judgement of what the items do (the capability policy does that).
"""

from __future__ import annotations

from dataclasses import dataclass

import tree_sitter

from perfpilot.code.locate import definition_name
from perfpilot.code.parse import parse
from perfpilot.code.site import Language
from perfpilot.code.syntax import (
    inner_declarator,
    node_text,
    walk,
)

Node = tree_sitter.Node

_TYPES = ("struct_specifier", "class_specifier", "union_specifier", "enum_specifier")
# Containers whose items sit at namespace scope (for the unit's names).
_SCOPES = frozenset({"translation_unit", "namespace_definition", "declaration_list",
                     "linkage_specification", "preproc_if", "preproc_ifdef", "preproc_else",
                     "preproc_elif", "export_declaration"})
_WORDS = {"struct_specifier": "struct", "class_specifier": "class", "union_specifier": "union",
          "enum_specifier": "enum"}


@dataclass(frozen=True)
class Item:
    """One top-level piece of a model's code.

    ``kind``: ``function``, ``prototype``, ``type``, ``alias``, ``using``, ``variable``,
    ``namespace``, ``directive`` or ``other``. ``names``: what it defines at namespace scope
    (for a function, its unqualified name; a qualified one, ``S::f``, sets ``qualified``).
    ``text``: its source with the comments above it; ``core``: its tokens without comments
    or spaces (two items with one core are the same code). ``line``: 1-based, in the code.
    """

    kind: str
    names: tuple[str, ...]
    text: str
    core: str
    line: int
    node_type: str
    qualified: bool = False
    start_byte: int = 0
    end_byte: int = 0

    @property
    def label(self) -> str:
        """How a message names the item: ``struct `Acc```, ``function `helper```."""
        word = {"function": "function", "prototype": "declaration of",
                "alias": "type alias", "variable": "variable", "namespace": "namespace holding",
                "using": "using-declaration", "directive": "directive"}.get(self.kind)
        if self.kind == "type":
            word = _WORDS.get(self.node_type, "type")
        name = f" `{', '.join(self.names)}`" if self.names else ""
        return f"{word or self.node_type.replace('_', ' ')}{name}"


def core_of(node: Node) -> str:
    """The node's tokens without comments or whitespace (a comparison key)."""
    parts: list[str] = []
    stack = [node]
    while stack:
        n = stack.pop()
        if n.type == "comment":
            continue
        if n.child_count == 0 or n.type in ("string_literal", "raw_string_literal",
                                            "char_literal", "system_lib_string"):
            parts.append("".join(node_text(n).split()))
            continue
        stack.extend(reversed(n.children))
    return "".join(parts)


def _declared(node: Node) -> list[str]:
    """Names the declarators of a declaration node declare."""
    names: list[str] = []
    for top in node.children_by_field_name("declarator"):
        decl: Node | None = top
        while decl is not None and decl.type not in ("identifier", "field_identifier",
                                                     "type_identifier", "qualified_identifier",
                                                     "operator_name", "destructor_name"):
            decl = inner_declarator(decl)
        if decl is not None:
            names.append(node_text(decl))
    return names


def _function_declarator(node: Node) -> bool:
    return any(n.type == "function_declarator" for n in walk(node)
               if n.type != "compound_statement") and not any(
        n.type == "init_declarator" for n in node.children)


def _enumerators(node: Node) -> list[str]:
    if node.type != "enum_specifier" or any(node_text(c) in ("class", "struct")
                                            for c in node.children if not c.is_named):
        return []
    body = node.child_by_field_name("body")
    return [node_text(n) for e in (body.named_children if body is not None else ())
            if e.type == "enumerator" and (n := e.child_by_field_name("name")) is not None]


def _type_names(node: Node) -> list[str]:
    name = node.child_by_field_name("name")
    body = node.child_by_field_name("body")
    if body is None:
        return []  # a forward declaration or a use of the type
    return ([node_text(name)] if name is not None else []) + _enumerators(node)


def classify(node: Node) -> tuple[str, list[str], bool]:
    """The kind of a top-level node, the names it defines, and whether a function's name is
    qualified."""
    t = node.type
    if t == "function_definition":
        spelled = definition_name(node)
        short = spelled.split("::")[-1].strip()
        return "function", [short] if short else [], "::" in spelled
    if t == "template_declaration":
        inner = next((c for c in node.named_children if c.type not in (
            "template_parameter_list", "requires_clause", "comment")), None)
        if inner is None:
            return "other", [], False
        kind, names, qualified = classify(inner)
        return kind, names, qualified
    if t in _TYPES:
        names = _type_names(node)
        return ("type", names, False) if names or node.child_by_field_name("body") is not None \
            else ("other", [], False)
    if t in ("alias_declaration", "type_definition"):
        name = node.child_by_field_name("name")
        names = [node_text(name)] if name is not None and t == "alias_declaration" \
            else _declared(node)
        inner = node.child_by_field_name("type")
        if inner is not None and inner.type in _TYPES:
            names += _type_names(inner)
        return "alias", names, False
    if t == "using_declaration":
        return "using", [], False
    if t == "declaration":
        if _function_declarator(node):
            names = [n.split("::")[-1] for n in _declared(node)]
            return "prototype", names, any("::" in n for n in _declared(node))
        names = _declared(node)
        inner = node.child_by_field_name("type")
        if inner is not None and inner.type in _TYPES:
            names = _type_names(inner) + names
            if not _declared(node):
                return "type", names, False
        return "variable", names, any("::" in n for n in names)
    if t == "namespace_definition":
        body = node.child_by_field_name("body")
        names = [n for child in (body.named_children if body is not None else ())
                 for n in classify(child)[1]]
        return "namespace", names, False
    if t in ("preproc_def", "preproc_function_def"):
        macro = node.child_by_field_name("name")
        return "directive", [node_text(macro)] if macro is not None else [], False
    if t.startswith("preproc_"):
        return "directive", [], False
    return "other", [], False


def split_items(code: str, language: Language) -> tuple[list[Item], Node]:
    """The top-level items of ``code`` in order, and the parsed root (for callers that look
    deeper). Comments above an item belong to it; a lone ``;`` to the item before it."""
    data = code.encode("utf-8")
    root = parse(data, language).root_node
    return items_of(root, data), root


def items_of(container: Node, data: bytes) -> list[Item]:
    """The items directly inside ``container`` (a translation unit or a namespace body)."""
    items: list[Item] = []
    gap = container.start_byte
    if container.type == "declaration_list" and data[gap:gap + 1] == b"{":
        gap += 1
    for child in container.children:
        if child.type == "comment" or (not child.is_named and child.type in ("{", "}")):
            continue
        if not child.is_named and child.type == ";" and items:
            last = items[-1]
            items[-1] = Item(last.kind, last.names, data[last.start_byte:child.end_byte].decode(
                "utf-8", "replace").strip("\n"), last.core + ";", last.line, last.node_type,
                last.qualified, last.start_byte, child.end_byte)
            gap = child.end_byte
            continue
        kind, names, qualified = classify(child)
        start = _line_start(data, gap)
        text = data[start:child.end_byte].decode("utf-8", "replace").strip("\n")
        items.append(Item(kind, tuple(dict.fromkeys(names)), text, core_of(child),
                          child.start_point[0] + 1, child.type, qualified, start,
                          child.end_byte))
        gap = child.end_byte
    return items


def _line_start(data: bytes, offset: int) -> int:
    """``offset`` moved past the rest of the line it is on when only blanks follow there."""
    end = data.find(b"\n", offset)
    if end >= 0 and not data[offset:end].strip():
        return end + 1
    return offset


def unit_names(unit_text: str, language: Language) -> dict[str, str]:
    """The names the unit defines at namespace scope (functions by their unqualified name,
    types, aliases, variables, enumerators, macros), each with the kind of its item."""
    root = parse(unit_text, language).root_node
    out: dict[str, str] = {}
    stack = [root]
    while stack:
        node = stack.pop()
        for child in node.named_children:
            if child.type in _SCOPES:
                stack.append(child)
                continue
            if child.type == "namespace_definition":
                body = child.child_by_field_name("body")
                if body is not None:
                    stack.append(body)
                continue
            kind, names, qualified = classify(child)
            if qualified:
                continue  # a method defined out of its class names nothing new here
            for name in names:
                out.setdefault(name, kind)
    return out


def unit_cores(unit_text: str, language: Language) -> frozenset[str]:
    """The comparison keys (``core_of``) of every item at namespace scope in the unit."""
    root = parse(unit_text, language).root_node
    cores: set[str] = set()
    stack = [root]
    while stack:
        node = stack.pop()
        for child in node.named_children:
            if child.type in _SCOPES:
                stack.append(child)
                continue
            if child.type == "namespace_definition":
                body = child.child_by_field_name("body")
                if body is not None:
                    stack.append(body)
            cores.add(core_of(child))
            nxt = child.next_sibling
            if nxt is not None and not nxt.is_named and nxt.type == ";":
                cores.add(core_of(child) + ";")
    return frozenset(cores)


def rename_calls(text: str, language: Language, old: str, new: str) -> str | None:
    """``text`` with every call of ``old`` by its plain name, and the name a function
    definition or declaration of ``old`` declares, spelled ``new``; None when ``old`` is used
    any other way (its address taken, a local of that name, a qualified use)."""
    data = text.encode("utf-8")
    root = parse(data, language).root_node
    spots: list[tuple[int, int]] = []
    for n in walk(root):
        if n.type != "identifier" or node_text(n) != old:
            continue
        parent = n.parent
        called = parent is not None and parent.type == "call_expression" \
            and parent.child_by_field_name("function") == n
        declared = parent is not None and parent.type == "function_declarator" \
            and parent.child_by_field_name("declarator") == n
        if not (called or declared):
            return None
        spots.append((n.start_byte, n.end_byte))
    out = data
    for start, end in sorted(spots, reverse=True):
        out = out[:start] + new.encode("utf-8") + out[end:]
    return out.decode("utf-8")


def defined_in_class(unit_text: str, language: Language, start_byte: int) -> bool:
    """Whether the definition starting at ``start_byte`` of the unit sits inside a class body
    (a method defined in its class), where code put beside it would become members."""
    root = parse(unit_text, language).root_node
    node = root.descendant_for_byte_range(start_byte, start_byte)
    while node is not None:
        if node.type == "field_declaration_list":
            return True
        node = node.parent
    return False
