"""A ``suspicious`` verdict (the clock claims far more than the instruction counts) is never a
speedup: not shown as one, not chosen, not applied, not a reward."""

from __future__ import annotations

from pathlib import Path

import pytest

from perfpilot.code.locate import function_by_name
from perfpilot.engine.engine import choose
from perfpilot.engine.outcome import Trial
from perfpilot.engine.present import lens_title, report_markdown, speedup_phrase
from perfpilot.engine.racing import eliminate, figure
from perfpilot.runner.measure import only_the_signature_changed
from perfpilot.runner.values import VERDICTS, Measurement, Tuning, Verdict
from perfpilot.runner.verdicts import from_measurement
from perfpilot.strategy import Candidate, Plan

SRC = """\
#include <vector>
long total(const std::vector<int>& v) {
  long s = 0;
  for (std::size_t i = 0; i < v.size(); ++i)
    for (std::size_t j = 0; j <= i; ++j)
      if (j == i) s += v[j];
  return s;
}
"""
SITE = function_by_name(SRC, "cpp", "total")
MEMO = "long total(const std::vector<int>& v) { /* remembers its last answer */ return 0; }"


def _suspicious() -> Verdict:
    """What the runner says of a memo: 2175x by the clock, 1.02x by the counts."""
    m = Measurement(speedup=2175.0, ci95_low=2100.0, ci95_high=2250.0, pairs=30,
                    dropped_pairs=0, threads=1, median_a_s=2e-3, median_b_s=1e-6, size=4096)
    v = from_measurement(Verdict(verdict="build-failed", message=""), m, None, 1.02,
                         Tuning(bootstrap=200))
    assert v.verdict == "suspicious"
    return v


def test_a_rewrite_of_the_parameters_alone_keeps_its_clock_figure() -> None:
    # A copied container no longer made: page faults and memory traffic, few instructions.
    m = Measurement(speedup=1800.0, ci95_low=1700.0, ci95_high=1900.0, pairs=30,
                    dropped_pairs=0, threads=1, median_a_s=2e-3, median_b_s=1e-6, size=4096)
    v = from_measurement(Verdict(verdict="build-failed", message=""), m, None, 150.0,
                         Tuning(bootstrap=200), same_code=True)
    assert v.verdict == "faster" and v.speedup == 1800.0
    assert any("copies no longer made" in n for n in v.notes), v.notes


def test_only_a_changed_parameter_list_counts_as_the_same_code() -> None:
    by_value = SRC.replace("const std::vector<int>& v", "std::vector<int> v")
    site = function_by_name(by_value, "cpp", "total")
    assert only_the_signature_changed(site, by_value, SRC)
    assert not only_the_signature_changed(site, by_value, by_value)
    # A changed body, or code added beside the function, could tamper or remember.
    assert not only_the_signature_changed(site, by_value, SRC.replace("s += v[j]", "s -= v[j]"))
    assert not only_the_signature_changed(site, by_value, "static long seen;\n" + SRC)


def test_the_word_is_a_verdict_and_its_phrase_says_not_applied() -> None:
    v = _suspicious()
    assert "suspicious" in VERDICTS
    phrase = speedup_phrase(v)
    assert phrase == ("suspicious, not applied: the clock says 2175× but instruction counts "
                      "say 1.02×")
    assert v.message.startswith("Wall time says 2175× but instruction counts say 1.02×")
    assert v.to_json()["speedup"] is None and v.to_json()["verdict"] == "suspicious"


def test_the_engine_never_chooses_it_and_says_why() -> None:
    trial = Trial(Candidate(MEMO, (), "remote"), _suspicious())
    out = choose(SITE, Plan((), "builtin"), (trial,))
    # No chosen candidate: nothing is applied, whatever the apply mode.
    assert out.best is None and out.chosen is None and out.status == "not-improved"
    assert "(suspicious)" in out.message and "Wall time says 2175×" in out.message
    assert lens_title(out) == "PerfPilot: not applied — " + speedup_phrase(_suspicious())
    md = report_markdown(out)
    assert "**suspicious, not applied: the clock says 2175×" in md  # no needless escapes
    assert "Wall time says 2175× but instruction counts say 1.02×" in md
    # A race drops it like a failure: it has no figure to rank.
    assert figure(trial.verdict) is None
    assert eliminate([trial.verdict])[0].startswith("suspicious: Wall time says")


def test_it_is_never_a_reward_or_a_training_signal() -> None:
    from perfpilot.training.collect import record_from_verdict
    from perfpilot.training.records import strong
    from perfpilot.training.runtime_reward import reward_of

    v = _suspicious()
    assert reward_of(v) is None  # skipped, like noisy: it proved nothing
    record = record_from_verdict(v.to_json(), source="results", machine="m", origin="x")
    assert not strong(record)


def test_an_evaluation_task_shows_it_and_counts_it_neither_correct_nor_optimized() -> None:
    from perfpilot.evaluation.evaluate import sample_from_verdict
    from perfpilot.evaluation.results import TaskResult

    sample = sample_from_verdict(_suspicious())
    other = sample_from_verdict(Verdict(verdict="noisy", message="", speedup=1.1,
                                        ci95=(0.8, 1.4)))
    task = TaskResult("t", False, (), (), (other, sample), None)
    assert task.verdict == "suspicious"
    assert not task.correct and task.speedup == 1.0 and sample.effective == 1.0


def test_the_cli_prints_it_as_not_applied(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    import perfpilot.runner.measure as measure
    from perfpilot.cli import main

    src = tmp_path / "total.cpp"
    src.write_text(SRC)
    cand = tmp_path / "memo.cpp"
    cand.write_text(MEMO)

    async def fake_bench(*args: object, **kwargs: object) -> Verdict:
        return _suspicious()

    monkeypatch.setattr(measure, "bench_files", fake_bench)
    assert main(["bench", str(src), "--function", "total", "--candidate", str(cand)]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == ("total: suspicious, not applied: the clock says 2175× but instruction "
                      "counts say 1.02×")
    assert out[1].startswith("Wall time says 2175×")
