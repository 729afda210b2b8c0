"""Plans name the biggest win first: complexity changes, then parallelism, then constant
factors, by the rule table's kind of gain rather than by impact numbers alone."""

from __future__ import annotations

import asyncio

from perfpilot.code.locate import function_by_name
from perfpilot.planning.builtin import BuiltinPlanner, analyze, select
from perfpilot.progress import JobContext
from perfpilot.rules.finding import RULES, Gain, make_finding

MIXED = """
#include <cmath>
#include <vector>
double spread(const std::vector<double> &v, const std::vector<double> &w) {
    double out = 0;
    for (std::size_t i = 0; i < v.size(); ++i) {
        double total = 0;
        for (std::size_t j = 0; j < w.size(); ++j) total += w[j];
        out += pow(v[i], 2) * total;
    }
    return out;
}
"""


def _site() -> object:
    return function_by_name(MIXED, "cpp", "spread")


def test_complexity_change_comes_before_micro_fixes() -> None:
    found = analyze(_site())  # type: ignore[arg-type]
    rules = [f.rule for f in found]
    assert rules[0] == "invariant-inner-loop", rules
    assert "pow-strength" in rules
    gains = [f.gain for f in found]
    assert gains == sorted(gains)
    assert select(found)[0].rule == "invariant-inner-loop"


def test_plan_says_how_it_is_ordered() -> None:
    plan = asyncio.run(BuiltinPlanner().plan(_site(), JobContext()))  # type: ignore[arg-type]
    assert plan.strategies[0].rule == "invariant-inner-loop"
    kinds = {RULES[s.rule].gain for s in plan.strategies}
    assert Gain.COMPLEXITY in kinds and len(kinds) > 1
    assert any(n.startswith("Ordered by expected gain: the complexity change first")
               for n in plan.notes), plan.notes


def test_gain_outranks_a_larger_impact_number() -> None:
    micro = make_finding("pow-strength", "pow", [3], bonus=0.9)  # impact capped at 1.0
    big = make_finding("prefix-sum", "sums", [9])
    par = make_finding("openmp-for", "omp", [5], bonus=0.5)
    assert micro.impact > big.impact
    order = [s.rule for s in select([micro, par, big])]
    assert order == ["prefix-sum", "openmp-for", "pow-strength"]


def test_one_kind_of_gain_needs_no_note() -> None:
    src = "#include <cmath>\ndouble f(double x) { return pow(x, 2) + pow(x, 3); }\n"
    plan = asyncio.run(BuiltinPlanner().plan(function_by_name(src, "cpp", "f"), JobContext()))
    assert not any("Ordered by" in n for n in plan.notes)


def test_every_complexity_rule_is_category_algorithmic_or_data_structure() -> None:
    # the rule table, not names: complexity changes are algorithms, data structures, sorting,
    # strings and hoisting of loop-sized work
    assert {r.category_id for r in RULES.values() if r.gain == Gain.COMPLEXITY} <= {1, 2, 3, 4, 15}


def test_a_claimed_node_keeps_only_the_claiming_rules_finding() -> None:
    from perfpilot.planning.builtin.analysis import rank

    call, loop = (40, 60), (30, 90)
    generic = make_finding("linear-search-in-loop", "scan once", [5], node_range=call)
    table = make_finding("count-table", "a table of counts", [5], node_range=call,
                         claims=[call])
    hoist = make_finding("hoist-invariant-call", "hoist it", [5], node_range=call)
    outside = make_finding("linear-search-in-loop", "another scan", [7], node_range=(95, 99))
    kept = [f.rule for f in rank([generic, table, hoist, outside])]
    # The generic advice of the same category steps aside; another category's stays, and so
    # does the same advice for a node nobody claims.
    assert kept.count("linear-search-in-loop") == 1 and "count-table" in kept
    assert "hoist-invariant-call" in kept
    # A claim covers what lies inside it, and a rule never steps aside for itself.
    wide = make_finding("sorted-linear-scan", "binary search", [4], node_range=loop,
                        claims=[loop])
    assert [f.rule for f in rank([wide, generic])] == ["sorted-linear-scan"]
    own = make_finding("linear-search-in-loop", "scan", [4], node_range=loop, claims=[loop])
    assert len(rank([own, generic])) == 2
