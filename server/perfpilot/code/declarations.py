"""Declared variables and their types: one ``VarType``, one declarator walker.

Both the per-declaration view (``declared_vars``: every variable a declaration introduces, with
where it was declared) and the per-name view (``declared_types``: a name declared twice with
different types is unknown) are built here from the same walk of the declarator.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

import tree_sitter

from perfpilot.code.parse import parse
from perfpilot.code.site import Language
from perfpilot.code.syntax import (
    inner_declarator,
    node_text,
    walk,
)

Node = tree_sitter.Node

_INTEGRAL_WORDS = frozenset({
    "int", "long", "short", "unsigned", "signed", "size_t", "std::size_t", "ssize_t",
    "ptrdiff_t", "std::ptrdiff_t", "int8_t", "int16_t", "int32_t", "int64_t", "uint8_t",
    "uint16_t", "uint32_t", "uint64_t", "std::int64_t", "std::uint64_t", "std::int32_t",
    "std::uint32_t", "char",
})
_FLOAT_WORDS = frozenset({"double", "float"})
_CONTAINERS = re.compile(r"^(std::)?(vector|array|valarray|deque|basic_string|string)\b")
_CV = re.compile(r"\b(const|volatile|static|constexpr|inline|register|mutable|extern)\b")


@dataclass(frozen=True)
class VarType:
    """A declared variable's type, split like ``Param``: base text, pointers, array, reference.

    ``name``, ``type_text`` (the type as written, with its qualifiers), ``line`` and ``scope``
    ("local", "param" or "global") say where it came from; they are left out of equality, so
    two declarations of one name with the same type compare equal.
    """

    base: str
    pointer: int = 0
    array: bool = False
    reference: str = ""  # "", "&" or "&&"
    const: bool = False
    name: str = field(default="", compare=False)
    type_text: str = field(default="", compare=False)
    line: int = field(default=0, compare=False)
    scope: str = field(default="local", compare=False)

    @property
    def is_integral(self) -> bool:
        """A plain integer type (no pointer, array or reference)."""
        words = self.base.replace("const", "").split()
        return (not self.pointer and not self.array and bool(words)
                and all(w in _INTEGRAL_WORDS for w in words))

    @property
    def is_floating(self) -> bool:
        """A ``double`` or ``float`` scalar (``long double`` excluded on purpose)."""
        words = self.base.replace("const", "").split()
        return (not self.pointer and not self.array and len(words) == 1
                and words[0] in _FLOAT_WORDS)

    @property
    def is_float(self) -> bool:
        """Whether the base (element) type is float, double or long double."""
        return self.base in ("float", "double", "long double")

    @property
    def is_arithmetic(self) -> bool:
        """An integer or floating scalar."""
        return self.is_integral or self.is_floating

    @property
    def is_indexable(self) -> bool:
        """Subscripting it addresses distinct elements for distinct indices."""
        if self.pointer or self.array:
            return True
        base = self.base.replace("const", "").strip()
        return bool(_CONTAINERS.match(base)) and "vector<bool>" not in base.replace(" ", "")

    @property
    def element(self) -> VarType | None:
        """The type of ``x[k]``, when known."""
        if self.pointer:
            return VarType(self.base, self.pointer - 1, False)
        if self.array:
            return VarType(self.base)
        base = self.base.replace("const", "").strip()
        if not re.match(r"^(?:std::)?(?:vector|valarray|deque|array)\s*<", base):
            return None
        arg = _first_template_arg(base)
        return VarType(arg) if arg else None


def _first_template_arg(text: str) -> str:
    """``double`` for ``vector<double>``, ``vector<int>`` for ``array<vector<int>, 3>``."""
    start = text.find("<")
    depth = 0
    for pos in range(start, len(text)):
        ch = text[pos]
        if ch == "<":
            depth += 1
        elif ch == ">":
            depth -= 1
            if depth == 0:
                return " ".join(text[start + 1:pos].split())
        elif ch == "," and depth == 1:
            return " ".join(text[start + 1:pos].split())
    return ""


@dataclass(frozen=True)
class Declarator:
    """What a declarator says about the name it declares.

    ``plain`` is false when the walk met anything other than pointer, reference, array,
    parenthesized or init declarators before a plain identifier (a function declarator, a field
    or qualified name): such a declarator declares no ordinary variable.
    """

    name: str | None
    pointer: int
    array: bool
    reference: str
    plain: bool


def walk_declarator(decl: Node | None) -> Declarator:
    """The one declarator walker: name, pointer depth, array and reference of ``decl``."""
    pointer = 0
    array = False
    reference = ""
    plain = True
    node = decl
    while node is not None and node.type not in ("identifier", "field_identifier"):
        if node.type == "pointer_declarator":
            pointer += 1
        elif node.type == "array_declarator":
            array = True
        elif node.type == "reference_declarator":
            reference = "&&" if node_text(node).lstrip().startswith("&&") else "&"
        elif node.type not in ("init_declarator", "parenthesized_declarator"):
            plain = False
        node = inner_declarator(node)
    if node is None:
        return Declarator(None, pointer, array, reference, False)
    return Declarator(node_text(node), pointer, array, reference,
                      plain and node.type == "identifier")


def _constructor_call(decl: Node) -> bool:
    """``std::vector<int> v(n);`` parses like a function declaration; its "parameters" are
    bare names or expressions, never typed parameters."""
    params = decl.child_by_field_name("parameters")
    if params is None or not params.named_children:
        return False
    for p in params.named_children:
        if p.type == "parameter_declaration" and p.child_by_field_name("declarator") is not None:
            return False
        if p.type not in ("parameter_declaration", "number_literal", "identifier",
                          "binary_expression", "call_expression", "string_literal"):
            return False
    return True


def declared_vars(decl: Node, scope: str) -> list[VarType]:
    """The variables a ``declaration`` node declares, each with its name, line and scope."""
    type_node = decl.child_by_field_name("type")
    quals = " ".join(node_text(c) for c in decl.children
                     if c.type in ("type_qualifier", "storage_class_specifier"))
    type_text = node_text(type_node) if type_node is not None else ""
    base = " ".join(_CV.sub("", type_text).split())
    out: list[VarType] = []
    for i, child in enumerate(decl.children):
        if decl.field_name_for_child(i) != "declarator":
            continue
        target = child.child_by_field_name("declarator") if child.type == "init_declarator" \
            else child
        if target is not None and target.type == "function_declarator" and scope == "local" \
                and _constructor_call(target):
            target = target.child_by_field_name("declarator")
        if target is None or target.type == "function_declarator":
            continue
        d = walk_declarator(target)
        if d.name:
            out.append(VarType(base, d.pointer, d.array, d.reference, "const" in quals.split(),
                               name=d.name, type_text=" ".join(f"{quals} {type_text}".split()),
                               line=target.start_point[0] + 1, scope=scope))
    return out


def declared_types(root: Node) -> dict[str, VarType | None]:
    """Variables declared anywhere under ``root`` (parameters and locals) with their types.

    A name declared twice with different types maps to None (unknown).
    """
    out: dict[str, VarType | None] = {}
    for n in walk(root):
        if n.type in ("parameter_declaration", "optional_parameter_declaration", "declaration",
                      "field_declaration"):
            type_node = n.child_by_field_name("type")
            base = " ".join((node_text(type_node) if type_node is not None else "").split())
            const = any(c.type == "type_qualifier" and node_text(c) == "const"
                        for c in n.children)
            for i, child in enumerate(n.children):
                if n.field_name_for_child(i) != "declarator":
                    continue
                d = walk_declarator(child)
                name = d.name if d.plain else None
                vt = VarType(base, d.pointer, d.array, d.reference, const, name=name or "")
                local = _constructed_local(n, child, out)
                if name is None and local is not None:
                    name, vt = local, VarType(base, const=const, name=local)
                if name is None:
                    continue
                if name in out and out[name] != vt:
                    out[name] = None
                else:
                    out[name] = vt
        elif n.type == "for_range_loop":
            d = walk_declarator(n.child_by_field_name("declarator"))
            if d.name is not None and d.plain:
                out[d.name] = None
    return out


def _constructed_local(decl: Node, declarator: Node,
                       variables: dict[str, VarType | None]) -> str | None:
    """The name of ``std::vector<int> q(jobs);`` in a block, which parses like a function
    declaration: when its "parameters" are all names of ``variables``, it is an object
    constructed from them."""
    if decl.type != "declaration" or decl.parent is None or \
            decl.parent.type != "compound_statement" or declarator.type != "function_declarator":
        return None
    name = declarator.child_by_field_name("declarator")
    params = declarator.child_by_field_name("parameters")
    if name is None or name.type != "identifier" or params is None or \
            not params.named_child_count or not all(
                p is not None and p.type == "parameter_declaration"
                and p.child_by_field_name("declarator") is None and node_text(p) in variables
                for p in params.named_children):
        return None
    return node_text(name)


def unit_types(unit_text: str, language: Language) -> dict[str, VarType | None]:
    """Types of the variables declared at the top level of a translation unit (globals)."""
    return top_level_types(parse(unit_text, language).root_node)


def top_level_types(unit: Node) -> dict[str, VarType | None]:
    """``unit_types`` of an already parsed unit (its root node)."""
    out: dict[str, VarType | None] = {}
    for child in unit.named_children:
        if child.type == "declaration":
            out.update(declared_types(child))
    return out
