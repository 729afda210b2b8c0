"""SFT, preference (DPO with speedup weighting), reward-model and GRPO runs through trl.

Every run is a trl trainer: no hand-written loop. Arguments common to all runs live in
``RunSpec``; the output directory is a model the local planner loads as it is.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from perfpilot.training.launch import Placement, choose, trainer_args
from perfpilot.training.model_io import load_base, lora_config, save_planner
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
    seed: int = 0
    resume: bool = False
    logging_steps: int = 1


def _common(spec: RunSpec, place: Placement) -> dict[str, Any]:
    return {"output_dir": str(spec.out / "checkpoints"), "max_steps": spec.steps,
            "per_device_train_batch_size": spec.batch, "learning_rate": spec.learning_rate,
            "logging_steps": spec.logging_steps, "save_steps": max(spec.steps // 2, 1),
            "save_total_limit": 2, "report_to": [], "seed": spec.seed,
            "disable_tqdm": False, **trainer_args(place)}


def _dataset(rows: Sequence[Row]) -> Any:
    from datasets import Dataset

    return Dataset.from_list(list(rows))


def _card(kind: str, spec: RunSpec, place: Placement, rows: int, history: list[dict[str, Any]],
          extra: dict[str, Any] | None) -> dict[str, Any]:
    losses = [h["loss"] for h in history if "loss" in h]
    return {"kind": kind, "base": str(spec.base), "steps": spec.steps, "rows": rows,
            "device": place.device, "dtype": place.dtype, "lora": spec.lora,
            "first_loss": losses[0] if losses else None,
            "last_loss": losses[-1] if losses else None,
            "spec": {k: str(v) for k, v in asdict(spec).items()},
            "log": history, **(extra or {})}


def _finish(trainer: Any, kind: str, spec: RunSpec, place: Placement, rows: int,
            tokenizer: Any, extra: dict[str, Any] | None) -> dict[str, Any]:
    trainer.train(resume_from_checkpoint=True if spec.resume else None)
    history = [dict(h) for h in trainer.state.log_history]
    card = _card(kind, spec, place, rows, history, extra)
    card["chart"] = _chart(kind, spec.out, history)
    save_planner(trainer.model, tokenizer, spec.out, card)
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


def sft(spec: RunSpec, rows: Sequence[Row], extra: dict[str, Any] | None = None
        ) -> dict[str, Any]:
    """Supervised fine-tuning on prompt/completion rows (loss on the completion only)."""
    from trl import SFTConfig, SFTTrainer

    place = choose(spec.device)
    model, tok = load_base(spec.base)
    args = SFTConfig(**_common(spec, place), max_length=spec.max_length,
                     completion_only_loss=True)
    trainer = SFTTrainer(model=model, args=args, train_dataset=_dataset(rows),
                         processing_class=tok, callbacks=[jsonl_callback(spec.out, spec.resume)],
                         peft_config=lora_config(spec.lora_rank) if spec.lora else None)
    return _finish(trainer, "sft", spec, place, len(rows), tok, extra)


def weighted(rows: Sequence[Row], cap: int = 4) -> list[Row]:
    """Rows repeated by their speedup weight (1 + round(weight / mean weight), at most
    ``cap``): trl's preference trainer takes no per-row weight, so the DPA scale is carried by
    how often a pair is seen."""
    if not rows:
        return []
    mean = sum(float(r.get("weight", 1.0)) for r in rows) / len(rows) or 1.0
    out: list[Row] = []
    for r in rows:
        times = min(cap, 1 + round(float(r.get("weight", 1.0)) / mean)) if mean > 0 else 1
        keep = {k: v for k, v in r.items() if k in ("prompt", "chosen", "rejected")}
        out.extend([keep] * max(1, times))
    return out


def dpo(spec: RunSpec, rows: Sequence[Row], beta: float = 0.1,
        extra: dict[str, Any] | None = None) -> dict[str, Any]:
    """Preference optimisation on measured pairs, weighted by the speedup gap."""
    from trl import DPOConfig, DPOTrainer

    place = choose(spec.device)
    model, tok = load_base(spec.base)
    data = weighted(rows)
    args = DPOConfig(**_common(spec, place), max_length=spec.max_length, beta=beta)
    trainer = DPOTrainer(model=model, args=args, train_dataset=_dataset(data),
                         processing_class=tok, callbacks=[jsonl_callback(spec.out, spec.resume)],
                         peft_config=lora_config(spec.lora_rank) if spec.lora else None)
    return _finish(trainer, "dpo", spec, place, len(data), tok, extra)


def reward_model(spec: RunSpec, rows: Sequence[Row], extra: dict[str, Any] | None = None
                 ) -> dict[str, Any]:
    """A scalar reward model on (function, plan or candidate) pairs; the log-speedup gap is
    the margin of the pairwise loss."""
    from trl import RewardConfig, RewardTrainer

    place = choose(spec.device)
    model, tok = load_base(spec.base, classifier=True)
    data: list[Row] = [{k: r[k] for k in ("prompt", "chosen", "rejected", "margin") if k in r}
                       for r in rows]
    args = RewardConfig(**_common(spec, place), max_length=spec.max_length)
    trainer = RewardTrainer(model=model, args=args, train_dataset=_dataset(data),
                            processing_class=tok, callbacks=[jsonl_callback(spec.out, spec.resume)],
                            peft_config=lora_config(spec.lora_rank, "SEQ_CLS")
                            if spec.lora else None)
    return _finish(trainer, "reward", spec, place, len(data), tok, extra)


def score(model_dir: Path, prompt: list[dict[str, str]], completions: Sequence[str]
          ) -> list[float]:
    """Reward-model scores of candidate completions for one prompt (higher is better)."""
    from perfpilot.llm.reward_scorer import RewardScorer

    return RewardScorer(model_dir).score(prompt, completions)


RewardFn = Callable[..., list[float | None]]


def grpo(spec: RunSpec, rows: Sequence[Row], reward: RewardFn, generations: int = 4,
         max_completion: int = 256, use_vllm: bool = False, temperature: float = 1.0,
         extra: dict[str, Any] | None = None) -> dict[str, Any]:
    """GRPO on the planner alone: sampled plans, rewarded by the runner's measurement."""
    from trl import GRPOConfig, GRPOTrainer

    place = choose(spec.device)
    model, tok = load_base(spec.base)
    common = _common(spec, place)
    # GRPO needs the batch to be a multiple of the generations per prompt.
    common["per_device_train_batch_size"] = max(generations,
                                                generations * math.ceil(spec.batch / generations))
    args = GRPOConfig(**common, num_generations=generations,
                      max_completion_length=max_completion, use_vllm=use_vllm,
                      temperature=temperature, log_completions=False)
    trainer = GRPOTrainer(model=model, reward_funcs=reward, args=args,
                          train_dataset=_dataset(rows), processing_class=tok,
                          callbacks=[jsonl_callback(spec.out, spec.resume)],
                          peft_config=lora_config(spec.lora_rank) if spec.lora else None)
    return _finish(trainer, "grpo", spec, place, len(rows), tok, extra)
