"""Pure statistics: clean-pair filtering, bootstrap interval, verdict words."""

from __future__ import annotations

import os
from dataclasses import replace

import pytest

from perfpilot.runner.stats import (
    PairSample,
    bootstrap_median_ci,
    classify,
    contended,
    read_psi,
    summarize,
)
from perfpilot.runner.values import Measurement, Tuning, Verdict

T = Tuning(bootstrap=500)


def _pairs(ratios: list[float], wait: int = 0) -> list[PairSample]:
    return [PairSample(int(1_000_000 * r), 1_000_000, wait, 0) for r in ratios]


def test_contended_uses_the_wait_share_of_either_call() -> None:
    assert not contended(PairSample(1000, 1000, 20, 20), 0.02)
    assert contended(PairSample(1000, 1000, 21, 0), 0.02)
    assert contended(PairSample(1000, 1000, 0, 500), 0.02)


def test_bootstrap_is_seeded_and_brackets_the_median() -> None:
    values = [1.0, 1.1, 0.9, 1.05, 0.95, 1.02, 0.98]
    a = bootstrap_median_ci(values, 500, 1)
    b = bootstrap_median_ci(values, 500, 1)
    assert a == b
    assert a[0] <= 1.0 <= a[1]
    assert bootstrap_median_ci([2.0], 10, 1) == (2.0, 2.0)
    with pytest.raises(ValueError):
        bootstrap_median_ci([], 10, 1)


def test_summarize_drops_contended_pairs() -> None:
    clean = _pairs([2.0] * 10)
    dirty = [PairSample(9_000_000, 1_000_000, 5_000_000, 0)] * 4
    m = summarize(clean + dirty, 1, T)
    assert m.pairs == 14 and m.dropped_pairs == 4
    assert m.speedup == pytest.approx(2.0)
    assert m.clean
    assert classify(m, 0.03) == "faster"


def test_too_few_clean_pairs_is_noisy() -> None:
    dirty = [PairSample(2_000_000, 1_000_000, 500_000, 0)] * 10
    m = summarize(_pairs([2.0] * 2) + dirty, 1, T)
    assert not m.clean
    assert classify(m, 0.03) == "noisy"
    assert m.notes and "busy" in m.notes[0]
    # Asking for 4 clean pairs and getting 3 of 20 taken is still not enough.
    m2 = summarize(_pairs([1.0] * 3) + dirty, 1, T, wanted=8)
    assert not m2.clean


def test_classify_words() -> None:
    base = Measurement(speedup=1.0, ci95_low=0.99, ci95_high=1.01, pairs=20, dropped_pairs=0,
                       threads=1, median_a_s=0.01, median_b_s=0.01)
    assert classify(base, 0.03) == "no-change"
    assert classify(replace(base, speedup=0.5, ci95_low=0.45, ci95_high=0.55), 0.03) == "slower"
    assert classify(replace(base, speedup=1.5, ci95_low=1.4, ci95_high=1.6), 0.03) == "faster"
    # Significant but smaller than the band: no measurable change.
    assert classify(replace(base, speedup=1.015, ci95_low=1.005, ci95_high=1.05), 0.03) \
        == "no-change"
    # Straddles 1 and wider than the band: cannot tell.
    assert classify(replace(base, speedup=1.0, ci95_low=0.8, ci95_high=1.3), 0.03) == "noisy"


def test_read_psi(tmp_path) -> None:  # type: ignore[no-untyped-def]
    f = tmp_path / "cpu"
    f.write_text("some avg10=12.50 avg60=1.00 avg300=0.00 total=1\n"
                 "full avg10=0.00 avg60=0.00 avg300=0.00 total=0\n")
    assert read_psi(f) == 12.5
    assert read_psi(tmp_path / "missing") is None


def test_verdict_json_shape() -> None:
    v = Verdict(verdict="faster", message="2.00× faster", speedup=2.0, ci95=(1.9, 2.1),
                threads=2, serial_speedup=1.0, instructions_ratio=None,
                validation_status="passed", validation_detail="ok", pairs=30, dropped_pairs=2,
                flags=("-O2",), compiler="g++", median_a_s=0.02, median_b_s=0.01)
    data = v.to_json()
    assert data["ci95"] == [1.9, 2.1]
    assert data["validation"] == {"status": "passed", "detail": "ok"}
    assert data["instructions_ratio"] is None
    assert data["flags"] == ["-O2"]
    assert Verdict(verdict="build-failed", message="x").to_json()["ci95"] is None


