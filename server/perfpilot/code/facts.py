"""What the rules know about one function: its loops, variables, and who writes what.

This is the one fact model of a function. Its loops are ``Loop`` values (kind, header,
nesting); the dependence analysis of a loop (what it reads and writes, whether its iterations
are independent, its reductions: ``code.loops.LoopFacts``) is asked of the same object with
``loop_facts`` and computed once per loop nest.

Nodes of interest are collected once with a tree-sitter query (the walk runs in C), kept sorted
by position, and looked up per region by bisection, so that questions such as "which variables
does this loop modify" stay cheap even in a function of thousands of lines.
"""

from __future__ import annotations

import bisect
import itertools
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache, cached_property

import tree_sitter

from perfpilot.code.aliases import UNKNOWN, Storage, storage
from perfpilot.code.declarations import VarType, declared_vars
from perfpilot.code.effects import (
    NEVER_WRITES_MEMORY,
    PURE_RANGE_SCANS,
    READ_ONLY_METHODS,
    READS_ITS_RANGES_ONLY,
)
from perfpilot.code.loop_header import read_header
from perfpilot.code.loops import LoopFacts, LoopScope, all_loops, analyze_loop
from perfpilot.code.parse import grammar
from perfpilot.code.site import FunctionSite, Language
from perfpilot.code.syntax import (
    LOOP_TYPES,
    Node,
    arguments,
    callee,
    declarator_name,
    identifiers,
    line,
    node_text,
    operator,
    receiver,
    root_name,
    unwrap,
    walk,
)

_COLLECTED = (
    "for_statement", "for_range_loop", "while_statement", "do_statement",
    "call_expression", "assignment_expression", "update_expression", "declaration",
    "subscript_expression", "binary_expression", "if_statement", "new_expression",
    "delete_expression", "pointer_expression", "return_statement",
    "conditional_expression", "break_statement", "goto_statement", "lambda_expression",
    "compound_assignment_expression", "compound_statement",
)
# Numerous kinds, collected only when a detector asks for them.
_LAZY = ("identifier", "qualified_identifier", "field_expression")

_RANGE_ENDS = frozenset({"begin", "end", "cbegin", "cend", "rbegin", "rend", "data"})


@cache
def _query(language: Language, kinds: tuple[str, ...] = _COLLECTED) -> tree_sitter.Query:
    g = grammar(language)
    present = [k for k in kinds if g.id_for_node_kind(k, True)]
    return tree_sitter.Query(g, "[" + " ".join(f"({k})" for k in present) + "] @n")


@dataclass(frozen=True)
class Loop:
    """A loop of the function, with its counted-loop header when it has one."""

    node: Node
    index: int
    parent: int | None
    depth: int
    kind: str  # "for", "range-for", "while", "do"
    var: str | None
    init: Node | None
    bound: Node | None
    compare: str
    step: str
    condition: Node | None
    body: Node | None
    innermost: bool

    @property
    def line(self) -> int:
        """1-based line of the loop keyword."""
        return line(self.node)

    @property
    def byte_range(self) -> tuple[int, int]:
        """Byte range of the whole loop statement in the unit."""
        return (int(self.node.start_byte), int(self.node.end_byte))

    @property
    def counted(self) -> bool:
        """A ``for`` loop with an induction variable, a bound and a unit step."""
        return self.var is not None and self.bound is not None and self.step in ("++", "--")


def _is_callee(expr: Node, name: str) -> bool:
    """Whether ``name`` is only used in ``expr`` as the name of a called function."""
    uses = [n for n in walk(expr, named=True) if n.type == "identifier" and node_text(n) == name]

    def called(n: Node) -> bool:
        head = n.parent if n.parent is not None and n.parent.type == "qualified_identifier" \
            else n
        call = head.parent
        return call is not None and call.type == "call_expression" and \
            call.child_by_field_name("function") == head

    return bool(uses) and all(called(n) for n in uses)


