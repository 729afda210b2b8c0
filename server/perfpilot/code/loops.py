"""Loop analysis over tree-sitter nodes of a function body.

Finds the loops of a function with their nesting, recognizes canonical counted ``for`` loops
(induction variable, bounds, step), collects what each loop reads and writes, and decides,
conservatively, whether its iterations are independent (so an OpenMP ``parallel for`` keeps the
behaviour). A false "independent" would let a rewrite change results, so every construct the
analysis does not understand makes a loop dependent, with the reason in words.

Assumption, stated once: distinct pointer, view and container parameters are taken not to
overlap (as compilers' auto-parallelizers with ``restrict`` and the usual C++ parallel idioms
assume); the rewrites that rely on it pair the names a caller may pass overlapping, a pointer
into a container included (``storage_type``), and add a run-time overlap test or refuse; the
benchmark runner still validates every rewrite
against the original. Local pointers, references and iterators are traced to what they point
into (``aliases``): one into an array the loop writes makes the loop dependent.

The parts live by idea: ``loop_header`` (counted headers), ``loop_body`` (what a body reads,
writes and calls), ``dependence`` (independence, reductions, interchange legality;
``row_ownership`` for rows an iteration owns, over ``index_algebra``), ``invariants``
(condition calls the body cannot change), ``syntax`` (small node helpers); this
module puts them together into ``LoopFacts``.

All byte offsets and rows are those of the tree the nodes come from; ``line`` values are 1-based
and shifted by the ``line_base`` given to the analysis (pass a site's ``start_line`` when the tree
is the function's own text, so lines are the unit's).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass

import tree_sitter

from perfpilot.code.aliases import Storage, storage
from perfpilot.code.declarations import VarType, declared_types, unit_types
from perfpilot.code.dependence import (
    check_independent,
    occurrences,
    used_after,
)
from perfpilot.code.effects import ELEMENT_COUNT_METHODS
from perfpilot.code.invariants import invariant_calls
from perfpilot.code.loop_body import (
    CallSite,
    ElementAccess,
    appends,
    collect_body,
    direct_loops,
)
from perfpilot.code.loop_header import counted_header
from perfpilot.code.minmax import ArgReduction, arg_reductions
from perfpilot.code.parse import parse
from perfpilot.code.purity import pure_helper
from perfpilot.code.site import FunctionSite
from perfpilot.code.syntax import (
    enclosing_function,
    identifiers_of,
    node_text,
    walk,
)

Node = tree_sitter.Node

_KIND = {"for_statement": "for", "while_statement": "while", "do_statement": "do",
         "for_range_loop": "range-for"}

@dataclass(frozen=True)
class LoopFacts:
    """What the analysis knows about one loop.

    ``independent`` is true only for canonical counted ``for`` loops whose iterations provably
    do not interfere; ``reason`` says why not otherwise. ``reductions`` are ``(op, var)`` with op
    in ``+ * min max``; ``private_vars`` are variables declared outside the loop that each
    iteration assigns before use (they need a ``private`` clause); ``locals`` are declared in the
    body. ``invariant_calls`` are calls in the condition whose object or argument the body does
    not change (``strlen(s)``, ``v.size()``). ``appends`` name containers that get exactly one
    unconditional ``push_back``/``emplace_back`` per iteration.
    """

    kind: str
    start_byte: int
    end_byte: int
    body_start_byte: int
    line: int
    end_line: int
    depth: int
    induction: str | None
    lower: str | None
    upper: str | None
    cond_op: str | None
    step: int | None
    induction_declared: bool
    bounds: str
    counted: bool
    independent: bool
    reason: str
    reductions: tuple[tuple[str, str], ...]
    private_vars: tuple[str, ...]
    locals: tuple[str, ...]
    reads: frozenset[str]
    writes: frozenset[str]
    element_accesses: tuple[ElementAccess, ...]
    calls: tuple[CallSite, ...]
    invariant_calls: tuple[CallSite, ...]
    appends: tuple[str, ...]
    has_io: bool
    children: tuple[LoopFacts, ...]
    # Arg-min/arg-max updates (``if (x < m) { m = x; k = i; }``) that each thread can keep in
    # its own copies and combine after the loop (only on independent loops).
    arg_reductions: tuple[ArgReduction, ...] = ()
    # Local pointers, references and iterators the body accesses elements through, with the
    # names each may point into (``aliases.UNKNOWN`` when untraceable): a caller's pointers
    # reached through a local may overlap as much as the parameters themselves.
    pointer_origins: tuple[tuple[str, frozenset[str]], ...] = ()


class LoopScope:
    """What the loops of one function share, each computed on first use: where the function's
    local pointers may point, and which helpers it calls are pure. Both walk the whole
    function (or file): computed per loop, a function of n loops cost O(n²)."""

    def __init__(self, types: dict[str, VarType | None], unit: Node | None = None) -> None:
        self.types = types
        self.unit = unit
        self._stores: dict[int, Storage] = {}
        self._pure: dict[tuple[int, str], bool] = {}

    def store(self, node: Node) -> Storage:
        """The storage facts of the function (or lambda) around ``node``."""
        fn = enclosing_function(node)
        if fn.id not in self._stores:
            self._stores[fn.id] = storage(fn, self.types)
        return self._stores[fn.id]

    def pure(self, node: Node) -> Callable[[str], bool]:
        """``pure_helper`` for calls made from ``node``, each name answered once per function."""
        fn = enclosing_function(node)

        def answer(name: str) -> bool:
            key = (fn.id, name)
            if key not in self._pure:
                self._pure[key] = pure_helper(name, node, self.unit)
            return self._pure[key]
        return answer


# ---------------------------------------------------------------------------------------------
# entry points


def analyze_loop(node: Node, line_base: int = 0, depth: int = 0,
                 types: dict[str, VarType | None] | None = None,
                 own_names: frozenset[str] | None = None, unit: Node | None = None,
                 scope: LoopScope | None = None) -> LoopFacts:
    """The facts of one loop node (any of ``LOOP_TYPES``), with its nested loops.

    ``own_names``: the names the enclosing function declares (computed when not given; pass
    them when analysing many loops of one function, since finding them walks all of it).
    ``unit``: the parsed file, where same-file helpers are looked up when ``node`` belongs to
    a tree of the function alone. ``scope``: what the loops of the function share (pass one
    when analysing several nests of it).
    """
    if own_names is None:
        own_names = frozenset(declared_types(enclosing_function(node)))
    if types is None:
        types = declared_types(enclosing_function(node))
    if scope is None:
        scope = LoopScope(types, unit)
    kind = _KIND.get(node.type, node.type)
    body = node.child_by_field_name("body")
    if body is None:
        body = node
    children = tuple(analyze_loop(c, line_base, depth + 1, types, own_names, unit, scope)
                     for c in direct_loops(body)) if body is not node else ()
    f = collect_body(node, body)
    reads = frozenset(identifiers_of(body))
    writes = frozenset(set(f.scalar_writes) | {a.base for a, _ in f.element if a.write})
    calls = tuple(c for c, _ in f.calls)
    induction = lower = upper = op = None
    step: int | None = None
    declared = False
    counted = False
    independent = False
    reductions: tuple[tuple[str, str], ...] = ()
    args: tuple[ArgReduction, ...] = ()
    private: tuple[str, ...] = ()
    locals_ = tuple(sorted(f.locals))
    bounds = ""
    if node.type == "for_statement":
        h = counted_header(node, types)
        if isinstance(h, str):
            reason = h
        else:
            induction, lower, upper, op, step, declared = (h.var, h.lower, h.upper, h.op,
                                                            h.step, h.declared)
            counted = True
            bounds = f"{h.var} from {h.lower} while {h.var} {h.op} {h.upper}, step {h.step}"
            cond = node.child_by_field_name("condition")
            bound_vars = identifiers_of(cond) - {h.var} if cond is not None else set()
            args = tuple(a for a in arg_reductions(body, h.var)
                         if all(_arithmetic(types, v) for v in (a.var, *(p for p, _ in a.payload))))
            independent, reason, reductions, private, locals_ = check_independent(
                node, body, (h.var,), types, bound_vars,
                _size_only(cond, bound_vars) if cond is not None else frozenset(),
                frozenset(v for a in args for v in (a.var, *(p for p, _ in a.payload))),
                scope.pure(node), store=scope.store(node))
            if independent and not declared and used_after(node, h.var):
                independent, reason = False, f"'{h.var}' is used after the loop"
    else:
        reason = f"a {kind} loop has no iteration count known in advance" \
            if kind in ("while", "do") else "a range-for loop (iterator form)"
    return LoopFacts(
        kind=kind, start_byte=node.start_byte, end_byte=node.end_byte,
        body_start_byte=body.start_byte, line=node.start_point[0] + line_base + 1,
        end_line=node.end_point[0] + line_base + 1, depth=depth, induction=induction,
        lower=lower, upper=upper, cond_op=op, step=step, induction_declared=declared,
        bounds=bounds, counted=counted, independent=independent, reason=reason,
        reductions=reductions if independent else (), private_vars=private if independent else (),
        locals=locals_, reads=reads, writes=writes,
        element_accesses=tuple(a for a, _ in f.element), calls=calls,
        invariant_calls=invariant_calls(node, body, types, f, own_names, scope.store)
        if node.type == "for_statement"
        else (),
        appends=appends(body), has_io=f.has_io, children=children,
        arg_reductions=args if independent else (),
        pointer_origins=_pointer_origins(f.element, scope.store(node)),
    )


def _pointer_origins(accesses: list[tuple[ElementAccess, Node]], store: Storage
                     ) -> tuple[tuple[str, frozenset[str]], ...]:
    """The aliasing locals among the bases of ``accesses``, with where each may point."""
    bases = {a.base for a, _ in accesses}
    if not bases:
        return ()
    origins = store.origins
    return tuple((b, origins[b]) for b in sorted(bases) if b in origins)


def _arithmetic(types: dict[str, VarType | None], name: str) -> bool:
    """A plain (not reference) arithmetic variable: each thread can hold its own copy."""
    vt = types.get(name)
    return vt is not None and vt.is_arithmetic and not vt.reference


def _size_only(cond: Node, names: set[str]) -> frozenset[str]:
    """Names used in ``cond`` only as the object of ``.size()`` or ``.length()`` calls."""
    out = set()
    for name in names:
        occ = occurrences(cond, name)
        if occ and all(
                (p := o.parent) is not None and p.type == "field_expression"
                and p.child_by_field_name("argument") == o
                and node_text(p.child_by_field_name("field") or o) in ELEMENT_COUNT_METHODS
                and p.parent is not None and p.parent.type == "call_expression"
                for o in occ):
            out.add(name)
    return frozenset(out)


def find_loops(root: Node, line_base: int = 0,
               types: dict[str, VarType | None] | None = None,
               unit: Node | None = None) -> tuple[LoopFacts, ...]:
    """The outermost loops under ``root`` (a function or its body), each with nested loops.

    ``types`` maps variable names to declared types; by default those declared in the
    enclosing function.
    """
    fn = root if root.type == "function_definition" else enclosing_function(root)
    own = declared_types(fn)
    if types is None:
        types = own
    scope = LoopScope(types, unit)
    return tuple(analyze_loop(n, line_base, 0, types, frozenset(own), unit, scope)
                 for n in direct_loops(root))


def all_loops(loops: tuple[LoopFacts, ...]) -> Iterator[LoopFacts]:
    """Every loop of a forest, outer before inner, in source order."""
    for lp in loops:
        yield lp
        yield from all_loops(lp.children)


def function_loops(site: FunctionSite) -> tuple[LoopFacts, ...]:
    """Loops of a located function: offsets index ``site.text`` (UTF-8), lines are the unit's.

    Globals of the unit count as known variables (a local or parameter of the same name wins).
    """
    tree = parse(site.text, site.language)
    fn = parse_function_node(tree.root_node)
    types = {**unit_types(site.unit_text, site.language), **declared_types(fn)}
    return find_loops(fn, line_base=site.start_line, types=types)


def parse_function_node(root: Node) -> Node:
    """The first function definition under ``root`` (or ``root`` itself when there is none)."""
    for n in walk(root):
        if n.type == "function_definition":
            return n
    return root
