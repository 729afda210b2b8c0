"""Whether the built-in rewriter would carry out a planned strategy: the plan marks those it
would not as advice, with the rewriter's own reason, so it never promises a change that no
built-in candidate will make.

The question is put to the rules' rewriter itself (``perfpilot.rules.rewriting.rewrite``, the
code the built-in optimizer runs), with only the strategy's rule enabled and nothing compiled.
"""

from __future__ import annotations

import logging
import re
from dataclasses import replace

from perfpilot.code.callees import direct_callees
from perfpilot.code.site import FunctionSite
from perfpilot.code.syntax import (
    Node,
)
from perfpilot.rules.registry import LAST_BIT, last_bit_phases, rule_spec
from perfpilot.rules.rewrite_input import RuleInput
from perfpilot.rules.rewriting import note_text, rewrite
from perfpilot.strategy.values import Strategy

log = logging.getLogger(__name__)

# The reason given for an idiom the rule modules have no rewrite for.
NO_REWRITE = "it has no rewrite for this idiom"
# "line 5", "lines 5, 9", "lines 5 and 9": the lines a note is about.
_LINES = re.compile(r"\blines?\s+(\d+(?:(?:,\s*|\s+and\s+)\d+)*)")


def _lines_of(note: str) -> set[int]:
    return {int(n) for m in _LINES.finditer(note) for n in re.findall(r"\d+", m.group(1))}


def reason_from(notes: tuple[str, ...], lines: tuple[int, ...]) -> str:
    """Why a rewrite that changed nothing left a strategy on ``lines``: its notes about those
    lines or about no line at all (without their rule ids), else that it found nothing it may
    change there."""
    wanted = set(lines)
    said = [note_text(n) for n in notes if not _lines_of(n) or _lines_of(n) & wanted]
    if said:
        return "; ".join(dict.fromkeys(said))
    shown = sorted(wanted)
    where = (f" on line{'s' if len(shown) > 1 else ''} {', '.join(map(str, shown))}"
             if shown else "")
    return f"the rewrite finds nothing{where} it may change"


def advice_for(site: FunctionSite, strategy: Strategy, unit: Node | None = None,
               analysed: dict[str, RuleInput] | None = None) -> str:
    """Why the built-in rewriter would leave ``strategy`` as it is ("" when it would change the
    code, or when the strategy is not a built-in finding). ``site``: the function the strategy
    is about (for a strategy in a callee, that callee, whose copy the optimizer rewrites).
    ``unit``: the unit's parsed root, when the caller has it; ``analysed``: the rewriter's
    analyses of ``site``, shared by the questions on one function."""
    spec = rule_spec(strategy.rule) if strategy.rule else None
    if spec is None:
        return ""
    last_bit = strategy.rule in LAST_BIT
    if spec.rewrite is None and not last_bit:
        return NO_REWRITE
    # a last-bit rewrite runs in a phase of its own, enabled by its own finding id
    rules = frozenset({strategy.rule}) if last_bit else spec.rewrites_as
    result = rewrite(site, rules, last_bit_phases() if last_bit else (), unit=unit,
                     analysed=analysed)
    return "" if result.changed else reason_from(result.notes, strategy.lines)


def mark_advice(site: FunctionSite, strategies: tuple[Strategy, ...],
                unit: Node | None = None) -> tuple[Strategy, ...]:
    """``strategies`` (of the plan for ``site``) with each that the built-in rewriter would
    leave marked as advice (``Strategy.advice``); a strategy about a callee is asked of that
    callee (``code/callees.py``, as the optimizer finds it); a strategy whose question fails is
    left unmarked."""
    out: list[Strategy] = []
    analysed: dict[str, dict[str, RuleInput]] = {}
    callees: dict[str, FunctionSite] | None = None
    for s in strategies:
        try:
            where: FunctionSite | None = site
            if s.callee:
                if callees is None:
                    callees = {c.name: c.site for c in direct_callees(site, unit)
                               if c.site is not None and not c.refusal}
                where = callees.get(s.callee)
            why = "" if where is None else advice_for(
                where, s, unit, analysed.setdefault(where.name, {}))
        except Exception:  # a plan is never lost to this question
            log.exception("asking the rewrite of %s failed", s.rule)
            why = ""
        out.append(replace(s, advice=why) if why else s)
    return tuple(out)
