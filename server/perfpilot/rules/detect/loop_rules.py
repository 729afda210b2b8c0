"""Loop Efficiency, Branching, Data Locality: invariant calls and branches, traversal order."""

from __future__ import annotations

from collections.abc import Iterator

from perfpilot.code.declarations import VarType
from perfpilot.code.dependence import interchange_blocker
from perfpilot.code.facts import FunctionFacts, Loop
from perfpilot.code.nul_stores import stores_no_nul
from perfpilot.code.parse import statements, unwrap
from perfpilot.code.syntax import (
    Node,
    arguments,
    callee,
    identifiers,
    line,
    number,
    operator,
    receiver,
    root_name,
    text,
    walk,
)
from perfpilot.rules.detect.common import code, loop_phrase, loop_types, rng
from perfpilot.rules.finding import Finding, depth_bonus, make_finding

# Calls whose cost grows with their argument: invariant ones in a loop make it quadratic.
_LINEAR_CALLS = frozenset({"strlen", "wcslen"})
_MATH_CALLS = frozenset({
    "sqrt", "sqrtf", "cbrt", "pow", "powf", "exp", "expf", "log", "logf", "log2", "log10", "sin",
    "cos", "tan", "sinf", "cosf", "atan", "atan2", "hypot",
})
_SIZE_METHODS = frozenset({"size", "length"})


def hoist_invariant_call(facts: FunctionFacts) -> Iterator[Finding]:
    """A call whose arguments the loop never changes, evaluated on every iteration."""
    seen: set[tuple[int, int]] = set()
    for loop in facts.loops:
        regions: list[tuple[str, Node]] = []
        if loop.condition is not None:
            regions.append(("condition", loop.condition))
        for region_name, region in regions + [("body", b) for b in
                                              ([loop.body] if loop.body is not None else [])]:
            for call in facts.nodes("call_expression", region):
                name = callee(call)
                method = receiver(call) is not None
                if region_name == "body" and (method or name not in _LINEAR_CALLS | _MATH_CALLS):
                    continue
                if region_name == "condition" and not (
                        (not method and name in _LINEAR_CALLS | _MATH_CALLS)
                        or (method and name in _SIZE_METHODS)):
                    continue
                innermost = facts.loop_of(call)
                if innermost is None or innermost.index != loop.index:
                    continue  # reported for the innermost loop that contains it
                key = (call.start_byte, call.end_byte)
                if key in seen or not facts.invariant_in(call, loop):
                    continue
                if not (identifiers(call) - {name}):
                    continue  # no variable argument: constant folding handles it
                # Hoist as far out as the call stays invariant.
                target = loop
                while target.parent is not None and \
                        facts.invariant_in(call, facts.loops[target.parent]):
                    target = facts.loops[target.parent]
                seen.add(key)
                vars_ = sorted(identifiers(call) - {name})
                if name in _LINEAR_CALLS:
                    cost, bonus = (f"`{name}` walks the whole string each time, which makes the "
                                   f"loop quadratic"), 0.30
                elif method:
                    cost, bonus = ("the compiler often cannot prove the size unchanged when the "
                                   "body writes through pointers or calls functions"), -0.30
                else:
                    cost, bonus = f"each `{name}` call costs tens of cycles", 0.0
                where = "in its condition" if region_name == "condition" else "in its body"
                yield make_finding(
                    "hoist-invariant-call",
                    f"{loop_phrase(loop)} calls `{code(call)}` {where} on every iteration; "
                    f"{', '.join(f'`{v}`' for v in vars_)} "
                    f"{'is' if len(vars_) == 1 else 'are'} not modified in the loop, so the "
                    f"call is loop-invariant ({cost}): compute it once before "
                    f"{'the loop' if target is loop else loop_phrase(target)}.",
                    [line(call), loop.line] + ([target.line] if target is not loop else []),
                    loop_range=target.byte_range, node_range=rng(call),
                    names=[name, *vars_],
                    data={"call": code(call, 200), "name": name, "where": region_name},
                    bonus=bonus + depth_bonus(loop.depth),
                )


