"""``perfpilot train`` on the command line: collect, corpus, accelerate-config."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from perfpilot.cli import main
from perfpilot.engine.disk_cache import DiskCache
from perfpilot.runner.values import Verdict
from perfpilot.training.records import read_jsonl


def test_collect_writes_a_dataset_and_names_skipped_files(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    DiskCache(tmp_path).put("k" * 16, Verdict("faster", "m", speedup=1.5, ci95=(1.3, 1.7),
                                              validation_status="passed"))
    (tmp_path / ".perfpilot" / "results" / "cut.json").write_text('{"schema": 2, "bo')
    pie = tmp_path / "pairs.jsonl"
    pie.write_text(json.dumps({"src_code": "a", "tgt_code": "b", "speedup": 2.0}) + "\n")
    out = tmp_path / "data.jsonl"
    assert main(["train", "collect", "--workspace", str(tmp_path), "--pie", str(pie),
                 "--out", str(out)]) == 0
    err = capsys.readouterr().err
    assert "cut.json: skipped" in err and "2 records" in err
    assert sorted(r.source for r in read_jsonl(out)) == ["pie", "results"]


def test_corpus_and_accelerate_config(tmp_path: Path) -> None:
    out = tmp_path / "tasks.jsonl"
    assert main(["train", "corpus", "--out", str(out), "--per-family", "2",
                 "--split", "heldout"]) == 0
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert len(rows) == 30 and {r["split"] for r in rows} == {"heldout"}
    cfg = tmp_path / "ddp.yaml"
    assert main(["train", "accelerate-config", "--kind", "ddp", "--processes", "2",
                 "--out", str(cfg)]) == 0
    assert json.loads(cfg.read_text())["num_processes"] == 2


def test_preference_training_without_pairs_says_so(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("trl")
    data = tmp_path / "empty.jsonl"
    data.write_text("")
    for kind in ("dpo", "dpa", "reward"):
        assert main(["train", kind, "--base", str(tmp_path), "--data", str(data),
                     "--out", str(tmp_path / "o")]) == 2
        assert "no preference pairs" in capsys.readouterr().err
