"""Training runs through trl on tiny random models built in the test (CPU, offline)."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pytest

from optional_support import needs
from perfpilot.cli import main
from perfpilot.strategy.plan_format import render_plan
from perfpilot.training.corpus import generate
from perfpilot.training.evaluate import from_corpus, model_plans, plan_scores
from perfpilot.training.examples import annotated_plan, preference_rows, prompt
from perfpilot.training.records import PlanStep, Record
from perfpilot.training.trainers import RunSpec, dpa, dpo, reward_model, score, sft
from test_llm_tiny_models import build_tiny_model

pytestmark = needs("torch", "transformers", "trl", "peft", "datasets")

FN = "long total(const std::vector<long>& v) {\n  long s = 0;\n  for (std::size_t i = 0; " \
     "i < v.size(); ++i) s += v[i];\n  return s;\n}\n"
TASKS = generate(1, families=("bubble-sort", "endl-stream"))


@pytest.fixture(scope="module", autouse=True)
def _one_thread() -> None:
    import torch

    # Faster than two on a shared 2-core machine; module-scoped, so that it comes before the
    # module's training fixtures.
    torch.set_num_threads(1)


def _row(task: Any) -> dict[str, Any]:
    # One strategy: a completion short enough to memorise in a few dozen steps.
    text = render_plan(annotated_plan(task, 1))
    return {"prompt": prompt(task.site()), "completion": [{"role": "assistant", "content": text}]}


@pytest.fixture(scope="module")
def corpus_rows() -> list[dict[str, Any]]:
    return [_row(t) for t in TASKS]


@pytest.fixture(scope="module")
def tiny(tmp_path_factory: pytest.TempPathFactory, corpus_rows: list[dict[str, Any]]) -> Path:
    text = "\n".join(json.dumps(r) for r in corpus_rows)
    return build_tiny_model(tmp_path_factory.mktemp("base") / "m", extra_text=text)


@pytest.fixture(scope="module")
def planner(tiny: Path, tmp_path_factory: pytest.TempPathFactory,
            corpus_rows: list[dict[str, Any]]) -> tuple[Path, dict[str, Any]]:
    """A tiny planner trained on two rows until it writes their plans (held-out row: a task of
    a family it never saw, evaluated while it trains)."""
    out = tmp_path_factory.mktemp("planner") / "sft"
    held = [_row(t) for t in generate(1, families=("count-in-sorted",))]
    card = sft(RunSpec(base=tiny, out=out, steps=60, batch=2, learning_rate=5e-3, lora=False,
                       max_length=1024, device="cpu"), corpus_rows, eval_rows=held)
    return out, card


def test_a_trained_tiny_planner_writes_plans_that_parse(
        planner: tuple[Path, dict[str, Any]], tiny: Path) -> None:
    out, card = planner
    assert card["kind"] == "sft" and card["last_loss"] < card["first_loss"] / 4
    assert card["heldout_loss"] is not None  # evaluated on the held-out family while training
    tasks = from_corpus(TASKS)
    trained = plan_scores(tasks, model_plans(out, tasks, 64))
    untrained = plan_scores(tasks, model_plans(tiny, tasks, 64))
    assert (trained.parsed, trained.recall) == (2, 1.0), trained
    assert untrained.parsed == 0
    # The log written while training has one entry per step, the same losses as the card.
    lines = [json.loads(x) for x in (out / "training-log.jsonl").read_text().splitlines()]
    stepped = [e for e in lines if "loss" in e]
    assert [e["step"] for e in stepped] == list(range(1, 61))
    assert stepped[0]["loss"] == pytest.approx(card["first_loss"])
    assert any("eval_loss" in e for e in lines)
    assert card["chart"] == "training.png"
    assert (out / "training.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_lora_sft_exports_merged_half_precision_weights(
        tiny: Path, tmp_path: Path, corpus_rows: list[dict[str, Any]]) -> None:
    from transformers import AutoModelForCausalLM

    out = tmp_path / "out"
    card = sft(RunSpec(base=tiny, out=out, steps=3, batch=2, learning_rate=2e-2,
                       max_length=1024, device="cpu", grad_accum=2), corpus_rows)
    assert card["lora"] and card["device"] == "cpu" and card["spec"]["grad_accum"] == "2"
    assert not (out / "adapter_config.json").exists()  # merged on export
    model = AutoModelForCausalLM.from_pretrained(out, local_files_only=True)
    assert type(model).__name__ == "Qwen2ForCausalLM"
    assert next(model.parameters()).dtype.is_floating_point
    assert json.loads((out / "config.json").read_text())["dtype"] == "bfloat16"
    assert json.loads((out / "perfpilot-training.json").read_text())["steps"] == 3
    assert "PerfPilot planner" in (out / "README.md").read_text()
    assert (out / "checkpoints").is_dir()


def _rec(fn: str, name: str, cat: str, verdict: str, speedup: float,
         explanation: str = "e") -> Record:
    return Record(source="eval", function=fn, name=name, plan=(PlanStep(cat, explanation),),
                  verdict=verdict, speedup=speedup, ci95=(speedup * 0.9, speedup * 1.1),
                  validation="passed")


def _pairs() -> list[dict[str, Any]]:
    return preference_rows([_rec(FN, "total", "Multithreading and Concurrency", "faster", 1.8),
                            _rec(FN, "total", "Branching Efficiency", "slower", 0.7),
                            _rec(FN, "total", "Numerical Computation Optimization", "slower",
                                 0.3)])


def test_dpo_two_steps_on_measured_pairs(tiny: Path, tmp_path: Path) -> None:
    rows = _pairs()
    assert len(rows) == 2
    card = dpo(RunSpec(base=tiny, out=tmp_path / "dpo", steps=2, batch=2, max_length=1024,
                       device="cpu"), rows)
    assert card["kind"] == "dpo" and card["last_loss"] is not None
    assert card["rows"] == len(rows)  # plain DPO: every pair once, unweighted
    assert (tmp_path / "dpo" / "config.json").exists()


def test_dpa_weights_each_pairs_loss_by_its_runtime_gap(
        tiny: Path, planner: tuple[Path, dict[str, Any]], tmp_path: Path) -> None:
    from datasets import Dataset
    from transformers import AutoModelForCausalLM, AutoTokenizer
    from trl import DPOConfig, DPOTrainer

    from perfpilot.training.dpa import WEIGHT, _pair, normalised_weights, weighted_dpo_trainer

    rows = _pairs()
    data = normalised_weights(rows)
    assert [round(r[WEIGHT], 3) for r in data] != [1.0, 1.0]
    assert sum(r[WEIGHT] for r in data) / len(data) == pytest.approx(1.0)
    tok = AutoTokenizer.from_pretrained(tiny, local_files_only=True)
    model = AutoModelForCausalLM.from_pretrained(tiny, local_files_only=True)
    # A reference other than the policy, so that the pairs' losses differ.
    ref = AutoModelForCausalLM.from_pretrained(planner[0], local_files_only=True)
    args = DPOConfig(output_dir=str(tmp_path / "ck"), per_device_train_batch_size=2,
                     max_length=1024, report_to=[], use_cpu=True, beta=0.1, max_steps=1)
    trainer = weighted_dpo_trainer()(model=model, ref_model=ref, args=args,
                                     train_dataset=Dataset.from_list(data),
                                     processing_class=tok)
    batch = next(iter(trainer.get_train_dataloader()))
    weights = batch[WEIGHT]  # the weights reached the batch through dataset and collator
    assert sorted(weights.tolist()) == pytest.approx(sorted(r[WEIGHT] for r in data))
    import torch

    with torch.no_grad():
        weighted = float(trainer.compute_loss(trainer.model, dict(batch)))
        plain = {k: v for k, v in batch.items() if k != WEIGHT}
        each = [float(DPOTrainer._compute_loss(trainer, trainer.model, _pair(plain, i, 2),
                                               False)) for i in range(2)]
        mean = float(DPOTrainer._compute_loss(trainer, trainer.model, plain, False))
    assert mean == pytest.approx(sum(each) / 2, rel=1e-4)  # per-pair slices are DPO's own
    assert weighted == pytest.approx(sum(w * x for w, x in zip(weights.tolist(), each,
                                                                strict=True)) / 2, rel=1e-4)
    assert abs(weighted - mean) > 1e-4
    card = dpa(RunSpec(base=tiny, out=tmp_path / "dpa", steps=1, batch=2, max_length=1024,
                       device="cpu"), rows)
    assert card["kind"] == "dpa" and len(card["pair_weights"]) == 2


def _fn(k: int) -> str:
    return FN.replace("total", f"total_{k}").replace("v[i]", f"v[i] * {k + 2}")


def _plan_pairs(funcs: range, wording: str) -> list[dict[str, Any]]:
    recs = []
    for k in funcs:
        recs += [_rec(_fn(k), f"total_{k}", "Multithreading and Concurrency", "faster", 2.0,
                      f"the {wording} iterations are independent; an OpenMP reduction"),
                 _rec(_fn(k), f"total_{k}", "Branching Efficiency", "slower", 0.6,
                      f"{wording} branch on the sign"),
                 _rec(_fn(k), f"total_{k}", "Numerical Computation Optimization", "slower",
                      0.5, f"{wording} float math instead")]
    return preference_rows(recs)


@pytest.fixture(scope="module")
def plan_rm(tiny: Path, tmp_path_factory: pytest.TempPathFactory
            ) -> tuple[Path, dict[str, Any], list[dict[str, Any]]]:
    """A reward model on plans, trained on three functions' pairs; the pairs of two other
    functions, worded otherwise, held out."""
    train = _plan_pairs(range(3), "summing")
    held = _plan_pairs(range(3, 5), "accumulating")
    out = tmp_path_factory.mktemp("rm") / "rm"
    card = reward_model(RunSpec(base=tiny, out=out, steps=30, batch=2, learning_rate=1e-3,
                                lora=False, max_length=1024, device="cpu"), train,
                        eval_rows=held)
    return out, card, held


def test_the_reward_model_ranks_held_out_pairs(
        plan_rm: tuple[Path, dict[str, Any], list[dict[str, Any]]]) -> None:
    out, card, held = plan_rm
    train = _plan_pairs(range(3), "summing")
    assert not {json.dumps(r["prompt"]) for r in held} & {json.dumps(r["prompt"])
                                                          for r in train}
    assert card["heldout_loss"] is not None
    for row in held:
        chosen, rejected = (row[k][0]["content"] for k in ("chosen", "rejected"))
        s = score(out, row["prompt"], [chosen, rejected])
        assert all(math.isfinite(x) for x in s) and s[0] > s[1], (s, rejected[:60])


def test_rlpf_optimises_against_the_reward_model_and_the_runner_vetoes_its_top_pick(
        plan_rm: tuple[Path, dict[str, Any], list[dict[str, Any]]], tiny: Path,
        tmp_path: Path) -> None:
    from perfpilot.runner.values import Verdict
    from perfpilot.training.rlpf import ModelReward
    from perfpilot.training.runtime_reward import RuntimeReward
    from perfpilot.training.trainers import Sampling, rlpf

    async def wrong(site: Any, cand: Any) -> Verdict:
        return Verdict("incorrect", "outputs differ", validation_status="failed")

    measured = RuntimeReward(measure=wrong)
    judge = ModelReward(plan_rm[0], measured, generations=2, recheck=1)
    task = generate(1, families=("by-value-vector",))[0]
    liked = ("[SUGG/]\n- **Function Call Overhead Reduction**: the iterations are independent; "
             "an OpenMP reduction, and take the vector by const reference\n[/SUGG]")
    plain = "[SUGG/]\n- **Branching Efficiency**: branch on the sign\n[/SUGG]"
    p = prompt(task.site())
    try:
        scores = [judge.scorer.score(p, [t])[0] for t in (liked, plain)]
        got = judge.rewards([(p, liked, task.unit, task.name), (p, plain, task.unit, task.name)])
        top = 0 if scores[0] >= scores[1] else 1
        # The runner measured the top pick, found its candidate wrong: it gets the group's low.
        assert got[top] == pytest.approx(min(scores)) and judge.log[-1]["agreed"] is False
        assert got[1 - top] == pytest.approx(scores[1 - top])
        rows = [{"prompt": [{"role": "user", "content": "Plan the by-value vector sum."}],
                 "unit": task.unit, "name": task.name}]
        card = rlpf(RunSpec(base=tiny, out=tmp_path / "rlpf", steps=1, batch=2, lora=False,
                            max_length=1024, device="cpu"), rows, judge,
                    Sampling(generations=2, max_completion=24, beta=0.05))
    finally:
        measured.close()
    assert card["kind"] == "rlpf" and card["sampling"]["beta"] == 0.05
    assert (tmp_path / "rlpf" / "config.json").exists()
    assert len(judge.log) >= 2  # the training step's group was re-checked too


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
    assert {r["chosen"][0]["content"] for r in rows} == {fast.strip()}
    assert preference_rows([rec(fast, "faster", 1.6)], on="candidates") == []
    out = tmp_path / "rm"
    reward_model(RunSpec(base=tiny, out=out, steps=30, batch=2, learning_rate=1e-3,
                         lora=False, max_length=1024, device="cpu"), rows)
    scores = score(out, rows[0]["prompt"], [fast.strip(), par.strip()])
    assert scores[0] > scores[1], scores


def test_prompt_is_the_planner_prompt() -> None:
    task = generate(1, families=("pow-square",))[0]
    msgs = prompt(task.site())
    assert msgs[0]["role"] == "system" and "[SUGG/]" in msgs[-1]["content"]


def test_train_eval_scores_the_planner_beside_the_untrained_and_builtin_ones(
        planner: tuple[Path, dict[str, Any]], tmp_path: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    import shutil

    run = tmp_path / "run"
    shutil.copytree(planner[0], run, ignore=shutil.ignore_patterns("checkpoints"))
    tasks = tmp_path / "tasks"
    from perfpilot.training.corpus import write_tasks

    write_tasks(TASKS, tasks)  # the two trained tasks, as perfpilot eval task folders
    assert main(["train", "eval", str(run), "--tasks", str(tasks), "--heldout", "0",
                 "--measure", "1", "--max-new-tokens", "64"]) == 0
    card = json.loads((run / "perfpilot-training.json").read_text())
    planners = card["heldout"]["planners"]
    assert set(planners) == {"untrained", "trained (sft)", "builtin"}
    assert planners["trained (sft)"]["parsed"] == 2 and planners["untrained"]["parsed"] == 0
    assert planners["trained (sft)"]["recall"] == 1.0
    for entry in planners.values():
        measured = entry["measured"]
        assert measured["tasks"] == 1 and len(measured["outcomes"]) == 1
        assert measured["geomean_speedup"] > 0
    assert planners["untrained"]["measured"]["outcomes"] == ["garbage"]
    readme = (run / "README.md").read_text()
    assert "## Held-out evaluation" in readme and "| trained (sft) | 2/2 |" in readme
    assert "| trained (sft) | 2/2 | 1.00 |" in capsys.readouterr().out
