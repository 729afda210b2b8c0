"""Loss and reward curves of training runs: picked out of trainer logs, drawn by `train chart`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from perfpilot.cli import main
from perfpilot.training.chart import read_run, series

# The shapes trl logs: per-step entries, GRPO's reward with its spread, an end summary.
SFT_LOG = [{"loss": 3.2, "step": 1}, {"loss": 2.9, "step": 2}, {"loss": 2.5, "step": 3},
           {"train_runtime": 9.0, "train_loss": 2.87, "step": 3}]
GRPO_LOG = [{"loss": 0.0, "reward": -0.5, "reward_std": 0.2, "step": 1},
            {"loss": 0.01, "reward": 0.1, "reward_std": 0.4, "step": 2},
            {"loss": 0.02, "reward": "nan?", "step": 3}]


def _run(folder: Path, kind: str, log: list[dict[str, object]]) -> Path:
    folder.mkdir(parents=True)
    (folder / "perfpilot-training.json").write_text(json.dumps({"kind": kind, "log": log}))
    return folder


def test_series_keeps_stepped_numeric_values_only() -> None:
    (loss,) = series("sft", SFT_LOG)
    assert loss.name == "loss" and loss.steps == (1, 2, 3) and loss.values == (3.2, 2.9, 2.5)
    assert loss.spread is None
    curves = {c.name: c for c in series("grpo", GRPO_LOG)}
    assert curves["reward"].steps == (1, 2) and curves["reward"].values == (-0.5, 0.1)
    assert curves["reward"].spread == (0.2, 0.4)
    assert curves["loss"].steps == (1, 2, 3)


def test_read_run_names_a_folder_without_a_card(tmp_path: Path) -> None:
    label, log = read_run(_run(tmp_path / "sft-out", "sft", SFT_LOG))
    assert label == "sft (sft-out)" and len(log) == 4
    with pytest.raises(ValueError, match="not a training run's card"):
        read_run(tmp_path / "missing")
    (tmp_path / "nolog").mkdir()
    (tmp_path / "nolog" / "perfpilot-training.json").write_text('{"kind": "sft"}')
    with pytest.raises(ValueError, match="no training log"):
        read_run(tmp_path / "nolog")


def test_train_chart_draws_sft_then_grpo(tmp_path: Path,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("matplotlib")
    sft = _run(tmp_path / "sft", "sft", SFT_LOG)
    grpo = _run(tmp_path / "grpo", "grpo", GRPO_LOG)
    png = tmp_path / "chart.png"
    assert main(["train", "chart", str(sft), str(grpo), "--out", str(png)]) == 0
    assert png.read_bytes()[:4] == b"\x89PNG"
    assert "3 curves from 2 runs" in capsys.readouterr().err
    assert main(["train", "chart", str(tmp_path / "nothing"), "--out", str(png)]) == 2
    assert "not a training run's card" in capsys.readouterr().err
    empty = _run(tmp_path / "empty", "sft", [{"train_runtime": 1.0, "step": 0}])
    assert main(["train", "chart", str(empty), "--out", str(tmp_path / "e.png")]) == 2
    assert "nothing to draw" in capsys.readouterr().err
