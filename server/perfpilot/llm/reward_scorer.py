"""A trained reward model's scores for completions of one prompt (higher is better).

``perfpilot train reward`` writes a sequence-classification model with one output; this loads
it (local files only, never remote code) and scores each completion appended to the prompt as
the assistant's answer, as it was trained. torch and transformers are imported when the first
score is asked for, so the core installs without them.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from perfpilot.llm.errors import LocalModelError

Messages = Sequence[dict[str, str]]


class RewardScorer:
    """Loads the model at ``model_dir`` once, on the CPU, and scores completions."""

    def __init__(self, model_dir: Path, max_length: int = 2048) -> None:
        self.model_dir = model_dir
        self.max_length = max_length
        self._loaded: tuple[Any, Any] | None = None

    def _load(self) -> tuple[Any, Any]:
        if self._loaded is None:
            try:
                from transformers import AutoModelForSequenceClassification, AutoTokenizer
            except ImportError as e:
                raise LocalModelError(
                    "a reward model needs the [local] extra (transformers, torch)") from e
            if not (self.model_dir / "config.json").is_file():
                raise LocalModelError(f"{self.model_dir}: not a model directory (no config.json)")
            tok = AutoTokenizer.from_pretrained(self.model_dir, local_files_only=True)
            model = AutoModelForSequenceClassification.from_pretrained(
                self.model_dir, local_files_only=True, trust_remote_code=False)
            if getattr(model.config, "num_labels", 1) != 1:
                raise LocalModelError(f"{self.model_dir}: not a reward model (it has "
                                      f"{model.config.num_labels} outputs, not one score)")
            model.eval()
            self._loaded = (tok, model)
        return self._loaded

    def score(self, prompt: Messages, completions: Sequence[str]) -> list[float]:
        """The score of each completion as the answer to ``prompt`` (synchronous: run it on a
        worker thread)."""
        import torch

        tok, model = self._load()
        out: list[float] = []
        with torch.no_grad():
            for text in completions:
                msgs = [*prompt, {"role": "assistant", "content": text}]
                ids: Any = tok.apply_chat_template(msgs, tokenize=True, return_tensors="pt",
                                                   return_dict=True, truncation=True,
                                                   max_length=self.max_length)
                out.append(float(model(**ids).logits[0, 0]))
        return out
