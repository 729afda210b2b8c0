"""Appending to a string in place: ``s = s + x`` in a loop becomes ``s += x``.

``s = s + x`` builds a new string holding a copy of all of ``s`` and then replaces ``s`` with
it, so a loop that grows ``s`` that way copies quadratically much; ``s += x`` appends in place
(amortized constant per character). For ``std::string`` both leave the same text in ``s``, as
long as the later operands of a chain ``s = s + a + b`` do not read ``s`` (the in-place form
has already changed it by then).
"""

from __future__ import annotations

import re

from perfpilot.code.declarations import VarType
from perfpilot.code.effects import PARALLEL_SAFE_METHODS
from perfpilot.code.parse import node_text, walk_all
from perfpilot.rules.edits import Edit
from perfpilot.rules.rewrite_input import Change, Node, RuleInput, RuleOutput, inside_loop

RULE = "string-concat-loop"
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
    return any(n.type == "identifier" and node_text(n) == name for n in walk_all(node))


def _reads_only(node: Node, name: str) -> bool:
    """``name`` appears in ``node`` only as all of it or through read-only method calls
    (``s.size()``), so appending ``node`` to ``name`` in place reads the same value."""
    if node.type == "identifier":
        return True
    for n in walk_all(node):
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


def string_append_rule(inp: RuleInput) -> RuleOutput:
    """Rewrite ``s = s + a [+ b ...]`` inside loops, for ``std::string s``, to appends."""
    changes: list[Change] = []
    notes: list[str] = []
    for node in walk_all(inp.function):
        if node.type != "assignment_expression":
            continue
        op = node.child_by_field_name("operator")
        left = node.child_by_field_name("left")
        right = node.child_by_field_name("right")
        if op is None or left is None or right is None or node_text(op) != "=" or \
                left.type != "identifier" or not inside_loop(node, inp.function):
            continue
        s = node_text(left)
        parts = _operands(right)
        if len(parts) < 2 or parts[0].type != "identifier" or node_text(parts[0]) != s:
            continue
        if not _is_string(inp.types.get(s)):
            continue
        line = inp.line_of(node)
        if any(_mentions(p, s) for p in parts[2:]) or not _reads_only(parts[1], s):
            notes.append(f"{RULE}: line {line} reads '{s}' after the first '+', so appending "
                         "in place would change what it reads")
            continue
        appended = [node_text(p) for p in parts[1:]]
        stmt = node.parent
        if stmt is not None and stmt.type == "expression_statement" and \
                stmt.parent is not None and stmt.parent.type == "compound_statement":
            # One statement per piece, on the line the assignment had.
            edit = Edit(stmt.start_byte, stmt.end_byte,
                        " ".join(f"{s} += {a};" for a in appended), RULE)
        else:
            text = f"{s} += {appended[0]}"
            for more in appended[1:]:
                text = f"({text}) += {more}"
            edit = Edit(node.start_byte, node.end_byte, text, RULE)
        changes.append(Change(
            RULE, (edit,),
            f"'{s} = {s} + ...' on line {line} copies all of '{s}' into a new string on every "
            f"iteration, so the loop's cost grows with the square of the text's length; "
            f"appending in place ('{s} += ...') copies only what is added.",
            (line,)))
    return changes, notes
