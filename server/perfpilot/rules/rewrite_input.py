"""What every builtin rule receives and returns, and small helpers over the function's tree."""

from __future__ import annotations

import re
from collections.abc import Mapping, Set
from dataclasses import dataclass, field, replace
from functools import cached_property

import tree_sitter

from perfpilot.code.declarations import VarType, declared_types
from perfpilot.code.facts import FunctionFacts
from perfpilot.code.loops import LoopFacts
from perfpilot.code.site import FunctionSite, Language
from perfpilot.code.syntax import (
    LOOP_TYPES,
    node_text,
)
from perfpilot.rules.edits import Edit

Node = tree_sitter.Node


@dataclass(frozen=True)
class Change:
    """One logical rewrite: its rule id, its edits (applied all or none), why, where."""

    rule: str
    edits: tuple[Edit, ...]
    explanation: str
    lines: tuple[int, ...]
    includes: tuple[str, ...] = ()  # standard headers the rewrite needs ("<algorithm>")


@dataclass(frozen=True)
class RuleInput:
    """The current function text, parsed and analysed, plus the original site."""

    site: FunctionSite
    text: str
    tree: tree_sitter.Tree
    function: Node
    loops: tuple[LoopFacts, ...]
    types: Mapping[str, VarType | None]
    taken: frozenset[str]
    unit: Node  # the root of the parsed translation unit (the original, unchanged)
    unit_globals: Mapping[str, VarType | None]  # its top-level variables
    # Names handed out by ``fresh_name``: two rewrites in one phase (two loops, two rules)
    # must not both declare the same new local.
    issued: set[str] = field(default_factory=set, compare=False, repr=False)

    @cached_property
    def facts(self) -> FunctionFacts:
        """The fact model of the current text (the one detections use), built when asked.

        Lines it reports count from the function's first line; use ``line_of`` for unit lines.
        """
        return FunctionFacts(replace(self.site, text=self.text), self.function,
                             self.tree.root_node, self.unit)

    @cached_property
    def global_names(self) -> frozenset[str]:
        """The unit's top-level variables the function does not declare again (a parameter
        or local of the same name hides one)."""
        return frozenset(self.unit_globals) - frozenset(declared_types(self.function))

    @property
    def language(self) -> Language:
        """The function's language."""
        return self.site.language

    @property
    def data(self) -> bytes:
        """The current text as UTF-8 bytes (all offsets index these)."""
        return self.text.encode("utf-8")

    def line_of(self, node_or_byte: Node | int) -> int:
        """1-based unit line of a node or byte offset of the current text."""
        if isinstance(node_or_byte, int):
            row = self.data[:node_or_byte].count(b"\n")
        else:
            row = node_or_byte.start_point[0]
        return self.site.start_line + row + 1

    def node_at(self, start: int, end: int, types: Set[str] | None = None) -> Node | None:
        """The node spanning exactly ``[start, end)`` (of one of ``types`` when given)."""
        node: Node | None = self.function.descendant_for_byte_range(start, end)
        while node is not None:
            if node.start_byte == start and node.end_byte == end and \
                    (types is None or node.type in types):
                return node
            if node.start_byte < start or node.end_byte > end:
                return None
            node = node.parent
        return None

    def fresh_name(self, base: str) -> str:
        """A valid identifier built from ``base`` that the unit and the function do not use,
        nor any earlier call on this input."""
        name = fresh_name(self.taken | self.issued, base)
        self.issued.add(name)
        return name


def fresh_name(taken: Set[str], base: str) -> str:
    """A valid identifier built from ``base`` that is not in ``taken``."""
    name = re.sub(r"\W+", "_", base).strip("_") or "tmp"
    if name[0].isdigit():
        name = "v_" + name
    candidate, k = name, 2
    while candidate in taken:
        candidate = f"{name}{k}"
        k += 1
    return candidate


RuleOutput = tuple[list[Change], list[str]]


