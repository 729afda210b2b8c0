"""Run every detector over one function (and, when asked, over the functions of its unit it
calls directly: ``code/callees.py``) and rank what they find."""

from __future__ import annotations

import logging
from dataclasses import dataclass, replace

import tree_sitter

from perfpilot.code.callees import MAX_CALLEE_CHARS, MAX_CALLEES, direct_callees
from perfpilot.code.facts import FunctionFacts
from perfpilot.code.locate import iter_function_nodes
from perfpilot.code.parse import parse
from perfpilot.code.site import FunctionSite
from perfpilot.code.syntax import (
    Node,
)
from perfpilot.rules import registry
from perfpilot.rules.by_finding import Detector
from perfpilot.rules.finding import Finding, InCallee, plan_order

log = logging.getLogger(__name__)

# One entry per rule module (``perfpilot.rules``), in detection order.
DETECTORS: tuple[tuple[str, Detector], ...] = registry.detectors()


@dataclass(frozen=True)
class Analysis:
    """Ranked findings for one function, plus notes on anything that could not be analysed."""

    findings: tuple[Finding, ...]
    notes: tuple[str, ...] = ()


def _function_node(root: Node, site: FunctionSite) -> Node | None:
    node = root.named_descendant_for_byte_range(site.start_byte, site.end_byte)
    while node is not None:
        if node.type == "function_definition" and node.end_byte <= site.end_byte:
            return node
        if node.type == "template_declaration" and node.start_byte == site.start_byte:
            inner = next((c for c in node.named_children if c.type == "function_definition"),
                         None)
            if inner is not None:
                return inner
        node = node.parent
    for fn in iter_function_nodes(root):
        outer = fn.parent if fn.parent is not None and fn.parent.type == "template_declaration" \
            else fn
        if outer.start_byte == site.start_byte:
            return fn
    return None


def rank(findings: list[Finding]) -> tuple[Finding, ...]:
    """Largest kind of gain first (complexity, parallelism, constant factors), then highest
    expected impact; one finding per (rule, lines, node).

    A finding whose node lies inside what another rule's finding of the same category claims
    (``Finding.claims``) is dropped: the two name one strategy, and the claiming rule has
    proved the facts its rewrite needs (a generic "scan once before the loop" beside a rule
    that builds the table of counts).
    """
    claims = [(f.rule, f.category_id, c) for f in findings for c in f.claims]

    def superseded(f: Finding) -> bool:
        node = f.node_range
        return node is not None and any(
            rule != f.rule and cat == f.category_id and lo <= node[0] and node[1] <= hi
            for rule, cat, (lo, hi) in claims)

    seen: set[tuple[str, tuple[int, ...], tuple[int, int] | None]] = set()
    out: list[Finding] = []
    for f in sorted(findings, key=plan_order):
        key = (f.rule, f.lines, f.node_range)
        if key not in seen and not superseded(f):
            seen.add(key)
            out.append(f)
    return tuple(out)


def _in_callee(f: Finding, callee: InCallee) -> Finding:
    """A callee's finding as one of its caller's: said to be in the callee, the call line last
    among its evidence lines."""
    text = f.explanation
    if len(text) > 1 and text[0].isupper() and text[1].islower():
        text = text[0].lower() + text[1:]
    return replace(f, explanation=f"In `{callee.name}`, called from line {callee.call_line}: "
                                  f"{text}",
                   lines=tuple(dict.fromkeys((*f.lines, callee.call_line))), callee=callee)


def callee_analysis(site: FunctionSite, tree: tree_sitter.Tree,
                    detectors: tuple[tuple[str, Detector], ...] = DETECTORS,
                    limit: int = MAX_CALLEES, budget: int = 2 * MAX_CALLEE_CHARS) -> Analysis:
    """The findings in the functions of the unit ``site`` calls directly (``direct_callees``),
    each marked as in its callee (``Finding.callee``), unranked; notes say which callees were
    left out and why. At most ``limit`` callees and ``budget`` characters of them are
    analysed."""
    found: list[Finding] = []
    notes: list[str] = []
    for c in direct_callees(site, tree.root_node, limit):
        if c.site is None or c.refusal:
            notes.append(f"callee not analysed: {c.refusal}")
            continue
        if len(c.site.text) > budget:
            notes.append(f"callee not analysed: `{c.name}` is beyond the size analysed per "
                         "function")
            continue
        budget -= len(c.site.text)
        sub = analyze_site(c.site, detectors, tree)
        where = InCallee(c.name, c.call_lines[0] if c.call_lines else site.first_line)
        found.extend(_in_callee(f, where) for f in sub.findings)
        notes.extend(f"in `{c.name}`: {n}" for n in sub.notes if n.startswith("detector "))
    return Analysis(tuple(found), tuple(notes))


def analyze_site(site: FunctionSite, detectors: tuple[tuple[str, Detector], ...] = DETECTORS,
                 tree: tree_sitter.Tree | None = None, *, callees: bool = False) -> Analysis:
    """All findings for ``site`` ranked by gain and impact (``rank``); never raises on odd or
    partial code.

    ``tree`` may pass the unit's parse tree (of exactly ``site.unit_text``) to save a reparse
    when many functions of one unit are analysed. ``callees``: the findings in the functions
    of the unit that ``site`` calls directly are ranked with its own (``callee_analysis``).
    """
    notes: list[str] = []
    try:
        if tree is None:
            tree = parse(site.unit_text, site.language)
        fn = _function_node(tree.root_node, site)
        if fn is None:
            return Analysis((), (f"could not find '{site.name}' in the parsed unit",))
        facts = FunctionFacts(site, fn, tree.root_node)
    except Exception as exc:  # analysis must never take the job down
        log.exception("builtin analysis setup failed")
        return Analysis((), (f"static analysis failed: {type(exc).__name__}: {exc}",))
    if fn.has_error:
        notes.append("the function has syntax errors; findings near them may be incomplete")
    found: list[Finding] = []
    for name, detect in detectors:
        try:
            found.extend(detect(facts))
        except Exception as exc:
            log.exception("detector %s failed", name)
            notes.append(f"detector {name} failed: {type(exc).__name__}: {exc}")
    notes.extend(facts.notes)
    if callees:
        try:
            more = callee_analysis(site, tree, detectors)
        except Exception as exc:
            log.exception("callee analysis failed")
            more = Analysis((), (f"callee analysis failed: {type(exc).__name__}: {exc}",))
        found.extend(more.findings)
        notes.extend(more.notes)
    return Analysis(rank(found), tuple(notes))


def analyze(site: FunctionSite, tree: tree_sitter.Tree | None = None) -> list[Finding]:
    """Every finding for ``site``, largest expected gain first (see ``analyze_site``)."""
    return list(analyze_site(site, tree=tree).findings)
