"""Histogram loops: each thread counts into its own zeroed copy of the array, and the copies
are added into the original one thread at a time after the loop (exact for integers)."""

from __future__ import annotations

from dataclasses import replace

from perfpilot.code.loops import LoopFacts
from perfpilot.rules.edits import Edit
from perfpilot.rules.parallel.histogram import HistogramLoop
from perfpilot.rules.rewrite_input import (
    Change,
    Node,
    RuleInput,
    insertion_before,
    line_indent,
    newline_of,
)

RULE = "openmp-reduction"

# A C array of at most this many elements is reduced with an OpenMP 4.5 array section
# (``reduction(+:h[:K])``), whose per-thread copies live on each thread's stack.
MAX_SECTION_LENGTH = 4096


def by_section(hl: HistogramLoop) -> bool:
    """Whether every histogram is a small C array of literal length (an array section)."""
    return all(h.c_array and h.length is not None and 0 < h.length <= MAX_SECTION_LENGTH
               for h in hl.histograms)


def section_change(inp: RuleInput, lp: LoopFacts, node: Node, hl: HistogramLoop,
                   schedule: str) -> Change:
    """``#pragma omp parallel for reduction(+:h[:K])`` above the loop."""
    sections = ",".join(f"{h.array}[:{h.length}]" for h in hl.histograms)
    pragma = f"#pragma omp parallel for reduction(+:{sections}){clauses(hl, schedule)}"
    explanation = (f"The loop over '{lp.induction}' at line {lp.line} is "
                   f"{describe(hl).replace('`', chr(39))}; '{pragma}' keeps the copies (an "
                   "OpenMP 4.5 array section).")
    return Change(RULE, (insertion_before(inp, node, pragma, RULE, order=9),), explanation,
                  (lp.line,))


def describe(hl: HistogramLoop) -> str:
    """The pattern in words, for the finding and the change."""
    names = ", ".join(f"`{h.array}`" for h in hl.histograms)
    return (f"a histogram: the only dependence between iterations is counting into {names} "
            "at computed positions; each thread counts into its own zeroed copy and the copies "
            "are added into the original after the loop (integer counts: exactly the serial "
            "result)")


def clauses(hl: HistogramLoop, schedule: str) -> str:
    """The clauses of the ``omp for`` (scalar reductions, private variables, schedule)."""
    out = ""
    by_op: dict[str, list[str]] = {}
    for op, v in hl.reductions:
        by_op.setdefault(op, []).append(v)
    out += "".join(f" reduction({op}:{','.join(vs)})" for op, vs in by_op.items())
    if hl.private_vars:
        out += f" private({','.join(hl.private_vars)})"
    return out + (f" {schedule}" if schedule else "")


def histogram_change(inp: RuleInput, lp: LoopFacts, node: Node, hl: HistogramLoop,
                     schedule: str) -> Change:
    """Wrap the loop in a parallel region with per-thread copies of each histogram."""
    data, nl = inp.data, newline_of(inp.text)
    line_start, indent = line_indent(data, node)
    head = ["{"]
    inner = ["#pragma omp parallel", "{"]
    merge = ["#pragma omp critical", "{"]
    edits: list[Edit] = []
    for h in hl.histograms:
        length = inp.fresh_name(f"{h.array}_len")
        out = inp.fresh_name(f"{h.array}_out")
        local = inp.fresh_name(f"{h.array}_local")
        k = inp.fresh_name(f"{h.array}_k")
        inp = replace(inp, taken=inp.taken | {length, out, local, k})
        if h.c_array:
            head += [f"const std::size_t {length} = sizeof({h.array}) / sizeof({h.array}[0]);",
                     f"{h.element}* const {out} = {h.array};"]
        else:
            head += [f"const std::size_t {length} = {h.array}.size();",
                     f"{h.element}* const {out} = {h.array}.data();"]
        inner.append(f"    std::vector<{h.element}> {local}({length});")
        merge += [f"    for (std::size_t {k} = 0; {k} < {length}; ++{k}) {{",
                  f"        {out}[{k}] += {local}[{k}];", "    }"]
        edits += [Edit(s, e, local, RULE) for s, e in h.uses]
    inner.append(f"    #pragma omp for nowait{clauses(hl, schedule)}")
    merge.append("}")
    tail = [*merge, "}", "}"]
    edits.append(Edit(line_start, line_start,
                      "".join(f"{indent}{t}{nl}" for t in head + inner) + indent, RULE,
                      order=9))
    edits.append(Edit(node.end_byte, node.end_byte,
                      "".join(f"{nl}{indent}{t}" for t in tail), RULE, order=9))
    explanation = (f"The loop over '{lp.induction}' at line {lp.line} is "
                   f"{describe(hl).replace('`', chr(39))}.")
    return Change(RULE, tuple(edits), explanation, (lp.line,), ("<vector>", "<cstddef>"))