class _Events:
    """(position, name) events sorted by position, answering "which names inside a region"."""

    def __init__(self, events: list[tuple[int, str]]) -> None:
        events.sort()
        self.starts = [p for p, _ in events]
        self.names = [n for _, n in events]

    def within(self, region: Node, cache: dict[tuple[int, int], frozenset[str]]
               ) -> frozenset[str]:
        key = (region.start_byte, region.end_byte)
        hit = cache.get(key)
        if hit is None:
            lo = bisect.bisect_left(self.starts, region.start_byte)
            hi = bisect.bisect_left(self.starts, region.end_byte)
            hit = cache[key] = frozenset(self.names[lo:hi])
        return hit


class FunctionFacts:
    """Indexed syntax facts about one function definition in a parsed unit."""

    def __init__(self, site: FunctionSite, fn: Node, root: Node, unit: Node | None = None
                 ) -> None:
        """``root``: the root of the tree that holds ``fn`` (byte offsets index its text);
        ``unit``: the translation unit's root, for its globals, types and helper functions
        (``root`` when not given: ``fn`` was parsed within its unit)."""
        self.site = site
        self.fn = fn
        self.root = root
        self.unit = unit if unit is not None else root
        self.language: Language = site.language
        self.body = fn.child_by_field_name("body")
        self._by_type: dict[str, list[Node]] = {}
        self._starts: dict[str, list[int]] = {}
        self._mod_cache: dict[tuple[int, int], frozenset[str]] = {}
        self._decl_cache: dict[tuple[int, int], frozenset[str]] = {}
        # Remarks detectors leave for the plan (e.g. an analysis cut short on a huge function).
        self.notes: list[str] = []
        self._in_loops: dict[str, list[Node]] = {}
        self._mod_events: _Events | None = None
        self._decl_events: _Events | None = None
        self._unknown_calls: dict[tuple[int, int], bool] = {}
        self._local_vars: dict[int, list[VarType]] = {}
        self._capture(_COLLECTED)
        self.vars: dict[str, VarType] = {}
        self.global_vars: dict[str, VarType] = {}
        self._collect_vars()
        self.loops: list[Loop] = self._collect_loops()
        self._loop_starts = [lp.node.start_byte for lp in self.loops]
        self._user_types: frozenset[str] | None = None
        self._nests: dict[int, LoopFacts] = {}

    def _capture(self, kinds: tuple[str, ...]) -> None:
        found: dict[str, list[Node]] = {k: [] for k in kinds}
        query = _query(self.language, kinds)
        for n in tree_sitter.QueryCursor(query).captures(self.fn).get("n", []):
            found.setdefault(n.type, []).append(n)
        for kind, nodes in found.items():
            starts = [n.start_byte for n in nodes]
            if any(a > b for a, b in itertools.pairwise(starts)):
                # Sort by start through the index (a C-level key, no attribute access per
                # comparison); ties keep capture order, which nothing here depends on.
                order = sorted(range(len(nodes)), key=starts.__getitem__)
                nodes = [nodes[i] for i in order]
                starts = [starts[i] for i in order]
            self._by_type[kind] = nodes
            self._starts[kind] = starts

    # --- lookups ---------------------------------------------------------------------------
    def nodes(self, kind: str, within: Node | None = None) -> list[Node]:
        """Collected nodes of ``kind`` inside ``within`` (the whole function when None)."""
        if kind not in self._by_type and kind in _LAZY:
            self._capture((kind,))
        nodes = self._by_type.get(kind, [])
        if within is None:
            return nodes
        starts = self._starts.get(kind, [])
        lo = bisect.bisect_left(starts, within.start_byte)
        hi = bisect.bisect_left(starts, within.end_byte)
        return [n for n in nodes[lo:hi] if n.end_byte <= within.end_byte]

    def local_vars(self, decl: Node) -> list[VarType]:
        """The variables a local ``declaration`` node declares (computed once per node)."""
        hit = self._local_vars.get(decl.start_byte)
        if hit is None:
            hit = self._local_vars[decl.start_byte] = declared_vars(decl, "local")
        return hit

    def in_loops(self, kind: str) -> list[Node]:
        """Collected nodes of ``kind`` inside any loop (headers included), in source order."""
        cached = self._in_loops.get(kind)
        if cached is None:
            cached = []
            for lp in self.loops:
                if lp.parent is None:
                    cached.extend(n for n in self.nodes(kind, lp.node)
                                  if n.start_byte != lp.node.start_byte or n.type != lp.node.type)
            self._in_loops[kind] = cached
        return cached

    def var(self, name: str | None) -> VarType | None:
        """The declaration of ``name`` visible in the function (local, parameter or global)."""
        return self.vars.get(name) if name else None

    def loop_of(self, node: Node) -> Loop | None:
        """The innermost loop containing ``node`` (not counting ``node`` itself)."""
        # Loops nest, so a loop containing ``node`` is the last loop starting at or before it,
        # or one of that loop's ancestors.
        i = bisect.bisect_right(self._loop_starts, node.start_byte) - 1
        start, end = node.start_byte, node.end_byte
        while i >= 0:
            lp = self.loops[i]
            ls, le = lp.node.start_byte, lp.node.end_byte
            if ls <= start and end <= le and not (ls == start and le == end):
                return lp
            i = lp.parent if lp.parent is not None else -1
        return None

    def enclosing_loops(self, node: Node) -> list[Loop]:
        """Loops containing ``node``, outermost first."""
        out: list[Loop] = []
        lp = self.loop_of(node)
        while lp is not None:
            out.append(lp)
            lp = self.loops[lp.parent] if lp.parent is not None else None
        return list(reversed(out))

    def loops_within(self, loop: Loop) -> list[Loop]:
        """``loop`` and every loop nested in it."""
        hi = bisect.bisect_left(self._loop_starts, loop.node.end_byte)
        return self.loops[loop.index:hi]

    def children_of(self, loop: Loop) -> list[Loop]:
        """Loops directly nested in ``loop``."""
        return [lp for lp in self.loops if lp.parent == loop.index]

    def loop_at(self, start_byte: int) -> Loop | None:
        """The loop whose statement starts at ``start_byte``."""
        i = bisect.bisect_left(self._loop_starts, start_byte)
        return self.loops[i] if i < len(self.loops) and \
            self._loop_starts[i] == start_byte else None

    # --- dependence analysis ------------------------------------------------------------------
    @cached_property
    def loop_types(self) -> dict[str, VarType | None]:
        """Declared types as the loop analysis takes them: globals, then parameters, then
        locals; a name declared again with another type maps to None (unknown)."""
        out: dict[str, VarType | None] = {}

        def put(name: str, vt: VarType | None, scope: str) -> None:
            if scope != "global" and name in out and out[name] != vt:
                out[name] = None
            else:
                out[name] = vt

        for v in self.global_vars.values():
            put(v.name, v, "global")
        for p in self.site.params:
            put(p.name, VarType(p.base, p.pointer, p.array, p.reference, p.const, name=p.name,
                                type_text=p.type_text, scope="param"), "param")
        for d in self.nodes("declaration"):
            for v in self.local_vars(d):
                put(v.name, v, "local")
        for r in self.nodes("for_range_loop"):
            name = declarator_name(r.child_by_field_name("declarator"))
            if name:
                out[name] = None
        return out

    @cached_property
    def own_names(self) -> frozenset[str]:
        """The names the function itself declares: parameters, locals, range-for variables."""
        return frozenset({p.name for p in self.site.params}
                         | {v.name for d in self.nodes("declaration") for v in self.local_vars(d)}
                         | {declarator_name(r.child_by_field_name("declarator")) or ""
                            for r in self.nodes("for_range_loop")}) - {""}

    @cached_property
    def _loop_scope(self) -> LoopScope:
        return LoopScope(self.loop_types, self.unit)

    def loop_facts(self, loop: Loop) -> LoopFacts:
        """The dependence analysis of ``loop`` with the loops nested in it. ``depth`` counts from
        the outermost loop of its nest (0); the whole nest is analysed once."""
        top = loop
        while top.parent is not None:
            top = self.loops[top.parent]
        nest = self._nests.get(top.index)
        if nest is None:
            nest = self._nests[top.index] = analyze_loop(top.node, 0, 0, self.loop_types,
                                                         self.own_names, self.unit,
                                                         self._loop_scope)
        return next(lf for lf in all_loops((nest,)) if lf.start_byte == loop.node.start_byte)

    # --- data flow (syntactic, conservative) -------------------------------------------------
    def declared_in(self, region: Node) -> frozenset[str]:
        """Names declared inside ``region`` (they are fresh on each loop iteration)."""
        if self._decl_events is None:
            events: list[tuple[int, str]] = []
            for d in self.nodes("declaration"):
                events.extend((d.start_byte, v.name) for v in self.local_vars(d))
            for r in self.nodes("for_range_loop"):
                n = declarator_name(r.child_by_field_name("declarator"))
                if n:
                    events.append((r.start_byte, n))
            self._decl_events = _Events(events)
        return self._decl_events.within(region, self._decl_cache)

    def modified_in(self, region: Node) -> frozenset[str]:
        """Names whose value or contents may change inside ``region``.

        Counts assignments and ``++``/``--`` (by the root variable of the lvalue), method calls
        other than known readers, variables passed whole or by address to functions that are not
        known to be pure, stream extraction targets, and non-const range-for references.
        """
        if self._mod_events is None:
            self._mod_events = _Events(self._modification_events())
        return self._mod_events.within(region, self._mod_cache)

    def modified_between(self, start: int, end: int) -> frozenset[str]:
        """Names that may change at byte positions ``[start, end)`` of the unit (the writes
        ``modified_in`` counts, by where they are written)."""
        if self._mod_events is None:
            self._mod_events = _Events(self._modification_events())
        events = self._mod_events
        lo = bisect.bisect_left(events.starts, start)
        hi = bisect.bisect_left(events.starts, end)
        return frozenset(events.names[lo:hi])

    def _modification_events(self) -> list[tuple[int, str]]:
        """Every write in the function as (byte position, variable), computed once."""
        events: list[tuple[int, str]] = []
        at = 0

        def add(n: str | None) -> None:
            if n:
                events.append((at, n))

        for a in self.nodes("assignment_expression") + \
                self.nodes("compound_assignment_expression"):
            at = a.start_byte
            left = a.child_by_field_name("left")
            if left is not None and left.type == "call_expression":
                rcv = receiver(left)
                add(root_name(rcv) if rcv is not None else None)
            else:
                add(root_name(left))
        for u in self.nodes("update_expression"):
            at = u.start_byte
            add(root_name(u.child_by_field_name("argument")))
        for p in self.nodes("pointer_expression"):
            at = p.start_byte
            if operator(p) == "&":
                add(root_name(p.child_by_field_name("argument")))
        for d in self.nodes("delete_expression"):
            at = d.start_byte
            add(root_name(next(iter(d.named_children), None)))
        for c in self.nodes("call_expression"):
            at = c.start_byte
            self._call_mods(c, add)
        for b in self.nodes("binary_expression"):
            at = b.start_byte
            if operator(b) == ">>" and self._is_input_stream(b):
                add(root_name(b.child_by_field_name("right")))
        # A non-const reference loop variable writes the range only if the body writes it.
        events.sort()
        starts = [p for p, _ in events]
        written = list(events)
        for r in self.nodes("for_range_loop"):
            at = r.start_byte
            decl = r.child_by_field_name("declarator")
            quals = " ".join(node_text(c) for c in r.children if c.type == "type_qualifier")
            var = declarator_name(decl)
            if decl is not None and "&" in node_text(decl) and "const" not in quals \
                    and "const" not in node_text(r.child_by_field_name("type")) and \
                    any(n == var for _, n in written[bisect.bisect_left(starts, r.start_byte):
                                                       bisect.bisect_left(starts, r.end_byte)]):
                add(root_name(r.child_by_field_name("right")))
        return events

    def _call_mods(self, c: Node, add: Callable[[str | None], None]) -> None:
        name = callee(c)
        rcv = receiver(c)
        if rcv is not None:
            if name not in READ_ONLY_METHODS:
                add(root_name(rcv))
            return
        if name in NEVER_WRITES_MEMORY or (name in PURE_RANGE_SCANS and "".join(
                node_text(c.child_by_field_name("function")).split()).startswith("std::")):
            return  # (the standard scans take values by copy or const reference)
        for arg in arguments(c):
            if arg.type == "identifier":
                add(node_text(arg))
            elif arg.type == "call_expression" and name not in READS_ITS_RANGES_ONLY:
                inner = callee(arg)
                if inner in _RANGE_ENDS:
                    r = receiver(arg)
                    if r is not None:
                        add(root_name(r))
                    else:
                        args = arguments(arg)
                        add(root_name(args[0]) if args else None)
            elif arg.type in ("binary_expression",) and name not in READS_ITS_RANGES_ONLY:
                # memcpy(dst + k, ...), std::sort(a, a + n): the base pointer's data changes.
                add(root_name(arg.child_by_field_name("left")))

    def _is_input_stream(self, b: Node) -> bool:
        left: Node | None = b
        while left is not None and left.type == "binary_expression" and operator(left) == ">>":
            left = left.child_by_field_name("left")
        if left is None:
            return False
        name = node_text(left)
        if name.endswith("cin"):
            return True
        v = self.var(root_name(left))
        return v is not None and "stream" in v.base

    def invariant_in(self, expr: Node, loop: Loop, through_aliases: bool = True) -> bool:
        """Whether ``expr`` reads nothing the loop changes and has no side effects of its own.

        A local pointer, reference or iterator (``aliases.storage``) joins the names it may
        reach: a write through one the loop changes (``*p += 1``, ``q->push_back(x)``) changes
        them, and ``expr`` reading one reads them. ``through_aliases=False`` asks by names
        alone (a caller that proves the rest itself, and says why a call stays)."""
        changed = self.modified_in(loop.node) | self.declared_in(loop.node)
        for n in walk(expr, named=True):
            if n.type in ("assignment_expression", "update_expression", "new_expression",
                          "compound_assignment_expression", "lambda_expression", "this"):
                return False
            if n.type == "call_expression":
                name = callee(n)
                if (receiver(n) is None and name not in NEVER_WRITES_MEMORY) or \
                        (receiver(n) is not None and name not in READ_ONLY_METHODS):
                    return False
                if name in ("rand", "clock", "time"):
                    return False
        used = {n for n in identifiers(expr) if not _is_callee(expr, n)}
        if used & changed:
            return False
        if through_aliases and self.alias_blocker(used, loop):
            return False
        # Globals and members can change behind any call the loop makes to unknown code.
        shared = {n for n in used if (v := self.var(n)) is None or v.scope == "global"}
        return not (shared and self.calls_unknown(loop))

    @cached_property
    def storage(self) -> Storage:
        """Where the function's local pointers, references and iterators may point."""
        return storage(self.fn, self.loop_types)

    def alias_blocker(self, used: set[str], loop: Loop) -> str:
        """A local alias through which ``loop`` may change one of the names ``used`` (or
        through which ``used`` reads storage the loop changes), or "" when there is none.
        An alias whose target is untraceable may reach anything but a sealed value."""
        origins = self.storage.origins
        if not origins:
            return ""
        modified = self.modified_in(loop.node)
        passed = {n for c in self.unknown_calls(loop) for a in arguments(c)
                  for n in identifiers(a)}
        reach_used = set(used)
        for u in used & origins.keys():
            reach_used |= origins[u]
        for alias in sorted((modified | passed) & origins.keys()):
            reach = origins[alias]
            if alias in used:
                continue  # the alias itself changes: ``used & changed`` decides
            if (reach - {UNKNOWN}) & reach_used or \
                    (UNKNOWN in reach and any(not self._sealed(n) for n in reach_used)):
                return alias
        for u in sorted(used & origins.keys()):
            if (origins[u] - {UNKNOWN}) & modified or \
                    (UNKNOWN in origins[u] and any(not self._sealed(n) for n in modified - {u})):
                return u
        return ""

    def _sealed(self, name: str) -> bool:
        """A local or parameter held by value, not an array, whose address the function never
        takes and no alias traces to: only its own name can change it."""
        v = self.var(name)
        if v is None or v.scope == "global" or v.pointer or v.reference or v.array or \
                name in self.storage.origins:
            return False
        if any(name in reach for reach in self.storage.origins.values()):
            return False
        return not any(operator(p) == "&" and root_name(p.child_by_field_name("argument"))
                       == name for p in self.nodes("pointer_expression"))

    def calls_unknown(self, loop: Loop) -> bool:
        """Whether the loop calls a function or method not known to leave state alone."""
        key = (loop.node.start_byte, loop.node.end_byte)
        hit = self._unknown_calls.get(key)
        if hit is None:
            hit = bool(self.unknown_calls(loop))
            self._unknown_calls[key] = hit
        return hit

    def unknown_calls(self, loop: Loop) -> list[Node]:
        """The calls in the loop to functions or methods not known to leave state alone."""
        found: list[Node] = []
        for c in self.nodes("call_expression", loop.node):
            name = callee(c)
            known = READ_ONLY_METHODS if receiver(c) is not None else NEVER_WRITES_MEMORY
            if name not in known and name not in READS_ITS_RANGES_ONLY:
                found.append(c)
        return found

    # --- collection ------------------------------------------------------------------------
    def _collect_vars(self) -> None:
        # Parameters and locals shadow globals.
        for child in self.unit.named_children:
            if child.type == "declaration":
                for v in declared_vars(child, "global"):
                    self.global_vars.setdefault(v.name, v)
        for p in self.site.params:
            self.vars[p.name] = VarType(p.base, p.pointer, p.array, p.reference, p.const,
                                        name=p.name, type_text=p.type_text,
                                        line=self.site.first_line, scope="param")
        for d in self.nodes("declaration"):
            for v in self.local_vars(d):
                self.vars.setdefault(v.name, v)
        for r in self.nodes("for_range_loop"):
            decl = r.child_by_field_name("declarator")
            n = declarator_name(decl)
            if n:
                type_text = node_text(r.child_by_field_name("type"))
                self.vars.setdefault(n, VarType(type_text,
                                                reference="&" if "&" in node_text(decl) else "",
                                                name=n, type_text=type_text, line=line(r)))
        for name, v in self.global_vars.items():
            self.vars.setdefault(name, v)

    @property
    def user_types(self) -> frozenset[str]:
        """Names of the structs and classes defined (with a body) in the unit."""
        if self._user_types is None:
            self._user_types = self._collect_user_types()
        return self._user_types

    def _collect_user_types(self) -> frozenset[str]:
        names: set[str] = set()
        stack = [self.unit]
        while stack:
            n = stack.pop()
            for c in n.named_children:
                if c.type in ("struct_specifier", "class_specifier") and \
                        c.child_by_field_name("body") is not None:
                    nm = c.child_by_field_name("name")
                    if nm is not None:
                        names.add(node_text(nm))
                elif c.type in ("namespace_definition", "declaration_list", "declaration",
                                "type_definition", "template_declaration",
                                "linkage_specification") or c.type == "type_definition":
                    stack.append(c)
        return frozenset(names)

    def _collect_loops(self) -> list[Loop]:
        raw = sorted((n for k in LOOP_TYPES for n in self._by_type.get(k, [])),
                     key=lambda n: (n.start_byte, -n.end_byte))
        parents: list[int | None] = []
        depths: list[int] = []
        stack: list[int] = []
        for i, n in enumerate(raw):
            while stack and raw[stack[-1]].end_byte <= n.start_byte:
                stack.pop()
            parents.append(stack[-1] if stack else None)
            depths.append(len(stack) + 1)
            stack.append(i)
        has_child = {p for p in parents if p is not None}
        return [self._loop(n, i, parents[i], depths[i], i not in has_child)
                for i, n in enumerate(raw)]

    def _loop(self, n: Node, index: int, parent: int | None, depth: int, innermost: bool
              ) -> Loop:
        kind = {"for_statement": "for", "for_range_loop": "range-for",
                "while_statement": "while", "do_statement": "do"}[n.type]
        body = n.child_by_field_name("body")
        cond = unwrap(n.child_by_field_name("condition"))
        if kind != "for":
            return Loop(n, index, parent, depth, kind, None, None, None, "", "", cond, body,
                        innermost)
        h = read_header(n)
        return Loop(n, index, parent, depth, kind, h.var, h.init, h.bound, h.compare,
                    h.step_text, cond, body, innermost)
