"""Containers a function sorts, and every use it makes of them.

Two rules build on these facts: a linear scan of a range that a ``std::sort`` left in order can
be a binary search, and a sort whose only purpose is to read one or two fixed positions can be
a selection. Both need to know the same things: which statement sorts all of a container (and
in which direction), and what each later (or earlier) mention of the container does with it:
ask its size, read an element, read all of it, write it, change its size, or let it escape
(a pointer, reference or iterator kept, a capture, an unknown call), after which nothing about
its contents can be proved.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Callable
from dataclasses import dataclass

from perfpilot.code.declarations import VarType
from perfpilot.code.effects import (
    CAPACITY_CHANGES,
    ELEMENT_METHODS,
    ITERATOR_METHODS,
    NEVER_WRITES_MEMORY,
    NO_SIDE_EFFECTS,
    READ_ONLY_METHODS,
    READS_ITS_RANGES_ONLY,
    RESIZING_METHODS,
    SIZE_OR_CAPACITY_METHODS,
    STORES_ITS_ARGUMENTS,
)
from perfpilot.code.facts import FunctionFacts
from perfpilot.code.syntax import (
    Node,
    arguments,
    callee,
    node_text,
    operator,
    receiver,
    root_name,
    tree_shape,
    unparenthesized,
    unwrap,
)

# What a mention of the container does.
DECL, SIZE, READ, ITERATE, WRITE, RESIZE, ESCAPE = (
    "declaration", "size", "read", "iterate", "write", "resize", "escape")

_MUTATORS = RESIZING_METHODS | CAPACITY_CHANGES
# Algorithms that only read their ranges and return a value (not a position).
_VALUE_ALGOS = frozenset({
    "count", "count_if", "accumulate", "binary_search", "all_of", "any_of", "none_of",
    "is_sorted", "reduce", "inner_product", "equal", "distance", "includes",
    "lexicographical_compare",
})
# Algorithms that only read their ranges and return a position in them.
_POSITION_ALGOS = frozenset({
    "find", "find_if", "find_if_not", "lower_bound", "upper_bound", "equal_range",
    "min_element", "max_element", "minmax_element", "adjacent_find", "search",
    "is_sorted_until", "mismatch",
})
# Algorithms that write into one of their ranges (the destination: argument 2 of the copying
# ones, 3 for a binary transform) or reorder it.
_COPYING = frozenset({"copy", "copy_n", "copy_backward", "move", "transform"})
_WRITING = frozenset({
    "sort", "stable_sort", "partial_sort", "nth_element", "reverse", "fill", "fill_n", "iota",
    "generate", "generate_n", "shuffle", "random_shuffle", "unique", "remove", "remove_if",
    "rotate", "replace", "replace_if", "partition", "stable_partition", "make_heap",
    "push_heap", "pop_heap", "sort_heap", "next_permutation", "prev_permutation",
    "swap_ranges", "iter_swap", "for_each",
})
_SCANF = frozenset({"scanf", "sscanf", "fscanf"})
_COMPARE = frozenset({"==", "!=", "<", "<=", ">", ">="})
_TIGHT = re.compile(r"\s+")
_SORTS = frozenset({"sort", "stable_sort"})
# Standard algorithms that read their ranges and call nothing but what they are given.
_READING_ALGOS = READS_ITS_RANGES_ONLY - {"for_each", "copy"}
_POSITION_CALLS = frozenset({"begin", "end", "cbegin", "cend", "data", "size"})


@dataclass(frozen=True)
class SortCall:
    """``std::sort(v.begin(), v.end()[, cmp])`` as a whole statement: the statement, the
    container, whether the order is descending, and the comparator as written ('' for none)."""

    statement: Node
    var: str
    descending: bool
    comparator: str


@dataclass(frozen=True)
class Use:
    """One mention of the container: what it does (``DECL`` ... ``ESCAPE``), the identifier,
    and the expression that reads or writes through it (``v[i]``, ``v.front()``, the loop)."""

    kind: str
    ident: Node
    access: Node


def flat(node: Node | None) -> str:
    """A node's text without whitespace."""
    return _TIGHT.sub("", node_text(node))


def sorts_anything(facts: FunctionFacts) -> bool:
    """Whether the function calls a sort at all (the cheap test before any analysis)."""
    return any(callee(c) in _SORTS for c in facts.nodes("call_expression"))


