"""Which types the generated bench can build and compare, and how the entry passes them.

The checker walks a type (resolving the unit's aliases) and answers why the bench cannot build
and record values of it, collecting meanwhile the user types whose hooks the bench must define.
Shared by the harness (harness.py), objects built through their public API (api_objects.py)
and the entry (entry.py).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from perfpilot.code.site import Param
from perfpilot.runner.unit_types import ClassDef, Ctor, EnumDef, Ty, UnitTypes, parse_type

ARITH = {
    "bool", "char", "signed char", "unsigned char", "wchar_t", "char16_t", "char32_t", "short",
    "short int", "signed short", "unsigned short", "unsigned short int", "int", "signed",
    "signed int", "unsigned", "unsigned int", "long", "long int", "signed long",
    "unsigned long", "unsigned long int", "long long", "long long int", "signed long long",
    "unsigned long long", "unsigned long long int", "size_t", "ssize_t", "ptrdiff_t", "int8_t",
    "int16_t", "int32_t", "int64_t", "uint8_t", "uint16_t", "uint32_t", "uint64_t", "intptr_t",
    "uintptr_t", "float", "double", "long double",
}
FLOAT = {"float", "double", "long double"}
NOT_SIZES = FLOAT | {"bool", "char", "signed char", "unsigned char", "wchar_t", "char16_t",
                       "char32_t"}
SIZE_NAME = re.compile(
    r"^((n|m|k_?n|len|length|size|sz|count|cnt|num|nelem|nelems|nitems|numel|[a-z]*_?(len|size|"
    r"count|num|n)|n_?[a-z]+|(n_?|num_?)?(rows?|cols?|columns?)|width|height|dim)\d?|"
    r"(len|length|size|count|num|n)_[a-z])$", re.IGNORECASE)
# Containers by their std name: how many type arguments they take.
SEQUENCES = {"vector", "deque", "list"}
SETS = {"set", "multiset", "unordered_set", "unordered_multiset"}
MAPS = {"map", "multimap", "unordered_map", "unordered_multimap"}
RESTRICT = re.compile(r"\b(restrict|__restrict__|__restrict)\b")



class HarnessUnsupported(Exception):
    """The signature needs a bench spec (the message names the parameter and why)."""


@dataclass
class Needs:
    """User types the bench must build or record (hooks to generate)."""

    classes: dict[str, tuple[ClassDef, Ctor | None]] = field(default_factory=dict)
    enums: dict[str, EnumDef] = field(default_factory=dict)
    names: set[str] = field(default_factory=set)  # identifiers the mirror must define


def arith_type(ty: Ty) -> str | None:
    """The arithmetic type a (resolved) type is, normalized, or None."""
    if ty.args or ty.unknown or ty.value or ty.indirect:
        return None
    name = ty.std_name
    return name if name in ARITH else None


def names_of(ty: Ty) -> set[str]:
    out = set(ty.name.split("::")) if not ty.value else set()
    for a in ty.args:
        out |= names_of(a)
    return out


class Checker:
    """Decides whether the bench can build and compare a type, collecting the hooks it needs."""

    def __init__(self, types: UnitTypes) -> None:
        self.types = types
        self.needs = Needs()

    def problem(self, ty: Ty, *, key: bool = False, hashed: bool = False) -> str | None:
        """Why the bench cannot build and compare values of ``ty`` (None when it can)."""
        self.needs.names |= names_of(ty)
        if ty.name in self.types.alias_problems:
            return f"'{ty.name}' {self.types.alias_problems[ty.name]}"
        ty = self.types.resolve(ty)
        if ty.indirect:
            return f"'{ty.name}' is held by pointer or reference"
        if ty.unknown:
            return f"'{ty.name}' is not a type the generated harness understands"
        if arith_type(ty) is not None:
            return None
        std = ty.std_name
        written_std = ty.name.startswith(("std::", "::std::"))
        cls = None if written_std else self.types.find_class(ty)
        enum = None if written_std else self.types.find_enum(ty)
        if enum is not None and not ty.args:
            self.needs.enums[type_key(enum.namespaces, enum.path)] = enum
            self.needs.names.add(enum.name)
            return None
        if cls is not None and not ty.args:
            if hashed:
                return f"'{ty.name}' has no std::hash for unordered containers"
            if key and not cls.less_than:
                return f"'{ty.name}' has no operator< to order it in a set or map"
            return self._class(cls)
        if std == "string" and not ty.args:
            return None
        if std in SEQUENCES | SETS | MAPS | {"pair", "tuple", "array"}:
            return self._container(ty, std)
        return (f"'{ty.name}' is not defined in this file" if not ty.args
                else f"'{ty.name}<...>' is not a container the generated harness knows")

    def _container(self, ty: Ty, std: str) -> str | None:
        args = ty.args
        if std in SEQUENCES | SETS:
            if len(args) != 1:
                return f"'{ty.name}' with a custom allocator or comparator"
            unordered = std.startswith("unordered")
            return self.problem(args[0], key=std in SETS and not unordered, hashed=unordered)
        if std in MAPS:
            if len(args) != 2:
                return f"'{ty.name}' with a custom allocator or comparator"
            unordered = std.startswith("unordered")
            return self.problem(args[0], key=not unordered, hashed=unordered) or self.problem(
                args[1])
        if std == "array":
            if len(args) != 2 or args[0].value:
                return f"'{ty.name}' needs a type and a size"
            return self.problem(args[0])
        for a in args:  # pair, tuple
            why = self.problem(a)
            if why:
                return why
        return None if args else f"'{ty.name}' without arguments"

    def _class(self, cls: ClassDef) -> str | None:
        k = type_key(cls.namespaces, cls.path)
        if k in self.needs.classes:
            return None
        what = f"class '{cls.path}'"
        if cls.is_template:
            return f"{what} is a template"
        if cls.is_union:
            return f"{what} is a union"
        if cls.polymorphic:
            return f"{what} has virtual functions"
        if cls.has_bases:
            return f"{what} derives from another class"
        if cls.item < 0 and not cls.classes:
            return f"{what} is not defined in this file"
        self.needs.names.add(cls.classes[0] if cls.classes else cls.name)
        # Reserve the name first: a class may hold containers of itself.
        self.needs.classes[k] = (cls, None)
        for f in cls.fields:
            if f.problem and f.problem != "is const":
                del self.needs.classes[k]
                return f"field '{f.name}' of {what} {f.problem}"
            why = self.problem(f.type)
            if why:
                del self.needs.classes[k]
                return f"field '{f.name}' of {what}: {why}"
        ctor = self._constructor(cls)
        if cls.user_ctors:
            if ctor is None:
                del self.needs.classes[k]
                return f"{what} has no public constructor from supported types"
        else:
            hidden = [f.name for f in cls.fields if not f.public or f.problem == "is const"]
            if hidden:
                del self.needs.classes[k]
                kind = "private" if any(not f.public for f in cls.fields) else "const"
                return (f"{what} has {kind} fields ({', '.join(hidden)}) and no constructor "
                        "to set them")
        self.needs.classes[k] = (cls, ctor)
        return None

    def _constructor(self, cls: ClassDef) -> Ctor | None:
        best: Ctor | None = None
        for c in cls.ctors:
            if not c.public:
                continue
            saved = (dict(self.needs.classes), dict(self.needs.enums))
            if any(self.problem(ty) for _, ty in c.params):
                self.needs.classes, self.needs.enums = saved[0], saved[1]
                continue
            if best is None or len(c.params) > len(best.params):
                best = c
        return best


def type_key(namespaces: tuple[str, ...], path: str) -> str:
    return "::".join((*namespaces, path))


def strip(text: str) -> str:
    return " ".join(RESTRICT.sub("", text).split())


def is_class(types: UnitTypes, ty: Ty) -> bool:
    ty = types.resolve(ty)
    return not ty.args and not ty.name.startswith("std::") and types.find_class(ty) is not None


def value_text(ret: str) -> str:
    """The return type without cv-qualifiers, references or storage words."""
    words = re.sub(r"[&]", " ", ret).split()
    return " ".join(w for w in words if w not in ("const", "static", "inline", "constexpr",
                                                  "volatile", "virtual", "extern"))


def is_scalar_text(base: str, types: UnitTypes) -> bool:
    ty = types.resolve(parse_type(base, "cpp"))
    return arith_type(ty) is not None or ty.name.endswith("_t")


def trampoline_param_type(p: Param, types: UnitTypes) -> str:
    """The parameter's type as the generated entry's trampoline declares it.

    Arrays are pointers; a by-value object that is not arithmetic is taken by const reference
    (the copy then happens inside the timed call, as for a real caller). A C unit's entry is
    the function itself, so there every type stays as written.
    """
    if p.array:
        return strip(re.sub(r"\[[^\]]*\]", "", p.type_text)) + "*"
    if types.language == "cpp" and p.pointer == 0 and not p.reference \
            and not is_scalar_text(p.base, types):
        return f"const {strip(p.type_text)} &"
    return strip(p.type_text)


def user_ns(namespaces: tuple[str, ...]) -> str:
    # Hooks live in the type's own namespace, anonymous ones included: that is where
    # argument-dependent lookup looks for them.
    return "::".join(["user", *namespaces])


def open_ns(ns: str) -> str:
    return "".join("namespace { " if n == "(anonymous)" else f"namespace {n} {{ "
                   for n in ns.split("::") if n) + "\n"


def close_ns(ns: str) -> str:
    return "\n" + "".join("} " for n in ns.split("::") if n)
