"""Local vectors of pairs used as association lists: searched by key from the front, the first
match's value updated, new pairs appended.

``for (auto& p : v) if (p.first == k) { ++p.second; break; }`` in a loop compares ``k`` with
every key kept so far. A hash map from each key to the position of its first pair, kept beside
the vector, finds the same pair in O(1): the scan becomes ``auto it = idx.find(k); if (it !=
idx.end()) { auto& p = v[it->second]; ++p.second; }``, and every append is followed by
``idx.emplace(v.back().first, v.size() - 1)`` (which keeps an existing entry, so the map names
the first pair of each key, the one a scan from the front stops at). The vector itself is
unchanged, so its order and contents stay observable. This module proves when that is exact:

- the vector is a local ``std::vector<std::pair<K, V>>`` declared once, alone and empty, in a
  block (``code/seen_list.py``, ``plain_empty_vector``); ``K`` an integer type or
  ``std::string``, for which hash equality is ``==``;
- the scan is a range-for over the vector (the element declared as written, by value or by
  reference) or an index loop from 0 to ``v.size()``, whose whole body is one ``if`` without
  ``else`` testing ``E.first == k`` (either side) with a branch ending in ``break`` and holding
  no other jump or loop; ``k`` is a variable or an element ``a[i]`` of another container, of
  exactly the type ``K`` (no side effects, the same value at every comparison, the same key the
  map is asked for);
- every change of the vector in the function is a ``push_back``/``emplace_back`` statement (the
  map follows each one), a store into an element's ``second`` (``v[i].second``, through a
  range-for's element, or in a scan's branch) or ``reserve``; keys are only read. No erase,
  insert, clear, resize, swap, sort, assignment, pointer, reference, kept iterator, lambda
  capture or unknown call of it; the function has no ``goto``, label or ``try``.

Then at every scan the map holds, for each key in the vector, the position of its first pair,
which is the pair the scan stops at, and no entry for a key the vector lacks.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from perfpilot.code.effects import APPEND_METHODS, ELEMENT_METHODS
from perfpilot.code.facts import FunctionFacts
from perfpilot.code.seen_list import (
    hashable_element,
    normal_type,
    plain_empty_vector,
    searched_value_type,
    whole_index_loop,
)
from perfpilot.code.sorted_ranges import (
    DECL,
    ESCAPE,
    ITERATE,
    READ,
    RESIZE,
    SIZE,
    WRITE,
    Mentions,
    flat,
    jumps_in,
    later_in_block,
)
from perfpilot.code.syntax import (
    Node,
    callee,
    identifiers,
    is_within,
    node_text,
    operator,
    statements,
    unwrap,
    walk,
)

_PAIR = re.compile(r"^(?:std::)?pair\s*<(.+)>$", re.S)
_JUMPS = frozenset({"break_statement", "continue_statement", "return_statement",
                    "goto_statement", "throw_expression", "co_return_statement"})
_LOOPS = frozenset({"for_statement", "for_range_loop", "while_statement", "do_statement"})


@dataclass(frozen=True)
class Scan:
    """One proved key search: the loop, the key expression, the element's declaration to
    bind to the found position (``type name`` as written, or the index's type and name), and
    the branch statements to run, the final ``break`` left out."""

    loop: Node
    key: Node
    binding: str  # "T name" for a range-for element, or the index's "T i"
    index: bool  # the binding is an index (gets the position), else an element
    branch: tuple[Node, ...]
    brk: Node  # the branch's final ``break``


@dataclass(frozen=True)
class AssocList:
    """A vector proved to be an association list: its declaration, key and value types, its
    scans and its appends (the statements the map must follow)."""

    var: str
    decl: Node
    key_type: str
    scans: tuple[Scan, ...]
    appends: tuple[Node, ...]


@dataclass(frozen=True)
class Refused:
    """A key search of a local vector of pairs left alone, and why."""

    var: str
    node: Node
    why: str


def assoc_lists(facts: FunctionFacts, unit: Node
                ) -> tuple[tuple[AssocList, ...], tuple[Refused, ...]]:
    """The function's proved association lists, and the scans refused with why."""
    if facts.language != "cpp" or facts.body is None:
        return (), ()
    found: dict[str, list[tuple[Node, str, str, bool]]] = {}
    for loop in (n for n in walk(facts.body, named=True)
                 if n.type in ("for_range_loop", "for_statement")):
        header = _scan_header(loop)
        if header is not None:
            found.setdefault(header[0], []).append((loop, *header[1:]))
    if not found:
        return (), ()
    m = Mentions(facts, unit)
    proved: list[AssocList] = []
    refused: list[Refused] = []
    problem = "the function has goto or labels" if jumps_in(facts) else \
        "the function catches exceptions" if any(
            n.type == "try_statement" for n in walk(facts.body, named=True)) else ""
    for var, loops in found.items():
        result = _prove(m, var, loops, problem)
        if isinstance(result, AssocList):
            proved.append(result)
        elif result is not None:
            refused.append(result)
    return tuple(proved), tuple(refused)


def _scan_header(loop: Node) -> tuple[str, str, str, bool] | None:
    """``(v, element text, binding, index)`` for a loop visiting every element of ``v`` from
    the front: ``for (T e : v)`` (binding ``T e``) or ``for (T i = 0; i < v.size(); ++i)``
    (element ``v[i]``, binding ``T i``)."""
    if loop.type == "for_range_loop":
        rng, decl = loop.child_by_field_name("right"), loop.child_by_field_name("declarator")
        typ = loop.child_by_field_name("type")
        if rng is None or rng.type != "identifier" or decl is None or typ is None:
            return None
        name = flat(decl).lstrip("&")
        if not re.fullmatch(r"[A-Za-z_]\w*", name) or flat(decl).startswith("&&"):
            return None
        quals = " ".join(node_text(c) for c in loop.children
                         if c.type == "type_qualifier" and c.start_byte < typ.start_byte)
        binding = " ".join(f"{quals} {node_text(typ)} {node_text(decl)}".split())
        return node_text(rng), name, binding, False
    got = whole_index_loop(loop)
    if got is None:
        return None
    var, i, init = got
    typ = init.child_by_field_name("type")
    if typ is None or node_text(typ) == "auto" or len(init.children) != 3:
        return None  # ``auto`` from ``0`` is ``int``, and no qualifiers
    return var, f"{var}[{i}]", f"{node_text(typ)} {i}", True


def _pair_types(element: str) -> tuple[str, str] | None:
    m = _PAIR.match(" ".join(element.split()))
    if m is None:
        return None
    inner, depth = m.group(1), 0
    for k, ch in enumerate(inner):
        depth += {"<": 1, ">": -1}.get(ch, 0)
        if ch == "," and depth == 0:
            return inner[:k].strip(), inner[k + 1:].strip()
    return None


def _prove(m: Mentions, var: str, loops: list[tuple[Node, str, str, bool]],
           problem: str) -> AssocList | Refused | None:
    declared = plain_empty_vector(m, var)
    if isinstance(declared, str):
        return None  # not a local vector: not a candidate
    decl, element = declared
    types = _pair_types(element)
    if types is None:
        return None
    key_type = types[0]
    scans: list[Scan] = []
    for loop, elem, binding, index in loops:
        scan = _scan(m, var, loop, elem, binding, index, key_type)
        if isinstance(scan, str):
            if scan:
                return Refused(var, loop, scan)
            continue
        scans.append(scan)
    if not scans:
        return None
    if problem:
        return Refused(var, scans[0].loop, problem)
    if not hashable_element(key_type):
        return Refused(var, scans[0].loop, f"the keys of '{var}' ({key_type}) are not integers "
                       "or strings, whose hash equality is ==")
    appends: list[Node] = []
    for u in m.of(var):
        if u.kind == DECL:
            continue
        where = f"line {u.ident.start_point[0] + 1}"
        if not later_in_block(decl, u.ident):
            return Refused(var, scans[0].loop, f"'{var}' is named before its declaration")
        if any(is_within(u.ident, s.loop) and not any(is_within(u.ident, b) for b in s.branch)
               for s in scans):
            continue  # the scan itself, checked above
        why = _use_problem(m, u.kind, u.ident, u.access)
        if why == "append" and u.access.parent is not None:
            appends.append(u.access.parent)
        elif why:
            return Refused(var, scans[0].loop, f"'{var}' {why} on {where}")
    return AssocList(var, decl, key_type, tuple(scans), tuple(appends))


def _scan(m: Mentions, var: str, loop: Node, elem: str, binding: str, index: bool,
          key_type: str) -> Scan | str:
    """The proved scan, or why a key search is refused ('' for a loop that is no key search)."""
    body = statements(loop.child_by_field_name("body"))
    if len(body) != 1 or body[0].type != "if_statement":
        return ""
    test = unwrap(body[0].child_by_field_name("condition"))
    if test is None or test.type != "binary_expression" or operator(test) != "==":
        return ""
    left, right = test.child_by_field_name("left"), test.child_by_field_name("right")
    first = f"{elem}.first"
    key = right if flat(left) == first else left if flat(right) == first else None
    if key is None:
        return ""
    key = unwrap(key)
    branch = statements(body[0].child_by_field_name("consequence"))
    if body[0].child_by_field_name("alternative") is not None:
        return "the key test has an else branch"
    if not branch or branch[-1].type != "break_statement":
        return "the branch does not end the scan with break (later equal keys would be visited)"
    rest = tuple(branch[:-1])
    if any(n.type in _JUMPS | _LOOPS for s in rest for n in walk(s, named=True)):
        return "the branch holds another jump or a loop"
    if key.type not in ("identifier", "subscript_expression") or \
            searched_value_type(m, key, var) != normal_type(key_type):
        return (f"the key looked up is not a variable or element known to have the key type "
                f"{key_type}")
    name = elem.split("[")[0] if not index else binding.split()[-1]
    if not index and name in identifiers(key):
        return "the key names the element"
    if not index and not _element_only_second(loop, name, rest):
        return "the scan changes the element's key, or lets the element escape"
    return Scan(loop, key, binding, index, rest, branch[-1])


def _element_only_second(loop: Node, name: str, region: tuple[Node, ...]) -> bool:
    """Whether every mention of a range-for element ``name`` in ``region`` is ``name.first``
    read, or ``name.second`` (used in any way: it is no key)."""
    for s in region:
        for n in walk(s, named=True):
            if n.type != "identifier" or node_text(n) != name:
                continue
            field = _field_of(n)
            if field == "second" or (field == "first" and _read_only(n.parent)):
                continue
            return False
    return True


def _field_of(n: Node) -> str:
    p = n.parent
    if p is None or p.type != "field_expression" or p.child_by_field_name("argument") != n or \
            operator(p) != ".":
        return ""
    return node_text(p.child_by_field_name("field"))


def _read_only(e: Node | None) -> bool:
    """Whether the value of ``e`` is only read where it stands."""
    p = e.parent if e is not None else None
    while p is not None and p.type == "parenthesized_expression":
        e, p = p, p.parent
    if p is None or e is None:
        return False
    if p.type == "binary_expression":
        return True
    if p.type == "init_declarator":
        d = p.child_by_field_name("declarator")
        return d is not None and d.type == "identifier" and p.child_by_field_name("value") == e
    if p.type == "assignment_expression":
        return p.child_by_field_name("right") == e
    return p.type in ("condition_clause", "return_statement", "conditional_expression")


def _use_problem(m: Mentions, kind: str, ident: Node, access: Node) -> str:
    """'' for a mention that leaves the keys and positions alone, 'append' for an append
    statement the map must follow, else what the mention may do."""
    if kind in (SIZE, READ, ITERATE):
        return ""
    if kind == RESIZE and access.type == "call_expression" and callee(access) in APPEND_METHODS:
        if access.parent is not None and access.parent.type == "expression_statement":
            return "append"
        return "is appended to inside an expression"
    if kind == WRITE and access.type == "call_expression" and callee(access) == "reserve":
        return ""
    if kind == WRITE and access.type == "for_range_loop":
        decl = access.child_by_field_name("declarator")
        name = flat(decl).lstrip("&")
        body = access.child_by_field_name("body")
        if body is not None and _element_only_second(access, name, (body,)):
            return ""
    if kind in (WRITE, ESCAPE) and _element_access(access):
        field = _field_of_access(access)
        if field == "second" or (field == "first" and _read_only(access.parent)):
            return ""
    if kind == ESCAPE and _returned_by_value(ident):
        return ""
    if kind in (RESIZE, WRITE):
        return f"is changed by `{' '.join(node_text(access).split())[:48]}`"
    return "escapes (a reference, pointer, iterator, capture or call may change it)"


def _element_access(access: Node) -> bool:
    if access.type == "subscript_expression":
        return True
    return access.type == "call_expression" and callee(access) in ELEMENT_METHODS


def _field_of_access(access: Node) -> str:
    p = access.parent
    if p is None or p.type != "field_expression" or p.child_by_field_name("argument") != access \
            or operator(p) != ".":
        return ""
    return node_text(p.child_by_field_name("field"))


def _returned_by_value(ident: Node) -> bool:
    ret = ident.parent
    if ret is None or ret.type != "return_statement":
        return False
    fn = ret.parent
    while fn is not None and fn.type not in ("function_definition", "lambda_expression"):
        fn = fn.parent
    decl = fn.child_by_field_name("declarator") if fn is not None and \
        fn.type == "function_definition" else None
    return decl is not None and decl.type == "function_declarator"
