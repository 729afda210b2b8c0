"""How rewrites write code: the few statement shapes a colleague would write, one way each.

A rewrite that needs a value computed once declares a local right above the statement that
uses it (``declare_before``); one that needs a statement run only under a condition guards it
(``guarded``); one that moves work out of a loop puts it above the loop
(``rewrite_input.insertion_before``). A statement replaced by several goes through
``replace_statement``, which opens a block when the statement was the unbraced body of an
``if``/``for``/``while``. Expressions that replace a node are parenthesized only where the
context needs it (``fit``). Nothing here writes an immediately invoked lambda, redundant
parentheses, or an assignment chained on another.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence

from perfpilot.code.syntax import (
    node_text,
)
from perfpilot.rules.edits import Edit
from perfpilot.rules.rewrite_input import Node, RuleInput, insertion_before, newline_of

# Statements a declaration may go right above: the statement then runs right after it.
SIMPLE_STATEMENTS = frozenset({"expression_statement", "return_statement", "declaration"})
# Places where a statement sits in a list of statements (text may go above it).
_STATEMENT_LISTS = frozenset({"compound_statement", "case_statement", "translation_unit"})
# Control statements whose unbraced body may be replaced by a block.
_BODY_HOLDERS = frozenset({"for_statement", "for_range_loop", "while_statement",
                           "do_statement", "if_statement", "else_clause"})

# Operator precedence, higher binds tighter (C and C++ agree on these).
_BINARY = {
    "||": 4, "&&": 5, "|": 6, "^": 7, "&": 8, "==": 9, "!=": 9, "<": 10, ">": 10, "<=": 10,
    ">=": 10, "<=>": 10, "<<": 11, ">>": 11, "+": 12, "-": 12, "*": 13, "/": 13, "%": 13,
}
COMMA, ASSIGNMENT, CONDITIONAL, EQUALITY = 1, 2, 3, 9
ADDITIVE, MULTIPLICATIVE, UNARY, POSTFIX, PRIMARY = 12, 13, 14, 15, 16
_UNARY_PARENTS = frozenset({"unary_expression", "pointer_expression", "cast_expression",
                            "sizeof_expression", "update_expression"})
_POSTFIX_PARENTS = frozenset({"field_expression", "subscript_expression", "call_expression"})


def precedence(node: Node) -> int:
    """How tightly the expression ``node`` binds (``PRIMARY`` for names, calls, literals)."""
    kind = node.type
    if kind == "binary_expression":
        op = node.child_by_field_name("operator")
        return _BINARY.get(node_text(op) if op is not None else "", ADDITIVE)
    if kind in ("assignment_expression", "compound_assignment_expression"):
        return ASSIGNMENT
    if kind == "conditional_expression":
        return CONDITIONAL
    if kind == "comma_expression":
        return COMMA
    if kind in _UNARY_PARENTS:
        return UNARY
    if kind in _POSTFIX_PARENTS:
        return POSTFIX
    return PRIMARY


def needed_precedence(node: Node) -> int:
    """The least precedence an expression standing in for ``node`` may have without
    parentheses (a product stays bare as an operand of ``+``, not of a unary ``-``)."""
    parent = node.parent
    if parent is None:
        return COMMA
    kind = parent.type
    if kind == "binary_expression":
        op = parent.child_by_field_name("operator")
        p = _BINARY.get(node_text(op) if op is not None else "", PRIMARY)
        # left-associative: the right operand of an equal operator keeps its parentheses
        # (``a * (b * c)`` rounds differently from ``a * b * c``)
        return p if parent.child_by_field_name("left") == node else p + 1
    if kind in _UNARY_PARENTS:
        return UNARY
    if kind in _POSTFIX_PARENTS:
        # the object or function of a postfix expression; its argument lists and brackets
        # take any expression
        first = parent.named_children[0] if parent.named_children else None
        return POSTFIX if first == node else COMMA + 1
    if kind == "conditional_expression":
        if parent.child_by_field_name("condition") == node:
            return CONDITIONAL + 1
        return ASSIGNMENT if parent.child_by_field_name("alternative") == node else COMMA + 1
    if kind in ("assignment_expression", "compound_assignment_expression"):
        return ASSIGNMENT if parent.child_by_field_name("right") == node else UNARY
    if kind in ("argument_list", "initializer_list", "init_declarator", "comma_expression"):
        return ASSIGNMENT
    return COMMA


def fit(node: Node, replacement: str, binds: int) -> str:
    """``replacement`` (an expression binding with precedence ``binds``) as it must be written
    in place of ``node``: parenthesized only when the context would split it."""
    return replacement if binds >= needed_precedence(node) else f"({replacement})"


def fitted_edit(node: Node, expression: str, binds: int, rule: str) -> Edit:
    """An edit putting ``expression`` (binding with precedence ``binds``) in place of
    ``node``, parenthesized only where the context needs it; an equality standing for a
    node under ``!`` becomes the inequality (``!(h == v.size())`` is ``h != v.size()``)."""
    parent = node.parent
    if binds == EQUALITY and expression.count(" == ") == 1 and parent is not None and \
            parent.type == "unary_expression" and \
            node_text(parent.child_by_field_name("operator") or parent) == "!":
        return Edit(parent.start_byte, parent.end_byte,
                    fit(parent, expression.replace(" == ", " != "), EQUALITY), rule)
    return Edit(node.start_byte, node.end_byte, fit(node, expression, binds), rule)


def operand(node: Node) -> str:
    """The text of an expression as an operand of ``*``: parenthesized unless it binds at
    least as tightly (a sum is, a name or an element read is not)."""
    body = " ".join(node_text(node).split())
    if node.type == "parenthesized_expression":
        return body
    return body if precedence(node) > MULTIPLICATIVE else f"({body})"


def cast(type_name: str, node: Node) -> str:
    """``node``'s expression cast to ``type_name`` in C style: ``(unsigned char)s[i]``, its
    operand parenthesized only when it binds less tightly than a cast (``(T)(a + b)``)."""
    body = " ".join(node_text(node).split())
    return f"({type_name}){body}" if precedence(node) >= UNARY else f"({type_name})({body})"


# ---- layout ----------------------------------------------------------------------------------


def line_start(data: bytes, byte: int) -> int:
    """The offset of the start of the line holding ``byte``."""
    return data.rfind(b"\n", 0, byte) + 1


def indent_at(data: bytes, byte: int) -> str:
    """The leading whitespace of the line holding ``byte``."""
    start = line_start(data, byte)
    m = re.match(rb"[ \t]*", data[start:])
    return m.group(0).decode("utf-8") if m else ""


def starts_line(data: bytes, node: Node) -> bool:
    """Whether only whitespace precedes ``node`` on its line."""
    return data[line_start(data, node.start_byte):node.start_byte].strip() == b""


def indent_unit(text: str) -> str:
    """One level of indentation as the text writes it: a tab, or the most common step
    between a line and the deeper line after it (four spaces when nothing says)."""
    steps: Counter[str] = Counter()
    previous: str | None = None
    for raw in text.splitlines():
        if not raw.strip() or raw.lstrip().startswith(("#", "//", "/*", "*")):
            continue
        lead = raw[:len(raw) - len(raw.lstrip())]
        if previous is not None and len(lead) > len(previous) and lead.startswith(previous):
            steps[lead[len(previous):]] += 1
        previous = lead
    for step, _count in steps.most_common():
        if step == "\t" or (step.strip(" ") == "" and 2 <= len(step) <= 8):
            return step
    return "    "


def braces_on_own_line(text: str) -> bool:
    """Whether the text opens the blocks of its ``if``/``for``/``while`` statements on a line
    of their own (Allman, GNU) rather than at the end of the header (K&R)."""
    own = len(re.findall(r"^[ \t]*(?:if|for|while|else)\b[^\n{;]*\n[ \t]*\{", text, re.M))
    same = len(re.findall(r"^[ \t]*(?:}\s*)?(?:if|for|while|else)\b[^\n;]*\{[ \t]*$", text, re.M))
    return own > same


def _indented(lines: Sequence[str], indent: str, nl: str) -> str:
    """``lines`` joined, each on its own line at ``indent`` (the lines inside a multi-line
    entry keep their own indentation relative to it)."""
    out: list[str] = []
    for entry in lines:
        parts = entry.split("\n")
        out.append(parts[0] + "".join(nl + (indent + p if p.strip() else "") for p in parts[1:]))
    return (nl + indent).join(out)


def in_statement_list(stmt: Node) -> bool:
    """Whether ``stmt`` sits in a list of statements (a block or a ``case``), where lines may
    be added around it."""
    parent = stmt.parent
    return parent is not None and parent.type in _STATEMENT_LISTS


def folded_into_declaration(inp: RuleInput, stmt: Node, target: str, op: str, expr: str,
                            rule: str) -> tuple[Edit, Edit] | None:
    """``target op expr;`` standing for ``stmt``, folded into the declaration right before it
    when that one declares ``target`` alone, with a written type (not ``auto``), and a value
    the statement makes no difference to: a constant before ``=`` (``bool found = false;``
    then ``found = !s.insert(w).second;``), a zero before ``+=`` (``int c = 0;`` then
    ``c += n;``). The edits write ``expr`` as the initializer and remove ``stmt``; None when
    it cannot be folded."""
    prev = stmt.prev_named_sibling
    if op not in ("=", "+=") or prev is None or prev.type != "declaration" or \
            not in_statement_list(stmt):
        return None
    kind = prev.child_by_field_name("type")
    declarators = prev.children_by_field_name("declarator")
    if kind is None or kind.type == "placeholder_type_specifier" or "auto" in \
            node_text(kind).split() or len(declarators) != 1 or \
            declarators[0].type != "init_declarator":
        return None
    name = declarators[0].child_by_field_name("declarator")
    value = declarators[0].child_by_field_name("value")
    if name is None or value is None or name.type != "identifier" or node_text(name) != target:
        return None
    if op == "+=" and not re.fullmatch(r"0[uUlL]*|0\.0*[fF]?", node_text(value)):
        return None
    if op == "=" and value.type not in ("false", "true", "number_literal", "char_literal"):
        return None
    if inp.data[prev.end_byte:stmt.start_byte].strip():
        return None
    return (Edit(value.start_byte, value.end_byte, expr, rule),
            Edit(prev.end_byte, stmt.end_byte, "", rule))


def replace_statement(inp: RuleInput, stmt: Node, lines: Sequence[str], rule: str,
                      order: int = 0) -> Edit | None:
    """An edit replacing the statement ``stmt`` by ``lines`` (statements or declarations,
    each written on its own line at the statement's indentation; a multi-line entry indents
    its later lines relative to that). When ``stmt`` is the unbraced body of an ``if``,
    ``else``, ``for``, ``while`` or ``do``, the lines go in a new block, braced as the file
    braces its blocks. None where a statement cannot be replaced by several (a label's)."""
    data = inp.data
    nl = newline_of(inp.text)
    unit = indent_unit(inp.text)
    if in_statement_list(stmt):
        if starts_line(data, stmt):
            indent = indent_at(data, stmt.start_byte)
        else:
            holder = stmt.parent
            indent = indent_at(data, holder.start_byte) + unit if holder is not None else unit
        return Edit(stmt.start_byte, stmt.end_byte, _indented(lines, indent, nl), rule, order)
    parent = stmt.parent
    before = stmt.prev_sibling
    if parent is None or parent.type not in _BODY_HOLDERS or before is None:
        return None
    outer = indent_at(data, before.start_byte)
    inner = outer + unit
    body = _indented(lines, inner, nl)
    if braces_on_own_line(inp.text):
        text = f"{nl}{outer}{{{nl}{inner}{body}{nl}{outer}}}"
    else:
        text = f" {{{nl}{inner}{body}{nl}{outer}}}"
    after = stmt.next_sibling
    if after is not None and after.type in ("else_clause", "while") and \
            not braces_on_own_line(inp.text):
        # ``} else`` and ``} while (c);`` on the closing brace's line
        return Edit(before.end_byte, after.start_byte, text + " ", rule, order)
    return Edit(before.end_byte, stmt.end_byte, text, rule, order)


def declare_before(inp: RuleInput, stmt: Node, declarations: Sequence[str],
                   inner: Sequence[Edit], rule: str) -> tuple[Edit, ...] | None:
    """Edits declaring ``declarations`` right above ``stmt`` and making the edits ``inner``
    (which lie inside ``stmt``) in it; the statement and its new locals become a block when
    it was an unbraced body. None where no declaration may go above ``stmt``."""
    data = inp.data
    if in_statement_list(stmt) and starts_line(data, stmt):
        indent = indent_at(data, stmt.start_byte)
        nl = newline_of(inp.text)
        start = line_start(data, stmt.start_byte)
        lines = "".join(f"{indent}{d}{nl}" for d in declarations)
        return (Edit(start, start, lines, rule, -1), *inner)
    if any(e.start < stmt.start_byte or e.end > stmt.end_byte for e in inner):
        return None
    own = bytearray(data[stmt.start_byte:stmt.end_byte])
    for e in sorted(inner, key=lambda e: (e.start, e.end), reverse=True):
        own[e.start - stmt.start_byte:e.end - stmt.start_byte] = e.text.encode("utf-8")
    text = own.decode("utf-8")
    indent = indent_at(data, stmt.start_byte)
    # the statement's own later lines, relative to its first
    text = "\n".join([text.split("\n")[0]] + [
        p[len(indent):] if p.startswith(indent) else p.lstrip() for p in text.split("\n")[1:]])
    edit = replace_statement(inp, stmt, [*declarations, text], rule)
    return (edit,) if edit is not None else None


def relative_text(inp: RuleInput, node: Node) -> str:
    """The text of ``node`` with its later lines indented relative to the line it starts on
    (ready to go through ``replace_statement`` or ``hoist_above`` at another depth)."""
    indent = indent_at(inp.data, node.start_byte)
    parts = node_text(node).split("\n")
    return "\n".join([parts[0]] + [p[len(indent):] if p.startswith(indent) else p.lstrip()
                                   for p in parts[1:]])


def guarded(condition: str, statements: Sequence[str], unit: str = "    ") -> str:
    """``statements`` run only when ``condition`` holds, as one ``if`` statement (braced when
    there are several), its body indented by ``unit``."""
    if len(statements) == 1 and "\n" not in statements[0]:
        return f"if ({condition})\n{unit}{statements[0]}"
    body = "\n".join(unit + line if line.strip() else line
                     for s in statements for line in s.split("\n"))
    return f"if ({condition}) {{\n{body}\n}}"


def holding_statement(node: Node, stop: Node) -> Node | None:
    """The statement that evaluates ``node`` exactly once each time it runs, where a local
    computed right above it holds the same value: an expression statement, ``return`` or
    declaration, or the ``if``/``switch`` whose condition holds ``node``. None when ``node``
    is evaluated conditionally or repeatedly within it (an operand of ``&&``, ``||``, ``?:``;
    a loop's condition or update; a lambda's body)."""
    child = node
    parent = node.parent
    while parent is not None and parent != stop:
        kind = parent.type
        if kind == "binary_expression":
            op = parent.child_by_field_name("operator")
            if op is not None and node_text(op) in ("&&", "||") and \
                    parent.child_by_field_name("left") != child:
                return None
        elif kind == "conditional_expression":
            if parent.child_by_field_name("condition") != child:
                return None
        elif kind in ("lambda_expression", "for_statement", "for_range_loop",
                      "while_statement", "do_statement"):
            return None
        elif kind in SIMPLE_STATEMENTS:
            return parent
        elif kind in ("if_statement", "switch_statement"):
            return parent if child.type == "condition_clause" else None
        child = parent
        parent = parent.parent
    return None


def rename(node: Node, names: dict[str, str]) -> str:
    """The text of ``node`` with every identifier in ``names`` (variables, not members or
    types) written as its new name."""
    data = node_text(node).encode("utf-8")
    base = node.start_byte
    out = bytearray(data)
    hits: list[Node] = []
    stack = [node]
    while stack:
        n = stack.pop()
        if n.type == "identifier" and node_text(n) in names:
            hits.append(n)
        stack.extend(n.children)
    for n in sorted(hits, key=lambda n: n.start_byte, reverse=True):
        out[n.start_byte - base:n.end_byte - base] = names[node_text(n)].encode("utf-8")
    return out.decode("utf-8")


def hoist_above(inp: RuleInput, node: Node, lines: str | Sequence[str], rule: str,
                order: int = 0) -> Edit:
    """An edit putting ``lines`` (statements or declarations; a multi-line entry indents its
    later lines relative to the first) on lines of their own right above ``node`` (a loop
    whose invariant work they do once), at its indentation."""
    entries = [lines] if isinstance(lines, str) else list(lines)
    data = inp.data
    if not starts_line(data, node):
        # code before the loop on its line (a one-line function): the text stays on it too
        return insertion_before(inp, node, " ".join(" ".join(e.split()) for e in entries),
                                rule, order)
    indent = indent_at(data, node.start_byte)
    nl = newline_of(inp.text)
    text = _indented(entries, indent, nl)
    anchor = pragma_anchor(node)
    if anchor is not node:
        # above the pragmas that bind to the loop, at the loop's indentation
        start = line_start(data, anchor.start_byte)
        return Edit(start, start, f"{indent}{text}{nl}", rule, order)
    return insertion_before(inp, node, text, rule, order)


def pragma_anchor(node: Node) -> Node:
    """The first of the ``#pragma`` lines right above ``node`` (they bind to it, so text goes
    above them), else ``node`` itself."""
    first = node
    prev = node.prev_sibling
    while prev is not None and prev.type.startswith("preproc"):
        first = prev
        prev = prev.prev_sibling
    return first


def hoist_slot_ok(node: Node) -> bool:
    """Whether lines may go above ``node`` (with the pragmas that bind to it): it sits directly
    in a list of statements."""
    return in_statement_list(node)
