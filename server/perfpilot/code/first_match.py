"""First-match searches: a counted loop whose whole body is ``if (pred) { ...; return/break; }``
with a predicate that has no side effect. The loop stops at the first index (in iteration
order) where the predicate holds; every index can be tested in parallel and the earliest match
kept, and the exit branch then runs once for that index, as in the serial loop (before the
match the loop changed nothing, so the branch sees the same state).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

import tree_sitter

from perfpilot.code.declarations import VarType
from perfpilot.code.dependence import counter_type
from perfpilot.code.effects import NO_SIDE_EFFECTS, PARALLEL_SAFE_METHODS
from perfpilot.code.loop_body import collect_body
from perfpilot.code.syntax import (
    nearest_target,
    plain_callee,
    statements,
    unwrap,
    walk,
)

Node = tree_sitter.Node


@dataclass(frozen=True)
class FirstMatch:
    """A first-match search: the induction variable and its type, the predicate's and the exit
    branch's byte ranges, the statements of the branch to run after the search (without a
    final ``break``), and whether the loop counts up."""

    var: str
    var_type: str
    header: tuple[int, int]
    condition: tuple[int, int]
    branch: tuple[tuple[int, int], ...]
    ascending: bool
    exit: str  # "return" or "break"


def predicate_problem(loop: Node, cond: Node, pure: Callable[[str], bool] | None) -> str:
    """Why evaluating ``cond`` inside ``loop`` may have an effect (write, jump, I/O, a call
    that may change state or throw), or '' when it cannot."""
    f = collect_body(loop, cond)
    if f.scalar_writes or any(a.write for a, _ in f.element) or f.member_writes or \
            f.deref_writes or f.other or f.jumps or f.has_io or f.escapes:
        return "the condition writes, jumps or does input/output"
    for call, _node in f.calls:
        if call.method is not None:
            if call.method in PARALLEL_SAFE_METHODS - {"at"}:
                continue
            return f"the condition calls '{call.method}()'"
        plain = plain_callee(call.callee)
        if plain not in NO_SIDE_EFFECTS and not (pure is not None and pure(plain)):
            return f"the condition calls '{call.callee}()', which may have side effects"
    return ""


_LEAVES = frozenset({"return_statement", "goto_statement", "throw_statement",
                     "co_return_statement"})


def _jumps(node: Node, loop: Node) -> list[Node]:
    """The statements under ``node`` that leave it or the loop."""
    return [n for n in walk(node)
            if n.type in _LEAVES or (n.type in ("break_statement", "continue_statement")
                                     and nearest_target(n) == loop)]


def first_match(loop: Node, var: str, step: int | None, cond_op: str | None,
                declared: bool, types: Mapping[str, VarType | None],
                pure: Callable[[str], bool] | None) -> FirstMatch | str:
    """The loop as a first-match search, or why it is not one."""
    if step not in (1, -1) or (step == 1) != (cond_op in ("<", "<=")) or \
            cond_op not in ("<", "<=", ">", ">="):
        return "not a loop counting by one towards its bound"
    body = loop.child_by_field_name("body")
    stmts = statements(body)
    if len(stmts) != 1 or stmts[0].type != "if_statement" or \
            stmts[0].child_by_field_name("alternative") is not None:
        return "the body is not a single 'if' without 'else'"
    var_type, why = counter_type(loop, var, declared, types)
    if why:
        return why
    stmt = stmts[0]
    cond = unwrap(stmt.child_by_field_name("condition"))
    cons = stmt.child_by_field_name("consequence")
    if cond is None or cons is None or body is None:
        return "no condition"
    why = predicate_problem(loop, cond, pure)
    if why:
        return why
    branch = statements(cons)
    if not branch:
        return "the branch is empty"
    last = branch[-1]
    jumps = _jumps(cons, loop)
    if last.type == "return_statement":
        exit_kind = "return"
    elif last.type == "break_statement" and nearest_target(last) == loop:
        exit_kind = "break"
    else:
        return "the branch does not end the loop"
    if jumps != [last]:
        return "the branch jumps elsewhere too"
    kept = branch if exit_kind == "return" else branch[:-1]
    return FirstMatch(var, var_type, (loop.start_byte, body.start_byte),
                      (cond.start_byte, cond.end_byte),
                      tuple((s.start_byte, s.end_byte) for s in kept), step == 1, exit_kind)