def invariant_branch(facts: FunctionFacts) -> Iterator[Finding]:
    """An ``if`` inside a loop whose condition the loop never changes (unswitching)."""
    reported: set[int] = set()
    for node in facts.in_loops("if_statement"):
        loop = facts.loop_of(node)
        if loop is None:
            continue
        cond = unwrap(node.child_by_field_name("condition"))
        if cond is None or cond.type == "declaration":
            continue
        vars_ = sorted(n for n in identifiers(cond)
                       if facts.var(n) is not None or not _is_called(cond, n))
        if not vars_ or not facts.invariant_in(cond, loop):
            continue
        target = loop
        while target.parent is not None and \
                facts.invariant_in(cond, facts.loops[target.parent]):
            target = facts.loops[target.parent]
        if target.index in reported:
            continue
        reported.add(target.index)
        yield make_finding(
            "invariant-branch",
            f"`if ({code(cond)})` on line {line(node)} is tested on every iteration of "
            f"{loop_phrase(target)}, but {', '.join(f'`{v}`' for v in vars_)} "
            f"{'is' if len(vars_) == 1 else 'are'} never changed in the loop: test it once "
            f"outside and write one loop per outcome (loop unswitching), which removes the "
            f"branch from the hot path and lets each loop vectorize.",
            [line(node), target.line],
            loop_range=target.byte_range, node_range=rng(node), names=vars_,
            data={"condition": code(cond, 200)},
            bonus=depth_bonus(loop.depth),
        )


def _is_called(expr: Node, name: str) -> bool:
    return any(n.type == "call_expression" and callee(n) == name for n in walk(expr))


def loop_interchange(facts: FunctionFacts) -> Iterator[Finding]:
    """Nested loops whose inner variable indexes the outer (slow) dimension of 2-D data, where
    the dependence test the rewriter applies allows the swap (a perfect nest, iterations
    independent): an imperfect nest with carried dependences is never offered one."""
    types: dict[str, VarType | None] | None = None
    for inner in facts.loops:
        if inner.parent is None or not inner.counted or inner.var is None:
            continue
        outer = facts.loops[inner.parent]
        if outer.var is None or outer.var == inner.var:
            continue
        column, row, examples = _access_order(facts, inner, outer.var, inner.var)
        if column == 0 or column < row:
            continue
        if types is None:
            types = loop_types(facts)
        if interchange_blocker(outer.node, types, allow_reductions=True):
            continue
        arrays = sorted({root_name(e) or "" for e in examples} - {""})
        perfect = len(statements(outer.body)) == 1
        ex = examples[0]
        yield make_finding(
            "loop-interchange",
            f"{loop_phrase(inner)} is nested in {loop_phrase(outer)} but accesses "
            f"`{code(ex)}` (line {line(ex)}): consecutive iterations of `{inner.var}` touch "
            f"elements a whole row apart, so nearly every access misses cache. Interchange the "
            f"loops on lines {outer.line} and {inner.line} so `{inner.var}` is the outer loop "
            f"(or transpose {', '.join(f'`{a}`' for a in arrays)}) to walk memory in storage "
            f"order.",
            [line(ex), outer.line, inner.line],
            loop_range=outer.byte_range, node_range=rng(inner.node),
            names=[outer.var, inner.var, *arrays],
            data={"outer_var": outer.var, "inner_var": inner.var, "arrays": ",".join(arrays),
                  "perfect": "yes" if perfect else "no",
                  "inner_loop": f"{inner.node.start_byte}:{inner.node.end_byte}"},
            bonus=depth_bonus(inner.depth),
        )


def _access_order(facts: FunctionFacts, loop: Loop, outer_var: str, inner_var: str
                  ) -> tuple[int, int, list[Node]]:
    column = row = 0
    examples: list[Node] = []
    if loop.body is None:
        return 0, 0, []
    for sub in facts.nodes("subscript_expression", loop.body):
        base = sub.child_by_field_name("argument")
        if base is not None and base.type == "subscript_expression":
            first = identifiers(_index(base))
            second = identifiers(_index(sub))
            if inner_var in first and outer_var in second and inner_var not in second:
                column += 1
                examples.append(sub)
            elif inner_var in second:
                row += 1
        elif sub.parent is None or sub.parent.type != "subscript_expression":
            order = _flat_order(_index(sub), outer_var, inner_var)
            if order == "column":
                column += 1
                examples.append(sub)
            elif order == "row":
                row += 1
    return column, row, examples


