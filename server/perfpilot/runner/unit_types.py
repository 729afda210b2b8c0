"""The types a translation unit defines, read from its tree-sitter tree, for the generated bench.

The generated bench is its own translation unit: to build and compare values of the user's types
it repeats their definitions (a *mirror*) inside its own namespace. Only what shapes an object is
repeated: fields, constructors, destructors, operators, nested types, the aliases, enums,
constants and ``#define`` lines they mention. Ordinary member functions are left out (they do not
change the layout of a class without virtual functions), and access specifiers become ``public``
so the bench can read private state; layout does not change with access in the C++ ABIs we build
for. Polymorphic classes and classes with bases are not mirrored (the caller refuses them).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace
from typing import TypeVar

import tree_sitter

from perfpilot.code.parse import parse
from perfpilot.code.site import FunctionSite, Language, Param
from perfpilot.code.syntax import (
    inner_declarator,
    node_text,
    walk,
)

# Nodes whose children are declarations at namespace scope.
_SCOPES = {"translation_unit", "declaration_list", "linkage_specification"}
_CLASS_NODES = {"struct_specifier", "class_specifier", "union_specifier"}
_IDENT_NODES = {"type_identifier", "identifier", "namespace_identifier"}
_COMPARISONS = {"<", ">", "<=", ">=", "==", "!="}


@dataclass(frozen=True)
class Ty:
    """A type as written, split into its name and template arguments.

    ``name`` keeps the qualification as written (``std::vector``, ``geo::Point``, ``ll``);
    ``value`` marks a non-type template argument (the ``3`` of ``std::array<int, 3>``);
    ``indirect`` marks a pointer or reference inside a template argument; ``unknown`` a type
    the reader does not understand (``decltype``, ``auto``, a dependent name).
    """

    name: str
    args: tuple[Ty, ...] = ()
    value: bool = False
    indirect: bool = False
    unknown: bool = False

    @property
    def std_name(self) -> str:
        """The name without a leading ``std::`` (``vector`` for ``std::vector``)."""
        name = self.name[2:] if self.name.startswith("::") else self.name
        return name[5:] if name.startswith("std::") else name

    @property
    def last(self) -> str:
        """The last component of the name (``Point`` for ``geo::Point``)."""
        return self.name.split("::")[-1]


def _ty(node: tree_sitter.Node | None) -> Ty:
    if node is None:
        return Ty("", unknown=True)
    kind = node.type
    if kind in ("primitive_type", "sized_type_specifier", "type_identifier"):
        return Ty(" ".join(node_text(node).split()))
    if kind == "qualified_identifier":
        scope = node.child_by_field_name("scope")
        inner = _ty(node.child_by_field_name("name"))
        prefix = node_text(scope) if scope is not None else ""
        return Ty(f"{prefix}::{inner.name}", inner.args, unknown=inner.unknown)
    if kind == "template_type":
        name = node.child_by_field_name("name")
        arg_list = node.child_by_field_name("arguments")
        args: list[Ty] = []
        for child in arg_list.named_children if arg_list is not None else []:
            if child.type == "type_descriptor":
                ty = _ty(child.child_by_field_name("type"))
                if child.child_by_field_name("declarator") is not None:
                    ty = Ty(ty.name, ty.args, indirect=True, unknown=ty.unknown)
                args.append(ty)
            else:
                args.append(Ty(node_text(child), value=True))
        return Ty(node_text(name) if name is not None else "", tuple(args))
    if kind in _CLASS_NODES or kind == "enum_specifier":
        name = node.child_by_field_name("name")
        if name is not None and node.child_by_field_name("body") is None:
            return Ty(node_text(name))
    return Ty(node_text(node), unknown=True)


def parse_type(text: str, language: Language = "cpp") -> Ty:
    """Read a type written without declarator (``const std::map<int, Point>``)."""
    tree = parse(f"{text} perfpilot_v;", language)
    decl = tree.root_node.named_children[0] if tree.root_node.named_children else None
    if decl is None or decl.type != "declaration":
        return Ty(text, unknown=True)
    return _ty(decl.child_by_field_name("type"))


@dataclass(frozen=True)
class Field:
    """A non-static data member."""

    name: str
    type: Ty
    type_text: str
    array: bool
    public: bool
    problem: str = ""  # why the generated bench cannot set or read it ("" when it can)


@dataclass(frozen=True)
class Ctor:
    """A constructor the bench may call: its parameters (type text and parsed type)."""

    params: tuple[tuple[str, Ty], ...]
    public: bool
    inline: bool = True  # defined in the class body (else it must be defined out of class)


@dataclass(frozen=True)
class MethodDecl:
    """An ordinary member function as the class declares it (for building objects through
    their public API): parameters, the return type as written, and how it may be called."""

    name: str
    params: tuple[Param, ...]
    ret: str  # return type with its declarator (``const std::vector<int>&``)
    const: bool
    public: bool
    static: bool
    inline: bool  # defined in the class body (else defined, if at all, out of class)
    plain: bool  # callable as ``obj.f(args)``: no template, no ``&&`` qualifier, not deleted


@dataclass(frozen=True)
class ClassDef:
    """A class, struct or union defined in the unit."""

    name: str
    namespaces: tuple[str, ...]  # enclosing namespaces, "(anonymous)" for unnamed ones
    classes: tuple[str, ...]  # enclosing classes
    fields: tuple[Field, ...]
    ctors: tuple[Ctor, ...]
    user_ctors: bool  # any constructor other than copy/move is declared
    polymorphic: bool
    has_bases: bool
    is_template: bool
    is_union: bool
    less_than: bool  # an operator< for it is defined in the unit
    methods: dict[str, bool] = field(default_factory=dict)  # name -> public
    item: int = -1  # index of the mirror item that defines it
    decls: tuple[MethodDecl, ...] = ()  # ordinary member functions, in declaration order
    abstract: bool = False  # declares a pure virtual function
    destructor: str = ""  # "" (implicit), "inline" (defined in the class) or "declared"
    copies: bool = False  # declares its own copy constructor or copy assignment (not deleted)

    @property
    def path(self) -> str:
        """The name as written from its namespace (``Outer::Inner``)."""
        return "::".join((*self.classes, self.name))

    @property
    def qualified(self) -> str:
        """The fully qualified name, anonymous namespaces included as ``(anonymous)``."""
        return "::".join((*self.namespaces, *self.classes, self.name))


@dataclass(frozen=True)
class EnumDef:
    """An enumeration defined in the unit, with its enumerators as the bench can spell them."""

    name: str
    namespaces: tuple[str, ...]
    classes: tuple[str, ...]
    values: tuple[str, ...]
    item: int = -1

    @property
    def path(self) -> str:
        """The name as written from its namespace."""
        return "::".join((*self.classes, self.name))


@dataclass(frozen=True)
class _Item:
    """A declaration the mirror may repeat: where it sits, what it defines and mentions."""

    namespaces: tuple[str, ...]
    text: str
    defines: frozenset[str]
    mentions: frozenset[str]
    always: bool = False  # using-directives and declarations: cheap, and names depend on them
    top: bool = False  # #define lines go before every namespace
    owner: str = ""  # out-of-class definitions: the class they belong to
    # A using-declaration or directive of the unit's own namespace (``using algo::f;``,
    # ``using namespace algo;``): (namespace, name or "") it refers to. Repeated only when the
    # mirror defines that namespace (and name): the bench has none of the unit's functions.
    refers: tuple[str, str] | None = None


@dataclass
class UnitTypes:
    """Everything the bench generator needs to know about the unit's own types."""

    language: Language
    includes: list[str] = field(default_factory=list)
    items: list[_Item] = field(default_factory=list)
    classes: dict[str, list[ClassDef]] = field(default_factory=dict)
    enums: dict[str, list[EnumDef]] = field(default_factory=dict)
    aliases: dict[str, Ty] = field(default_factory=dict)
    alias_problems: dict[str, str] = field(default_factory=dict)
    namespaces: set[str] = field(default_factory=set)  # qualified names of namespaces
    # (class, member) pairs defined out of class (``void Ledger::add(...) {...}``).
    defined: set[tuple[str, str]] = field(default_factory=set)
    # Quote includes read as part of the unit (the project's own headers): the mirror
    # repeats what they define, so the bench needs their system includes, not them.
    read_headers: list[str] = field(default_factory=list)

    def member_defined(self, cls: ClassDef, name: str, inline: bool) -> bool:
        """Whether a member function declared in ``cls`` has a definition this unit compiles
        (in the class body, or out of class in the unit or one of the headers read)."""
        return inline or (cls.name, name) in self.defined

    def find_class(self, ty: Ty) -> ClassDef | None:
        """The class a type names, preferring the one whose qualification matches."""
        return _pick(self.classes.get(ty.last, []), ty.name)

    def find_enum(self, ty: Ty) -> EnumDef | None:
        """The enum a type names."""
        return _pick(self.enums.get(ty.last, []), ty.name)

    def resolve(self, ty: Ty, depth: int = 0) -> Ty:
        """Follow aliases of the unit (``ll`` -> ``long long``), inside arguments too."""
        if depth > 8 or ty.value:
            return ty
        target = self.aliases.get(ty.name) if not ty.args else None
        if target is not None:
            return self.resolve(target, depth + 1)
        if ty.args:
            return Ty(ty.name, tuple(self.resolve(a, depth + 1) for a in ty.args),
                      indirect=ty.indirect, unknown=ty.unknown)
        return ty

    def mirror(self, roots: set[str]) -> tuple[list[str], list[str]]:
        """``(top lines, namespaced lines)`` repeating what the names in ``roots`` need."""
        wanted = set(roots)
        chosen: set[int] = set()
        changed = True
        while changed:
            changed = False
            for i, item in enumerate(self.items):
                if i in chosen:
                    continue
                if item.refers is not None:
                    continue
                if item.always or item.defines & wanted or (item.owner and item.owner in wanted):
                    chosen.add(i)
                    wanted |= item.mentions
                    changed = True
        chosen |= self._usings(chosen)
        top = [self.items[i].text for i in sorted(chosen) if self.items[i].top]
        body: list[str] = []
        for i in sorted(chosen):
            item = self.items[i]
            if item.top:
                continue
            body.append(_wrap(item.namespaces, item.text))
        return top, body


    def _usings(self, chosen: set[int]) -> set[int]:
        """The using-declarations of the unit's own namespaces that still resolve in a mirror of
        ``chosen``: their namespace (and, for a declaration, their name) is defined there."""
        spaces: set[str] = set()
        named: set[tuple[str, str]] = set()
        for i in chosen:
            ns = [n for n in self.items[i].namespaces if n != "(anonymous)"]
            for k in range(1, len(ns) + 1):
                spaces.add("::".join(ns[:k]))
            for d in self.items[i].defines:
                named.add(("::".join(ns), d))
        out: set[int] = set()
        for i, item in enumerate(self.items):
            if item.refers is None:
                continue
            space, name = item.refers
            # Written relative to where the using stands, or from the top.
            here = [n for n in item.namespaces if n != "(anonymous)"]
            options = {space} | {"::".join([*here[:k], space]) for k in range(1, len(here) + 1)}
            if (not name and options & spaces) or any((o, name) in named for o in options):
                out.add(i)
        return out