def small(node: Node, limit: int = 64) -> bool:
    """Whether an expression is small enough to reason about (and to recurse over safely)."""
    depth, nodes = tree_shape(node, 24, limit)
    return depth <= 24 and nodes <= limit


def unit_functions(unit: Node) -> frozenset[str]:
    """Names of the functions the unit defines or declares at top level or in namespaces (a
    call of such a name without ``std::`` is not a standard algorithm)."""
    names: set[str] = set()
    stack = [unit]
    while stack:
        n = stack.pop()
        for c in n.named_children:
            if c.type in ("function_definition", "declaration"):
                d = c.child_by_field_name("declarator")
                while d is not None and d.type in ("pointer_declarator", "reference_declarator"):
                    d = d.child_by_field_name("declarator")
                if d is not None and d.type == "function_declarator":
                    names.add(node_text(d.child_by_field_name("declarator")).split("::")[-1])
            elif c.type in ("namespace_definition", "declaration_list", "template_declaration",
                            "linkage_specification"):
                stack.append(c)
    return frozenset(names)


def std_name(call: Node, own: frozenset[str]) -> str | None:
    """The standard function a call names: ``std::sort`` or an unqualified ``sort`` that the
    unit does not define itself (found by argument-dependent lookup on standard iterators)."""
    fn = call.child_by_field_name("function")
    if fn is None or receiver(call) is not None:
        return None
    name = callee(call)
    if fn.type == "qualified_identifier":
        head = flat(fn).split("<")[0]
        return name if head == f"std::{name}" else None
    if fn.type in ("identifier", "template_function") and name not in own:
        return name
    return None


def ranges_name(call: Node) -> str | None:
    """The algorithm a ``std::ranges::name(...)`` call names (no template arguments), else
    None."""
    fn = call.child_by_field_name("function")
    if fn is None or fn.type != "qualified_identifier":
        return None
    name = callee(call)
    return name if flat(fn) == f"std::ranges::{name}" else None


def whole_container(call: Node) -> str | None:
    """``v`` for ``std::ranges::name(v, ...)``: the call's range is all of the container named
    by its first argument."""
    args = arguments(call)
    if ranges_name(call) is None or not args or args[0].type != "identifier":
        return None
    return node_text(args[0])


def whole_range(first: Node, last: Node) -> str | None:
    """``v`` when the two arguments span all of the container ``v``: ``v.begin(), v.end()``,
    ``std::begin(v), std::end(v)`` or ``v.data(), v.data() + v.size()``."""
    a, b = flat(first), flat(last)
    for pattern in (r"(\w+)\.c?begin\(\)", r"(?:std::)?c?begin\((\w+)\)", r"(\w+)\.data\(\)"):
        m = re.fullmatch(pattern, a)
        if m is None:
            continue
        v = m.group(1)
        ends = ends_of(v) if "data" not in pattern else {f"{v}.data()+{v}.size()"}
        return v if b in ends else None
    return None


def ends_of(var: str) -> frozenset[str]:
    """The spellings (without whitespace) of the end iterator of all of ``var``."""
    return frozenset({f"{var}.end()", f"{var}.cend()", f"std::end({var})", f"end({var})",
                      f"std::cend({var})", f"cend({var})"})


def _comparator(arg: Node, element: str) -> bool | None:
    """Whether a comparator argument orders descending (``std::greater``), ascending
    (``std::less``), or None for anything else (a lambda, a function, another type)."""
    m = re.fullmatch(r"(?:std::(?:ranges::)?)?(less|greater)(?:<([^<>]*)>)?(?:\(\)|\{\})",
                     flat(arg))
    if m is None or (m.group(2) or "") not in ("", element.replace(" ", "")):
        return None
    return m.group(1) == "greater"


def comparator_order(arg: Node, element: str) -> bool | None:
    """Whether a comparator argument of a sort or search orders descending
    (``std::greater``), ascending (``std::less``), or None for anything else."""
    return _comparator(arg, element)


def element_read(e: Node, own: frozenset[str]) -> bool:
    """Whether the element expression ``e`` (``*it``, ``v[i]``) is only read where it
    stands: not written, not kept by reference or address, not passed to unknown code."""
    return _element_use(e, own) == READ


