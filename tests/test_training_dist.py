"""Training under several processes (two CPU processes over gloo, as torchrun starts them):
only the main process saves, after gathering, and only rank 0 measures."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from optional_support import needs

pytestmark = [needs("torch", "transformers", "trl", "peft", "datasets"), pytest.mark.slow]

SCRIPT = textwrap.dedent('''
    import json, os, sys
    from pathlib import Path
    import torch
    torch.set_num_threads(1)
    from perfpilot.training import model_io
    from perfpilot.training.corpus import generate
    from perfpilot.training.examples import sft_row
    from perfpilot.training.measure_pool import leave, pooled, world
    from perfpilot.training.trainers import RunSpec, sft

    base, out, log = Path(sys.argv[1]), Path(sys.argv[2]), Path(sys.argv[3])
    rank = int(os.environ["RANK"])
    real_save = model_io.save_planner

    def spy(*args, **kwargs):
        with log.open("a") as fh:
            fh.write(json.dumps({"saved_by": rank}) + "\\n")
        return real_save(*args, **kwargs)

    model_io.save_planner = spy
    rows = [sft_row(t) for t in generate(1, families=("bubble-sort", "endl-stream"))]
    sft(RunSpec(base=base, out=out, steps=2, batch=1, learning_rate=1e-2, max_length=2048,
                device="cpu", save_dtype="fp32"), rows)

    def measure(items):
        with log.open("a") as fh:
            fh.write(json.dumps({"measured_by": rank, "items": items}) + "\\n")
        return [f"verdict of {x}" for x in items]

    got = pooled([f"r{rank}-a", f"r{rank}-b"], measure)
    with log.open("a") as fh:
        fh.write(json.dumps({"rank": rank, "world": world(), "got": got}) + "\\n")
    leave()
''')


def _port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_two_processes_save_once_and_measure_on_rank_zero(tmp_path: Path) -> None:
    from test_llm_tiny_models import build_tiny_model

    base = build_tiny_model(tmp_path / "base")
    script = tmp_path / "run.py"
    script.write_text(SCRIPT)
    log = tmp_path / "log.jsonl"
    env = dict(os.environ, OMP_NUM_THREADS="1", HF_HUB_OFFLINE="1", TRANSFORMERS_OFFLINE="1",
               PYTHONPATH=os.pathsep.join([str(Path(__file__).resolve().parent.parent
                                                / "server"), os.environ.get("PYTHONPATH", "")]))
    run = subprocess.run(
        [sys.executable, "-m", "torch.distributed.run", "--nproc_per_node", "2",
         "--master_addr", "127.0.0.1", "--master_port", str(_port()), str(script),
         str(base), str(tmp_path / "out"), str(log)],
        capture_output=True, text=True, timeout=600, env=env, check=False)
    assert run.returncode == 0, run.stderr[-3000:]
    entries = [json.loads(line) for line in log.read_text().splitlines()]
    assert [e["saved_by"] for e in entries if "saved_by" in e] == [0]
    card = json.loads((tmp_path / "out" / "perfpilot-training.json").read_text())
    assert card["processes"] == 2
    from transformers import AutoModelForCausalLM

    AutoModelForCausalLM.from_pretrained(tmp_path / "out", local_files_only=True)
    measured = [e for e in entries if "measured_by" in e]
    assert len(measured) == 1 and measured[0]["measured_by"] == 0
    assert sorted(measured[0]["items"]) == ["r0-a", "r0-b", "r1-a", "r1-b"]
    for e in (e for e in entries if "got" in e):
        assert e["world"] == [e["rank"], 2]
        assert e["got"] == [f"verdict of r{e['rank']}-a", f"verdict of r{e['rank']}-b"]
