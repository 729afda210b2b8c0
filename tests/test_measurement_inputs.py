"""MeasurementInputs: resolved once by the engine, keys its cache, reaches the runner as built."""

from __future__ import annotations

import subprocess
import sys
from dataclasses import fields, replace
from pathlib import Path
from typing import Any

import pytest

import perfpilot.runner.measure as runner_measure
import perfpilot.runner.program as runner_program
from perfpilot.code.locate import function_by_name
from perfpilot.engine.engine import Engine
from perfpilot.engine.keys import content_key
from perfpilot.progress import JobContext
from perfpilot.runner.compdb import CompileFlags
from perfpilot.runner.job import Job
from perfpilot.runner.measurement_inputs import MeasurementInputs, resolve_inputs
from perfpilot.runner.spec import Spec
from perfpilot.runner.values import Verdict
from perfpilot.settings import RunnerSettings, Settings

UNIT = ("#include <vector>\n\nlong total(std::vector<long> v) {\n  long s = 0;\n"
        "  for (std::size_t i = 0; i < v.size(); ++i) s += v[i];\n  return s;\n}\n")
PROGRAM = ("#include <cstdio>\nint main() {\n  long n = 0;\n  std::scanf(\"%ld\", &n);\n"
           "  std::printf(\"%ld\\n\", n * 2);\n  return 0;\n}\n")


def _inputs(tmp_path: Path) -> MeasurementInputs:
    src = tmp_path / "unit.cpp"
    src.write_text(UNIT)
    site = function_by_name(UNIT, "cpp", "total", uri=src.as_uri())
    return resolve_inputs(RunnerSettings(callgrind=False), site, src, tmp_path)


def _key(inputs: MeasurementInputs) -> str:
    return content_key(inputs.key_material())


# One other value for each field: every field must change the key.
OTHER: dict[str, Any] = {
    "settings": lambda i: replace(i.settings, pairs=i.settings.pairs + 1),
    "tuning": lambda i: replace(i.tuning, memory_mb=i.tuning.memory_mb + 1),
    "language": lambda i: "c",
    "mode": lambda i: "program",
    "threads": lambda i: i.threads + 1,
    "flags": lambda i: (*i.flags, "-O3"),
    "flags_source": lambda i: "settings",
    "compdb": lambda i: CompileFlags(("-DX=1",), "/db/compile_commands.json", "/db"),
    "source_path": lambda i: Path("/elsewhere/unit.cpp"),
    "spec": lambda i: Spec(Path("/s/total.bench.cpp"), "int bench;", None),
    "stdin": lambda i: ((Path("/p/prog.in"), None),),
    "no_input": lambda i: "no stdin file",
    "files": lambda i: (("/w/compile_commands.json", "0" * 64),),
}


def test_every_field_changes_the_key_and_equal_inputs_share_one(tmp_path: Path) -> None:
    base = _inputs(tmp_path)
    assert _key(_inputs(tmp_path)) == _key(base)
    assert {f.name for f in fields(MeasurementInputs)} == set(OTHER)  # a new field needs a row
    keys = {_key(base)}
    for name, other in OTHER.items():
        changed = replace(base, **{name: other(base)})
        assert _key(changed) not in keys, name
        keys.add(_key(changed))
    spec = Spec(Path("/s/total.bench.cpp"), "int bench;", None)
    assert _key(replace(base, spec=spec)) != _key(replace(base, spec=replace(
        spec, bench_text="int bench2;")))  # a spec keys by its text, not only its path


def test_file_contents_change_the_key(tmp_path: Path) -> None:
    base = _inputs(tmp_path)
    db = tmp_path / "compile_commands.json"
    db.write_text("[]")
    with_db = _inputs(tmp_path)
    assert db.resolve() in with_db.paths and _key(with_db) != _key(base)
    db.write_text("[ ]")
    assert _key(_inputs(tmp_path)) != _key(with_db)