def sort_call(stmt: Node, own: frozenset[str], element_of: Callable[[str], str | None],
              ranges: bool = False) -> SortCall | None:
    """The statement as a sort of a whole container in natural (``<``) or reversed (``>``)
    order; ``element_of`` gives a container's element type as written (None: not one).
    ``ranges``: ``std::ranges::sort(v)`` / ``std::ranges::sort(v, std::greater{})`` count too
    (for callers whose rewrites name no ``std::ranges`` algorithm of their own)."""
    if stmt.type != "expression_statement" or stmt.named_child_count != 1:
        return None
    call = stmt.named_children[0]
    if call is None or call.type != "call_expression":
        return None
    args = arguments(call)
    if std_name(call, own) in _SORTS and len(args) in (2, 3):
        var, comp = whole_range(args[0], args[1]), args[2:]
    elif ranges and ranges_name(call) in _SORTS and len(args) in (1, 2):
        # a third argument would be a projection: not the elements' own order
        var, comp = whole_container(call), args[1:]
    else:
        return None
    element = element_of(var) if var is not None else None
    if var is None or element is None:
        return None
    descending = _comparator(comp[0], element) if comp else False
    if descending is None:
        return None
    return SortCall(stmt, var, descending, node_text(comp[0]) if comp else "")


def sort_calls(facts: FunctionFacts, own: frozenset[str],
               element_of: Callable[[str], str | None], ranges: bool = False) -> list[SortCall]:
    """Every whole-container sort statement of the function, in source order."""
    out = []
    for call in facts.nodes("call_expression"):
        if call.parent is not None and callee(call) in _SORTS:
            found = sort_call(call.parent, own, element_of, ranges)
            if found is not None:
                out.append(found)
    return out


def container_type(facts: FunctionFacts, var: str) -> VarType | None:
    """The declared type of ``var`` when it is a ``std::vector``/``deque``/``array`` (an
    ``auto`` copy of such a variable counts), else None."""
    vt = facts.var(var)
    if vt is None or vt.pointer or vt.array:
        return None
    base = vt.base.replace("const", "").strip()
    if base == "auto":
        source = _auto_source(facts, var)
        other = facts.var(source) if source else None
        if other is None or other.pointer or other.array:
            return None
        base = other.base.replace("const", "").strip()
        vt = VarType(base, reference=vt.reference, const=vt.const, name=vt.name,
                     type_text=vt.type_text, line=vt.line, scope=vt.scope)
    if not re.match(r"^(?:std::)?(?:vector|deque|array)\s*<", base) or "vector<bool>" in \
            base.replace(" ", ""):
        return None
    return vt


def _auto_source(facts: FunctionFacts, var: str) -> str | None:
    for d in facts.nodes("declaration"):
        for c in d.named_children:
            if c.type == "init_declarator" and \
                    node_text(c.child_by_field_name("declarator")) == var:
                value = c.child_by_field_name("value")
                return node_text(value) if value is not None and value.type == "identifier" \
                    else None
    return None


def plain_local(facts: FunctionFacts, name: str | None) -> bool:
    """Whether ``name`` is a local variable or by-value parameter of the function: nothing
    outside it can reach the variable, unless the function hands out its address."""
    vt = facts.var(name)
    return vt is not None and vt.scope in ("local", "param") and not vt.reference and \
        not vt.pointer and not re.search(r"\bstatic\b", vt.type_text)


_CONTAINER_TYPE = re.compile(
    r"^(?:std::)?(?:vector|deque|array|basic_string|string|map|multimap|set|multiset|"
    r"unordered_map|unordered_set|list)\b")


def alias_events(facts: FunctionFacts, strict: bool) -> list[tuple[int, int, str]]:
    """``(start, end, why)`` of every place in the function that might change a parameter's
    elements through another name, sorted by start. A by-value container owns its elements,
    but a caller may have moved in a buffer it still points into; a reference parameter may be
    any of the caller's containers. So: a call of unknown code, a write through a pointer,
    iterator or reference to an element, and for a reference parameter (``strict``) also a
    write to another container that is not a local (it may be the same one)."""
    out: list[tuple[int, int, str]] = []
    for c in facts.nodes("call_expression"):
        rcv = receiver(c)
        name = callee(c)
        if rcv is None:
            if name not in NEVER_WRITES_MEMORY | NO_SIDE_EFFECTS and \
                    not _reading_algorithm(facts, c):
                out.append((c.start_byte, c.end_byte, f"'{name}()' may change it"))
        elif name not in READ_ONLY_METHODS and not _receiver_owned(facts, unwrap(rcv), strict):
            out.append((c.start_byte, c.end_byte,
                        f"'{node_text(c.child_by_field_name('function'))}()' may change it"))
    for kind in ("assignment_expression", "update_expression"):
        for a in facts.nodes(kind):
            target = a.child_by_field_name("left") or a.child_by_field_name("argument")
            if target is not None and not _owned(facts, unwrap(target), strict):
                out.append((a.start_byte, a.end_byte,
                            f"'{node_text(target)}' may be an alias of it"))
    for b in facts.nodes("binary_expression"):
        right = b.child_by_field_name("right")
        if operator(b) == ">>" and right is not None and \
                not _owned(facts, unwrap(right), strict):
            out.append((b.start_byte, b.end_byte, f"'{node_text(b)}' may change it"))
    out.extend((n.start_byte, n.end_byte, "a lambda may change it")
               for n in facts.nodes("lambda_expression") if _may_write(n))
    out.sort()
    return out


