"""Tiny random language models built on the fly for the model backend tests.

No weights are downloaded: a byte-level BPE tokenizer is trained on local text in under a second
and a two-layer Qwen2 (or GPT-2) with random weights is saved beside it. Other test modules import
the builders from here; the builders cache their output under pytest's base temp directory so a
session builds each model once.
"""

from __future__ import annotations

import json
import sysconfig
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

CHATML = (
    "{% for message in messages %}"
    "{{ '<|im_start|>' + message['role'] + '\n' + message['content'] + '<|im_end|>\n' }}"
    "{% endfor %}"
    "{% if add_generation_prompt %}{{ '<|im_start|>assistant\n' }}{% endif %}"
)
SPECIALS = ["<|endoftext|>", "<|im_start|>", "<|im_end|>"]

CPP_SAMPLE = """
#include <vector>
#include <cmath>
double sum_sqrt(const std::vector<double>& v) {
    double s = 0.0;
    for (std::size_t i = 0; i < v.size(); ++i) { s += std::sqrt(v[i]); }
    return s;
}
[SUGG/]
- **Loop Efficiency Techniques**: hoist the size call out of the loop (line 5)
- **Multithreading and Concurrency**: the iterations are independent; use an OpenMP reduction
[/SUGG]
[OPT/]
```cpp
```
[/OPT]
"""


def _corpus(extra: str) -> list[str]:
    stdlib = Path(sysconfig.get_paths()["stdlib"])
    texts = [p.read_text(encoding="utf-8", errors="replace")[:20000]
             for p in sorted(stdlib.glob("*.py"))[:60]]
    return [*texts, CPP_SAMPLE, *([extra] * 20 if extra else [])]


def build_tokenizer(extra_text: str = "") -> Any:
    """A byte-level BPE tokenizer (vocab 2048) with ChatML special tokens and template."""
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import PreTrainedTokenizerFast

    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(vocab_size=2048, special_tokens=SPECIALS,
                                  initial_alphabet=pre_tokenizers.ByteLevel.alphabet())
    tok.train_from_iterator(_corpus(extra_text), trainer=trainer)
    fast = PreTrainedTokenizerFast(tokenizer_object=tok, bos_token=None,
                                   eos_token="<|im_end|>", pad_token="<|endoftext|>",
                                   additional_special_tokens=["<|im_start|>"])
    fast.chat_template = CHATML
    return fast


def build_tiny_model(directory: Path, kind: str = "qwen2", extra_text: str = "",
                     hidden: int = 64, seed: int = 0) -> Path:
    """Save a random tiny causal LM plus tokenizer into ``directory``; return it."""
    import torch
    from transformers import AutoModelForCausalLM, GPT2Config, Qwen2Config

    torch.manual_seed(seed)
    tok = build_tokenizer(extra_text)
    vocab = len(tok)
    eos = tok.convert_tokens_to_ids("<|im_end|>")
    pad = tok.convert_tokens_to_ids("<|endoftext|>")
    config: Any
    if kind == "gpt2":
        config = GPT2Config(vocab_size=vocab, n_embd=hidden, n_layer=2, n_head=4,
                            n_positions=2048, bos_token_id=eos, eos_token_id=eos,
                            pad_token_id=pad)
    else:
        config = Qwen2Config(vocab_size=vocab, hidden_size=hidden, num_hidden_layers=2,
                             num_attention_heads=4, num_key_value_heads=2,
                             intermediate_size=hidden * 2, max_position_embeddings=4096,
                             tie_word_embeddings=True, eos_token_id=eos, pad_token_id=pad,
                             bos_token_id=None)
    model = AutoModelForCausalLM.from_config(config)
    directory.mkdir(parents=True, exist_ok=True)
    model.save_pretrained(directory)
    tok.save_pretrained(directory)
    return directory


def cached_tiny_model(base: Path, name: str, **kwargs: Any) -> Path:
    """Build the model once per session under ``base/name`` (a marker file says it is done)."""
    directory = base / name
    marker = directory / ".complete"
    if not marker.exists():
        build_tiny_model(directory, **kwargs)
        marker.write_text("ok")
    return directory


def finetune_to_emit(directory: Path, prompts: str | Sequence[str], response: str,
                     steps: int = 300, lr: float = 1e-2) -> float:
    """Train the model in ``directory`` until each prompt (already chat-templated) continues
    with ``response`` then the end token; save it back. Returns the final loss (the worst
    prompt's). Every step trains on all prompts together, so none is forgotten."""
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    torch.manual_seed(0)
    torch.set_num_threads(1)  # faster than two on a shared 2-core machine
    tok = AutoTokenizer.from_pretrained(directory, local_files_only=True)
    model = AutoModelForCausalLM.from_pretrained(directory, local_files_only=True)
    r_ids = tok(response, add_special_tokens=False)["input_ids"] + [tok.eos_token_id]
    examples = []
    for prompt in [prompts] if isinstance(prompts, str) else prompts:
        p_ids = tok(prompt, add_special_tokens=False)["input_ids"]
        examples.append((torch.tensor([p_ids + r_ids]),
                         torch.tensor([[-100] * len(p_ids) + r_ids])))
    opt = torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=0.0)
    model.train()
    loss_value = float("inf")
    for _ in range(steps):
        losses = [model(input_ids=ids, labels=labels).loss for ids, labels in examples]
        torch.stack(losses).sum().backward()
        opt.step()
        opt.zero_grad()
        loss_value = max(float(loss.item()) for loss in losses)
        if loss_value < 0.01:
            break
    model.eval()
    model.save_pretrained(directory)
    return loss_value


@pytest.fixture(scope="session")
def tiny_qwen2(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A random tiny Qwen2 with a ChatML template (session-wide)."""
    pytest.importorskip("torch")
    pytest.importorskip("transformers")
    return cached_tiny_model(tmp_path_factory.getbasetemp(), "tiny-qwen2")


def test_tiny_model_reloads_offline_with_chat_template(tiny_qwen2: Path) -> None:
    from transformers import AutoModelForCausalLM, AutoTokenizer

    tok = AutoTokenizer.from_pretrained(tiny_qwen2, local_files_only=True)
    model = AutoModelForCausalLM.from_pretrained(tiny_qwen2, local_files_only=True)
    text = tok.apply_chat_template([{"role": "user", "content": "hi"}], tokenize=False,
                                   add_generation_prompt=True)
    assert text.endswith("<|im_start|>assistant\n")
    assert model.config.model_type == "qwen2"
    config = json.loads((tiny_qwen2 / "config.json").read_text())
    assert config["eos_token_id"] == tok.eos_token_id
