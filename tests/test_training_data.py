"""Training data: records, collection from stored results, PIE import, the generated corpus."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from perfpilot.engine.disk_cache import DiskCache
from perfpilot.runner.values import Verdict, Verification
from perfpilot.strategy.plan_format import parse_plan
from perfpilot.training.collect import from_eval, from_results
from perfpilot.training.corpus import HELD_OUT, generate
from perfpilot.training.examples import preference_rows, sft_row
from perfpilot.training.families import FAMILIES
from perfpilot.training.pie import import_pairs
from perfpilot.training.records import PlanStep, Record, read_jsonl, strong, write_jsonl

STRONG = Verification(cases=4, mutants=5, killed=5)
WEAK = Verification(cases=4, mutants=5, killed=3, survivors=("x", "y"), strong_survivors=2)


def _verdict(word: str, speedup: float | None, ci: tuple[float, float] | None,
             validation: str = "passed", check: Verification | None = STRONG) -> Verdict:
    return Verdict(word, "m", speedup=speedup, ci95=ci, validation_status=validation,
                   compiler="g++ 12", verification=check)


def test_collect_reads_stored_verdicts_and_skips_damaged_files(tmp_path: Path) -> None:
    cache = DiskCache(tmp_path)
    cache.put("a" * 16, _verdict("faster", 2.0, (1.8, 2.2)))
    cache.put("b" * 16, _verdict("faster", 3.0, (2.5, 3.5), "weak", WEAK))
    folder = tmp_path / ".perfpilot" / "results"
    (folder / "broken.json").write_text('{"schema": 2, "body": {"verd')
    (folder / "partial.json").write_text('{"schema": 2, "body": {"speedup": 1.5}}')
    got = from_results(tmp_path, machine="test")
    assert len(got.records) == 2
    assert {Path(s.split(":")[0]).name for s in got.skipped} == {"broken.json", "partial.json"}
    by_speed = {r.speedup: r for r in got.records}
    assert by_speed[2.0].validation == "passed" and not by_speed[2.0].weak
    assert by_speed[2.0].compiler == "g++ 12" and by_speed[2.0].ci95 == (1.8, 2.2)
    assert by_speed[3.0].weak
    assert strong(by_speed[2.0]) and not strong(by_speed[3.0])


def test_signal_rule_keeps_noisy_unvalidated_and_weak_out() -> None:
    base = Record(source="eval", function="int f(){return 1;}", verdict="faster", speedup=2.0,
                  ci95=(1.5, 2.5), validation="passed")
    assert strong(base)
    from dataclasses import replace
    assert not strong(replace(base, verdict="noisy"))
    assert not strong(replace(base, validation="skipped"))
    assert not strong(replace(base, weak=True))
    assert not strong(replace(base, ci95=(0.9, 1.4)))  # the interval holds 1
    assert strong(replace(base, verdict="incorrect", speedup=None, validation="failed"))


def test_dataset_round_trips_and_skips_bad_lines(tmp_path: Path) -> None:
    rec = Record(source="pie", function="x", plan=(PlanStep("Loop Efficiency Techniques", "e"),),
                 speedup=1.5, ci95=(1.2, 1.8))
    path = tmp_path / "d.jsonl"
    write_jsonl(path, [rec, rec])
    with path.open("a") as fh:
        fh.write("{not json\n" + json.dumps({"schema": "other/9"}) + "\n")
    assert list(read_jsonl(path)) == [rec, rec]


def test_collect_from_eval_output(tmp_path: Path) -> None:
    task = {"task": "t1", "planned": ["Loop Efficiency Techniques"], "samples": [
        {"verdict": "faster", "speedup": 1.9, "ci95": [1.7, 2.1], "threads": 2,
         "categories": ["Multithreading and Concurrency"]},
        {"verdict": "noisy", "speedup": None, "ci95": None}]}
    (tmp_path / "tasks").mkdir()
    (tmp_path / "tasks" / "t1.json").write_text(json.dumps(task))
    (tmp_path / "tasks" / "t2.json").write_text("[1, 2")
    got = from_eval(tmp_path, machine="m")
    assert [r.verdict for r in got.records] == ["faster", "noisy"]
    assert got.records[0].threads == 2 and got.records[0].categories == (
        "Multithreading and Concurrency",)
    assert [strong(r) for r in got.records] == [True, False]
    assert len(got.skipped) == 1 and "t2.json" in got.skipped[0]


def test_pie_import_reads_both_shapes(tmp_path: Path) -> None:
    lines = [
        {"problem_id": "p1", "src_code": "int main(){}", "tgt_code": "int main(){return 0;}",
         "cpu_time_v0": 300, "cpu_time_v1": 100},
        {"slow_code": "int main(){}", "fast_code": "int main(){ }", "speedup": 2.0,
         "plan": "[SUGG/]\n- **Loop Effeciency Technique**: hoist\n[/SUGG]"},
        {"src_code": "only slow"},
    ]
    path = tmp_path / "pie.jsonl"
    path.write_text("\n".join(json.dumps(x) for x in lines) + "\n")
    got = import_pairs(path)
    assert [r.speedup for r in got.records] == [3.0, 2.0]
    assert got.records[1].categories == ("Loop Efficiency Techniques",)
    assert len(got.skipped) == 1


def test_corpus_is_large_distinct_and_split_by_family() -> None:
    tasks = generate(100)
    assert len(tasks) >= 3000
    assert len({t.unit for t in tasks}) == len(tasks)
    assert {t.category for t in tasks} == set(range(1, 16))
    held = {t.family for t in tasks if t.split == "heldout"}
    train = {t.family for t in tasks if t.split == "train"}
    assert held == set(HELD_OUT) and not held & train
    # Every category has a family on each side, so held-out scores cover all 15.
    assert {t.category for t in tasks if t.split == "heldout"} == set(range(1, 16))
    assert all(t.split == "train" for t in generate(5, split="train"))


@pytest.mark.parametrize("fam", [f.name for f in FAMILIES])
def test_every_family_compiles_slow_and_fast(fam: str) -> None:
    task = generate(4, families=(fam,))[-1]
    for src in (task.unit, task.fast_unit()):
        run = subprocess.run(["g++", "-std=c++17", "-fopenmp", "-fsyntax-only", "-Wall",
                              "-x", "c++", "-"], input=src, text=True, capture_output=True,
                             check=False)
        assert run.returncode == 0 and not run.stderr, run.stderr
    assert task.site().name == task.name


def test_sft_row_plan_parses_back_with_the_known_category_first() -> None:
    task = generate(1, families=("bubble-sort",))[0]
    row = sft_row(task)
    text = row["completion"][0]["content"]
    plan = parse_plan(text, "x")
    assert plan.strategies[0].category.id == 15
    assert task.name in row["prompt"][-1]["content"]
    assert "[OPT/]" in sft_row(task, with_code=True)["completion"][0]["content"]


def test_preference_pairs_only_from_strong_records() -> None:
    fn = "long f(long x) { return x * 2; }"
    def rec(cat: str, verdict: str, speedup: float | None, validation: str = "passed",
            weak: bool = False) -> Record:
        return Record(source="eval", function=fn, name="f", plan=(PlanStep(cat, "e"),),
                      verdict=verdict, speedup=speedup, validation=validation, weak=weak)
    records = [rec("Loop Efficiency Techniques", "faster", 2.0),
               rec("Branching Efficiency", "slower", 0.8),
               rec("Multithreading and Concurrency", "faster", 9.0, "weak", True),
               rec("Numerical Computation Optimization", "noisy", None)]
    rows = preference_rows(records)
    assert len(rows) == 1
    assert "Loop Efficiency" in rows[0]["chosen"][0]["content"]
    assert "Branching" in rows[0]["rejected"][0]["content"]
    assert rows[0]["weight"] == pytest.approx(0.693147 + 0.223144, rel=1e-4)


def test_heldout_scores_count_the_label_category() -> None:
    from perfpilot.training.evaluate import builtin_plans, from_corpus, plan_scores

    tasks = from_corpus(generate(1, split="heldout")[:3])
    labels = [t.labels[0] for t in tasks]

    def plan(*cats: str) -> str:
        return "[SUGG/]\n" + "".join(f"- **{c}**: x\n" for c in cats) + "[/SUGG]"

    perfect = plan_scores(tasks, [plan(c) for c in labels])
    assert (perfect.recall, perfect.precision, perfect.parsed) == (1.0, 1.0, 3)
    other = next(c for c in ("Branching Efficiency", "Loop Efficiency Techniques")
                 if c != labels[0])
    half = plan_scores(tasks, [plan(labels[0], other), "no plan", plan(labels[1])])
    assert half.recall == pytest.approx(1 / 3) and half.precision == pytest.approx(1 / 3)
    assert half.parsed == 2
    assert 0.0 <= plan_scores(tasks, builtin_plans(tasks)).recall <= 1.0
