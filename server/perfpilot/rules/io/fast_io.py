"""The fast-io rule: ``cin``/``cout`` used in a loop while iostreams are still synchronized with
stdio.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from perfpilot.code.facts import FunctionFacts
from perfpilot.code.parse import parse
from perfpilot.code.syntax import (
    Node,
    line,
    node_text,
    walk,
)
from perfpilot.rules.base import Example, RuleSpec
from perfpilot.rules.detect.common import code, loop_phrase, rng
from perfpilot.rules.edits import Edit
from perfpilot.rules.finding import Finding, Proof, depth_bonus, make_finding
from perfpilot.rules.rewrite_input import Left, Planned, RuleInput, newline_of

# detection


@dataclass(frozen=True)
class StreamsInLoops(Proof):
    """The first stream use in a loop (its outermost ``<<``/``>>`` chain) and the streams
    (``cin``, ``cout``, ``cerr``) used in loops of a unit that never unsynchronizes them."""

    statement: Node
    streams: tuple[str, ...]


def fast_io(facts: FunctionFacts) -> Iterator[Finding]:
    """``cin``/``cout`` used in a loop while iostreams are still synchronized with stdio."""
    if facts.language != "cpp":
        return
    unit = facts.site.unit_text
    if "sync_with_stdio" in unit or not any(s in facts.site.text for s in ("cin", "cout", "cerr")):
        return
    uses: list[Node] = []
    for n in facts.in_loops("identifier"):
        if node_text(n) in ("cin", "cout", "cerr") and facts.loop_of(n) is not None:
            uses.append(n)
    if not uses:
        return
    streams = sorted({node_text(n) for n in uses})
    first = uses[0]
    loop = facts.loop_of(first)
    assert loop is not None
    stmt = first
    while stmt.parent is not None and stmt.parent.type in ("binary_expression",
                                                           "qualified_identifier"):
        stmt = stmt.parent
    untied = "cin" in streams and ".tie(" not in unit
    yield make_finding(
        "fast-io",
        f"`{code(stmt)}` on line {line(first)} uses {', '.join(f'`std::{s}`' for s in streams)} "
        f"in {loop_phrase(loop)} while C++ streams are still synchronized with C stdio (no "
        f"`std::ios::sync_with_stdio(false)` in this file)"
        + (", and `cin` is tied to `cout`, so every read flushes the output" if untied else "")
        + ": call `std::ios::sync_with_stdio(false);"
        + (" std::cin.tie(nullptr);" if untied else "")
        + "` once before the first I/O.",
        [line(first), loop.line],
        loop_range=loop.byte_range, node_range=rng(stmt), names=streams,
        bonus=depth_bonus(loop.depth),
        proof=StreamsInLoops(stmt, tuple(streams)),
    )


# rewrite


_C_STDIO = frozenset({
    "printf", "scanf", "puts", "putchar", "getchar", "gets", "fgets", "fputs", "fprintf",
    "fscanf", "fwrite", "fread", "fflush", "putc", "getc", "fputc", "fgetc", "perror",
    "vprintf", "stdout", "stdin",
})


def fast_io_fix(inp: RuleInput, finding: Finding) -> Planned | Left:
    """Unsynchronize C++ streams from C stdio and untie cin at the start of ``main``, where
    the finding proved ``cin``/``cout`` used in loops."""
    proof = finding.proof
    assert isinstance(proof, StreamsInLoops)
    if not {"cin", "cout"} & set(proof.streams):
        return Left("", proof.statement, "only `std::cerr` is used in the loop; it flushes "
                    "after every write either way, so unsynchronizing it batches nothing")
    if inp.site.name != "main":
        # the one place the streams may be unsynchronized before any I/O is the program's start
        return Left("", proof.statement, "the rewrite adds `std::ios::sync_with_stdio(false)` "
                    "only at the start of `main`, before any I/O; this function is not `main`")
    unit_names = {node_text(n) for n in walk(parse(inp.site.unit_text, "cpp").root_node)
                  if n.type == "identifier"}
    mixed = sorted(unit_names & _C_STDIO)
    if mixed:
        return Left("", proof.statement, f"the program also uses C stdio "
                    f"({', '.join(mixed[:3])}); unsynchronizing the streams would reorder output")
    body = inp.function.child_by_field_name("body")
    if body is None or body.type != "compound_statement":
        return Left("", proof.statement, "`main` has no body to start with the call")
    first = next((c for c in body.named_children), None)
    indent = "    "
    if first is not None:
        data = inp.data
        line_start = data.rfind(b"\n", 0, first.start_byte) + 1
        prefix = data[line_start:first.start_byte]
        if prefix.strip() == b"" and line_start > body.start_byte:
            indent = prefix.decode("utf-8")
    nl = newline_of(inp.text)
    text = f"{nl}{indent}std::ios::sync_with_stdio(false);{nl}{indent}std::cin.tie(nullptr);"
    edit = Edit(body.start_byte + 1, body.start_byte + 1, text, "fast-io")
    return Planned(
        (edit,),
        "main reads or writes with cin/cout inside loops; turning off the synchronization "
        "with C stdio and untying cin from cout lets both streams buffer (output is the same; "
        "a prompt is no longer flushed before each read).",
        (body,), includes=())


RULE = RuleSpec(
    id="fast-io",
    detect=fast_io,
    fix=fast_io_fix,
    rewrites_as=frozenset({"fast-io"}),
    phase=1,
    order=2,
    examples=(
        Example("cpp", """
#include <iostream>
int main() {
    int n;
    std::cin >> n;
    long total = 0;
    for (int i = 0; i < n; ++i) {
        int x;
        std::cin >> x;
        total += x;
    }
    std::cout << total << "\\n";
    return 0;
}
""", "main"),
    ),
)
