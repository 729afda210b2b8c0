"""Racing variants: elimination by interval, successive halving, and the pairs it costs, over
constructed measurements (no timing); the schedule variants the builtin optimizer generates."""

from __future__ import annotations

import math
from dataclasses import replace

import pytest

from perfpilot.code.locate import function_by_name
from perfpilot.engine.racing import (
    Race,
    eliminate,
    race,
    race_phrase,
    round_pairs,
    runner_up,
    worth_racing,
)
from perfpilot.optimizing.builtin.variant_schedule import (
    SCHEDULES,
    schedule_variants,
    schedules_of,
    with_schedule,
)
from perfpilot.optimizing.builtin.variants import candidate_variants
from perfpilot.runner.values import Measurement, Verdict
from perfpilot.strategy.values import Candidate

FULL = 30


def verdict(speedup: float, half_width: float, pairs: int, word: str = "faster") -> Verdict:
    """A verdict whose measurement took ``pairs`` pairs at 2 threads and ``pairs`` at 1."""
    lo, hi = speedup - half_width, speedup + half_width
    m = Measurement(speedup, lo, hi, pairs, 0, 2, 1.0, 1.0 / speedup)
    serial = Measurement(1.0, 0.98, 1.02, pairs, 0, 1, 1.0, 1.0)
    return Verdict(verdict=word, message="", speedup=speedup, ci95=(lo, hi), threads=2,
                   pairs=pairs, measurement=m, serial_measurement=serial)


def failed(word: str) -> Verdict:
    return Verdict(verdict=word, message=f"it is {word}")


class Track:
    """A fake measurement: each variant's true speedup, an interval narrowing with the pairs,
    and a log of every call (candidate index, pairs asked; None for a full measurement)."""

    def __init__(self, speedups: dict[int, float | str], width: float = 0.3) -> None:
        self.speedups = speedups
        self.width = width
        self.calls: list[tuple[int, int | None]] = []

    async def __call__(self, index: int, pairs: int | None) -> Verdict:
        self.calls.append((index, pairs))
        s = self.speedups[index]
        if isinstance(s, str):
            return failed(s)
        n = pairs if pairs is not None else FULL
        return verdict(s, self.width * math.sqrt(round_pairs(FULL, 1) / n), n)


ENTRIES = [(0, "schedule(guided)"), (1, "schedule(static)"), (2, "schedule(dynamic, 16)")]


def test_a_variant_is_dropped_only_when_its_interval_lies_below_the_best_lower_bound() -> None:
    best = verdict(2.0, 0.1, 6)  # 1.9-2.1
    clearly_worse = verdict(1.5, 0.1, 6)  # 1.4-1.6
    overlapping = verdict(1.85, 0.1, 6)  # 1.75-1.95
    noisy = verdict(1.0, 0.5, 6, word="noisy")
    why = eliminate([best, clearly_worse, overlapping, noisy, failed("incorrect")])
    assert why[0] == "" and why[2] == "" and why[3] == ""
    assert why[1].startswith("clearly slower") and "1.90" in why[1]
    assert why[4].startswith("incorrect")


def test_without_any_figure_nothing_is_dropped_for_being_slow() -> None:
    assert eliminate([verdict(1.0, 0.5, 6, "noisy"), None]) == ["", ""]


async def test_a_clearly_best_variant_goes_straight_to_its_full_measurement() -> None:
    track = Track({0: 1.5, 1: 1.0, 2: 2.2}, width=0.1)
    done = await race("f", ENTRIES, track, FULL)
    assert [e.label for e in done.finalists] == ["schedule(dynamic, 16)"]
    first = round_pairs(FULL, 1)
    assert track.calls == [(0, first), (1, first), (2, first), (2, None)]
    dropped = {e.label: e.dropped for e in done.entrants if e.dropped}
    assert all(why.startswith("round 1: clearly slower") for why in dropped.values())
    # Three screening runs and one full one instead of three full ones.
    assert done.pairs_spent == 2 * (3 * first + FULL)
    assert done.full_cost == 3 * 2 * FULL
    assert done.pairs_spent < done.full_cost


async def test_overlapping_variants_are_halved_round_by_round_with_more_pairs() -> None:
    track = Track({0: 1.50, 1: 1.52, 2: 1.55}, width=0.3)
    done = await race("f", ENTRIES, track, FULL)
    asked = [p for _, p in track.calls]
    first = round_pairs(FULL, 1)
    # Round 1: all three; round 2 (twice the pairs): the better two; then one in full.
    assert asked == [first] * 3 + [2 * first] * 2 + [None]
    # All three stay within the noise of each other: each round keeps the earlier ones in
    # candidate order (the plainer code).
    assert [e.label for e in done.finalists] == ["schedule(guided)"]
    by_label = {e.label: e for e in done.entrants}
    assert by_label["schedule(dynamic, 16)"].dropped.startswith("round 1: at ")
    assert by_label["schedule(static)"].dropped.startswith("round 2: at ")
    assert "as good within the noise" in by_label["schedule(static)"].dropped
    assert [lap.round for lap in by_label["schedule(guided)"].laps] == [1, 2, 0]
    assert done.pairs_spent < done.full_cost


