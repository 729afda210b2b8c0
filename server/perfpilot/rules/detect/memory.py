"""Memory Usage and Allocation, Resource Lifetime: reallocation, copies and allocation in loops."""

from __future__ import annotations

import re
from collections.abc import Iterator

from perfpilot.code.facts import FunctionFacts
from perfpilot.code.syntax import (
    Node,
    ancestors,
    arguments,
    callee,
    line,
    operator,
    receiver,
    root_name,
    text,
)
from perfpilot.rules.detect.common import (
    CONTAINER_TYPE,
    code,
    cpp,
    loop_phrase,
    rng,
    trip_count,
)
from perfpilot.rules.finding import Finding, depth_bonus, make_finding

_VECTOR = re.compile(r"^(?:std::)?vector\s*<")
_STRING = re.compile(r"^(?:std::)?(?:string|wstring|basic_string\b)")
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


def string_concat_loop(facts: FunctionFacts) -> Iterator[Finding]:
    """``s = s + x`` (copies all of ``s``), ``s += x`` without reserve, ``strcat`` in a loop."""
    reserved = {root_name(receiver(c)) for c in facts.nodes("call_expression")
                if callee(c) == "reserve" and receiver(c) is not None}
    appended: set[str] = set()
    for a in facts.in_loops("assignment_expression"):
        loop = facts.loop_of(a)
        if loop is None:
            continue
        left = a.child_by_field_name("left")
        right = a.child_by_field_name("right")
        if left is None or right is None or left.type != "identifier":
            continue
        s = text(left)
        v = facts.var(s)
        is_string = v is not None and bool(_STRING.match(v.base))
        if operator(a) == "=" and right.type == "binary_expression" and operator(right) == "+":
            leftmost: Node | None = right
            while leftmost is not None and leftmost.type == "binary_expression":
                leftmost = leftmost.child_by_field_name("left")
            if leftmost is None or text(leftmost) != s:
                continue
            if not is_string and not (v is None and '"' in text(right)):
                continue
            yield make_finding(
                "string-concat-loop",
                f"`{code(a)}` on line {line(a)} builds a new string and copies all of `{s}` on "
                f"every iteration of {loop_phrase(loop)} (O(n²) bytes copied in total): append "
                f"in place with `{s} += ...` (and `{s}.reserve(...)` before the loop when the "
                f"final size is known).",
                [line(a), loop.line],
                loop_range=loop.byte_range, node_range=rng(a), names=[s],
                data={"var": s, "form": "copy-concat"},
                bonus=depth_bonus(loop.depth),
            )
        elif operator(a) == "+=" and is_string and s not in reserved and s not in appended \
                and v is not None and v.line < loop.line:
            appended.add(s)
            yield make_finding(
                "string-concat-loop",
                f"`{code(a)}` on line {line(a)} grows `{s}` on every iteration of "
                f"{loop_phrase(loop)} without a `{s}.reserve(...)`, so the string reallocates "
                f"and copies itself as it grows: reserve the expected final size before the "
                f"loop.",
                [line(a), loop.line],
                loop_range=loop.byte_range, node_range=rng(a), names=[s],
                data={"var": s, "form": "append"},
                bonus=depth_bonus(loop.depth) - 0.35,
            )
    for call in facts.in_loops("call_expression"):
        if callee(call) not in ("strcat", "strncat") or receiver(call) is not None:
            continue
        loop = facts.loop_of(call)
        args = arguments(call)
        if loop is None or not args:
            continue
        dst = root_name(args[0]) or code(args[0])
        yield make_finding(
            "string-concat-loop",
            f"`{code(call)}` on line {line(call)} rescans `{dst}` from its start to find the "
            f"end on every iteration of {loop_phrase(loop)} (O(n²) in the final length): keep a "
            f"pointer (or length) to the end of `{dst}` and copy there with `memcpy`.",
            [line(call), loop.line],
            loop_range=loop.byte_range, node_range=rng(call), names=[dst, callee(call)],
            data={"var": dst, "form": "strcat"},
            bonus=depth_bonus(loop.depth),
        )


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


def hoist_container(facts: FunctionFacts) -> Iterator[Finding]:
    """A container or string constructed (and destroyed) on every iteration of a loop."""
    if not cpp(facts):
        return
    for decl in facts.in_loops("declaration"):
        loop = facts.loop_of(decl)
        if loop is None or decl.parent is None or decl.parent.type in (
                "for_statement", "for_range_loop"):
            continue
        if any(c.type == "storage_class_specifier" and text(c) == "static"
               for c in decl.children):
            continue
        for v in facts.local_vars(decl):
            if v.reference or v.pointer or not CONTAINER_TYPE.match(v.base):
                continue
            yield make_finding(
                "hoist-container",
                f"`{v.name}` (`{v.base}`) is constructed on line {line(decl)} and destroyed on "
                f"every iteration of {loop_phrase(loop)}, allocating and freeing its buffer "
                f"each time: declare `{v.name}` once before the loop and `clear()`/`assign()` it "
                f"inside, so its capacity is reused.",
                [line(decl), loop.line],
                loop_range=loop.byte_range, node_range=rng(decl), names=[v.name],
                data={"var": v.name, "type": v.base},
                bonus=depth_bonus(loop.depth),
            )