def _reading_algorithm(facts: FunctionFacts, call: Node) -> bool:
    """A ``std::`` algorithm that only reads its ranges, called with nothing it could call
    but lambdas (each an event of its own): its other arguments are built from numbers,
    strings and containers, and positions in them."""
    fn = call.child_by_field_name("function")
    return fn is not None and flat(fn).startswith("std::") and \
        callee(call) in _READING_ALGOS and all(
            a.type == "lambda_expression" or _plain_argument(facts, a) for a in arguments(call))


def _plain_argument(facts: FunctionFacts, arg: Node) -> bool:
    for n in _walk(arg):
        if n.type in ("lambda_expression", "new_expression", "delete_expression") or (
                n.type == "call_expression" and callee(n) not in _POSITION_CALLS):
            return False
        if n.type == "identifier" and (n.parent is None or n.parent.type not in (
                "qualified_identifier", "field_expression") or
                n.parent.child_by_field_name("argument") == n):
            vt = facts.var(node_text(n))
            if vt is None or not (vt.is_integral or vt.is_floating or
                                  (_container_object(facts, node_text(n)))):
                return False
    return True


def reads_only(facts: FunctionFacts, call: Node) -> bool:
    """Whether a call is a ``std::`` algorithm that only reads its ranges and values (no
    function of the program among its arguments, no lambda that could write)."""
    return _reading_algorithm(facts, call) and not any(
        _may_write(a) for a in arguments(call) if a.type == "lambda_expression")


def _may_write(lam: Node) -> bool:
    """Whether a lambda's body could write anything: it assigns, steps, extracts or calls."""
    return any(n.type in ("assignment_expression", "update_expression", "call_expression",
                          "delete_expression") or
               (n.type == "binary_expression" and operator(n) == ">>")
               for n in _walk(lam.child_by_field_name("body")))


def _owned(facts: FunctionFacts, target: Node, strict: bool) -> bool:
    """Whether writing ``target`` (a variable, an element of a container or array variable, a
    member of a local object, or a call of a method on one) can only change storage that
    variable owns."""
    if target.type == "identifier":
        return plain_local(facts, node_text(target)) or (
            not strict and _container_object(facts, node_text(target)))
    if target.type == "subscript_expression":
        base = target.child_by_field_name("argument")
        if base is None or base.type != "identifier":
            return False
        vt = facts.var(node_text(base))
        if vt is None or vt.pointer:
            return False
        local = plain_local(facts, node_text(base))
        if vt.array:
            return local
        return _container_object(facts, node_text(base)) and (local or not strict)
    if target.type == "field_expression":
        obj = target.child_by_field_name("argument")
        vt = facts.var(node_text(obj)) if obj is not None and obj.type == "identifier" else None
        return vt is not None and operator(target) == "." and \
            plain_local(facts, node_text(obj)) and "auto" not in vt.base.split()
    return False


def _receiver_owned(facts: FunctionFacts, rcv: Node, strict: bool) -> bool:
    """Whether a method call on ``rcv`` can only change a standard container that is a local
    (or, unless ``strict``, any container object other than the parameter itself)."""
    if rcv.type == "identifier":
        name = node_text(rcv)
        return _container_object(facts, name) and (plain_local(facts, name) or not strict)
    return _owned(facts, rcv, strict)


