"""``perfpilot eval`` end to end: three tasks of the shipped set with the builtin backends, the
real runner and compilers; then resume, the report files and the CLI's error paths."""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from perfpilot.engine.engine import Engine
from perfpilot.evaluation.cli import _command_line, add_eval_parser
from perfpilot.evaluation.evaluate import EvalOptions, Evaluator
from perfpilot.evaluation.results import TASK_VERDICTS, SampleResult, TaskResult
from perfpilot.evaluation.store import ResultStore
from perfpilot.evaluation.tasks import load_tasks
from perfpilot.progress import TEST_GATE_ENV, JobContext
from perfpilot.settings import Settings
from perfpilot.strategy.categories import CATEGORIES

TASKS = Path(__file__).resolve().parent.parent / "examples" / "tasks"
# C++ harness, C harness, C stdin, and a rewrite that needs a header the file lacks
SOME = ("count_dups", "strlen_upper", "range_sum_c", "bubble_sort")
KEYS = {"tasks", "correct_rate", "opt_rate", "mean_speedup", "speedup_at_k", "per_task",
        "by_mode", "by_category", "category_recall", "seconds_per_task", "unmeasured",
        "reference", "k"}


def run_eval(*args: str) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, PYTHONUNBUFFERED="1")
    return subprocess.run([sys.executable, "-m", "perfpilot.evaluation", *args],
                          capture_output=True, text=True, env=env, timeout=900, check=False)


@pytest.fixture
def some_tasks(tmp_path: Path) -> Path:
    root = tmp_path / "tasks"
    for name in SOME:
        shutil.copytree(TASKS / name, root / name)
    return root


