"""The std-algorithm rule: manual sum, max/min, copy and fill loops."""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

from perfpilot.code.facts import FunctionFacts, Loop
from perfpilot.code.syntax import (
    Node,
    identifiers,
    node_text,
    number,
    operator,
    root_name,
    statements,
    unwrap,
)
from perfpilot.rules.base import Example, RuleSpec
from perfpilot.rules.detect.common import code, cpp, loop_phrase, trip_count
from perfpilot.rules.finding import Finding, Proof, make_finding


@dataclass(frozen=True)
class HandWrittenLoop(Proof):
    """A counted innermost loop whose one statement is a hand-written ``kind`` (copy, fill,
    sum, maximum or minimum search) over ``arrays``, its trip count, and the library call
    that says the same."""

    loop: Node
    statement: Node
    kind: str
    arrays: tuple[str, ...]
    count: str
    call: str


_CONTAINER = re.compile(r"^(?:std::)?(?:vector|array|deque|basic_string|string|valarray)\b")


def _indexed(node: Node | None, var: str) -> str | None:
    """``a`` when ``node`` is ``a[var]``."""
    node = unwrap(node)
    if node is None or node.type != "subscript_expression":
        return None
    idx = node.child_by_field_name("indices") or node.child_by_field_name("index")
    base = node.child_by_field_name("argument")
    if node_text(idx).strip("[] ") != var or base is None or base.type != "identifier":
        return None
    return node_text(base)


def std_algorithm(facts: FunctionFacts) -> Iterator[Finding]:
    """Manual sum, max/min, copy and fill loops."""
    for loop in facts.loops:
        if not loop.counted or loop.var is None or not loop.innermost:
            continue
        stmts = statements(loop.body)
        if len(stmts) != 1:
            continue
        hit = _classify(facts, loop, stmts[0])
        if hit is None:
            continue
        kind, arrays, suggestion = hit
        n = trip_count(loop) or "n"
        call = _fill(facts, suggestion, n, arrays)
        yield make_finding(
            "std-algorithm",
            f"{loop_phrase(loop)} is a hand-written {kind} of "
            f"{', '.join(f'`{a}`' for a in arrays)} (`{code(stmts[0])}`): "
            f"{call} states the intent and uses "
            f"the library's optimized implementation.",
            [loop.line, int(stmts[0].start_point[0]) + 1],
            loop_range=loop.byte_range, names=arrays,
            proof=HandWrittenLoop(loop.node, stmts[0], kind, tuple(arrays), n,
                                  call.strip("`")),
        )


def _fill(facts: FunctionFacts, template: str, n: str, arrays: list[str]) -> str:
    """Fill ``{a0}``/``{a1}`` (``{b0}``/``{b1}``): the range of the first (last) array, as
    iterators for containers and as pointers otherwise; ``{a}``, ``{b}``, ``{n}`` plainly."""
    out = template.replace("{n}", n)
    for key, name in (("a", arrays[0]), ("b", arrays[-1])):
        v = facts.var(name)
        count = n if n.replace("_", "").isalnum() else f"({n})"
        if v is not None and not v.pointer and not v.array and _CONTAINER.match(v.base):
            first = f"{name}.begin()"
            last = f"{name}.end()" if n == f"{name}.size()" else f"{first} + {count}"
        else:
            first, last = name, f"{name} + {count}"
        out = out.replace(f"{{{key}0}}", first).replace(f"{{{key}1}}", last)
        out = out.replace(f"{{{key}}}", name)
    return out


def _classify(facts: FunctionFacts, loop: Loop, stmt: Node
              ) -> tuple[str, list[str], str] | None:
    var = loop.var or ""
    start = code(loop.init, 40) if loop.init is not None else ""
    if start != "0" or loop.compare not in ("<", "!="):
        return None
    if stmt.type == "expression_statement" and stmt.named_children:
        e = stmt.named_children[0]
        if e.type != "assignment_expression":
            return None
        left, right = e.child_by_field_name("left"), e.child_by_field_name("right")
        op = operator(e)
        dst = _indexed(left, var)
        if op == "=" and dst is not None:
            src = _indexed(right, var)
            if src is not None and src != dst:
                fix = ("`std::copy({b0}, {b1}, {a0})`" if cpp(facts)
                       else "`memcpy({a}, {b}, ({n}) * sizeof *{a})`")
                return "copy", [dst, src], fix
            value = unwrap(right)
            if value is not None and var not in identifiers(value) and \
                    value.type in ("number_literal", "identifier", "char_literal"):
                if cpp(facts):
                    return "fill", [dst], "`std::fill({a0}, {a1}, " + node_text(value) + ")`"
                if number(value) == 0:
                    return "fill", [dst], "`memset({a}, 0, ({n}) * sizeof *{a})`"
            return None
        if op == "+=" and left is not None and left.type == "identifier" and cpp(facts):
            src = _indexed(right, var)
            if src is not None:
                acc = node_text(left)
                return "sum", [src], f"`{acc} = std::accumulate({{a0}}, {{a1}}, {acc})`"
        return None
    if stmt.type == "if_statement" and cpp(facts):
        cond = unwrap(stmt.child_by_field_name("condition"))
        body = statements(stmt.child_by_field_name("consequence"))
        if cond is None or cond.type != "binary_expression" or len(body) != 1 or \
                stmt.child_by_field_name("alternative") is not None:
            return None
        cmp = operator(cond)
        if cmp not in (">", "<", ">=", "<="):
            return None
        sides = [cond.child_by_field_name("left"), cond.child_by_field_name("right")]
        arr = next((a for a in (_indexed(s, var) for s in sides) if a), None)
        asg = body[0].named_children[0] if body[0].named_children else None
        if arr is None or asg is None or asg.type != "assignment_expression":
            return None
        target = root_name(asg.child_by_field_name("left"))
        if target is None or _indexed(asg.child_by_field_name("right"), var) != arr:
            return None
        want_max = (cmp in (">", ">=")) == (_indexed(sides[0], var) is not None)
        algo = "max_element" if want_max else "min_element"
        return ("maximum search" if want_max else "minimum search"), [arr], \
            f"`*std::{algo}({{a0}}, {{a1}})`"
    return None


RULE = RuleSpec(
    id="std-algorithm",
    detect=std_algorithm,
    examples=(
        Example("cpp", """
void copy(int *dst, const int *src, int n) {
    for (int i = 0; i < n; ++i) dst[i] = src[i];
}
""", "copy"),
        Example("cpp", """
#include <vector>
void reset(std::vector<double> &v) {
    for (size_t i = 0; i < v.size(); ++i) v[i] = 1.5;
}
""", "reset"),
    ),
)
