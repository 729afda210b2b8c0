"""``optimize --write`` as a compare-and-swap: never over an edit, a re-pointed symlink or a
read-only file (root included)."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from perfpilot import cli, exit_codes
from perfpilot.engine.engine import Engine
from perfpilot.engine.file_write import WriteRefused, replace_if_unchanged, snapshot

SCALE = """\
#include <cmath>
#include <vector>

std::vector<double> energy(std::vector<double> samples, double gain)
{
    std::vector<double> out;
    for (std::size_t i = 0; i < samples.size(); ++i)
        out.push_back(std::pow(samples[i] * gain, 2));
    return out;
}
"""


def test_unchanged_file_is_replaced_keeping_mode_and_symlink(tmp_path: Path) -> None:
    target = tmp_path / "real.cpp"
    target.write_text("old\n")
    target.chmod(0o640)
    link = tmp_path / "link.cpp"
    link.symlink_to(target)
    snap = snapshot(link)
    assert replace_if_unchanged(snap, "new\n") == target.resolve()
    assert target.read_text() == "new\n" and link.is_symlink()
    assert stat.S_IMODE(target.stat().st_mode) == 0o640
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []


def test_file_edited_during_the_run_is_not_overwritten(tmp_path: Path) -> None:
    path = tmp_path / "a.cpp"
    path.write_text("old\n")
    snap = snapshot(path)
    path.write_text("the user's edit\n")
    with pytest.raises(WriteRefused, match="changed on disk"):
        replace_if_unchanged(snap, "new\n")
    assert path.read_text() == "the user's edit\n"


def test_repointed_symlink_is_not_followed(tmp_path: Path) -> None:
    (tmp_path / "one.cpp").write_text("same\n")
    (tmp_path / "two.cpp").write_text("same\n")
    link = tmp_path / "link.cpp"
    link.symlink_to(tmp_path / "one.cpp")
    snap = snapshot(link)
    link.unlink()
    link.symlink_to(tmp_path / "two.cpp")  # same bytes, another file
    with pytest.raises(WriteRefused, match="now points to"):
        replace_if_unchanged(snap, "new\n")
    assert (tmp_path / "two.cpp").read_text() == "same\n"
    assert (tmp_path / "one.cpp").read_text() == "same\n"


def test_read_only_file_is_refused_by_its_mode_bits(tmp_path: Path) -> None:
    path = tmp_path / "a.cpp"
    path.write_text("old\n")
    path.chmod(0o444)  # root could still write it: the mode bits decide
    snap = snapshot(path)
    with pytest.raises(WriteRefused, match="read-only"):
        replace_if_unchanged(snap, "new\n")
    assert path.read_text() == "old\n"


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "perfpilot", *args], capture_output=True,
                          text=True, timeout=300, check=False)


def runner_off(folder: Path) -> None:
    """The write is under test, not the measurement: the runner is off in this (trusted)
    workspace, so --write writes the unmeasured rewrite and reaches the compare-and-swap."""
    (folder / ".perfpilot.toml").write_text("[runner]\nenabled = false\n")


def test_cli_refuses_to_write_a_read_only_file(tmp_path: Path) -> None:
    path = tmp_path / "energy.cpp"
    path.write_text(SCALE)
    path.chmod(0o444)
    runner_off(tmp_path)
    proc = run("optimize", str(path), "--function", "energy", "--write", "--trust-workspace")
    assert proc.returncode == exit_codes.WRITE_REFUSED
    assert "read-only" in proc.stderr
    assert path.read_text() == SCALE


def test_cli_refuses_when_the_file_is_saved_during_the_run(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "energy.cpp"
    path.write_text(SCALE)
    edited = SCALE.replace("gain, 2", "gain, 3")
    real = Engine.optimize

    async def optimize_then_user_saves(self: Engine, *args: Any, **kwargs: Any) -> Any:
        outcome = await real(self, *args, **kwargs)
        path.write_text(edited)  # the user saves while the run finishes
        return outcome

    monkeypatch.setattr(Engine, "optimize", optimize_then_user_saves)
    runner_off(tmp_path)
    status = cli.main(["optimize", str(path), "--function", "energy", "--write",
                       "--trust-workspace"])
    assert status == exit_codes.WRITE_REFUSED
    assert "changed on disk" in capsys.readouterr().err
    assert path.read_text() == edited


def test_cli_refuses_when_the_symlink_is_repointed_during_the_run(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    one, two = tmp_path / "one.cpp", tmp_path / "two.cpp"
    one.write_text(SCALE)
    two.write_text(SCALE)
    link = tmp_path / "energy.cpp"
    link.symlink_to(one)
    real = Engine.optimize

    async def optimize_then_repoint(self: Engine, *args: Any, **kwargs: Any) -> Any:
        outcome = await real(self, *args, **kwargs)
        link.unlink()
        link.symlink_to(two)
        return outcome

    monkeypatch.setattr(Engine, "optimize", optimize_then_repoint)
    runner_off(tmp_path)
    assert cli.main(["optimize", str(link), "--function", "energy", "--write",
                     "--trust-workspace"]) == exit_codes.WRITE_REFUSED
    assert one.read_text() == SCALE and two.read_text() == SCALE
    assert os.readlink(link) == str(two)

