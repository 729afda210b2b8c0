"""Input/Output Throughput Optimization: flushing, synchronized streams, stdio in loops."""

from __future__ import annotations

from collections.abc import Iterator

from perfpilot.code.facts import FunctionFacts
from perfpilot.code.syntax import Node, callee, line, operator, receiver, text
from perfpilot.rules.detect.common import code, loop_phrase, rng
from perfpilot.rules.finding import Finding, depth_bonus, make_finding

_READS = frozenset({"scanf", "fscanf", "getchar", "fgetc", "getc", "fgets", "sscanf"})
_WRITES = frozenset({"printf", "fprintf", "puts", "putchar", "fputc", "putc", "fputs"})


def _stream_name(node: Node) -> str:
    t = text(node)
    return t.split("::")[-1]


def endl(facts: FunctionFacts) -> Iterator[Finding]:
    """``std::endl`` written inside a loop (a flush per line)."""
    if "endl" not in facts.site.text:
        return
    hits: list[tuple[Node, int]] = []
    for n in facts.nodes("identifier") + facts.nodes("qualified_identifier"):
        if n.type == "identifier" and n.parent is not None and \
                n.parent.type == "qualified_identifier":
            continue  # counted through its qualified parent
        if _stream_name(n) != "endl":
            continue
        parent = n.parent
        if parent is None or parent.type != "binary_expression" or operator(parent) != "<<":
            continue
        loop = facts.loop_of(n)
        if loop is not None:
            hits.append((n, loop.index))
    if not hits:
        return
    first, li = hits[0]
    loop = facts.loops[li]
    lines = sorted({line(n) for n, _ in hits})
    stream = _leftmost(first.parent) if first.parent is not None else "the stream"
    yield make_finding(
        "endl",
        f"`{text(first)}` on line{'s' if len(lines) > 1 else ''} "
        f"{', '.join(str(n) for n in lines)} flushes `{stream}` on every iteration of "
        f"{loop_phrase(loop)}, one system call per line: write `'\\n'` instead and let the "
        f"stream flush once at the end.",
        [*lines, loop.line],
        loop_range=loop.byte_range, node_range=rng(first), names=[text(first), stream],
        data={"stream": stream, "count": str(len(hits))},
        bonus=depth_bonus(loop.depth),
    )


def _leftmost(node: Node) -> str:
    cur: Node | None = node
    while cur is not None and cur.type == "binary_expression":
        cur = cur.child_by_field_name("left")
    return text(cur) if cur is not None else ""


def fast_io(facts: FunctionFacts) -> Iterator[Finding]:
    """``cin``/``cout`` used in a loop while iostreams are still synchronized with stdio."""
    if facts.language != "cpp":
        return
    unit = facts.site.unit_text
    if "sync_with_stdio" in unit or not any(s in facts.site.text for s in ("cin", "cout", "cerr")):
        return
    uses: list[Node] = []
    for n in facts.in_loops("identifier"):
        if text(n) in ("cin", "cout", "cerr") and facts.loop_of(n) is not None:
            uses.append(n)
    if not uses:
        return
    streams = sorted({text(n) for n in uses})
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
        data={"streams": ",".join(streams), "untie": "yes" if untied else "no"},
        bonus=depth_bonus(loop.depth),
    )


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
            data={"direction": "read" if calls is reads else "write"},
            bonus=depth_bonus(loop.depth) + (0.05 if calls is reads else 0.0),
        )
