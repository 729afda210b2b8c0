"""The prefix-sum rule: a loop summing a range of an unchanged array, re-run for every outer
iteration.
"""

from __future__ import annotations

from collections.abc import Iterator

from perfpilot.code.facts import FunctionFacts
from perfpilot.code.parse import statements, unwrap
from perfpilot.code.syntax import (
    identifiers,
    line,
    operator,
    root_name,
    text,
)
from perfpilot.rules.base import Example, RuleSpec
from perfpilot.rules.detect.common import loop_phrase, rng
from perfpilot.rules.finding import Finding, make_finding


def prefix_sum(facts: FunctionFacts) -> Iterator[Finding]:
    """A loop summing a range of an unchanged array, re-run for every outer iteration."""
    for inner in facts.loops:
        if inner.parent is None or not inner.counted or inner.var is None or \
                not inner.innermost:
            continue
        stmts = statements(inner.body)
        if len(stmts) != 1 or stmts[0].type != "expression_statement" or \
                not stmts[0].named_children:
            continue
        e = stmts[0].named_children[0]
        if e.type != "assignment_expression" or operator(e) != "+=":
            continue
        value = unwrap(e.child_by_field_name("right"))
        if value is None or value.type != "subscript_expression":
            continue
        idx = value.child_by_field_name("indices") or value.child_by_field_name("index")
        array = root_name(value)
        if array is None or text(idx).strip("[] ") != inner.var:
            continue
        outer = facts.loops[inner.parent]
        if array in facts.modified_in(outer.node):
            continue
        # bounds the outer loop never changes sum the same range every time: that is a
        # loop-invariant computation (invariant-inner-loop), not a range query
        changed = facts.modified_in(outer.node) | facts.declared_in(outer.node)
        header = identifiers(inner.init) | identifiers(inner.condition)
        if not (header - {inner.var}) & (changed | {outer.var} if outer.var else changed):
            continue
        acc = text(e.child_by_field_name("left"))
        yield make_finding(
            "prefix-sum",
            f"{loop_phrase(inner)} adds up `{array}[{inner.var}]` over a range again on every "
            f"iteration of {loop_phrase(outer)}, O(n) per query; `{array}` does not change, so "
            f"build prefix sums once (`p[k + 1] = p[k] + {array}[k]`) and get each range sum "
            f"as `p[hi + 1] - p[lo]` in O(1).",
            [line(e), inner.line, outer.line],
            loop_range=outer.byte_range, node_range=rng(inner.node), names=[array, acc],
            data={"array": array, "acc": acc},
            bonus=-0.02,
        )


RULE = RuleSpec(
    id="prefix-sum",
    detect=prefix_sum,
    examples=(
        Example("c", """
long long total(const int *a, const int *lo, const int *hi, int q) {
    long long all = 0;
    for (int k = 0; k < q; k++) {
        long long s = 0;
        for (int i = lo[k]; i <= hi[k]; i++)
            s += a[i];
        all += s;
    }
    return all;
}
""", "total"),
    ),
)
