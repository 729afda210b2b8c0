"""The restrict-alias rule: two or more arithmetic pointer parameters, one written in a loop, none
``restrict``.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from perfpilot.code.facts import FunctionFacts
from perfpilot.code.syntax import (
    Node,
    identifiers,
    line,
    root_name,
)
from perfpilot.rules.base import Example, RuleSpec
from perfpilot.rules.detect.common import ARITH, code, loop_phrase, rng
from perfpilot.rules.finding import Finding, Proof, depth_bonus, make_finding


@dataclass(frozen=True)
class MayAlias(Proof):
    """The arithmetic pointer parameters none of which is ``restrict``, the store through one
    of them in an innermost loop, and the keyword the language spells ``restrict`` with."""

    params: tuple[str, ...]
    store: Node
    keyword: str


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
            bonus=depth_bonus(loop.depth),
            proof=MayAlias(tuple(p.name for p in ptrs), wnode, kw),
        )
        return


RULE = RuleSpec(
    id="restrict-alias",
    detect=restrict_alias,
    examples=(
        Example("c", """
void axpy(double *y, const double *x, double a, int n) {
    for (int i = 0; i < n; ++i) {
        y[i] = a * x[i] + y[i];
    }
}
""", "axpy"),
    ),
)
