"""The cross-pair-count rule (and the code it shares with range-count-query): a loop that,
for each value of an outer loop, counts the elements of an unchanged integer sequence below
(or above) that value, or between two bounds, does O(n·m) comparisons.

Rewrite: sort a copy of the sequence once before the outer loop and take each count from
``lower_bound``/``upper_bound`` on it, O((n + m) log m). ``ordered_count.py`` holds the
shapes and the proof; one comparison is a cross pair count, two bounds a range query.
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
from perfpilot.rules.counting.ordered_count import (
    OrderedCount,
    copy_text,
    ordered_counts,
    replacement,
)
from perfpilot.rules.detect.common import loop_phrase
from perfpilot.rules.edits import Edit
from perfpilot.rules.emit import indent_unit, replace_statement
from perfpilot.rules.finding import Finding, Proof, depth_bonus, make_finding
from perfpilot.rules.rewrite_input import (
    Left,
    Planned,
    RuleInput,
    insertion_before,
    left_note,
    statement_slot_ok,
)

PAIRS = "cross-pair-count"
RANGES = "range-count-query"


def _rule_of(c: OrderedCount) -> str:
    return RANGES if c.ranged else PAIRS


def _what(c: OrderedCount) -> str:
    tests = [f"{b[0]} {node_text(b[1])}" for b in (c.lower, c.upper) if b is not None]
    return f"the elements of `{c.seq}` that are " + " and ".join(tests)


@dataclass(frozen=True)
class SortedCounts(Proof):
    """The proved counts over one sequence (one ``bound`` for a pointer's) in one outer loop:
    one sorted copy, made before that loop, answers them all."""

    counts: tuple[OrderedCount, ...]


def sorted_counts(rule: str, facts: FunctionFacts) -> list[SortedCounts]:
    """The rule's counts (a range query's two bounds, or a cross pair's one), grouped by
    outer loop and sequence."""
    groups: dict[tuple[int, str, str], list[OrderedCount]] = {}
    for c in ordered_counts(facts)[0]:
        if _rule_of(c) == rule:
            groups.setdefault((c.outer.node.start_byte, c.seq, c.bound), []).append(c)
    return [SortedCounts(tuple(counts)) for counts in groups.values()]


def detect_counts(rule: str, facts: FunctionFacts) -> Iterator[Finding]:
    """The rule's findings: one per sorted copy (``sorted_counts``)."""
    for group in sorted_counts(rule, facts):
        c = group.counts[0]
        lp = c.outer
        how = "subtract the positions of the two bounds" if c.ranged else \
            "take the count from one binary search"
        more = len(group.counts) - 1
        also = f", and {more} more count{'s' if more > 1 else ''} of `{c.seq}`" if more else ""
        yield make_finding(
            rule,
            f"{loop_phrase(lp)} counts {_what(c)} (line {line(c.site)}{also}) on every "
            f"iteration, walking all of `{c.seq}` each time: O(n·m). Sort a copy of `{c.seq}` "
            f"once before the loop and {how} (`std::lower_bound`/`std::upper_bound`): "
            "O((n + m) log m).",
            [lp.line, *(line(k.site) for k in group.counts)], loop_range=lp.byte_range,
            node_range=(c.site.start_byte, c.site.end_byte),
            claims=[(k.site.start_byte, k.site.end_byte) for k in group.counts],
            names=[c.seq, *dict.fromkeys(k.counter for k in group.counts if k.counter)],
            bonus=depth_bonus(lp.depth + 1), proof=group,
        )


def detect(facts: FunctionFacts) -> Iterator[Finding]:
    """Counts, per outer value, of the elements of a sequence on one side of it."""
    yield from detect_counts(PAIRS, facts)


def fix_counts(rule: str, inp: RuleInput, finding: Finding) -> Planned | Left:
    """A sorted copy of the sequence before the outer loop the finding proved, and each of
    its counts taken from binary searches on the copy."""
    group = finding.proof
    assert isinstance(group, SortedCounts)
    counts = group.counts
    first_count = counts[0]
    seq, outer = first_count.seq, first_count.outer.node
    if not statement_slot_ok(outer):
        return Left("the count", first_count.site, "no place for the sorted copy before the loop")
    s = inp.fresh_name(f"{seq}_sorted")
    if first_count.bound:
        # a pointer's elements are read only once a scan reads them, as before
        made = inp.fresh_name(f"{seq}_sorted_made")
        head = [f"std::vector<{first_count.elem}> {s};", f"bool {made} = false;"]
    else:
        made = ""
        first, last = copy_text(first_count)
        head = [f"std::vector<{first_count.elem}> {s}({first}, {last});",
                f"std::sort({s}.begin(), {s}.end());"]
    edits = [insertion_before(inp, outer, h, rule, order=-18 + k) for k, h in enumerate(head)]
    unit = indent_unit(inp.text)
    for c in counts:
        written = replacement(c, s, made, unit)
        stmt = None if c.call else replace_statement(inp, c.site, written, rule)
        edits.append(stmt if stmt is not None else
                     Edit(c.site.start_byte, c.site.end_byte, written[-1] if c.call else
                          "{ " + " ".join(" ".join(ln.split()) for ln in written) + " }",
                          rule))
    return Planned(
        tuple(edits),
        f"The loop at line {inp.line_of(outer)} counted {_what(first_count)} by walking all "
        f"of '{seq}' on every iteration (line {inp.line_of(first_count.site)}); a copy sorted "
        "once before the loop gives the same count from binary searches.",
        (outer, *(c.site for c in counts)),
        includes=("<algorithm>", "<cstddef>", "<type_traits>", "<vector>"))


def refusal_notes(rule: str, inp: RuleInput) -> list[str]:
    """A note for each count candidate ``ordered_counts`` refused: why it stays is worth
    saying though the plan does not name it."""
    return [left_note(inp, rule, Left("the count", n, why))
            for n, why in ordered_counts(inp.facts)[1]]


def fix(inp: RuleInput, finding: Finding) -> Planned | Left:
    """Replace per-value counts over a sequence with binary searches on a sorted copy."""
    return fix_counts(PAIRS, inp, finding)


def refused(inp: RuleInput) -> list[str]:
    """A note for each candidate refused."""
    return refusal_notes(PAIRS, inp)


RULE = RuleSpec(
    id=PAIRS,
    detect=detect,
    fix=fix,
    refused=refused,
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

