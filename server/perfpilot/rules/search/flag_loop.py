"""Flag loops: a loop whose only effect is to set one local variable to one constant when a
side-effect-free condition holds (``for (...) if (w[i] == c) found = true;``).

Once the variable holds the constant, every later iteration either stores the same constant
again or does nothing, and evaluating the condition changes nothing: the loop may stop at the
first store. The proof asks for exactly that: a ``for`` or range ``for`` whose counter does not
outlive it, a header that only steps its counter, a body that is one ``if`` without ``else``
whose branch is only ``flag = constant;``, a condition with no effect (no write, call that may
change state or throw, jump or I/O), and a flag that is a non-volatile local of the function.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

from perfpilot.code.declarations import VarType
from perfpilot.code.first_match import predicate_problem
from perfpilot.code.loop_header import read_header
from perfpilot.code.syntax import (
    Node,
    node_text,
    statements,
    unwrap,
    walk,
)

_CONSTANTS = frozenset({"true", "false", "number_literal", "char_literal", "null", "nullptr"})
_STEPS = frozenset({"update_expression", "assignment_expression"})


@dataclass(frozen=True)
class FlagLoop:
    """A flag loop: the flag, the constant it is set to, and the one statement that sets it
    (``flag = constant;``)."""

    flag: str
    constant: str
    statement: Node

    @property
    def store(self) -> tuple[int, int]:
        """The byte range of the store statement."""
        return self.statement.start_byte, self.statement.end_byte


def flag_loop(loop: Node, types: Mapping[str, VarType | None],
              pure: Callable[[str], bool] | None = None) -> FlagLoop | str:
    """The loop as a flag loop, or why it is not one."""
    if loop.type not in ("for_statement", "for_range_loop"):
        return "not a for loop"
    if _under_pragma(loop):
        return "a pragma governs the loop (an OpenMP loop may not break)"
    why = _header_problem(loop, pure)
    if why:
        return why
    stmts = statements(loop.child_by_field_name("body"))
    if len(stmts) != 1 or stmts[0].type != "if_statement" or \
            stmts[0].child_by_field_name("alternative") is not None:
        return "the body is not a single 'if' without 'else'"
    stmt = stmts[0]
    cond = unwrap(stmt.child_by_field_name("condition"))
    if cond is None:
        return "the 'if' has no plain condition"
    why = predicate_problem(loop, cond, pure)
    if why:
        return why
    branch = statements(stmt.child_by_field_name("consequence"))
    if len(branch) != 1 or branch[0].type != "expression_statement":
        return "the branch does more than store one value"
    store = unwrap(branch[0].named_children[0]) if branch[0].named_children else None
    if store is None or store.type != "assignment_expression" or \
            node_text(store.child_by_field_name("operator")) != "=":
        return "the branch does more than store one value"
    left, right = store.child_by_field_name("left"), unwrap(store.child_by_field_name("right"))
    if left is None or left.type != "identifier" or right is None:
        return "the branch does not store into a plain variable"
    if right.type not in _CONSTANTS and not _negative_number(right):
        return f"'{node_text(store)}' does not store a constant"
    flag = node_text(left)
    vt = types.get(flag)
    if vt is None or vt.scope != "local" or vt.pointer or vt.array or vt.reference or \
            "volatile" in vt.type_text.split():
        return f"'{flag}' is not a plain local variable of the function"
    return FlagLoop(flag, node_text(right), branch[0])


def _negative_number(node: Node) -> bool:
    arg = node.child_by_field_name("argument")
    return node.type == "unary_expression" and node_text(node).startswith("-") and \
        arg is not None and arg.type == "number_literal"


def _under_pragma(loop: Node) -> bool:
    prev = loop.prev_named_sibling
    while prev is not None and prev.type == "comment":
        prev = prev.prev_named_sibling
    return prev is not None and prev.type == "preproc_call" and \
        node_text(prev).lstrip("# \t").startswith("pragma")


def _header_problem(loop: Node, pure: Callable[[str], bool] | None) -> str:
    """Why leaving the loop early could change something outside it: a counter that
    outlives the loop, a condition with an effect, an update that does more than step."""
    if loop.type == "for_range_loop":
        return ""
    header = read_header(loop)
    init = header.initializer
    if init is not None and not header.declared:
        return "the counter is declared before the loop, so its final value may be read"
    cond = header.condition
    if cond is not None:
        why = predicate_problem(loop, cond, pure)
        if why:
            return f"the loop's condition may have an effect ({why})"
    update = header.update
    if update is not None:
        steps = update.named_children if update.type == "comma_expression" else [update]
        declared = _declared_names(init)
        for step in steps:
            target = step.child_by_field_name("argument") or step.child_by_field_name("left")
            if step.type not in _STEPS or target is None or node_text(target) not in declared or \
                    any(n.type == "call_expression" for n in walk(step)):
                return "the loop's update does more than step its own counters"
    return ""


def _declared_names(init: Node | None) -> set[str]:
    if init is None:
        return set()
    names: set[str] = set()
    for child in init.named_children:
        decl = child.child_by_field_name("declarator") if child.type == "init_declarator" \
            else child
        if decl is not None and decl.type == "identifier":
            names.add(node_text(decl))
    return names
