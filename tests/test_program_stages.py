"""A whole program is a mode of the runner's pipeline: its figure goes through the paired timing
and verdict a function's does (a noisy run timed again, a slowdown confirmed, the 1-thread
figure of an OpenMP run). Its own build and output check are stood in for here; the real ones
run in test_runner_measure.py and test_object_policy.py."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

import perfpilot.runner.program as program
from perfpilot.code.locate import function_by_name
from perfpilot.progress import JobContext
from perfpilot.runner.driver_run import Calibration
from perfpilot.runner.job import Job
from perfpilot.runner.measurement_inputs import resolve_inputs
from perfpilot.runner.paired_timing import Timing, settled
from perfpilot.runner.sandbox import Sandbox
from perfpilot.runner.toolchain import Toolchain
from perfpilot.runner.values import Measurement, Tuning, Verdict
from perfpilot.runner.verdicts import Failure
from perfpilot.settings import RunnerSettings

PROGRAM = ("#include <cstdio>\nint main() {\n  long n = 0;\n  std::scanf(\"%ld\", &n);\n"
           "  std::printf(\"%ld\\n\", n * 2);\n  return 0;\n}\n")
SLOWER = Measurement(speedup=0.5, ci95_low=0.48, ci95_high=0.52, pairs=10, dropped_pairs=0,
                     threads=1, median_a_s=0.1, median_b_s=0.2)
SAME = replace(SLOWER, speedup=1.0, ci95_low=0.99, ci95_high=1.01, median_b_s=0.1)
NOISY = replace(SLOWER, speedup=1.0, ci95_low=0.5, ci95_high=1.6)


def _job(tmp_path: Path, *, openmp: bool = False, threads: int = 4) -> Job:
    src = tmp_path / "prog.cpp"
    src.write_text(PROGRAM)
    (tmp_path / "prog.in").write_text("21\n")
    site = function_by_name(PROGRAM, "cpp", "main", uri=src.as_uri())
    inputs = replace(resolve_inputs(RunnerSettings(callgrind=False), site, src, tmp_path),
                     threads=threads)
    assert inputs.mode == "program"
    tc = Toolchain(cc="g++", cxx="g++", cc_name="g++", language="cpp", flags=("-O2",),
                   flags_source="defaults", openmp=openmp)
    sandbox = Sandbox(mode="none", drop_user=False, prlimit=None, setpriv=None)
    return Job(site, inputs, inputs.tuning, tc, sandbox, tmp_path, JobContext(), "stdin",
               (PROGRAM, PROGRAM))


def _stand_in(monkeypatch: pytest.MonkeyPatch, figures: list[Measurement]) -> list[int]:
    """The program's own stages stood in for; each launcher run gives the next figure.
    Returns the thread counts the launcher was run at."""
    runs: list[int] = []

    async def built(_job: Job, _base: Verdict) -> str:
        return "built"

    async def agree(*_a: Any) -> None:
        return None

    async def launched(_job: Job, _names: list[str], threads: int) -> Timing:
        runs.append(threads)
        return replace(figures.pop(0), threads=threads), Calibration()

    monkeypatch.setattr(program, "_build", built)
    monkeypatch.setattr(program, "_stage_inputs", lambda _job: ["in0.txt"])
    monkeypatch.setattr(program, "_compare_outputs", agree)
    monkeypatch.setattr(program, "_time_once", launched)
    return runs


async def test_a_programs_slowdown_must_show_twice(tmp_path: Path,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    runs = _stand_in(monkeypatch, [SLOWER, SAME])
    v = await program.measure_program(_job(tmp_path), Verdict("build-failed", ""))
    assert runs == [1, 1]  # timed again to confirm the slowdown
    assert v.verdict == "noisy" and "does not reproduce" in v.message
    assert v.validation_detail == "outputs agree on 1 input file(s)" and v.build_log == "built"

    runs = _stand_in(monkeypatch, [SLOWER, SLOWER])
    v = await program.measure_program(_job(tmp_path), Verdict("build-failed", ""))
    assert v.verdict == "slower" and any("confirmed" in n for n in v.measurement.notes)


async def test_a_noisy_program_run_is_timed_again(tmp_path: Path,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    runs = _stand_in(monkeypatch, [NOISY, SAME])
    v = await program.measure_program(_job(tmp_path), Verdict("build-failed", ""))
    assert runs == [1, 1] and v.verdict == "no-change", v.message


async def test_an_openmp_program_is_also_timed_at_one_thread(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    fast = replace(SLOWER, speedup=2.0, ci95_low=1.9, ci95_high=2.1, median_b_s=0.05)
    runs = _stand_in(monkeypatch, [fast, replace(fast, speedup=1.5, ci95_low=1.4,
                                                 ci95_high=1.6)])
    v = await program.measure_program(_job(tmp_path, openmp=True), Verdict("build-failed", ""))
    assert runs == [4, 1]
    assert v.verdict == "faster" and v.threads == 4 and v.serial_speedup == 1.5


async def test_a_failed_output_check_ends_before_timing(tmp_path: Path,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    runs = _stand_in(monkeypatch, [SAME])

    async def differs(*_a: Any) -> Failure:
        return Failure("incorrect", "The candidate's output differs on prog.in: token 1.",
                       "failed", "prog.in: token 1")

    monkeypatch.setattr(program, "_compare_outputs", differs)
    v = await program.measure_program(_job(tmp_path), Verdict("build-failed", ""))
    assert runs == [] and v.verdict == "incorrect" and v.validation_detail == "prog.in: token 1"


async def test_settled_stops_at_a_failure_or_after_its_retries() -> None:
    tuning = Tuning(noisy_retries=1)
    given: list[Timing | Failure] = [(NOISY, Calibration()), (NOISY, Calibration()),
                                     (SAME, Calibration())]

    async def once() -> Timing | Failure:
        return given.pop(0)

    got = await settled(once, tuning)
    assert not isinstance(got, Failure) and got[0] is NOISY and len(given) == 1
    stop = Failure("timeout", "Timing did not finish.", "passed")
    given[:] = [stop, (SAME, Calibration())]
    assert await settled(once, tuning) is stop
