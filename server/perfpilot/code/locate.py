"""Locating function definitions in a translation unit with tree-sitter.

Handles free functions, methods defined in and out of class, templates, operators, static and
inline functions, functions in namespaces and ``extern "C"`` blocks, and functions containing
``#pragma omp``. Errors say what is wrong in one sentence.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

import tree_sitter

from perfpilot.code.parse import parse
from perfpilot.code.site import FunctionSite, Language, Param
from perfpilot.code.syntax import (
    inner_declarator,
    node_text,
)


class LocateError(Exception):
    """A function could not be located; the message is meant for the user."""


class NoFunctionError(LocateError):
    """There is no function definition at the position or with the name."""


class AmbiguousFunctionError(LocateError):
    """Several definitions match a name; ``choices`` lists them for the user to pick."""

    def __init__(self, message: str, choices: tuple[FunctionSite, ...]) -> None:
        super().__init__(message)
        self.choices = choices


class SyntaxErrorNearFunction(LocateError):
    """The syntax tree has errors inside the function, so a rewrite cannot be trusted."""

    def __init__(self, message: str, line: int) -> None:
        super().__init__(message)
        self.line = line


# Nodes whose children may be function definitions (we never descend into function bodies).
_CONTAINERS = {
    "translation_unit",
    "namespace_definition",
    "declaration_list",
    "field_declaration_list",
    "class_specifier",
    "struct_specifier",
    "union_specifier",
    "template_declaration",
    "linkage_specification",
    "preproc_if",
    "preproc_ifdef",
    "preproc_else",
    "preproc_elif",
    "preproc_elifdef",
    "export_declaration",
}
_WRAPPING_DECLARATORS = {
    "pointer_declarator",
    "reference_declarator",
    "parenthesized_declarator",
    "attributed_declarator",
}


def iter_function_nodes(root: tree_sitter.Node) -> Iterator[tree_sitter.Node]:
    """Yield every ``function_definition`` node outside function bodies, in source order."""
    stack = [root]
    while stack:
        node = stack.pop()
        if node.type == "function_definition":
            yield node
            continue
        # Push in reverse so children pop in source order.
        for child in reversed(node.children):
            if child.type in _CONTAINERS or child.type == "function_definition":
                stack.append(child)


def _function_declarator(fn: tree_sitter.Node) -> tree_sitter.Node | None:
    decl = fn.child_by_field_name("declarator")
    while decl is not None and decl.type != "function_declarator":
        if decl.type in _WRAPPING_DECLARATORS:
            decl = inner_declarator(decl)
        else:
            return None
    return decl


def definition_name(fn: tree_sitter.Node) -> str:
    """The name a ``function_definition`` node declares, as written (``solve``,
    ``Solver::solve``, ``operator<``); empty when its declarator is not a function's."""
    fdecl = _function_declarator(fn)
    name = fdecl.child_by_field_name("declarator") if fdecl is not None else None
    return node_text(name) if name is not None else ""


def definition_params(fn: tree_sitter.Node) -> tuple[Param, ...]:
    """The parameters of a ``function_definition`` node, or of a function ``declaration``."""
    decl = fn.child_by_field_name("declarator")
    while decl is not None and decl.type != "function_declarator":
        decl = inner_declarator(decl) if decl.type in _WRAPPING_DECLARATORS else None
    return _params(decl) if decl is not None else ()


def _scope_names(fn: tree_sitter.Node) -> list[str]:
    names: list[str] = []
    node = fn.parent
    while node is not None:
        if node.type in ("namespace_definition", "class_specifier", "struct_specifier",
                         "union_specifier"):
            name = node.child_by_field_name("name")
            names.append(node_text(name) if name is not None else "(anonymous)")
        node = node.parent
    return list(reversed(names))


_CV = re.compile(r"\b(const|volatile|restrict|__restrict__|__restrict|register)\b")


