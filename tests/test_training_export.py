"""A trained planner written as GGUF reads back (transformers' GGUF loader, as llama.cpp reads
the same file) with the same tokens and logits."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from optional_support import needs
from perfpilot.cli import main

pytestmark = needs("torch", "transformers", "gguf")

TEXT = "long total(const std::vector<long>& v) { return v.size(); } [SUGG/]"


@pytest.mark.parametrize("outtype,tolerance", [("f32", 1e-5), ("f16", 2e-2)])
def test_export_round_trips_tokens_and_logits(tmp_path: Path, outtype: str,
                                              tolerance: float) -> None:
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    from test_llm_tiny_models import build_tiny_model

    torch.set_num_threads(1)
    run = build_tiny_model(tmp_path / "run")
    (run / "perfpilot-training.json").write_text(json.dumps({"kind": "sft",
                                                             "base": str(tmp_path / "nope")}))
    out = tmp_path / "planner.gguf"
    assert main(["train", "export", str(run), "--out", str(out), "--outtype", outtype]) == 0
    a = AutoModelForCausalLM.from_pretrained(run, local_files_only=True)
    b = AutoModelForCausalLM.from_pretrained(tmp_path, gguf_file=out.name, local_files_only=True)
    ta = AutoTokenizer.from_pretrained(run, local_files_only=True)
    tb = AutoTokenizer.from_pretrained(tmp_path, gguf_file=out.name, local_files_only=True)
    ids = ta(TEXT)["input_ids"]
    assert tb(TEXT)["input_ids"] == ids
    assert tb.chat_template == ta.chat_template
    with torch.no_grad():
        la = a(torch.tensor([ids])).logits
        lb = b(torch.tensor([ids])).logits
    assert float((la - lb).abs().max()) <= tolerance * max(1.0, float(la.abs().max()))


def test_an_architecture_it_cannot_write_is_refused_with_a_reason(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from test_llm_tiny_models import build_tiny_model

    run = build_tiny_model(tmp_path / "gpt2", kind="gpt2")
    assert main(["train", "export", str(run), "--out", str(tmp_path / "x.gguf")]) == 2
    assert "not exported" in capsys.readouterr().err
    assert not (tmp_path / "x.gguf").exists()
