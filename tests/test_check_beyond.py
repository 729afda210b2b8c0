"""Which failures of the check past the timed size count against the candidate."""

from __future__ import annotations

from pathlib import Path

from perfpilot.runner.driver_run import DriverRun
from perfpilot.runner.sandbox import ProcResult
from perfpilot.runner.verify import stalled_elsewhere


def _run(*cases: dict[str, object]) -> DriverRun:
    events = tuple({"event": "case", "profile": 0, "seed": 1, "size": 4096, **c} for c in cases)
    return DriverRun((*events, {"event": "done"}), ProcResult(0, "", "", False, 0.1))


def test_setting_large_inputs_up_too_slowly_says_nothing_of_the_candidate(tmp_path: Path) -> None:
    why = stalled_elsewhere(_run({"status": "timeout", "side": ""}), tmp_path)
    assert why == "the check did not finish within the time limit at size 4096"


def test_the_original_failing_past_the_timed_size_says_nothing_of_the_candidate(
        tmp_path: Path) -> None:
    assert "crashed (SIGSEGV)" in stalled_elsewhere(
        _run({"status": "crash", "side": "A", "signal": 11}), tmp_path)
    assert stalled_elsewhere(_run({"status": "timeout", "side": "A"}), tmp_path)


def test_the_candidate_and_crashes_after_its_call_stay_its_own(tmp_path: Path) -> None:
    # Memory the candidate corrupted may only fail the comparison after both calls.
    assert stalled_elsewhere(_run({"status": "crash", "side": "", "signal": 6}), tmp_path) == ""
    assert stalled_elsewhere(_run({"status": "timeout", "side": "B"}), tmp_path) == ""
    assert stalled_elsewhere(_run({"status": "mismatch", "side": ""}), tmp_path) == ""
    assert stalled_elsewhere(_run({"status": "ok", "side": ""}), tmp_path) == ""
