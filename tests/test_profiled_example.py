"""The bundled profile-guided example (examples/profiled), end to end with its real CMake build:
profile the program, find its hot functions with their shares and places, rewrite the hottest
with the builtin default, and confirm the rewrite in the whole program (built twice with the
project's own build, its tests run, paired whole runs). Structure only: no timing is asserted."""

from __future__ import annotations

import asyncio
import shutil
from pathlib import Path

import pytest

from perfpilot.cli import main
from perfpilot.confirm.program import ProgramCommands, confirm_in_program
from perfpilot.engine.hotspots import profile_workspace
from perfpilot.engine.workspace_config import workspace_config
from perfpilot.profiling import perf
from perfpilot.profiling.values import FunctionCost
from perfpilot.progress import JobContext

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "profiled"

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(shutil.which("cmake") is None, reason="cmake is not installed"),
    pytest.mark.skipif(shutil.which("g++") is None, reason="g++ is not installed"),
]


def _named(functions: list[FunctionCost], name: str) -> FunctionCost:
    found = [f for f in functions if f.name.split("(")[0] == name]
    assert found, [f.name for f in functions]
    return found[0]


def _line(source: str, needle: str) -> int:
    return next(i for i, line in enumerate(source.splitlines(), 1) if needle in line)


def test_profile_then_confirm_the_example_project(tmp_path: Path) -> None:
    if not asyncio.run(perf.perf_works()) and shutil.which("valgrind") is None:
        pytest.skip("neither perf nor valgrind works here")
    root = tmp_path / "profiled"
    shutil.copytree(EXAMPLE, root, ignore=shutil.ignore_patterns("build", ".perfpilot"))
    settings = workspace_config(root, trusted=False).settings.profile
    assert settings.build_command and settings.run_command and settings.test_command

    profile = asyncio.run(profile_workspace(settings, root, JobContext()))
    source = root / "src" / "stats.cpp"
    text = source.read_text(encoding="utf-8")
    own = [f for f in profile.functions
           if f.file and Path(f.file).resolve().is_relative_to(root.resolve())]
    moment = _named(own, "third_moment")
    pairs = _named(own, "count_equal_pairs")
    for hot, needle in ((moment, "double third_moment"), (pairs, "long count_equal_pairs")):
        assert 0 < hot.inclusive_share <= 1 and 0 <= hot.self_share <= hot.inclusive_share
        assert Path(hot.file).resolve() == source.resolve()
        # The debug information's lines: the function's code starts just below its signature.
        signature = _line(text, needle)
        assert signature <= hot.first_line <= signature + 3 < hot.last_line
    # The hottest of the project's functions (main is the whole program): its time is mostly
    # in libm's pow, which it calls, so it leads with its callees.
    hottest = max((f for f in own if f.name != "main"), key=lambda f: f.inclusive_share)
    assert hottest == moment

    # The builtin default rewrites it (written to the copy, then taken out as the candidate).
    # The runner is off in this trusted copy: the program's own A/B below is the measurement
    # under test, and --write would otherwise time the rewrite first.
    with (root / ".perfpilot.toml").open("a", encoding="utf-8") as config:
        config.write("\n[runner]\nenabled = false\n")
    assert main(["optimize", str(source), "--line", str(moment.first_line), "--write",
                 "--trust-workspace"]) == 0
    rewritten = source.read_text(encoding="utf-8")
    source.write_text(text, encoding="utf-8")
    assert rewritten != text and "std::pow(v[i] - centre, 3)" not in rewritten

    commands = ProgramCommands(build=settings.build_command, run=settings.run_command,
                               test=settings.test_command, cwd=settings.cwd)
    verdict = asyncio.run(confirm_in_program(root, source, text, rewritten, commands, pairs=2))
    # The project's tests passed with the rewrite, both builds ran, and the program was timed.
    assert verdict.verdict in ("faster", "slower", "no-change", "noisy"), verdict
    assert verdict.pairs == 2 and verdict.speedup is not None and verdict.ci95 is not None
    assert verdict.median_a_s > 0 and verdict.median_b_s > 0
    assert source.read_text(encoding="utf-8") == text  # the tree is never touched
