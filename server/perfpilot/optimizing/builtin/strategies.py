"""Naming applied rewrites as strategies: reuse the plan's when it has the same rule."""

from __future__ import annotations

import re
from dataclasses import replace

from perfpilot.rules.finding import RULES
from perfpilot.rules.registry import RULE_SPECS, rule_spec
from perfpilot.rules.rewriting import ALL_RULES, RewriteResult, note_text
from perfpilot.strategy.categories import Category, category_by_id
from perfpilot.strategy.values import Plan, Strategy


def category_of(rule: str) -> Category:
    """The strategy category a builtin rule belongs to."""
    known = RULES.get(rule)
    return category_by_id(known.category_id if known is not None else 4)


def planned_rules(plan: Plan) -> frozenset[str]:
    """The rewrites that carry out ``plan``: the built-in optimizer applies these and no others.

    A strategy that names a builtin finding licenses the rewrites its rule module pairs with it
    (none when the idiom has no mechanical rewrite); one that names only a category (a model's
    plan) licenses every rewrite of that category.
    """
    out: set[str] = set()
    for s in plan.strategies:
        spec = rule_spec(s.rule) if s.rule else None
        if spec is not None:
            out |= spec.rewrites_as
        else:
            out |= {r for r in ALL_RULES if category_of(r).id == s.category.id}
    return frozenset(out)


def _planned(rule: str, planned: dict[str, Strategy]) -> Strategy | None:
    """The plan's strategy a rewrite carries out: the one of the same rule id, else one whose
    finding the rule modules pair with this rewrite (a ``strlen`` condition is fixed by the
    invariant-call hoist)."""
    if rule in planned:
        return planned[rule]
    for spec in RULE_SPECS:
        if rule in spec.rewrites_as and rule not in spec.finding_ids:
            hit = next((planned[f] for f in sorted(spec.finding_ids) if f in planned), None)
            if hit is not None:
                return hit
    return None


def strategies_for(result: RewriteResult, plan: Plan) -> tuple[Strategy, ...]:
    """One strategy per rule applied: the plan's strategy for that rule (no longer advice),
    else a new one with the rewrite's own explanation (several changes of one rule are
    joined)."""
    by_rule: dict[str, list[str]] = {}
    lines: dict[str, set[int]] = {}
    for a in result.applied:
        by_rule.setdefault(a.rule, []).append(a.explanation)
        lines.setdefault(a.rule, set()).update(a.lines)
    # a strategy the plan left as advice that a rewrite carries out after all is advice no more
    planned = {s.rule: replace(s, advice="") for s in plan.strategies if s.rule}
    out: list[Strategy] = []
    for rule, texts in by_rule.items():
        strategy = _planned(rule, planned) or Strategy(
            category=category_of(rule), explanation=" ".join(texts),
            lines=tuple(sorted(lines[rule])), rule=rule)
        if strategy not in out:
            out.append(strategy)
    return tuple(out)


# Note prefixes that name a rule module rather than a rule id.
_NOTE_ALIASES = {"openmp": frozenset({"openmp-for", "openmp-reduction"}),
                 "hoist": frozenset({"hoist-invariant-call"})}
_NOTE_HEAD = re.compile(r"(?:^|[;:]\s)([a-z][a-z0-9-]*):\s")
# How the optimizer's own note on a strategy no rule explained begins.
UNEXPLAINED = "planned, but no candidate carries it out"


def noted_rules(notes: tuple[str, ...] | list[str]) -> frozenset[str]:
    """The rule ids the notes are about (a note starts with its rule's id, or its module's:
    ``openmp: the loop at line 5 stays serial: ...``), with the findings each rewrite
    stands for (a note of the invariant-call hoist speaks for ``strlen-condition`` too)."""
    out: set[str] = set()
    # a rejection joins notes: "no builtin rule applies: openmp: ...; pow-strength: ..."
    heads = [h for note in notes for h in _NOTE_HEAD.findall(note)]
    for head in heads:
        ids = _NOTE_ALIASES.get(head, frozenset({head}))
        out |= ids
        for spec in RULE_SPECS:
            if ids & (spec.rewrites_as | spec.finding_ids):
                out |= spec.finding_ids | spec.rewrites_as
    return frozenset(out)


def unkept(plan: Plan, carried: tuple[Strategy, ...], notes: tuple[str, ...]
           ) -> tuple[Strategy, ...]:
    """The plan's strategies a built-in rewrite exists for that no candidate carries out
    (``carried``) and no note explains; a strategy the plan marks as advice
    (``Strategy.advice``) is explained there."""
    said = noted_rules(notes)
    done = {s.rule for s in carried} | set(carried_ids(carried))
    out: list[Strategy] = []
    for s in plan.strategies:
        spec = rule_spec(s.rule) if s.rule else None
        if spec is None or spec.rewrite is None or s.callee:
            continue
        if s.advice or s in carried or s.rule in done or s.rule in said:
            continue
        out.append(s)
    return tuple(out)


def unsaid(plan: Plan, notes: tuple[str, ...] | list[str]) -> tuple[str, ...]:
    """``notes`` less those the plan's advice already says (the rewriter's reason for leaving
    a strategy, shown with the plan: ``Strategy.advice``)."""
    advice = [s.advice for s in plan.strategies if s.advice]
    return tuple(n for n in notes if not any(note_text(n) in a for a in advice))


def carried_ids(carried: tuple[Strategy, ...]) -> frozenset[str]:
    """The finding ids whose rewrites the strategies carried out stand for."""
    out: set[str] = set()
    for s in carried:
        spec = rule_spec(s.rule) if s.rule else None
        if spec is not None:
            out |= spec.finding_ids
    return frozenset(out)