async def test_a_pragma_that_buys_nothing_measurable_is_not_kept() -> None:
    # The rule's own rewrite, then unrolled variants a little faster within the noise.
    entries = [(0, "the plain rewrite"), (1, "unroll 4"), (2, "unroll 8")]
    done = await race("f", entries, Track({0: 1.15, 1: 1.18, 2: 1.23}, width=0.1), FULL)
    assert [e.label for e in done.finalists] == ["the plain rewrite"]
    # Clearly faster beyond the noise: the unrolled one is kept.
    done = await race("f", entries, Track({0: 1.15, 1: 1.18, 2: 1.60}, width=0.1), FULL)
    assert [e.label for e in done.finalists] == ["unroll 8"]


async def test_a_wrong_variant_leaves_the_race_however_fast() -> None:
    track = Track({0: 1.5, 1: "incorrect", 2: 1.4}, width=0.05)
    done = await race("f", ENTRIES, track, FULL)
    wrong = next(e for e in done.entrants if e.index == 1)
    assert wrong.dropped.startswith("round 1: incorrect")
    assert [e.index for e in done.finalists] == [0]


async def test_when_no_round_is_measurable_the_first_variant_goes_on_alone() -> None:
    async def busy(index: int, pairs: int | None) -> Verdict:
        return verdict(1.0, 0.5, pairs or FULL, word="noisy")

    done = await race("f", ENTRIES, busy, FULL)
    assert [e.index for e in done.finalists] == [0]
    assert all("busy" in e.dropped for e in done.entrants[1:])


async def test_with_few_pairs_configured_every_variant_is_measured_in_full() -> None:
    assert not worth_racing(3, 8)
    assert worth_racing(2, FULL)
    track = Track({0: 1.5, 1: 1.0, 2: 2.2}, width=0.1)
    done = await race("f", ENTRIES, track, 8)
    assert track.calls == [(0, None), (1, None), (2, None)]
    assert len(done.finalists) == 3


async def test_the_phrase_names_the_chosen_variant_and_the_runner_up_with_figures() -> None:
    track = Track({0: 1.6, 1: 1.0, 2: 2.2}, width=0.1)
    done = await race("f", ENTRIES, track, FULL)
    other = runner_up(done, "schedule(dynamic, 16)")
    assert other is not None and other.label == "schedule(guided)"
    phrase = race_phrase(done, "schedule(dynamic, 16)")
    assert phrase == ("tried 3 variants of the loop; picked schedule(dynamic, 16) (2.20×); "
                      "next best schedule(guided) (1.60×)")


async def test_a_variant_with_a_higher_short_round_figure_is_never_named_next_best() -> None:
    # The chosen variant's full measurement came out below the other's short-round figure.
    track = Track({0: 1.6, 1: 1.0, 2: 2.2}, width=0.1)
    done = await race("f", ENTRIES, track, FULL)
    phrase = race_phrase(done, "schedule(guided)")
    assert phrase.startswith("tried 3 variants of the loop; picked schedule(guided) (1.60×)")
    assert "next best" not in phrase and "runner-up" not in phrase
    # A race whose family was not chosen never says "picked".
    other = race_phrase(done, None, "the OpenMP rewrite (openmp-for)")
    assert other == ("tried 3 variants of the OpenMP rewrite (openmp-for); its best, "
                     "schedule(dynamic, 16) (2.20×), was not chosen")
    assert race_phrase(done, None).startswith("tried 3 variants of the loop; its best, ")