# Resolves a quote include written in a file: (the header's path, its text), or None when it is
# not a project header to read (see unit_headers.py).
HeaderLookup = Callable[[str, str], tuple[str, str] | None]
_HEADER_DEPTH = 4  # headers read through headers, at most this deep

_D = TypeVar("_D", ClassDef, EnumDef)
_USING_NS = re.compile(r"^using\s+namespace\s+(::)?([\w:]+)\s*;$")
_USING_NAME = re.compile(r"^using\s+(?:typename\s+)?(::)?([\w:]+)::(\w+)\s*;$")
_NS_ALIAS = re.compile(r"^namespace\s+\w+\s*=\s*(::)?([\w:]+)\s*;$")


def _refers(text: str) -> tuple[str, str] | None:
    """What a using-declaration, directive or namespace alias names, unless it is the standard
    library's (which the bench has too): (namespace, name or "")."""
    flat = " ".join(text.split())
    for pattern, named in ((_USING_NS, False), (_USING_NAME, True), (_NS_ALIAS, False)):
        m = pattern.match(flat)
        if m is None:
            continue
        space = m.group(2)
        if space == "std" or space.startswith("std::"):
            return None
        return (space, m.group(3) if named else "")
    return None


def _pick(found: list[_D], written: str) -> _D | None:
    if not found:
        return None
    written = written[2:] if written.startswith("::") else written
    for candidate in found:
        full = _spelled(candidate.namespaces, candidate.classes, candidate.name)
        if full == written or full.endswith("::" + written):
            return candidate
    return found[0]