def test_build_cache_round_trip_and_pruning(tmp_path) -> None:  # type: ignore[no-untyped-def]
    from perfpilot.runner.build import BuildCache

    work = tmp_path / "work"
    work.mkdir()
    (work / "unit.cpp").write_text("int f() { return 1; }\n")
    cache = BuildCache(tmp_path / "cache", max_entries=2)
    argv = ["/usr/bin/true", "-O2", "unit.cpp"]
    key = cache.key(argv, work, ["unit.cpp"])
    assert not cache.fetch(key, work / "out.so")
    (work / "built.so").write_bytes(b"\x7fELF fake build output")
    cache.store(key, work / "built.so")
    assert cache.fetch(key, work / "out.so")
    assert (work / "out.so").read_bytes() == b"\x7fELF fake build output"
    # A different source or different flags is a different key.
    (work / "unit.cpp").write_text("int f() { return 2; }\n")
    assert cache.key(argv, work, ["unit.cpp"]) != key
    assert cache.key([*argv, "-O3"], work, ["unit.cpp"]) != key
    for k in ("k1", "k2", "k3"):
        cache.store(k, work / "built.so")
    assert len(list((tmp_path / "cache").iterdir())) == 2


def test_busy_serial_run_falls_back_to_cpu_time_but_parallel_stays_noisy() -> None:
    # Every pair waited: wall ratios are all over the place, CPU times agree.
    busy = [PairSample(3_000_000 if k % 2 else 1_000_000, 1_000_000, 900_000, 0,
                       1_000_000 + k, 1_000_000) for k in range(20)]
    serial = summarize(busy, 1, T)
    assert serial.basis == "cpu"
    assert serial.speedup == pytest.approx(1.0, abs=1e-3)
    assert classify(serial, 0.03) == "no-change"
    assert any("CPU time" in n for n in serial.notes)
    parallel = summarize(busy, 2, T)  # CPU time sums threads: no fallback
    assert parallel.basis == "wall"
    assert classify(parallel, 0.03) == "noisy"
    assert classify(summarize(busy, 1, replace(T, cpu_fallback=False)), 0.03) == "noisy"


def test_pressure_during_a_window() -> None:
    from perfpilot.runner.stats import pressure_during

    assert pressure_during(1_000_000, 1_500_000, 1.0) == 50.0
    assert pressure_during(0, 5_000_000, 1.0) == 100.0  # capped
    assert pressure_during(None, 10, 1.0) is None
    assert pressure_during(10, 10, 0.0) is None


def test_an_interval_touching_one_is_not_a_claimed_difference() -> None:
    m = Measurement(speedup=0.969, ci95_low=0.949, ci95_high=0.9999, pairs=20, dropped_pairs=0,
                    threads=1, median_a_s=1e-3, median_b_s=1e-3)
    assert classify(m, 0.03) == "noisy"  # an A/A run seen on a busy machine
    clear = replace(m, speedup=0.9, ci95_low=0.88, ci95_high=0.92)
    assert classify(clear, 0.03) == "slower"
    small = replace(m, speedup=1.01, ci95_low=1.005, ci95_high=1.035)
    assert classify(small, 0.03) == "no-change"


def test_steal_and_pressure_between_two_snapshots(tmp_path) -> None:  # type: ignore[no-untyped-def]
    from perfpilot.runner.stats import CpuSnapshot, read_steal_ticks

    stat = tmp_path / "stat"
    stat.write_text("cpu  998958 931 109943 982145 5725 0 1592 1293 0 0\n"
                    "cpu0 424082 345 48568 574777 1187 0 219 642 0 0\n")
    assert read_steal_ticks(stat) == 1293
    assert read_steal_ticks(tmp_path / "missing") is None
    before = CpuSnapshot(stall_us=0, steal_ticks=1000, at=10.0)
    # 2 s of two CPUs: 40 ticks (0.4 s) stolen is 10% of their time; 0.5 s stalled is 25%.
    after = CpuSnapshot(stall_us=500_000, steal_ticks=1040, at=12.0)
    assert after.steal_since(before, 2) == pytest.approx(10.0)
    assert after.pressure_since(before) == pytest.approx(25.0)
    assert after.steal_since(replace(before, steal_ticks=None), 2) is None
    now = CpuSnapshot.now(psi=tmp_path / "missing", stat=stat)
    assert now.stall_us is None and now.steal_ticks == 1293


