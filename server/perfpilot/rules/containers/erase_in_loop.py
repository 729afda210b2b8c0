"""The erase-in-loop rule: a loop walking a vector, string or deque that erases the element it
is at (``it = v.erase(it)``, ``v.erase(v.begin() + i)``, ``s.erase(i, 1)``).

Each such erase moves every later element down by one, so a loop that filters ``n`` elements
makes O(n²) moves; the erase-remove idiom (``std::remove_if`` then one ``erase``, or C++20's
``std::erase_if``) moves each kept element once.

Rewrite: a ``for`` loop that declares its index (from 0, while ``i < v.size()``) or iterator
(from ``v.begin()``, while ``it != v.end()``), has no step in its header, and whose body is
one ``if``/``else``, erasing at the cursor on one side (and perhaps counting the erase in a
plain local number: ``++n``) and stepping it on the other, becomes
``v.erase(std::remove_if(v.begin(), v.end(), pred), v.end())``, the count added from the
sizes before and after. The predicate is the ``if``'s
condition (negated when the erase is the ``else``) with the element, ``v[i]``, ``*it`` or
``it->``, read through the lambda's parameter. The condition must have no effect (no store, no
call but pure functions and read-only methods) and read the container and the cursor only
as that element, so testing each element once, in any order, decides the same. Any other loop
(a print, a count kept in a reference) keeps its advice, with the reason.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

from perfpilot.code.declarations import VarType
from perfpilot.code.effects import NO_SIDE_EFFECTS, READ_ONLY_METHODS
from perfpilot.code.facts import FunctionFacts
from perfpilot.code.syntax import (
    Node,
    arguments,
    callee,
    identifiers,
    line,
    node_text,
    operator,
    receiver,
    root_name,
    statements,
    unwrap,
    walk,
)
from perfpilot.rules.base import Example, RuleSpec
from perfpilot.rules.detect.common import ARITH, code, loop_phrase, rng, squashed
from perfpilot.rules.edits import Edit
from perfpilot.rules.finding import Finding, Proof, depth_bonus, make_finding
from perfpilot.rules.rewrite_input import (
    Left,
    Planned,
    RuleInput,
    line_indent,
    newline_of,
    statement_slot_ok,
)

RULE_ID = "erase-in-loop"
# Containers whose erase in the middle moves the elements after it (a list's does not).
_SHIFTING = re.compile(r"^(?:std::)?(vector|deque|string|basic_string|wstring)\b")


@dataclass(frozen=True)
class EraseAtCursor(Proof):
    """The erase call, the container it shrinks, the loop variable naming the position, the
    loop, and the container's element type (empty when unknown)."""

    call: Node
    container: str
    cursor: str
    loop: Node
    element: str


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
            proof=EraseAtCursor(call, container, cursor, loop.node, _element(vt)),
        )


def _element(vt: VarType) -> str:
    """The element type of a vector, deque or string, "" when unknown."""
    base = vt.base.replace("const", "").strip()
    if re.match(r"^(?:std::)?string\b", base):
        return "char"
    if re.match(r"^(?:std::)?wstring\b", base):
        return "wchar_t"
    element = vt.element
    return " ".join(element.base.split()) if element is not None else ""


