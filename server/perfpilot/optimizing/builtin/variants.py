"""Schedule variants of an OpenMP candidate: the same rewrite with another ``schedule`` clause.

The OpenMP rule picks a schedule from the loop's shape, but which one is fastest depends on the
data and the machine (how uneven the iterations really are, what one chunk costs). Where the
rule found uneven work (it wrote a ``schedule`` clause), the alternatives below are generated
as variants of the candidate, and the engine races them (``engine/racing.py``). A loop with
even iterations keeps the default static schedule and gets no variants: nothing to choose.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from perfpilot.strategy.values import Candidate

# The schedules raced: static (even blocks, no hand-out cost), dynamic chunks (balance uneven
# work at an atomic increment per chunk), guided (large chunks first, small ones at the end).
SCHEDULES: tuple[str, ...] = ("schedule(static)", "schedule(dynamic, 16)", "schedule(guided)")

# A work-sharing pragma the rule writes: ``parallel for`` or, inside a parallel region, ``for``.
_WORKSHARE = re.compile(r"^(?P<head>[ \t]*#[ \t]*pragma[ \t]+omp[ \t]+(?:parallel[ \t]+)?for\b)"
                        r"(?P<clauses>[^\n]*)$", re.MULTILINE)
_SCHEDULE = re.compile(r"[ \t]*\bschedule[ \t]*\([^)]*\)")


@dataclass(frozen=True)
class ScheduleVariant:
    """One variant's label (the schedule it uses) and its function text."""

    label: str
    code: str


def _normal(clause: str) -> str:
    """``schedule(dynamic,16)``, ``schedule( dynamic , 16 )``: ``schedule(dynamic, 16)``."""
    inner = clause[clause.index("(") + 1:clause.rindex(")")]
    return "schedule(" + ", ".join(p.strip() for p in inner.split(",")) + ")"


def schedules_of(code: str) -> tuple[str, ...]:
    """The schedule of each work-sharing pragma in ``code``, normalised, in order (a pragma
    without a clause has the default ``schedule(static)``)."""
    out: list[str] = []
    for m in _WORKSHARE.finditer(code):
        found = _SCHEDULE.search(m.group("clauses"))
        out.append(_normal(found.group(0).strip()) if found else SCHEDULES[0])
    return tuple(out)


def with_schedule(code: str, schedule: str) -> str:
    """``code`` with every work-sharing pragma's schedule clause set to ``schedule``."""
    def one(m: re.Match[str]) -> str:
        clauses = _SCHEDULE.sub("", m.group("clauses")).rstrip()
        return f"{m.group('head')}{clauses} {schedule}"
    return _WORKSHARE.sub(one, code)


def schedule_variants(code: str) -> tuple[ScheduleVariant, ...]:
    """The variants of ``code`` to race: first ``code`` itself (labelled by the rule's choice),
    then each other schedule of ``SCHEDULES`` applied to all of its work-sharing pragmas.
    Empty when there is nothing to choose: no pragma, or only the default static schedule."""
    found = schedules_of(code)
    if not found or all(s == SCHEDULES[0] for s in found):
        return ()
    own = found[0] if len(set(found)) == 1 else "schedules per loop"
    out = [ScheduleVariant(own, code)]
    for schedule in SCHEDULES:
        if schedule != own:
            out.append(ScheduleVariant(schedule, with_schedule(code, schedule)))
    return tuple(out)


def candidate_variants(candidate: Candidate, family: str) -> tuple[Candidate, ...]:
    """``candidate`` and its schedule variants, all of one ``family`` (raced together), each
    labelled by its schedule; just ``candidate`` when it has no variants."""
    variants = schedule_variants(candidate.code)
    if not variants:
        return (candidate,)
    return tuple(replace(candidate, code=v.code, family=family, variant=v.label,
                         notes=candidate.notes if i == 0 else
                         (*candidate.notes, f"variant: {v.label} instead of {variants[0].label}"))
                 for i, v in enumerate(variants))