def _spelled(namespaces: tuple[str, ...], classes: tuple[str, ...], name: str) -> str:
    return "::".join((*[n for n in namespaces if n != "(anonymous)"], *classes, name))


def _wrap(namespaces: tuple[str, ...], text: str) -> str:
    opens = "".join("namespace { " if n == "(anonymous)" else f"namespace {n} {{ "
                    for n in namespaces)
    return f"{opens}\n{text}\n{'} ' * len(namespaces)}" if namespaces else text


def _mentions(node: tree_sitter.Node, skip: set[tuple[int, int]]) -> frozenset[str]:
    out: set[str] = set()
    stack = [node]
    while stack:
        n = stack.pop()
        if (n.start_byte, n.end_byte) in skip:
            continue
        if n.type in _IDENT_NODES:
            out.add(node_text(n))
        stack.extend(n.children)
    return frozenset(out)


def _declarator_name(decl: tree_sitter.Node | None) -> tuple[str, tree_sitter.Node | None]:
    """The declared name of a (possibly wrapped) declarator and the function declarator."""
    fdecl = None
    while decl is not None and decl.type not in (
            "identifier", "field_identifier", "type_identifier", "operator_name",
            "destructor_name", "qualified_identifier"):
        if decl.type == "function_declarator":
            fdecl = decl
        decl = inner_declarator(decl) if decl.type != "function_declarator" else \
            decl.child_by_field_name("declarator")
    return (node_text(decl) if decl is not None else ""), fdecl


def _is_special(name: str, cls: str) -> bool:
    last = name.split("::")[-1]
    return last == cls or last.startswith("~") or last.startswith("operator")


