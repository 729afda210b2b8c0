"""The assoc-list-map rule: a local vector of pairs searched by key from the front before each
update or append.

Rewrite: a hash map from each key to its position, kept beside the vector, finds the pair.

``for (auto& p : v) if (p.first == k) { ++p.second; found = true; break; }`` in a loop compares
``k`` with every key kept so far: O(n·m). ``assoc_list.py`` proves the keys are integers
or strings compared with ``==``, only appends change the vector's length and nothing writes a
key; then ``std::unordered_map<K, std::size_t> v_index`` declared right after the vector, and
``v_index.emplace(v.back().first, v.size() - 1)`` after every append, name the first pair of
each key, which is the one the scan stops at. The scan becomes a lookup binding the element (or
the index) as the loop declared it and running the branch once; the vector keeps its contents
and order, so everything else reading it sees the same: O(n) expected.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from perfpilot.code.facts import FunctionFacts
from perfpilot.code.syntax import (
    line,
    node_text,
)
from perfpilot.rules.base import Example, RuleSpec
from perfpilot.rules.by_finding import by_finding
from perfpilot.rules.detect.common import code, loop_phrase, rng
from perfpilot.rules.edits import Edit
from perfpilot.rules.finding import Finding, Proof, depth_bonus, make_finding
from perfpilot.rules.rewrite_input import (
    Left,
    Planned,
    RuleInput,
    RuleOutput,
    line_indent,
    newline_of,
)
from perfpilot.rules.search.assoc_list import AssocList, Scan, assoc_lists

RULE_ID = "assoc-list-map"


@dataclass(frozen=True)
class AssocListProof(Proof):
    """The proved association list: its declaration, its key scans and its appends
    (``assoc_list.py``); the map must follow all of them at once."""

    assoc: AssocList


def detect(facts: FunctionFacts) -> Iterator[Finding]:
    """Key searches, inside a loop, of a local vector proved to be an association list."""
    found, _refused = assoc_lists(facts, facts.unit)
    return _findings(facts, found)


def _findings(facts: FunctionFacts, found: tuple[AssocList, ...]) -> Iterator[Finding]:
    """One finding per proved list searched inside a loop (the map serves all its scans)."""
    for a in found:
        looped = [(s, outer) for s in a.scans
                  if s.loop.parent is not None and
                  (outer := facts.loop_of(s.loop.parent)) is not None]
        if not looped:
            continue
        s, outer = looped[0]
        yield make_finding(
            RULE_ID,
            f"the loop on line {line(s.loop)} searches all of `{a.var}` (declared on line "
            f"{line(a.decl)}) for the key `{code(s.key)}` on every iteration of "
            f"{loop_phrase(outer)}, O(n·m) comparisons: a `std::unordered_map<"
            f"{a.key_type}, std::size_t>` from each key to its position, kept beside "
            f"`{a.var}` (updated after each append), finds the same pair in O(1), and "
            f"`{a.var}` keeps its contents and order.",
            [*(line(x.loop) for x, _ in looped), line(a.decl)],
            loop_range=outer.byte_range, node_range=rng(s.loop), names=[a.var],
            claims=[rng(x.loop) for x, _ in looped],
            bonus=depth_bonus(outer.depth + 1),
            proof=AssocListProof(a),
        )


def fix(inp: RuleInput, finding: Finding) -> Planned | Left:
    """A key-to-position map beside the proved list, its scans turned into lookups."""
    proof = finding.proof
    assert isinstance(proof, AssocListProof)
    a = proof.assoc
    index = inp.fresh_name(f"{a.var}_index")
    it = inp.fresh_name(f"{a.var}_at")
    nl = newline_of(inp.text)
    _, indent = line_indent(inp.data, a.decl)
    sep = f"{nl}{indent}" if indent or inp.data.rfind(b"\n", 0, a.decl.start_byte) + 1 == \
        a.decl.start_byte else " "
    edits = [Edit(a.decl.end_byte, a.decl.end_byte,
                  f"{sep}std::unordered_map<{a.key_type}, std::size_t> {index};", RULE_ID)]
    for s in a.scans:
        edits += _scan_edits(a, s, index, it)
    for stmt in a.appends:
        edits.append(Edit(stmt.start_byte, stmt.end_byte,
                          f"{{ {node_text(stmt)} {index}.emplace({a.var}.back().first, "
                          f"{a.var}.size() - 1); }}", RULE_ID))
    lines = tuple(inp.line_of(s.loop) for s in a.scans)
    return Planned(
        tuple(edits),
        f"'{a.var}' (line {inp.line_of(a.decl)}) is searched by key from the front "
        f"(line {', '.join(map(str, lines))}) and only grows by appends that leave keys alone, "
        f"so the hash map '{index}' from each key to the position of its first pair, updated "
        f"after every append, finds the pair the scan stops at in constant expected time; "
        f"'{a.var}' keeps its contents and order.",
        (*(s.loop for s in a.scans), a.decl), ("<cstddef>", "<unordered_map>"))


def rewrite(inp: RuleInput) -> RuleOutput:
    """Each finding fixed (``fix``), and a note for each key search the proof refused
    (detection does not report those: the linear-search rule may)."""
    if inp.language != "cpp":
        return [], []
    found, refused = assoc_lists(inp.facts, inp.unit)
    changes, notes = by_finding(lambda facts: _findings(facts, found), fix)(inp)
    notes += [f"{RULE_ID}: the search of '{r.var}' on line {inp.line_of(r.node)} stays "
              f"linear: {r.why}" for r in refused]
    return changes, notes


def _scan_edits(a: AssocList, s: Scan, index: str, it: str) -> list[Edit]:
    """The scan loop up to its branch becomes the lookup; the branch's ``break`` and the
    braces after it close it. The branch's own statements stay where they are."""
    brk = s.brk
    key = " ".join(node_text(s.key).split())
    if s.index:
        t = s.binding.rsplit(" ", 1)[0]
        bind = f"{s.binding} = static_cast<{t}>({it}->second);"
    else:
        bind = f"{s.binding} = {a.var}[{it}->second];"
    head_end = s.branch[0].start_byte if s.branch else brk.start_byte
    return [
        Edit(s.loop.start_byte, head_end,
             f"{{ auto {it} = {index}.find({key}); if ({it} != {index}.end()) {{ {bind} ",
             RULE_ID),
        Edit(brk.start_byte, s.loop.end_byte, "} }", RULE_ID),
    ]


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
#include <string>
#include <utility>
#include <vector>
int most(const std::vector<std::string>& words) {
    std::vector<std::pair<std::string, int>> freq;
    for (const auto& w : words) {
        bool found = false;
        for (auto& p : freq)
            if (p.first == w) {
                ++p.second;
                found = true;
                break;
            }
        if (!found) freq.push_back({w, 1});
    }
    int best = 0;
    for (auto& p : freq) best = std::max(best, p.second);
    return best;
}
""", "most"),
    ),
)
