"""Loop-order variants of a candidate: a perfect 3-deep nest with its loops in another order.

Which loop runs innermost decides the stride of every access, and so how much of each cache
line is used; which order is fastest also depends on the sizes and the cache. The orders raced
are the legal ones (``code/nest_order.py``: they compute exactly what the nest computes) that
walk memory at least as contiguously in the innermost loop as the candidate's own order,
ranked by stride: at most two besides the candidate's. A nest under an OpenMP work-sharing
pragma keeps its parallel loop outermost and permutes the loops inside it.

Arrays a caller may pass overlapping (two references to one object, pointers at offsets of one
array, a pointer into a container, a global and a parameter, a local pointer into a parameter) are
paired as for the OpenMP rule (``rules/parallel/openmp_patterns/reorder_guard.py``): the new order
runs behind a run-time test that they do not overlap (``&a != &b``, or the spans the nest
reaches through pointers), the original order otherwise; where no test can tell, the nest keeps
its order.
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass

from perfpilot.code.loop_body import ElementAccess, collect_body
from perfpilot.code.loops import all_loops
from perfpilot.code.nest_order import Nest, order_blocker, perfect_nest, sole_loop
from perfpilot.code.syntax import (
    Node,
    node_text,
    walk,
)
from perfpilot.optimizing.builtin.variant_schedule import WORKSHARE
from perfpilot.rules.edits import Edit, apply_edits
from perfpilot.rules.parallel.openmp_patterns.reorder_guard import reorder_guard, reordered
from perfpilot.rules.rewrite_input import RuleInput

# Orders raced besides the candidate's own.
MAX_OTHER_ORDERS = 2


@dataclass(frozen=True)
class OrderVariant:
    """One order of a nest: its label ("order i-k-j") and the function text."""

    label: str
    code: str


def _stride(accesses: list[ElementAccess], var: str) -> int:
    """How far from contiguous the accesses are when ``var`` runs innermost: per access, 0
    when ``var`` is absent or indexes the last dimension directly, more the further out it
    indexes (a position scaled by a product counts one more)."""
    cost = 0
    for acc in accesses:
        for pos, index in enumerate(acc.indices):
            if re.search(rf"\b{re.escape(var)}\b", index):
                outer = len(acc.indices) - 1 - pos
                scaled = re.search(rf"\b{re.escape(var)}\s*\*|\*\s*{re.escape(var)}\b", index)
                cost += 2 * outer + (1 if scaled else 0)
    return cost


def _key(accesses: list[ElementAccess], order: tuple[str, ...]) -> tuple[int, ...]:
    """The stride of each loop from the innermost outwards (smaller is better)."""
    return tuple(_stride(accesses, v) for v in reversed(order))


def _workshare(node: Node) -> Node | None:
    """The OpenMP work-sharing pragma right before ``node``, if one binds to it."""
    prev = node.prev_sibling
    if prev is None or prev.type != "preproc_call":
        return None
    return prev if WORKSHARE.fullmatch(node_text(prev).rstrip("\r\n")) else None


def _guard(inp: RuleInput, nest: Nest) -> str | None:
    """The run-time condition under which another order of the nest computes what it does
    ("" when it does anyway), or None when arrays a caller may pass overlapping rule a new
    order out (``rules/parallel/openmp_patterns/reorder_guard.py``)."""
    top = next((lp for lp in all_loops(inp.loops)
                if lp.start_byte == nest.loops[0].start_byte), None)
    if top is None:
        return None
    guard = reorder_guard(inp, top)
    return None if guard.refused else guard.condition


def _nests(inp: RuleInput) -> list[tuple[Nest, int, Node | None]]:
    """Perfect 3-deep nests, each with how many outer loops stay in place (1 under a
    work-sharing pragma without ``collapse``) and that pragma."""
    out: list[tuple[Nest, int, Node | None]] = []
    for n in walk(inp.function):
        if n.type != "for_statement":
            continue
        parent = n.parent
        if parent is not None and parent.type == "compound_statement":
            parent = parent.parent
        if parent is not None and parent.type == "for_statement" and sole_loop(parent) == n:
            continue  # inside a longer perfect nest
        nest = perfect_nest(n, dict(inp.types))
        if isinstance(nest, str) or len(nest.loops) != 3:
            continue
        pragma = _workshare(n)
        prev = n.prev_sibling
        if pragma is None and prev is not None and prev.type.startswith("preproc"):
            continue  # another pragma binds to the loop: its meaning would move
        if pragma is not None and re.search(r"\b(collapse|ordered)\b", node_text(pragma)):
            continue
        out.append((nest, 1 if pragma is not None else 0, pragma))
    return out


def _variant(inp: RuleInput, nest: Nest, order: tuple[str, ...], pragma: Node | None,
             guard: str) -> str:
    """The function text with the nest in ``order`` (behind ``guard`` when there is one)."""
    start = pragma.start_byte if pragma is not None else nest.loops[0].start_byte
    end = nest.loops[0].end_byte
    new = reordered(inp, list(nest.loops), [nest.vars.index(v) for v in order], start, guard)
    return apply_edits(inp.text, [Edit(start, end, new, "order")])


def order_variants(inp: RuleInput) -> tuple[str, tuple[OrderVariant, ...]]:
    """The own order's label and the other orders to race of the first perfect 3-deep nest
    that has any (see the module docstring); ``("", ())`` when none has."""
    types = dict(inp.types)
    for nest, fixed, pragma in _nests(inp):
        body = nest.innermost_body
        guard = _guard(inp, nest)
        if body is None or guard is None:
            continue
        f = collect_body(nest.loops[-1], body)
        accesses = [a for a, _ in f.element]
        own_key = _key(accesses, nest.vars)
        orders = [nest.vars[:fixed] + tail
                  for tail in itertools.permutations(nest.vars[fixed:])]
        ranked = sorted((_key(accesses, o), o) for o in orders
                        if o != nest.vars and _key(accesses, o)[0] <= own_key[0]
                        and not order_blocker(nest, o, types))
        chosen = [o for _k, o in ranked[:MAX_OTHER_ORDERS]]
        if chosen:
            return (f"order {'-'.join(nest.vars)}",
                    tuple(OrderVariant(f"order {'-'.join(o)}", _variant(inp, nest, o, pragma,
                                                                         guard))
                          for o in chosen))
    return "", ()