def _container_object(facts: FunctionFacts, name: str) -> bool:
    """A variable that is a standard container object (not a pointer into one)."""
    vt = facts.var(name)
    return vt is not None and not vt.pointer and not vt.array and \
        bool(_CONTAINER_TYPE.match(vt.base.replace("const", "").strip()))


def element_type(vt: VarType) -> str:
    """The element type of a container type, as written (spaces collapsed)."""
    el = vt.element
    return " ".join(el.base.split()) if el is not None else ""


def mentions(facts: FunctionFacts, var: str) -> list[Node]:
    """The identifiers naming ``var`` in the function (not fields, not qualified names)."""
    return [n for n in facts.nodes("identifier") if node_text(n) == var]


class Mentions:
    """The containers of one function: every mention of a name classified, computed once per
    name, with the questions the rules ask of them."""

    def __init__(self, facts: FunctionFacts, unit: Node) -> None:
        self.facts = facts
        self.own = unit_functions(unit)
        self._uses: dict[str, list[Use]] = {}
        self._type_names: dict[str, list[Node]] | None = None
        self._aliases: dict[bool, tuple[list[int], list[tuple[int, int, str]]]] = {}

    def of(self, var: str) -> list[Use]:
        """Every mention of ``var`` classified (see the module docstring). A declaration such
        as ``std::vector<int>& r(v);`` parses with ``v`` as a type name: an escape."""
        hit = self._uses.get(var)
        if hit is None:
            if self._type_names is None:
                self._type_names = {}
                for n in _walk(self.facts.body):
                    if n.type == "type_identifier":
                        self._type_names.setdefault(node_text(n), []).append(n)
            hit = [classify(n, self.own) for n in mentions(self.facts, var)]
            hit.extend(Use(ESCAPE, n, n) for n in self._type_names.get(var, []))
            self._uses[var] = hit
        return hit

    def declared_once(self, var: str) -> bool:
        """Whether the function declares ``var`` exactly once (no shadowing copy of it)."""
        return sum(1 for u in self.of(var) if u.kind == DECL) == 1

    def size_alias(self, name: str, var: str) -> Node | None:
        """The declaration of ``name`` when it is ``T name = v.size();`` (possibly cast to an
        integer type), declared once, never written, and no statement after it changes the
        size of ``v``: it holds the size wherever it is read."""
        f = self.facts
        vt = f.var(name)
        if vt is None or vt.scope != "local" or not vt.is_integral or vt.reference or \
                not self.declared_once(name) or f.body is None or \
                name in f.modified_in(f.body):
            return None
        for d in f.nodes("declaration"):
            for c in d.named_children:
                if c.type != "init_declarator" or \
                        node_text(c.child_by_field_name("declarator")) != name:
                    continue
                value = c.child_by_field_name("value")
                if value is None or not is_size_of(value, var) or any(
                        u.kind == RESIZE and u.ident.start_byte >= d.start_byte
                        for u in self.of(var)):
                    return None
                return d
        return None

    def alias_problem(self, spans: list[tuple[int, int]], strict: bool,
                      exclude: tuple[int, int] | None = None) -> str:
        """Why code in ``spans`` (outside ``exclude``) might change a parameter's elements
        through another name ('' when nothing can; see ``alias_events``)."""
        if strict not in self._aliases:
            events = alias_events(self.facts, strict)
            self._aliases[strict] = ([e[0] for e in events], events)
        starts, events = self._aliases[strict]
        for a, b in spans:
            for start, end, why in events[bisect.bisect_left(starts, a):
                                          bisect.bisect_left(starts, b)]:
                if end <= b and not (exclude is not None and
                                     exclude[0] <= start and end <= exclude[1]):
                    return why
        return ""


