"""The engine races the schedule variants of a builtin OpenMP rewrite: the variants are
generated, timed in short rounds, one measured in full and chosen, the runner-up named (in the
outcome, the lens, the hover and the report). Structure only, never timings."""

from __future__ import annotations

import shutil
from dataclasses import replace
from typing import Any

import pytest

import perfpilot.runner.measure as runner_measure
from perfpilot.cli import race_json
from perfpilot.code.locate import function_by_name
from perfpilot.code.site import FunctionSite
from perfpilot.engine.engine import Engine
from perfpilot.engine.present import hover_markdown, lens_title, report_markdown
from perfpilot.engine.racing import next_best, round_pairs
from perfpilot.progress import JobContext
from perfpilot.runner.measurement_inputs import MeasurementInputs
from perfpilot.runner.values import Measurement, Tuning, Verdict
from perfpilot.settings import RunnerSettings, Settings

# The inner loop grows with the outer index: the OpenMP rule picks a schedule for uneven work,
# and the builtin optimizer adds the other schedules as variants. Integers: a floating inner
# sum would also be planned as partial sums, a serial candidate beside the raced family.
UNIT = """\
#include <vector>

long pair_sum(const std::vector<long>& a) {
  long total = 0;
  long n = (long)a.size();
  for (long i = 0; i < n; ++i) {
    long s = 0;
    for (long j = 0; j < i; ++j) s += a[j] * a[i - j];
    total += s;
  }
  return total;
}
"""

# Verification itself is tested in test_verification*.py: no sanitized builds of the five
# variants here, only the plain builds the race times.
FAST = Tuning(target_sample_s=0.002, edge_sizes=(0, 1, 2, 7), budget_s=10.0, noisy_retries=2,
              max_pairs_factor=6, profiles=(0, 1), seeds_per_profile=1, mutants=False,
              coverage=False, sanitizers=False)


def site() -> FunctionSite:
    return function_by_name(UNIT, "cpp", "pair_sum", uri="file:///tmp/pair_sum.cpp")


def engine(pairs: int = 30, tuning: Tuning | None = None) -> Engine:
    settings = Settings(runner=RunnerSettings(threads=2, callgrind=False, pairs=pairs,
                                              run_timeout_s=30.0))
    return Engine(settings, tuning=tuning)


# Constructed figures per schedule: dynamic with chunks of 16 clearly best, the others behind
# it and overlapping each other.
FIGURES = {"schedule(dynamic, 16)": 1.9, "schedule(guided)": 1.5, "schedule(static)": 1.45,
           "schedule(dynamic, 1)": 1.2, "schedule(dynamic, 64)": 1.4}


