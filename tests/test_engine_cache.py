"""Engine caching: verdicts survive a restart; a changed spec or compile database misses."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

import perfpilot.runner.measure as runner_measure
from perfpilot.code.locate import function_by_name
from perfpilot.engine.disk_cache import DiskCache, verdict_from_json
from perfpilot.engine.engine import Engine
from perfpilot.progress import JobContext
from perfpilot.runner.values import Verdict
from perfpilot.settings import RunnerSettings, Settings

UNIT = """\
#include <vector>
long sum_sq(const std::vector<int>& v) {
    long s = 0;
    for (int x : v) s += (long)x * x;
    return s;
}
"""
CANDIDATE = """long sum_sq(const std::vector<int>& v) {
    long s = 0;
    for (std::size_t i = 0; i < v.size(); ++i) s += (long)v[i] * v[i];
    return s;
}"""

# Quadratic against linear: faster beyond doubt even on a busy machine, so the verdict is
# stored (a noisy one is not, by design).
QUADRATIC = """\
#include <vector>
long prefix_total(const std::vector<int>& v) {
    long s = 0;
    for (std::size_t i = 0; i < v.size(); ++i)
        for (std::size_t j = 0; j <= i; ++j)
            if (j == i) s += (long)v[j] * v[j];
    return s;
}
"""
LINEAR = """long prefix_total(const std::vector<int>& v) {
    long s = 0;
    for (std::size_t i = 0; i < v.size(); ++i) s += (long)v[i] * v[i];
    return s;
}"""


def fake_verdict(word: str = "faster") -> Verdict:
    return Verdict(verdict=word, message="measured", speedup=2.0, ci95=(1.9, 2.1), pairs=20,
                   dropped_pairs=1, flags=("-O2",), compiler="g++", median_a_s=0.002,
                   median_b_s=0.001, validation_status="passed")


class CountingRunner:
    """Wraps the real measure_candidate and counts the calls that reach it."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch, real: bool = True) -> None:
        self.calls = 0
        self._real = runner_measure.measure_candidate

        async def wrapper(*args: Any, **kwargs: Any) -> Verdict:
            self.calls += 1
            if real:
                return await self._real(*args, **kwargs)
            return fake_verdict()

        monkeypatch.setattr(runner_measure, "measure_candidate", wrapper)


def engine_for(root: Path) -> Engine:
    settings = Settings(runner=RunnerSettings(callgrind=False, pairs=10))
    return Engine(settings, workspace=root)


def test_verdict_json_round_trip(tmp_path: Path) -> None:
    v = fake_verdict()
    again = verdict_from_json(v.to_json())
    assert again.to_json() == v.to_json()
    cache = DiskCache(tmp_path)
    cache.put("k", v)
    got = cache.get("k")
    assert got is not None and got.to_json() == v.to_json()
    (tmp_path / ".perfpilot" / "results" / "bad.json").write_text("{not json")
    assert cache.get("bad") is None and cache.get("missing") is None