def classify(n: Node, own: frozenset[str]) -> Use:
    """What the mention ``n`` of a container does."""
    var = node_text(n)
    for a in _ancestors(n):
        if a.type == "lambda_expression":
            return Use(ESCAPE, n, n)
    p = n.parent
    if p is None or p.type == "qualified_identifier":
        return Use(ESCAPE, n, n)
    if _declares(n):
        return Use(DECL, n, n)
    if p.type == "field_expression" and p.child_by_field_name("argument") == n:
        call = p.parent
        if call is None or call.type != "call_expression" or \
                call.child_by_field_name("function") != p:
            return Use(ESCAPE, n, p)
        method = node_text(p.child_by_field_name("field"))
        if method in SIZE_OR_CAPACITY_METHODS:
            return Use(SIZE, n, call)
        if method in ELEMENT_METHODS:
            return Use(_element_use(call, own), n, call)
        if method in ITERATOR_METHODS:
            return Use(_iterator_use(call, var, own), n, call)
        if method in RESIZING_METHODS:
            return Use(RESIZE, n, call)
        return Use(WRITE if method in _MUTATORS else ESCAPE, n, call)
    if p.type == "subscript_expression" and p.child_by_field_name("argument") == n:
        return Use(_element_use(p, own), n, p)
    if p.type == "for_range_loop" and p.child_by_field_name("right") == n:
        return Use(_range_for_use(p), n, p)
    if p.type == "argument_list" and p.parent is not None and \
            p.parent.type == "call_expression":
        call = p.parent
        name = std_name(call, own)
        if name in ("begin", "end", "cbegin", "cend", "rbegin", "rend", "data"):
            return Use(_iterator_use(call, var, own), n, call)
        if name in ("size", "empty"):
            return Use(SIZE, n, call)
        if name in ("swap", "move"):
            return Use(RESIZE, n, call)
        return Use(_ranges_use(call, n, own), n, call)
    if p.type == "assignment_expression" and p.child_by_field_name("left") == n:
        return Use(RESIZE, n, p)
    if p.type == "init_declarator" and p.child_by_field_name("value") == n:
        # a copy reads every element in order; a reference keeps the container
        decl = p.child_by_field_name("declarator")
        plain = decl is not None and decl.type == "identifier"
        return Use(ITERATE if plain else ESCAPE, n, p)
    return Use(ESCAPE, n, p)


def _ranges_use(call: Node, n: Node, own: frozenset[str]) -> str:
    """What ``std::ranges::name(v, ...)`` does with all of ``v``, its first argument: what the
    classic algorithm does with ``v.begin(), v.end()`` (a sort writes it, but only as a
    statement: a position it returns could be kept). Any other argument escapes."""
    name = ranges_name(call)
    args = arguments(call)
    if name is None or not args or args[0] != n or len(args) > 2:
        return ESCAPE
    if name in _VALUE_ALGOS:
        return ITERATE
    if name in _POSITION_ALGOS:
        return _position_result(call, own)
    if name in _WRITING and call.parent is not None and \
            call.parent.type == "expression_statement":
        return WRITE
    return ESCAPE


def _ancestors(n: Node) -> list[Node]:
    out = []
    p = n.parent
    while p is not None and p.type != "function_definition":
        out.append(p)
        p = p.parent
    return out


def _declares(n: Node) -> bool:
    """Whether ``n`` is the name a declaration or parameter declares."""
    node = n
    p = n.parent
    while p is not None and p.type in ("reference_declarator", "pointer_declarator",
                                       "array_declarator", "init_declarator",
                                       "function_declarator"):
        inner = p.child_by_field_name("declarator")
        if inner is not None and inner != node:
            return False
        node, p = p, p.parent
    return p is not None and p.type in ("declaration", "parameter_declaration",
                                        "optional_parameter_declaration") and \
        p.child_by_field_name("declarator") == node


def _element_use(e: Node, own: frozenset[str]) -> str:
    """What happens to the element ``e`` (``v[i]``, ``v.front()``, ``*it``): read, written,
    or kept (a reference or address that outlives the expression)."""
    node = e
    while node.parent is not None and (
            node.parent.type == "parenthesized_expression" or
            (node.parent.type == "conditional_expression" and
             node.parent.child_by_field_name("condition") != node)):
        node = node.parent  # a branch of ``?:`` is the value itself (it may be an lvalue)
    p = node.parent
    if p is None:
        return ESCAPE
    kind = p.type
    if kind == "assignment_expression":
        return WRITE if p.child_by_field_name("left") == node else READ
    if kind == "update_expression":
        return WRITE
    if kind == "pointer_expression":
        if operator(p) != "&":
            return ESCAPE
        q = p.parent
        call = q.parent if q is not None and q.type == "argument_list" else None
        return WRITE if call is not None and call.type == "call_expression" and \
            callee(call) in _SCANF else ESCAPE
    if kind == "binary_expression":
        if operator(p) == ">>" and p.child_by_field_name("right") == node:
            return WRITE  # stream extraction (or a shift: counted as a write, to be safe)
        return READ
    if kind == "init_declarator":
        decl = p.child_by_field_name("declarator")
        return READ if decl is not None and decl.type == "identifier" else ESCAPE
    if kind == "field_expression":
        call = p.parent
        return READ if call is not None and call.type == "call_expression" and \
            node_text(p.child_by_field_name("field")) in READ_ONLY_METHODS else ESCAPE
    if kind == "argument_list":
        call = p.parent
        if call is None or call.type != "call_expression":
            return ESCAPE
        name = callee(call)
        if receiver(call) is not None:
            return READ if name in STORES_ITS_ARGUMENTS | READ_ONLY_METHODS else ESCAPE
        if name == "swap":
            return WRITE
        return READ if name in NEVER_WRITES_MEMORY | NO_SIDE_EFFECTS else ESCAPE
    if kind == "return_statement":
        return ESCAPE if _returns_reference(p) else READ
    if kind == "conditional_expression":
        return READ  # the condition
    if kind == "cast_expression":
        return ESCAPE if any(c in node_text(p.child_by_field_name("type")) for c in "&*") else READ
    if kind in ("unary_expression", "condition_clause", "expression_statement",
                "subscript_argument_list", "comma_expression", "initializer_list"):
        return READ
    return ESCAPE


