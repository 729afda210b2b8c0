"""Loop Efficiency, Branching, Data Locality: invariant calls and branches, traversal order."""

from __future__ import annotations

from collections.abc import Iterator

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
    root_name,
    text,
    walk,
)
from perfpilot.rules.detect.common import code, loop_phrase, rng
from perfpilot.rules.finding import Finding, depth_bonus, make_finding


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