def _member_kind(member: tree_sitter.Node, cls: str) -> str:
    """``field``, ``special`` (kept), ``method`` (left out) or ``type`` for a member node."""
    node = member
    if node.type == "friend_declaration":
        inner = next((c for c in node.named_children
                      if c.type in ("function_definition", "declaration")), None)
        if inner is None:
            return "special"  # friend class X;
        name, _ = _declarator_name(inner.child_by_field_name("declarator"))
        return "special" if name.startswith("operator") else "method"
    if node.type == "template_declaration":
        return "method"
    if node.type in ("function_definition", "declaration", "field_declaration"):
        name, fdecl = _declarator_name(node.child_by_field_name("declarator"))
        if fdecl is not None:
            return "special" if _is_special(name, cls) else "method"
        if node.type == "field_declaration" and node.child_by_field_name("declarator") is None:
            return "type"
        return "field"
    return "other"


def _param_types(fdecl: tree_sitter.Node, language: Language) -> list[tuple[str, Ty]]:
    from perfpilot.code.locate import _param_from  # one reading of parameters for all

    plist = fdecl.child_by_field_name("parameters")
    out: list[tuple[str, Ty]] = []
    for child in plist.named_children if plist is not None else []:
        if child.type.endswith("parameter_declaration"):
            p = _param_from(child, len(out))
            if p.type_text == "void" and p.pointer == 0:
                continue
            ty = _ty(child.child_by_field_name("type"))
            if p.pointer or p.array or p.type_text == "...":
                ty = Ty(ty.name, ty.args, indirect=True, unknown=ty.unknown)
            out.append((p.base, ty))
    return out


