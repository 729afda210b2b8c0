"""Schedule variants of an OpenMP candidate: the same rewrite with another ``schedule`` clause.

The OpenMP rule picks a schedule from the loop's shape, but which one is fastest depends on the
data and the machine (how uneven the iterations really are, what one chunk costs). Where the
rule found uneven work (it wrote a ``schedule`` clause), the alternatives below are variants of
the candidate: static, dynamic with small, middling and large chunks, and guided. A loop with
even iterations keeps the default static schedule and gets no schedule variants: nothing to
choose. The schedule decides only which thread runs which iterations of a loop OpenMP already
runs in parallel, never what an iteration computes.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

# The schedules raced: static (even blocks, no hand-out cost), dynamic chunks of 1, 16 and 64
# iterations (balance uneven work at an atomic increment per chunk: 1 balances best and costs
# most, 64 the other way round), guided (large chunks first, small ones at the end).
SCHEDULES: tuple[str, ...] = ("schedule(static)", "schedule(dynamic, 1)",
                              "schedule(dynamic, 16)", "schedule(dynamic, 64)",
                              "schedule(guided)")

# A work-sharing pragma the rule writes: ``parallel for`` or, inside a parallel region, ``for``.
WORKSHARE = re.compile(r"^(?P<head>[ \t]*#[ \t]*pragma[ \t]+omp[ \t]+(?:parallel[ \t]+)?for\b)"
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
    for m in WORKSHARE.finditer(code):
        found = _SCHEDULE.search(m.group("clauses"))
        out.append(_normal(found.group(0).strip()) if found else SCHEDULES[0])
    return tuple(out)


def with_schedule(code: str, schedule: str) -> str:
    """``code`` with every work-sharing pragma's schedule clause set to ``schedule``."""
    def one(m: re.Match[str]) -> str:
        clauses = _SCHEDULE.sub("", m.group("clauses")).rstrip()
        return f"{m.group('head')}{clauses} {schedule}"
    return WORKSHARE.sub(one, code)


def own_schedule(code: str) -> str | None:
    """The label of ``code``'s own schedule when it has schedule variants: the one schedule of
    its pragmas, or "schedules per loop"; None when it has none (no pragma, or only the
    default static schedule)."""
    found = schedules_of(code)
    if not found or all(s == SCHEDULES[0] for s in found):
        return None
    return found[0] if len(set(found)) == 1 else "schedules per loop"


def schedule_variants(code: str) -> tuple[ScheduleVariant, ...]:
    """The variants of ``code`` to race: first ``code`` itself (labelled by the rule's choice),
    then each other schedule of ``SCHEDULES`` applied to all of its work-sharing pragmas.
    Empty when there is nothing to choose: no pragma, or only the default static schedule."""
    own = own_schedule(code)
    if own is None:
        return ()
    out = [ScheduleVariant(own, code)]
    for schedule in SCHEDULES:
        if schedule != own:
            out.append(ScheduleVariant(schedule, with_schedule(code, schedule)))
    return tuple(out)
