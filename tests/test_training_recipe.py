"""The GPU recipe, end to end at toy size on the CPU: SFT, GRPO with a model as the frozen
optimizer (a tiny local model, through the engine's factory), and the held-out evaluation."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from optional_support import needs
from perfpilot.cli import main

pytestmark = [needs("torch", "transformers", "trl", "peft", "datasets"), pytest.mark.slow]


def test_the_recipe_runs_end_to_end_at_toy_size(tmp_path: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    import torch

    from test_llm_tiny_models import build_tiny_model

    torch.set_num_threads(1)
    base = build_tiny_model(tmp_path / "base")
    out = tmp_path / "out"
    assert main(["train", "recipe", "--base", str(base), "--out", str(out),
                 "--sft-steps", "2", "--grpo-steps", "1", "--per-family", "1",
                 "--grpo-per-family", "1", "--batch", "2", "--grad-accum", "1",
                 "--generations", "2", "--max-completion", "16", "--beta", "0.04",
                 "--lora-rank", "4", "--max-length", "1024", "--heldout", "2",
                 "--measure", "1", "--max-new-tokens", "16", "--device", "cpu",
                 "--optimizer", "local", "--optimizer-max-tokens", "24",
                 "--save-dtype", "bf16"]) == 0
    report = json.loads((out / "report.json").read_text())
    assert report["sft"]["heldout_loss"] is not None
    assert len(report["grpo"]["reward_curve"]) == 1
    planners = report["heldout"]["planners"]
    assert set(planners) == {"untrained", "sft", "sft+grpo", "builtin"}
    assert all(p["tasks"] == 2 and p["measured"]["tasks"] == 1 for p in planners.values())
    assert "local optimizer" in report["heldout"]["what"]
    # The builtin plan went to the tiny model as optimizer: it answered (with no usable code).
    assert planners["builtin"]["measured"]["outcomes"] != ["garbage"]
    card = json.loads((out / "grpo" / "perfpilot-training.json").read_text())
    assert card["sampling"]["beta"] == 0.04 and card["heldout"]["planners"]
    assert card["optimizer"]["backend"] == "local"
    assert "## Held-out evaluation" in (out / "grpo" / "README.md").read_text()
    assert (out / "report.md").read_text().startswith("| Planner |")
    assert "| builtin | 2/2 |" in capsys.readouterr().out