class _Reader:
    """One pass over the tree that fills a UnitTypes."""

    def __init__(self, text: str, language: Language, headers: HeaderLookup | None = None,
                 where: str = "") -> None:
        self.data = text.encode("utf-8")
        self.language = language
        self.out = UnitTypes(language)
        self.lt: set[str] = set()
        self.headers = headers
        # The file being read (the unit's own path, or a header's), for its quote includes.
        self.where = [where]
        self.seen: set[str] = set()

    def read(self) -> UnitTypes:
        root = parse(self.data, self.language).root_node
        self._scope(root, ())
        for ops in list(self.out.classes.values()):
            for i, c in enumerate(ops):
                if c.name in self.lt and not c.less_than:
                    ops[i] = _replace_lt(c)
        return self.out

    def _scope(self, node: tree_sitter.Node, namespaces: tuple[str, ...]) -> None:
        for child in node.named_children:
            kind = child.type
            if kind == "preproc_include":
                self._include(child, namespaces)
            elif kind == "preproc_ifdef" and _include_guard(child):
                self._scope(child, namespaces)
            elif kind == "preproc_def":
                name = child.child_by_field_name("name")
                if name is not None:
                    self._add(namespaces, node_text(child).rstrip(), {node_text(name)},
                              child, top=True)
            elif kind == "namespace_definition":
                name = child.child_by_field_name("name")
                body = child.child_by_field_name("body")
                scoped = (*namespaces, node_text(name) if name is not None else "(anonymous)")
                self.out.namespaces.add("::".join(n for n in scoped if n != "(anonymous)"))
                if body is not None:
                    self._scope(body, scoped)
            elif kind == "linkage_specification":
                body = child.child_by_field_name("body")
                if body is not None and body.type == "declaration_list":
                    self._scope(body, namespaces)
            elif kind in ("using_declaration", "namespace_alias_definition"):
                self._add(namespaces, node_text(child), set(), child, always=True,
                          refers=_refers(node_text(child)))
            elif kind in ("alias_declaration", "type_definition"):
                self._alias(child, namespaces)
            elif kind in _CLASS_NODES or kind == "enum_specifier":
                self._type_decl(child, child, namespaces)
            elif kind == "declaration":
                self._declaration(child, namespaces)
            elif kind == "function_definition":
                self._free_function(child, namespaces)
            elif kind == "template_declaration":
                for inner in child.named_children:
                    if inner.type in _CLASS_NODES and inner.child_by_field_name("body"):
                        self._class(inner, namespaces, (), template=True, text_node=child)

    def _include(self, node: tree_sitter.Node, namespaces: tuple[str, ...]) -> None:
        """A system include is kept for the bench; a project header the lookup finds is read
        in place, as if its text stood here (bounded depth, each header once)."""
        line = node_text(node).strip()
        path = node.child_by_field_name("path")
        found = None
        if self.headers is not None and path is not None and path.type == "string_literal" \
                and len(self.where) <= _HEADER_DEPTH:
            found = self.headers(node_text(path).strip().strip('"'), self.where[-1])
        if found is None:
            self.out.includes.append(line)
            return
        where, text = found
        if where in self.seen:
            self.out.read_headers.append(line)
            return
        self.seen.add(where)
        self.out.read_headers.append(line)
        self.where.append(where)
        try:
            self._scope(parse(text, self.language).root_node, namespaces)
        finally:
            self.where.pop()

    def _add(self, namespaces: tuple[str, ...], text: str, defines: set[str],
             node: tree_sitter.Node, *, skip: set[tuple[int, int]] | None = None,
             always: bool = False, top: bool = False, owner: str = "",
             refers: tuple[str, str] | None = None) -> int:
        mentions = _mentions(node, skip or set()) - defines
        self.out.items.append(_Item(namespaces, text, frozenset(defines), mentions, always, top,
                                    owner, refers))
        return len(self.out.items) - 1

    def _alias(self, node: tree_sitter.Node, namespaces: tuple[str, ...]) -> None:
        text = node_text(node)
        if node.type == "alias_declaration":
            name_node = node.child_by_field_name("name")
            desc = node.child_by_field_name("type")
            names = [node_text(name_node)] if name_node is not None else []
            target = _ty(desc.child_by_field_name("type")) if desc is not None else Ty(
                "", unknown=True)
            indirect = desc is not None and desc.child_by_field_name("declarator") is not None
            for n in names:
                self._record_alias(n, target, indirect)
        else:
            type_node = node.child_by_field_name("type")
            declared: list[tuple[str, bool]] = []
            for i, child in enumerate(node.children):
                if node.field_name_for_child(i) == "declarator":
                    name, _ = _declarator_name(child)
                    declared.append((name, child.type != "type_identifier"))
            names = [n for n, _ in declared]
            if type_node is not None and type_node.child_by_field_name("body") is not None:
                # typedef struct [tag] { ... } Name;  the type is known by its tag, else by
                # its first plain alias; the other names are aliases of it.
                own = _named(type_node)
                plain = [n for n, indirect in declared if not indirect]
                key = next(iter(own)) if own else (plain[0] if plain else "")
                if type_node.type == "enum_specifier":
                    index = self._add(namespaces, text, set(names) | own, node)
                    self._enum(type_node, namespaces, (), alias=key, item=index)
                else:
                    self._class(type_node, namespaces, (), alias=key, text_node=node,
                                defines=set(names))
                for n, indirect in declared:
                    if n != key:
                        self._record_alias(n, Ty(key), indirect)
                return
            for n, indirect in declared:
                self._record_alias(n, _ty(type_node), indirect)
        self._add(namespaces, text, set(names), node)

    def _point_items(self, names: set[str], index: int) -> None:
        for n in names:
            for c in self.out.classes.get(n, []):
                if c.item == -1:
                    self.out.classes[n] = [_with_item(x, index) if x is c else x
                                           for x in self.out.classes[n]]
            for e in self.out.enums.get(n, []):
                if e.item == -1:
                    self.out.enums[n] = [EnumDef(x.name, x.namespaces, x.classes, x.values,
                                                 index) if x is e else x
                                         for x in self.out.enums[n]]

    def _record_alias(self, name: str, target: Ty, indirect: bool) -> None:
        if not name:
            return
        if indirect:
            self.out.alias_problems[name] = "is a pointer or reference type"
        elif target.name != name:
            self.out.aliases[name] = target

    def _type_decl(self, spec: tree_sitter.Node, whole: tree_sitter.Node,
                   namespaces: tuple[str, ...]) -> None:
        if spec.child_by_field_name("body") is None:
            return
        if spec.type == "enum_specifier":
            index = self._add(namespaces, node_text(whole) + ";", _named(spec), whole)
            self._enum(spec, namespaces, (), item=index)
        else:
            self._class(spec, namespaces, (), text_node=whole)

    def _declaration(self, node: tree_sitter.Node, namespaces: tuple[str, ...]) -> None:
        type_node = node.child_by_field_name("type")
        if type_node is not None and (type_node.type in _CLASS_NODES
                                      or type_node.type == "enum_specifier") \
                and type_node.child_by_field_name("body") is not None:
            # struct P { ... } p;  -- repeat only the type (the variable is the unit's).
            self._type_decl(type_node, type_node, namespaces)
            return
        quals = {node_text(c) for c in node.children if c.type == "type_qualifier"}
        if not quals & {"const", "constexpr"}:
            return
        names: set[str] = set()
        for i, child in enumerate(node.children):
            if node.field_name_for_child(i) == "declarator":
                name, fdecl = _declarator_name(child)
                if fdecl is not None:
                    return
                names.add(name)
        text = node_text(node)
        if "static" not in text.split() and "constexpr" not in quals:
            text = "static " + text  # one copy per bench, never clashing at link time
        self._add(namespaces, text, names, node)

    def _free_function(self, node: tree_sitter.Node, namespaces: tuple[str, ...]) -> None:
        name, fdecl = _declarator_name(node.child_by_field_name("declarator"))
        if fdecl is None:
            return
        if "::" in name:
            owner, _, last = name.rpartition("::")
            owner_last = owner.split("::")[-1]
            self.out.defined.add((owner_last.split("<")[0], last))
            if _is_special(last, owner_last) or last == owner_last:
                text = node_text(node)
                self._add(namespaces, "inline " + text, set(), node, owner=owner_last)
            return
        op = name[len("operator"):].strip()
        if not name.startswith("operator") or op not in _COMPARISONS:
            return
        params = _param_types(fdecl, self.language)
        owners = {ty.last for _, ty in params}
        if op == "<":
            self.lt |= owners
        text = node_text(node)
        words = text.split("(")[0].split()
        if "inline" not in words and "static" not in words:
            text = "inline " + text
        for owner in owners:
            self._add(namespaces, text, set(), node, owner=owner)
            break

    def _enum(self, spec: tree_sitter.Node, namespaces: tuple[str, ...],
              classes: tuple[str, ...], *, alias: str = "", item: int) -> None:
        name_node = spec.child_by_field_name("name")
        name = alias or (node_text(name_node) if name_node is not None else "")
        if not name:
            return
        scoped = any(c.type in ("class", "struct") for c in spec.children)
        body = spec.child_by_field_name("body")
        prefix = "::".join((*classes, name)) if scoped else "::".join(classes)
        values = []
        for e in body.named_children if body is not None else []:
            if e.type == "enumerator":
                en = e.child_by_field_name("name")
                if en is not None:
                    values.append(f"{prefix}::{node_text(en)}" if prefix else node_text(en))
        self.out.enums.setdefault(name, []).append(
            EnumDef(name, namespaces, classes, tuple(values), item))

    def _class(self, spec: tree_sitter.Node, namespaces: tuple[str, ...],
               classes: tuple[str, ...], *, template: bool = False, alias: str = "",
               text_node: tree_sitter.Node | None = None,
               defines: set[str] | None = None) -> ClassDef | None:
        name_node = spec.child_by_field_name("name")
        name = alias or (node_text(name_node) if name_node is not None else "")
        body = spec.child_by_field_name("body")
        if not name or body is None:
            return None
        public = spec.type != "class_specifier"
        fields: list[Field] = []
        ctors: list[Ctor] = []
        methods: dict[str, bool] = {}
        user_ctors = False
        polymorphic = False
        less_than = False
        decls: list[MethodDecl] = []
        abstract = False
        destructor = ""
        copies = False
        edits: list[tuple[int, int, str]] = []
        skip: set[tuple[int, int]] = set()
        for member in body.named_children:
            if member.type == "access_specifier":
                public = node_text(member).strip() == "public"
                edits.append((member.start_byte, member.end_byte, "public"))
                continue
            if any(c.type == "virtual" or node_text(c) == "virtual"
                   for c in walk(member) if c.child_count == 0):
                polymorphic = True
            kind = _member_kind(member, name)
            if kind in ("method", "special") and _pure(member):
                abstract = True
            if kind == "method":
                fn_name, _ = _declarator_name(_function_node(member).child_by_field_name(
                    "declarator"))
                if fn_name and fn_name not in methods:
                    methods[fn_name] = public
                decl = _method_decl(member, public, self.language)
                if decl is not None:
                    decls.append(decl)
                edits.append((member.start_byte, member.end_byte, ""))
                skip.add((member.start_byte, member.end_byte))
            elif kind == "special":
                fn = _function_node(member)
                fn_name, fdecl = _declarator_name(fn.child_by_field_name("declarator"))
                if fn_name == "operator<" or fn_name == "operator <":
                    less_than = True
                if fn_name.startswith("~") and fdecl is not None:
                    destructor = "inline" if fn.type == "function_definition" else "declared"
                deleted = any(c.type == "delete_method_clause" for c in fn.children)
                if fdecl is not None and fn_name in (name, "operator=", "operator ="):
                    params = _param_types(fdecl, self.language)
                    if len(params) == 1 and params[0][1].last == name and not deleted \
                            and "&&" not in node_text(fdecl):
                        copies = True
                if fn_name == name and fdecl is not None:
                    params = _param_types(fdecl, self.language)
                    copy = len(params) == 1 and params[0][1].last == name
                    if not copy:
                        user_ctors = True
                        if not deleted:
                            ctors.append(Ctor(tuple(params), public,
                                              fn.type == "function_definition"))
            elif kind == "field" and not _defines_type(member):
                fields.extend(_fields(member, public))
            elif kind == "type" or kind == "field":
                # struct Outer { enum Kind { A, B } kind; };  defines a type and a field.
                inner = member.child_by_field_name("type")
                if kind == "field":
                    fields.extend(_fields(member, public))
                if inner is not None and inner.type in _CLASS_NODES:
                    self._class(inner, namespaces, (*classes, name))
                elif inner is not None and inner.type == "enum_specifier":
                    self._enum(inner, namespaces, (*classes, name), item=-1)
        base_clause = next((c for c in spec.children if c.type == "base_class_clause"), None)
        whole = text_node or spec
        text = _edited(whole, body, edits, spec.type == "class_specifier")
        index = -1
        if not classes:
            suffix = "" if whole.type in ("type_definition", "template_declaration") else ";"
            index = self._add(namespaces, text + suffix, {name} | _named(spec) | (defines or set()),
                              whole, skip=skip)
        cdef = ClassDef(name, namespaces, classes, tuple(fields), tuple(ctors), user_ctors,
                        polymorphic, base_clause is not None, template,
                        spec.type == "union_specifier", less_than, methods, index,
                        tuple(decls), abstract, destructor, copies)
        self.out.classes.setdefault(name, []).append(cdef)
        if index >= 0:
            self._point_items({n for n in _nested_names(spec)}, index)
        return cdef