def _param_from(node: tree_sitter.Node, index: int) -> Param:
    text = node_text(node)
    if node.type == "variadic_parameter_declaration" or text.strip() == "...":
        return Param(name="...", type_text="...", base="...")
    type_node = node.child_by_field_name("type")
    base = node_text(type_node) if type_node is not None else ""
    const = any(c.type == "type_qualifier" and node_text(c) == "const" for c in node.children)
    pointer = 0
    reference = ""
    array = False
    name = ""
    decl = node.child_by_field_name("declarator")
    name_node: tree_sitter.Node | None = None
    while decl is not None:
        if decl.type == "pointer_declarator":
            pointer += 1
        elif decl.type == "reference_declarator":
            reference = "&&" if node_text(decl).lstrip().startswith("&&") else "&"
        elif decl.type == "array_declarator":
            array = True
        elif decl.type in ("identifier", "field_identifier"):
            name_node = decl
            break
        elif decl.type == "abstract_pointer_declarator":
            pointer += 1
        elif decl.type == "abstract_reference_declarator":
            reference = "&&" if node_text(decl).lstrip().startswith("&&") else "&"
        decl = inner_declarator(decl)
    if name_node is not None:
        name = node_text(name_node)
        start = name_node.start_byte - node.start_byte
        end = name_node.end_byte - node.start_byte
        raw = node.text or b""
        type_text = (raw[:start] + raw[end:]).decode("utf-8", "replace")
    else:
        type_text = text
        name = f"arg{index}"
    default = node.child_by_field_name("default_value")
    if default is not None:
        type_text = type_text.split("=")[0]
    type_text = " ".join(type_text.split())
    base = " ".join(_CV.sub("", base).split())
    return Param(name=name, type_text=type_text, base=base, pointer=pointer,
                 reference=reference, const=const, array=array)


def _params(fdecl: tree_sitter.Node) -> tuple[Param, ...]:
    plist = fdecl.child_by_field_name("parameters")
    if plist is None:
        return ()
    out: list[Param] = []
    for child in plist.named_children:
        if child.type.endswith("parameter_declaration"):
            p = _param_from(child, len(out))
            if not (p.type_text == "void" and p.pointer == 0 and len(plist.named_children) == 1):
                out.append(p)
    return tuple(out)


@dataclass(frozen=True)
class _Lines:
    """Line starts of a unit, to turn byte offsets into (line, character) positions."""

    data: bytes
    starts: tuple[int, ...]

    @classmethod
    def of(cls, data: bytes) -> _Lines:
        starts = [0]
        pos = data.find(b"\n")
        while pos >= 0:
            starts.append(pos + 1)
            pos = data.find(b"\n", pos + 1)
        return cls(data, tuple(starts))

    def char_col(self, line: int, byte_col: int) -> int:
        start = self.starts[line]
        return len(self.data[start:start + byte_col].decode("utf-8", "replace"))

    def byte_offset(self, line: int, char_col: int) -> int:
        if line >= len(self.starts):
            return len(self.data)
        start = self.starts[line]
        end = self.starts[line + 1] if line + 1 < len(self.starts) else len(self.data)
        text = self.data[start:end].decode("utf-8", "replace")
        return start + len(text[:char_col].encode("utf-8"))


def _site(fn: tree_sitter.Node, unit: str, lines: _Lines, language: Language, uri: str,
          version: int | None) -> FunctionSite:
    outer = fn
    if fn.parent is not None and fn.parent.type == "template_declaration":
        outer = fn.parent
    fdecl = _function_declarator(fn)
    name_node = fdecl.child_by_field_name("declarator") if fdecl is not None else None
    raw_name = node_text(name_node) if name_node is not None else "(unknown)"
    short = re.split(r"::", raw_name)[-1].strip()
    if name_node is not None and name_node.type == "template_function":
        base = name_node.child_by_field_name("name")
        short = node_text(base) if base is not None else short
    scopes = _scope_names(fn)
    qualified = "::".join([*scopes, raw_name]) if scopes else raw_name
    body = fn.child_by_field_name("body")
    sig_end = body.start_byte if body is not None else fn.end_byte
    data = lines.data
    signature = " ".join(data[outer.start_byte:sig_end].decode("utf-8", "replace").split())
    type_node = fn.child_by_field_name("type")
    return_type = node_text(type_node) if type_node is not None else ""
    decl = fn.child_by_field_name("declarator")
    while decl is not None and decl.type in _WRAPPING_DECLARATORS:
        return_type += "*" if decl.type == "pointer_declarator" else (
            "&" if decl.type == "reference_declarator" else "")
        decl = inner_declarator(decl)
    storage = {node_text(c) for c in fn.children if c.type == "storage_class_specifier"}
    text = data[outer.start_byte:outer.end_byte].decode("utf-8", "replace")
    in_class = any(a in ("class_specifier", "struct_specifier") for a in _ancestor_types(fn))
    return FunctionSite(
        uri=uri,
        version=version,
        language=language,
        name=short,
        qualified_name=qualified,
        signature=signature,
        return_type=" ".join(return_type.split()),
        params=_params(fdecl) if fdecl is not None else (),
        start_byte=outer.start_byte,
        end_byte=outer.end_byte,
        start_line=outer.start_point[0],
        start_col=lines.char_col(outer.start_point[0], outer.start_point[1]),
        end_line=outer.end_point[0],
        end_col=lines.char_col(outer.end_point[0], outer.end_point[1]),
        text=text,
        unit_text=unit,
        body_start_line=body.start_point[0] if body is not None else outer.start_point[0],
        is_method=in_class or "::" in raw_name,
        is_template=outer is not fn,
        is_static="static" in storage,
        has_openmp=bool(re.search(r"#\s*pragma\s+omp\b", text)),
        has_errors=fn.has_error,
    )


