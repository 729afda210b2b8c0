"""The cross-pair-count rule (and the code it shares with range-count-query): a loop that,
for each value of an outer loop, counts the elements of an unchanged integer sequence below
(or above) that value, or between two bounds, does O(n·m) comparisons.

Rewrite: sort a copy of the sequence once before the outer loop and take each count from
``lower_bound``/``upper_bound`` on it, O((n + m) log m). ``ordered_count.py`` holds the
shapes and the proof; one comparison is a cross pair count, two bounds a range query.
"""

from __future__ import annotations

from collections.abc import Iterator

from perfpilot.code.facts import FunctionFacts
from perfpilot.code.syntax import (
    line,
    node_text,
)
from perfpilot.rules.base import Example, RuleSpec
from perfpilot.rules.counting.ordered_count import (
    OrderedCount,
    copy_text,
    ordered_counts,
    replacement,
)
from perfpilot.rules.detect.common import loop_phrase
from perfpilot.rules.edits import Edit
from perfpilot.rules.emit import indent_unit, replace_statement
from perfpilot.rules.finding import Finding, depth_bonus, make_finding
from perfpilot.rules.rewrite_input import (
    Change,
    RuleInput,
    RuleOutput,
    insertion_before,
    statement_slot_ok,
)

PAIRS = "cross-pair-count"
RANGES = "range-count-query"


def _rule_of(c: OrderedCount) -> str:
    return RANGES if c.ranged else PAIRS


def _what(c: OrderedCount) -> str:
    tests = [f"{b[0]} {node_text(b[1])}" for b in (c.lower, c.upper) if b is not None]
    return f"the elements of `{c.seq}` that are " + " and ".join(tests)


def detect_counts(rule: str, facts: FunctionFacts) -> Iterator[Finding]:
    for c in ordered_counts(facts)[0]:
        if _rule_of(c) != rule:
            continue
        lp = c.outer
        how = "subtract the positions of the two bounds" if c.ranged else \
            "take the count from one binary search"
        yield make_finding(
            rule,
            f"{loop_phrase(lp)} counts {_what(c)} (line {line(c.site)}) on every iteration, "
            f"walking all of `{c.seq}` each time: O(n·m). Sort a copy of `{c.seq}` once before "
            f"the loop and {how} (`std::lower_bound`/`std::upper_bound`): O((n + m) log m).",
            [lp.line, line(c.site)], loop_range=lp.byte_range,
            node_range=(c.site.start_byte, c.site.end_byte),
            claims=[(c.site.start_byte, c.site.end_byte)],
            names=[c.seq] + ([c.counter] if c.counter else []),
            data={"container": c.seq, "counter": c.counter},
            bonus=depth_bonus(lp.depth + 1),
        )


def detect(facts: FunctionFacts) -> Iterator[Finding]:
    """Counts, per outer value, of the elements of a sequence on one side of it."""
    yield from detect_counts(PAIRS, facts)


def rewrite_counts(rule: str, inp: RuleInput) -> RuleOutput:
    if inp.language != "cpp":
        return [], []
    found, refused = ordered_counts(inp.facts)
    notes = [f"{rule}: the count on line {inp.line_of(n)} stays: {why}" for n, why in refused]
    groups: dict[tuple[int, str, str], list[OrderedCount]] = {}
    for c in found:
        if _rule_of(c) == rule:
            groups.setdefault((c.outer.node.start_byte, c.seq, c.bound), []).append(c)
    changes: list[Change] = []
    for (_, seq, bound), counts in groups.items():
        outer = counts[0].outer.node
        if not statement_slot_ok(outer):
            notes.append(f"{rule}: the count on line {inp.line_of(counts[0].site)} stays: no "
                         "place for the sorted copy before the loop")
            continue
        s = inp.fresh_name(f"{seq}_sorted")
        if bound:
            # a pointer's elements are read only once a scan reads them, as before
            made = inp.fresh_name(f"{seq}_sorted_made")
            head = [f"std::vector<{counts[0].elem}> {s};", f"bool {made} = false;"]
        else:
            made = ""
            first, last = copy_text(counts[0])
            head = [f"std::vector<{counts[0].elem}> {s}({first}, {last});",
                    f"std::sort({s}.begin(), {s}.end());"]
        edits = [insertion_before(inp, outer, h, rule, order=-18 + k)
                 for k, h in enumerate(head)]
        unit = indent_unit(inp.text)
        for c in counts:
            written = replacement(c, s, made, unit)
            stmt = None if c.call else replace_statement(inp, c.site, written, rule)
            edits.append(stmt if stmt is not None else
                         Edit(c.site.start_byte, c.site.end_byte, written[-1] if c.call else
                              "{ " + " ".join(" ".join(ln.split()) for ln in written) + " }",
                              rule))
        lines = tuple(inp.line_of(c.site) for c in counts)
        changes.append(Change(
            rule, tuple(edits),
            f"The loop at line {inp.line_of(outer)} counted {_what(counts[0])} by walking all "
            f"of '{seq}' on every iteration (line {lines[0]}); a copy sorted once before the "
            "loop gives the same count from binary searches.",
            (inp.line_of(outer), *lines),
            includes=("<algorithm>", "<cstddef>", "<type_traits>", "<vector>")))
    return changes, notes


def rewrite(inp: RuleInput) -> RuleOutput:
    """Replace per-value counts over a sequence with binary searches on a sorted copy."""
    return rewrite_counts(PAIRS, inp)


RULE = RuleSpec(
    id=PAIRS,
    detect=detect,
    rewrite=rewrite,
    rewrites_as=frozenset({PAIRS}),
    phase=0,  # it replaces whole loops, before the size hoist turns b.size() into a name
    order=8,
    examples=(
        Example("cpp", """
#include <vector>
long count_pairs_lt(const std::vector<int>& a, const std::vector<int>& b) {
    long c = 0;
    for (int x : a) for (int y : b) if (x < y) ++c;
    return c;
}
""", "count_pairs_lt"),
        Example("cpp", """
int below(const long* a, int n, const long* b, int m) {
    int c = 0;
    for (int i = 0; i < n; ++i)
        for (int j = 0; j < m; ++j)
            if (b[j] <= a[i]) c++;
    return c;
}
""", "below"),
    ),
)

