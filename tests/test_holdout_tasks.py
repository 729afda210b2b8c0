"""The held-out task sets (examples/holdout, examples/holdout2) and the model-answer set
(examples/model_answers): every task loads, names its function in both files, uses canonical
labels, and its original, reference and bench spec compile; every recorded answer holds the
function in a fenced block, and the last answer of a task is the code its reference measures."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from perfpilot.code.locate import LocateError, function_by_name
from perfpilot.code.parse import language_for
from perfpilot.evaluation.tasks import Task, load_task, load_tasks
from perfpilot.runner.capabilities import check_candidate, describe
from perfpilot.strategy.categories import CATEGORIES

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

ROOT = Path(__file__).resolve().parent.parent
BENCH_INCLUDE = ROOT / "server" / "perfpilot" / "runner" / "include"
# Each set with the fewest tasks it must hold.
SETS = {ROOT / "examples" / "holdout": 30, ROOT / "examples" / "holdout2": 24}
# Tasks with recorded model answers, for replaying the model path without a model.
ANSWERS_SET = ROOT / "examples" / "model_answers"
TASK_DIRS = sorted(p.parent for root in (*SETS, ANSWERS_SET) for p in root.glob("*/task.toml"))
ANSWER_DIRS = sorted(p.parent for p in ANSWERS_SET.glob("*/task.toml"))
CANONICAL = {c.name for c in CATEGORIES}


def _task_id(directory: Path) -> str:
    return f"{directory.parent.name}/{directory.name}"


@pytest.mark.parametrize("root", sorted(SETS), ids=lambda p: p.name)
def test_the_set_is_large_and_varied(root: Path) -> None:
    tasks = load_tasks(root)
    assert len(tasks) >= SETS[root]
    assert {t.input_mode for t in tasks} == {"harness", "spec", "stdin"}
    assert any(t.openmp for t in tasks) and any(not t.openmp for t in tasks)
    assert {t.language for t in tasks} == {"c", "cpp"}
    # Every category is some task's label, so recall is measured for each.
    assert {label for t in tasks for label in t.labels} == CANONICAL


def test_the_second_set_has_new_names() -> None:
    # A task of the second set is a new function, not a renamed copy of the first set's.
    first, second = (load_tasks(root) for root in sorted(SETS))
    assert not {t.name for t in first} & {t.name for t in second}
    assert not {(t.function, t.source.read_text(encoding="utf-8")) for t in first} & \
        {(t.function, t.source.read_text(encoding="utf-8")) for t in second}


@pytest.mark.parametrize("directory", TASK_DIRS, ids=_task_id)
def test_task_loads_with_canonical_labels(directory: Path) -> None:
    raw = tomllib.loads((directory / "task.toml").read_text(encoding="utf-8"))
    task = load_task(directory)
    assert raw["labels"], "a task without labels measures no planner recall"
    # Exact spelling: the loader would map small drift, the set must not rely on it.
    assert set(raw["labels"]) <= CANONICAL
    assert task.reference is not None
    assert task.description


@pytest.mark.parametrize("directory", TASK_DIRS, ids=_task_id)
def test_source_and_reference_define_the_function(directory: Path) -> None:
    task = load_task(directory)
    assert task.reference is not None
    for path in (task.source, task.reference):
        language = language_for(str(path))
        assert language == task.language
        site = function_by_name(path.read_text(encoding="utf-8"), language, task.function)
        assert site.name == task.function.split("::")[-1]


@pytest.mark.parametrize("directory", TASK_DIRS, ids=_task_id)
def test_reference_passes_the_candidate_policy(directory: Path) -> None:
    # Evaluation times the reference as a candidate: a refused one would give no headroom.
    task = load_task(directory)
    assert task.reference is not None
    found = check_candidate(task.site(), task.reference.read_text(encoding="utf-8"),
                            whole_unit=True)
    assert not found, describe(found)


def _syntax_check(task: Task, path: Path, include: Path | None = None) -> None:
    c = path.suffix == ".c"
    compiler = shutil.which("gcc" if c else "g++")
    if compiler is None:
        pytest.skip("no GCC on this machine")
    argv = [compiler, "-fsyntax-only", "-Wall", "-Werror", "-std=c11" if c else "-std=c++17"]
    if task.openmp:
        argv.append("-fopenmp")
    if include is not None:
        argv.append(f"-I{include}")
    done = subprocess.run([*argv, str(path)], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr


# Compiling every file of every task is a sweep: ``make test`` compiles every fourth task (the
# first and the last among them), ``make test-deep`` all of them.
_COMPILED = {TASK_DIRS[i] for i in (*range(0, len(TASK_DIRS), 4), len(TASK_DIRS) - 1)}


@pytest.mark.parametrize("directory", [
    pytest.param(d, id=_task_id(d),
                 marks=pytest.mark.sweep if d in _COMPILED else pytest.mark.deep)
    for d in TASK_DIRS])
def test_original_reference_and_spec_compile(directory: Path) -> None:
    task = load_task(directory)
    assert task.reference is not None
    _syntax_check(task, task.source)
    _syntax_check(task, task.reference)
    if task.spec is not None:
        _syntax_check(task, task.spec, BENCH_INCLUDE)


# ---- The model-answer set ---------------------------------------------------------------------

_FENCE = re.compile(r"^```[A-Za-z0-9_+-]*[ \t]*\n(.*?)^```[ \t]*$", re.S | re.M)


def _blocks(path: Path) -> list[str]:
    return _FENCE.findall(path.read_text(encoding="utf-8"))


def _answers(task: Task) -> list[Path]:
    """The task's answers in the order a replay gives them: the first, then each repair."""
    assert task.answers is not None
    stem = task.function.split("::")[-1]
    first = task.answers / f"{stem}.md"
    repairs = sorted(task.answers.glob(f"{stem}.repair*.md"),
                     key=lambda p: int(p.name[len(stem) + len(".repair"):-len(".md")]))
    return [first, *repairs]


