"""Loading a base model (a directory or a ``.gguf`` file) and saving the trained planner.

The saved directory is what the local planner loads as it is: merged weights (LoRA folded in),
the tokenizer with its chat template, and a model card that records data, base, steps and
held-out scores.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any


def root_base(run: Path) -> Path | None:
    """The model a run was first trained from: its card's base, followed back through runs
    trained from runs (None when a card is missing)."""
    seen: set[Path] = set()
    base = run
    while (base / "perfpilot-training.json").is_file() and base not in seen:
        seen.add(base)
        try:
            card = json.loads((base / "perfpilot-training.json").read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None
        base = Path(str(card.get("base", "")))
    return base if base != run else None


def load_base(base: Path, *, classifier: bool = False) -> tuple[Any, Any]:
    """Model and tokenizer from a directory or a GGUF file, offline."""
    from transformers import (
        AutoModelForCausalLM,
        AutoModelForSequenceClassification,
        AutoTokenizer,
    )

    kwargs: dict[str, Any] = {"local_files_only": True}
    where = base
    if base.suffix == ".gguf":
        where, kwargs["gguf_file"] = base.parent, base.name
    tok = AutoTokenizer.from_pretrained(where, **kwargs)
    if tok.pad_token is None:
        tok.pad_token = tok.eos_token
    if classifier:
        model = AutoModelForSequenceClassification.from_pretrained(where, num_labels=1, **kwargs)
        model.config.pad_token_id = tok.pad_token_id
    else:
        model = AutoModelForCausalLM.from_pretrained(where, **kwargs)
    if base.suffix == ".gguf":
        _dequantized(model)
    return model, tok


def _dequantized(model: Any) -> None:
    """Mark a model loaded from GGUF as the plain float model it is.

    transformers dequantizes GGUF tensors on load but keeps the file's quantization marker,
    which makes the Trainer refuse to train it (and save_pretrained write a quantization
    config the loader cannot use).
    """
    model.hf_quantizer = None
    model.is_quantized = False
    if getattr(model.config, "quantization_config", None) is not None:
        del model.config.quantization_config


def lora_config(rank: int = 8, task_type: str = "CAUSAL_LM") -> Any:
    """A LoRA adapter over every linear projection (peft picks them by name)."""
    from peft import LoraConfig

    return LoraConfig(r=rank, lora_alpha=2 * rank, lora_dropout=0.0,
                      target_modules="all-linear", task_type=task_type)


_DTYPES = {"bf16": "bfloat16", "fp16": "float16", "fp32": "float32"}


def save_planner(model: Any, tokenizer: Any, out: Path, card: dict[str, Any],
                 dtype: str = "bf16") -> Path:
    """Save merged weights (in ``dtype``: bf16, fp16 or fp32), tokenizer and model card to
    ``out``."""
    import torch

    if hasattr(model, "merge_and_unload"):
        model = model.merge_and_unload()
    if dtype in _DTYPES:
        model = model.to(getattr(torch, _DTYPES[dtype]))
    out.mkdir(parents=True, exist_ok=True)
    model.save_pretrained(out)
    tokenizer.save_pretrained(out)
    write_card(out, card)
    return out


def write_card(out: Path, card: dict[str, Any]) -> None:
    """``perfpilot-training.json`` and the ``README.md`` model card (held-out scores first)."""
    out.mkdir(parents=True, exist_ok=True)
    (out / "perfpilot-training.json").write_text(json.dumps(card, indent=2) + "\n",
                                                 encoding="utf-8")
    lines = ["# PerfPilot planner", "", "Trained with `perfpilot train`.", ""]
    lines += [f"- **{k}**: {v}" for k, v in card.items() if not isinstance(v, dict | list)]
    held = card.get("heldout")
    if isinstance(held, dict) and isinstance(held.get("planners"), dict):
        from perfpilot.training.evaluate import markdown_table

        lines += ["", "## Held-out evaluation", "", str(held.get("what", "")), "",
                  markdown_table(held)]
    for k, v in card.items():
        if isinstance(v, dict | list):
            lines += ["", f"## {k}", "", "```json", json.dumps(v, indent=2), "```"]
    (out / "README.md").write_text("\n".join(lines) + "\n", encoding="utf-8")


def save_trained(trainer: Any, tokenizer: Any, out: Path, card: dict[str, Any], *,
                 base: Path, lora_rank: int | None, classifier: bool = False,
                 dtype: str = "bf16") -> None:
    """Save a trainer's model as a planner directory, from one process only.

    With one process the model is merged and saved as it is. Under DDP, FSDP or DeepSpeed
    every rank takes part in gathering the full state dict (ZeRO-3 shards are consolidated by
    ``accelerator.get_state_dict``), and only the main process loads it into a fresh copy of
    the base model on the CPU, folds the LoRA adapter in and writes the directory.
    """
    acc = trainer.accelerator
    distributed = acc.num_processes > 1 or str(acc.distributed_type).endswith(
        ("DEEPSPEED", "FSDP"))
    if not distributed:
        save_planner(acc.unwrap_model(trainer.model), tokenizer, out, card, dtype)
        return
    state = acc.get_state_dict(trainer.model)
    if acc.is_main_process:
        fresh, _tok = load_base(base, classifier=classifier)
        if lora_rank is not None:
            from peft import get_peft_model

            fresh = get_peft_model(fresh, lora_config(lora_rank,
                                                      "SEQ_CLS" if classifier else "CAUSAL_LM"))
        missing, unexpected = fresh.load_state_dict(
            {k: v.to("cpu") for k, v in state.items()}, strict=False)
        trained = [k for k in missing if "lora_" in k or lora_rank is None]
        if trained or unexpected:
            raise RuntimeError(f"the gathered weights do not fit the model: missing "
                               f"{trained[:3]}, unexpected {list(unexpected)[:3]}")
        card = {**card, "processes": acc.num_processes}
        save_planner(fresh, tokenizer, out, card, dtype)
    acc.wait_for_everyone()
