"""A reward model ranks candidates before measurement: only the best ``measureTop`` reach the
runner, the rest are reported with their rank; a ranker that cannot load changes nothing."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from perfpilot.code.locate import function_by_name
from perfpilot.engine.engine import Engine
from perfpilot.engine.ranking import groups_of, rank
from perfpilot.progress import JobContext
from perfpilot.runner import measure as runner_measure
from perfpilot.runner.values import Verdict
from perfpilot.settings import RankerSettings, RunnerSettings, Settings
from perfpilot.strategy.values import Candidate

UNIT = """#include <cmath>
#include <vector>

double norm2(const std::vector<double>& x) {
    double s = 0;
    for (std::size_t i = 0; i < x.size(); ++i) s += pow(x[i], 2);
    return s;
}
"""


def cand(code: str, family: str = "", variant: str = "") -> Candidate:
    return Candidate(code=code, strategies=(), backend="builtin", family=family,
                     variant=variant)


def test_families_count_once_and_the_best_scored_are_kept_in_order() -> None:
    cands = [cand("a"), cand("b1", "f", "static"), cand("b2", "f", "dynamic"), cand("c")]
    assert groups_of(cands) == [[0], [1, 2], [3]]
    seen: list[list[str]] = []

    def score(codes: Any) -> list[float]:
        seen.append(list(codes))
        return [0.1, 0.9, 0.5]  # a, the family (by its first member), c

    ranked = rank(cands, score, top=2)
    assert seen == [["a", "b1", "c"]]
    assert [c.code for c in ranked.kept] == ["b1", "b2", "c"]  # original order kept
    (left,) = ranked.left
    assert left.code == "a" and "ranked 3 of 3" in left.reason and "0.100" in left.reason
    # Nothing to rank: as many groups as may be measured.
    assert rank(cands, score, top=3).kept == tuple(cands) and len(seen) == 1


@pytest.fixture(scope="module")
def reward_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    pytest.importorskip("torch")
    pytest.importorskip("transformers")
    from transformers import AutoModelForSequenceClassification

    from test_llm_tiny_models import build_tiny_model

    base = build_tiny_model(tmp_path_factory.mktemp("base") / "m", extra_text=UNIT)
    out = tmp_path_factory.mktemp("rm") / "reward"
    model = AutoModelForSequenceClassification.from_pretrained(base, num_labels=1,
                                                                local_files_only=True)
    model.save_pretrained(out)
    for f in base.iterdir():
        if "token" in f.name or f.name.endswith(".jinja"):
            (out / f.name).write_bytes(f.read_bytes())
    return out


class RecordingRunnerStandIn:
    """Stands in for the runner: records what reaches it (the test is about which do)."""

    def __init__(self) -> None:
        self.codes: list[str] = []

    async def __call__(self, site: Any, code: str, *args: Any, **kwargs: Any) -> Verdict:
        self.codes.append(code)
        return Verdict("faster", "measured", speedup=1.5, ci95=(1.4, 1.6), pairs=10,
                       validation_status="passed")


async def test_only_the_top_scored_candidate_is_measured(
        reward_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from perfpilot.llm.reward_scorer import RewardScorer

    runner = RecordingRunnerStandIn()
    monkeypatch.setattr(runner_measure, "measure_candidate", runner)
    site = function_by_name(UNIT, "cpp", "norm2")
    settings = Settings(runner=RunnerSettings(callgrind=False),
                        ranker=RankerSettings(model=str(reward_dir), measure_top=1))
    engine = Engine(settings, workspace=tmp_path)
    plan = await engine.plan(site, JobContext())
    cands = (await engine.candidates(site, plan, JobContext())).candidates
    families = groups_of(cands)
    assert len(families) == 2, cands  # the OpenMP rewrite (with its variants) and the serial one
    outcome = await engine.optimize(site, JobContext())
    scores = RewardScorer(reward_dir).score(
        _prompt(site), [cands[g[0]].code for g in families])
    best = families[0] if scores[0] >= scores[1] else families[1]
    worst = families[1] if best is families[0] else families[0]
    assert set(runner.codes) == {cands[i].code for i in best}
    left = [r for r in outcome.rejected if "reward model" in r.reason]
    assert [r.code for r in left] == [cands[worst[0]].code]
    assert "ranked 2 of 2" in left[0].reason


async def test_a_ranker_that_cannot_load_leaves_every_candidate_measured(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    runner = RecordingRunnerStandIn()
    monkeypatch.setattr(runner_measure, "measure_candidate", runner)
    (tmp_path / "not-a-model").mkdir()
    site = function_by_name(UNIT, "cpp", "norm2")
    reports: list[str] = []
    settings = Settings(runner=RunnerSettings(callgrind=False),
                        ranker=RankerSettings(model="not-a-model", measure_top=1))
    engine = Engine(settings, workspace=tmp_path)
    ctx = JobContext(on_report=lambda stage, msg, pct: reports.append(msg))
    outcome = await engine.optimize(site, ctx)
    cands = (await engine.candidates(site, outcome.plan, JobContext())).candidates
    assert set(runner.codes) == {c.code for c in cands}
    assert not any("reward model" in r.reason for r in outcome.rejected)
    assert any("could not rank" in m and "not a model directory" in m for m in reports)


def _prompt(site: Any) -> list[dict[str, str]]:
    from perfpilot.prompting.context import unit_context
    from perfpilot.prompting.prompts import planner_messages

    return [dict(m) for m in planner_messages(site, unit_context(site))]
