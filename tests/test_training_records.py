"""Training records from real runs: the engine's hook, collection, and the rows built from them."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from perfpilot.cli import main
from perfpilot.code.locate import function_by_name
from perfpilot.engine.engine import Engine
from perfpilot.engine.records import RECORDS_DIR, RECORDS_FILE, records_folder
from perfpilot.progress import JobContext
from perfpilot.runner.values import Verdict, Verification
from perfpilot.settings import RecordSettings, Settings
from perfpilot.training.collect import from_records, merge
from perfpilot.training.examples import preference_rows, record_sft_rows
from perfpilot.training.records import Record, read_jsonl, strong
from perfpilot.training.sft_data import load_sft, split_heldout

UNIT = ("#include <vector>\n\nlong total(std::vector<long> v) {\n  long s = 0;\n"
        "  for (std::size_t i = 0; i < v.size(); ++i) s += v[i];\n  return s;\n}\n")
STRONG = Verification(cases=4, mutants=5, killed=5)


@pytest.fixture
def fake_runner(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The runner answers at once: faster for the first candidate, slower for others."""
    seen: list[str] = []

    async def measured(site: Any, code: str, *args: Any, **kwargs: Any) -> Verdict:
        seen.append(code)
        if len(seen) == 1:
            return Verdict("faster", "m", speedup=1.8, ci95=(1.6, 2.0),
                           validation_status="passed", compiler="g++ 12", verification=STRONG)
        return Verdict("slower", "m", speedup=0.7, ci95=(0.6, 0.8),
                       validation_status="passed", compiler="g++ 12", verification=STRONG)

    import perfpilot.runner.measure as measure

    monkeypatch.setattr(measure, "measure_candidate", measured)
    return seen


async def _optimize(engine: Engine) -> None:
    site = function_by_name(UNIT, "cpp", "total")
    outcome = await engine.optimize(site, JobContext())
    assert outcome.trials, outcome.message


async def test_every_final_verdict_of_the_engine_becomes_a_record(
        tmp_path: Path, fake_runner: list[str]) -> None:
    engine = Engine(Settings(), tmp_path)
    await _optimize(engine)
    path = tmp_path / RECORDS_DIR / RECORDS_FILE
    lines = [json.loads(x) for x in path.read_text().splitlines()]
    assert len(lines) == len(fake_runner) >= 1  # one record per measurement, none other
    assert "/records/" in (tmp_path / ".perfpilot" / ".gitignore").read_text().splitlines()
    # Candidates raced as variants are measured side by side: find the first one measured.
    first = next(x for x in lines if x["candidate"] == fake_runner[0])
    assert first["schema"] == "perfpilot-train/1" and first["source"] == "engine"
    assert first["name"] == "total" and "long total(std::vector<long> v)" in first["function"]
    assert first["candidate"] == fake_runner[0] and first["verdict"] == "faster"
    assert first["plan"] and first["plan"][0]["category"]  # the plan the engine followed
    assert first["planner"] == "builtin" and first["author"] == "builtin"
    assert first["verification"]["killed"] == 5 and first["machine"]
    assert len(first["unit_hash"]) == 16 and first["compiler"] == "g++ 12"
    # A cached verdict is no new measurement: the second run adds nothing.
    await _optimize(engine)
    assert len(path.read_text().splitlines()) == len(lines)
    # The store reads back as training records, strong enough to become signal.
    rec = next(r for r in from_records(tmp_path).records if r.candidate == fake_runner[0])
    assert rec.planner == "builtin" and rec.plan and strong(rec)


async def test_records_can_be_turned_off_or_sent_elsewhere(
        tmp_path: Path, fake_runner: list[str]) -> None:
    off = Settings(records=RecordSettings(enabled=False))
    await _optimize(Engine(off, tmp_path / "a"))
    assert not (tmp_path / "a" / RECORDS_DIR).exists()
    await _optimize(Engine(Settings(), None))  # no workspace: nowhere to keep them
    elsewhere = Settings(records=RecordSettings(folder=str(tmp_path / "store")))
    await _optimize(Engine(elsewhere, None))
    assert (tmp_path / "store" / RECORDS_FILE).read_text().count("\n") >= 1
    assert records_folder(elsewhere, None) == tmp_path / "store"


def test_a_workspace_file_cannot_choose_where_records_are_written(tmp_path: Path) -> None:
    from perfpilot.engine.workspace_config import workspace_config

    (tmp_path / ".perfpilot.toml").write_text('[records]\nfolder = "/tmp/elsewhere"\n'
                                              'enabled = false\n')
    config = workspace_config(tmp_path, trusted=False)
    assert config.settings.records.folder == ""  # sensitive: ignored when untrusted
    assert config.settings.records.enabled is False  # turning them off is always allowed


def _rec(plan: str, candidate: str, verdict: str, speedup: float | None, **kw: Any) -> Record:
    from perfpilot.training.records import PlanStep

    fields: dict[str, Any] = {"source": "engine", "function": UNIT.split("\n\n", 1)[1],
                              "name": "total", "context": "#include <vector>",
                              "plan": (PlanStep(plan, "e"),), "candidate": candidate,
                              "verdict": verdict, "speedup": speedup,
                              "ci95": (speedup * 0.9, speedup * 1.1) if speedup else None,
                              "validation": "passed", "machine": "m",
                              "verification": {"weak": False, "blind": False}}
    fields.update(kw)
    return Record(**fields)