@dataclass(frozen=True)
class Planned:
    """A rewrite a rule has proved: its edits, why in words, the nodes whose lines it is
    about, and the standard headers it needs."""

    edits: tuple[Edit, ...]
    explanation: str
    about: tuple[Node, ...]
    includes: tuple[str, ...] = ("<algorithm>",)


@dataclass(frozen=True)
class Left:
    """A candidate a rule leaves as it is: what it is in words (``the sort``; empty: the node's
    code), the node whose line names it, why, and how it stays (``stays``, ``stays linear``)."""

    what: str
    node: Node
    why: str
    stays: str = "stays"


def planned_change(inp: RuleInput, rule_id: str, planned: Planned) -> Change:
    """The change of a planned rewrite; its lines are those of the nodes it is about."""
    return Change(rule_id, planned.edits, planned.explanation,
                  tuple(dict.fromkeys(inp.line_of(n) for n in planned.about)), planned.includes)


def left_note(inp: RuleInput, rule_id: str, left: Left) -> str:
    """``rule: what on line N stays: why``; ``what`` is the node's code when left empty."""
    what = left.what or f"`{shown(node_text(left.node))}`"
    return f"{rule_id}: {what} on line {inp.line_of(left.node)} {left.stays}: {left.why}"


def shown(code: str, limit: int = 60) -> str:
    """Code on one line, cut to ``limit`` characters for a note."""
    one = " ".join(code.split())
    return one if len(one) <= limit else one[:limit - 1].rstrip() + "…"


def identifiers(text: str) -> frozenset[str]:
    """Every identifier-like word of a text (cheap superset used to avoid name clashes)."""
    return frozenset(re.findall(r"[A-Za-z_]\w*", text))


def loop_node(inp: RuleInput, lp: LoopFacts) -> Node | None:
    """The tree node of a loop found by the analysis."""
    return inp.node_at(lp.start_byte, lp.end_byte, LOOP_TYPES)


def line_indent(data: bytes, node: Node) -> tuple[int, str]:
    """Where the line holding ``node`` starts, and its indentation ('' when code precedes
    ``node`` on that line)."""
    line_start = data.rfind(b"\n", 0, node.start_byte) + 1
    prefix = data[line_start:node.start_byte]
    return line_start, prefix.decode("utf-8") if prefix.strip() == b"" else ""


def insertion_before(inp: RuleInput, node: Node, line_text: str, rule: str,
                     order: int) -> Edit:
    """An edit putting ``line_text`` on its own line just above ``node``, at its indentation."""
    data = inp.data
    nl = newline_of(inp.text)
    line_start = data.rfind(b"\n", 0, node.start_byte) + 1
    prefix = data[line_start:node.start_byte]
    if prefix.strip() == b"":
        indent = prefix.decode("utf-8")
        return Edit(line_start, line_start, f"{indent}{line_text}{nl}", rule, order)
    if line_text.startswith("#"):
        return Edit(node.start_byte, node.start_byte, f"{nl}{line_text}{nl}", rule, order)
    return Edit(node.start_byte, node.start_byte, f"{line_text} ", rule, order)


def newline_of(text: str) -> str:
    """The text's line ending (CRLF files keep CRLF in inserted lines)."""
    return "\r\n" if "\r\n" in text else "\n"


def statement_slot_ok(node: Node) -> bool:
    """Whether text may be inserted right above ``node``: it sits directly in a block and no
    preprocessor line (a pragma that binds to it) precedes it."""
    parent = node.parent
    if parent is None or parent.type != "compound_statement":
        return False
    prev = node.prev_sibling
    return prev is None or not prev.type.startswith("preproc")


def inside_loop(node: Node, stop: Node) -> bool:
    """Whether ``node`` lies inside a loop below ``stop``."""
    parent = node.parent
    while parent is not None and parent != stop:
        if parent.type in LOOP_TYPES:
            return True
        parent = parent.parent
    return False


def text_of(node: Node) -> str:
    """The text of a node with runs of whitespace collapsed."""
    return " ".join(node_text(node).split())
