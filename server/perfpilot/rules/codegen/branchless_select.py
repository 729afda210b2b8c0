"""The branchless-select rule: a data-dependent ``if`` guarding one arithmetic update in an
innermost counted loop.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from perfpilot.code.facts import FunctionFacts
from perfpilot.code.syntax import (
    Node,
    identifiers,
    line,
    node_text,
    operator,
    statements,
    unwrap,
    walk,
)
from perfpilot.rules.base import Example, RuleSpec
from perfpilot.rules.detect.common import code, loop_phrase, rng
from perfpilot.rules.finding import Finding, Proof, depth_bonus, make_finding


@dataclass(frozen=True)
class GuardedUpdate(Proof):
    """The ``if`` (no ``else``) whose data-dependent comparison guards one arithmetic update
    of ``target``, and the branch-free statement that does the same."""

    branch: Node
    update: Node
    target: str
    replacement: str


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
                       for s in walk(cond, named=True)):
                continue  # not data-dependent: the invariant-branch rule covers the rest
            upd = then[0].named_children[0] if then[0].type == "expression_statement" and \
                then[0].named_children else None
            if upd is None or upd.type != "assignment_expression" or \
                    operator(upd) not in ("+=", "-=", "=") or \
                    any(n.type == "call_expression" for n in walk(upd, named=True)):
                continue
            target = upd.child_by_field_name("left")
            value = upd.child_by_field_name("right")
            if target is None or value is None or target.type != "identifier":
                continue
            t, op = node_text(target), operator(upd)
            if op != "=" and not _numeric(facts, t, value):
                continue  # `text += c ? 'y' : 0` on a string would append a NUL
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
                bonus=depth_bonus(loop.depth),
                proof=GuardedUpdate(stmt, upd, t, select),
            )
            break


def _numeric(facts: FunctionFacts, target: str, value: Node) -> bool:
    """Whether ``target`` may be a number: declared arithmetic, or ``auto`` (or undeclared
    here) and given a value that is no character or string literal."""
    vt = facts.loop_types.get(target)
    if vt is not None and vt.base != "auto":
        return vt.is_arithmetic
    plain = unwrap(value)
    return plain is None or plain.type not in (
        "char_literal", "string_literal", "concatenated_string", "raw_string_literal")


RULE = RuleSpec(
    id="branchless-select",
    detect=branchless_select,
    examples=(
        Example("c", """
long above(const int *a, int n, int t) {
    long s = 0;
    for (int i = 0; i < n; ++i) {
        if (a[i] > t) s += a[i];
    }
    return s;
}
""", "above"),
    ),
)
