"""Naming applied rewrites as strategies: reuse the plan's when it has the same rule."""

from __future__ import annotations

from perfpilot.optimizing.builtin.rewrite import RewriteResult
from perfpilot.strategy.categories import Category, category_by_id
from perfpilot.strategy.values import Plan, Strategy

RULE_CATEGORY: dict[str, int] = {
    "openmp-for": 6,
    "openmp-reduction": 6,
    "hoist-invariant-call": 4,
    "reserve": 3,
    "const-ref-param": 10,
    "endl": 8,
    "fast-io": 8,
    "pow-strength": 12,
    "loop-interchange": 7,
    "string-concat-loop": 3,
    "linear-search-in-loop": 1,
    "hoist-container": 14,
    "manual-sort": 15,
    "vector-front-op": 2,
}


def category_of(rule: str) -> Category:
    """The strategy category a builtin rule belongs to."""
    return category_by_id(RULE_CATEGORY.get(rule, 4))


def strategies_for(result: RewriteResult, plan: Plan) -> tuple[Strategy, ...]:
    """One strategy per rule applied: the plan's strategy with that rule id, else a new one
    with the rewrite's own explanation (several changes of one rule are joined)."""
    by_rule: dict[str, list[str]] = {}
    lines: dict[str, set[int]] = {}
    for a in result.applied:
        by_rule.setdefault(a.rule, []).append(a.explanation)
        lines.setdefault(a.rule, set()).update(a.lines)
    planned = {s.rule: s for s in plan.strategies if s.rule}
    out: list[Strategy] = []
    for rule, texts in by_rule.items():
        if rule in planned:
            out.append(planned[rule])
        else:
            out.append(Strategy(category=category_of(rule), explanation=" ".join(texts),
                                lines=tuple(sorted(lines[rule])), rule=rule))
    return tuple(out)
