"""The strlen-condition rule: ``strlen(s)`` in a loop condition while the body stores non-NUL
characters into ``s``.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from perfpilot.code.facts import FunctionFacts, Loop
from perfpilot.code.nul_stores import stores_no_nul
from perfpilot.code.syntax import (
    Node,
    arguments,
    callee,
    line,
    node_text,
    number,
    operator,
    root_name,
    unwrap,
)
from perfpilot.rules.base import Example, RuleSpec
from perfpilot.rules.detect.common import code, loop_phrase, rng
from perfpilot.rules.finding import Finding, Proof, depth_bonus, make_finding
from perfpilot.rules.hoisting.hoist_invariant_call import hoist_rule


@dataclass(frozen=True)
class RescannedString(Proof):
    """``strlen`` of ``string`` in the condition of ``loop``, whose body stores only characters
    into it (``proved``: none of them can be a NUL)."""

    call: Node
    loop: Node
    string: str
    proved: bool


def strlen_condition(facts: FunctionFacts) -> Iterator[Finding]:
    """``strlen(s)`` in a loop condition while the body stores non-NUL characters into ``s``."""
    for loop in facts.loops:
        if loop.condition is None or loop.var is None or loop.body is None:
            continue
        for call in facts.nodes("call_expression", loop.condition):
            args = arguments(call)
            if callee(call) != "strlen" or len(args) != 1 or args[0].type != "identifier":
                continue
            s = node_text(args[0])
            if facts.invariant_in(call, loop) or not _only_char_stores(facts, loop, s):
                continue
            # Proved (every store is a character that cannot be NUL), or only likely.
            proved = "".join(node_text(loop.condition).split()) == f"{loop.var}<strlen({s})" and \
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
                claims=[rng(call)],  # the invariant-call hoist moves this very call
                proof=RescannedString(call, loop.node, s, proved),
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
        if idx is None or node_text(idx).strip("[] ") != loop.var or value is None or \
                node_text(value) in ("0", "'\\0'", "'\\000'", "NULL") or \
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


RULE = RuleSpec(
    id="strlen-condition",
    detect=strlen_condition,
    rewrite=hoist_rule,
    rewrites_as=frozenset({"hoist-invariant-call"}),
    phase=2,
    order=0,
    examples=(
        Example("c", """
#include <string.h>
void upcase(char *s) {
    for (size_t i = 0; i < strlen(s); i++) {
        if (s[i] >= 'a' && s[i] <= 'z')
            s[i] = (char)(s[i] - 'a' + 'A');
    }
}
""", "upcase"),
    ),
)
