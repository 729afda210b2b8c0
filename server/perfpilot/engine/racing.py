"""Racing the variants of one rewrite: k variants for far less than k full measurements.

Variants (the same code up to a clause, such as an OpenMP schedule) are each built and verified
on their own, then timed in rounds with few pairs: a variant leaves the race as soon as the
upper end of its speedup interval lies below the best one's lower end (clearly worse), or when
it fails (wrong results, no build). After each round the lower-ranked half of the rest leaves
too (successive halving: a variant dropped so had an interval overlapping the best's, so it was
within the noise of that round). Variants within the noise of the best rank in candidate order,
the rule's own rewrite first: a pragma or clause stays only when it buys a measurable gain.
Each round doubles the pairs; the one left gets a full measurement, which is its verdict. The
race knows nothing of how a measurement is made: the engine passes
``measure(candidate index, pairs)`` (pairs None: a full measurement).
"""

from __future__ import annotations

import asyncio
import math
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from perfpilot.engine.figures import interval, number, ratio

if TYPE_CHECKING:
    from perfpilot.runner.values import Verdict

MeasureFn = Callable[[int, "int | None"], Awaitable["Verdict"]]

# Verdicts that end a variant's race: it cannot win whatever its timing.
FAILED = frozenset({"incorrect", "build-failed", "needs-spec", "timeout", "rejected", "no-input",
                    "suspicious"})
MIN_ROUND_PAIRS = 6  # fewer pairs give a bootstrap interval too coarse to separate anything
FIRST_ROUND_SHARE = 5  # the first round takes a fifth of a full measurement's pairs


@dataclass(frozen=True)
class Lap:
    """One timing of one variant: the round (0 for the full measurement), the pairs asked
    for, and the verdict."""

    round: int
    pairs: int
    verdict: Verdict


@dataclass(frozen=True)
class Entrant:
    """One variant in the race: its candidate index, label, laps, and why it left the race
    (empty for the one that got the full measurement)."""

    index: int
    label: str
    laps: tuple[Lap, ...] = ()
    dropped: str = ""

    @property
    def last(self) -> Verdict | None:
        """The verdict of its latest lap."""
        return self.laps[-1].verdict if self.laps else None

    @property
    def pairs_taken(self) -> int:
        """Timed pairs over all its laps (at the configured threads and at one thread)."""
        return sum(pairs_of(lap.verdict) for lap in self.laps)


@dataclass(frozen=True)
class Race:
    """A finished race: its entrants in candidate order, and the pairs of a full measurement."""

    family: str
    entrants: tuple[Entrant, ...]
    full_pairs: int

    @property
    def finalists(self) -> tuple[Entrant, ...]:
        """The entrants measured in full (normally one)."""
        return tuple(e for e in self.entrants if not e.dropped)

    @property
    def pairs_spent(self) -> int:
        """Pairs timed over the whole race, the full measurement included."""
        return sum(e.pairs_taken for e in self.entrants)

    @property
    def full_cost(self) -> int:
        """What measuring every variant in full would have taken: k times the pairs the full
        measurement took (the configured pairs, per timing run, when there was none)."""
        full = [pairs_of(lap.verdict) for e in self.entrants for lap in e.laps if lap.round == 0]
        per = max(full) if full else self.full_pairs
        return per * len(self.entrants)


def pairs_of(verdict: Verdict) -> int:
    """Pairs a verdict's timing took: its measurement's and its 1-thread measurement's."""
    taken = 0
    for m in (verdict.measurement, verdict.serial_measurement):
        if m is not None:
            taken += m.pairs
    return taken or verdict.pairs


def figure(verdict: Verdict | None) -> tuple[float, float] | None:
    """The speedup interval a verdict can be ranked by (None: failed, noisy or no figure)."""
    if verdict is None or verdict.verdict in FAILED or verdict.verdict == "noisy":
        return None
    if verdict.ci95 is None:
        return None
    return verdict.ci95


