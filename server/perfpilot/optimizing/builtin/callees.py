"""Carrying out a plan's strategies about a callee: rewrite a renamed copy, call the copy.

The planner marks findings in a function that the planned one calls directly
(``Strategy.callee``). The callee itself may have other callers, so it is never changed: its
rewrite goes into a copy under a fresh name, ``static`` (the unit's own), whose recursive calls
name the copy too; the planned function, placed after the copy, calls the copy instead. The
candidate's text is both definitions: the copy, a blank line, then the function, and it replaces
the function in the unit, so the copy lands just above it, where everything the callee names is
declared too (``code/callees.py`` refuses callees for which that does not hold).

Names are changed through the syntax tree (the declarator's name and the ``call_expression``
nodes that call the callee by its plain identifier), never by matching text; any other use of
the name refuses the rewrite.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import tree_sitter

from perfpilot.code.callees import DirectCallee, direct_callees, direct_calls
from perfpilot.code.loops import parse_function_node
from perfpilot.code.parse import parse
from perfpilot.code.site import FunctionSite
from perfpilot.code.syntax import (
    node_text,
)
from perfpilot.rules.edits import Edit, apply_edits
from perfpilot.rules.registry import Phase
from perfpilot.rules.rewrite_input import fresh_name, identifiers
from perfpilot.rules.rewriting import RewriteResult, rewrite
from perfpilot.strategy.values import Plan

Node = tree_sitter.Node

# Children of a definition that must stay ahead of a ``static`` added to it.
_BEFORE_SPECIFIERS = frozenset({"attribute_declaration", "attribute_specifier", "comment",
                                "ms_declspec_modifier"})


@dataclass(frozen=True)
class CalleePlan:
    """The part of a plan about one callee: its name and the plan of its strategies."""

    callee: str
    plan: Plan


@dataclass(frozen=True)
class CalleeRewrite:
    """A callee rewritten as a copy: the candidate text (the copy, a blank line, the caller
    calling it), the copy's name, the callee's rewrite, and notes for the candidate."""

    callee: str
    copy_name: str
    code: str
    result: RewriteResult
    notes: tuple[str, ...]


def split_plan(plan: Plan) -> tuple[Plan, tuple[CalleePlan, ...]]:
    """The plan's strategies about the planned function itself, and those about each callee
    (in the order of their first strategy)."""
    own = replace(plan, strategies=tuple(s for s in plan.strategies if not s.callee))
    names = list(dict.fromkeys(s.callee for s in plan.strategies if s.callee))
    parts = tuple(CalleePlan(n, replace(plan, strategies=tuple(
        s for s in plan.strategies if s.callee == n))) for n in names)
    return own, parts


def callee_of(site: FunctionSite, name: str) -> DirectCallee | str:
    """The direct callee ``name`` of ``site`` when a copy of it may be rewritten, else why
    not."""
    found = next((c for c in direct_callees(site) if c.name == name), None)
    if found is None:
        return f"`{site.name}` has no direct call to a function `{name}` of its unit"
    if found.site is None or found.refusal:
        return found.refusal or f"`{name}` cannot be located"
    return found


def _renamed(text: str, site: FunctionSite, old: str, new: str, *,
             definition: bool) -> str | None:
    """``text`` (one function definition) with its calls of ``old`` by plain name, and with
    ``definition`` its own declared name, spelled ``new``, and made ``static`` when it was
    not; None when ``old`` is used otherwise (an address, a shadowing local) or, for a caller,
    never called."""
    data = text.encode("utf-8")
    root = parse(data, site.language).root_node
    fn = parse_function_node(root)
    if root.has_error or fn.type != "function_definition":
        return None
    calls, others = direct_calls(fn, old)
    edits = [Edit(f.start_byte, f.end_byte, new, "callee")
             for c in calls if (f := c.child_by_field_name("function")) is not None]
    if definition:
        name = _declared_name(fn)
        if name is None or node_text(name) != old:
            return None
        others = [n for n in others if n.start_byte != name.start_byte]
        edits.append(Edit(name.start_byte, name.end_byte, new, "callee"))
        storage = {node_text(c) for c in fn.children if c.type == "storage_class_specifier"}
        if "extern" in storage:
            return None
        if "static" not in storage:
            first = next((c for c in fn.children if c.type not in _BEFORE_SPECIFIERS), fn)
            edits.append(Edit(first.start_byte, first.start_byte, "static ", "callee"))
    elif not calls:
        return None
    if others:
        return None
    return apply_edits(text, edits)


def _declared_name(fn: Node) -> Node | None:
    """The identifier node a definition declares (its function declarator's name)."""
    decl = fn.child_by_field_name("declarator")
    while decl is not None and decl.type != "function_declarator":
        decl = decl.child_by_field_name("declarator")
    name = decl.child_by_field_name("declarator") if decl is not None else None
    return name if name is not None and name.type == "identifier" else None


def callee_rewrite(site: FunctionSite, callee: str, rules: frozenset[str],
                   extra: tuple[Phase, ...] = (), caller_text: str | None = None,
                   ) -> CalleeRewrite | str:
    """The candidate text that carries out ``rules`` in a copy of ``callee`` (a direct callee
    of ``site``), with ``caller_text`` (``site``'s text, or its own rewrite) calling the copy;
    else why not, in words."""
    found = callee_of(site, callee)
    if isinstance(found, str):
        return found
    assert found.site is not None
    result = rewrite(found.site, rules, extra)
    if not result.changed:
        why = "; ".join(result.notes[:3]) if result.notes else "no pattern found"
        return f"no builtin rule applies to `{callee}`: {why}"
    caller = site.text if caller_text is None else caller_text
    taken = identifiers(site.unit_text) | identifiers(result.code) | identifiers(caller)
    new = fresh_name(taken, f"{callee}_fast")
    copy = _renamed(result.code, found.site, callee, new, definition=True)
    if copy is None:
        return (f"`{callee}` names itself other than by direct calls, so a renamed copy could "
                "not stand for it")
    calling = _renamed(caller, site, callee, new, definition=False)
    if calling is None:
        return (f"`{site.name}` has no direct call to `{callee}`, or uses it other than by "
                "calling it")
    newline = "\r\n" if "\r\n" in site.unit_text else "\n"
    code = copy.rstrip() + newline + newline + calling
    rules_done = ", ".join(sorted(result.rules))
    notes = (f"`{new}` is a copy of `{callee}` rewritten ({rules_done}); `{callee}` itself is "
             f"left unchanged for its other callers, and `{site.name}` now calls `{new}`",
             *(f"in `{callee}`: {n}" for n in result.notes))
    return CalleeRewrite(callee, new, code, result, notes)