def _replace_lt(c: ClassDef) -> ClassDef:
    return replace(c, less_than=True)


def _with_item(c: ClassDef, index: int) -> ClassDef:
    return replace(c, item=index)


def _named(spec: tree_sitter.Node) -> set[str]:
    name = spec.child_by_field_name("name")
    return {node_text(name)} if name is not None else set()


def _nested_names(spec: tree_sitter.Node) -> Iterator[str]:
    for n in walk(spec):
        if n.type in _CLASS_NODES or n.type == "enum_specifier":
            name = n.child_by_field_name("name")
            if name is not None and n.child_by_field_name("body") is not None:
                yield node_text(name)


def _defines_type(member: tree_sitter.Node) -> bool:
    inner = member.child_by_field_name("type")
    return inner is not None and (inner.type in _CLASS_NODES or inner.type == "enum_specifier") \
        and inner.child_by_field_name("body") is not None


def _function_node(member: tree_sitter.Node) -> tree_sitter.Node:
    if member.type in ("friend_declaration", "template_declaration"):
        inner = next((c for c in member.named_children
                      if c.type in ("function_definition", "declaration", "field_declaration")),
                     None)
        return inner if inner is not None else member
    return member


def _pure(member: tree_sitter.Node) -> bool:
    """``virtual ... = 0;``"""
    default = member.child_by_field_name("default_value")
    return member.type == "field_declaration" and default is not None \
        and node_text(default).strip() == "0"


