"""Memory Usage and Allocation, Resource Lifetime: reallocation, copies and allocation in loops."""

from __future__ import annotations

import re
from collections.abc import Iterator

from perfpilot.code.facts import FunctionFacts
from perfpilot.code.syntax import (
    Node,
    ancestors,
    callee,
    line,
    receiver,
    root_name,
)
from perfpilot.rules.detect.common import (
    code,
    cpp,
    loop_phrase,
    rng,
    trip_count,
)
from perfpilot.rules.finding import Finding, depth_bonus, make_finding

_VECTOR = re.compile(r"^(?:std::)?vector\s*<")
_ALLOC_FUNCS = frozenset({"malloc", "calloc", "realloc", "strdup", "aligned_alloc"})


def reserve(facts: FunctionFacts) -> Iterator[Finding]:
    """``v.push_back`` once per iteration of a counted loop, with no ``v.reserve``."""
    if not cpp(facts):
        return
    reserved = {root_name(receiver(c)) for c in facts.nodes("call_expression")
                if callee(c) in ("reserve", "resize") and receiver(c) is not None}
    seen: set[tuple[str, int]] = set()
    for call in facts.in_loops("call_expression"):
        method = callee(call)
        if method not in ("push_back", "emplace_back"):
            continue
        rcv = receiver(call)
        vname = root_name(rcv) if rcv is not None else None
        v = facts.var(vname)
        if vname is None or v is None or vname in reserved or v.scope == "global" \
                or not _VECTOR.match(v.base) or v.pointer:
            continue
        loop = facts.loop_of(call)
        if loop is None or v.line >= loop.line or (vname, loop.index) in seen:
            continue
        count = trip_count(loop)
        if count is None or _conditional(call, loop.node):
            continue
        # Only the loop right around the call may lie after the declaration, else the count is
        # a product we do not know.
        outer = facts.loops[loop.parent] if loop.parent is not None else None
        if outer is not None and outer.line > v.line:
            continue
        seen.add((vname, loop.index))
        yield make_finding(
            "reserve",
            f"`{vname}.{method}(...)` on line {line(call)} runs on each of the `{count}` "
            f"iterations of {loop_phrase(loop)}, but `{vname}` (declared line {v.line}) "
            f"is never reserved, so it reallocates and copies its elements about log2(n) times: "
            f"call `{vname}.reserve({count});` before the loop.",
            [line(call), loop.line, v.line],
            loop_range=loop.byte_range, node_range=rng(call), names=[vname],
            data={"var": vname, "count": count, "method": method},
            bonus=depth_bonus(loop.depth),
        )


def _conditional(node: Node, stop: Node) -> bool:
    return any(a.type in ("if_statement", "conditional_expression", "switch_statement",
                          "while_statement", "do_statement", "for_statement", "for_range_loop")
               for a in ancestors(node, stop))


def alloc_in_loop(facts: FunctionFacts) -> Iterator[Finding]:
    """``new``/``malloc`` executed on every iteration of a loop."""
    if not any(w in facts.site.text for w in ("new", "alloc", "strdup")):
        return
    for node in facts.in_loops("new_expression") + facts.in_loops("call_expression"):
        if node.type == "call_expression" and (callee(node) not in _ALLOC_FUNCS
                                               or receiver(node) is not None):
            continue
        loop = facts.loop_of(node)
        if loop is None:
            continue
        what = "`new`" if node.type == "new_expression" else f"`{callee(node)}`"
        frees = [c for c in facts.nodes("call_expression", loop.node)
                 if callee(c) == "free"] + facts.nodes("delete_expression", loop.node)
        freed = f" (and frees it again on line {line(frees[0])})" if frees else ""
        yield make_finding(
            "alloc-in-loop",
            f"`{code(node)}` on line {line(node)} allocates through {what} on every iteration "
            f"of {loop_phrase(loop)}{freed}: allocate the buffer once before the loop (sized for "
            f"the largest use) and reuse it; allocator calls and page faults dominate small "
            f"loop bodies.",
            [line(node), loop.line, *([line(frees[0])] if frees else [])],
            loop_range=loop.byte_range, node_range=rng(node),
            names=[callee(node) if node.type == "call_expression" else "new"],
            data={"alloc": what.strip("`")},
            bonus=depth_bonus(loop.depth),
        )


