"""Applying the builtin rules to a function: phases of edits, each re-parsed and re-analysed.

The built-in optimizer runs it to make candidates, and the built-in planner to ask, without
compiling anything, whether a finding's rewrite would change the code at all (advice).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace

from perfpilot.code.declarations import declared_types, top_level_types
from perfpilot.code.loops import find_loops, parse_function_node
from perfpilot.code.parse import parse
from perfpilot.code.site import FunctionSite
from perfpilot.rules.edits import apply_edits, overlaps
from perfpilot.rules.registry import rewrite_phases
from perfpilot.rules.rewrite_input import Change, Node, RuleInput, RuleOutput, identifiers

RuleFn = Callable[[RuleInput], RuleOutput]

OPENMP_RULES = frozenset({"openmp-for", "openmp-reduction"})

# Phases run in order on the text the previous phase produced; a rule function may emit
# changes under several rule ids (the OpenMP rule emits both of OPENMP_RULES). Built from the
# rule modules (``perfpilot.rules``): each declares its rewrite's phase and order.
PHASES: tuple[tuple[tuple[frozenset[str], RuleFn], ...], ...] = rewrite_phases()

ALL_RULES: frozenset[str] = frozenset().union(*(ids for phase in PHASES for ids, _ in phase))


@dataclass(frozen=True)
class Applied:
    """One rewrite that was made: its rule id, the explanation, the unit lines it is about."""

    rule: str
    explanation: str
    lines: tuple[int, ...]
    includes: tuple[str, ...] = ()


@dataclass(frozen=True)
class RewriteResult:
    """The function's new text, the rewrites made, and notes on what was left and why."""

    code: str
    applied: tuple[Applied, ...]
    notes: tuple[str, ...]
    needs_openmp: bool

    @property
    def changed(self) -> bool:
        """Whether any rule changed the function."""
        return bool(self.applied)

    @property
    def rules(self) -> frozenset[str]:
        """The rule ids applied."""
        return frozenset(a.rule for a in self.applied)

    @property
    def includes(self) -> tuple[str, ...]:
        """Standard headers the rewrites need, in the order first asked for."""
        return tuple(dict.fromkeys(h for a in self.applied for h in a.includes))


def rule_input(site: FunctionSite, text: str, unit: Node | None = None) -> RuleInput | None:
    """Parse and analyse ``text`` (the function's current text); None when it has errors.

    ``unit``: the unit's parsed root, when the caller has it (parsed here otherwise).
    """
    tree = parse(text, site.language)
    if tree.root_node.has_error:
        return None
    fn = parse_function_node(tree.root_node)
    if fn.type != "function_definition":
        return None
    if unit is None:
        unit = parse(site.unit_text, site.language).root_node
    unit_globals = top_level_types(unit)
    types = {**unit_globals, **declared_types(fn)}
    loops = find_loops(fn, line_base=site.start_line, types=types, unit=unit)
    return RuleInput(site=site, text=text, tree=tree, function=fn, loops=loops, types=types,
                     taken=names_in_scope(site, unit) | identifiers(text), unit=unit,
                     unit_globals=unit_globals)


_MACRO = re.compile(r"^[ \t]*#[ \t]*define[ \t]+([A-Za-z_]\w*)", re.M)


def names_in_scope(site: FunctionSite, unit: Node) -> frozenset[str]:
    """The words of the unit a new local of ``site``'s function could clash with: all of the
    unit but the bodies of other functions (their locals are out of scope: an `i` there must
    not make the new loop's counter `i2`), and every macro wherever it is defined."""
    data = site.unit_text.encode()
    cuts: list[tuple[int, int]] = []
    stack = [unit]
    while stack:
        node = stack.pop()
        body = node.child_by_field_name("body") if node.type == "function_definition" else None
        if body is not None and not node.start_byte <= site.start_byte < node.end_byte:
            cuts.append((body.start_byte, body.end_byte))
            continue
        stack.extend(node.named_children)
    kept, at = [], 0
    for start, end in sorted(cuts):
        kept.append(data[at:start])
        at = end
    kept.append(data[at:])
    return identifiers(b" ".join(kept).decode(errors="replace")) | \
        frozenset(_MACRO.findall(site.unit_text))


