"""The GRPO reward from the real runner, and a GRPO step of a tiny planner against it."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from perfpilot.optimizing.builtin.strategies import planned_rules
from perfpilot.runner.values import Tuning, Verdict, Verification
from perfpilot.settings import RunnerSettings
from perfpilot.strategy.plan_format import parse_plan
from perfpilot.training.corpus import generate
from perfpilot.training.launch import accelerate_config, choose, trainer_args
from perfpilot.training.runtime_reward import PENALTY, RuntimeReward, reward_of

FAST = Tuning(target_sample_s=0.002, edge_sizes=(0, 1, 7), budget_s=10.0, noisy_retries=2,
              max_pairs_factor=6, profiles=(0, 1), seeds_per_profile=1, mutants=False,
              coverage=False, sanitizers=False)
SETTINGS = RunnerSettings(pairs=10, callgrind=False, run_timeout_s=30.0, build_timeout_s=60.0)
PLAN = "[SUGG/]\n- **Function Call Overhead Reduction**: take the vector by const reference\n" \
       "[/SUGG]"


def test_rewards_come_only_from_strong_timed_verdicts() -> None:
    strong = Verification(cases=4, mutants=4, killed=4)
    weak = Verification(cases=4, mutants=4, killed=2, strong_survivors=2)
    ok = Verdict("faster", "", speedup=2.0, ci95=(1.8, 2.2), validation_status="passed",
                 verification=strong)
    assert reward_of(ok) == pytest.approx(math.log(2.0))
    assert reward_of(Verdict("no-change", "", speedup=1.01, validation_status="passed")) == 0.0
    assert reward_of(Verdict("noisy", "", speedup=1.0, validation_status="passed")) is None
    assert reward_of(Verdict("faster", "", speedup=3.0, validation_status="weak")) is None
    assert reward_of(Verdict("faster", "", speedup=3.0, validation_status="passed",
                             verification=weak)) is None
    assert reward_of(Verdict("weakly-verified", "", speedup=3.0)) is None
    for word in ("incorrect", "build-failed", "timeout"):
        assert reward_of(Verdict(word, "")) == PENALTY
    # The harness could not feed the function: nothing is known of the candidate.
    assert reward_of(Verdict("needs-spec", "", needs_spec=True)) is None
    # Stopped in timing at 20 times the original's time: validated, and far too slow.
    assert reward_of(Verdict("slower", "", validation_status="passed")) == PENALTY


def test_the_frozen_optimizer_may_use_only_planned_categories() -> None:
    plan = parse_plan(PLAN, "p")
    assert planned_rules(plan) == {"const-ref-param"}
    assert planned_rules(parse_plan("[SUGG/]\n[/SUGG]", "p")) == frozenset()


def test_device_dtype_and_launch_configs() -> None:
    assert choose("auto", cuda=False, bf16=False, gpus=0).device == "cpu"
    gpu = choose("auto", cuda=True, bf16=True, gpus=8)
    assert (gpu.device, gpu.dtype, gpu.gpus) == ("cuda", "bf16", 8)
    assert choose("auto", cuda=True, bf16=False, gpus=1).dtype == "fp16"
    assert choose("cpu", cuda=True, bf16=True, gpus=1).device == "cpu"
    with pytest.raises(ValueError):
        choose("cuda", cuda=False, bf16=False, gpus=0)
    assert trainer_args(choose("auto", cuda=False, bf16=False, gpus=0)) == {
        "use_cpu": True, "bf16": False, "fp16": False}
    assert accelerate_config("ddp", 4)["distributed_type"] == "MULTI_GPU"
    ds = accelerate_config("deepspeed", 8, zero_stage=3)
    assert ds["deepspeed_config"]["zero_stage"] == 3 and ds["num_processes"] == 8


def test_accelerate_reads_the_written_config(tmp_path: Path) -> None:
    pytest.importorskip("accelerate")
    from accelerate.commands.config.config_args import load_config_from_file

    from perfpilot.training.launch import write_accelerate_config

    for kind, procs in (("cpu", 1), ("ddp", 2), ("deepspeed", 4)):
        path = write_accelerate_config(tmp_path / f"{kind}.yaml", kind, procs)
        cfg = load_config_from_file(str(path))
        assert cfg.num_processes == procs
        assert str(cfg.distributed_type).endswith(
            {"cpu": "NO", "ddp": "MULTI_GPU", "deepspeed": "DEEPSPEED"}[kind])


def test_runtime_reward_measures_a_plan_with_the_real_runner() -> None:
    task = generate(1, families=("by-value-vector",))[0]
    reward = RuntimeReward(settings=SETTINGS, tuning=FAST)
    (value,) = reward([None], [[{"role": "assistant", "content": PLAN}]], unit=[task.unit],
                      name=[task.name])
    ((key, verdict),) = reward.verdicts.items()
    assert "const std::vector" in key[1]  # the frozen optimizer applied the planned rule
    assert value == reward_of(verdict)
    if verdict.verdict in ("faster", "slower"):
        assert value == pytest.approx(math.log(verdict.speedup or 0))
    else:
        assert value in (None, 0.0)  # a noisy measurement is skipped, never a reward of 1
    # A plan naming no category the optimizer knows makes no candidate and costs no run.
    assert reward([None], ["no plan here"], unit=[task.unit], name=[task.name]) == [0.0]
    assert len(reward.verdicts) == 1


@pytest.mark.slow
def test_grpo_step_rewards_a_tiny_planner_with_real_measurements(tmp_path: Path) -> None:
    pytest.importorskip("trl")
    import torch
    from transformers import AutoTokenizer

    from perfpilot.training.runtime_reward import grpo_rows
    from perfpilot.training.trainers import RunSpec, grpo
    from test_llm_tiny_models import build_tiny_model, finetune_to_emit

    torch.set_num_threads(1)
    task = generate(1, families=("by-value-vector",))[0]
    rows = grpo_rows([task])
    text = "\n".join(m["content"] for m in rows[0]["prompt"]) + PLAN
    base = build_tiny_model(tmp_path / "base", extra_text=text)
    tok = AutoTokenizer.from_pretrained(base, local_files_only=True)
    chat = tok.apply_chat_template(rows[0]["prompt"], tokenize=False, add_generation_prompt=True)
    assert finetune_to_emit(base, chat, PLAN, steps=300, lr=1e-2) < 0.05
    reward = RuntimeReward(settings=SETTINGS, tuning=FAST)
    card = grpo(RunSpec(base=base, out=tmp_path / "grpo", steps=1, batch=2, lora=False,
                        max_length=2048, device="cpu"), rows, reward, generations=2,
                max_completion=48, temperature=0.2)
    assert card["kind"] == "grpo" and (tmp_path / "grpo" / "config.json").exists()
    assert len(reward.log) == 2  # one reward per sampled plan
    assert reward.verdicts, "no plan reached the runner"
    for entry in reward.log:
        assert entry.get("reward") != 1.0
    rewards = [h for h in card["log"] if any(k.startswith("reward") for k in h)]
    assert rewards, json.dumps(card["log"])[:500]
