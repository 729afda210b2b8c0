"""The words of a result that applied nothing: every message gives its reason, and no message
contradicts its own figures (empty parentheses, a busy machine whose pairs never waited)."""

from __future__ import annotations

from perfpilot.engine.engine import nothing_faster_message
from perfpilot.engine.racing import Entrant, Lap, Race, race_phrase
from perfpilot.runner.values import Measurement, Verdict
from perfpilot.runner.verdicts import too_few_pairs_message
from perfpilot.strategy.values import Rejected


def measurement(pairs: int, dropped: int, wanted: int, psi: float | None = None) -> Measurement:
    return Measurement(1.2, 0.9, 1.6, pairs, dropped, 1, 1.0, 0.8, psi=psi, wanted_pairs=wanted)


def test_few_pairs_none_contended_is_not_called_a_busy_machine() -> None:
    m = measurement(pairs=6, dropped=0, wanted=20, psi=0.0)
    assert not m.clean
    text = too_few_pairs_message(m)
    assert "busy" not in text and "waited" not in text and "pressure" not in text, text
    assert text.startswith("Too few pairs to measure: the timing stopped after 6 pairs "
                           "(6 clean); 10 clean pairs are needed."), text


def test_a_busy_machine_names_the_pairs_that_waited_and_real_pressure_only() -> None:
    busy = too_few_pairs_message(measurement(pairs=80, dropped=75, wanted=20, psi=37.4))
    assert busy.startswith("Machine too busy to measure: 75 of 80 pairs waited for a CPU, "
                           "CPU pressure 37%; 10 clean pairs are needed."), busy
    calm = too_few_pairs_message(measurement(pairs=80, dropped=75, wanted=20, psi=0.2))
    assert "pressure" not in calm and "75 of 80 pairs waited" in calm, calm
    # Some waited, but fewer than were clean: the timing ran short, it says both.
    short = too_few_pairs_message(measurement(pairs=7, dropped=2, wanted=20))
    assert short.startswith("Too few pairs to measure: the timing stopped after 7 pairs "
                            "(5 clean, 2 waited for a CPU)"), short


def test_nothing_faster_never_has_empty_parentheses_and_gives_a_reason() -> None:
    none = nothing_faster_message("sum_values", [])
    assert "()" not in none
    assert none == "No candidate for sum_values was measured in full; nothing applied"
    refused = nothing_faster_message(
        "sum_values", [], (Rejected("builtin", "the rewrite calls an unknown function"),))
    assert refused.endswith("nothing applied. Refused: the rewrite calls an unknown function")
    noisy = Verdict("noisy", "Too few pairs to measure: the timing stopped after 6 pairs "
                             "(6 clean); 10 clean pairs are needed. Re-run with more time.")
    text = nothing_faster_message("sum_values", [noisy, noisy])
    assert text.startswith("No candidate for sum_values was measured faster (noisy); nothing "
                           "applied. Too few pairs to measure"), text
    assert text.endswith("Re-run with more time.") and ".." not in text
    # A failure's own message comes before a noisy one: it is what to fix.
    broken = Verdict("build-failed", "the candidate did not compile: error at line 3.")
    both = nothing_faster_message("f", [noisy, broken])
    assert "(noisy, build-failed)" in both and both.endswith("error at line 3."), both
    slower = nothing_faster_message("f", [Verdict("slower", "0.80×: slower (95% CI …).")])
    assert slower == "No candidate for f was measured faster (slower); nothing applied"


def test_a_race_that_lost_every_variant_says_why() -> None:
    failed = Verdict("incorrect", "results differ at size 7")
    entrants = (Entrant(0, "unroll 4", (Lap(1, 6, failed),), "round 1: incorrect: results "
                        "differ at size 7"),
                Entrant(1, "unroll 8", (Lap(1, 6, failed),), "round 1: incorrect: results "
                        "differ at size 7"))
    phrase = race_phrase(Race("loop", entrants, 30), None)
    assert phrase == ("tried 2 variants of the loop; none was measured in full (unroll 4 left "
                      "in round 1: incorrect: results differ at size 7)"), phrase


def test_a_measured_interval_uses_the_one_figure_format() -> None:
    from perfpilot.runner.values import Tuning
    from perfpilot.runner.verdicts import from_measurement

    m = Measurement(1.98, 1.97, 2.0, 30, 0, 1, 1.0, 0.5)
    v = from_measurement(Verdict("faster", ""), m, None, None, Tuning())
    assert v.message.startswith("1.98× faster (95% CI 1.97–2.00, serial)"), v.message


def test_a_rerun_that_does_not_confirm_the_rewrite_says_it_stays_applied() -> None:
    from perfpilot.engine.present import rerun_kept_message

    noisy = Verdict("noisy", "Too few pairs to measure: the timing stopped after 6 pairs "
                             "(6 clean); 10 clean pairs are needed. Re-run with more time.")
    text = rerun_kept_message(noisy)
    assert text.startswith("re-run not measured reliably; the applied rewrite stays (Revert "
                           "undoes it). Too few pairs"), text
    assert "nothing applied" not in text and "busy" not in text and ".." not in text
    slower = Verdict("slower", "0.80×: slower (95% CI 0.70–0.90, serial).", speedup=0.8,
                     ci95=(0.7, 0.9), threads=1)
    assert rerun_kept_message(slower) == ("re-run 0.80× slower (95% CI 0.70–0.90, serial); the "
                                          "applied rewrite stays (Revert undoes it).")
