"""``simd`` and unroll variants of a candidate: a pragma more on loops of a shape it suits.

``simd`` lets the compiler run several iterations of a loop in the lanes of one vector
instruction. On an OpenMP work-sharing loop (iterations OpenMP already runs in any order) whose
body is straight-line arithmetic (expressions and declarations only, calls only to functions
without side effects, no nested loop, no jump), ``parallel for`` becomes ``parallel for simd``
with its clauses kept: a reduction clause already lets the sum be regrouped. On a serial
candidate, the innermost counted loop of that shape gets ``#pragma omp simd`` only when the
loop analysis proves its iterations independent, any accumulation is into an integer (exact in
any grouping: a floating sum would be regrouped, which the serial code never allowed), no
parameters it writes and reads may overlap, and the build honours the pragma without the
OpenMP runtime (``-fopenmp`` or ``-fopenmp-simd`` in the project's flags; elsewhere the
compiler would ignore it and the variant would race a copy of itself).

Unrolling (``#pragma GCC unroll N``, a spelling GCC and Clang both read) repeats the body of
an innermost counted loop N times per test of the condition; it never changes what the loop
computes, floating-point results included. Only a straight-line body is unrolled: with calls or
branches in it, the condition tests saved are noise. It is offered on serial candidates only: on a
parallel one the pragma could not sit between an OpenMP directive and its loop.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from perfpilot.code.effects import NO_SIDE_EFFECTS
from perfpilot.code.loops import LoopFacts, all_loops
from perfpilot.code.syntax import (
    Node,
    node_text,
    walk,
)
from perfpilot.optimizing.builtin.variant_schedule import WORKSHARE
from perfpilot.rules.edits import Edit, apply_edits
from perfpilot.rules.emit import relative_text, replace_statement
from perfpilot.rules.parallel.openmp import overlaps
from perfpilot.rules.rewrite_input import RuleInput, loop_node, newline_of

# The unroll factors raced.
UNROLLS: tuple[int, ...] = (4, 8)

# Statements a straight-line body may hold; expressions that are more than arithmetic.
_STRAIGHT = frozenset({"expression_statement", "declaration", "compound_statement", "comment"})
_NOT_ARITHMETIC = frozenset({"lambda_expression", "new_expression", "delete_expression",
                             "throw_statement", "co_await_expression", "gnu_asm_expression",
                             "statement_expression"})
# Clauses a work-sharing loop may keep under ``simd`` (``if``, ``ordered``, ``collapse``,
# ``linear`` and the rest change what simd means, or need a version check: left alone).
_SIMD_CLAUSES = frozenset({"reduction", "private", "firstprivate", "lastprivate", "schedule",
                           "nowait", "shared", "default"})
_CLAUSE = re.compile(r"([A-Za-z_]\w*)\s*(\((?:[^()]|\([^()]*\))*\))?")
_OMP_FOR = re.compile(r"(#[ \t]*pragma[ \t]+omp[ \t]+(?:parallel[ \t]+)?for)\b")
# Integer reductions ``omp simd`` may carry: exact in any grouping.
_SIMD_OPS = frozenset({"+", "*", "min", "max"})


def straight_line(body: Node | None) -> bool:
    """Whether a loop body is straight-line arithmetic: expression statements and
    declarations only (blocks of them too), calls only to functions without side effects
    (unqualified or ``std::``), no lambda, allocation or assembly."""
    if body is None:
        return False
    stack = [body]
    while stack:
        s = stack.pop()
        if s.type not in _STRAIGHT:
            return False
        if s.type == "compound_statement":
            stack.extend(s.named_children)
    for n in walk(body):
        if n.type in _NOT_ARITHMETIC:
            return False
        if n.type == "call_expression":
            fn = n.child_by_field_name("function")
            name = node_text(fn)
            plain = name[5:] if name.startswith("std::") else name
            if fn is None or plain not in NO_SIDE_EFFECTS or not re.fullmatch(r"\w+", plain):
                return False
    return True


def _pragma_before(node: Node) -> Node | None:
    """The preprocessor line right before ``node`` in its block, if any."""
    prev = node.prev_sibling
    return prev if prev is not None and prev.type.startswith("preproc") else None


def _simd_clauses_ok(clauses: str) -> bool:
    """Whether every clause of a work-sharing pragma may stay under ``simd`` (reductions over
    whole variables only: an array section in a simd reduction needs a recent compiler)."""
    rest = clauses.strip()
    while rest:
        m = _CLAUSE.match(rest)
        if m is None or m.group(1) not in _SIMD_CLAUSES:
            return False
        if m.group(1) == "reduction" and "[" in (m.group(2) or ""):
            return False
        rest = rest[m.end():].lstrip(" \t,")
    return True


def _reduced(clauses: str) -> set[str]:
    """The variables a pragma's reduction clauses name."""
    return {v.strip() for m in re.finditer(r"\breduction\s*\(\s*[^:]*:([^)]*)\)", clauses)
            for v in m.group(1).split(",")}


