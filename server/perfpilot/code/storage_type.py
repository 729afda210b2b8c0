"""What storage a name's elements live in, and whether two names may reach the same elements.

The loop model takes distinct names to be distinct storage; a caller can break that by passing
one array twice: two pointers into it, a container and a pointer into its elements
(``f(v, v.data() + 1, n)``), a view (``std::span``) over either, or one container by two
references. Which of these a pair of names allows follows from the kind of each name's storage
and the element type it holds:

- ``pointer``: ``T*`` (and a ``T[]`` parameter): may address any storage of a compatible element
  type; a run-time test bounds the elements it reaches by the loop's subscripts.
- ``view``: ``std::span``, ``std::basic_string_view``: like a pointer, with its extent known:
  ``[data(), data() + size())``.
- ``owner``: a standard container (``vector``, ``array``, ``valarray``, ``deque``,
  ``basic_string``) or a C array that is not a parameter. Two owners share elements only when
  they are one object (``&a != &b`` rules that out) or one holds the other (a reference to a row
  of a ``vector<vector<T>>``). Held by value as a parameter or local it is the function's own
  copy, which no other name reaches (local aliases of it are ``code/aliases.py``'s business).
- ``unknown``: anything else (a class, a template parameter, ``auto``, a member, an undeclared
  name): it may own its elements or view anyone's. Of one type and by reference it is taken to
  be an owner (the same object or a distinct one); otherwise it may share elements with
  anything, and no run-time test can say where.

Element types compare by their scalar leaf (``double`` for ``double*``,
``std::vector<double>&`` and ``std::span<const double>``), with signed and unsigned variants of
one integer type alike (either may access the other) and integer typedefs read as their
builtin type. Character types (``char``, ``unsigned char``, ``std::byte``, ``uint8_t``) may
access any object, and an element type the analysis cannot name (a class, a template
parameter) may be or hold anything: both are compatible with every element type.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal

from perfpilot.code.declarations import VarType

Kind = Literal["pointer", "view", "owner", "unknown"]
Overlap = Literal["none", "same", "element", "range", "untestable"]

# The element type of storage the analysis cannot see into.
UNKNOWN_ELEMENT = "?"
# Character types: they may access the bytes of any object.
CHAR_LIKE = "char"

_OWNERS = frozenset({"vector", "array", "valarray", "deque", "basic_string"})
_VIEWS = frozenset({"span", "basic_string_view"})
# Containers whose elements are one contiguous block: [data(), data() + size()).
_CONTIGUOUS = frozenset({"vector", "array", "basic_string", "span", "basic_string_view"})
_STRINGS = {"string": "char", "wstring": "wchar_t", "u8string": "char8_t",
            "u16string": "char16_t", "u32string": "char32_t"}
_STRING_VIEWS = {f"{k}_view": v for k, v in _STRINGS.items()}
_CV = re.compile(r"\b(?:const|volatile|typename|struct|class)\b")
_NAMESPACE = re.compile(r"^(?:::)?(?:std::)?(?:__\w+::|pmr::)?")
_TEMPLATE = re.compile(r"^(\w+)\s*<(.*)>$", re.S)

_CHAR_WORDS = frozenset({"char", "signed char", "unsigned char", "byte", "int8_t", "uint8_t",
                         "int_least8_t", "uint_least8_t", "int_fast8_t", "uint_fast8_t"})
_INTEGERS = {
    "short": "short", "int16_t": "short", "uint16_t": "short", "int_least16_t": "short",
    "uint_least16_t": "short",
    "int": "int", "int32_t": "int", "uint32_t": "int", "int_least32_t": "int",
    "uint_least32_t": "int",
    # long and long long are distinct types, but the 64-bit typedefs may be either
    "long": "long", "long long": "long", "int64_t": "long", "uint64_t": "long",
    "size_t": "long", "ssize_t": "long", "ptrdiff_t": "long", "intptr_t": "long",
    "uintptr_t": "long", "intmax_t": "long", "uintmax_t": "long", "int_least64_t": "long",
    "uint_least64_t": "long", "int_fast16_t": "long", "uint_fast16_t": "long",
    "int_fast32_t": "long", "uint_fast32_t": "long", "int_fast64_t": "long",
    "uint_fast64_t": "long",
}
_OTHER_SCALARS = frozenset({"float", "double", "long double", "bool", "wchar_t", "char8_t",
                            "char16_t", "char32_t"})


@dataclass(frozen=True)
class Extent:
    """Where a name's elements lie, as C/C++ expressions: the first element's address, the
    number of elements and the size of one."""

    begin: str
    count: str
    size: str


@dataclass(frozen=True)
class StorageType:
    """The storage a name's elements live in: its kind (see the module docstring), the scalar
    element type at its leaf (``UNKNOWN_ELEMENT`` when the analysis cannot tell), the subscripts
    from the name to that leaf (1 for ``T*`` and ``vector<T>``, 2 for ``T**`` and
    ``vector<vector<T>>``), its whole type normalised (owners of one type may be one object),
    the normalised types of the containers nested in it, whether the name refers to storage
    declared elsewhere (a reference), and how its extent is written (``""``: unknown)."""

    kind: Kind
    element: str
    depth: int
    key: str
    inner: tuple[str, ...] = ()
    reference: bool = False
    extent: Literal["", "data", "index", "array"] = ""


def scalar_element(text: str) -> str:
    """The canonical name of a scalar type (``int`` for ``unsigned``, ``long`` for
    ``std::size_t``, ``char`` for ``std::byte``), or ``UNKNOWN_ELEMENT`` when ``text`` names no
    builtin scalar (a class, a template parameter, ``auto``, a typedef the analysis cannot
    read)."""
    words = _CV.sub(" ", text.replace("*", " ").replace("&", " ")).split()
    words = [_NAMESPACE.sub("", w) for w in words]
    t = " ".join(words)
    if t in _CHAR_WORDS:
        return CHAR_LIKE
    if t in _OTHER_SCALARS:
        return t
    if t in _INTEGERS:
        return _INTEGERS[t]
    rest = [w for w in words if w not in ("signed", "unsigned")]
    if len(rest) < len(words) and not rest:
        return "int"  # plain ``unsigned`` / ``signed``
    if len(rest) > 1 and rest[-1] == "int":
        rest = rest[:-1]
    t = " ".join(rest)
    if t in _INTEGERS:
        return _INTEGERS[t]
    return UNKNOWN_ELEMENT


def template_args(text: str) -> list[str]:
    """The top-level template arguments of ``text`` (a type as written), split at commas."""
    depth = 0
    args: list[str] = []
    start = 0
    for pos, ch in enumerate(text):
        if ch in "<([":
            depth += 1
        elif ch in ">)]":
            depth -= 1
        elif ch == "," and depth == 0:
            args.append(text[start:pos].strip())
            start = pos + 1
    args.append(text[start:].strip())
    return args


def _normal(text: str) -> str:
    return "".join(_CV.sub(" ", text).split()).replace("std::", "")


def _container(text: str) -> tuple[str, str] | None:
    """``(template, element text)`` of a standard container or view type, else None."""
    t = _NAMESPACE.sub("", " ".join(_CV.sub(" ", text).split()))
    if t in _STRINGS:
        return "basic_string", _STRINGS[t]
    if t in _STRING_VIEWS:
        return "basic_string_view", _STRING_VIEWS[t]
    m = _TEMPLATE.match(t)
    if m is None or (m.group(1) not in _OWNERS and m.group(1) not in _VIEWS):
        return None
    args = template_args(m.group(2))
    return (m.group(1), args[0]) if args and args[0] else None


def _leaf(text: str) -> tuple[str, int, tuple[str, ...]]:
    """The scalar leaf of an element type, the subscripts down to it (1 for a scalar) and
    the normalised container types passed on the way."""
    depth, inner = 1, list[str]()
    t = text.strip()
    while True:
        pointers = t.count("*")
        if pointers:
            depth += pointers
            t = t.replace("*", " ").strip()
        c = _container(t)
        if c is None:
            return scalar_element(t), depth, tuple(inner)
        inner.append(_normal(t))
        t = c[1]
        depth += 1


def storage_type(vt: VarType | None, *, parameter: bool = False) -> StorageType:
    """The storage of a variable of type ``vt`` (None: unknown). ``parameter``: a
    parameter, whose ``T[]`` is a pointer."""
    if vt is None:
        return StorageType("unknown", UNKNOWN_ELEMENT, 1, "")
    key = _normal(vt.base) + "*" * vt.pointer + ("[]" if vt.array else "")
    ref = bool(vt.reference)
    if vt.pointer or (vt.array and parameter and not ref):
        element, depth, inner = _leaf(vt.base)
        return StorageType("pointer", element, depth + vt.pointer + vt.array - 1, key, inner)
    if vt.array:
        element, depth, inner = _leaf(vt.base)
        return StorageType("owner", element, depth, key, inner, ref, "array")
    c = _container(vt.base)
    if c is None:
        return StorageType("unknown", UNKNOWN_ELEMENT, 1, key, (), ref)
    template, arg = c
    element, depth, inner = _leaf(arg)
    extent: Literal["", "data", "index"] = "data" if template in _CONTIGUOUS else \
        "index" if template == "valarray" else ""
    if template == "vector" and element == "bool" and depth == 1:
        extent = ""  # packed bits: no data(), no element addresses
    kind: Kind = "view" if template in _VIEWS else "owner"
    return StorageType(kind, element, depth, key, inner, ref, extent)


def element_type(vt: VarType | None, *, parameter: bool = False) -> str:
    """The scalar element type a variable's storage holds (``double`` for ``double*``,
    ``double[]``, ``std::vector<double>&``, ``std::array<double, N>``, ``std::span<double>``,
    ``std::valarray<double>``; ``char`` for ``std::string`` and ``std::byte*``), or
    ``UNKNOWN_ELEMENT`` when the analysis cannot tell."""
    return storage_type(vt, parameter=parameter).element


def compatible(a: str, b: str) -> bool:
    """Whether storage of element types ``a`` and ``b`` may hold the same objects: the same
    type, a character type, or one the analysis cannot name."""
    return a == b or UNKNOWN_ELEMENT in (a, b) or CHAR_LIKE in (a, b)


def extent_of(name: str, st: StorageType) -> Extent | None:
    """The whole extent of an owner's or view's own elements (for nested storage, the
    containers it holds), or None (a pointer's extent is what the loop reaches; a deque's
    elements are not one block)."""
    if not re.fullmatch(r"[A-Za-z_]\w*", name):
        return None
    if st.extent == "data":
        return Extent(f"{name}.data()", f"{name}.size()", f"sizeof *{name}.data()")
    if st.extent == "index":
        return Extent(f"({name}.size() ? &{name}[0] : nullptr)", f"{name}.size()",
                      f"sizeof {name}[0]")
    if st.extent == "array":
        return Extent(name, f"sizeof {name} / sizeof *{name}", f"sizeof *{name}")
    return None


def overlap(a: StorageType, b: StorageType) -> Overlap:
    """How the elements of two distinct names, both reachable by a caller, may overlap:
    ``none``; ``same`` (only as one object: ``&a != &b`` rules it out); ``element`` (a
    reference may be one of the other container's elements: ``element_test`` rules it out);
    ``range`` (anywhere: comparing the address ranges each reaches rules it out);
    ``untestable`` (no test here can rule it out: nested storage, a deque, an unknown kind)."""
    if a.kind == "owner" and b.kind == "owner":
        if a.key == b.key:
            return "same" if a.reference or b.reference else "none"
        if (a.reference and a.key in b.inner) or (b.reference and b.key in a.inner):
            # one may be an element of the other (a row of a vector of vectors)
            inner, outer = (a, b) if a.reference and a.key in b.inner else (b, a)
            direct = outer.inner[0] == inner.key and outer.extent in ("data", "index")
            return "element" if direct else "untestable"
        return "none"
    if a.kind == "unknown" or b.kind == "unknown":
        # of one type and by reference: taken to be owners (the same object or another)
        same = a.kind == b.kind and a.key != "" and a.key == b.key
        return "same" if same and a.reference and b.reference else "untestable"
    if not compatible(a.element, b.element):
        return "none"
    ranged = all(s.kind == "pointer" or s.extent in ("data", "index", "array") for s in (a, b))
    return "range" if a.depth == 1 and b.depth == 1 and ranged else "untestable"


def address(pointer: str) -> str:
    """A pointer expression's address as an integer: addresses of unrelated objects compare
    as integers, where comparing the pointers themselves is unspecified."""
    e = pointer if re.fullmatch(r"[A-Za-z_]\w*", pointer) else f"({pointer})"
    return f"(long long){e}"


def element_test(a_name: str, a: StorageType, b_name: str, b: StorageType) -> str | None:
    """For an ``element`` pair, the C++ condition that the reference is not one of the other
    container's elements (its own elements then live apart from the container's: each
    container owns its storage), or None when it cannot be written."""
    inner, outer = (a_name, b_name) if a.reference and b.inner and b.inner[0] == a.key \
        else (b_name, a_name)
    st = b if outer == b_name else a
    e = extent_of(outer, st) if st.depth > 1 and st.extent in ("data", "index") else None
    if e is None or not re.fullmatch(r"[A-Za-z_]\w*", inner):
        return None
    first = address(e.begin)
    here = address(f"&{inner}")
    return f"({here} < {first} || {first} + (long long)({e.count}) * (long long)({e.size}) " \
        f"<= {here})"


def restrict_excludes(a: StorageType, a_restrict: bool, b: StorageType,
                      b_restrict: bool) -> bool:
    """Whether ``restrict`` rules out an overlap of ``a`` and ``b``: on both when both are
    pointers (as compilers read it), on the pointer when the other is a container (an object
    reached through a restrict pointer and modified is reached through no other name). Only
    a pointer to the elements themselves counts: the rows of a ``double** restrict`` are
    reached through pointers loaded from it, which its ``restrict`` says nothing about."""
    a_restrict = a_restrict and a.depth == 1
    b_restrict = b_restrict and b.depth == 1
    if a.kind == "pointer" and b.kind == "pointer":
        return a_restrict and b_restrict
    return (a.kind == "pointer" and a_restrict) or (b.kind == "pointer" and b_restrict)


def reachable(name: str, types: Mapping[str, VarType | None], params: frozenset[str],
              global_names: frozenset[str], aliases: frozenset[str],
              locals_: frozenset[str]) -> StorageType | None:
    """The storage of an accessed base ``name`` when a caller's arguments may reach it, else
    None: parameters (an owner only by reference), globals, local pointers and references
    traced into a parameter or not traced (``aliases``), and names the function does not
    declare (members, ``s.v``, ``p->a``: unknown storage). Function-local arrays and containers,
    and pointers into them, are the function's own."""
    root = re.match(r"[A-Za-z_]\w*", name)
    if root is None or root.group(0) != name:
        # a member or element of something (``s.v``, ``p->a``, ``m[i].x``): storage of an
        # unknown type, the function's own when its root is a local it owns
        base = root.group(0) if root is not None else ""
        own = base not in params and base not in global_names and base not in aliases and \
            (base in locals_ or base in types)
        return None if own else StorageType("unknown", UNKNOWN_ELEMENT, 1, "")
    vt = types.get(name)
    if name in params:
        st = storage_type(vt, parameter=True)
        return None if st.kind == "owner" and not st.reference else st
    if name in aliases or name in global_names:
        return storage_type(vt)
    if name in locals_ or name in types:
        return None  # the function's own (a local pointer into it would be an alias)
    return StorageType("unknown", UNKNOWN_ELEMENT, 1, "")