def _return_text(fn: tree_sitter.Node) -> str:
    """The return type of a member function node, with the declarator's ``*`` and ``&``."""
    type_node = fn.child_by_field_name("type")
    if type_node is None:
        return ""
    words = [node_text(c) for c in fn.children
             if c.type == "type_qualifier" and c.end_byte <= type_node.start_byte]
    text = " ".join([*words, node_text(type_node)])
    decl = fn.child_by_field_name("declarator")
    while decl is not None and decl.type != "function_declarator":
        if decl.type == "pointer_declarator":
            text += "*"
        elif decl.type == "reference_declarator":
            text += "&&" if node_text(decl).lstrip().startswith("&&") else "&"
        decl = inner_declarator(decl)
    return " ".join(text.split())


def _method_decl(member: tree_sitter.Node, public: bool,
                 language: Language) -> MethodDecl | None:
    from perfpilot.code.locate import _param_from  # one reading of parameters for all

    if member.type == "friend_declaration":
        return None
    template = member.type == "template_declaration"
    fn = _function_node(member)
    name, fdecl = _declarator_name(fn.child_by_field_name("declarator"))
    if fdecl is None or not name or "::" in name:
        return None
    plist = fdecl.child_by_field_name("parameters")
    params: list[Param] = []
    for child in plist.named_children if plist is not None else []:
        if child.type.endswith("parameter_declaration"):
            p = _param_from(child, len(params))
            if p.type_text == "void" and p.pointer == 0:
                continue
            params.append(p)
    const = any(c.type == "type_qualifier" and node_text(c) == "const" for c in fdecl.children)
    rvalue_only = any(c.type == "ref_qualifier" and "&&" in node_text(c)
                      for c in fdecl.children)
    static = any(c.type == "storage_class_specifier" and node_text(c) == "static"
                 for c in fn.children)
    deleted = any(c.type == "delete_method_clause" for c in fn.children)
    return MethodDecl(name, tuple(params), _return_text(fn), const, public, static,
                      fn.type == "function_definition",
                      not (template or rvalue_only or deleted or _pure(fn)))