def test_a_withheld_figure_is_noisy_and_says_why() -> None:
    from perfpilot.runner.verdicts import from_measurement

    m = Measurement(speedup=0.05, ci95_low=0.049, ci95_high=0.051, pairs=30, dropped_pairs=0,
                    threads=2, median_a_s=1e-3, median_b_s=2e-2)
    assert classify(m, 0.03) == "slower"
    why = "The hypervisor gave 12% of the CPUs' time to other machines (steal time)."
    held = replace(m, withheld=why)
    assert classify(held, 0.03) == "noisy"
    v = from_measurement(Verdict(verdict="build-failed", message=""), held, None, None, T)
    assert v.verdict == "noisy"
    assert why in v.message and "0.05×" in v.message


def test_a_slowdown_stands_only_when_a_second_run_shows_it() -> None:
    from perfpilot.runner.paired_timing import confirm_slowdown

    slow = Measurement(speedup=0.05, ci95_low=0.049, ci95_high=0.051, pairs=30,
                       dropped_pairs=0, threads=2, median_a_s=1e-3, median_b_s=2e-2)
    fast = replace(slow, speedup=3.5, ci95_low=3.4, ci95_high=3.6)
    refuted = confirm_slowdown(slow, fast, T)
    assert classify(refuted, 0.03) == "noisy"
    assert "0.05×" in refuted.withheld and "3.50×" in refuted.withheld
    confirmed = confirm_slowdown(slow, replace(slow, speedup=0.06), T)
    assert classify(confirmed, 0.03) == "slower"
    assert any("confirmed" in n for n in confirmed.notes)
    busy = confirm_slowdown(slow, replace(fast, withheld="CPU pressure was 80%."), T)
    assert busy.withheld == "CPU pressure was 80%."
    serial = confirm_slowdown(replace(slow, threads=1), replace(fast, threads=1), T)
    assert serial.withheld.startswith("The serial run measured 0.05×"), serial.withheld


def test_a_multi_thread_figure_is_withheld_under_pressure_or_steal() -> None:
    from perfpilot.runner.stats import CpuSnapshot, gate_parallel

    m = Measurement(speedup=1.9, ci95_low=1.85, ci95_high=1.95, pairs=30, dropped_pairs=0,
                    threads=2, median_a_s=2e-3, median_b_s=1e-3)
    before = CpuSnapshot(stall_us=0, steal_ticks=0, at=0.0)
    quiet = CpuSnapshot(stall_us=10_000, steal_ticks=1, at=1.0)  # 1% stalled, 0.5% stolen
    assert gate_parallel(m, before, quiet, T) == m
    busy = replace(quiet, stall_us=400_000)
    held = gate_parallel(m, before, busy, T)
    assert classify(held, 0.03) == "noisy" and "CPU pressure was 40%" in held.withheld
    cpus = os.cpu_count() or 1
    stolen = replace(quiet, steal_ticks=10 * cpus)  # 10% of every CPU's second
    assert "steal time" in gate_parallel(m, before, stolen, T).withheld
    serial = replace(m, threads=1)
    assert gate_parallel(serial, before, busy, T) == serial


def test_a_wall_time_gain_ten_times_the_counted_one_is_suspicious() -> None:
    from perfpilot.runner.verdicts import from_measurement, wall_outruns_counts

    m = Measurement(speedup=40.0, ci95_low=38.0, ci95_high=42.0, pairs=30, dropped_pairs=0,
                    threads=1, median_a_s=4e-2, median_b_s=1e-3)
    assert wall_outruns_counts(40.0, 1.1)
    assert not wall_outruns_counts(1.1, 40.0)  # counts may show more gain than the clock
    assert not wall_outruns_counts(40.0, 5.0) and not wall_outruns_counts(40.0, 0.0)
    tampered = from_measurement(Verdict(verdict="build-failed", message=""), m, None, 1.1, T)
    assert tampered.verdict == "suspicious"
    assert tampered.message.startswith("Wall time says 40.00× but instruction counts say 1.10×")
    # Never a figure to show, rank or apply; the measurement stays as evidence.
    assert tampered.speedup is None and tampered.ci95 is None
    assert tampered.measurement == m and tampered.instructions_ratio == 1.1
    backed = from_measurement(Verdict(verdict="build-failed", message=""), m, None, 12.0, T)
    assert backed.verdict == "faster", backed.message