def _index(sub: Node) -> Node | None:
    return sub.child_by_field_name("indices") or sub.child_by_field_name("index")


def _flat_order(idx: Node | None, outer_var: str, inner_var: str) -> str | None:
    """``a[j * n + i]`` (inner variable scaled) is column order; ``a[i * n + j]`` is row order."""
    if idx is None:
        return None
    expr = unwrap(idx.named_children[0]) if idx.named_children and \
        idx.type == "subscript_argument_list" else unwrap(idx)
    if expr is None or expr.type != "binary_expression" or operator(expr) != "+":
        return None
    parts = [expr.child_by_field_name("left"), expr.child_by_field_name("right")]
    for scaled, plain in (parts, parts[::-1]):
        if scaled is None or plain is None:
            continue
        if scaled.type == "binary_expression" and operator(scaled) == "*":
            if inner_var in identifiers(scaled) and text(plain) == outer_var:
                return "column"
            if outer_var in identifiers(scaled) and text(plain) == inner_var:
                return "row"
    return None


def branchless_select(facts: FunctionFacts) -> Iterator[Finding]:
    """A data-dependent ``if`` guarding one arithmetic update in an innermost counted loop."""
    for loop in facts.loops:
        if not loop.innermost or not loop.counted or loop.var is None or loop.body is None:
            continue
        for stmt in statements(loop.body):
            if stmt.type != "if_statement" or stmt.child_by_field_name("alternative") is not None:
                continue
            cond = unwrap(stmt.child_by_field_name("condition"))
            then = statements(stmt.child_by_field_name("consequence"))
            if cond is None or cond.type != "binary_expression" or \
                    operator(cond) not in ("<", ">", "<=", ">=", "==", "!=") or len(then) != 1:
                continue
            if not any(s.type == "subscript_expression" and loop.var in identifiers(s)
                       for s in walk(cond)):
                continue  # not data-dependent: the invariant-branch rule covers the rest
            upd = then[0].named_children[0] if then[0].type == "expression_statement" and \
                then[0].named_children else None
            if upd is None or upd.type != "assignment_expression" or \
                    operator(upd) not in ("+=", "-=", "=") or \
                    any(n.type == "call_expression" for n in walk(upd)):
                continue
            target = upd.child_by_field_name("left")
            value = upd.child_by_field_name("right")
            if target is None or value is None or target.type != "identifier":
                continue
            t, op = text(target), operator(upd)
            select = (f"{t} {op} ({code(cond)}) ? {code(value)} : 0;" if op != "=" else
                      f"{t} = ({code(cond)}) ? {code(value)} : {t};")
            yield make_finding(
                "branchless-select",
                f"`if ({code(cond)})` on line {line(stmt)} depends on the data loaded in "
                f"{loop_phrase(loop)}, so on irregular data the branch mispredicts often and it "
                f"keeps the loop from vectorizing: write the update without a branch, "
                f"`{select}`, which compiles to a conditional move or a vector blend.",
                [line(stmt), loop.line],
                loop_range=loop.byte_range, node_range=rng(stmt),
                names=[*sorted(identifiers(cond)), t],
                data={"replacement": select, "var": t},
                bonus=depth_bonus(loop.depth),
            )
            break


def strlen_condition(facts: FunctionFacts) -> Iterator[Finding]:
    """``strlen(s)`` in a loop condition while the body stores non-NUL characters into ``s``."""
    for loop in facts.loops:
        if loop.condition is None or loop.var is None or loop.body is None:
            continue
        for call in facts.nodes("call_expression", loop.condition):
            args = arguments(call)
            if callee(call) != "strlen" or len(args) != 1 or args[0].type != "identifier":
                continue
            s = text(args[0])
            if facts.invariant_in(call, loop) or not _only_char_stores(facts, loop, s):
                continue
            # Proved (every store is a character that cannot be NUL), or only likely.
            proved = "".join(text(loop.condition).split()) == f"{loop.var}<strlen({s})" and \
                stores_no_nul(loop.body, s, loop.var)
            nul = ("but it never stores a NUL terminator there: compute"
                   if proved else "but unless a store there can be a NUL terminator, compute")
            yield make_finding(
                "strlen-condition",
                f"{loop_phrase(loop)} calls `{code(call)}` in its condition, rescanning `{s}` "
                f"on every iteration (quadratic in its length); the body writes `{s}[{loop.var}]`"
                f", so the compiler cannot prove the length unchanged, {nul} "
                f"`strlen({s})` once before the loop (or test `{s}[{loop.var}] != '\\0'`).",
                [line(call), loop.line],
                loop_range=loop.byte_range, node_range=rng(call), names=["strlen", s],
                data={"call": code(call, 200), "var": s},
                bonus=depth_bonus(loop.depth),
            )


