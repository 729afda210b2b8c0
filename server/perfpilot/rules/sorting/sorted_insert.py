"""The sorted-insert rule: a container kept sorted by sorting it whole after each element
added in a loop.

Rewrite: the element goes in at ``std::upper_bound`` and the sort goes.

``seen.push_back(x); std::sort(seen.begin(), seen.end());`` costs a sort of everything per
element; when ``seen`` was sorted before (``kept_sorted.py`` proves it: it starts empty
and nothing else changes it), ``seen.insert(std::upper_bound(seen.begin(), seen.end(), x), x)``
leaves the same sequence with one binary search and one shift. The value is converted to the
element type first, as ``push_back`` converts it, so the search compares what is stored.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from perfpilot.code.facts import FunctionFacts
from perfpilot.code.syntax import (
    Node,
    line,
    node_text,
)
from perfpilot.rules.base import Example, RuleSpec
from perfpilot.rules.by_finding import by_finding
from perfpilot.rules.detect.common import code, loop_phrase, rng
from perfpilot.rules.edits import Edit
from perfpilot.rules.finding import Finding, Proof, depth_bonus, make_finding
from perfpilot.rules.rewrite_input import Left, Planned, RuleInput, RuleOutput, left_note
from perfpilot.rules.sorting.kept_sorted import SortedPush, sorted_pushes

RULE_ID = "sorted-insert"


@dataclass(frozen=True)
class SortedPushProof(Proof):
    """The push and the whole sort after it, of a container sorted before the push
    (``kept_sorted.py``)."""

    push: SortedPush


def detect(facts: FunctionFacts) -> Iterator[Finding]:
    """A push followed by a sort of all of a container that stays sorted between."""
    found, _refused = sorted_pushes(facts, facts.unit)
    return _findings(facts, found)


def _findings(facts: FunctionFacts, found: Sequence[SortedPush]) -> Iterator[Finding]:
    """The findings of the proved push-and-sort pairs inside a loop."""
    for p in found:
        loop = facts.loop_of(p.push)
        if loop is None:
            continue
        v = p.sort.var
        yield make_finding(
            RULE_ID,
            f"`{code(p.sort.statement)}` on line {line(p.sort.statement)} sorts all of `{v}` "
            f"after one element is added on every iteration of {loop_phrase(loop)}, though "
            f"`{v}` was already sorted: insert the element at `std::upper_bound` instead "
            "(one binary search and one shift, no sort).",
            [line(p.sort.statement), line(p.push), loop.line],
            loop_range=loop.byte_range, node_range=rng(p.sort.statement), names=[v],
            bonus=depth_bonus(loop.depth), proof=SortedPushProof(p),
        )


def _insert_text(inp: RuleInput, p: SortedPush) -> str:
    v = p.sort.var
    comp = f", {p.sort.comparator}" if p.sort.comparator else ""
    value = node_text(p.value)
    vt = inp.facts.var(value) if p.value.type == "identifier" else None
    if vt is not None and not vt.pointer and not vt.array and \
            " ".join(vt.base.replace("const", "").split()) == p.element:
        return f"{v}.insert(std::upper_bound({v}.begin(), {v}.end(), {value}{comp}), {value});"
    tmp = inp.fresh_name(f"{v}_new")
    # converted as push_back converts it, so the search compares the stored value
    return (f"{{ const {p.element} {tmp} = {value}; "
            f"{v}.insert(std::upper_bound({v}.begin(), {v}.end(), {tmp}{comp}), {tmp}); }}")


def _remove(inp: RuleInput, stmt: Node) -> Edit:
    """Delete a statement, with its line when it stands alone on it."""
    data = inp.data
    start_b, end_b = stmt.start_byte, stmt.end_byte
    start = data.rfind(b"\n", 0, start_b) + 1
    end = data.find(b"\n", end_b)
    if data[start:start_b].strip() == b"" and end != -1 and data[end_b:end].strip() == b"":
        return Edit(start, end + 1, "", RULE_ID)
    return Edit(start_b, end_b, "", RULE_ID)


def fix(inp: RuleInput, finding: Finding) -> Planned | Left:
    """Insert at the upper bound instead of pushing and sorting."""
    proof = finding.proof
    assert isinstance(proof, SortedPushProof)
    p = proof.push
    return Planned(
        (Edit(p.push.start_byte, p.push.end_byte, _insert_text(inp, p), RULE_ID),
         _remove(inp, p.sort.statement)),
        f"'{p.sort.var}' is sorted at line {inp.line_of(p.sort.statement)} after each element "
        f"added, but it is already sorted before: the element now goes in at its upper bound "
        "and the sort is gone, which leaves the same sequence.",
        (p.sort.statement, p.push))


def rewrite(inp: RuleInput) -> RuleOutput:
    """Each finding fixed (``fix``), and a note for each push-and-sort the proof refused
    (detection does not report those)."""
    found, refused = sorted_pushes(inp.facts, inp.unit)
    changes, notes = by_finding(lambda facts: _findings(facts, found), fix)(inp)
    return changes, [*(left_note(inp, RULE_ID, Left("the sort", r.sort.statement, r.why))
                       for r in refused), *notes]


RULE = RuleSpec(
    id=RULE_ID,
    detect=detect,
    fix=fix,
    rewrite=rewrite,
    rewrites_as=frozenset({RULE_ID}),
    phase=1,
    order=14,
    examples=(
        Example("cpp", """
#include <algorithm>
#include <vector>
long running_median_sum(const std::vector<int>& xs) {
    std::vector<int> seen;
    long acc = 0;
    for (int x : xs) {
        seen.push_back(x);
        std::sort(seen.begin(), seen.end());
        acc += seen[seen.size() / 2];
    }
    return acc;
}
""", "running_median_sum"),
    ),
)