async def test_a_race_of_the_rewrite_not_chosen_names_that_rewrite() -> None:
    from perfpilot.engine.outcome import Trial
    from perfpilot.engine.present import race_phrases
    from perfpilot.strategy.categories import category_by_id
    from perfpilot.strategy.values import Strategy

    hoist = Strategy(category_by_id(4), "hoist the size", (3,), rule="hoist-invariant-call")
    omp = Strategy(category_by_id(6), "run on all cores", (3,), rule="openmp-reduction")
    parallel = Candidate("p", (omp, hoist), "builtin", needs_openmp=True, family="builtin-0",
                         variant="schedule(dynamic, 16)")
    serial = Candidate("s", (hoist,), "builtin", family="builtin-1", variant="unroll 4")
    loops = await race("builtin-0", ENTRIES, Track({0: 1.6, 1: 1.0, 2: 2.2}, width=0.1), FULL)
    unrolls = await race("builtin-1", [(3, "the plain rewrite"), (4, "unroll 4")],
                         Track({3: 1.1, 4: 1.5}, width=0.05), FULL)
    chosen = Trial(parallel, None)
    said = race_phrases((loops, unrolls), (chosen, Trial(serial, None)), chosen)
    assert said[0].startswith("tried 3 variants of the loop; picked schedule(dynamic, 16) ")
    # Never a vague "another rewrite": the serial rewrite, by the rule it goes without.
    assert said[1] == ("tried 2 variants of the serial rewrite (without openmp-reduction); "
                       "its best, unroll 4 (1.50×), was not chosen"), said
    # The serial rewrite chosen: the OpenMP one's race names it so.
    picked = Trial(serial, None)
    said = race_phrases((loops, unrolls), (Trial(parallel, None), picked), picked)
    assert said[0].startswith("tried 3 variants of the OpenMP rewrite (openmp-reduction); "
                              "its best, "), said
    assert said[1].startswith("tried 2 variants of the loop; picked unroll 4 (1.50×)"), said
    # The hover says the chosen rewrite's race first.
    from perfpilot.engine.outcome import Outcome
    from perfpilot.engine.present import hover_markdown
    from perfpilot.strategy.values import Plan

    won = replace(picked, verdict=unrolls.finalists[0].last)
    outcome = Outcome(function_by_name("long f(int a) { return a; }\n", "cpp", "f"),
                      Plan((), "builtin"), (Trial(parallel, None), won), best=1,
                      status="improved", races=(loops, unrolls))
    variants = [line for line in hover_markdown(outcome).splitlines()
                if line.startswith("**Variants:**")]
    assert variants[0].startswith("**Variants:** Tried 2 variants of the loop; picked unroll 4")
    assert "of the OpenMP rewrite" in variants[1], variants


def test_an_empty_race_has_no_runner_up() -> None:
    assert runner_up(Race("f", (), FULL), None) is None


# -- schedule variants --------------------------------------------------------------------

UNEVEN = """\
double f(const double* a, long n) {
  double t = 0;
  #pragma omp parallel for reduction(+:t) schedule(guided)
  for (long i = 0; i < n; ++i)
    for (long j = 0; j < i; ++j) t += a[j];
  return t;
}"""

REGION = """\
void g(int* a, int n) {
  #pragma omp parallel
  {
    #pragma omp for nowait reduction(min:m) schedule( dynamic ,16 )
    for (int i = 0; i < n; ++i) a[i] = i;
  }
}"""


def test_each_other_schedule_is_a_variant_of_the_rules_choice() -> None:
    variants = schedule_variants(UNEVEN)
    assert [v.label for v in variants] == [
        "schedule(guided)", "schedule(static)", "schedule(dynamic, 1)",
        "schedule(dynamic, 16)", "schedule(dynamic, 64)"]
    assert variants[0].code == UNEVEN
    for v in variants[1:]:
        assert schedules_of(v.code) == (v.label,)
        assert v.code.count("#pragma") == 1 and "reduction(+:t)" in v.code
        # Only the clause differs.
        assert v.code.replace(v.label, "schedule(guided)") == UNEVEN


def test_a_for_inside_a_parallel_region_gets_variants_and_the_region_is_left_alone() -> None:
    assert schedules_of(REGION) == ("schedule(dynamic, 16)",)
    static = with_schedule(REGION, "schedule(static)")
    assert "#pragma omp parallel\n" in static
    assert "#pragma omp for nowait reduction(min:m) schedule(static)\n" in static


@pytest.mark.parametrize("code", [
    "int h(int* a, int n) {\n  #pragma omp parallel for\n  for (int i = 0; i < n; ++i) a[i]++;\n}",
    "int h(int* a, int n) {\n  #pragma omp parallel for schedule(static)\n"
    "  for (int i = 0; i < n; ++i) a[i]++;\n}",
    "int h(int* a, int n) {\n  for (int i = 0; i < n; ++i) a[i]++;\n}",
    "int h(int* a, int n) {\n  #pragma omp simd\n  for (int i = 0; i < n; ++i) a[i]++;\n}",
])
def test_even_or_unparallel_loops_get_no_schedule_variants(code: str) -> None:
    assert schedule_variants(code) == ()


def test_candidate_variants_share_a_family_and_keep_the_rest_of_the_candidate() -> None:
    cand = Candidate(UNEVEN, (), "builtin", sample=0, notes=("n",), needs_openmp=True,
                     includes=("<vector>",))
    out = candidate_variants(cand, "fam", function_by_name(UNEVEN, "cpp", "f"))
    assert len(out) == len(SCHEDULES)
    assert {c.family for c in out} == {"fam"}
    assert out[0].code == UNEVEN and out[0].notes == ("n",)
    assert all(c.needs_openmp and c.includes == ("<vector>",) for c in out)
    assert "instead of schedule(guided)" in out[1].notes[-1]