def _squash(code: str) -> str:
    return " ".join(code.split())


def test_the_answer_set_is_large_and_varied() -> None:
    tasks = load_tasks(ANSWERS_SET)
    assert len(tasks) >= 22
    assert {t.input_mode for t in tasks} == {"harness", "spec"}
    assert sum(t.input_mode == "spec" for t in tasks) >= 3
    assert sum(t.openmp for t in tasks) >= 3 and any(not t.openmp for t in tasks)
    assert {t.language for t in tasks} == {"c", "cpp"}
    assert all(t.answers is not None for t in tasks)
    # Some tasks replay a wrong first answer and its repair.
    assert sum(len(_answers(t)) > 1 for t in tasks) >= 3


def test_the_answer_set_has_new_functions() -> None:
    # No task repeats a function of the other sets, so the set measures unseen code.
    others = [t for root in (ROOT / "examples" / "tasks", *SETS) for t in load_tasks(root)]
    mine = load_tasks(ANSWERS_SET)
    assert not {t.name for t in others} & {t.name for t in mine}
    assert not {t.function for t in others} & {t.function for t in mine}


@pytest.mark.parametrize("directory", ANSWER_DIRS, ids=_task_id)
def test_every_answer_holds_the_function_in_a_fenced_block(directory: Path) -> None:
    task = load_task(directory)
    assert task.answers is not None
    files = sorted(task.answers.glob("*.md"))
    assert set(files) == set(_answers(task)), "answers are <function>.md and .repairN.md only"
    for path in files:
        found = []
        for block in _blocks(path):
            try:
                found.append(function_by_name(block, task.language, task.function))
            except LocateError:
                continue
        assert found, f"{path.name} has no fenced block defining {task.function}"


@pytest.mark.parametrize("directory", ANSWER_DIRS, ids=_task_id)
def test_the_last_answer_is_what_the_reference_measures(directory: Path) -> None:
    # The reference is the file with the last answer applied, so its figure is the answer's.
    task = load_task(directory)
    assert task.reference is not None
    answers = _answers(task)
    code = "\n".join(_blocks(answers[-1]))
    reference = task.reference.read_text(encoding="utf-8")
    mine = function_by_name(code, task.language, task.function)
    theirs = function_by_name(reference, task.language, task.function)
    assert _squash(mine.text) == _squash(theirs.text)
    # Helpers, aliases, constants and includes of the answer are in the reference too.
    lines = {line.strip() for line in reference.splitlines()}
    missing = [line for line in code.splitlines() if line.strip() and line.strip() not in lines]
    assert not missing, f"lines of {answers[-1].name} not in the reference: {missing}"
    # A repaired task's first answer is really a different one.
    if len(answers) > 1:
        assert _squash("\n".join(_blocks(answers[0]))) != _squash(code)