def _fields(member: tree_sitter.Node, public: bool) -> list[Field]:
    if any(c.type == "storage_class_specifier" and node_text(c) == "static"
           for c in member.children):
        return []
    type_node = member.child_by_field_name("type")
    ty = _ty(type_node)
    type_text = node_text(type_node) if type_node is not None else ""
    unnamed = False
    if type_node is not None and type_node.child_by_field_name("body") is not None:
        name = type_node.child_by_field_name("name")
        unnamed = name is None
        ty = Ty(node_text(name) if name is not None else "", unknown=unnamed)
        type_text = ty.name
    const = any(c.type == "type_qualifier" and node_text(c) == "const" for c in member.children)
    bitfield = any(c.type == "bitfield_clause" for c in member.children)
    out = []
    for i, child in enumerate(member.children):
        if member.field_name_for_child(i) != "declarator":
            continue
        decl: tree_sitter.Node | None = child
        array = False
        problem = ""
        while decl is not None and decl.type != "field_identifier":
            if decl.type == "array_declarator":
                if array:
                    problem = "is a multi-dimensional array"
                array = True
            elif decl.type in ("pointer_declarator", "reference_declarator"):
                problem = "is a pointer or reference"
            elif decl.type == "function_declarator":
                problem = "is a function"
            decl = inner_declarator(decl)
        if decl is None:
            continue
        if const and not problem:
            problem = "is const"
        if bitfield:
            problem = "is a bit-field"
        if unnamed:
            problem = "has a type without a name"
        out.append(Field(node_text(decl), ty, type_text, array, public, problem))
    return out


def _edited(whole: tree_sitter.Node, body: tree_sitter.Node, edits: list[tuple[int, int, str]],
            is_class: bool) -> str:
    """The class text with left-out members removed and every member public."""
    start = whole.start_byte
    raw = whole.text or b""
    pieces: list[bytes] = []
    pos = 0
    if is_class:
        edits = [*edits, (body.start_byte + 1, body.start_byte + 1, " public:")]
    # Nested classes are members too: their access specifiers become public as well.
    for n in walk(body):
        if n is not body and n.type == "access_specifier":
            edits.append((n.start_byte, n.end_byte, "public"))
        elif n is not body and n.type == "class_specifier":
            inner = n.child_by_field_name("body")
            if inner is not None:
                edits.append((inner.start_byte + 1, inner.start_byte + 1, " public:"))
    done: set[tuple[int, int]] = set()
    last_end = -1
    for s, e, new in sorted(edits, key=lambda x: (x[0], x[1])):
        if (s, e) in done or s < last_end:
            continue  # inside a member already removed
        done.add((s, e))
        pieces.append(raw[pos:s - start])
        pieces.append(new.encode("utf-8"))
        pos = e - start
        last_end = e
    pieces.append(raw[pos:])
    return b"".join(pieces).decode("utf-8", "replace")


def read_unit(unit_text: str, language: Language, headers: HeaderLookup | None = None,
              where: str = "") -> UnitTypes:
    """The unit's type definitions, aliases, constants and includes.

    With ``headers``, quote includes it resolves (``#include "ledger.h"``) are read as part of
    the unit, so types a project header declares are known like the unit's own; ``where`` is
    the unit's path, for includes relative to its folder.
    """
    return _Reader(unit_text, language, headers, where).read()


def _include_guard(node: tree_sitter.Node) -> bool:
    """``#ifndef X`` whose first line defines X: a header's include guard, read through."""
    if not node_text(node).lstrip().startswith("#ifndef"):
        return False
    name = node.child_by_field_name("name")
    first = next((c for c in node.named_children
                  if name is None or c.start_byte != name.start_byte), None)
    if name is None or first is None or first.type != "preproc_def":
        return False
    defined = first.child_by_field_name("name")
    return defined is not None and node_text(defined) == node_text(name)


@dataclass(frozen=True)
class MethodInfo:
    """What the entry and bench need about a non-static member function."""

    cls: ClassDef
    const: bool
    public: bool


def method_info(site: FunctionSite, types: UnitTypes) -> MethodInfo | None:
    """The class and constness of a member function site, or None if the class is unknown."""
    parts = site.qualified_name.split("::")
    if len(parts) < 2:
        return None
    cls_name = parts[-2]
    written = "::".join(p for p in parts[:-1] if p != "(anonymous)")
    cls = _pick(types.classes.get(cls_name, []), written)
    if cls is None:
        return None
    tree = parse(site.unit_text, site.language)
    const = False
    for n in walk(tree.root_node):
        if n.type == "function_definition" and n.start_byte >= site.start_byte \
                and n.end_byte <= site.end_byte:
            _, fdecl = _declarator_name(n.child_by_field_name("declarator"))
            if fdecl is not None:
                const = any(c.type == "type_qualifier" and node_text(c) == "const"
                            for c in fdecl.children)
            break
    return MethodInfo(cls, const, cls.methods.get(site.name, True))


def namespace_member(site: FunctionSite, types: UnitTypes) -> bool:
    """Whether a site written with a qualified name (``int search::find(...)``) is a free
    function of a namespace of the unit, not a member of a class."""
    parts = [p for p in site.qualified_name.split("::")[:-1] if p != "(anonymous)"]
    if not parts or types.classes.get(parts[-1]):
        return False
    written = "::".join(parts)
    return any(ns == written or ns.endswith("::" + written) for ns in types.namespaces)
