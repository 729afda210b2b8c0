"""Training examples in trl's conversational shapes, from corpus tasks and measured records.

Prompts are the planner prompts ``llm/`` sends (so the trained model is used as it was
trained); completions are plans in the ``[SUGG/]`` format, optionally followed by the code.
The builtin analyser annotates each task; the template's own strategy leads the plan.
"""

from __future__ import annotations

import math
from collections import defaultdict
from typing import Any

from perfpilot.code.site import FunctionSite
from perfpilot.planning.builtin.analysis import analyze_site
from perfpilot.planning.builtin.planner import select
from perfpilot.prompting.context import unit_context
from perfpilot.prompting.prompts import planner_messages
from perfpilot.strategy.categories import category_by_id, match_category
from perfpilot.strategy.plan_format import render_plan
from perfpilot.strategy.values import Plan, Strategy
from perfpilot.training.corpus import CorpusTask
from perfpilot.training.records import Record, strong

Row = dict[str, Any]


def builtin_plan(site: FunctionSite, limit: int = 4) -> Plan:
    """The builtin analyser's plan for ``site`` (synchronous; no job context needed)."""
    return Plan(select(analyze_site(site).findings, limit), "builtin")


def annotated_plan(task: CorpusTask, limit: int = 3) -> Plan:
    """The task's known strategy first, then the analyser's findings in other categories."""
    known = Strategy(category_by_id(task.category), task.explanation)
    found = [s for s in builtin_plan(task.site()).strategies if s.category.id != task.category]
    return Plan((known, *found[: limit - 1]), "corpus")


def prompt(site: FunctionSite) -> list[dict[str, str]]:
    """The planner's chat messages for ``site``."""
    return [dict(m) for m in planner_messages(site, unit_context(site))]


def sft_row(task: CorpusTask, with_code: bool = False) -> Row:
    """One prompt/completion row: the plan (and the known fast code when ``with_code``)."""
    site = task.site()
    text = render_plan(annotated_plan(task), task.fast if with_code else None)
    return {"prompt": prompt(site), "completion": [{"role": "assistant", "content": text}],
            "task": task.key, "category": task.category}


def _site_of(record: Record) -> FunctionSite | None:
    if not record.function:
        return None
    from perfpilot.code.locate import LocateError, list_functions

    unit = f"{record.context}\n{record.function}" if record.context else record.function
    try:
        sites = list_functions(unit, "c" if record.language == "c" else "cpp")
    except LocateError:
        return None
    named = [s for s in sites if s.name == record.name] or sites[-1:]
    return named[0] if named else None


def _record_plan(record: Record) -> Plan:
    strategies = []
    for step in record.plan:
        cat = match_category(step.category)
        if cat is not None:
            strategies.append(Strategy(cat, step.explanation or cat.description))
    return Plan(tuple(strategies), "record")


def _plan_text(record: Record) -> str:
    return render_plan(_record_plan(record))


def _log_speedup(r: Record) -> float:
    return -1.0 if r.verdict == "incorrect" else math.log(max(r.speedup or 1.0, 1e-6))


def record_sft_rows(records: list[Record], with_code: bool = False) -> list[Row]:
    """SFT rows from measured records: for each function, the plan that led to its best
    strongly verified speedup (an imported pair without a plan is annotated by the builtin
    analyser, as the corpus is), with the candidate after it when ``with_code``."""
    best: dict[str, Record] = {}
    for rec in records:
        if rec.verdict != "faster" or not strong(rec) or not rec.function:
            continue
        if with_code and not rec.candidate:
            continue
        held = best.get(rec.function)
        if held is None or _log_speedup(rec) > _log_speedup(held):
            best[rec.function] = rec
    rows: list[Row] = []
    for rec in best.values():
        site = _site_of(rec)
        if site is None:
            continue
        plan = _record_plan(rec)
        if not plan.strategies:
            if rec.source != "pie":
                continue  # a measured win with no plan teaches the planner nothing
            plan = builtin_plan(site, 3)
            if not plan.strategies:
                continue
        text = render_plan(plan, rec.candidate if with_code else None)
        rows.append({"prompt": prompt(site),
                     "completion": [{"role": "assistant", "content": text}],
                     "task": rec.task or rec.unit_hash or rec.name, "category": -1})
    return rows


def preference_rows(records: list[Record], min_gap: float = 0.05,
                    on: str = "plans") -> list[Row]:
    """Chosen/rejected pairs from measured records of the same function.

    ``on="plans"``: the completions are the records' plans (for DPO and a plan reward model);
    ``on="candidates"``: the candidates' code (a reward model that ranks candidates before
    they are measured). Only strong records take part (see ``records.strong``). A pair joins a
    faster record with a slower, no-change or incorrect one of the same function and a
    different completion; ``weight`` is the log-speedup gap (the DPA scale), ``margin`` the
    same for reward models.
    """
    if on not in ("plans", "candidates"):
        raise ValueError(f"preference pairs are on plans or candidates, not {on!r}")

    def completion(r: Record) -> str:
        return _plan_text(r) if on == "plans" else r.candidate.strip()

    groups: dict[str, list[Record]] = defaultdict(list)
    for rec in records:
        if strong(rec) and rec.function and (rec.plan if on == "plans" else rec.candidate):
            groups[rec.function].append(rec)
    rows: list[Row] = []
    for group in groups.values():
        site = _site_of(group[0])
        if site is None:
            continue
        msgs = prompt(site)

        score = _log_speedup
        ranked = sorted(group, key=score, reverse=True)
        for hi in ranked:
            if hi.verdict != "faster":
                continue
            for lo in ranked:
                gap = score(hi) - score(lo)
                if gap < min_gap or completion(hi) == completion(lo):
                    continue
                rows.append({"prompt": msgs,
                             "chosen": [{"role": "assistant", "content": completion(hi)}],
                             "rejected": [{"role": "assistant", "content": completion(lo)}],
                             "weight": gap, "margin": gap})
    return rows