def _returns_reference(ret: Node) -> bool:
    fn = ret.parent
    while fn is not None and fn.type not in ("function_definition", "lambda_expression"):
        fn = fn.parent
    if fn is None or fn.type == "lambda_expression":
        return True
    decl = fn.child_by_field_name("declarator")
    return decl is None or decl.type != "function_declarator"


def _range_for_use(loop: Node) -> str:
    """A range-for over the container reads it all, or writes it through a reference."""
    decl = loop.child_by_field_name("declarator")
    const = "const" in node_text(loop.child_by_field_name("type")) or any(
        c.type == "type_qualifier" and node_text(c) == "const" for c in loop.children)
    if decl is None or decl.type == "identifier" or const:
        return ITERATE
    name = node_text(decl).lstrip("&* ")
    body = loop.child_by_field_name("body")
    for n in _walk(body):
        if n.type in ("assignment_expression", "update_expression"):
            target = n.child_by_field_name("left") or n.child_by_field_name("argument")
            if root_name(target) == name:
                return WRITE
        if n.type == "identifier" and node_text(n) == name and n.parent is not None and \
                n.parent.type not in ("binary_expression", "condition_clause",
                                      "subscript_argument_list", "init_declarator"):
            return WRITE  # passed on, taken by address: count it as a write
    return ITERATE


def _walk(node: Node | None) -> list[Node]:
    if node is None:
        return []
    out, stack = [], [node]
    while stack:
        n = stack.pop()
        out.append(n)
        stack.extend(n.named_children)
    return out


def _iterator_use(it: Node, var: str, own: frozenset[str]) -> str:
    """What happens to the position ``it`` (``v.begin()``, ``std::end(v)``, ``v.data()``)."""
    node = it
    while True:
        p = node.parent
        if p is None:
            return ESCAPE
        if p.type == "parenthesized_expression":
            node = p
            continue
        if p.type == "binary_expression" and operator(p) in ("+", "-"):
            if operator(p) == "-" and p.child_by_field_name("right") == node:
                return ITERATE  # a distance: ``pos - v.begin()``
            node = p
            continue
        break
    if p.type == "binary_expression":
        return ITERATE if operator(p) in _COMPARE else ESCAPE
    if p.type == "pointer_expression" and operator(p) == "*":
        use = _element_use(p, own)
        return ITERATE if use == READ else use
    if p.type != "argument_list" or p.parent is None:
        return ESCAPE
    call = p.parent
    if call.type == "init_declarator":
        return ITERATE  # a container constructed from the range
    if call.type != "call_expression":
        return ESCAPE
    rcv = receiver(call)
    if rcv is not None:
        method = callee(call)
        if root_name(rcv) == var:
            return RESIZE if method in RESIZING_METHODS else ESCAPE
        return ITERATE if method in ("insert", "assign", "append") else ESCAPE
    name = std_name(call, own)
    if name in _VALUE_ALGOS:
        return ITERATE
    if name in _POSITION_ALGOS:
        return _position_result(call, own)
    args = arguments(call)
    position = next((i for i, a in enumerate(args) if a == node), -1)
    if name in _COPYING:
        dest = 3 if name == "transform" and len(args) == 5 else 2
        return WRITE if position == dest else ITERATE
    if name in _WRITING:
        return WRITE
    return ESCAPE