def test_a_parallel_figure_is_judged_suspicious_by_its_one_thread_run() -> None:
    from perfpilot.runner.verdicts import from_measurement

    par = Measurement(speedup=60.0, ci95_low=58.0, ci95_high=62.0, pairs=30, dropped_pairs=0,
                      threads=4, median_a_s=6e-2, median_b_s=1e-3)
    one = replace(par, threads=1, speedup=30.0, ci95_low=29.0, ci95_high=31.0)
    v = from_measurement(Verdict(verdict="build-failed", message=""), par, one, 2.0, T)
    assert v.verdict == "suspicious" and v.serial_speedup is None
    assert "30.00×" in v.message and "2.00×" in v.message
    # Threads divide the wall time, not the instructions: 4 threads at 4x is no suspicion.
    honest = replace(one, speedup=4.0, ci95_low=3.9, ci95_high=4.1)
    assert from_measurement(Verdict(verdict="build-failed", message=""), par, honest, 2.0,
                            T).verdict == "faster"


def test_counts_showing_ten_times_the_wall_gain_are_a_note_not_a_verdict() -> None:
    # An honest rewrite whose call became tiny: the clock sees memory and allocation the
    # counts do not (a bundled rewrite measured 21x by the clock and 921x by the counts).
    from perfpilot.runner.verdicts import counts_outrun_wall, from_measurement

    m = Measurement(speedup=21.0, ci95_low=20.0, ci95_high=22.0, pairs=30, dropped_pairs=0,
                    threads=1, median_a_s=2.1e-2, median_b_s=1e-3)
    assert counts_outrun_wall(21.0, 921.0) and not counts_outrun_wall(21.0, 150.0)
    v = from_measurement(Verdict(verdict="build-failed", message=""), m, None, 921.0, T)
    assert v.verdict == "faster" and v.speedup == 21.0
    assert "Instruction counts say 921×" in v.message and "do not show" in v.message
    near = from_measurement(Verdict(verdict="build-failed", message=""), m, None, 60.0, T)
    assert near.verdict == "faster" and "do not show" not in near.message
    assert "Instruction counts say 60.00×, far from" in near.message


def test_a_size_chosen_while_the_cpu_was_held_is_not_timed() -> None:
    from perfpilot.runner.measure import disturbed_calibration

    chosen: dict[str, object] = {"size": 16, "reps": 1, "call_ns": 3_000_000, "reached": True}
    tiny = Measurement(speedup=0.08, ci95_low=0.07, ci95_high=0.09, pairs=30, dropped_pairs=0,
                       threads=2, median_a_s=3.7e-7, median_b_s=4.6e-6, size=16)
    why = disturbed_calibration(chosen, tiny, 0.002)
    assert "disturbed" in why and "size 16" in why
    held = replace(tiny, withheld=why)
    assert classify(held, 0.03) == "noisy"
    steady = replace(tiny, median_a_s=2.4e-3, median_b_s=2.9e-3)
    assert disturbed_calibration(chosen, steady, 0.002) == ""
    # A copied vector: calibration paid first-touch page faults, warm calls run 20x faster.
    warm = replace(tiny, median_a_s=1.5e-4, median_b_s=1.7e-7)
    assert disturbed_calibration(chosen, warm, 0.002) == ""
    # Below the target because calibration never reached it: repeated calls, not a stall.
    assert disturbed_calibration({**chosen, "reached": False}, tiny, 0.002) == ""
    assert disturbed_calibration(None, tiny, 0.002) == ""


def test_a_multi_thread_timeout_under_pressure_is_not_decided() -> None:
    from types import SimpleNamespace
    from typing import cast

    from perfpilot.runner.job import Job
    from perfpilot.runner.verdicts import Failure
    from perfpilot.runner.verify import _contended

    job = cast(Job, SimpleNamespace(tuning=Tuning()))
    hang = Failure("timeout", "The candidate was stopped at size 8 (at 2 threads).")
    held = _contended(job, hang, 2, 90.0)
    assert held.verdict == "noisy" and "CPU pressure was 90%" in held.message
    assert held.message.startswith("Not decided: the 2-thread check ran past its limit")
    # Quiet cores, one thread, or another failure: the verdict stands.
    assert _contended(job, hang, 2, 3.0) is hang
    assert _contended(job, hang, 2, None) is hang
    assert _contended(job, hang, 1, 90.0) is hang
    wrong = Failure("incorrect", "outputs differ")
    assert _contended(job, wrong, 2, 90.0) is wrong