def test_only_strongly_verified_results_become_signal() -> None:
    good = _rec("Loop Efficiency Techniques", "a", "faster", 2.0)
    assert strong(good)
    for bad in (_rec("Loop Efficiency Techniques", "a", "noisy", 2.0),
                _rec("Loop Efficiency Techniques", "a", "weakly-verified", 2.0),
                _rec("Loop Efficiency Techniques", "a", "suspicious", 2.0),
                _rec("Loop Efficiency Techniques", "a", "faster", 2.0, needs_spec=True),
                _rec("Loop Efficiency Techniques", "a", "faster", 2.0,
                     verification={"weak": True}),
                _rec("Loop Efficiency Techniques", "a", "faster", 2.0,
                     validation="weak")):
        assert not strong(bad), bad


def test_rows_from_records_pair_plans_and_candidates_of_one_function() -> None:
    records = [_rec("Loop Efficiency Techniques", "fast", "faster", 2.0),
               _rec("Branching Efficiency", "slow", "slower", 0.7),
               _rec("Multithreading and Concurrency", "odd", "noisy", 3.0),
               _rec("Memory Allocation Optimization", "wrong", "incorrect", None,
                    validation="failed")]
    sft = record_sft_rows(records, with_code=True)
    assert len(sft) == 1  # the best verified plan of the function
    text = sft[0]["completion"][0]["content"]
    assert "Loop Efficiency Techniques" in text and "fast" in text
    plans = preference_rows(records, on="plans")
    cands = preference_rows(records, on="candidates")
    assert {r["chosen"][0]["content"] for r in cands} == {"fast"}
    assert {r["rejected"][0]["content"] for r in cands} == {"slow", "wrong"}
    assert len(plans) == 2 and all(r["weight"] > 0 for r in plans)
    completions = [r[k][0]["content"] for r in plans + cands for k in ("chosen", "rejected")]
    assert not [c for c in completions if "Multithreading" in c or c == "odd"]  # noisy


def test_the_same_measurement_collected_twice_is_kept_once(tmp_path: Path) -> None:
    from perfpilot.training.collect import Collected

    one = _rec("Loop Efficiency Techniques", "fast", "faster", 2.0)
    got = merge(Collected((one,), ()), Collected((one,), ()))
    assert len(got.records) == 1


def test_collect_writes_rows_and_sft_mixes_records_pie_and_rows(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from perfpilot.training.records import write_jsonl

    store = tmp_path / "ws" / RECORDS_DIR
    write_jsonl(store / RECORDS_FILE,
                [_rec("Loop Efficiency Techniques", "fast", "faster", 2.0),
                 _rec("Branching Efficiency", "slow", "slower", 0.7)])
    (store / "broken.jsonl").write_text('{"schema": "perfpilot-train/1", "sou\n')
    out = tmp_path / "data.jsonl"
    rows = tmp_path / "rows"
    assert main(["train", "collect", "--workspace", str(tmp_path / "ws"), "--out", str(out),
                 "--rows", str(rows)]) == 0
    err = capsys.readouterr().err
    assert "broken.jsonl:1: skipped" in err
    assert len(list(read_jsonl(out))) == 2
    assert len((rows / "sft.jsonl").read_text().splitlines()) == 1
    assert len((rows / "plan-pairs.jsonl").read_text().splitlines()) == 1
    assert len((rows / "candidate-pairs.jsonl").read_text().splitlines()) == 1
    pie = tmp_path / "pie.jsonl"
    slow = "int main() { long s = 0; for (int i = 0; i < 100; ++i) s += i; return s % 7; }\n"
    pie.write_text(json.dumps({"src_code": slow, "tgt_code": "int main() { return 6; }\n",
                               "cpu_time_v0": 10, "cpu_time_v1": 2,
                               "plan": "[SUGG/]\n- **Algorithm Design Optimization**: closed form"
                                       "\n[/SUGG]"}) + "\n")
    loaded = load_sft([out, pie, rows / "sft.jsonl"])
    assert len(loaded.rows) == 3, loaded.messages
    assert any("Algorithm Design Optimization" in r["completion"][0]["content"]
               for r in loaded.rows)
    assert [m.split(": ")[1].split(" (")[1] for m in loaded.messages] == [
        "records)", "PIE pairs)", "rows)"]


def test_held_out_rows_are_split_by_function() -> None:
    rows = [{"prompt": [{"role": "user", "content": f"f{i}"}], "completion": []}
            for i in range(20) for _ in range(2)]
    train, held = split_heldout(rows, 0.25)
    assert held and train and len(train) + len(held) == len(rows)
    assert not {json.dumps(r["prompt"]) for r in held} & {json.dumps(r["prompt"])
                                                          for r in train}
    assert split_heldout(rows[:4], 0.25) == (rows[:4], [])  # too few functions to split
