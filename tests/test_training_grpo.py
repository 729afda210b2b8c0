"""GRPO runs of a tiny planner against the runtime reward, and where training runs."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from perfpilot.code.site import FunctionSite
from perfpilot.optimizing.builtin.strategies import planned_rules
from perfpilot.runner.values import Verdict, Verification
from perfpilot.strategy.plan_format import parse_plan
from perfpilot.strategy.values import Candidate
from perfpilot.training.corpus import generate
from perfpilot.training.launch import accelerate_config, choose, trainer_args
from perfpilot.training.runtime_reward import RuntimeReward, grpo_rows

PLAN = "[SUGG/]\n- **Function Call Overhead Reduction**: take the vector by const reference\n" \
       "[/SUGG]"


OTHER = "no idea"


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
    assert accelerate_config("cpu", 2)["distributed_type"] == "MULTI_CPU"
    assert choose("auto", cuda=True, bf16=True, gpus=1, dtype="fp32").dtype == "fp32"
    assert choose("cpu", cuda=False, bf16=False, gpus=0, dtype="bf16").dtype == "bf16"
    for bad in (dict(prefer="cpu", dtype="fp16"), dict(prefer="auto", dtype="bf16")):
        with pytest.raises(ValueError):
            choose(bad["prefer"], cuda=bad["prefer"] != "cpu", bf16=False, gpus=1,
                   dtype=bad["dtype"])
    ds = accelerate_config("deepspeed", 8, zero_stage=3, grad_accum=4)
    assert ds["deepspeed_config"]["zero_stage"] == 3 and ds["num_processes"] == 8
    # ZeRO-3 shards are gathered for the main process to save.
    assert ds["deepspeed_config"]["zero3_save_16bit_model"] is True
    assert ds["deepspeed_config"]["gradient_accumulation_steps"] == 4


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




def _coin(directory: Path, prompt: str, answers: list[str], steps: int = 120) -> list[float]:
    """Train the model in ``directory`` to answer ``prompt`` with each of ``answers`` alike
    (a coin between them at the first token); returns each answer's first-token probability."""
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    torch.manual_seed(0)
    tok = AutoTokenizer.from_pretrained(directory, local_files_only=True)
    model = AutoModelForCausalLM.from_pretrained(directory, local_files_only=True)
    p_ids = tok(prompt, add_special_tokens=False)["input_ids"]
    examples = []
    for answer in answers:
        a_ids = tok(answer, add_special_tokens=False)["input_ids"] + [tok.eos_token_id]
        examples.append((torch.tensor([p_ids + a_ids]),
                         torch.tensor([[-100] * len(p_ids) + a_ids]), a_ids[0]))
    opt = torch.optim.AdamW(model.parameters(), lr=1e-2, weight_decay=0.0)
    model.train()
    for _ in range(steps):
        # Summed over tokens (a mean would favour the short answer at the first token).
        totals = torch.stack([model(input_ids=i, labels=lab).loss * int((lab != -100).sum())
                              for i, lab, _f in examples])
        totals.sum().backward()
        opt.step()
        opt.zero_grad()
        # Each answer's whole negative log-likelihood near ln 2: memorised, but for the coin
        # at the first token (each answer above a third there).
        if float(totals.max()) < 1.0:
            break
    model.eval()
    model.save_pretrained(directory)
    with torch.no_grad():
        probs = model(input_ids=torch.tensor([p_ids])).logits[0, -1].softmax(-1)
    return [float(probs[first]) for _i, _l, first in examples]


@pytest.fixture(scope="module")
def coin_planner(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[dict[str, Any]]]:
    """A tiny planner that answers the task's prompt with the right plan or with garbage, about
    half and half: a group of samples has reward spread."""
    pytest.importorskip("trl")
    import torch
    from transformers import AutoTokenizer

    from test_llm_tiny_models import build_tiny_model

    torch.set_num_threads(1)
    # A short prompt keeps the steps cheap; the reward reads the unit and name columns.
    rows = [{**row, "prompt": [{"role": "user", "content": "Plan the by-value vector sum."}]}
            for row in grpo_rows(generate(1, families=("by-value-vector",)))]
    base = build_tiny_model(tmp_path_factory.mktemp("coin") / "m", extra_text=PLAN)
    tok = AutoTokenizer.from_pretrained(base, local_files_only=True)
    chat = tok.apply_chat_template(rows[0]["prompt"], tokenize=False, add_generation_prompt=True)
    plan_p, other_p = _coin(base, chat, [PLAN, OTHER])
    assert 0.15 < plan_p < 0.85 and 0.15 < other_p < 0.85, (plan_p, other_p)
    return base, rows


def _weights(directory: Path) -> dict[str, Any]:
    from transformers import AutoModelForCausalLM

    model = AutoModelForCausalLM.from_pretrained(directory, local_files_only=True)
    return {k: v.detach().clone() for k, v in model.state_dict().items()}


def _step(base: Path, rows: list[dict[str, Any]], out: Path, verdict: Verdict
          ) -> tuple[dict[str, Any], RuntimeReward]:
    from perfpilot.training.trainers import RunSpec, Sampling, grpo

    async def measure(site: FunctionSite, cand: Candidate) -> Verdict:
        return verdict

    reward = RuntimeReward(measure=measure)
    try:
        card = grpo(RunSpec(base=base, out=out, steps=1, batch=8, lora=False, max_length=2048,
                            device="cpu", save_dtype="fp32", learning_rate=1e-3),
                    rows, reward, Sampling(generations=8, max_completion=40, temperature=1.0,
                                           beta=0.0))
    finally:
        reward.close()
    return card, reward


def test_one_grpo_step_moves_the_weights_by_measured_rewards(
        coin_planner: tuple[Path, list[dict[str, Any]]], tmp_path: Path) -> None:
    base, rows = coin_planner
    faster = Verdict("faster", "", speedup=2.0, ci95=(1.9, 2.1), validation_status="passed",
                     verification=Verification(cases=4, mutants=4, killed=4))
    card, reward = _step(base, rows, tmp_path / "grpo", faster)
    values = {e["reward"] for e in reward.log}
    assert len(reward.log) == 8 and len(values) > 1, reward.log  # spread in the group
    assert any(e.get("outcome") == "garbage" for e in reward.log)
    assert any(e.get("verdicts") == ["faster"] for e in reward.log)
    before, after = _weights(base), _weights(tmp_path / "grpo")
    changed = [k for k in before if not bool((before[k] == after[k]).all())]
    assert changed, "one GRPO step with reward spread left every weight as it was"
    assert card["kind"] == "grpo" and card["sampling"]["generations"] == 8
    assert any("reward" in h for h in card["log"])


def test_a_noisy_verdict_is_unscorable_and_teaches_nothing(
        coin_planner: tuple[Path, list[dict[str, Any]]], tmp_path: Path) -> None:
    base, rows = coin_planner
    noisy = Verdict("noisy", "", speedup=1.4, ci95=(0.8, 2.3), validation_status="passed",
                    verification=Verification(cases=4, mutants=4, killed=4))
    _card, reward = _step(base, rows, tmp_path / "grpo", noisy)
    measured = [e for e in reward.log if e.get("verdicts")]
    assert measured and all(e["reward"] is None for e in measured)
    # Every garbage answer scores the same: without the noisy ones there is no spread left,
    # so trl computes no advantage and the weights stay exactly as they were.
    assert {e["reward"] for e in reward.log if not e.get("verdicts")} <= {-0.5}
    before, after = _weights(base), _weights(tmp_path / "grpo")
    assert all(bool((before[k] == after[k]).all()) for k in before)