def fix(inp: RuleInput, finding: Finding) -> Planned | Left:
    """The filtering loop as one ``erase`` of what ``std::remove_if`` leaves at the end; or why
    it stays (see the module's docstring)."""
    p = finding.proof
    assert isinstance(p, EraseAtCursor)
    shape = _filter_shape(p)
    if isinstance(shape, str):
        return Left("the loop", p.loop, shape)
    cond, erase_when, counter = shape
    kind = _counter_type(inp.facts, counter, cond) if counter else ""
    if counter and not kind:
        return Left("the loop", p.loop, f"'{counter}', which counts the erased elements, is "
                    "not a plain local number the condition leaves alone")
    if counter and not statement_slot_ok(p.loop):
        return Left("the loop", p.loop, "it is not directly inside a block, so the count "
                    "cannot be taken beside it")
    if not p.element:
        return Left("the loop", p.loop, f"the element type of '{p.container}' is unknown")
    x = inp.fresh_name("x")
    predicate = _predicate(cond, p, x, inp.facts)
    if predicate is None:
        return Left("the loop", p.loop, "its condition does more than read the element it is "
                    "at (a store, a call that may have an effect, another use of the "
                    "container or the cursor)")
    if not erase_when:
        predicate = f"!({predicate})"
    # a number is taken by value, anything else by const reference
    param = f"{p.element} {x}" if p.element in ARITH | {"wchar_t"} else \
        f"const {p.element}& {x}"
    v = p.container
    text = (f"{v}.erase(std::remove_if({v}.begin(), {v}.end(), [&]({param}) {{ return "
            f"{predicate}; }}), {v}.end());")
    counted = ""
    if counter:
        before = inp.fresh_name("old_size")
        diff = f"{before} - {v}.size()"
        nl = newline_of(inp.text)
        indent = line_indent(inp.data, p.loop)[1]
        text = (f"const auto {before} = {v}.size();{nl}{indent}{text}{nl}{indent}{counter} += "
                + (diff if kind in ("std::size_t", "size_t") else
                   f"static_cast<{kind}>({diff})") + ";")
        counted = f", and '{counter}' grows by the number of elements erased"
    return Planned(
        (Edit(p.loop.start_byte, p.loop.end_byte, text, RULE_ID),),
        f"The loop at line {inp.line_of(p.loop)} erased the elements of '{v}' it tested one "
        "at a time, moving every later element each time (O(n²) moves); std::remove_if tests "
        "each element once and moves each kept one once, then one erase drops the tail: the "
        f"same elements, in the same order{counted}.",
        (p.loop,))


def _counter_type(facts: FunctionFacts, name: str, cond: Node) -> str:
    """The declared type of ``name`` when it is a local or by-value arithmetic variable that
    ``cond`` does not read (the filter may test elements in any order), else ""."""
    vt = facts.var(name)
    plain = vt is not None and vt.is_arithmetic and not vt.reference and \
        vt.base != "auto" and name not in identifiers(cond)
    return vt.base if plain and vt is not None else ""


def _branch(node: Node | None) -> list[Node]:
    """The statements a branch is, braces or not."""
    if node is not None and node.type == "else_clause":
        node = node.named_children[0] if node.named_children else None
    if node is None:
        return []
    return statements(node) if node.type == "compound_statement" else [node]


def _only(node: Node | None) -> Node | None:
    """The one statement a branch is, braces or not."""
    inner = _branch(node)
    return inner[0] if len(inner) == 1 else None


def _erasing(branch: Node | None, erases: set[str]) -> tuple[bool, str]:
    """Whether ``branch`` erases at the cursor, alone or beside one ``++n`` (``n``, else "")."""
    found = [squashed(st) for st in _branch(branch)]
    if not any(f in erases for f in found) or len(found) > 2:
        return False, ""
    rest = [f for f in found if f not in erases]
    if not rest:
        return len(found) == 1, ""
    m = re.fullmatch(r"(?:\+\+([A-Za-z_]\w*)|([A-Za-z_]\w*)\+\+|([A-Za-z_]\w*)\+=1);", rest[0])
    return (True, next(g for g in m.groups() if g)) if m is not None else (False, "")


def _filter_shape(p: EraseAtCursor) -> tuple[Node, bool, str] | str:
    """The ``if``'s condition, whether the erase is taken when it holds, and the variable
    counting the erases ("" when none); or why the loop is not the filter the rewrite
    knows."""
    loop, v, c = p.loop, p.container, p.cursor
    if loop.type != "for_statement":
        return "it is not a `for` loop declaring its cursor (the cursor could be read after it)"
    init = loop.child_by_field_name("initializer")
    cond = loop.child_by_field_name("condition")
    if loop.child_by_field_name("update") is not None:
        return "its header steps the cursor on every iteration, erase or not"
    starts = {f"{c}=0", f"{c}={v}.begin()", f"{c}={v}.cbegin()"}
    if init is None or init.type != "declaration" or \
            not any(squashed(d) in starts for d in init.named_children
                    if d.type == "init_declarator") or len(init.named_children) != 2:
        return f"it does not declare '{c}' from the start of '{v}' alone"
    if squashed(cond) not in (f"{c}<{v}.size()", f"{c}!={v}.end()", f"{c}<{v}.length()"):
        return f"its condition is not '{c}' short of the end of '{v}'"
    branch = _only(loop.child_by_field_name("body"))
    if branch is None or branch.type != "if_statement":
        return "its body is more than one `if` that erases or steps"
    test = unwrap(branch.child_by_field_name("condition"))
    then, other = branch.child_by_field_name("consequence"), \
        branch.child_by_field_name("alternative")
    steps = {f"++{c};", f"{c}++;"}
    erases = {squashed(p.call) + ";", f"{c}={squashed(p.call)};"}
    if test is None or other is None:
        return "its `if` has no `else` that steps the cursor"
    for erase_side, step_side, erase_when in ((then, other, True), (other, then, False)):
        erased, counter = _erasing(erase_side, erases)
        if erased and squashed(_only(step_side)) in steps:
            return test, erase_when, counter
    return "a branch does more than erase at the cursor (and count it) or step the cursor"


