"""The stdio-loop rule: ``scanf``/``printf`` family called per element in a loop."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from perfpilot.code.facts import FunctionFacts
from perfpilot.code.syntax import (
    Node,
    callee,
    line,
    receiver,
)
from perfpilot.rules.base import Example, RuleSpec
from perfpilot.rules.detect.common import loop_phrase, rng
from perfpilot.rules.finding import Finding, Proof, depth_bonus, make_finding


@dataclass(frozen=True)
class StdioCalls(Proof):
    """The C stdio calls of one direction (``read`` or ``write``) made inside loops."""

    calls: tuple[Node, ...]
    direction: str


_READS = frozenset({"scanf", "fscanf", "getchar", "fgetc", "getc", "fgets", "sscanf"})


_WRITES = frozenset({"printf", "fprintf", "puts", "putchar", "fputc", "putc", "fputs"})


def stdio_loop(facts: FunctionFacts) -> Iterator[Finding]:
    """``scanf``/``printf`` family called per element in a loop."""
    if not any(name in facts.site.text for name in _READS | _WRITES):
        return
    reads: list[Node] = []
    writes: list[Node] = []
    for c in facts.in_loops("call_expression"):
        name = callee(c)
        if receiver(c) is not None or facts.loop_of(c) is None:
            continue
        if name in _READS:
            reads.append(c)
        elif name in _WRITES:
            writes.append(c)
    for calls, fix in (
            (reads, "read the input in large blocks (`fread` into a buffer) and parse numbers by "
                    "hand, or at least use `getchar_unlocked`"),
            (writes, "format into a large buffer (or build the text in memory) and write it "
                     "with one `fwrite`/`fputs` after the loop")):
        if not calls:
            continue
        first = calls[0]
        loop = facts.loop_of(first)
        assert loop is not None
        names = sorted({callee(c) for c in calls})
        lines = sorted({line(c) for c in calls})[:6]
        yield make_finding(
            "stdio-loop",
            f"{', '.join(f'`{n}`' for n in names)} on line{'s' if len(lines) > 1 else ''} "
            f"{', '.join(str(n) for n in lines)} run{'s' if len(names) == 1 else ''} once per "
            f"iteration of {loop_phrase(loop)}; each call parses its format string and locks the "
            f"stream: {fix}.",
            [*lines, loop.line],
            loop_range=loop.byte_range, node_range=rng(first), names=names,
            bonus=depth_bonus(loop.depth) + (0.05 if calls is reads else 0.0),
            proof=StdioCalls(tuple(calls), "read" if calls is reads else "write"),
        )


RULE = RuleSpec(
    id="stdio-loop",
    detect=stdio_loop,
    examples=(
        Example("c", """
#include <stdio.h>
long readall(int n) {
    long s = 0;
    int x;
    for (int i = 0; i < n; i++) {
        scanf("%d", &x);
        s += x;
    }
    return s;
}
""", "readall"),
    ),
)
