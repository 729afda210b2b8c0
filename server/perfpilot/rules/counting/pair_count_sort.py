"""The pair-count-sort rule: a double loop counting the pairs of one integer sequence whose sum
is below (or above) a fixed limit, or whose elements are equal, does O(n²) tests.

Rewrite: sort a copy and count with two pointers (sums) or by runs of equal values,
O(n log n). ``pair_count.py`` proves the loop only counts; the count depends only on the
values as a multiset, so the sorted copy gives the same number, added to the counter.
"""

from __future__ import annotations

from collections.abc import Iterator

from perfpilot.code.facts import FunctionFacts
from perfpilot.code.syntax import (
    line,
)
from perfpilot.rules.base import Example, RuleSpec
from perfpilot.rules.counting.pair_count import PairCount, pair_counts
from perfpilot.rules.detect.common import loop_phrase, rng
from perfpilot.rules.edits import Edit
from perfpilot.rules.finding import Finding, depth_bonus, make_finding
from perfpilot.rules.rewrite_input import (
    Left,
    Planned,
    RuleInput,
    line_indent,
    newline_of,
)

RULE_ID = "pair-count-sort"


def _test(found: PairCount) -> str:
    v = found.seq
    if found.op == "==":
        return f"{v}[i] == {v}[j]"
    return f"{v}[i] + {v}[j] {found.op} {found.limit}"


def _how(found: PairCount) -> str:
    if found.op == "==":
        return "add k·(k-1)/2 for each run of k equal values"
    return "count with two pointers (for each smaller element, the partners that pass " \
        "form one run)"


def detect(facts: FunctionFacts) -> Iterator[Finding]:
    """Double loops that count the pairs of one sequence whose sum passes a fixed limit."""
    for index, found in pair_counts(facts):
        if isinstance(found, str):
            continue
        lp = facts.loops[index]
        yield make_finding(
            RULE_ID,
            f"{loop_phrase(lp)} tests every pair of `{found.seq}` (`{_test(found)}`, line "
            f"{line(found.test)}) to count them into `{found.counter}`: O(n²). The count "
            f"depends only on the values, so sort a copy and {_how(found)}: O(n log n).",
            [lp.line, line(found.test)],
            loop_range=lp.byte_range, node_range=(found.test.start_byte, found.test.end_byte),
            # the inner loop that tries every partner is what the sort replaces
            claims=[rng(facts.children_of(lp)[0].node)],
            names=[found.counter, found.seq],
            proof=found,
            bonus=depth_bonus(lp.depth + 1),
        )


def _replacement(found: PairCount, names: tuple[str, str, str], indent: str, nl: str) -> str:
    s, lo, hi = names
    step = "    "
    if found.container:
        copy = f"{found.seq}.begin(), {found.seq}.begin() + {found.bound}"
        if found.bound.replace(" ", "") == f"{found.seq}.size()":
            copy = f"{found.seq}.begin(), {found.seq}.end()"
    else:
        copy = f"{found.seq}, {found.seq} + {found.bound}"
    c = found.counter
    # every ordered pair (the square): each unordered pair twice
    chunk = f"2 * ({hi} - {lo})" if found.square else f"{hi} - {lo}"
    head = [
        f"if ({found.bound} >= 2) {{",
        f"{step}std::vector<{found.element}> {s}({copy});",
        f"{step}std::sort({s}.begin(), {s}.end());",
    ]
    if found.op == "==":
        # a run of k equal values holds k * (k - 1) / 2 pairs of positions
        run = f"({hi} - {lo})"
        pairs = f"{run} * ({run} - 1)" if found.square else f"{run} * ({run} - 1) / 2"
        body = [
            f"{step}for (std::size_t {lo} = 0, {hi} = 0; {lo} < {s}.size(); {lo} = {hi}) {{",
            f"{step}{step}while ({hi} < {s}.size() && {s}[{hi}] == {s}[{lo}]) ++{hi};",
            f"{step}{step}{c} += static_cast<decltype({c})>({pairs});",
            f"{step}}}",
        ]
        return (nl + indent).join([head[0],
                                   f"{step}// The same count over a sorted copy: equal "
                                   "values form runs.", *head[1:], *body, "}"])
    add = f"{c} += static_cast<decltype({c})>({chunk});"
    if found.op in ("<", "<="):
        # the pairs (k, hi) for lo < k < hi pass too when (lo, hi) does: count them, move lo
        hit, miss = f"{add} ++{lo};", f"--{hi};"
    else:
        # the pairs (k, hi) for lo <= k < hi pass when (lo, hi) does: count them, drop hi
        hit, miss = f"{add} --{hi};", f"++{lo};"
    lines = [
        head[0],
        f"{step}// The same count over a sorted copy: only the values matter. Each sum below "
        "is of two",
        f"{step}// different positions, a sum the double loop also computed, so no new "
        "overflow.",
        *head[1:],
        f"{step}std::size_t {lo} = 0, {hi} = {s}.size() - 1;",
        f"{step}while ({lo} < {hi}) {{",
        f"{step}{step}if ({s}[{lo}] + {s}[{hi}] {found.op} {found.limit}) {{ {hit} }}",
        f"{step}{step}else {{ {miss} }}",
        f"{step}}}",
        "}",
    ]
    return (nl + indent).join(lines)


def fix(inp: RuleInput, finding: Finding) -> Planned | Left:
    """Replace the pair-count nest the finding proved with a sort and a two-pointer (or
    run-length) count."""
    found = finding.proof
    assert isinstance(found, PairCount)
    node = found.loop
    names = (inp.fresh_name("sorted_" + found.seq), inp.fresh_name("lo"), inp.fresh_name("hi"))
    _, indent = line_indent(inp.data, node)
    text = _replacement(found, names, indent, newline_of(inp.text))
    return Planned(
        (Edit(node.start_byte, node.end_byte, text, RULE_ID),),
        f"The double loop at line {inp.line_of(node)} counted the pairs of '{found.seq}' "
        f"with {_test(found)} in O(n²); it now sorts a copy and counts them in "
        f"O(n log n) ({_how(found)}), adding the same number to '{found.counter}'.",
        (node,), ("<algorithm>", "<vector>"))


RULE = RuleSpec(
    id=RULE_ID,
    detect=detect,
    fix=fix,
    rewrites_as=frozenset({RULE_ID}),
    phase=0,  # it replaces the whole nest: later phases see the new loop
    order=6,
    examples=(
        Example("cpp", """
#include <vector>
long pairs_below(const std::vector<int>& v, int limit) {
    long c = 0;
    for (std::size_t i = 0; i < v.size(); ++i)
        for (std::size_t j = i + 1; j < v.size(); ++j)
            if (v[i] + v[j] < limit) ++c;
    return c;
}
""", "pairs_below"),
        Example("cpp", """
int pairs_at_least(const long* a, int n, long t) {
    int count = 0;
    for (int i = 0; i < n; i++) {
        for (int j = i + 1; j < n; j++) {
            if (t <= a[j] + a[i]) count += 1;
        }
    }
    return count;
}
""", "pairs_at_least"),
        Example("cpp", """
#include <vector>
long long equal_pairs(const std::vector<unsigned>& v) {
    long long same = 0;
    for (int i = 0; i < (int)v.size(); ++i)
        for (int j = 0; j < (int)v.size(); ++j)
            if (i != j && v[i] == v[j]) same++;
    return same;
}
""", "equal_pairs"),
    ),
)
