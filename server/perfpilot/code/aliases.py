"""Where a function's local pointers, references and iterators may point, and whether a loop
body reaches the storage it writes only through subscripts the dependence test can place.

``double* b = a + 1;`` or ``const std::vector<double>& b = a;`` make ``b[i]`` read ``a[i + 1]``;
``a.at(i + 1)``, ``*(a + i)`` or ``f(a)`` read elements no index names. The dependence test
reasons about subscripts of one name at a time, so every other way of reaching written storage
has to refuse the loop (or, for ``.at(e)``, be read as the subscript ``[e]``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import tree_sitter

from perfpilot.code.declarations import VarType, walk_declarator
from perfpilot.code.effects import POSITION_METHODS, SIZE_OR_CAPACITY_METHODS
from perfpilot.code.loop_body import ElementAccess
from perfpilot.code.syntax import (
    node_text,
    unwrap,
    walk,
)

Node = tree_sitter.Node

# A pointer whose value the analysis cannot trace (returned by a call, loaded from memory).
UNKNOWN = "?"

# Calls that hand back an address inside their argument (or the argument itself).
_ADDRESS_CALLS = frozenset({"begin", "end", "cbegin", "cend", "rbegin", "rend", "data",
                            "next", "prev", "addressof", "static_cast", "const_cast",
                            "reinterpret_cast", "front", "back", "at"})
# Calls that return fresh storage: a pointer to it aliases nothing the function already has.
_FRESH_CALLS = frozenset({"malloc", "calloc", "aligned_alloc", "_mm_malloc"})
_DECLARATORS = frozenset({"init_declarator", "pointer_declarator", "reference_declarator",
                          "array_declarator", "parenthesized_declarator"})


@dataclass(frozen=True)
class Storage:
    """The locals of one function that may alias other storage, with the names each may point
    into (parameters, globals or local arrays and containers; ``UNKNOWN`` when untraceable),
    and the locals that are storage of their own (arrays and containers held by value)."""

    origins: Mapping[str, frozenset[str]]
    local_values: frozenset[str]

    def of(self, name: str) -> frozenset[str]:
        """The storage ``name`` may reach: its origins for an alias, else itself."""
        return self.origins.get(name, frozenset({name}))


def _plain(callee: Node | None) -> str:
    if callee is None:
        return ""
    if callee.type == "field_expression":
        field = callee.child_by_field_name("field")
        return node_text(field) if field is not None else ""
    if callee.type == "template_function":
        name = callee.child_by_field_name("name")
        callee = name if name is not None else callee
    return node_text(callee).split("::")[-1]


def _under_address(n: Node, stop: Node) -> bool:
    """Whether ``n`` sits below a unary ``&`` inside ``stop``."""
    cur = n.parent
    while cur is not None and cur != stop.parent:
        if cur.type == "pointer_expression" and \
                node_text(cur.child_by_field_name("operator") or cur) == "&":
            return True
        cur = cur.parent
    return False


def _names_the_object(n: Node, value: Node, reference: bool) -> bool:
    """``n`` is what the alias is bound to, not an offset: the operand of ``&`` (``&x``), or
    the whole initialiser of a reference (``double& r = x;``)."""
    up = n.parent
    while up is not None and up.type == "parenthesized_expression":
        up = up.parent
    if up is not None and up.type == "pointer_expression" and \
            node_text(up.child_by_field_name("operator") or up) == "&":
        return True
    return reference and unwrap(value) == n


def _raw_origins(value: Node, pointer: bool, reference: bool,
                 types: Mapping[str, VarType | None]) -> set[str]:
    """The names an initialiser or assigned value may point into (see ``storage``)."""
    out: set[str] = set()
    for n in walk(value):
        if n.type == "new_expression":
            continue
        if n.type == "call_expression":
            fn = n.child_by_field_name("function")
            name = _plain(fn)
            # a position a container's own method returns points into that container, which
            # the walk below names as the method's receiver
            position = fn is not None and fn.type == "field_expression" and \
                name in POSITION_METHODS
            if name not in _ADDRESS_CALLS and name not in _FRESH_CALLS and \
                    name not in SIZE_OR_CAPACITY_METHODS and not position:
                out.add(UNKNOWN)
            continue
        if n.type != "identifier":
            continue
        parent = n.parent
        if parent is None or parent.type == "qualified_identifier" or (
                parent.type == "call_expression" and parent.child_by_field_name("function") == n):
            continue
        if parent.type == "field_expression" and parent.child_by_field_name("argument") == n:
            grand = parent.parent
            field = parent.child_by_field_name("field")
            if grand is not None and grand.type == "call_expression" and field is not None \
                    and node_text(field) in SIZE_OR_CAPACITY_METHODS:
                continue
        name = node_text(n)
        vt = types.get(name)
        if parent.type == "subscript_expression" and parent.child_by_field_name("argument") == n \
                and not _under_address(n, value):
            # an element: a reference binds to it; a pointer read from it points anywhere
            element = vt.element if vt is not None else None
            if reference:
                out.add(name)
            elif pointer or element is None or not element.is_arithmetic:
                out.add(UNKNOWN)
            continue
        if vt is not None and vt.is_arithmetic and not vt.reference and \
                not _names_the_object(n, value, reference):
            continue  # an offset
        out.add(name)
    return out


def storage(fn: Node, types: Mapping[str, VarType | None]) -> Storage:
    """The aliasing locals of ``fn``: pointers and references, and ``auto`` or iterator locals
    whose value is an address (``a + 1``, ``a.begin()``, ``&a[k]``, ``a.data()``), each with the
    names it may point into, through its initialiser and every later assignment, followed
    through other aliases. Fresh storage (``new``, ``malloc``) points into nothing known."""
    decls: dict[str, tuple[bool, bool, bool]] = {}  # name -> (pointer, reference, maybe)
    values: dict[str, list[Node]] = {}
    local_values: set[str] = set()
    for n in walk(fn):
        if n.type != "declaration":
            continue
        type_node = n.child_by_field_name("type")
        type_text = node_text(type_node) if type_node is not None else ""
        maybe = "auto" in type_text or "iterator" in type_text or "decltype" in type_text
        for i, child in enumerate(n.children):
            if n.field_name_for_child(i) != "declarator":
                continue
            d = walk_declarator(child)
            if not d.name:
                continue
            if d.pointer or d.reference or maybe:
                decls[d.name] = (bool(d.pointer), bool(d.reference), not (d.pointer or
                                                                          d.reference))
                if child.type == "init_declarator":
                    value = child.child_by_field_name("value")
                    if value is not None:
                        values.setdefault(d.name, []).append(value)
            else:
                local_values.add(d.name)
    for n in walk(fn):
        if n.type == "assignment_expression":
            left = n.child_by_field_name("left")
            right = n.child_by_field_name("right")
            if left is not None and right is not None and \
                    unwrap(left).type == "identifier" and node_text(unwrap(left)) in decls:
                values.setdefault(node_text(unwrap(left)), []).append(right)
    raw: dict[str, set[str]] = {}
    for name, (pointer, reference, maybe) in decls.items():
        found: set[str] = set()
        for v in values.get(name, []):
            found |= _raw_origins(v, pointer, reference, types)
        found.discard(name)
        if maybe and not found - {UNKNOWN}:
            continue  # an ``auto`` value computed from elements, not an address
        raw[name] = found
    # follow aliases of aliases
    resolved: dict[str, frozenset[str]] = {}
    for name in raw:
        seen, todo, out = {name}, list(raw[name]), set()
        while todo:
            x = todo.pop()
            if x in raw:
                if x not in seen:
                    seen.add(x)
                    todo.extend(raw[x])
            else:
                out.add(x)
        resolved[name] = frozenset(out)
    return Storage(resolved, frozenset(local_values - set(raw)))


def _declarator_name(n: Node) -> bool:
    p = n.parent
    return p is not None and p.type in _DECLARATORS and \
        p.child_by_field_name("declarator") == n


def _in_alias_initializer(n: Node, body: Node, aliases: Mapping[str, frozenset[str]]) -> bool:
    """``n`` lies in the initialiser of an alias declared in ``body`` (tracked by its origins)."""
    cur = n.parent
    while cur is not None and cur != body:
        if cur.type == "init_declarator":
            d = walk_declarator(cur)
            return d.name is not None and d.name in aliases
        cur = cur.parent
    return False


def _at_index(n: Node) -> Node | None:
    """The argument of ``n.at(e)`` when ``n`` is the object of such a call."""
    p = n.parent
    if p is None or p.type != "field_expression" or p.child_by_field_name("argument") != n:
        return None
    field = p.child_by_field_name("field")
    call = p.parent
    if field is None or node_text(field) != "at" or call is None or \
            call.type != "call_expression" or call.child_by_field_name("function") != p:
        return None
    args = call.child_by_field_name("arguments")
    return args.named_children[0] if args is not None and args.named_child_count == 1 else None


def _placed(n: Node) -> bool:
    """``n`` (a name) is the base of a subscript (``a[e]``, ``s.v[e]``), the object of a size
    query, or of ``.at(e)``: forms whose elements the dependence test knows."""
    p = n.parent
    if p is None:
        return False
    if p.type == "subscript_expression" and p.child_by_field_name("argument") == n:
        return True
    if _at_index(n) is not None:
        return True
    if p.type == "field_expression" and p.child_by_field_name("argument") == n:
        grand = p.parent
        field = p.child_by_field_name("field")
        if grand is None or field is None:
            return False
        if grand.type == "call_expression" and node_text(field) in SIZE_OR_CAPACITY_METHODS:
            return True
        return node_text(p.child_by_field_name("operator") or p) == "." and \
            grand.type == "subscript_expression" and grand.child_by_field_name("argument") == p
    return False


def at_reads(body: Node) -> list[tuple[ElementAccess, Node]]:
    """``x.at(e)`` in ``body`` as element reads ``x[e]`` (with the base node ``x``)."""
    out: list[tuple[ElementAccess, Node]] = []
    for n in walk(body):
        if n.type != "identifier":
            continue
        idx = _at_index(n)
        if idx is not None:
            out.append((ElementAccess(node_text(n), (" ".join(node_text(idx).split()),), False,
                                      n.start_point[0]), n))
    return out


def _occurrences(body: Node) -> dict[str, list[Node]]:
    out: dict[str, list[Node]] = {}
    for n in walk(body):
        if n.type != "identifier":
            continue
        p = n.parent
        if p is not None and (p.type == "qualified_identifier" or (
                p.type == "call_expression" and p.child_by_field_name("function") == n)):
            continue
        out.setdefault(node_text(n), []).append(n)
    return out


def touch_blocker(body: Node, written: set[str], private: set[str], st: Storage,
                  types: Mapping[str, VarType | None]) -> str:
    """Why ``body`` may reach storage it writes (the roots ``written``) other than through
    subscripts of the one name it writes by, or "" when it cannot. ``private`` are the locals
    of the body each iteration holds its own copy of.

    Refused: a second name for written storage (a local alias, or the written name reached
    through an alias of it), any use of a written name but ``x[e]``, ``x.at(e)`` and size
    queries, and a read through a pointer (a parameter, global or alias) at places no subscript
    names, while the loop writes storage a caller may share.
    """
    if not written:
        return ""
    occ = _occurrences(body)
    reach = {w: st.of(w) - {UNKNOWN} for w in written}
    all_written = frozenset().union(*reach.values())
    shared = any(x == UNKNOWN or x not in st.local_values for w in written for x in st.of(w))
    for name in sorted(occ):
        if name in private:
            continue
        mine = st.of(name) - {UNKNOWN}
        if mine & all_written:
            other = next((w for w in sorted(written) if w != name and reach[w] & mine), None)
            if other is not None:
                where = sorted(reach[other] & mine)[0]
                return (f"'{name}' and '{other}' may reach the same array '{where}', which the "
                        "loop writes: the analysis cannot tell which elements each names")
        elif not shared or not _pointer_like(name, st, types):
            continue
        for n in occ[name]:
            if _placed(n) or _declarator_name(n) or _in_alias_initializer(n, body, st.origins):
                continue
            use = n.parent if n.parent is not None else n
            while use.parent is not None and use.parent.type in (
                    "field_expression", "parenthesized_expression", "pointer_expression",
                    "call_expression", "binary_expression"):
                use = use.parent
                if use.type == "call_expression":
                    break
            what = "which the loop writes" if mine & all_written else \
                "which may overlap what the loop writes"
            return (f"the body reaches '{name}' through '{' '.join(node_text(use).split())}', "
                    f"{what}, at elements the analysis cannot place")
    return ""


def _pointer_like(name: str, st: Storage, types: Mapping[str, VarType | None]) -> bool:
    """A name whose value is an address into storage others may share."""
    if name in st.origins:
        return True
    vt = types.get(name)
    return vt is not None and (vt.pointer > 0 or (vt.array and name not in st.local_values))