def test_the_key_is_the_same_in_another_process(tmp_path: Path) -> None:
    here = _key(_inputs(tmp_path))
    code = ("import sys; from pathlib import Path; sys.path[:0] = [sys.argv[1]]; "
            "import test_measurement_inputs as t; print(t._key(t._inputs(Path(sys.argv[2]))))")
    out = subprocess.run([sys.executable, "-c", code, str(Path(__file__).parent), str(tmp_path)],
                         capture_output=True, text=True, check=True)
    assert out.stdout.strip() == here


async def test_the_runner_receives_the_inputs_the_engine_built(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    built: list[MeasurementInputs] = []
    received: list[MeasurementInputs] = []
    real = Engine.measurement_inputs

    def counting(self: Engine, *args: Any, **kwargs: Any) -> MeasurementInputs:
        built.append(real(self, *args, **kwargs))
        return built[-1]

    async def runner(_site: Any, _code: str, inputs: MeasurementInputs, *_a: Any,
                     **_k: Any) -> Verdict:
        received.append(inputs)
        return Verdict("slower", "m", speedup=0.8, ci95=(0.7, 0.9), validation_status="passed")

    monkeypatch.setattr(Engine, "measurement_inputs", counting)
    monkeypatch.setattr(runner_measure, "measure_candidate", runner)
    src = tmp_path / "unit.cpp"
    src.write_text(UNIT)
    site = function_by_name(UNIT, "cpp", "total", uri=src.as_uri())
    engine = Engine(Settings(runner=RunnerSettings(callgrind=False)), workspace=tmp_path)
    outcome = await engine.optimize(site, JobContext(), source_path=src)
    assert outcome.trials and len(received) > 1
    assert len(built) == 1  # once per job, not once per candidate
    # A full measurement gets the very value; a race's round the same at fewer pairs.
    assert any(r is built[0] for r in received)
    assert all(r is built[0] or r == built[0].with_pairs(r.settings.pairs) for r in received)
    assert built[0].source_path == src and built[0].mode == "function"


async def test_the_job_record_carries_the_inputs(tmp_path: Path,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    jobs: list[Job] = []

    async def stages(job: Job, *_args: Any) -> Verdict:
        jobs.append(job)
        return Verdict("no-change", "stand-in")

    monkeypatch.setattr(runner_measure, "_run", stages)
    monkeypatch.setattr(runner_program, "measure_program", stages)
    inputs = _inputs(tmp_path)
    site = function_by_name(UNIT, "cpp", "total")
    verdict = await runner_measure.measure_candidate(site, site.text, inputs, JobContext(),
                                                     origin="user")
    assert verdict.message == "stand-in" and jobs[-1].inputs is inputs
    assert jobs[-1].settings is inputs.settings and jobs[-1].mode == "harness"

    # A whole program goes through the same job, in program mode, with the stdin files found.
    src = tmp_path / "prog.cpp"
    src.write_text(PROGRAM)
    (tmp_path / "prog.in").write_text("21\n")
    prog = function_by_name(PROGRAM, "cpp", "main", uri=src.as_uri())
    program = resolve_inputs(RunnerSettings(callgrind=False), prog, src, tmp_path)
    assert program.mode == "program" and program.stdin == ((tmp_path.resolve() / "prog.in", None),)
    verdict = await runner_measure.measure_candidate(prog, prog.text, program, JobContext(),
                                                     origin="user")
    assert verdict.message == "stand-in" and jobs[-1].inputs is program
    assert jobs[-1].mode == "stdin" and jobs[-1].units == (PROGRAM, jobs[-1].units[1])


async def test_a_program_without_stdin_files_is_not_timed(tmp_path: Path) -> None:
    src = tmp_path / "prog.cpp"
    src.write_text(PROGRAM)
    prog = function_by_name(PROGRAM, "cpp", "main", uri=src.as_uri())
    inputs = resolve_inputs(RunnerSettings(callgrind=False), prog, src, tmp_path)
    assert inputs.no_input and "prog.in" in inputs.no_input
    verdict = await runner_measure.measure_candidate(prog, prog.text, inputs, JobContext(),
                                                     origin="user")
    assert verdict.verdict == "no-input" and verdict.input_mode == "stdin"
