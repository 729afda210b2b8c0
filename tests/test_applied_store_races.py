"""A kept rewrite keeps its race between variants: after a reload the hover and Details say
which variants were tried, as they did before it."""

from __future__ import annotations

from perfpilot.engine.applied_store import race_from_json, race_to_json
from perfpilot.engine.racing import Entrant, Lap, Race, race_phrase
from perfpilot.runner.values import Measurement, Tuning, Verdict
from perfpilot.runner.verdicts import from_measurement


def test_a_race_survives_the_round_trip_with_its_words() -> None:
    m = Measurement(4.51, 4.2, 4.8, 30, 0, 1, 1.0, 0.22)
    won = from_measurement(Verdict("faster", ""), m, None, None, Tuning())
    slow = Verdict("slower", "0.80× slower")
    race = Race("loop", (Entrant(0, "unroll 4", (Lap(1, 6, won), Lap(0, 30, won))),
                         Entrant(1, "unroll 8", (Lap(1, 6, slow),), "clearly slower")), 30)
    back = race_from_json(race_to_json(race))
    assert [(e.index, e.label, e.dropped, [(lap.round, lap.pairs) for lap in e.laps])
            for e in back.entrants] == [(0, "unroll 4", "", [(1, 6), (0, 30)]),
                                        (1, "unroll 8", "clearly slower", [(1, 6)])]
    assert back.family == "loop" and back.full_pairs == 30
    assert race_phrase(back, None) == race_phrase(race, None)
    assert "unroll 4" in race_phrase(back, None)
    assert back.entrants[0].last is not None and back.entrants[0].last.speedup == won.speedup
