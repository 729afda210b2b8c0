"""The count-table rule: ``std::count`` over the same byte container on every iteration of a
loop (counting each letter of a text, say) scans the whole container each time: O(n·m).

Rewrite: one pass before the loop counts every byte value into a 256-entry table of
``std::ptrdiff_t`` (the type ``std::count`` returns), and each call becomes a load from it:
O(n + m). ``code/byte_tables.py`` proves the container holds one-byte elements, is all of a
variable (``v.begin(), v.end()`` and the other spellings ``sorted_ranges.whole_range`` reads),
and that nothing in the loop can change it. ``std::count`` compares ``*it == value`` after the
usual promotions, so a value of the element's own type finds exactly the elements with its
byte, and a value of another one-byte type or of a signed type at least as wide as ``int``
finds them only when it lies in the element type's range: the lookup is then guarded by that
range test (and needs a value that may be read twice: a variable or a literal). Values of
unsigned wider types (a negative ``char`` would compare as a large number) are left alone.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from perfpilot.code.byte_tables import (
    byte_container,
    equality_guard,
    simple_value,
    table_loops,
    value_type,
)
from perfpilot.code.facts import FunctionFacts, Loop
from perfpilot.code.read_only_copy import unit_names
from perfpilot.code.sorted_ranges import std_name, unit_functions, whole_range
from perfpilot.code.syntax import Node, arguments, line, text
from perfpilot.rules.base import Example, RuleSpec
from perfpilot.rules.detect.common import code, loop_phrase, rng
from perfpilot.rules.edits import Edit
from perfpilot.rules.finding import Finding, depth_bonus, make_finding
from perfpilot.rules.rewrite_input import (
    Change,
    RuleInput,
    RuleOutput,
    insertion_before,
    statement_slot_ok,
)

RULE_ID = "count-table"


@dataclass(frozen=True)
class _Count:
    call: Node
    container: str
    value: Node
    guard: str  # '' or the range test the value must pass to match any element


def _counts(facts: FunctionFacts) -> Iterator[_Count | tuple[Node, str]]:
    """Each ``std::count`` over all of a byte container in a loop, or the call and why it is
    not one that a table answers."""
    own = unit_functions(facts.root)
    for call in facts.in_loops("call_expression"):
        args = arguments(call)
        if std_name(call, own) != "count" or len(args) != 3:
            continue
        name = whole_range(args[0], args[1])
        if name is None:
            continue
        element = byte_container(facts.var(name))
        if element is None:
            yield call, f"`{name}` is not known to hold one-byte elements"
            continue
        vt = value_type(facts, args[2])
        guard = equality_guard(vt, element, text(args[2])) if vt is not None else None
        if guard is None or (guard and not simple_value(args[2])):
            yield call, "the value counted is not known to be a character or a signed integer"
            continue
        yield _Count(call, name, args[2], guard)


def detect(facts: FunctionFacts) -> Iterator[Finding]:
    """``std::count`` over a byte container the loop around it does not change."""
    units = unit_names(facts.root)
    for found in _counts(facts):
        if not isinstance(found, _Count):
            continue
        loops, _ = table_loops(facts, units, found.call, found.container)
        if not loops:
            continue
        lp = loops[0]
        yield make_finding(
            RULE_ID,
            f"`{code(found.call)}` on line {line(found.call)} scans all of `{found.container}` "
            f"on every iteration of {loop_phrase(lp)}: O(n·m). Its elements are one byte "
            "wide, so count every byte value once before the loop into a 256-entry table and "
            "read the count from it: O(n + m).",
            [line(found.call), lp.line], loop_range=lp.byte_range, node_range=rng(found.call),
            names=[found.container], data={"container": found.container},
            bonus=depth_bonus(lp.depth + 1),
        )


def count_table_rule(inp: RuleInput) -> RuleOutput:
    """Build one table per container before the outermost loop that leaves it unchanged and
    replace each count with a lookup."""
    facts = inp.facts
    units = unit_names(inp.unit)
    notes: list[str] = []
    groups: dict[tuple[str, int], tuple[Loop, list[_Count]]] = {}
    for found in _counts(facts):
        if not isinstance(found, _Count):
            call, why = found
            notes.append(f"{RULE_ID}: the count on line {inp.line_of(call)} stays: {why}")
            continue
        loops, why = table_loops(facts, units, found.call, found.container)
        slot = next((lp for lp in loops if statement_slot_ok(lp.node)), None)
        if slot is None:
            notes.append(f"{RULE_ID}: the count on line {inp.line_of(found.call)} stays: "
                         f"{why or 'no statement can go before its loop'}")
            continue
        groups.setdefault((found.container, slot.node.start_byte), (slot, []))[1].append(found)
    changes = []
    for (name, _), (lp, counts) in groups.items():
        table = inp.fresh_name(f"{name}_counts")
        byte = inp.fresh_name("byte")
        edits = [
            insertion_before(inp, lp.node, f"std::ptrdiff_t {table}[256] = {{}};", RULE_ID, -12),
            insertion_before(inp, lp.node, f"for (unsigned char {byte} : {name}) "
                             f"++{table}[{byte}];", RULE_ID, -11),
        ]
        for c in counts:
            v = text(c.value)
            lookup = f"{table}[(unsigned char)({v})]"
            edits.append(Edit(c.call.start_byte, c.call.end_byte,
                              f"({c.guard} ? {lookup} : 0)" if c.guard else lookup, RULE_ID))
        changes.append(Change(
            RULE_ID, tuple(edits),
            f"The loop at line {inp.line_of(lp.node)} counted values in all of '{name}' on "
            f"every iteration; '{name}' is now counted once before the loop into '{table}' "
            "(one entry per byte value) and each count is read from it.",
            (inp.line_of(lp.node), *(inp.line_of(c.call) for c in counts)),
            includes=("<cstddef>", "<limits>") if any(c.guard for c in counts)
            else ("<cstddef>",)))
    return changes, notes


RULE = RuleSpec(
    id=RULE_ID,
    detect=detect,
    rewrite=count_table_rule,
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
    ),
)
