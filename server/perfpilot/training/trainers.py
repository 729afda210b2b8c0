"""SFT, DPO, DPA, reward-model, GRPO and RLPF runs through trl.

Every run is a trl trainer: no hand-written loop. Arguments common to all runs live in
``RunSpec``, the sampling knobs of the policy-optimisation runs in ``Sampling``; the output
directory is a model the local planner loads as it is. A run given held-out rows evaluates on
them while it trains (``eval_dataset``) and the card keeps the last held-out loss.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from perfpilot.training.launch import Placement, choose, trainer_args
from perfpilot.training.model_io import load_base, lora_config, save_trained
from perfpilot.training.run_log import jsonl_callback

Row = dict[str, Any]


@dataclass(frozen=True)
class RunSpec:
    """What every training run needs."""

    base: Path
    out: Path
    steps: int = 100
    batch: int = 4
    learning_rate: float = 2e-4
    lora: bool = True
    lora_rank: int = 8
    max_length: int = 2048
    device: str = "auto"
    dtype: str = "auto"  # training precision: auto, bf16, fp16, fp32
    seed: int = 0
    resume: bool = False
    logging_steps: int = 1
    epochs: float | None = None  # when set, passes over the data instead of ``steps``
    grad_accum: int = 1  # gradient accumulation steps
    save_dtype: str = "bf16"  # precision of the saved planner: bf16, fp16, fp32
    eval_steps: int = 0  # held-out evaluation every N steps (0: four times a run)


@dataclass(frozen=True)
class Sampling:
    """How GRPO and RLPF sample completions, and the KL term to the reference model."""

    generations: int = 4
    max_completion: int = 256
    temperature: float = 1.0
    beta: float = 0.04  # KL coefficient to the reference (0: no reference model)
    use_vllm: bool = False
    vllm_mode: str = "colocate"  # one GPU shares generation and training


def _common(spec: RunSpec, place: Placement, evaluating: bool) -> dict[str, Any]:
    args: dict[str, Any] = {
        "output_dir": str(spec.out / "checkpoints"),
        "per_device_train_batch_size": spec.batch,
        "gradient_accumulation_steps": max(1, spec.grad_accum),
        "learning_rate": spec.learning_rate, "logging_steps": spec.logging_steps,
        "save_steps": max(spec.steps // 2, 1) if spec.epochs is None else 500,
        "save_total_limit": 2, "report_to": [], "seed": spec.seed, "disable_tqdm": False,
        **trainer_args(place)}
    if spec.epochs is not None:
        args.update(num_train_epochs=spec.epochs, max_steps=-1)
    else:
        args["max_steps"] = spec.steps
    if evaluating:
        args.update(eval_strategy="steps", per_device_eval_batch_size=spec.batch,
                    eval_steps=spec.eval_steps or max(1, spec.steps // 4))
    return args


def _dataset(rows: Sequence[Row]) -> Any:
    from datasets import Dataset

    return Dataset.from_list(list(rows))


def _eval(rows: Sequence[Row] | None) -> Any:
    return _dataset(rows) if rows else None


def _card(kind: str, spec: RunSpec, place: Placement, rows: int, history: list[dict[str, Any]],
          extra: dict[str, Any] | None) -> dict[str, Any]:
    losses = [h["loss"] for h in history if "loss" in h]
    evals = [h["eval_loss"] for h in history if "eval_loss" in h]
    return {"kind": kind, "base": str(spec.base), "steps": spec.steps, "rows": rows,
            "device": place.device, "dtype": place.dtype, "lora": spec.lora,
            "first_loss": losses[0] if losses else None,
            "last_loss": losses[-1] if losses else None,
            "heldout_loss": evals[-1] if evals else None,
            "spec": {k: str(v) for k, v in asdict(spec).items()},
            "log": history, **(extra or {})}


def _finish(trainer: Any, kind: str, spec: RunSpec, place: Placement, rows: int,
            tokenizer: Any, extra: dict[str, Any] | None, classifier: bool = False
            ) -> dict[str, Any]:
    trainer.train(resume_from_checkpoint=True if spec.resume else None)
    history = [dict(h) for h in trainer.state.log_history]
    card = _card(kind, spec, place, rows, history, extra)
    if trainer.accelerator.is_main_process:
        card["chart"] = _chart(kind, spec.out, history)
    save_trained(trainer, tokenizer, spec.out, card, base=spec.base,
                 lora_rank=spec.lora_rank if spec.lora else None, classifier=classifier,
                 dtype=spec.save_dtype)
    return card


def _chart(kind: str, out: Path, history: list[dict[str, Any]]) -> str:
    """Draw the run's loss (and reward) curve into ``out/training.png``; the card records the
    file, or why there is none."""
    from perfpilot.training.chart import series, write_chart

    try:
        write_chart(series(kind, history), out / "training.png", f"perfpilot train {kind}")
    except ImportError:
        return "none: matplotlib is not installed (pip install 'perfpilot[eval]')"
    except ValueError as exc:
        return f"none: {exc}"
    return "training.png"


def _peft(spec: RunSpec, task: str = "CAUSAL_LM") -> Any:
    return lora_config(spec.lora_rank, task) if spec.lora else None


def sft(spec: RunSpec, rows: Sequence[Row], extra: dict[str, Any] | None = None,
        eval_rows: Sequence[Row] | None = None) -> dict[str, Any]:
    """Supervised fine-tuning on prompt/completion rows (loss on the completion only)."""
    from trl import SFTConfig, SFTTrainer

    place = choose(spec.device, dtype=spec.dtype)
    model, tok = load_base(spec.base)
    args = SFTConfig(**_common(spec, place, bool(eval_rows)), max_length=spec.max_length,
                     completion_only_loss=True)
    trainer = SFTTrainer(model=model, args=args, train_dataset=_dataset(_plain(rows)),
                         eval_dataset=_eval(_plain(eval_rows or ())), processing_class=tok,
                         callbacks=[jsonl_callback(spec.out, spec.resume)],
                         peft_config=_peft(spec))
    return _finish(trainer, "sft", spec, place, len(rows), tok, extra)


def _plain(rows: Sequence[Row]) -> list[Row]:
    """Only the prompt and completion columns (mixed sources carry different extras)."""
    return [{"prompt": r["prompt"], "completion": r["completion"]} for r in rows]


def _pairs(rows: Sequence[Row], keys: tuple[str, ...] = ("prompt", "chosen", "rejected")
           ) -> list[Row]:
    return [{k: r[k] for k in keys if k in r} for r in rows]


def dpo(spec: RunSpec, rows: Sequence[Row], beta: float = 0.1,
        extra: dict[str, Any] | None = None, eval_rows: Sequence[Row] | None = None
        ) -> dict[str, Any]:
    """Plain DPO on measured pairs: every pair counts the same."""
    from trl import DPOConfig, DPOTrainer

    place = choose(spec.device, dtype=spec.dtype)
    model, tok = load_base(spec.base)
    args = DPOConfig(**_common(spec, place, bool(eval_rows)), max_length=spec.max_length,
                     beta=beta)
    trainer = DPOTrainer(model=model, args=args, train_dataset=_dataset(_pairs(rows)),
                         eval_dataset=_eval(_pairs(eval_rows or ())), processing_class=tok,
                         callbacks=[jsonl_callback(spec.out, spec.resume)],
                         peft_config=_peft(spec))
    return _finish(trainer, "dpo", spec, place, len(rows), tok, extra)


def dpa(spec: RunSpec, rows: Sequence[Row], beta: float = 0.1,
        extra: dict[str, Any] | None = None, eval_rows: Sequence[Row] | None = None
        ) -> dict[str, Any]:
    """DPA: DPO's loss with each pair weighted by its normalised log-speedup gap."""
    from trl import DPOConfig

    from perfpilot.training.dpa import normalised_weights, weighted_dpo_trainer

    place = choose(spec.device, dtype=spec.dtype)
    model, tok = load_base(spec.base)
    data = normalised_weights(rows)
    args = DPOConfig(**_common(spec, place, bool(eval_rows)), max_length=spec.max_length,
                     beta=beta)
    trainer = weighted_dpo_trainer()(
        model=model, args=args, train_dataset=_dataset(data),
        eval_dataset=_eval(normalised_weights(eval_rows) if eval_rows else None),
        processing_class=tok, callbacks=[jsonl_callback(spec.out, spec.resume)],
        peft_config=_peft(spec))
    weights = [round(r["pair_weight"], 3) for r in data]
    return _finish(trainer, "dpa", spec, place, len(data), tok,
                   {**(extra or {}), "pair_weights": weights})


