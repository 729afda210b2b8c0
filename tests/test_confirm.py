"""Confirm in program, with a real build, a real test command and real paired runs."""

from __future__ import annotations

import asyncio
import json
import shutil
import subprocess
from pathlib import Path

import pytest

from perfpilot.cli import main
from perfpilot.confirm.program import ProgramCommands, confirm_in_program
from test_profiling import PROGRAM

pytestmark = pytest.mark.skipif(shutil.which("gcc") is None, reason="gcc is not installed")

# The rewrite does a quarter of the inner loop's work (and so prints another number).
REWRITE = PROGRAM.replace("j < 2000", "j < 500")
CHECK = """\
#!/bin/sh
# A project test: the program's output for a small input must not change.
out=$(./prog 7)
if [ "$out" != "$(cat expected.txt)" ]; then
    echo "FAIL test_small_input: got $out"
    exit 1
fi
echo "ok test_small_input"
"""


def _project(tmp: Path) -> Path:
    root = tmp / "ws"
    root.mkdir()
    (root / ".git").mkdir()  # never copied into the build copies
    (root / "prog.c").write_text(PROGRAM, encoding="utf-8")
    (root / "check.sh").write_text(CHECK, encoding="utf-8")
    subprocess.run(["gcc", "-O1", "prog.c", "-o", "prog"], cwd=root, check=True)
    expected = subprocess.run(["./prog", "7"], cwd=root, check=True, capture_output=True,
                              text=True).stdout
    (root / "expected.txt").write_text(expected, encoding="utf-8")
    (root / "prog").unlink()
    return root


COMMANDS = ProgramCommands(build="gcc -O1 prog.c -o prog", run="./prog 4000")


def test_whole_program_ab_gives_an_interval(tmp_path: Path) -> None:
    root = _project(tmp_path)
    v = asyncio.run(confirm_in_program(root, root / "prog.c", PROGRAM, REWRITE, COMMANDS,
                                       pairs=4))
    assert v.verdict in ("faster", "slower", "no-change", "noisy"), v
    assert v.pairs == 4 and v.speedup is not None and v.ci95 is not None
    assert v.ci95[0] <= v.speedup <= v.ci95[1]
    assert v.median_a_s > 0 and v.median_b_s > 0
    assert "whole program" in v.message
    # The user's tree is untouched: no build output, no rewrite.
    assert not (root / "prog").exists()
    assert (root / "prog.c").read_text(encoding="utf-8") == PROGRAM


def test_a_failing_test_names_the_test(tmp_path: Path) -> None:
    root = _project(tmp_path)
    commands = ProgramCommands(build=COMMANDS.build, run=COMMANDS.run, test="sh check.sh")
    v = asyncio.run(confirm_in_program(root, root / "prog.c", PROGRAM, REWRITE, commands,
                                       pairs=3))
    assert v.verdict == "test-failed"
    assert "test_small_input" in v.failed_test
    assert "fails on the original too" not in v.message
    # The same command passes with the original: then the timing runs.
    same = asyncio.run(confirm_in_program(root, root / "prog.c", PROGRAM, PROGRAM, commands,
                                          pairs=3))
    assert same.verdict != "test-failed" and same.speedup is not None


def test_a_rewrite_that_does_not_build(tmp_path: Path) -> None:
    root = _project(tmp_path)
    broken = PROGRAM.replace("return s;", "return s", 1)
    v = asyncio.run(confirm_in_program(root, root / "prog.c", PROGRAM, broken, COMMANDS,
                                       pairs=3))
    assert v.verdict == "build-failed"
    assert "the rewrite" in v.message and "error" in v.message


def test_cli_confirm(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = _project(tmp_path)
    (root / ".perfpilot.toml").write_text(
        '[profile]\nbuild_command = "gcc -O1 prog.c -o prog"\nrun_command = "./prog 3000"\n'
        'test_command = "./prog 3 > /dev/null"\n', encoding="utf-8")
    cand = tmp_path / "rewrite.c"
    cand.write_text(REWRITE, encoding="utf-8")
    rc = main(["confirm", str(root / "prog.c"), "--candidate", str(cand), "--pairs", "3",
               "--json"])
    data = json.loads(capsys.readouterr().out)
    assert rc == 0
    assert data["pairs"] == 3 and data["speedup"] is not None


def test_a_slowdown_is_reported_only_after_a_second_run_shows_it(tmp_path: Path) -> None:
    root = _project(tmp_path)
    slower = PROGRAM.replace("j < 2000", "j < 8000")  # four times the inner loop's work
    v = asyncio.run(confirm_in_program(root, root / "prog.c", PROGRAM, slower, COMMANDS,
                                       pairs=4))
    assert v.verdict in ("slower", "noisy"), v  # a loaded machine may hide it, never invert it
    if v.verdict == "slower":
        assert "slowdown confirmed by a second run" in v.message
        assert v.speedup is not None and v.speedup < 1
