"""Compiler Configuration, Hardware-Aware: aliasing that blocks vectorization, SIMD reductions."""

from __future__ import annotations

from collections.abc import Iterator

from perfpilot.code.facts import FunctionFacts, Loop
from perfpilot.code.parse import statements
from perfpilot.code.syntax import (
    callee,
    identifiers,
    line,
    operator,
    receiver,
    root_name,
    text,
)
from perfpilot.rules.detect.common import ARITH, code, loop_phrase, rng
from perfpilot.rules.finding import Finding, depth_bonus, make_finding

_MATH = frozenset({"sqrt", "sqrtf", "fabs", "fabsf", "abs", "exp", "log", "sin", "cos", "fmin",
                   "fmax", "min", "max"})


def restrict_alias(facts: FunctionFacts) -> Iterator[Finding]:
    """Two or more arithmetic pointer parameters, one written in a loop, none ``restrict``."""
    ptrs = [p for p in facts.site.params
            if p.pointer == 1 and p.base in ARITH and "restrict" not in p.type_text]
    if len(ptrs) < 2:
        return
    names = {p.name for p in ptrs}
    for loop in facts.loops:
        if not loop.innermost or loop.body is None:
            continue
        written = []
        for a in facts.nodes("assignment_expression", loop.body):
            left = a.child_by_field_name("left")
            r = root_name(left)
            if r in names and left is not None and left.type in ("subscript_expression",
                                                                 "pointer_expression"):
                written.append((r, a))
        if not written:
            continue
        read = sorted((identifiers(loop.body) & names) - {w for w, _ in written})
        wname, wnode = written[0]
        others = read or sorted(names - {wname})
        if not others:
            continue
        kw = "restrict" if facts.language == "c" else "__restrict__"
        t = next(p for p in ptrs if p.name == wname)
        yield make_finding(
            "restrict-alias",
            f"{loop_phrase(loop)} writes `{code(wnode.child_by_field_name('left'))}` (line "
            f"{line(wnode)}) through the `{t.base} *` parameter `{wname}` while "
            f"{', '.join(f'`{o}`' for o in others)} may point into the same memory, so the "
            f"compiler must assume overlap and either skips vectorization or adds runtime "
            f"checks: declare the pointers `{kw}` (if callers never pass overlapping arrays) "
            f"and build with `-O3 -march=native`.",
            [line(wnode), loop.line],
            loop_range=loop.byte_range, node_range=rng(wnode),
            names=[wname, *others],
            data={"params": ",".join(p.name for p in ptrs), "keyword": kw},
            bonus=depth_bonus(loop.depth),
        )
        return


def simd_loop(facts: FunctionFacts) -> Iterator[Finding]:
    """An innermost loop that sums floating-point values: not vectorized without reassociation."""
    for loop in facts.loops:
        acc = _fp_accumulator(facts, loop)
        if acc is None:
            continue
        var, op = acc
        yield make_finding(
            "simd-loop",
            f"{loop_phrase(loop)} accumulates into the floating-point `{var}` "
            f"(line {loop.line}); GCC will not reorder floating-point additions, so this "
            f"reduction runs one element at a time instead of 4-8 per vector instruction: add "
            f"`#pragma omp simd reduction({op}:{var})` before the loop (build with "
            f"`-fopenmp-simd`) to allow the vector units to split the sum.",
            [loop.line],
            loop_range=loop.byte_range, node_range=loop.byte_range, names=[var],
            data={"pragma": f"#pragma omp simd reduction({op}:{var})", "var": var, "op": op},
            bonus=depth_bonus(loop.depth),
        )


def accumulator_chain(facts: FunctionFacts) -> Iterator[Finding]:
    """One floating-point accumulator in an innermost loop: a serial chain of dependent adds."""
    for loop in facts.loops:
        acc = _fp_accumulator(facts, loop)
        if acc is None:
            continue
        var, op = acc
        yield make_finding(
            "accumulator-chain",
            f"Every iteration of {loop_phrase(loop)} adds into the single accumulator `{var}`, "
            f"so each addition waits for the previous one (a dependency chain of 3-4 cycles per "
            f"element): keep 4 independent partial sums (`{var}0`..`{var}3`, unrolling by 4) "
            f"and combine them after the loop, so the additions overlap in the pipeline.",
            [loop.line],
            loop_range=loop.byte_range, node_range=loop.byte_range, names=[var],
            data={"var": var, "op": op},
            bonus=depth_bonus(loop.depth),
        )


def _fp_accumulator(facts: FunctionFacts, loop: Loop) -> tuple[str, str] | None:
    """``(var, op)`` when an innermost counted loop accumulates into a float/double scalar."""
    if not loop.innermost or not loop.counted or loop.body is None:
        return None
    stmts = statements(loop.body)
    if not stmts or any(s.type not in ("expression_statement", "declaration") for s in stmts):
        return None
    if any(callee(c) not in _MATH or receiver(c) is not None
           for c in facts.nodes("call_expression", loop.body)):
        return None
    for a in facts.nodes("assignment_expression", loop.body):
        op = operator(a)
        left = a.child_by_field_name("left")
        if left is None or left.type != "identifier" or op not in ("+=", "*=", "-="):
            continue
        v = facts.var(text(left))
        if v is None or not v.is_float or v.pointer or v.array or \
                v.name in facts.declared_in(loop.node):
            continue
        if loop.var not in identifiers(a.child_by_field_name("right")):
            continue
        return text(left), "*" if op == "*=" else "+"
    return None


def simd_elementwise(facts: FunctionFacts) -> Iterator[Finding]:
    """An innermost loop computing floating-point elements ``y[i] = f(x[i], ...)``."""
    for loop in facts.loops:
        if not loop.innermost or not loop.counted or loop.body is None or loop.var is None:
            continue
        if _fp_accumulator(facts, loop) is not None:
            continue  # the reduction form is reported by simd-loop
        stmts = statements(loop.body)
        if not stmts or any(s.type != "expression_statement" for s in stmts):
            continue
        if any(callee(c) not in _MATH or receiver(c) is not None
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
                    text(idx).strip("[] ") != loop.var:
                targets = []
                break
            targets.append(v.name)
        if not targets:
            continue
        yield make_finding(
            "simd-loop",
            f"{loop_phrase(loop)} computes each `{targets[0]}[{loop.var}]` independently from "
            f"floating-point data, a natural fit for the vector units (4-16 elements per "
            f"instruction): mark it `#pragma omp simd` (build with `-fopenmp-simd`, and "
            f"`-march=native` to use the widest vectors) so it vectorizes even where the "
            f"compiler cannot prove the arrays independent.",
            [loop.line],
            loop_range=loop.byte_range, node_range=loop.byte_range, names=sorted(set(targets)),
            data={"pragma": "#pragma omp simd", "var": targets[0], "op": ""},
            bonus=depth_bonus(loop.depth) - 0.05,
        )
