"""Ranking candidates with a trained reward model, so fewer of them need measuring.

A reward model trained on measured candidates (``perfpilot train reward --on candidates``)
scores each candidate; only the ``top`` best are measured, the rest are reported as not
measured with their rank and score. The variants of one rewrite (a family the engine races)
count as one candidate: they are kept or left together. Scores only order candidates; no
figure a user sees comes from them.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from perfpilot.strategy.values import Candidate, Rejected

ScoreFn = Callable[[Sequence[str]], list[float]]


@dataclass(frozen=True)
class Ranked:
    """The candidates to measure, in their original order, and those left unmeasured."""

    kept: tuple[Candidate, ...]
    left: tuple[Rejected, ...]


def groups_of(cands: Sequence[Candidate]) -> list[list[int]]:
    """Candidate indices grouped so that a family's variants form one group, in order."""
    groups: list[list[int]] = []
    by_family: dict[str, list[int]] = {}
    for i, c in enumerate(cands):
        if c.family and c.family in by_family:
            by_family[c.family].append(i)
            continue
        group = [i]
        groups.append(group)
        if c.family:
            by_family[c.family] = group
    return groups


def rank(cands: Sequence[Candidate], score: ScoreFn, top: int) -> Ranked:
    """Keep the ``top`` best-scored groups of ``cands`` (each scored by its first member)."""
    groups = groups_of(cands)
    top = max(1, top)
    if len(groups) <= top:
        return Ranked(tuple(cands), ())
    scores = score([cands[g[0]].code for g in groups])
    order = sorted(range(len(groups)), key=lambda g: (-scores[g], g))
    keep = set(order[:top])
    kept = tuple(cands[i] for g, members in enumerate(groups) if g in keep for i in members)
    left = tuple(
        Rejected(cands[groups[g][0]].backend,
                 f"not measured: ranked {place + 1} of {len(groups)} by the reward model "
                 f"(score {scores[g]:.3f}; the best {top} were measured)",
                 cands[groups[g][0]].sample, cands[groups[g][0]].code)
        for place, g in enumerate(order) if g not in keep)
    return Ranked(kept, left)
