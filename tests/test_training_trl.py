"""Training runs through trl on tiny random models built in the test (CPU, offline)."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from optional_support import needs
from perfpilot.training.corpus import generate
from perfpilot.training.examples import preference_rows, prompt, sft_row
from perfpilot.training.records import PlanStep, Record
from perfpilot.training.trainers import RunSpec, dpo, reward_model, score, sft
from test_llm_tiny_models import build_tiny_model

pytestmark = needs("torch", "transformers", "trl", "peft", "datasets")

FN = "long total(const std::vector<long>& v) {\n  long s = 0;\n  for (std::size_t i = 0; " \
     "i < v.size(); ++i) s += v[i];\n  return s;\n}\n"


@pytest.fixture(autouse=True)
def _one_thread() -> None:
    import torch

    torch.set_num_threads(1)  # faster than two on a shared 2-core machine


@pytest.fixture(scope="module")
def corpus_rows() -> list[dict[str, object]]:
    return [sft_row(t) for t in generate(1, families=("bubble-sort", "endl-stream"))]


@pytest.fixture(scope="module")
def tiny(tmp_path_factory: pytest.TempPathFactory,
         corpus_rows: list[dict[str, object]]) -> Path:
    text = "\n".join(json.dumps(r) for r in corpus_rows)
    return build_tiny_model(tmp_path_factory.mktemp("base") / "m", extra_text=text)


def test_lora_sft_loss_falls_and_exports_merged(tiny: Path, tmp_path: Path,
                                                corpus_rows: list[dict[str, object]]) -> None:
    from transformers import AutoModelForCausalLM

    card = sft(RunSpec(base=tiny, out=tmp_path / "out", steps=6, batch=2,
                       learning_rate=2e-2, max_length=1024, device="cpu"), corpus_rows)
    assert card["kind"] == "sft" and card["lora"] and card["device"] == "cpu"
    assert card["last_loss"] < card["first_loss"]
    out = tmp_path / "out"
    assert not (out / "adapter_config.json").exists()  # merged on export
    model = AutoModelForCausalLM.from_pretrained(out, local_files_only=True)
    assert type(model).__name__ == "Qwen2ForCausalLM"
    assert json.loads((out / "perfpilot-training.json").read_text())["steps"] == 6
    assert "PerfPilot planner" in (out / "README.md").read_text()
    assert (out / "checkpoints").is_dir()
    # The log written while training has one entry per step, the same losses as the card.
    lines = [json.loads(x) for x in (out / "training-log.jsonl").read_text().splitlines()]
    stepped = [e for e in lines if "loss" in e]
    assert [e["step"] for e in stepped] == list(range(1, 7))
    assert stepped[0]["loss"] == pytest.approx(card["first_loss"])
    assert card["chart"] == "training.png"
    assert (out / "training.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def _pairs() -> list[dict[str, object]]:
    def rec(cat: str, verdict: str, speedup: float) -> Record:
        return Record(source="eval", function=FN, name="total", plan=(PlanStep(cat, "e"),),
                      verdict=verdict, speedup=speedup, ci95=(speedup * 0.9, speedup * 1.1),
                      validation="passed")
    return preference_rows([rec("Multithreading and Concurrency", "faster", 1.8),
                            rec("Branching Efficiency", "slower", 0.7),
                            rec("Numerical Computation Optimization", "slower", 0.6)])


def test_dpo_two_steps_on_measured_pairs(tiny: Path, tmp_path: Path) -> None:
    rows = _pairs()
    assert len(rows) == 2
    card = dpo(RunSpec(base=tiny, out=tmp_path / "dpo", steps=2, batch=2, max_length=1024,
                       device="cpu"), rows)
    assert card["kind"] == "dpo" and card["last_loss"] is not None
    assert card["rows"] >= len(rows)  # pairs repeated by their speedup weight
    assert (tmp_path / "dpo" / "config.json").exists()


def test_reward_model_ranks_the_faster_plan_first(tiny: Path, tmp_path: Path) -> None:
    rows = _pairs()
    out = tmp_path / "rm"
    reward_model(RunSpec(base=tiny, out=out, steps=30, batch=2, learning_rate=1e-3,
                         lora=False, max_length=1024, device="cpu"), rows)
    chosen = rows[0]["chosen"][0]["content"]  # type: ignore[index]
    rejected = [r["rejected"][0]["content"] for r in rows]  # type: ignore[index]
    scores = score(out, rows[0]["prompt"], [chosen, *rejected])  # type: ignore[arg-type]
    assert all(scores[0] > s for s in scores[1:]), scores
    assert all(math.isfinite(s) for s in scores)


def test_a_reward_model_on_candidates_ranks_the_faster_code_first(tiny: Path,
                                                                   tmp_path: Path) -> None:
    # What the engine's ranker (ranker.model) is trained on: measured candidates' code.
    fast = FN.replace("for (std::size_t i = 0; i < v.size(); ++i) s += v[i];",
                      "for (long x : v) s += x;")
    par = FN.replace("  for", "  #pragma omp parallel for reduction(+:s)\n  for")

    def rec(code: str, verdict: str, speedup: float) -> Record:
        return Record(source="eval", function=FN, name="total", candidate=code,
                      verdict=verdict, speedup=speedup, ci95=(speedup * 0.9, speedup * 1.1),
                      validation="passed")

    rows = preference_rows([rec(fast, "faster", 1.6), rec(par, "slower", 0.5),
                            rec(FN, "no-change", 1.0)], on="candidates")
    assert {r["chosen"][0]["content"] for r in rows} == {fast.strip()}  # type: ignore[index]
    assert preference_rows([rec(fast, "faster", 1.6)], on="candidates") == []
    out = tmp_path / "rm"
    reward_model(RunSpec(base=tiny, out=out, steps=30, batch=2, learning_rate=1e-3,
                         lora=False, max_length=1024, device="cpu"), rows)
    scores = score(out, rows[0]["prompt"], [fast.strip(), par.strip()])  # type: ignore[arg-type]
    assert scores[0] > scores[1], scores


def test_prompt_is_the_planner_prompt() -> None:
    task = generate(1, families=("pow-square",))[0]
    msgs = prompt(task.site())
    assert msgs[0]["role"] == "system" and "[SUGG/]" in msgs[-1]["content"]


def test_a_trained_planner_is_evaluated_like_any_backend(
        tiny: Path, tmp_path: Path, corpus_rows: list[dict[str, object]]) -> None:
    import os
    import shutil
    import subprocess
    import sys

    out = tmp_path / "planner"
    sft(RunSpec(base=tiny, out=out, steps=2, batch=2, learning_rate=2e-2, max_length=1024,
                device="cpu"), corpus_rows)
    tasks = tmp_path / "tasks"
    shutil.copytree(Path(__file__).resolve().parent.parent / "examples" / "tasks" / "parity_sum",
                    tasks / "parity_sum")
    report = tmp_path / "report.md"
    run = subprocess.run(
        [sys.executable, "-m", "perfpilot", "eval", str(tasks), "--out", str(tmp_path / "eval"),
         "--planner", "local", "--planner-model", str(out), "--no-reference", "--retries", "0",
         "--pairs", "6", "--report-md", str(report)],
        capture_output=True, text=True, timeout=900, check=False,
        env=dict(os.environ, PYTHONUNBUFFERED="1"))
    assert run.returncode == 0, run.stderr[-2000:]
    # The trained model planned (whatever it wrote, the run used it and says so) and the task
    # was judged by the runner like any other backend's.
    assert f"planner local ({out})" in report.read_text(), report.read_text()[:1500]
    stored = json.loads((tmp_path / "eval" / "tasks" / "parity_sum.json").read_text())
    assert stored["task"] == "parity_sum" and "verdict" in json.dumps(stored)
