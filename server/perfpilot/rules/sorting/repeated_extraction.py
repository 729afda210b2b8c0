"""The repeated-extraction rule: a loop that finds the smallest (largest) element of a
container, uses it and erases it, pass after pass.

Rewrite: one sort before the loop and a walk over it.

Each pass of ``while (!v.empty()) { auto it = std::min_element(v.begin(), v.end());
out.push_back(*it); v.erase(it); }`` scans all that is left and shifts what follows the
element: O(n²) for the whole loop. The values come out in sorted order, so
``std::sort(v.begin(), v.end())`` (``std::greater`` for the largest first) before the loop and
a count ``h`` of the elements taken give the same values: the element found is ``v[h]``
(``v.begin() + h`` for the iterator), the erase becomes ``++h``, ``v.size()`` and ``v.empty()``
in the loop become ``v.size() - h`` and ``h == v.size()``. O(n log n) in all. When ``v`` is
read after the loop (which then ran until it was empty), ``v.clear()`` follows it.
``extraction_loops.py`` has the proof.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from perfpilot.code.facts import FunctionFacts
from perfpilot.code.syntax import (
    line,
)
from perfpilot.rules.base import Example, RuleSpec
from perfpilot.rules.by_finding import by_finding
from perfpilot.rules.detect.common import code, loop_phrase
from perfpilot.rules.edits import Edit
from perfpilot.rules.emit import ADDITIVE, EQUALITY, fitted_edit
from perfpilot.rules.finding import Finding, Proof, depth_bonus, make_finding
from perfpilot.rules.rewrite_input import (
    Left,
    Planned,
    RuleInput,
    RuleOutput,
    insertion_before,
    left_note,
    line_indent,
    newline_of,
    statement_slot_ok,
)
from perfpilot.rules.sorting.extraction_loops import Extraction, extraction_loops

RULE_ID = "repeated-extraction"


@dataclass(frozen=True)
class ExtractionProof(Proof):
    """The proved extraction loop: its search, erase, size and empty tests
    (``extraction_loops.py``)."""

    extraction: Extraction


def _sort_text(x: Extraction) -> str:
    comp = f", std::greater<{x.element}>()" if x.descending else ""
    return f"std::sort({x.var}.begin(), {x.var}.end(){comp});"


def detect(facts: FunctionFacts) -> Iterator[Finding]:
    """Loops that take the extreme element out of a container on every pass."""
    found, _refused = extraction_loops(facts, facts.unit)
    return _findings(found)


def _findings(found: Sequence[Extraction]) -> Iterator[Finding]:
    """The findings of the proved extraction loops."""
    for x in found:
        which = "largest" if x.descending else "smallest"
        yield make_finding(
            RULE_ID,
            f"{loop_phrase(x.loop).capitalize()} finds the {which} element of `{x.var}` with "
            f"`{code(x.found)}` on line {line(x.found)} and erases it with "
            f"`{code(x.erase)}` on every pass: each pass scans and shifts what is left "
            f"(O(n²) in all). The values come out in sorted order: `{_sort_text(x)}` once "
            "before the loop and a count of the elements taken give them in O(n log n).",
            [line(x.found), x.loop.line, line(x.erase)],
            loop_range=x.loop.byte_range, node_range=(x.found.start_byte, x.found.end_byte),
            # the search and the erase, and any scan inside them, give way to one sort
            claims=[(n.start_byte, n.end_byte) for n in (x.found, x.erase)],
            names=[x.var],
            bonus=depth_bonus(x.loop.depth),
            proof=ExtractionProof(x),
        )


def fix(inp: RuleInput, finding: Finding) -> Planned | Left:
    """Sort once before the proved loop and walk the sorted container."""
    proof = finding.proof
    assert isinstance(proof, ExtractionProof)
    x = proof.extraction
    loop = x.loop.node
    if not statement_slot_ok(loop):
        return Left("the loop", loop, "it is not directly inside a block, so the sort cannot "
                    "go before it")
    v, h = x.var, inp.fresh_name(f"{x.var}_taken")
    edits = [
        insertion_before(inp, loop, _sort_text(x), RULE_ID, order=-10),
        insertion_before(inp, loop, f"std::size_t {h} = 0;", RULE_ID, order=-9),
        Edit(x.found.start_byte, x.found.end_byte,
             f"{v}.begin() + {h}" if x.iterator else f"{v}[{h}]", RULE_ID),
        Edit(x.erase.start_byte, x.erase.end_byte, f"++{h};", RULE_ID),
    ]
    edits += [fitted_edit(n, f"{v}.size() - {h}", ADDITIVE, RULE_ID) for n in x.sizes]
    edits += [fitted_edit(n, f"{h} == {v}.size()", EQUALITY, RULE_ID) for n in x.empties]
    if x.clear_after:
        _, indent = line_indent(inp.data, loop)
        edits.append(Edit(loop.end_byte, loop.end_byte,
                          f"{newline_of(inp.text)}{indent}{v}.clear();", RULE_ID))
    which = "largest" if x.descending else "smallest"
    return Planned(
        tuple(edits),
        f"The loop at line {inp.line_of(loop)} takes the {which} element out of '{v}' on "
        f"every pass, scanning and shifting what is left (quadratic); '{v}' is now sorted "
        f"once before it and walked with the count '{h}' of the elements taken, which "
        "gives the same values in the same order.",
        (loop, x.found, x.erase),
        ("<algorithm>", "<cstddef>", "<functional>") if x.descending
        else ("<algorithm>", "<cstddef>"))


def rewrite(inp: RuleInput) -> RuleOutput:
    """Each finding fixed (``fix``), and a note for each extraction loop the proof refused
    (detection does not report those)."""
    found, refused = extraction_loops(inp.facts, inp.unit)
    changes, notes = by_finding(lambda _facts: _findings(found), fix)(inp)
    return changes, [*(left_note(inp, RULE_ID, Left("the loop", r.loop.node, r.why))
                       for r in refused), *notes]


RULE = RuleSpec(
    id=RULE_ID,
    detect=detect,
    fix=fix,
    rewrite=rewrite,
    rewrites_as=frozenset({RULE_ID}),
    phase=1,
    order=13,
    examples=(
        Example("cpp", """
#include <algorithm>
#include <vector>
std::vector<int> drain_smallest(std::vector<int> pool) {
    std::vector<int> order;
    while (!pool.empty()) {
        auto it = std::min_element(pool.begin(), pool.end());
        order.push_back(*it);
        pool.erase(it);
    }
    return order;
}
""", "drain_smallest"),
    ),
)
