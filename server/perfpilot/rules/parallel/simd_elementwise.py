"""The simd-elementwise rule: an innermost loop computing floating-point elements ``y[i] = f(x[i],
...)``.
"""

from __future__ import annotations

from collections.abc import Iterator

from perfpilot.code.facts import FunctionFacts
from perfpilot.code.syntax import (
    callee,
    node_text,
    receiver,
    root_name,
    statements,
)
from perfpilot.rules.base import Example, RuleSpec
from perfpilot.rules.detect.common import loop_phrase
from perfpilot.rules.detect.floating import MATH_CALLS, fp_accumulator
from perfpilot.rules.finding import Finding, depth_bonus, make_finding
from perfpilot.rules.parallel.openmp import overlaps
from perfpilot.rules.parallel.simd_loop import SimdPragma
from perfpilot.rules.parallel.simd_safety import simd_blocker


def simd_elementwise(facts: FunctionFacts) -> Iterator[Finding]:
    """An innermost loop computing floating-point elements ``y[i] = f(x[i], ...)``."""
    for loop in facts.loops:
        if not loop.innermost or not loop.counted or loop.body is None or loop.var is None:
            continue
        if fp_accumulator(facts, loop) is not None:
            continue  # the reduction form is reported by simd-loop
        stmts = statements(loop.body)
        if not stmts or any(s.type != "expression_statement" for s in stmts):
            continue
        if any(callee(c) not in MATH_CALLS or receiver(c) is not None
               for c in facts.nodes("call_expression", loop.body)):
            continue
        targets: list[str] = []
        for s in stmts:
            e = s.named_children[0] if s.named_children else None
            left = e.child_by_field_name("left") if e is not None and \
                e.type == "assignment_expression" else None
            v = facts.var(root_name(left))
            idx = (left.child_by_field_name("indices") or left.child_by_field_name("index")) \
                if left is not None and left.type == "subscript_expression" else None
            if v is None or not v.is_float or idx is None or \
                    node_text(idx).strip("[] ") != loop.var:
                targets = []
                break
            targets.append(v.name)
        if not targets or simd_blocker(loop.node, loop.body, loop.var,
                                       1 if loop.step == "++" else -1, facts.loop_types):
            continue
        # arrays a caller may pass overlapping (a pointer into a container too): the pragma
        # would then promise what the caller breaks
        ov = overlaps(facts.site.params, facts.loop_types, facts.loop_facts(loop))
        shared = sorted({*ov.pointers, *(n for pair in ov.references for n in pair)})
        caveat = (f", but only if callers never pass {', '.join(f'`{n}`' for n in shared)} "
                  "overlapping (the lanes would then see each other's stores)"
                  if shared else "")
        yield make_finding(
            "simd-loop",
            f"{loop_phrase(loop)} computes each `{targets[0]}[{loop.var}]` independently from "
            f"floating-point data, a natural fit for the vector units (4-16 elements per "
            f"instruction): mark it `#pragma omp simd` (build with `-fopenmp-simd`, and "
            f"`-march=native` to use the widest vectors) so it vectorizes even where the "
            f"compiler cannot prove the arrays independent{caveat}.",
            [loop.line],
            loop_range=loop.byte_range, node_range=loop.byte_range, names=sorted(set(targets)),
            proof=SimdPragma(loop.node, "#pragma omp simd", targets[0], ""),
            bonus=depth_bonus(loop.depth) - 0.05,
        )


RULE = RuleSpec(
    id="simd-elementwise",
    detect=simd_elementwise,
    finds=frozenset({"simd-loop"}),
    examples=(
        Example("c", """
void axpby(float *out, const float *x, const float *y, float alpha, float beta, int n) {
    for (int i = 0; i < n; i++)
        out[i] = alpha * x[i] + beta * y[i];
}
""", "axpby"),
    ),
)