async def test_cache_hit_after_restart(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    src = tmp_path / "a.cpp"
    src.write_text(QUADRATIC)
    site = function_by_name(QUADRATIC, "cpp", "prefix_total", uri=src.as_uri())
    counter = CountingRunner(monkeypatch)
    first = await engine_for(tmp_path).measure(site, LINEAR, JobContext(), source_path=src)
    calls = counter.calls
    assert first.verdict in ("faster", "weakly-verified"), first.message
    assert list((tmp_path / ".perfpilot" / "results").glob("*.json")), first.message
    # A new engine (a restarted server) finds the stored verdict without measuring.
    second = await engine_for(tmp_path).measure(site, LINEAR, JobContext(), source_path=src)
    assert counter.calls == calls == 1
    assert second.verdict == first.verdict and second.speedup == first.speedup


async def test_spec_and_compile_database_changes_miss_the_cache(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    src = tmp_path / "a.cpp"
    src.write_text(UNIT)
    site = function_by_name(UNIT, "cpp", "sum_sq", uri=src.as_uri())
    counter = CountingRunner(monkeypatch, real=False)
    engine = engine_for(tmp_path)
    await engine.measure(site, CANDIDATE, JobContext(), source_path=src)
    await engine.measure(site, CANDIDATE, JobContext(), source_path=src)
    assert counter.calls == 1
    spec = tmp_path / ".perfpilot" / "sum_sq.bench.cpp"
    spec.parent.mkdir(exist_ok=True)
    spec.write_text("// spec v1\n")
    await engine.measure(site, CANDIDATE, JobContext(), source_path=src)
    assert counter.calls == 2
    spec.write_text("// spec v2\n")
    await engine.measure(site, CANDIDATE, JobContext(), source_path=src)
    assert counter.calls == 3
    (tmp_path / "compile_commands.json").write_text(
        f'[{{"directory": "{tmp_path}", "file": "a.cpp", "command": "g++ -O3 -c a.cpp"}}]')
    await engine.measure(site, CANDIDATE, JobContext(), source_path=src)
    assert counter.calls == 4


async def test_noisy_results_are_not_cached(tmp_path: Path,
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    calls = 0

    async def noisy(*args: Any, **kwargs: Any) -> Verdict:
        nonlocal calls
        calls += 1
        return fake_verdict("noisy")

    monkeypatch.setattr(runner_measure, "measure_candidate", noisy)
    site = function_by_name(UNIT, "cpp", "sum_sq")
    engine = engine_for(tmp_path)
    for _ in range(2):
        assert (await engine.measure(site, CANDIDATE, JobContext())).verdict == "noisy"
    assert calls == 2


class CountingPlannerStandIn:
    """Stands in for a model planner (the persistence does not depend on which model)."""

    name = "remote:stand-in"

    def __init__(self) -> None:
        self.calls = 0

    async def plan(self, site: Any, ctx: JobContext) -> Any:
        from perfpilot.strategy import Plan, Strategy, category_by_id

        self.calls += 1
        return Plan((Strategy(category_by_id(4), "hoist `v.size()`", (3,), 1.0, "r"),),
                    "remote", raw_text="[SUGG/]\n...", notes=("n",), model="m")


async def test_model_plans_survive_a_restart(tmp_path: Path,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    from perfpilot.settings import RoleSettings

    stand_in = CountingPlannerStandIn()
    monkeypatch.setattr(Engine, "planner", lambda self, *args: stand_in)
    settings = Settings(planner=RoleSettings(backend="remote", endpoint="http://127.0.0.1:9/v1",
                                             model="m"))
    site = function_by_name(UNIT, "cpp", "sum_sq")
    first = await Engine(settings, workspace=tmp_path).plan(site, JobContext())
    again = await Engine(settings, workspace=tmp_path).plan(site, JobContext())
    assert stand_in.calls == 1
    assert again == first
    assert list((tmp_path / ".perfpilot" / "plans").glob("*.json"))


def test_candidates_json_round_trip() -> None:
    from perfpilot.engine.disk_cache import result_from_json, result_to_json
    from perfpilot.strategy import Candidate, Strategy, category_by_id
    from perfpilot.strategy.values import OptimizeResult, Rejected

    result = OptimizeResult(
        (Candidate("int f() { return 1; }", (Strategy(category_by_id(6), "omp", (2, 3)),),
                   "remote", 1, ("note",), True, ("<unordered_set>",)),),
        (Rejected("remote", "two functions", 2, "int g();"),))
    assert result_from_json(result_to_json(result)) == result


class SequenceRunner:
    """Stands in for the runner: each call returns the next figure (counts the calls)."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.calls = 0

        async def measure(*args: Any, **kwargs: Any) -> Verdict:
            self.calls += 1
            return replace(fake_verdict(), speedup=float(self.calls),
                           ci95=(self.calls - 0.1, self.calls + 0.1))

        monkeypatch.setattr(runner_measure, "measure_candidate", measure)


async def test_fresh_measure_replaces_the_cached_figure(tmp_path: Path,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    src = tmp_path / "a.cpp"
    src.write_text(UNIT)
    site = function_by_name(UNIT, "cpp", "sum_sq", uri=src.as_uri())
    runner = SequenceRunner(monkeypatch)
    engine = engine_for(tmp_path)
    assert (await engine.measure(site, CANDIDATE, JobContext(), src)).speedup == 1.0
    assert (await engine.measure(site, CANDIDATE, JobContext(), src)).speedup == 1.0
    assert runner.calls == 1  # the cache serves a plain request
    again = await engine.measure(site, CANDIDATE, JobContext(), src, fresh=True)
    assert runner.calls == 2 and again.speedup == 2.0
    assert (await engine.measure(site, CANDIDATE, JobContext(), src)).speedup == 2.0
    restarted = engine_for(tmp_path)
    assert (await restarted.measure(site, CANDIDATE, JobContext(), src)).speedup == 2.0
    assert runner.calls == 2


async def test_rerun_job_measures_again_across_restarts(tmp_path: Path,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    from perfpilot.engine.outcome import Outcome
    from perfpilot.engine.session import FunctionRecord, Session
    from perfpilot.strategy.values import Plan

    src = tmp_path / "a.cpp"
    current = UNIT.replace(UNIT[UNIT.index("long sum_sq"):], CANDIDATE + "\n")
    src.write_text(current)
    original = function_by_name(UNIT, "cpp", "sum_sq", uri=src.as_uri())
    site = function_by_name(current, "cpp", "sum_sq", uri=src.as_uri())
    runner = SequenceRunner(monkeypatch)
    speedups = []
    for _restart in range(2):
        session = Session(engine_for(tmp_path))
        session.records[site.uri] = {site.qualified_name: FunctionRecord(
            Outcome(original, Plan((), "builtin")), original_text=original.text)}
        job = session.start("rerun", site, source_path=src, baseline_text=original.text)
        assert job.task is not None
        await job.task
        assert job.outcome is not None and job.outcome.trials, job.error
        verdict = job.outcome.trials[0].verdict
        assert verdict is not None
        speedups.append(verdict.speedup)
    assert runner.calls == 2 and speedups == [1.0, 2.0]


def test_cli_remeasure_bypasses_the_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    from perfpilot.cli import main

    examples = Path(__file__).resolve().parent.parent / "examples"
    src = tmp_path / "strlen_loop.c"
    src.write_text((examples / "strlen_loop.c").read_text())
    (tmp_path / ".perfpilot.toml").write_text("[runner]\ncallgrind = false\n")
    runner = SequenceRunner(monkeypatch)
    args = ["optimize", str(src), "--function", "count_upper", "--bench", "--json"]
    assert main(args) == 0
    measured = runner.calls
    assert measured >= 1
    assert main(args) == 0
    assert runner.calls == measured  # served from the disk cache
    assert main([*args, "--remeasure"]) == 0
    assert runner.calls == 2 * measured
    capsys.readouterr()


async def test_rerun_of_an_unapplied_result_measures_again(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from perfpilot.engine.session import Session

    examples = Path(__file__).resolve().parent.parent / "examples"
    src = tmp_path / "strlen_loop.c"
    text = (examples / "strlen_loop.c").read_text()
    src.write_text(text)
    site = function_by_name(text, "c", "count_upper", uri=src.as_uri())
    runner = SequenceRunner(monkeypatch)
    session = Session(engine_for(tmp_path))
    counts = []
    for fresh in (False, False, True):
        job = session.start("optimize", site, source_path=src, fresh=fresh)
        assert job.task is not None
        await job.task
        assert not job.error, job.error
        counts.append(runner.calls)
    assert counts[0] >= 1 and counts[1] == counts[0] and counts[2] == 2 * counts[0]