def _position_result(call: Node, own: frozenset[str]) -> str:
    """A search's result is compared or subtracted (a read), dereferenced, or kept."""
    node = unparenthesized(call)
    p = node.parent
    if p is None:
        return ESCAPE
    if p.type == "binary_expression" and operator(p) in _COMPARE | {"-"}:
        return ITERATE
    if p.type == "pointer_expression" and operator(p) == "*":
        use = _element_use(p, own)
        return ITERATE if use == READ else use
    return ESCAPE


def later_in_block(stmt: Node, node: Node) -> bool:
    """Whether ``node`` lies after the statement ``stmt`` in the block that holds ``stmt``
    (so every path from the block's start to ``node`` runs ``stmt`` first)."""
    block = stmt.parent
    return block is not None and block.type == "compound_statement" and \
        block.start_byte <= node.start_byte and node.end_byte <= block.end_byte and \
        node.start_byte >= stmt.end_byte


def jumps_in(facts: FunctionFacts) -> bool:
    """Whether the function has ``goto`` or labels (paths the block structure does not show)."""
    return bool(facts.nodes("goto_statement")) or any(
        n.type == "labeled_statement" for n in _walk(facts.body))


def is_size_of(node: Node, var: str) -> bool:
    """``v.size()``, ``(int)v.size()``, ``static_cast<int>(v.size())``, ``int(v.size())``."""
    node = unwrap(node)
    if flat(node) in (f"{var}.size()", f"std::size({var})"):
        return True
    if node.type == "cast_expression":
        value = node.child_by_field_name("value")
        return value is not None and VarType(node_text(node.child_by_field_name("type"))) \
            .is_integral and is_size_of(value, var)
    if node.type == "call_expression":
        fn = node.child_by_field_name("function")
        args = arguments(node)
        if fn is not None and len(args) == 1:
            m = re.fullmatch(r"static_cast<(.+)>", flat(fn))
            target = m.group(1) if m else (flat(fn) if fn.type == "primitive_type" else "")
            return bool(target) and VarType(target).is_integral and is_size_of(args[0], var)
    return False


def result_read_only(facts: FunctionFacts, call: Node, own: frozenset[str]) -> bool:
    """Whether the position a search call returns is only returned from the function, or kept
    in a local iterator that is only compared, subtracted from or to another position, and
    read through: nothing writes through it, moves it or passes it on."""
    node = unparenthesized(call)
    p = node.parent
    if p is None:
        return False
    if p.type == "return_statement":
        return True
    decl = p.child_by_field_name("declarator") if p.type == "init_declarator" else None
    if decl is None or decl.type != "identifier" or p.child_by_field_name("value") != node:
        return False
    name = node_text(decl)
    vt = facts.var(name)
    if vt is None or vt.scope != "local" or vt.reference or vt.pointer or vt.array:
        return False
    found = mentions(facts, name)
    return sum(1 for m in found if _declares(m)) == 1 and all(
        _declares(m) or _read_through(m, own) for m in found)


def _read_through(m: Node, own: frozenset[str]) -> bool:
    """Whether this mention of an iterator only compares it, measures a distance with it, or
    reads the element it points at."""
    if any(a.type == "lambda_expression" for a in _ancestors(m)):
        return False
    node = unparenthesized(m)
    p = node.parent
    if p is None:
        return False
    if p.type == "binary_expression":
        if operator(p) in _COMPARE:
            return True
        other = p.child_by_field_name("left" if p.child_by_field_name("right") == node
                                      else "right")
        # ``it - v.begin()`` is a distance; ``it - 1`` would be another position
        return operator(p) == "-" and other is not None and bool(_POSITION.fullmatch(flat(other)))
    if p.type == "pointer_expression" and operator(p) == "*":
        return _element_use(p, own) == READ
    if p.type == "field_expression" and operator(p) == "->":
        call = p.parent
        return call is not None and call.type == "call_expression" and \
            call.child_by_field_name("function") == p and \
            node_text(p.child_by_field_name("field")) in READ_ONLY_METHODS
    call = p.parent if p.type == "argument_list" else None
    return call is not None and call.type == "call_expression" and \
        receiver(call) is None and callee(call) == "distance"


_POSITION = re.compile(r"\w+\.c?(?:begin|end)\(\)|(?:std::)?c?(?:begin|end)\(\w+\)")