def reward_model(spec: RunSpec, rows: Sequence[Row], extra: dict[str, Any] | None = None,
                 eval_rows: Sequence[Row] | None = None) -> dict[str, Any]:
    """A scalar reward model on (function, plan or candidate) pairs; the log-speedup gap is
    the margin of the pairwise loss."""
    from trl import RewardConfig, RewardTrainer

    place = choose(spec.device, dtype=spec.dtype)
    model, tok = load_base(spec.base, classifier=True)
    keys = ("prompt", "chosen", "rejected", "margin")
    args = RewardConfig(**_common(spec, place, bool(eval_rows)), max_length=spec.max_length)
    trainer = RewardTrainer(model=model, args=args, train_dataset=_dataset(_pairs(rows, keys)),
                            eval_dataset=_eval(_pairs(eval_rows or (), keys)),
                            processing_class=tok,
                            callbacks=[jsonl_callback(spec.out, spec.resume)],
                            peft_config=_peft(spec, "SEQ_CLS"))
    return _finish(trainer, "reward", spec, place, len(rows), tok, extra, classifier=True)


def score(model_dir: Path, prompt: list[dict[str, str]], completions: Sequence[str]
          ) -> list[float]:
    """Reward-model scores of candidate completions for one prompt (higher is better)."""
    from perfpilot.llm.reward_scorer import RewardScorer

    return RewardScorer(model_dir).score(prompt, completions)


