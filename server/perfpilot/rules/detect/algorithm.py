"""Algorithm Design Optimization: quadratic searches and recursion that recomputes subproblems."""

from __future__ import annotations

from collections.abc import Iterator

from perfpilot.code.facts import FunctionFacts, Loop
from perfpilot.code.parse import statements, unwrap
from perfpilot.code.syntax import (
    Node,
    arguments,
    callee,
    identifiers,
    line,
    operator,
    receiver,
    root_name,
    text,
    walk,
)
from perfpilot.rules.detect.common import code, cpp, loop_phrase, rng
from perfpilot.rules.finding import Finding, depth_bonus, make_finding

# Free functions that scan a whole range each time they are called.
LINEAR_SCANS = frozenset({
    "find", "find_if", "find_if_not", "count", "count_if", "min_element", "max_element",
    "accumulate", "any_of", "all_of", "none_of", "search", "lfind", "strstr",
})


def _scanned_container(call: Node) -> str | None:
    args = arguments(call)
    if not args:
        return None
    first = args[0]
    if first.type == "call_expression" and callee(first) in ("begin", "cbegin"):
        r = receiver(first)
        if r is not None:
            return root_name(r)
        inner = arguments(first)
        return root_name(inner[0]) if inner else None
    return root_name(first)


def linear_search_in_loop(facts: FunctionFacts) -> Iterator[Finding]:
    """``std::find``/``count``/... inside a loop, and nested loops that compare elements."""
    yield from _scan_calls(facts)
    yield from _nested_compare(facts)


def _scan_calls(facts: FunctionFacts) -> Iterator[Finding]:
    for call in facts.in_loops("call_expression"):
        name = callee(call)
        if name not in LINEAR_SCANS or receiver(call) is not None:
            continue
        if name != "strstr" and len(arguments(call)) < 2:
            continue
        loop = facts.loop_of(call)
        if loop is None:
            continue
        container = _scanned_container(call)
        what = f"`{container}`" if container else "the range"
        if name == "strstr":
            fix = "search once before the loop, or use a precomputed index of the text"
        elif name in ("count", "count_if") and cpp(facts):
            fix = (f"count the values of {what} once before the loop into a "
                   f"`std::unordered_map` (or sort it once and use `std::equal_range`) so each "
                   f"query is O(1) or O(log n)")
        elif name in ("find", "find_if", "count", "count_if", "any_of", "none_of", "all_of"):
            fix = (f"build a `std::unordered_set` (or a sorted copy with `std::binary_search`) "
                   f"from {what} once before the loop so each lookup is O(1) or O(log n)"
                   if cpp(facts) else "sort the data once and use `bsearch`, or index it")
        else:
            fix = "maintain the running result across iterations instead of rescanning"
        yield make_finding(
            "linear-search-in-loop",
            f"`{code(call)}` on line {line(call)} scans {what} linearly on every iteration of "
            f"{loop_phrase(loop)}, so the loop does O(n·m) work: {fix}.",
            [line(call), loop.line],
            loop_range=loop.byte_range, node_range=rng(call),
            names=[n for n in (name, container) if n],
            data={"form": "call", "call": name, "container": container or ""},
            bonus=depth_bonus(loop.depth),
        )


def _nested_compare(facts: FunctionFacts) -> Iterator[Finding]:
    for inner in facts.loops:
        if inner.parent is None or inner.kind not in ("for", "range-for"):
            continue
        outer = facts.loops[inner.parent]
        ivar = inner.var or _range_var(inner)
        if ivar is None:
            continue
        hit = _equality_test(facts, inner, ivar)
        if hit is None:
            continue
        cmp_node, searched = hit
        fix = ("insert the elements into a `std::unordered_set`/`std::unordered_map` (or sort "
               "once and binary-search) so each lookup is O(1) or O(log n)" if cpp(facts) else
               "sort once (`qsort`) and binary-search (`bsearch`), or use a hash table")
        yield make_finding(
            "linear-search-in-loop",
            f"{loop_phrase(inner)} is a linear search nested in {loop_phrase(outer)}: it tests "
            f"`{code(cmp_node)}` (line {line(cmp_node)}) against every element of "
            f"`{searched}`, O(n²) comparisons in total; {fix}.",
            [line(cmp_node), inner.line, outer.line],
            loop_range=outer.byte_range, node_range=rng(inner.node),
            names=[ivar, searched],
            data={"form": "nested-loop", "inner_var": ivar, "container": searched},
            bonus=depth_bonus(inner.depth) - 0.02,
        )