class FakeRunner:
    """Stands in for the runner: a verdict by the schedule in the code, and a log of calls."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.calls: list[tuple[str, int, bool]] = []

        async def measure(_site: FunctionSite, code: str, inputs: MeasurementInputs,
                          *_args: Any, **_kwargs: Any) -> Verdict:
            settings = inputs.settings
            label = next(k for k in FIGURES if k in code)
            self.calls.append((label, settings.pairs, settings.callgrind))
            s, w = FIGURES[label], 0.15 * (6 / settings.pairs) ** 0.5
            m = Measurement(s, s - w, s + w, settings.pairs, 0, 2, 1.0, 1.0 / s)
            return Verdict("faster", "measured", speedup=s, ci95=(s - w, s + w), threads=2,
                           serial_speedup=1.0, serial_ci95=(0.99, 1.01), pairs=settings.pairs,
                           measurement=m, serial_measurement=replace(m, threads=1),
                           flags=("-fopenmp",), validation_status="passed")

        monkeypatch.setattr(runner_measure, "measure_candidate", measure)


async def test_variants_are_raced_and_only_the_winner_is_measured_in_full(
        monkeypatch: pytest.MonkeyPatch) -> None:
    fake = FakeRunner(monkeypatch)
    settings = Settings(runner=RunnerSettings(threads=2, callgrind=True, pairs=30))
    outcome = await Engine(settings).optimize(site(), JobContext())
    (race,) = outcome.races
    assert {e.label for e in race.entrants} == set(FIGURES)
    # Round 1 for all five at a fifth of the pairs, without instruction counts; then the
    # clearly best one in full, with the configured settings.
    first = round_pairs(30, 1)
    k = len(FIGURES)
    assert sorted(fake.calls[:k]) == sorted((label, first, False) for label in FIGURES)
    assert fake.calls[k:] == [("schedule(dynamic, 16)", 30, True)]
    assert outcome.status == "improved"
    chosen = outcome.chosen
    assert chosen is not None and chosen.candidate.variant == "schedule(dynamic, 16)"
    # Only the finalist is a trial; the others live in the race's record.
    assert [t.candidate.variant for t in outcome.trials] == ["schedule(dynamic, 16)"]
    assert "Tried 5 variants of the loop; picked schedule(dynamic, 16) (1.90×); next best " \
        "schedule(guided) (1.50×)." in outcome.message
    assert race.pairs_spent < race.full_cost
    # The lens carries the result alone; the variants are in the hover and the report.
    assert "variants" not in lens_title(outcome)
    assert "**Variants:** Tried 5 variants" in hover_markdown(outcome)
    report = report_markdown(outcome)
    assert "## Variants tried" in report and "round 1: clearly slower" in report
    assert "measured in full" in report
    data = race_json(race)
    assert data["pairs_spent"] == race.pairs_spent and len(data["variants"]) == len(FIGURES)
    assert [lap["round"] for v in data["variants"] if not v["dropped"] for lap in v["laps"]] \
        == [1, 0]


async def test_a_race_whose_every_variant_needs_a_spec_asks_for_the_spec(
        monkeypatch: pytest.MonkeyPatch) -> None:
    from perfpilot.engine.present import needs_spec_verdict

    async def measure(*_args: Any, **_kwargs: Any) -> Verdict:
        return Verdict("needs-spec", "PerfPilot cannot build inputs for pair_sum: a template.")

    monkeypatch.setattr(runner_measure, "measure_candidate", measure)
    outcome = await engine().optimize(site(), JobContext())
    (race,) = outcome.races
    assert not race.finalists
    # The family's verdict is the original's need, not "nothing measured in full".
    assert needs_spec_verdict(outcome) is not None
    assert outcome.message.startswith("PerfPilot cannot build inputs for pair_sum"), \
        outcome.message


async def test_without_measuring_only_the_rules_own_schedule_is_proposed(
        monkeypatch: pytest.MonkeyPatch) -> None:
    FakeRunner(monkeypatch)
    outcome = await engine().optimize(site(), JobContext(), measure=False)
    assert outcome.status == "unmeasured" and outcome.races == ()
    assert [t.candidate.variant for t in outcome.trials] == ["schedule(guided)"]


@pytest.mark.skipif(shutil.which("g++") is None, reason="g++ not installed")
async def test_end_to_end_the_builtin_variants_are_verified_raced_and_one_chosen() -> None:
    outcome = await engine(tuning=FAST).optimize(site(), JobContext())
    (race,) = outcome.races
    assert {e.label for e in race.entrants} == set(FIGURES)
    # Every variant was built, verified and timed at least once with few pairs.
    assert all(e.laps and e.laps[0].round == 1 for e in race.entrants)
    assert all(e.laps[0].verdict.validation_status == "passed" for e in race.entrants), \
        [e.laps[0].verdict.message for e in race.entrants]
    (winner,) = race.finalists
    assert winner.laps[-1].round == 0  # the full measurement
    assert all(e.dropped.startswith("round ") for e in race.entrants if e is not winner)
    assert [t.candidate.variant for t in outcome.trials] == [winner.label]
    assert race.pairs_spent < race.full_cost
    other = next_best(race, winner)
    if other is not None:
        assert f"next best {other.label}" in outcome.message
    # Never a variant named after the chosen one with a higher figure than its own.
    assert "runner-up" not in outcome.message
    # Picked when it was measured faster; else named as the best, never as a pick.
    said = "picked" if outcome.chosen is not None else "its best,"
    assert f"Tried {len(race.entrants)} variants of the loop; {said} {winner.label}" \
        in outcome.message
    assert "Variants tried" in report_markdown(outcome)
