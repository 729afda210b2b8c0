"""The task loader (validation and its messages) and the shipped task set's coverage."""

from __future__ import annotations

from pathlib import Path

import pytest

from perfpilot.evaluation.tasks import TaskError, load_task, load_tasks
from perfpilot.strategy.categories import CATEGORIES

TASKS = Path(__file__).resolve().parent.parent / "examples" / "tasks"
SRC = ("long total(const long* v, int n) {\n  long s = 0;\n"
       "  for (int i = 0; i < n; i++) s += v[i];\n  return s;\n}\n")


def make_task(root: Path, toml: str, files: dict[str, str] | None = None,
              name: str = "t") -> Path:
    d = root / name
    d.mkdir(parents=True)
    (d / "task.toml").write_text(toml)
    for fname, text in (files if files is not None else {"total.c": SRC}).items():
        (d / fname).write_text(text)
    return d


def test_valid_task(tmp_path: Path) -> None:
    d = make_task(tmp_path, 'source = "total.c"\nfunction = "total"\n'
                  'labels = ["Loop Efficiency Techniques"]\nreference = "ref.c"\n',
                  {"total.c": SRC, "ref.c": SRC})
    t = load_task(d)
    assert t.language == "c" and t.input_mode == "harness" and not t.openmp
    assert t.labels == ("Loop Efficiency Techniques",)
    assert t.site().name == "total"
    before = t.fingerprint()
    (d / "ref.c").write_text(SRC + "\n")
    assert load_task(d).fingerprint() != before


@pytest.mark.parametrize(("toml", "message"), [
    ('function = "total"\n', "missing key 'source'"),
    ('source = "nope.c"\nfunction = "total"\n', "nope.c, which does not exist"),
    ('source = "total.c"\nfunction = "other"\n', "no function named 'other'"),
    ('source = "total.c"\nfunction = "total"\ninput = "files"\n', "'input' must be one of"),
    ('source = "total.c"\nfunction = "total"\ninput = "spec"\n', "missing key 'spec'"),
    ('source = "total.c"\nfunction = "total"\ninput = "stdin"\n', "needs function = \"main\""),
    ('source = "total.c"\nfunction = "total"\nlabels = ["Loop Efficiency"]\n',
     "did you mean 'Loop Efficiency Techniques'"),
    ('source = "total.c"\nfunction = "total"\nlabels = ["Quantum Tricks"]\n',
     "unknown category 'Quantum Tricks'"),
    ('source = "total.c"\nfunction = "total"\nopenmp = "yes"\n', "'openmp' must be true"),
    ('source = "total.c"\nfunction = "total"\nsamples = 3\n', "unknown key(s) samples"),
    ('source = "../total.c"\nfunction = "total"\n', "inside the task directory"),
    ('source = "total.c"\nfunction = "total"\nreference = "ref.cpp"\n', "same language"),
    ('source = "total.c"\nfunction = [1]\n', "'function' must be a non-empty string"),
    ('source = "total.c"\nfunction = "total"\nthis is not toml\n', "cannot read"),
])
def test_invalid_tasks_say_what_is_wrong(tmp_path: Path, toml: str, message: str) -> None:
    (tmp_path / "total.c").write_text(SRC)
    d = make_task(tmp_path, toml, {"total.c": SRC, "ref.cpp": SRC})
    with pytest.raises(TaskError) as err:
        load_task(d)
    assert message in str(err.value)
    assert "task.toml" in str(err.value)


def test_answers_folder_is_kept_and_fingerprinted(tmp_path: Path) -> None:
    d = make_task(tmp_path, 'source = "total.c"\nfunction = "total"\nanswers = "answers"\n')
    (d / "answers").mkdir()
    (d / "answers" / "total.md").write_text("```c\n" + SRC + "```\n")
    t = load_task(d)
    assert t.answers == (d / "answers").resolve()
    assert t.answers / "total.md" in t.inputs()
    before = t.fingerprint()
    (d / "answers" / "total.repair1.md").write_text("You're right.\n")
    assert load_task(d).fingerprint() != before


@pytest.mark.parametrize(("answers", "message"), [
    ("missing", "names missing, which is not a folder"),
    ("total.c", "names total.c, which is not a folder"),
    ("..", "inside the task directory"),
])
def test_answers_must_be_a_folder_of_the_task(tmp_path: Path, answers: str,
                                              message: str) -> None:
    d = make_task(tmp_path, f'source = "total.c"\nfunction = "total"\nanswers = "{answers}"\n')
    with pytest.raises(TaskError, match=message):
        load_task(d)


def test_stdin_task_needs_input_files(tmp_path: Path) -> None:
    main = "int main(void) { return 0; }\n"
    toml = 'source = "prog.c"\nfunction = "main"\ninput = "stdin"\n'
    d = make_task(tmp_path, toml, {"prog.c": main})
    with pytest.raises(TaskError, match=r"prog\.in or prog\.\*\.in"):
        load_task(d)
    (d / "prog.in").write_text("1\n")
    assert load_task(d).input_mode == "stdin"
    assert d / "prog.in" in load_task(d).inputs()


def test_load_tasks_collects_every_error_and_filters(tmp_path: Path) -> None:
    make_task(tmp_path, 'source = "total.c"\nfunction = "total"\n', name="good")
    make_task(tmp_path, 'source = "x.c"\nfunction = "total"\n', name="bad1")
    make_task(tmp_path, 'function = "total"\n', name="bad2")
    with pytest.raises(TaskError) as err:
        load_tasks(tmp_path)
    assert "bad1" in str(err.value) and "bad2" in str(err.value)
    assert [t.name for t in load_tasks(tmp_path, ("good",))] == ["good"]
    with pytest.raises(TaskError, match="no task named missing"):
        load_tasks(tmp_path, ("missing",))
    # A single task directory is a task set of one.
    assert [t.name for t in load_tasks(tmp_path / "good")] == ["good"]
    (tmp_path / "empty").mkdir()
    with pytest.raises(TaskError, match="no task directories"):
        load_tasks(tmp_path / "empty")


def test_shipped_task_set_covers_the_categories() -> None:
    tasks = load_tasks(TASKS)
    assert len(tasks) >= 24
    labelled = {c for t in tasks for c in t.labels}
    assert labelled == {c.name for c in CATEGORIES}
    assert {t.language for t in tasks} == {"c", "cpp"}
    assert any(t.openmp for t in tasks) and any(not t.openmp for t in tasks)
    modes = {t.input_mode for t in tasks}
    assert modes == {"harness", "spec", "stdin"}
    assert all(t.reference is not None for t in tasks)
    for t in tasks:
        # The OpenMP tasks' references use OpenMP; the others do not need it.
        assert t.reference is not None
        uses_omp = "#pragma omp" in t.reference.read_text()
        assert uses_omp == t.openmp, t.name
        assert t.labels, t.name
