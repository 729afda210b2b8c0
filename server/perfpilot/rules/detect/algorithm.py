"""Algorithm Design Optimization: quadratic searches and recursion that recomputes subproblems."""

from __future__ import annotations

from collections.abc import Iterator

from perfpilot.code.facts import FunctionFacts
from perfpilot.code.parse import statements, unwrap
from perfpilot.code.syntax import (
    Node,
    arguments,
    callee,
    identifiers,
    line,
    operator,
    receiver,
    root_name,
    text,
)
from perfpilot.rules.detect.common import code, loop_phrase, rng
from perfpilot.rules.finding import Finding, make_finding

# Free functions that scan a whole range each time they are called.
LINEAR_SCANS = frozenset({
    "find", "find_if", "find_if_not", "count", "count_if", "min_element", "max_element",
    "accumulate", "any_of", "all_of", "none_of", "search", "lfind", "strstr",
})


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
