"""Floating-point accumulators and the math calls a SIMD loop may hold, shared by the
simd-loop, simd-elementwise and accumulator-chain rules."""

from __future__ import annotations

from perfpilot.code.facts import FunctionFacts, Loop
from perfpilot.code.syntax import (
    callee,
    identifiers,
    node_text,
    operator,
    receiver,
    statements,
)

MATH_CALLS = frozenset({"sqrt", "sqrtf", "fabs", "fabsf", "abs", "exp", "log", "sin", "cos", "fmin",
                   "fmax", "min", "max"})


def fp_accumulator(facts: FunctionFacts, loop: Loop) -> tuple[str, str] | None:
    """``(var, op)`` when an innermost counted loop accumulates into a float/double scalar."""
    if not loop.innermost or not loop.counted or loop.body is None:
        return None
    stmts = statements(loop.body)
    if not stmts or any(s.type not in ("expression_statement", "declaration") for s in stmts):
        return None
    if any(callee(c) not in MATH_CALLS or receiver(c) is not None
           for c in facts.nodes("call_expression", loop.body)):
        return None
    for a in facts.nodes("assignment_expression", loop.body):
        op = operator(a)
        left = a.child_by_field_name("left")
        if left is None or left.type != "identifier" or op not in ("+=", "*=", "-="):
            continue
        v = facts.var(node_text(left))
        if v is None or not v.is_float or v.pointer or v.array or \
                v.name in facts.declared_in(loop.node):
            continue
        if loop.var not in identifiers(a.child_by_field_name("right")):
            continue
        return node_text(left), "*" if op == "*=" else "+"
    return None


