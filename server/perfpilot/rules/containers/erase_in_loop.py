"""The erase-in-loop rule: a loop walking a vector, string or deque that erases the element it
is at (``it = v.erase(it)``, ``v.erase(v.begin() + i)``, ``s.erase(i, 1)``).

Each such erase moves every later element down by one, so a loop that filters ``n`` elements
makes O(n²) moves; the erase-remove idiom (``std::remove_if`` then one ``erase``, or C++20's
``std::erase_if``) moves each kept element once. Advice only: turning the loop's body into a
predicate is left to the user (or a model), since the loop may do more than decide.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

from perfpilot.code.facts import FunctionFacts
from perfpilot.code.syntax import (
    Node,
    arguments,
    callee,
    identifiers,
    line,
    node_text,
    receiver,
    root_name,
)
from perfpilot.rules.base import Example, RuleSpec
from perfpilot.rules.detect.common import code, loop_phrase, rng
from perfpilot.rules.finding import Finding, Proof, depth_bonus, make_finding

RULE_ID = "erase-in-loop"
# Containers whose erase in the middle moves the elements after it (a list's does not).
_SHIFTING = re.compile(r"^(?:std::)?(vector|deque|string|basic_string|wstring)\b")


@dataclass(frozen=True)
class EraseAtCursor(Proof):
    """The erase call, the container it shrinks, and the loop variable naming the position."""

    call: Node
    container: str
    cursor: str


def _cursor(call: Node, container: str, cursors: set[str]) -> str | None:
    """The loop variable ``call`` erases at: ``erase(it)``, ``erase(v.begin() + i)``,
    ``erase(std::next(v.begin(), i))`` or a string's ``erase(i, 1)``."""
    args = arguments(call)
    squashed = ["".join(node_text(a).split()) for a in args]
    if len(args) == 1 and squashed[0] in cursors:
        return squashed[0]
    begin = rf"{re.escape(container)}\.c?begin\(\)"
    for pattern in (rf"{begin}\+(\w+)", rf"(?:std::)?next\({begin},(\w+)\)"):
        m = re.fullmatch(pattern, squashed[0]) if len(args) == 1 else None
        if m is not None and m.group(1) in cursors:
            return m.group(1)
    if len(args) == 2 and squashed[0] in cursors and squashed[1] == "1":
        return squashed[0]
    return None


def erase_in_loop(facts: FunctionFacts) -> Iterator[Finding]:
    """An erase at the loop's own position in the container the loop walks."""
    for call in facts.in_loops("call_expression"):
        rcv = receiver(call)
        if callee(call) != "erase" or rcv is None or rcv.type != "identifier":
            continue
        container = node_text(rcv)
        vt = facts.var(container)
        if vt is None or vt.pointer or not _SHIFTING.match(vt.base.replace("const", "").strip()):
            continue
        loop = facts.loop_of(call)
        if loop is None or loop.condition is None or \
                container not in identifiers(loop.condition) | {root_name(loop.bound)}:
            continue
        cursor = _cursor(call, container, identifiers(loop.condition) - {container})
        if cursor is None:
            continue
        yield make_finding(
            RULE_ID,
            f"`{code(call)}` on line {line(call)} removes the element {loop_phrase(loop)} is "
            f"at from the middle of `{container}`, moving every later element down by one, so "
            f"filtering n elements makes O(n²) moves: filter in one pass with the erase-remove "
            f"idiom, `{container}.erase(std::remove_if({container}.begin(), "
            f"{container}.end(), pred), {container}.end())` (C++20: `std::erase_if"
            f"({container}, pred)`), which moves each kept element once.",
            [line(call), loop.line],
            loop_range=loop.byte_range, node_range=rng(call), names=[container, cursor],
            bonus=depth_bonus(loop.depth),
            proof=EraseAtCursor(call, container, cursor),
        )


RULE = RuleSpec(
    id=RULE_ID,
    detect=erase_in_loop,
    examples=(
        Example("cpp", """
#include <vector>
int drop_negative(std::vector<int> &v) {
    int dropped = 0;
    for (auto it = v.begin(); it != v.end();) {
        if (*it < 0) {
            it = v.erase(it);
            ++dropped;
        } else {
            ++it;
        }
    }
    return dropped;
}
""", "drop_negative"),
    ),
)