def test_some_tasks_end_to_end_and_resume(some_tasks: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    md = tmp_path / "docs" / "eval.md"
    chart = tmp_path / "docs" / "images" / "eval.png"
    args = (str(some_tasks), "--out", str(out), "--report-md", str(md), "--chart", str(chart),
            "--pairs", "8", "--retries", "0", "--json", "--code-key", "t")
    first = run_eval(*args)
    assert first.returncode == 0, first.stderr
    metrics = json.loads(first.stdout)
    assert set(metrics) >= KEYS
    assert metrics["tasks"] == len(SOME)
    rows = {r["task"]: r for r in metrics["per_task"]}
    assert set(rows) == set(SOME)
    for row in rows.values():
        assert row["verdict"] in TASK_VERDICTS
        assert isinstance(row["speedup"], float) and row["speedup"] >= 1.0
        assert isinstance(row["categories"], list)
        # The references are known good: never wrong, never broken.
        assert row["reference_verdict"] in ("faster", "no-change", "slower", "noisy"), row
        if row["verdict"] in ("noisy", "error"):
            assert row["speedup"] == 1.0
    # The builtin planner's categories reach the report: the quadratic scan is named.
    assert "Algorithm Design Optimization" in rows["count_dups"]["categories"]
    names = {c.name for c in CATEGORIES}
    assert all(set(r["categories"]) <= names for r in rows.values())
    assert metrics["category_recall"] is not None
    assert 0.0 <= metrics["correct_rate"] <= 1.0 and 0.0 <= metrics["opt_rate"] <= 1.0
    assert metrics["by_mode"]["serial"]["tasks"] == len(SOME)
    # std::sort needs <algorithm>, which the task's file lacks: the candidate carries it.
    assert rows["bubble_sort"]["verdict"] in ("faster", "noisy"), rows["bubble_sort"]

    for path in (out / "summary.json", out / "report.md", out / "eval.png", md, chart):
        assert path.is_file(), path
    assert chart.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    report = md.read_text()
    assert "](images/eval.png)" in report
    for name in SOME:
        assert f"| {name} |" in report
    assert json.loads((out / "summary.json").read_text())["tasks"] == len(SOME)

    # Resume: measured tasks are taken from their files, not measured again.
    stored = {n: (out / "tasks" / f"{n}.json").read_text() for n in SOME}
    measured = [n for n in SOME if rows[n]["verdict"] not in ("noisy", "error")]
    second = run_eval(*args)
    assert second.returncode == 0, second.stderr
    resumed = json.loads(second.stdout)
    assert set(resumed["resumed"]) >= set(measured)
    again = {r["task"]: r for r in resumed["per_task"]}
    for name in measured:
        assert f"{name}: stored result reused" in second.stderr
        if rows[name]["reference_verdict"] != "noisy":  # a noisy reference is timed again
            assert (out / "tasks" / f"{name}.json").read_text() == stored[name]
            assert again[name] == rows[name]
        assert again[name]["verdict"] == rows[name]["verdict"]


async def test_stored_results_are_reused_only_with_a_matching_key(tmp_path: Path) -> None:
    root = tmp_path / "tasks"
    shutil.copytree(TASKS / "count_dups", root / "count_dups")
    task = load_tasks(root)[0]
    engine = Engine(Settings(), None)
    store = ResultStore(tmp_path / "out")
    evaluator = Evaluator(engine, store, EvalOptions(reference=False))
    assert len(evaluator.task_key(task)) == 16
    seeded = TaskResult("count_dups", False, task.labels, ("Algorithm Design Optimization",),
                        (SampleResult("faster", 9.5, (9.0, 10.0)),), 0,
                        key=evaluator.task_key(task))
    store.save_task(seeded)
    results = await evaluator.run([task], JobContext())
    assert results == [seeded]  # nothing was planned or measured
    # A changed task file changes the key: the stored result no longer applies.
    (root / "count_dups" / "count_dups.cpp").write_text(
        task.source.read_text() + "\n// changed\n")
    changed = load_tasks(root)[0]
    assert evaluator.task_key(changed) != seeded.key
    assert store.load_task("count_dups", evaluator.task_key(changed)) is None
    # Results made by other PerfPilot code are not reused either.
    other = Evaluator(engine, store, EvalOptions(reference=False, code_key="other"))
    assert other.task_key(task) != seeded.key
    await engine.close()


def test_bad_task_directory_exits_2(tmp_path: Path) -> None:
    bad = tmp_path / "tasks" / "broken"
    bad.mkdir(parents=True)
    (bad / "task.toml").write_text('source = "missing.cpp"\nfunction = "f"\n')
    proc = run_eval(str(tmp_path / "tasks"), "--out", str(tmp_path / "out"))
    assert proc.returncode == 2
    assert "missing.cpp, which does not exist" in proc.stderr
    proc = run_eval(str(tmp_path / "nowhere"))
    assert proc.returncode == 2 and "not a directory" in proc.stderr


def test_add_eval_parser_wires_the_subcommand() -> None:
    parser = argparse.ArgumentParser(prog="perfpilot")
    sub = parser.add_subparsers(dest="command", required=True)
    add_eval_parser(sub)
    args = parser.parse_args(["eval", "examples/tasks", "--samples", "3", "--planner",
                              "builtin", "--fresh", "--json", "--out", "o"])
    assert args.command == "eval" and args.tasks_dir == "examples/tasks"
    assert args.samples == 3 and args.fresh and args.json and args.out == "o"
    assert args.report_md is None and args.chart is None and args.optimizer is None
    with pytest.raises(SystemExit):
        parser.parse_args(["eval", "x", "--planner", "magic"])


@pytest.mark.parametrize(("flags", "stated"), [
    ([], ""),
    (["--no-reference"], "--no-reference"),
    (["--pairs", "12"], "--pairs 12"),
    (["--threads", "2", "--compiler", "clang++"], "--threads 2 --compiler clang++"),
    (["--callgrind", "--retries", "0"], "--callgrind --retries 0"),
])
def test_the_stated_command_keeps_the_flags_that_change_figures(flags: list[str],
                                                                stated: str) -> None:
    # A report whose command hides --no-reference reads as if references failed to measure.
    parser = argparse.ArgumentParser()
    add_eval_parser(parser.add_subparsers(dest="cmd"))
    args = parser.parse_args(["eval", "tasks", "--out", "o", *flags])
    line = _command_line(args)
    assert line.startswith("perfpilot eval tasks --out o")
    assert line.endswith(stated)
    for flag in ("--no-reference", "--pairs", "--threads", "--callgrind", "--retries"):
        assert (flag in line) == (flag in flags)


def test_interrupted_run_resumes(tmp_path: Path) -> None:
    root = tmp_path / "tasks"
    first_task, second_task = "bubble_sort", "count_dups"  # both have candidates to time
    for name in (first_task, second_task):
        shutil.copytree(TASKS / name, root / name)
    out = tmp_path / "out"
    # The test gate holds the second task before it is measured until the gate file goes:
    # the interruption always arrives while it is unfinished.
    gate = tmp_path / "gate"
    gate.mkdir()
    (gate / f"measure-{second_task}").touch()
    args = [sys.executable, "-m", "perfpilot.evaluation", str(root), "--out", str(out),
            "--pairs", "8", "--retries", "0", "--no-reference", "--code-key", "t"]
    proc = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env=dict(os.environ, PYTHONUNBUFFERED="1",
                                     **{TEST_GATE_ENV: str(gate)}))
    assert proc.stderr is not None
    first = proc.stderr.readline()  # the first task's line: it is stored by now
    assert first.startswith(f"[1/2] {first_task}: "), first
    proc.send_signal(signal.SIGINT)
    _, rest = proc.communicate(timeout=120)
    assert not (out / "tasks" / f"{second_task}.json").exists()
    assert proc.returncode == 130, rest
    assert "interrupted" in rest
    stored = out / "tasks" / f"{first_task}.json"
    assert stored.is_file()
    verdict = json.loads(stored.read_text())["verdict"]

    again = run_eval(str(root), "--out", str(out), "--pairs", "8", "--retries", "0",
                     "--no-reference", "--json", "--code-key", "t")
    assert again.returncode == 0, again.stderr
    resumed = json.loads(again.stdout)["resumed"]
    assert (first_task in resumed) == (verdict not in ("noisy", "error"))
    assert second_task not in resumed
    assert (out / "tasks" / f"{second_task}.json").is_file()
