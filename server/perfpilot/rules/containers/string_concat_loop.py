"""The string-concat-loop rule: ``s = s + x`` (copies all of ``s``), ``s += x`` without reserve,
``strcat`` in a loop.

Rewrite: Appending to a string in place: ``s = s + x`` in a loop becomes ``s += x``.

``s = s + x`` builds a new string holding a copy of all of ``s`` and then replaces ``s`` with
it, so a loop that grows ``s`` that way copies quadratically much; ``s += x`` appends in place
(amortized constant per character). For ``std::string`` both leave the same text in ``s``, as
long as the later operands of a chain ``s = s + a + b`` do not read ``s`` (the in-place form
has already changed it by then).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

from perfpilot.code.declarations import VarType
from perfpilot.code.effects import PARALLEL_SAFE_METHODS
from perfpilot.code.facts import FunctionFacts
from perfpilot.code.syntax import (
    Node,
    arguments,
    callee,
    line,
    node_text,
    operator,
    receiver,
    root_name,
    walk,
)
from perfpilot.rules.base import Example, RuleSpec
from perfpilot.rules.detect.common import (
    code,
    loop_phrase,
    rng,
)
from perfpilot.rules.edits import Edit
from perfpilot.rules.emit import replace_statement
from perfpilot.rules.finding import Finding, Proof, depth_bonus, make_finding
from perfpilot.rules.rewrite_input import Left, Planned, RuleInput

RULE_ID = "string-concat-loop"
_STRING = re.compile(r"^(const\s+)?(std::)?(string|basic_string\s*<\s*char\s*>)$")


def _is_string(vt: VarType | None) -> bool:
    return vt is not None and not vt.pointer and not vt.array and vt.reference != "&&" and \
        bool(_STRING.match(" ".join(vt.base.split()))) and not vt.const


def _operands(node: Node) -> list[Node]:
    """The operands of a left-nested sum ``a + b + c`` (a lone operand: itself)."""
    out: list[Node] = []
    cur = node
    while cur.type == "binary_expression":
        op = cur.child_by_field_name("operator")
        left = cur.child_by_field_name("left")
        right = cur.child_by_field_name("right")
        if op is None or left is None or right is None or node_text(op) != "+":
            break
        out.append(right)
        cur = left
    out.append(cur)
    return list(reversed(out))


def _mentions(node: Node, name: str) -> bool:
    return any(n.type == "identifier" and node_text(n) == name for n in walk(node))


def _reads_only(node: Node, name: str) -> bool:
    """``name`` appears in ``node`` only as all of it or through read-only method calls
    (``s.size()``), so appending ``node`` to ``name`` in place reads the same value."""
    if node.type == "identifier":
        return True
    for n in walk(node):
        if n.type != "identifier" or node_text(n) != name:
            continue
        field = n.parent
        call = field.parent if field is not None else None
        if field is None or call is None or field.type != "field_expression" or \
                call.type != "call_expression":
            return False
        method = field.child_by_field_name("field")
        if method is None or node_text(method) not in PARALLEL_SAFE_METHODS:
            return False
    return True


@dataclass(frozen=True)
class Concat(Proof):
    """A string grown in a loop: ``form`` ``copy-concat`` (``s = s + a + ...``, with the
    chain's ``parts``, ``s`` first), ``append`` (``s += x``) or ``strcat``; ``node`` is the
    assignment or the call, ``var`` the string grown."""

    node: Node
    var: str
    form: str
    parts: tuple[Node, ...] = ()


_IN_PLACE_WHY = {
    "append": "it already appends in place; a `reserve` would need the final length, which "
              "the loop does not know before it runs",
    "strcat": "keeping a pointer to the end of the C string needs its buffer's length, which "
              "is not proved",
}


def fix(inp: RuleInput, finding: Finding) -> Planned | Left:
    """``s = s + a [+ b ...]`` on a ``std::string`` becomes appends in place."""
    proof = finding.proof
    assert isinstance(proof, Concat)
    node, s = proof.node, proof.var
    if proof.form != "copy-concat":
        return Left("", node, _IN_PLACE_WHY[proof.form])
    if not _is_string(inp.types.get(s)):
        return Left("", node, f"'{s}' is not proved a modifiable std::string")
    parts = proof.parts
    if len(parts) < 2 or parts[0].type != "identifier" or node_text(parts[0]) != s:
        return Left("", node, f"'{s}' is not the first operand of a plain sum")
    if any(_mentions(p, s) for p in parts[2:]) or not _reads_only(parts[1], s):
        return Left("", node, f"it reads '{s}' after the first '+', so appending in place "
                    "would change what it reads")
    appended = [node_text(p) for p in parts[1:]]
    stmt = node.parent
    edit: Edit | None = None
    if len(appended) == 1:
        edit = Edit(node.start_byte, node.end_byte, f"{s} += {appended[0]}", RULE_ID)
    elif stmt is not None and stmt.type == "expression_statement":
        # One statement per piece, each on its own line (in a new block when the
        # assignment was an unbraced loop or branch body).
        edit = replace_statement(inp, stmt, [f"{s} += {a};" for a in appended], RULE_ID)
    if edit is None:
        return Left("", node, "the assignment's value is used, so it cannot become one "
                    "append per piece")
    return Planned(
        (edit,),
        f"'{s} = {s} + ...' on line {inp.line_of(node)} copies all of '{s}' into a new string "
        f"on every iteration, so the loop's cost grows with the square of the text's length; "
        f"appending in place ('{s} += ...') copies only what is added.",
        (node,), includes=())


# detection


_ANY_STRING = re.compile(r"^(?:std::)?(?:string|wstring|basic_string\b)")


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
        s = node_text(left)
        v = facts.var(s)
        is_string = v is not None and bool(_ANY_STRING.match(v.base))
        if operator(a) == "=" and right.type == "binary_expression" and operator(right) == "+":
            leftmost: Node | None = right
            while leftmost is not None and leftmost.type == "binary_expression":
                leftmost = leftmost.child_by_field_name("left")
            if leftmost is None or node_text(leftmost) != s:
                continue
            if not is_string and not (v is None and '"' in node_text(right)):
                continue
            yield make_finding(
                "string-concat-loop",
                f"`{code(a)}` on line {line(a)} builds a new string and copies all of `{s}` on "
                f"every iteration of {loop_phrase(loop)} (O(n²) bytes copied in total): append "
                f"in place with `{s} += ...` (and `{s}.reserve(...)` before the loop when the "
                f"final size is known).",
                [line(a), loop.line],
                loop_range=loop.byte_range, node_range=rng(a), names=[s],
                bonus=depth_bonus(loop.depth),
                proof=Concat(a, s, "copy-concat", tuple(_operands(right))),
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
                bonus=depth_bonus(loop.depth) - 0.35,
                proof=Concat(a, s, "append"),
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
            bonus=depth_bonus(loop.depth),
            proof=Concat(call, dst, "strcat"),
        )


RULE = RuleSpec(
    id=RULE_ID,
    detect=string_concat_loop,
    fix=fix,
    rewrites_as=frozenset({"string-concat-loop"}),
    phase=1,
    order=4,
    examples=(
        Example("cpp", """
#include <string>
std::string join(int n) {
    std::string s;
    for (int i = 0; i < n; ++i) {
        s = s + "x";
    }
    return s;
}
""", "join"),
        Example("cpp", """
#include <string>
int s;
std::string build(int n) {
    std::string s;
    for (int i = 0; i < n; ++i) {
        s = s + "ab";
    }
    return s;
}
""", "build"),
    ),
)
