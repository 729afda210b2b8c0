"""The count-table rule: ``std::count`` over the same container on every iteration of a loop
(counting each letter of a text, or how often each element of a vector occurs in it) scans the
whole container each time: O(n·m).

Rewrite: one pass before the loop counts every element into a table, and each call becomes a
lookup: O(n + m). ``count_tables.py`` proves the container holds integers or strings, is
all of a variable (``v.begin(), v.end()`` and the other spellings ``sorted_ranges.whole_range``
reads), that nothing in the loop can change it (``byte_tables.py``), and that the value
compares with the elements as a key (``count_keys.py``: ``std::count`` compares ``*it ==
value`` after the usual conversions, so a value of another type matches only in the element
type's range, or converted modulo 2^w, or the call stays). One-byte elements get a 256-entry
array of ``std::ptrdiff_t`` (the type ``std::count`` returns) indexed by the byte; wider
integers and strings a ``std::unordered_map`` of counts read with ``find`` (0 when absent,
never inserting).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from perfpilot.code.facts import FunctionFacts
from perfpilot.code.read_only_copy import unit_names
from perfpilot.code.syntax import (
    Node,
    line,
    node_text,
)
from perfpilot.rules.base import Example, RuleSpec
from perfpilot.rules.counting import count_tables
from perfpilot.rules.counting.count_tables import CountCall
from perfpilot.rules.detect.common import code, loop_phrase, rng
from perfpilot.rules.edits import Edit
from perfpilot.rules.emit import cast
from perfpilot.rules.finding import Finding, Proof, depth_bonus, make_finding
from perfpilot.rules.rewrite_input import (
    Left,
    Planned,
    RuleInput,
    insertion_before,
    left_note,
    statement_slot_ok,
)

RULE_ID = "count-table"


@dataclass(frozen=True)
class CountTable(Proof):
    """The counts over one container that one table answers: ``loop`` is the outermost loop
    around them that leaves the container unchanged and has a statement slot above it, where
    the table is filled (None when no such loop has a slot: the counts stay)."""

    container: str
    loop: Node | None
    counts: tuple[CountCall, ...]


def _tables(facts: FunctionFacts) -> list[CountTable]:
    """The counts a table answers, grouped by container and by the loop the table goes
    before (each count with no slot before its loops alone)."""
    groups: dict[tuple[str, int], CountTable] = {}
    out: list[CountTable] = []
    for c in count_tables.count_calls(facts, unit_names(facts.unit))[0]:
        slot = next((lp for lp in c.loops if statement_slot_ok(lp.node)), None)
        if slot is None:
            out.append(CountTable(c.container, None, (c,)))
            continue
        key = (c.container, slot.node.start_byte)
        old = groups.get(key)
        groups[key] = CountTable(c.container, slot.node, (*old.counts, c) if old else (c,))
    return [*groups.values(), *out]


def detect(facts: FunctionFacts) -> Iterator[Finding]:
    """``std::count`` over a container of integers or strings that the loop around it does not
    change (one finding per table: the counts over one container before one loop)."""
    for table in _tables(facts):
        found = table.counts[0]
        lp = found.loops[0]
        more = len(table.counts) - 1
        also = f" (and {more} more count{'s' if more > 1 else ''} of it in that loop)" \
            if more else ""
        kind = ("Its elements are one byte wide, so count every byte value once before the "
                "loop into a 256-entry table" if found.element.one_byte else
                "Count every element once before the loop into a hash map "
                "(`std::unordered_map`)")
        yield make_finding(
            RULE_ID,
            f"`{code(found.call)}` on line {line(found.call)}{also} scans all of "
            f"`{found.container}` on every iteration of {loop_phrase(lp)}: O(n·m). {kind} "
            "and read each count from it: O(n + m).",
            [*(line(c.call) for c in table.counts), lp.line], loop_range=lp.byte_range,
            node_range=rng(found.call), claims=[rng(c.call) for c in table.counts],
            names=[found.container], bonus=depth_bonus(lp.depth + 1), proof=table,
        )


def _byte_table(inp: RuleInput, loop: Node, name: str, counts: tuple[CountCall, ...]
                ) -> list[Edit]:
    table = inp.fresh_name(f"{name}_counts")
    byte = inp.fresh_name("byte")
    edits = [
        insertion_before(inp, loop, f"std::ptrdiff_t {table}[256] = {{}};", RULE_ID, -12),
        insertion_before(inp, loop, f"for (unsigned char {byte} : {name}) "
                         f"++{table}[{byte}];", RULE_ID, -11),
    ]
    for c in counts:
        lookup = f"{table}[{cast('unsigned char', c.value)}]"
        edits.append(Edit(c.call.start_byte, c.call.end_byte,
                          f"({c.guard} ? {lookup} : 0)" if c.guard else lookup, RULE_ID))
    return edits


def _map_table(inp: RuleInput, loop: Node, name: str, counts: tuple[CountCall, ...]
               ) -> list[Edit]:
    elem = counts[0].element.spelled
    table = inp.fresh_name(f"{name}_counts")
    lookup = inp.fresh_name(f"{name}_count")
    e, key, at = inp.fresh_name("e"), inp.fresh_name("key"), inp.fresh_name("at")
    edits = [
        insertion_before(inp, loop, f"std::unordered_map<{elem}, std::ptrdiff_t> {table};",
                         RULE_ID, -12),
        insertion_before(inp, loop, f"{table}.reserve({name}.size());", RULE_ID, -11),
        insertion_before(inp, loop, f"for (const auto& {e} : {name}) ++{table}[{e}];",
                         RULE_ID, -10),
        # a lookup that never inserts: 0 for a value not among the elements
        insertion_before(inp, loop, f"auto {lookup} = [&{table}](const {elem}& {key}) -> "
                         f"std::ptrdiff_t {{ auto {at} = {table}.find({key}); return {at} == "
                         f"{table}.end() ? 0 : {at}->second; }};", RULE_ID, -9),
    ]
    for c in counts:
        v = node_text(c.value)
        call = f"{lookup}(static_cast<{elem}>({v}))" if c.convert else f"{lookup}({v})"
        edits.append(Edit(c.call.start_byte, c.call.end_byte,
                          f"({c.guard} ? {call} : 0)" if c.guard else call, RULE_ID))
    return edits


def fix(inp: RuleInput, finding: Finding) -> Planned | Left:
    """Build the table the finding proved before its loop and replace each count with a
    lookup."""
    table = finding.proof
    assert isinstance(table, CountTable)
    counts, name, loop = table.counts, table.container, table.loop
    if loop is None:
        return Left("the count", counts[0].call, "no statement can go before its loop")
    one_byte = counts[0].element.one_byte
    edits = (_byte_table if one_byte else _map_table)(inp, loop, name, counts)
    guarded = ("<limits>",) if any(c.guard for c in counts) else ()
    return Planned(
        tuple(edits),
        f"The loop at line {inp.line_of(loop)} counted values in all of '{name}' on "
        f"every iteration; '{name}' is now counted once before the loop "
        + ("(one entry per byte value)" if one_byte else "into a hash map")
        + " and each count is read from it.",
        (loop, *(c.call for c in counts)),
        includes=("<cstddef>", *guarded) if one_byte
        else ("<cstddef>", "<unordered_map>", *guarded))


def refused(inp: RuleInput) -> list[str]:
    """A note for each count over a whole container that detection refused: why it stays is
    worth saying though the plan does not name it."""
    left = count_tables.count_calls(inp.facts, unit_names(inp.facts.unit))[1]
    return [left_note(inp, RULE_ID, Left("the count", r.call, r.why)) for r in left]


RULE = RuleSpec(
    id=RULE_ID,
    detect=detect,
    fix=fix,
    refused=refused,
    rewrites_as=frozenset({RULE_ID}),
    phase=1,
    order=9,
    examples=(
        Example("cpp", """
#include <algorithm>
#include <string>
#include <vector>
std::vector<int> letter_counts(const std::string& text) {
    std::vector<int> out(26, 0);
    for (char c = 'a'; c <= 'z'; ++c) out[c - 'a'] = (int)std::count(text.begin(), text.end(), c);
    return out;
}
""", "letter_counts"),
        Example("cpp", """
#include <algorithm>
#include <vector>
int max_occurrence(const std::vector<int>& v) {
    int best = 0, bestc = 0;
    for (int x : v) {
        int c = std::count(v.begin(), v.end(), x);
        if (c > bestc || (c == bestc && x < best)) { bestc = c; best = x; }
    }
    return best;
}
""", "max_occurrence"),
    ),
)
