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

from perfpilot.code.facts import FunctionFacts
from perfpilot.code.syntax import (
    line,
    node_text,
)
from perfpilot.rules.base import Example, RuleSpec
from perfpilot.rules.detect.common import code, loop_phrase, rng
from perfpilot.rules.edits import Edit
from perfpilot.rules.finding import Finding, depth_bonus, make_finding
from perfpilot.rules.rewrite_input import (
    Change,
    RuleInput,
    RuleOutput,
    fresh_name,
    line_indent,
    newline_of,
)
from perfpilot.rules.search.assoc_list import AssocList, Scan, assoc_lists

RULE_ID = "assoc-list-map"


def detect(facts: FunctionFacts) -> Iterator[Finding]:
    """Key searches, inside a loop, of a local vector proved to be an association list."""
    found, _refused = assoc_lists(facts, facts.unit)
    for a in found:
        for s in a.scans:
            outer = facts.loop_of(s.loop.parent) if s.loop.parent is not None else None
            if outer is None:
                continue
            yield make_finding(
                RULE_ID,
                f"the loop on line {line(s.loop)} searches all of `{a.var}` (declared on line "
                f"{line(a.decl)}) for the key `{code(s.key)}` on every iteration of "
                f"{loop_phrase(outer)}, O(n·m) comparisons: a `std::unordered_map<"
                f"{a.key_type}, std::size_t>` from each key to its position, kept beside "
                f"`{a.var}` (updated after each append), finds the same pair in O(1), and "
                f"`{a.var}` keeps its contents and order.",
                [line(s.loop), line(a.decl)],
                loop_range=outer.byte_range, node_range=rng(s.loop), names=[a.var],
                claims=[rng(s.loop)],
                data={"container": a.var, "key": a.key_type},
                bonus=depth_bonus(outer.depth + 1),
            )


def rewrite(inp: RuleInput) -> RuleOutput:
    """Add a key-to-position map beside each proved association list and look keys up in it."""
    if inp.language != "cpp":
        return [], []
    found, refused = assoc_lists(inp.facts, inp.unit)
    notes = [f"{RULE_ID}: the search of '{r.var}' on line {inp.line_of(r.node)} stays "
             f"linear: {r.why}" for r in refused]
    taken = set(inp.taken)
    changes: list[Change] = []
    for a in found:
        index = fresh_name(taken, f"{a.var}_index")
        taken.add(index)
        it = fresh_name(taken, f"{a.var}_at")
        taken.add(it)
        changes.append(_change(inp, a, index, it))
    return changes, notes


def _change(inp: RuleInput, a: AssocList, index: str, it: str) -> Change:
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
    return Change(
        RULE_ID, tuple(edits),
        f"'{a.var}' (line {inp.line_of(a.decl)}) is searched by key from the front "
        f"(line {', '.join(map(str, lines))}) and only grows by appends that leave keys alone, "
        f"so the hash map '{index}' from each key to the position of its first pair, updated "
        f"after every append, finds the pair the scan stops at in constant expected time; "
        f"'{a.var}' keeps its contents and order.",
        (*lines, inp.line_of(a.decl)), ("<cstddef>", "<unordered_map>"))


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