RewardFn = Callable[..., list[float | None]]


def _sampling_args(spec: RunSpec, sampling: Sampling, place: Placement, evaluating: bool
                   ) -> dict[str, Any]:
    common = _common(spec, place, evaluating)
    # The batch must be a multiple of the generations per prompt.
    g = sampling.generations
    common["per_device_train_batch_size"] = max(g, g * math.ceil(spec.batch / g))
    if evaluating:
        common["per_device_eval_batch_size"] = common["per_device_train_batch_size"]
    return {**common, "num_generations": g, "max_completion_length": sampling.max_completion,
            "temperature": sampling.temperature, "beta": sampling.beta,
            "use_vllm": sampling.use_vllm, "log_completions": False,
            **({"vllm_mode": sampling.vllm_mode} if sampling.use_vllm else {})}


def grpo(spec: RunSpec, rows: Sequence[Row], reward: RewardFn,
         sampling: Sampling | None = None, extra: dict[str, Any] | None = None,
         eval_rows: Sequence[Row] | None = None) -> dict[str, Any]:
    """GRPO on the planner alone: sampled plans, rewarded by the runner's measurement of what
    the frozen optimizer makes of them; ``sampling.beta`` is the KL term to the reference."""
    from trl import GRPOConfig, GRPOTrainer

    sampling = sampling or Sampling()
    place = choose(spec.device, dtype=spec.dtype)
    model, tok = load_base(spec.base)
    args = GRPOConfig(**_sampling_args(spec, sampling, place, bool(eval_rows)))
    trainer = GRPOTrainer(model=model, reward_funcs=reward, args=args,
                          train_dataset=_dataset(rows), eval_dataset=_eval(eval_rows),
                          processing_class=tok,
                          callbacks=[jsonl_callback(spec.out, spec.resume)],
                          peft_config=_peft(spec))
    return _finish(trainer, "grpo", spec, place, len(rows), tok,
                   {**(extra or {}), "sampling": asdict(sampling)})


def rlpf(spec: RunSpec, rows: Sequence[Row], reward: RewardFn,
         sampling: Sampling | None = None, extra: dict[str, Any] | None = None
         ) -> dict[str, Any]:
    """RLPF: policy optimisation (trl's RLOO) against a reward model trained on measured
    runtimes, with a KL term to the reference model (``sampling.beta``); ``reward`` is the
    reward model's score with the runner re-checking the best samples (``rlpf.py``)."""
    from trl import RLOOConfig, RLOOTrainer

    sampling = sampling or Sampling(beta=0.05)
    place = choose(spec.device, dtype=spec.dtype)
    model, tok = load_base(spec.base)
    args = RLOOConfig(**_sampling_args(spec, sampling, place, False))
    trainer = RLOOTrainer(model=model, reward_funcs=reward, args=args,
                          train_dataset=_dataset(rows), processing_class=tok,
                          callbacks=[jsonl_callback(spec.out, spec.resume)],
                          peft_config=_peft(spec))
    return _finish(trainer, "rlpf", spec, place, len(rows), tok,
                   {**(extra or {}), "sampling": asdict(sampling)})
