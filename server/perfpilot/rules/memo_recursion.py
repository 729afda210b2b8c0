"""The memo-recursion rule: a value-returning function calling itself 2+ times on overlapping
smaller arguments.
"""

from __future__ import annotations

from collections.abc import Iterator

from perfpilot.code.facts import FunctionFacts
from perfpilot.code.parse import unwrap
from perfpilot.code.syntax import (
    Node,
    arguments,
    callee,
    identifiers,
    line,
    operator,
    receiver,
    text,
)
from perfpilot.rules.base import Example, RuleSpec
from perfpilot.rules.detect.common import code
from perfpilot.rules.finding import Finding, make_finding


def memo_recursion(facts: FunctionFacts) -> Iterator[Finding]:
    """A value-returning function calling itself 2+ times on overlapping smaller arguments."""
    site = facts.site
    if site.return_type.strip() in ("void", "") or facts.body is None or \
            site.text.count(site.name) < 3:
        return
    params = {p.name for p in site.params}
    calls = [c for c in facts.nodes("call_expression")
             if callee(c) == site.name and receiver(c) is None
             and len(arguments(c)) == len(site.params) and site.params]
    if len(calls) < 2:
        return
    if not all(_shrinks(c, params) for c in calls):
        return
    if _has_memo(facts):
        return
    shown = ", ".join(f"`{code(c, 30)}`" for c in calls[:3])
    lines = sorted({line(c) for c in calls})
    where = ", ".join(str(n) for n in lines)
    yield make_finding(
        "memo-recursion",
        f"`{site.name}` calls itself "
        f"{'twice' if len(calls) == 2 else f'{len(calls)} times'} ({shown}, "
        f"line{'s' if len(lines) > 1 else ''} {where}) on overlapping, smaller arguments, "
        f"so the same subproblems are solved an "
        f"exponential number of times: memoize results in a table indexed by "
        f"{', '.join(f'`{p.name}`' for p in site.params)}, or compute them bottom-up in a loop.",
        lines,
        node_range=(site.start_byte, site.end_byte),
        names=[site.name, *(p.name for p in site.params)],
        data={"function": site.name},
    )


def _shrinks(call: Node, params: set[str]) -> bool:
    """Every argument is a parameter or ``param - something``; at least one is decreased."""
    decreased = False
    for arg in arguments(call):
        a = unwrap(arg)
        if a is None:
            return False
        if a.type == "identifier" and text(a) in params:
            continue
        if a.type == "binary_expression" and operator(a) == "-":
            left = a.child_by_field_name("left")
            if left is not None and left.type == "identifier" and text(left) in params:
                decreased = True
                continue
        if a.type in ("number_literal", "subscript_expression", "field_expression"):
            # constants and data values (weights, costs) do not change the subproblem shape
            if a.type == "number_literal":
                continue
            return False
        return False
    return decreased


def _has_memo(facts: FunctionFacts) -> bool:
    for p in facts.site.params:
        if (p.reference or p.pointer or p.array) and not p.const and p.reference != "&&":
            return True
    for name in identifiers(facts.body):
        v = facts.var(name)
        if v is None:
            continue
        if v.scope == "global" and (v.array or v.pointer or "map" in v.base or "vector" in v.base):
            return True
        if "static" in v.type_text:
            return True
    return any(callee(c) in ("count", "find", "contains") and receiver(c) is not None
               for c in facts.nodes("call_expression"))


RULE = RuleSpec(
    id="memo-recursion",
    detect=memo_recursion,
    examples=(
        Example("c", """
int fib(int n) {
    if (n < 2) return n;
    return fib(n - 1) + fib(n - 2);
}
""", "fib"),
        Example("cpp", """
#include <vector>
#include <algorithm>
int best(int i, int w, const std::vector<int> &wt, const std::vector<int> &val) {
    if (i < 0 || w == 0) return 0;
    int skip = best(i - 1, w, wt, val);
    if (wt[i] > w) return skip;
    return std::max(skip, val[i] + best(i - 1, w - wt[i], wt, val));
}
""", "best"),
    ),
)