def _range_var(loop: Loop) -> str | None:
    if loop.kind != "range-for":
        return None
    decl = loop.node.child_by_field_name("declarator")
    names = identifiers(decl)
    return next(iter(names)) if len(names) == 1 else None


def _equality_test(facts: FunctionFacts, loop: Loop, var: str) -> tuple[Node, str] | None:
    """An ``if (x[var] == key)`` in the loop's own body (not in a deeper loop)."""
    for stmt in statements(loop.body):
        if stmt.type != "if_statement":
            continue
        cond = unwrap(stmt.child_by_field_name("condition"))
        if cond is None:
            continue
        for b in walk(cond):
            if b.type != "binary_expression" or operator(b) != "==":
                continue
            left, right = b.child_by_field_name("left"), b.child_by_field_name("right")
            for side, other in ((left, right), (right, left)):
                searched = _indexed_by(side, var, loop)
                if searched and other is not None and var not in identifiers(other):
                    return b, searched
    return None


def _indexed_by(node: Node | None, var: str, loop: Loop) -> str | None:
    if node is None:
        return None
    if node.type == "subscript_expression":
        idx = node.child_by_field_name("indices") or node.child_by_field_name("index")
        if text(idx).strip("[] ") == var:
            return root_name(node)
    if node.type == "field_expression":
        return _indexed_by(node.child_by_field_name("argument"), var, loop)
    if node.type == "identifier" and text(node) == var and loop.kind == "range-for":
        right = loop.node.child_by_field_name("right")
        return root_name(right) if right is not None else None
    return None


def memo_recursion(facts: FunctionFacts) -> Iterator[Finding]:
    """A value-returning function calling itself 2+ times on overlapping smaller arguments."""
    site = facts.site
    if site.return_type.strip() in ("void", "") or facts.body is None or \
            site.text.count(site.name) < 3:
        return
    params = {p.name for p in site.params}
    calls = [c for c in facts.nodes("call_expression")
             if callee(c) == site.name and receiver(c) is None
             and len(arguments(c)) == len(site.params) and site.params]
    if len(calls) < 2:
        return
    if not all(_shrinks(c, params) for c in calls):
        return
    if _has_memo(facts):
        return
    shown = ", ".join(f"`{code(c, 30)}`" for c in calls[:3])
    lines = sorted({line(c) for c in calls})
    where = ", ".join(str(n) for n in lines)
    yield make_finding(
        "memo-recursion",
        f"`{site.name}` calls itself "
        f"{'twice' if len(calls) == 2 else f'{len(calls)} times'} ({shown}, "
        f"line{'s' if len(lines) > 1 else ''} {where}) on overlapping, smaller arguments, "
        f"so the same subproblems are solved an "
        f"exponential number of times: memoize results in a table indexed by "
        f"{', '.join(f'`{p.name}`' for p in site.params)}, or compute them bottom-up in a loop.",
        lines,
        node_range=(site.start_byte, site.end_byte),
        names=[site.name, *(p.name for p in site.params)],
        data={"function": site.name},
    )


def _shrinks(call: Node, params: set[str]) -> bool:
    """Every argument is a parameter or ``param - something``; at least one is decreased."""
    decreased = False
    for arg in arguments(call):
        a = unwrap(arg)
        if a is None:
            return False
        if a.type == "identifier" and text(a) in params:
            continue
        if a.type == "binary_expression" and operator(a) == "-":
            left = a.child_by_field_name("left")
            if left is not None and left.type == "identifier" and text(left) in params:
                decreased = True
                continue
        if a.type in ("number_literal", "subscript_expression", "field_expression"):
            # constants and data values (weights, costs) do not change the subproblem shape
            if a.type == "number_literal":
                continue
            return False
        return False
    return decreased


def _has_memo(facts: FunctionFacts) -> bool:
    for p in facts.site.params:
        if (p.reference or p.pointer or p.array) and not p.const and p.reference != "&&":
            return True
    for name in identifiers(facts.body):
        v = facts.var(name)
        if v is None:
            continue
        if v.scope == "global" and (v.array or v.pointer or "map" in v.base or "vector" in v.base):
            return True
        if "static" in v.type_text:
            return True
    return any(callee(c) in ("count", "find", "contains") and receiver(c) is not None
               for c in facts.nodes("call_expression"))