def _select_changes(changes: Iterable[Change]) -> tuple[list[Change], list[Change]]:
    kept: list[Change] = []
    dropped: list[Change] = []
    for ch in changes:
        if any(overlaps(e, k) for e in ch.edits for c in kept for k in c.edits):
            dropped.append(ch)
        else:
            kept.append(ch)
    return kept, dropped


def rewrite(site: FunctionSite, rules: Iterable[str] | None = None,
            extra_phases: tuple[tuple[tuple[frozenset[str], RuleFn], ...], ...] = (),
            unit: Node | None = None, analysed: dict[str, RuleInput] | None = None,
            ) -> RewriteResult:
    """Apply the builtin rules (all, or only ``rules`` ids) to ``site``; pure and synchronous.

    Each phase computes its edits on the text the previous phase produced, applies them back
    to front, and must re-parse without errors, else the phase is dropped with a note.
    ``extra_phases`` (run after the built-in ones) lets callers add rules. ``unit``: the
    unit's parsed root, when the caller has it (parsed here otherwise). ``analysed``: the
    analysed texts of ``site`` by text, kept across calls that ask one rule at a time (the
    analysis of the loops is most of a call's cost).
    """
    enabled = ALL_RULES | frozenset(i for p in extra_phases for ids, _ in p for i in ids) \
        if rules is None else frozenset(rules)
    text = site.text
    applied: list[Applied] = []
    notes: list[str] = []
    if parse(text, site.language).root_node.has_error:
        return RewriteResult(text, (), ("the function does not parse cleanly; no rewrite",),
                             False)
    if unit is None:  # once: phases change only the function
        unit = parse(site.unit_text, site.language).root_node
    for phase in (*PHASES, *extra_phases):
        active = [(ids, fn) for ids, fn in phase if ids & enabled]
        if not active:
            continue
        inp = analysed.get(text) if analysed is not None else None
        if inp is None:
            inp = rule_input(site, text, unit)
            if inp is not None and analysed is not None:
                analysed[text] = inp
        if inp is None:
            notes.append("a rewrite left the function unparsable; later rules skipped")
            break
        changes: list[Change] = []
        for _ids, fn in active:
            found, rule_notes = fn(inp)
            changes.extend(c for c in found if c.rule in enabled)
            notes.extend(rule_notes)
        kept, dropped = _select_changes(changes)
        notes.extend(f"{c.rule}: skipped, it overlaps another rewrite" for c in dropped)
        if not kept:
            continue
        new_text = apply_edits(text, [e for c in kept for e in c.edits])
        if parse(new_text, site.language).root_node.has_error:
            notes.append("rules " + ", ".join(sorted({c.rule for c in kept})) +
                         " produced text that does not parse; dropped")
            continue
        text = new_text
        applied.extend(Applied(c.rule, c.explanation, c.lines, c.includes) for c in kept)
    return RewriteResult(text, tuple(applied), tuple(notes),
                         any(a.rule in OPENMP_RULES for a in applied))


# How a rewrite's note starts: the id of its rule, or of its module (``openmp: ...``).
_NOTE_HEAD = re.compile(r"[a-z][a-z0-9-]*:\s")


def note_text(note: str) -> str:
    """A rewrite's note without the rule id it starts with."""
    head = _NOTE_HEAD.match(note)
    return note[head.end():] if head is not None else note


def site_with_text(site: FunctionSite, text: str) -> FunctionSite:
    """A copy of ``site`` whose function text is ``text`` (the unit text is left unchanged)."""
    return replace(site, text=text)