def site_of(fn: tree_sitter.Node, unit_text: str, language: Language, uri: str = "",
            version: int | None = None) -> FunctionSite:
    """The site of one ``function_definition`` node of the parsed ``unit_text`` (errors are
    not raised here)."""
    data = unit_text.encode("utf-8")
    return _site(fn, unit_text, _Lines.of(data), language, uri, version)


def _ancestor_types(node: tree_sitter.Node) -> Iterator[str]:
    parent = node.parent
    while parent is not None:
        yield parent.type
        parent = parent.parent


def _check_errors(fn: tree_sitter.Node, site: FunctionSite) -> None:
    if fn.has_error:
        line = site.first_line
        stack = [fn]
        while stack:
            n = stack.pop()
            if n.type == "ERROR" or n.is_missing:
                line = n.start_point[0] + 1
                break
            stack.extend(c for c in n.children if c.has_error or c.is_missing)
        raise SyntaxErrorNearFunction(
            f"'{site.name}' has a syntax error near line {line}; fix it before optimizing",
            line,
        )


def list_functions(unit_text: str, language: Language, uri: str = "",
                   version: int | None = None) -> list[FunctionSite]:
    """Every function definition in the unit, in source order (errors are not raised here)."""
    data = unit_text.encode("utf-8")
    tree = parse(data, language)
    lines = _Lines.of(data)
    return [_site(fn, unit_text, lines, language, uri, version)
            for fn in iter_function_nodes(tree.root_node)]


def function_at(unit_text: str, language: Language, line: int, character: int, uri: str = "",
                version: int | None = None, *, check_errors: bool = True) -> FunctionSite:
    """The innermost function definition containing the 0-based position.

    Raises NoFunctionError outside any function and SyntaxErrorNearFunction when the function's
    syntax tree has errors (unless ``check_errors`` is False).
    """
    data = unit_text.encode("utf-8")
    lines = _Lines.of(data)
    offset = lines.byte_offset(line, character)
    tree = parse(data, language)
    best: tree_sitter.Node | None = None
    for fn in iter_function_nodes(tree.root_node):
        outer = fn.parent if fn.parent is not None and fn.parent.type == "template_declaration" \
            else fn
        if outer.start_byte <= offset <= outer.end_byte and (
                best is None or fn.start_byte >= best.start_byte):
            best = fn
    if best is None:
        raise NoFunctionError(f"no function definition at line {line + 1}")
    site = _site(best, unit_text, lines, language, uri, version)
    if check_errors:
        _check_errors(best, site)
    return site


def function_by_name(unit_text: str, language: Language, name: str, uri: str = "",
                     version: int | None = None, *, check_errors: bool = True) -> FunctionSite:
    """The one definition whose name or qualified name is ``name``.

    ``name`` may be plain (``solve``), qualified (``ns::Solver::solve``) or a qualified suffix
    (``Solver::solve``). Raises NoFunctionError when none matches and AmbiguousFunctionError
    (listing the choices with their lines) when several do.
    """
    data = unit_text.encode("utf-8")
    tree = parse(data, language)
    lines = _Lines.of(data)
    nodes = list(iter_function_nodes(tree.root_node))
    sites = [_site(fn, unit_text, lines, language, uri, version) for fn in nodes]
    wanted = name.strip()
    matches = [(fn, s) for fn, s in zip(nodes, sites, strict=True)
               if wanted in (s.name, s.qualified_name)
               or s.qualified_name.endswith("::" + wanted)]
    if not matches:
        known = ", ".join(sorted({s.qualified_name for s in sites})[:10]) or "none"
        raise NoFunctionError(f"no function named '{wanted}' (functions here: {known})")
    if len(matches) > 1:
        where = "; ".join(f"{s.signature} at line {s.first_line}" for _, s in matches)
        raise AmbiguousFunctionError(
            f"{len(matches)} functions are named '{wanted}': {where}; "
            "give a line or a qualified name",
            tuple(s for _, s in matches),
        )
    fn, site = matches[0]
    if check_errors:
        _check_errors(fn, site)
    return site