def parallel_simd(inp: RuleInput) -> str | None:
    """``inp``'s text with ``simd`` added to each work-sharing pragma whose loop is
    straight-line with iterations the loop analysis proves independent (any accumulation in
    the pragma's reduction clause), or None when no pragma qualifies. The analysis is asked
    again because a loop of a parallel region may rely on copies each thread keeps (a
    histogram per thread), which the lanes of one thread would share."""
    facts = {lp.start_byte: lp for lp in all_loops(inp.loops)}
    edits: list[Edit] = []
    for n in walk(inp.function):
        if n.type != "preproc_call":
            continue
        line = node_text(n).rstrip("\r\n")
        m = WORKSHARE.fullmatch(line)
        loop = n.next_named_sibling
        lp = facts.get(loop.start_byte) if loop is not None else None
        if m is None or loop is None or lp is None or loop.type != "for_statement" or \
                not lp.independent or lp.arg_reductions or \
                not {v for _op, v in lp.reductions} <= _reduced(m.group("clauses")) or \
                not _simd_clauses_ok(m.group("clauses")) or \
                not straight_line(loop.child_by_field_name("body")):
            continue
        new = _OMP_FOR.sub(r"\1 simd", line, count=1)
        edits.append(Edit(n.start_byte, n.start_byte + len(line.encode("utf-8")), new, "simd"))
    return apply_edits(inp.text, edits) if edits else None


def pragma_edit(inp: RuleInput, node: Node, pragma: str) -> Edit | None:
    """An edit putting ``pragma`` on its own line right above the loop ``node``: inserted in
    its block, or with braces around both where the loop is the lone body of a statement.
    None where another preprocessor line already binds to the loop."""
    data = inp.data
    nl = newline_of(inp.text)
    parent = node.parent
    if parent is None or _pragma_before(node) is not None:
        return None
    line_start = data.rfind(b"\n", 0, node.start_byte) + 1
    lead = data[line_start:node.start_byte]
    if parent.type == "compound_statement":
        if lead.strip() == b"":
            return Edit(line_start, line_start, f"{lead.decode('utf-8')}{pragma}{nl}", "pragma")
        return Edit(node.start_byte, node.start_byte, f"{nl}{pragma}{nl}", "pragma")
    if parent.type not in ("for_statement", "while_statement", "do_statement", "if_statement",
                           "else_clause", "for_range_loop"):
        return None
    # the loop becomes a block holding the pragma and the loop, braced as the file braces
    made = replace_statement(inp, node, [pragma, relative_text(inp, node)], "pragma")
    return made


def _innermost_counted(inp: RuleInput) -> list[tuple[LoopFacts, Node]]:
    """Innermost counted ``for`` loops with their nodes, in source order."""
    out: list[tuple[LoopFacts, Node]] = []
    for lp in all_loops(inp.loops):
        if lp.kind != "for" or not lp.counted or lp.children:
            continue
        node = loop_node(inp, lp)
        if node is not None:
            out.append((lp, node))
    return out


def _with_pragmas(inp: RuleInput, pragmas: Sequence[tuple[Node, str]]) -> str | None:
    edits = [e for node, pragma in pragmas if (e := pragma_edit(inp, node, pragma)) is not None]
    return apply_edits(inp.text, edits) if edits else None


def unrolled(inp: RuleInput, factor: int) -> str | None:
    """``inp``'s text with ``#pragma GCC unroll factor`` above each innermost counted loop
    with a straight-line body (no other pragma bound to it), or None when there is none."""
    return _with_pragmas(inp, [(node, f"#pragma GCC unroll {factor}")
                               for _lp, node in _innermost_counted(inp)
                               if straight_line(node.child_by_field_name("body"))])


def _may_overlap(inp: RuleInput, lp: LoopFacts) -> bool:
    """Whether an array the loop writes could be another one it touches so that vector lanes
    see each other's stores: pointers and views of compatible element types, or a pointer or
    view into a container (``code/storage_type.py``), which may overlap at any offset (unless
    ``restrict`` rules it out), or references to one type touched at other indices than
    written (one object passed twice; at the same indices each lane keeps to its own
    element)."""
    ov = overlaps(inp.site.params, inp.types, lp, inp.global_names)
    return bool(ov.pointers or ov.references)


def serial_simd_pragma(inp: RuleInput, lp: LoopFacts, node: Node) -> str | None:
    """The ``#pragma omp simd`` (with its clauses) for one innermost counted loop of a serial
    candidate, or None when the loop does not qualify (see the module docstring)."""
    if not lp.independent or lp.arg_reductions or lp.has_io or \
            not straight_line(node.child_by_field_name("body")) or _may_overlap(inp, lp):
        return None
    clauses = ""
    for op, var in lp.reductions:
        vt = inp.types.get(var)
        if op not in _SIMD_OPS or vt is None or not vt.is_integral:
            return None
        clauses += f" reduction({op}:{var})"
    if lp.private_vars:
        clauses += f" private({','.join(lp.private_vars)})"
    return f"#pragma omp simd{clauses}"


def serial_simd(inp: RuleInput) -> str | None:
    """``inp``'s text with ``#pragma omp simd`` above each innermost counted loop that
    qualifies, or None when none does."""
    pragmas: list[tuple[Node, str]] = []
    for lp, node in _innermost_counted(inp):
        pragma = serial_simd_pragma(inp, lp, node)
        if pragma is not None:
            pragmas.append((node, pragma))
    return _with_pragmas(inp, pragmas)
