"""Loops run in another order over arrays a caller may pass overlapping.

The tests that another order of a nest's loops computes what the nest computes
(``code/dependence.py`` ``interchange_blocker``, ``code/nest_order.py`` ``order_blocker``)
reason about one name at a time: distinct names are taken to be distinct storage. A caller may
pass one array under two names (``f(x, x)``, ``f(p, p + n)``, ``f(v, v.data())``, a global
and a parameter, a local pointer or reference into a parameter). A read through one name of
an element another iteration writes through the other then sees it before or after that write
depending on the order, and the result changes.

Which pairs may overlap, and which run-time test rules an overlap out, is the OpenMP rule's
pairing (``openmp.py`` ``overlaps`` over ``code/storage_type.py`` and ``code/aliases.py``):
references of one type, which can only be one object, behind ``&a != &b``; a reference that
may be a row of another container behind the test that it is not; pointers, views and
containers that may overlap anywhere behind a test that the spans the nest reaches through
them do not meet (``alias_check.nest_no_overlap_condition``). References read at exactly the
subscripts written need no test: through either name each element is then read and written
only by the iterations that write it, whose order the legality test keeps. The nest becomes
``if (test) { new order } else { original order }``. Storage no test here can bound (nested,
non-contiguous, of a type the analysis cannot see into, or reached through subscripts it
cannot bound) keeps its order; ``restrict`` rules an overlap out as for the OpenMP rule.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from perfpilot.code.loops import LoopFacts
from perfpilot.code.nest_order import header_moves
from perfpilot.code.syntax import (
    Node,
)
from perfpilot.rules.edits import Edit, apply_edits
from perfpilot.rules.parallel.openmp import overlap_note, overlaps
from perfpilot.rules.rewrite_input import RuleInput, newline_of


@dataclass(frozen=True)
class ReorderGuard:
    """What running a nest's loops in another order needs: the run-time ``condition`` under
    which its arrays cannot overlap ("" when they cannot anyway), or why no order may change
    (``refused``, naming the arrays; "" when one may)."""

    condition: str = ""
    refused: str = ""


def nest_loops(outer: LoopFacts) -> tuple[LoopFacts, ...]:
    """``outer`` and the loops nested in it one inside the next, outermost first."""
    out = [outer]
    while len(out[-1].children) == 1:
        out.append(out[-1].children[0])
    return tuple(out)


def reorder_guard(inp: RuleInput, outer: LoopFacts) -> ReorderGuard:
    """The guard another order of the perfect nest at ``outer`` needs (see the module
    docstring)."""
    loops = nest_loops(outer)
    ov = overlaps(inp.site.params, inp.types, outer, inp.global_names)
    names = {n for pair in ov.references for n in pair}
    if any(not re.fullmatch(r"[A-Za-z_]\w*", n) for n in names):
        return ReorderGuard(refused="it reads and writes " + _pair(sorted(names)) +
                            ", which a caller may pass as one object")
    test = ov.condition(outer, loops[1:])
    if test is None:
        return ReorderGuard(refused=overlap_note(ov))
    conditions = [f"&{w} != &{r}" for w, r in ov.references] + ([test] if test else [])
    return ReorderGuard(condition=" && ".join(conditions))


def _pair(names: list[str]) -> str:
    quoted = [f"'{n}'" for n in names]
    return quoted[0] if len(quoted) == 1 else f"{', '.join(quoted[:-1])} and {quoted[-1]}"


def versioned(inp: RuleInput, start: int, end: int, new: str, guard: str) -> str:
    """``if (guard) { new } else { old }``: the text ``new`` run where ``guard`` holds, the
    text of ``inp`` from byte ``start`` to ``end`` (a statement, with the pragmas before it)
    otherwise, each indented one level deeper than the line ``start`` is on."""
    data = inp.data
    nl = newline_of(inp.text)
    line_start = data.rfind(b"\n", 0, start) + 1
    lead = data[line_start:start].decode("utf-8")
    indent = lead if lead.strip() == "" else ""
    old = data[start:end].decode("utf-8")
    return (f"if ({guard}) {{{nl}{indent}    {new.replace(nl, nl + '    ')}{nl}"
            f"{indent}}} else {{{nl}{indent}    {old.replace(nl, nl + '    ')}{nl}{indent}}}")


def reordered(inp: RuleInput, loops: list[Node], order: list[int], start: int,
              guard: str) -> str:
    """The text of ``inp`` from byte ``start`` to the end of the nest ``loops`` with the header
    of ``loops[order[k]]`` where the header of ``loops[k]`` is (``header_moves``), bodies
    untouched; behind ``guard`` (``versioned``) when there is one."""
    end = loops[0].end_byte
    edits = [Edit(s - start, e - start, moved, "order")
             for s, e, moved in header_moves(inp.data, loops, order)]
    new = apply_edits(inp.data[start:end].decode("utf-8"), edits)
    return versioned(inp, start, end, new, guard) if guard else new
