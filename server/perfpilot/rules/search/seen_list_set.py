"""The seen-list-set rule: a local vector of distinct values searched from end to end before
each append.

Rewrite: a hash set kept beside the vector answers the membership question.

``if (std::find(seen.begin(), seen.end(), x) == seen.end()) seen.push_back(x);`` in a loop
scans all ``m`` values kept so far for each of ``n`` items: O(n·m). ``code/seen_list.py``
proves the vector changes only by that append and the searched value is the appended one, of
the element type (integers, ``char``, ``std::string``); then ``std::unordered_set<T>
seen_set;`` declared right after the vector holds exactly its values at every search, and the
test becomes ``seen_set.insert(x).second`` (true exactly when ``x`` was absent, and it is now
in the set, as the append puts it in the vector). A hand-written scan loop setting a found flag
becomes ``found = !seen_set.insert(x).second;``. The vector keeps its contents and order, so
every later use of it (its size, a loop over it, returning it) sees the same: O(n) expected.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from perfpilot.code.facts import FunctionFacts
from perfpilot.code.seen_list import SeenList, seen_lists
from perfpilot.code.syntax import (
    line,
    node_text,
)
from perfpilot.rules.base import Example, RuleSpec
from perfpilot.rules.by_finding import by_finding
from perfpilot.rules.detect.common import code, loop_phrase, rng
from perfpilot.rules.edits import Edit
from perfpilot.rules.emit import folded_into_declaration
from perfpilot.rules.finding import Finding, Proof, depth_bonus, make_finding
from perfpilot.rules.rewrite_input import (
    Left,
    Planned,
    RuleInput,
    RuleOutput,
    line_indent,
    newline_of,
)

RULE_ID = "seen-list-set"


@dataclass(frozen=True)
class SeenListProof(Proof):
    """The proved search-then-append: the vector's declaration, the test to replace, the
    searched value and the search itself (``code/seen_list.py``)."""

    site: SeenList


def _search_phrase(s: SeenList) -> str:
    if s.form == "loop":
        return f"the loop on line {line(s.search)} that scans `{s.var}` for `{node_text(s.value)}`"
    return f"`{code(s.search)}` on line {line(s.search)}"


def detect(facts: FunctionFacts) -> Iterator[Finding]:
    """Search-then-append sites of a local vector proved to be a list of distinct values."""
    found, _refused = seen_lists(facts, facts.unit)
    return _findings(facts, found)


def _findings(facts: FunctionFacts, found: tuple[SeenList, ...]) -> Iterator[Finding]:
    """The findings of the proved seen lists searched inside a loop."""
    for s in found:
        lp = facts.loop_of(s.search)
        if lp is None:
            continue
        yield make_finding(
            RULE_ID,
            f"{_search_phrase(s)} searches all of `{s.var}` (declared on line {line(s.decl)}) "
            f"on every iteration of {loop_phrase(lp)} before appending `{node_text(s.value)}` "
            f"when it is absent, so the loop does O(n·m) comparisons: a "
            f"`std::unordered_set<{s.element}>` kept beside `{s.var}` answers the same "
            f"question in O(1) (`insert(x).second` is true exactly when the value is new), "
            f"and `{s.var}` keeps its contents and order.",
            [line(s.search), line(s.decl), line(s.push)],
            loop_range=lp.byte_range, node_range=rng(s.search), names=[s.var],
            claims=[rng(s.search)],
            bonus=depth_bonus(lp.depth + 1),
            proof=SeenListProof(s),
        )


def fix(inp: RuleInput, finding: Finding) -> Planned | Left:
    """A companion hash set declared after the proved vector, the membership test on it."""
    proof = finding.proof
    assert isinstance(proof, SeenListProof)
    s = proof.site
    name = inp.fresh_name(f"{s.var}_set")
    nl = newline_of(inp.text)
    _, indent = line_indent(inp.data, s.decl)
    sep = f"{nl}{indent}" if indent or inp.data.rfind(b"\n", 0, s.decl.start_byte) + 1 == \
        s.decl.start_byte else " "
    value = " ".join(node_text(s.value).split())
    inserted = f"{name}.insert({value}).second"
    if s.form == "loop":
        new_test = f"{s.flag} = !{inserted};"
        what = f"the scan loop at line {inp.line_of(s.test)}"
    else:
        new_test = inserted if s.absent else f"!{inserted}"
        what = f"the std::{s.form} search at line {inp.line_of(s.search)}"
    start = Edit(s.decl.end_byte, s.decl.end_byte,
                 f"{sep}std::unordered_set<{s.element}> {name};", RULE_ID)
    # `bool found = false;` right before the scan takes the test as its initializer
    folded = folded_into_declaration(inp, s.test, s.flag, "=", f"!{inserted}", RULE_ID) \
        if s.form == "loop" else None
    edits = (start, *folded) if folded is not None else \
        (start, Edit(s.test.start_byte, s.test.end_byte, new_test, RULE_ID))
    return Planned(
        edits,
        f"'{s.var}' (line {inp.line_of(s.decl)}) only grows by appending values not yet "
        f"in it, so the hash set '{name}' kept beside it holds exactly its values: "
        f"{what} becomes '{inserted}', true exactly when the value is new, in constant "
        f"expected time instead of a pass over '{s.var}'; '{s.var}' keeps its contents "
        "and order.",
        (s.search, s.decl), ("<unordered_set>",))


def rewrite(inp: RuleInput) -> RuleOutput:
    """Each finding fixed (``fix``), and a note for each search-then-append the proof
    refused (detection does not report those: the linear-search rule may)."""
    if inp.language != "cpp":
        return [], []
    found, refused = seen_lists(inp.facts, inp.unit)
    changes, notes = by_finding(lambda facts: _findings(facts, found), fix)(inp)
    notes += [f"{RULE_ID}: the search of '{r.var}' on line {inp.line_of(r.node)} stays "
              f"linear: {r.why}" for r in refused]
    return changes, notes


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
std::vector<int> distinct(const std::vector<int>& v) {
    std::vector<int> seen;
    for (int x : v) {
        if (std::find(seen.begin(), seen.end(), x) == seen.end()) seen.push_back(x);
    }
    return seen;
}
""", "distinct"),
        Example("cpp", """
#include <string>
#include <vector>
int kinds(const std::vector<std::string>& words) {
    std::vector<std::string> seen;
    for (const auto& w : words) {
        bool found = false;
        for (const auto& s : seen)
            if (s == w) {
                found = true;
                break;
            }
        if (!found) seen.push_back(w);
    }
    return (int)seen.size();
}
""", "kinds"),
    ),
)