def _predicate(cond: Node, p: EraseAtCursor, x: str, facts: FunctionFacts) -> str | None:
    """``cond`` with the element at the cursor read as ``x``; None when it may have an effect,
    reads the container or the cursor otherwise, or reads anything but the element and plain
    numbers (a reference, pointer or container might reach the elements the filter moves)."""
    v, c = p.container, p.cursor
    swaps: list[tuple[int, int, str]] = []
    for n in walk(cond, named=True):
        if n.type in ("assignment_expression", "update_expression", "lambda_expression",
                      "new_expression", "delete_expression", "comma_expression"):
            return None
        if n.type == "call_expression":
            method = receiver(n) is not None
            if (method and callee(n) not in READ_ONLY_METHODS) or \
                    (not method and callee(n) not in NO_SIDE_EFFECTS):
                return None
        if n.type != "identifier" or _names_callee(n):
            continue
        if node_text(n) not in (v, c):
            vt = facts.var(node_text(n))
            if vt is None or not vt.is_arithmetic or vt.reference:
                return None
            continue
        up = n.parent
        if up is not None and up.type == "subscript_expression" and node_text(n) == v and \
                squashed(up.child_by_field_name("indices") or
                        up.child_by_field_name("index")).strip("[]") == c:
            swaps.append((up.start_byte, up.end_byte, x))
        elif node_text(n) == c and _indexes(n, v):
            continue  # the index of v[c], swapped above
        elif up is not None and up.type == "pointer_expression" and operator(up) == "*" and \
                node_text(n) == c:
            swaps.append((up.start_byte, up.end_byte, x))
        elif up is not None and up.type == "field_expression" and node_text(n) == c and \
                operator(up) == "->":
            field = up.child_by_field_name("field")
            swaps.append((up.start_byte, up.end_byte, f"{x}.{node_text(field)}"))
        else:
            return None
    data = cond.text or b""
    out, at = [], cond.start_byte
    for start, end, text in sorted(swaps):
        out.append(data[at - cond.start_byte:start - cond.start_byte].decode())
        out.append(text)
        at = end
    out.append(data[at - cond.start_byte:].decode())
    return "".join(out)


def _names_callee(name: Node) -> bool:
    """Whether ``name`` is the function a call calls (``f`` of ``f(x)``, ``static_cast``)."""
    up = name.parent
    if up is not None and up.type in ("template_function", "qualified_identifier"):
        name, up = up, up.parent
    return up is not None and up.type == "call_expression" and \
        up.child_by_field_name("function") == name


def _indexes(name: Node, container: str) -> bool:
    """Whether ``name`` is the whole index of a subscript of ``container``."""
    up = name.parent
    if up is not None and up.type == "subscript_argument_list":
        if up.named_child_count != 1:
            return False
        up = up.parent
    return up is not None and up.type == "subscript_expression" and \
        squashed(up.child_by_field_name("argument")) == container and \
        squashed(up.child_by_field_name("indices") or
                up.child_by_field_name("index")).strip("[]") == node_text(name)


RULE = RuleSpec(
    id=RULE_ID,
    detect=erase_in_loop,
    fix=fix,
    rewrites_as=frozenset({RULE_ID}),
    phase=1,
    order=7,
    examples=(
        Example("cpp", """
#include <vector>
void drop_negative(std::vector<int> &v) {
    for (auto it = v.begin(); it != v.end();) {
        if (*it < 0) {
            it = v.erase(it);
        } else {
            ++it;
        }
    }
}
""", "drop_negative"),
        Example("cpp", """
#include <string>
std::string without_digits(std::string text) {
    for (std::size_t i = 0; i < text.size();) {
        if (text[i] >= '0' && text[i] <= '9')
            text.erase(i, 1);
        else
            ++i;
    }
    return text;
}
""", "without_digits"),
    ),
)