def _swaps(facts: FunctionFacts, region: Node) -> list[tuple[Node, str]]:
    """Element swaps in ``region``: ``std::swap(a[x], a[y])`` or ``t = a[x]; a[x] = a[y];
    a[y] = t;``; returns the first statement and the array."""
    out: list[tuple[Node, str]] = []
    for c in facts.nodes("call_expression", region):
        args = arguments(c)
        if callee(c) in ("swap", "iter_swap") and receiver(c) is None and len(args) == 2 \
                and all(a.type == "subscript_expression" for a in args):
            name = root_name(args[0])
            if name and name == root_name(args[1]):
                out.append((c, name))
    for block in [region, *facts.nodes("compound_statement", region)]:
        stmts = statements(block) if block.type == "compound_statement" else []
        for a, b, c in zip(stmts, stmts[1:], stmts[2:], strict=False):
            texts = [_assign_parts(s) for s in (a, b, c)]
            if any(t is None for t in texts):
                continue
            (t1, v1), (t2, v2), (t3, v3) = texts  # type: ignore[misc]
            if t1 == v3 and v1 == t2 and v2 == t3 and "[" in v1 and "[" in v2:
                out.append((a, v1.split("[")[0].strip()))
    return out


def _assign_parts(stmt: Node) -> tuple[str, str] | None:
    """``(target, value)`` texts of ``x = y;`` or ``T x = y;``."""
    if stmt.type == "expression_statement" and stmt.named_children:
        e = stmt.named_children[0]
        if e.type == "assignment_expression" and operator(e) == "=":
            return code(e.child_by_field_name("left"), 200), code(e.child_by_field_name("right"),
                                                                  200)
    if stmt.type == "declaration":
        for c in stmt.named_children:
            if c.type == "init_declarator":
                return code(c.child_by_field_name("declarator"), 200), \
                    code(c.child_by_field_name("value"), 200)
    return None


def manual_sort(facts: FunctionFacts) -> Iterator[Finding]:
    """Nested loops that compare and swap elements of one array: an O(n²) sort by hand."""
    for outer in facts.loops:
        if outer.parent is not None or outer.innermost:
            continue
        swaps = _swaps(facts, outer.node)
        if not swaps:
            continue
        first, array = swaps[0]
        compares = [b for b in facts.nodes("binary_expression", outer.node)
                    if operator(b) in ("<", ">", "<=", ">=")
                    and sum(1 for s in (b.child_by_field_name("left"),
                                        b.child_by_field_name("right"))
                            if s is not None and s.type == "subscript_expression"
                            and root_name(s) == array) >= 1]
        if not compares:
            continue
        fix = (f"`std::sort({array}.begin(), {array}.end())`"
               if (v := facts.var(array)) is not None and not v.pointer and not v.array
               and cpp(facts) else
               f"`std::sort({array}, {array} + n)`" if cpp(facts) else
               f"`qsort({array}, n, sizeof *{array}, cmp)`")
        yield make_finding(
            "manual-sort",
            f"The nested loops starting on line {outer.line} sort `{array}` by hand: they compare "
            f"`{code(compares[0])}` (line {line(compares[0])}) and swap elements (line "
            f"{line(first)}), O(n²) comparisons and moves; the library sort {fix} is "
            f"O(n log n) and heavily tuned.",
            [outer.line, line(compares[0]), line(first)],
            loop_range=outer.byte_range, names=[array],
            data={"var": array, "replacement": fix.strip("`")},
        )


def prefix_sum(facts: FunctionFacts) -> Iterator[Finding]:
    """A loop summing a range of an unchanged array, re-run for every outer iteration."""
    for inner in facts.loops:
        if inner.parent is None or not inner.counted or inner.var is None or \
                not inner.innermost:
            continue
        stmts = statements(inner.body)
        if len(stmts) != 1 or stmts[0].type != "expression_statement" or \
                not stmts[0].named_children:
            continue
        e = stmts[0].named_children[0]
        if e.type != "assignment_expression" or operator(e) != "+=":
            continue
        value = unwrap(e.child_by_field_name("right"))
        if value is None or value.type != "subscript_expression":
            continue
        idx = value.child_by_field_name("indices") or value.child_by_field_name("index")
        array = root_name(value)
        if array is None or text(idx).strip("[] ") != inner.var:
            continue
        outer = facts.loops[inner.parent]
        if array in facts.modified_in(outer.node):
            continue
        acc = text(e.child_by_field_name("left"))
        yield make_finding(
            "prefix-sum",
            f"{loop_phrase(inner)} adds up `{array}[{inner.var}]` over a range again on every "
            f"iteration of {loop_phrase(outer)}, O(n) per query; `{array}` does not change, so "
            f"build prefix sums once (`p[k + 1] = p[k] + {array}[k]`) and get each range sum "
            f"as `p[hi + 1] - p[lo]` in O(1).",
            [line(e), inner.line, outer.line],
            loop_range=outer.byte_range, node_range=rng(inner.node), names=[array, acc],
            data={"array": array, "acc": acc},
            bonus=-0.02,
        )
