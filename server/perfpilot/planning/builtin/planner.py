"""The built-in planner: static analysis findings turned into a ranked strategy plan."""

from __future__ import annotations

import asyncio
from dataclasses import replace

import tree_sitter

from perfpilot.code.parse import parse
from perfpilot.code.site import FunctionSite
from perfpilot.planning.builtin.advice import mark_advice
from perfpilot.planning.builtin.analysis import Analysis, analyze_site
from perfpilot.progress import JobContext
from perfpilot.rules.finding import GAIN_WORDS, Finding, Gain, plan_order
from perfpilot.strategy.plan_format import render_plan
from perfpilot.strategy.values import Plan, Strategy

# Units larger than this are analysed on a worker thread so the event loop stays responsive.
THREAD_THRESHOLD_CHARS = 20_000


def select(findings: tuple[Finding, ...] | list[Finding], limit: int = 8) -> tuple[Strategy, ...]:
    """At most ``limit`` strategies: the best finding of each rule, the largest kind of gain
    first (complexity changes, then parallelism, then constant factors), by impact within one.

    Further findings of a rule already chosen are folded into its strategy as extra lines, so a
    plan never repeats one idea while a different one is left out. A rule's findings in a
    callee (``Finding.callee``) make a strategy of their own: the callee is rewritten apart.
    """
    by_rule: dict[tuple[str, str], list[Finding]] = {}
    for f in findings:
        by_rule.setdefault((f.rule, f.callee.name if f.callee else ""), []).append(f)
    heads = sorted((group[0] for group in by_rule.values()), key=plan_order)[:limit]
    out: list[Strategy] = []
    for head in heads:
        rest = by_rule[head.rule, head.callee.name if head.callee else ""][1:]
        strategy = head.to_strategy()
        if rest:
            extra = sorted({f.lines[0] for f in rest if f.lines} - set(head.lines))
            if extra:
                where = ", ".join(str(n) for n in extra[:8])
                strategy = replace(
                    strategy,
                    explanation=f"{head.explanation} The same pattern appears on line"
                                f"{'s' if len(extra) > 1 else ''} {where}.",
                    lines=tuple(dict.fromkeys((*head.lines, *extra))))
        out.append(strategy)
    return tuple(out)


def order_note(findings: tuple[Finding, ...] | list[Finding],
               strategies: tuple[Strategy, ...]) -> str | None:
    """How the plan is ordered, in words, when it mixes kinds of gain."""
    by_rule = {f.rule: f.gain for f in findings}
    kinds = sorted({by_rule[s.rule] for s in strategies if s.rule in by_rule})
    if len(kinds) < 2:
        return None
    first = ("the complexity change first" if kinds[0] == Gain.COMPLEXITY else
             f"{GAIN_WORDS[kinds[0]]} first")
    rest = ", then ".join(GAIN_WORDS[k] for k in kinds[1:])
    return f"Ordered by expected gain: {first}, then {rest}."


class BuiltinPlanner:
    """Planner backed by the static analyser; needs no model."""

    name: str = "builtin"

    def __init__(self, limit: int = 8) -> None:
        self.limit = limit

    def _strategies(self, site: FunctionSite) -> tuple[Analysis, tuple[Strategy, ...]]:
        """The analysis of ``site`` and the strategies chosen from it, those the built-in
        rewriter would leave marked as advice (``advice.py``); one parse of the unit serves
        both."""
        try:
            tree: tree_sitter.Tree | None = parse(site.unit_text, site.language)
        except Exception:  # the analysis reports what failed
            tree = None
        analysis = analyze_site(site, tree=tree, callees=True)
        strategies = select(analysis.findings, self.limit)
        return analysis, mark_advice(site, strategies,
                                     tree.root_node if tree is not None else None)

    async def plan(self, site: FunctionSite, ctx: JobContext) -> Plan:
        """The ranked plan for ``site``; raises ``Cancelled`` when ``ctx`` is cancelled."""
        ctx.check()
        ctx.report("planning", f"analysing {site.name}")
        if len(site.unit_text) > THREAD_THRESHOLD_CHARS:
            analysis, strategies = await asyncio.to_thread(self._strategies, site)
        else:
            analysis, strategies = self._strategies(site)
        ctx.check()
        notes = analysis.notes
        order = order_note(analysis.findings, strategies)
        if order is not None:
            notes = (order, *notes)
        if not strategies:
            notes = (*notes, f"no known slow pattern found in '{site.name}'")
        plan = Plan(strategies, self.name, notes=notes)
        return replace(plan, raw_text=render_plan(plan))