def round_pairs(full_pairs: int, round_no: int) -> int:
    """Pairs asked for in round ``round_no`` (1-based): a fifth of a full measurement (at
    least ``MIN_ROUND_PAIRS``), doubled each round."""
    first = max(MIN_ROUND_PAIRS, full_pairs // FIRST_ROUND_SHARE)
    return first << (round_no - 1)


def eliminate(verdicts: Sequence[Verdict | None]) -> list[str]:
    """Why each variant leaves the race after a round ("" when it stays): it failed, or its
    interval lies wholly below the best lower bound among the others."""
    figures = [figure(v) for v in verdicts]
    lows = [f[0] for f in figures if f is not None]
    best_low = max(lows) if lows else None
    out: list[str] = []
    for v, f in zip(verdicts, figures, strict=True):
        if v is not None and v.verdict in FAILED:
            out.append(f"{v.verdict}: {v.message}" if v.message else v.verdict)
        elif f is not None and best_low is not None and f[1] < best_low:
            out.append(f"clearly slower: {interval(f)} below the best's lower bound "
                       f"{number(best_low)}")
        else:
            out.append("")
    return out


def rank_key(verdict: Verdict | None, index: int) -> tuple[float, int]:
    """Sort key (larger is better): the interval's lower bound, then the earlier variant."""
    f = figure(verdict)
    return (f[0] if f is not None else -math.inf, -index)


def another_round(kept: int, next_pairs: int, full_pairs: int) -> bool:
    """Whether ``kept`` variants (after halving) race another round at ``next_pairs`` rather
    than the best going straight to its full measurement: only while that round costs less
    than one full measurement, so the race stays well below k full measurements."""
    return kept > 1 and kept * next_pairs < full_pairs


def worth_racing(k: int, full_pairs: int) -> bool:
    """Whether a first round for ``k`` variants plus one full measurement costs less than
    ``k`` full measurements (with few pairs configured, racing saves nothing)."""
    return k * round_pairs(full_pairs, 1) + full_pairs < k * full_pairs


def _halve(entrants: Sequence[Entrant], alive: Sequence[int], round_no: int, pairs: int,
           full_pairs: int) -> tuple[list[int], str]:
    """The entrants kept after a round's eliminations (in candidate order), and why the rest
    leave: the better half when another round pays, else the best one alone."""
    if not any(figure(entrants[a].last) for a in alive):
        # Nothing measurable this round (a busy machine): the first variant left (the rule's
        # own choice) goes on alone rather than racing blind.
        return [min(alive)], f"round {round_no}: not measurable on this busy machine"
    ranked = preferred(entrants, alive)
    half = math.ceil(len(alive) / 2)
    keep = half if another_round(half, round_pairs(full_pairs, round_no + 1), full_pairs) else 1
    why = (f"round {round_no}: at {pairs} pairs its interval overlapped the kept one's, which "
           "is as good within the noise and plainer, or ranked higher")
    return sorted(ranked[:keep]), why


def preferred(entrants: Sequence[Entrant], alive: Sequence[int]) -> list[int]:
    """``alive`` best first: those whose interval reaches the best one's lower end (as good
    within the noise) in candidate order, the rule's own rewrite first and then variants
    adding more (unrolling, clauses), then the rest by rank. A pragma that buys nothing
    measurable is not code a reviewer wants."""
    ranked = sorted(alive, key=lambda a: rank_key(entrants[a].last, a), reverse=True)
    top = figure(entrants[ranked[0]].last)
    if top is None:
        return ranked
    tied = [a for a in sorted(alive)
            if (f := figure(entrants[a].last)) is not None and f[1] >= top[0]]
    return tied + [a for a in ranked if a not in tied]


async def race(family: str, entries: Sequence[tuple[int, str]], measure: MeasureFn,
               full_pairs: int) -> Race:
    """Race the variants ``entries`` (candidate index, label) of ``family``; see the module
    docstring. Variants of one round are measured together (their builds may overlap)."""
    entrants = [Entrant(i, label) for i, label in entries]
    alive = list(range(len(entrants)))
    round_no = 1
    racing = worth_racing(len(alive), full_pairs)
    while racing and len(alive) > 1:
        pairs = round_pairs(full_pairs, round_no)
        verdicts = await asyncio.gather(*(measure(entrants[a].index, pairs) for a in alive))
        for a, v in zip(alive, verdicts, strict=True):
            entrants[a] = replace(entrants[a], laps=(*entrants[a].laps, Lap(round_no, pairs, v)))
        for a, why in zip(alive, eliminate(verdicts), strict=True):
            if why:
                entrants[a] = replace(entrants[a], dropped=f"round {round_no}: {why}")
        alive = [a for a in alive if not entrants[a].dropped]
        if len(alive) > 1:
            kept, why = _halve(entrants, alive, round_no, pairs, full_pairs)
            for a in alive:
                if a not in kept:
                    entrants[a] = replace(entrants[a], dropped=why)
            alive = kept
        round_no += 1
    for a in alive:
        v = await measure(entrants[a].index, None)
        entrants[a] = replace(entrants[a], laps=(*entrants[a].laps, Lap(0, full_pairs, v)))
    return Race(family, tuple(entrants), full_pairs)


def runner_up(race_: Race, chosen_label: str | None) -> Entrant | None:
    """The best entrant other than the chosen one: another finalist, else the one that stayed
    longest in the race, ranked by its last interval's lower bound."""
    others = [e for e in race_.entrants if e.label != chosen_label and e.laps
              and figure(e.last) is not None]
    if not others:
        return None
    return max(others, key=lambda e: (not e.dropped, max(lap.round or 99 for lap in e.laps),
                                      rank_key(e.last, e.index)))


def _figure_text(v: Verdict | None) -> str:
    f = figure(v)
    if v is None or f is None or v.speedup is None:
        return "not timed reliably" if v is not None and v.verdict == "noisy" else (
            v.verdict if v is not None else "not measured")
    return ratio(v.speedup)


def next_best(race_: Race, chosen: Entrant | None) -> Entrant | None:
    """The runner-up worth naming: one with a figure below the chosen variant's. A variant
    timed only in a short round may show a higher, less certain figure than the chosen one's
    full measurement: naming it "runner-up" would contradict the choice, so it is not named."""
    other = runner_up(race_, chosen.label if chosen is not None else None)
    if other is None or other.last is None or other.last.speedup is None:
        return None
    mine = chosen.last if chosen is not None else None
    if mine is None or mine.speedup is None or figure(mine) is None:
        return None
    return other if other.last.speedup < mine.speedup else None


def race_phrase(race_: Race, chosen_label: str | None, rewrite: str = "") -> str:
    """``tried 3 variants of the loop; picked schedule(dynamic, 16) (1.90×); next best
    schedule(static) (1.60×)`` (the pairs each variant took are in the report's table). With
    no ``chosen_label`` the race's best is named as not chosen; ``rewrite`` names the rewrite
    whose variants these are when it was not the one chosen (``the serial rewrite
    (hoist-invariant-call)``)."""
    best = next((e for e in race_.entrants if e.label == chosen_label), None)
    if best is None:
        best = next(iter(race_.finalists), None)
    if chosen_label is None:
        # Nothing of this race was chosen (another candidate was, or none): its best is
        # named, never as the pick.
        said = f"tried {len(race_.entrants)} variants of {rewrite or 'the loop'}"
        if best is None:
            # Every variant left the race: why the first one did is the reason.
            first = next((e for e in race_.entrants if e.dropped), None)
            return said + (f"; none was measured in full ({first.label} left in "
                           f"{first.dropped.rstrip('.')})" if first is not None else "")
        return said + f"; its best, {best.label} ({_figure_text(best.last)}), was not chosen"
    parts = [f"tried {len(race_.entrants)} variants of the loop"]
    if best is not None:
        parts.append(f"picked {best.label} ({_figure_text(best.last)})")
    other = next_best(race_, best)
    if other is not None:
        parts.append(f"next best {other.label} ({_figure_text(other.last)})")
    return "; ".join(parts)
