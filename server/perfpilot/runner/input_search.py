"""The search for inputs that reach what the first inputs missed.

When the study of the original ends with lines no input ran, or strong mutants no input told
apart, a candidate would be called ``weakly-verified`` for them. Before that, more input cases
are tried, round by round: every value profile with new seeds, those most likely to reach a
rare branch first (the code's own constants and their neighbours, the type's limits, small
values full of ties and repeats, special floats). A round's cases that the original accepts
are run under coverage and against the open strong mutants; the round is kept (its cases join
the study) when it reached a line or a branch outcome not reached before, or told a mutant
apart. The search stops when nothing is left to reach, after a few rounds, or when its time
(a few seconds, counted in the job's budget) is spent.

The runs themselves are the study's (``verify``): they are handed in as functions.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Generic, TypeVar

from perfpilot.runner.coverage import Reach
from perfpilot.runner.mutants import Mutant

# Profiles in the order a rare branch is most likely reached by them: constants (the code's
# numbers, one off and negated), extreme (the type's limits), small (zeros, ties, repeats),
# special (NaN, infinities, -0.0), wide, signed, sorted, natural, aliased.
_ORDER = (8, 5, 2, 6, 4, 1, 3, 0, 7)
CONSTANTS = 8
_SEED_OFFSET = 3000  # past the first seeds, the extra seeds and the candidate-constant seeds

C = TypeVar("C")


@dataclass(frozen=True)
class SearchOutcome(Generic[C]):
    """What the search found: the cases kept, the reach after them, the mutants they told
    apart, and what it did, as a note (``input search: ...``)."""

    kept: tuple[C, ...]
    reach: Reach | None
    killed: frozenset[int]
    tried: int
    note: str


def search_profiles(has_constants: bool) -> tuple[int, ...]:
    """The profiles the search draws from, in order (constants only where the original has
    numbers to draw)."""
    return tuple(p for p in _ORDER if p != CONSTANTS or has_constants)


def _lines(lines: tuple[int, ...]) -> str:
    shown = ", ".join(str(n) for n in lines[:6]) + (", ..." if len(lines) > 6 else "")
    return ("line " if len(lines) == 1 else "lines ") + shown


async def search_inputs(*, make_case: Callable[[int, int], C], seed: int,
                        profiles: tuple[int, ...], per_profile: int, rounds: int,
                        seconds: float, reach: Reach | None, open_strong: tuple[Mutant, ...],
                        validate: Callable[[list[C]], Awaitable[list[C]]],
                        cover: Callable[[list[C]], Awaitable[Reach | None]] | None,
                        kill: Callable[[list[C], tuple[Mutant, ...]],
                                       Awaitable[frozenset[int]]] | None,
                        clock: Callable[[], float] = time.monotonic) -> SearchOutcome[C] | None:
    """Search (see the module's docstring); None when there was nothing to search for.

    ``make_case(profile, seed)`` builds a case; ``validate`` keeps those the original accepts
    (with their invalid sizes skipped); ``cover`` runs cases under coverage and returns the
    reach of everything covered so far; ``kill`` returns the ids of the given mutants the
    cases tell apart.
    """
    targets = list(open_strong) if kill is not None else []
    before_lines = reach.unreached if reach is not None and cover is not None else ()
    if not targets and not before_lines:
        return None
    start = clock()
    kept: list[C] = []
    killed: set[int] = set()
    tried = 0
    last_round = 0.0
    for r in range(max(rounds, 0)):
        unreached = reach.unreached if reach is not None and cover is not None else ()
        if not targets and not unreached:
            break
        spent = clock() - start
        if spent + last_round > seconds:
            break
        began = clock()
        batch = [make_case(p, seed + _SEED_OFFSET + r * per_profile + k)
                 for p in profiles for k in range(per_profile)]
        tried += len(batch)
        valid = await validate(batch)
        if valid:
            grew = False
            if cover is not None and unreached:
                after = await cover(valid)
                if after is not None and after.grew(reach):
                    reach, grew = after, True
            newly: frozenset[int] = frozenset()
            if kill is not None and targets:
                newly = await kill(valid, tuple(targets))
                targets = [m for m in targets if m.id not in newly]
                killed |= newly
            if grew or newly:
                kept += valid
        last_round = clock() - began
    seconds_spent = clock() - start
    still = reach.unreached if reach is not None and cover is not None else ()
    what: list[str] = []
    gained = [n for n in before_lines if n not in still]
    if gained:
        what.append(f"reached {_lines(tuple(gained))}")
    if killed:
        what.append(f"told apart {len(killed)} surviving mutant(s)")
    head = f"input search: {tried} more input cases tried in {seconds_spent:.1f} s"
    if kept:
        note = f"{head}; {len(kept)} kept: they " + " and ".join(what)
    else:
        missed = [f"reached none of {_lines(still)}"] if still else []
        if targets:
            missed.append("told none of the surviving strong mutants apart")
        note = f"{head}; they " + " and ".join(missed) if missed else head
    return SearchOutcome(tuple(kept), reach, frozenset(killed), tried, note)
