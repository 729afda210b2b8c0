"""Loading a base model (a directory or a ``.gguf`` file) and saving the trained planner.

The saved directory is what the local planner loads as it is: merged weights (LoRA folded in),
the tokenizer with its chat template, and a model card that records data, base, steps and
held-out scores.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any


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


def save_planner(model: Any, tokenizer: Any, out: Path, card: dict[str, Any]) -> Path:
    """Save merged weights, tokenizer and model card to ``out``."""
    if hasattr(model, "merge_and_unload"):
        model = model.merge_and_unload()
    out.mkdir(parents=True, exist_ok=True)
    model.save_pretrained(out)
    tokenizer.save_pretrained(out)
    (out / "perfpilot-training.json").write_text(json.dumps(card, indent=2) + "\n",
                                                 encoding="utf-8")
    lines = ["# PerfPilot planner", "", "Trained with `perfpilot train`.", ""]
    lines += [f"- **{k}**: {v}" for k, v in card.items() if not isinstance(v, dict | list)]
    for k, v in card.items():
        if isinstance(v, dict | list):
            lines += ["", f"## {k}", "", "```json", json.dumps(v, indent=2), "```"]
    (out / "README.md").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return out