def _only_char_stores(facts: FunctionFacts, loop: Loop, s: str) -> bool:
    """``s`` changes in the loop only through ``s[i] = <not a NUL>`` with ``i`` the loop
    variable, and escapes nowhere."""
    stores = 0
    for a in facts.nodes("assignment_expression", loop.node):
        left = a.child_by_field_name("left")
        if root_name(left) != s:
            continue
        idx = (left.child_by_field_name("indices") or left.child_by_field_name("index")) \
            if left is not None and left.type == "subscript_expression" else None
        value = unwrap(a.child_by_field_name("right"))
        if idx is None or text(idx).strip("[] ") != loop.var or value is None or \
                text(value) in ("0", "'\\0'", "'\\000'", "NULL") or \
                number(value) == 0.0:
            return False
        stores += 1
    for u in facts.nodes("update_expression", loop.node):
        if root_name(u.child_by_field_name("argument")) == s:
            return False
    for p in facts.nodes("pointer_expression", loop.node):
        if operator(p) == "&" and root_name(p.child_by_field_name("argument")) == s:
            return False
    for c in facts.nodes("call_expression", loop.node):
        if callee(c) in ("strlen", "toupper", "tolower", "isalpha", "isdigit", "isspace"):
            continue
        if any(root_name(a) == s and a.type in ("identifier", "binary_expression")
               for a in arguments(c)):
            return False
    return stores > 0


def _factors(node: Node) -> list[Node]:
    """The operands of a left-nested product ``a * b * c`` (a lone operand: itself)."""
    out: list[Node] = []
    cur: Node | None = node
    while cur is not None and cur.type == "binary_expression" and operator(cur) == "*":
        right = cur.child_by_field_name("right")
        if right is not None:
            out.append(right)
        cur = cur.child_by_field_name("left")
    if cur is not None:
        out.append(cur)
    return list(reversed(out))


def invariant_factors(facts: FunctionFacts) -> Iterator[Finding]:
    """A floating-point product in an inner loop whose invariant factors are not grouped."""
    seen: set[int] = set()
    for loop in facts.loops:
        if not loop.innermost or loop.body is None:
            continue
        for b in facts.nodes("binary_expression", loop.body):
            if operator(b) != "*" or (b.parent is not None and b.parent.type ==
                                      "binary_expression" and operator(b.parent) == "*"):
                continue  # only whole products
            factors = _factors(b)
            if len(factors) < 3:
                continue
            inv = [f for f in factors if number(f) is None and identifiers(f)
                   and facts.invariant_in(f, loop)]
            if len(inv) < 2 or len(inv) == len(factors):
                continue
            if not any((v := facts.var(n)) is not None and v.is_float
                       for f in factors for n in identifiers(f)) and \
                    "double" not in text(b) and "float" not in text(b):
                continue  # integer products may be regrouped by the compiler
            if b.start_byte in seen:
                continue
            seen.add(b.start_byte)
            group = " * ".join(code(f, 40) for f in inv)
            yield make_finding(
                "invariant-expression",
                f"`{code(b, 60)}` on line {line(b)} multiplies by "
                f"{', '.join(f'`{code(f, 40)}`' for f in inv)} on every iteration of "
                f"{loop_phrase(loop)}, but they do not change in the loop; floating-point "
                f"rules keep the compiler from regrouping the product, so compute `{group}` "
                f"once before the loop and multiply by that.",
                [line(b), loop.line],
                loop_range=loop.byte_range, node_range=rng(b),
                names=sorted({n for f in inv for n in identifiers(f)}),
                data={"factor": group},
                bonus=depth_bonus(loop.depth),
            )
