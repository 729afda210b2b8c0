"""The range-count-query rule: a loop that counts, for each query, the elements of an unchanged
integer sequence between two bounds (``std::count_if`` with a lambda testing both, or a
hand-written scan) does O(n·m) comparisons.

Rewrite: a copy sorted once before the loop; each count is the distance between the positions
of the two bounds (0 when they cross). Shapes and proof: ``ordered_count.py``; the code is
shared with cross-pair-count (``cross_pair_count.py``).
"""

from __future__ import annotations

from collections.abc import Iterator

from perfpilot.code.facts import FunctionFacts
from perfpilot.rules.base import Example, RuleSpec
from perfpilot.rules.counting.cross_pair_count import (
    RANGES,
    detect_counts,
    fix_counts,
    refusal_notes,
)
from perfpilot.rules.finding import Finding
from perfpilot.rules.rewrite_input import Left, Planned, RuleInput


def detect(facts: FunctionFacts) -> Iterator[Finding]:
    """Counts, per query, of the elements of a sequence between two bounds."""
    yield from detect_counts(RANGES, facts)


def fix(inp: RuleInput, finding: Finding) -> Planned | Left:
    """Replace per-query range counts over a sequence with binary searches on a sorted copy."""
    return fix_counts(RANGES, inp, finding)


def refused(inp: RuleInput) -> list[str]:
    """A note for each candidate refused."""
    return refusal_notes(RANGES, inp)


RULE = RuleSpec(
    id=RANGES,
    detect=detect,
    fix=fix,
    refused=refused,
    rewrites_as=frozenset({RANGES}),
    phase=0,
    order=8,
    examples=(
        Example("cpp", """
#include <algorithm>
#include <utility>
#include <vector>
int count_in_ranges(const std::vector<int>& v, const std::vector<std::pair<int, int>>& qs) {
    int hits = 0;
    for (auto& q : qs)
        hits += std::count_if(v.begin(), v.end(),
                              [&](int x) { return x >= q.first && x <= q.second; });
    return hits;
}
""", "count_in_ranges"),
        Example("cpp", """
#include <vector>
std::vector<int> per_query(const std::vector<int>& v, const std::vector<int>& lo,
                           const std::vector<int>& hi) {
    std::vector<int> out;
    for (std::size_t k = 0; k < lo.size(); ++k) {
        int n = 0;
        for (std::size_t j = 0; j < v.size(); ++j)
            if (v[j] >= lo[k] && v[j] < hi[k]) ++n;
        out.push_back(n);
    }
    return out;
}
""", "per_query"),
    ),
)
