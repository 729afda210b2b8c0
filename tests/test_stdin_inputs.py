"""Whole-program stdin files: one discovery rule for the runner, the task loader and the
cache key, and no timing of programs that have nothing to read."""

from __future__ import annotations

from pathlib import Path

import pytest

from perfpilot.code.locate import function_by_name
from perfpilot.evaluation.tasks import TaskError, load_task
from perfpilot.progress import JobContext
from perfpilot.runner.measure import bench_files
from perfpilot.runner.measurement_inputs import resolve_inputs
from perfpilot.runner.stdin_inputs import find_inputs, no_input_reason
from perfpilot.settings import RunnerSettings

PROG = "#include <cstdio>\nint main() { int n = 0; std::scanf(\"%d\", &n); " \
       "std::printf(\"%d\\n\", n * 2); return 0; }\n"
TOML = 'source = "prog.cpp"\nfunction = "main"\ninput = "stdin"\n'


def _task(tmp_path: Path, inputs: dict[str, str]) -> Path:
    d = tmp_path / "t"
    d.mkdir()
    (d / "task.toml").write_text(TOML)
    (d / "prog.cpp").write_text(PROG)
    for name, text in inputs.items():
        (d / name).write_text(text)
    return d


def test_loader_refuses_inputs_the_runner_would_not_read(tmp_path: Path) -> None:
    d = _task(tmp_path, {"prog0.in": "3\n", "prog1.in": "4\n"})
    with pytest.raises(TaskError) as err:
        load_task(d)
    assert "prog0.in" in str(err.value) and "prog.0.in" in str(err.value)


def test_loader_and_runner_take_the_same_files(tmp_path: Path) -> None:
    d = _task(tmp_path, {"prog.0.in": "3\n", "prog.0.out": "6\n", "prog.in": "5\n"})
    (d / ".perfpilot" / "prog").mkdir(parents=True)
    (d / ".perfpilot" / "prog" / "big.in").write_text("7\n")
    task = load_task(d)
    runner = [p for pair in find_inputs(task.source) for p in pair if p is not None]
    assert sorted(p for p in task.inputs() if p.suffix in (".in", ".out")) == sorted(runner)
    assert d / ".perfpilot" / "prog" / "big.in" in runner
    site = task.site()
    inputs = resolve_inputs(RunnerSettings(), site, task.source)
    assert (d / ".perfpilot" / "prog" / "big.in").resolve() in inputs.paths
    assert sorted(p for pair in inputs.stdin for p in pair if p is not None) == sorted(runner)


def test_loader_refuses_only_empty_inputs(tmp_path: Path) -> None:
    d = _task(tmp_path, {"prog.in": ""})
    with pytest.raises(TaskError, match="empty"):
        load_task(d)


@pytest.mark.parametrize("inputs", [{}, {"prog.in": ""}, {"prog0.in": "3\n"}])
async def test_program_without_usable_input_is_not_timed(tmp_path: Path,
                                                         inputs: dict[str, str]) -> None:
    src = tmp_path / "prog.cpp"
    src.write_text(PROG)
    for name, text in inputs.items():
        (tmp_path / name).write_text(text)
    cand = tmp_path / "cand.cpp"
    cand.write_text(PROG.replace("n * 2", "n + n"))
    stages: list[str] = []
    v = await bench_files(src, "main", cand, RunnerSettings(callgrind=False),
                          JobContext(on_report=lambda s, m, p: stages.append(s)))
    assert v.verdict == "no-input", v.message
    assert v.speedup is None and "timing" not in stages
    assert no_input_reason(src) in v.message


def test_a_file_with_content_is_an_input(tmp_path: Path) -> None:
    src = tmp_path / "prog.cpp"
    src.write_text(PROG)
    (tmp_path / "prog.in").write_text("\n")
    assert no_input_reason(src) == ""
    assert function_by_name(PROG, "cpp", "main").name == "main"
