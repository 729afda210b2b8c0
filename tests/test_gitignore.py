"""``.perfpilot/.gitignore`` hides PerfPilot's caches, never the specs users commit."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from perfpilot.engine.disk_cache import DiskCache, private_folder
from perfpilot.strategy.values import Plan

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="needs git")


def _untracked(repo: Path) -> set[str]:
    out = subprocess.run(["git", "status", "--porcelain", "--untracked-files=all"], cwd=repo,
                         check=True, capture_output=True, text=True).stdout
    return {line[3:] for line in out.splitlines()}


def _repo(tmp_path: Path) -> Path:
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    folder = tmp_path / ".perfpilot"
    (folder / "prog").mkdir(parents=True)
    (folder / "scale.bench.cpp").write_text("// spec\n")
    (folder / "prog" / "big.in").write_text("3\n")
    return tmp_path


def test_caches_are_ignored_and_specs_are_not(tmp_path: Path) -> None:
    repo = _repo(tmp_path)
    cache = DiskCache(repo)
    cache.plans.put("k", {"x": 1})
    cache.verdicts.put("k", {"x": 1})
    (private_folder(repo, "reports") / "r.md").write_text("report\n")
    seen = _untracked(repo)
    assert ".perfpilot/scale.bench.cpp" in seen and ".perfpilot/prog/big.in" in seen
    # The ignore file lists itself: caches alone never make .perfpilot/ untracked.
    assert ".perfpilot/.gitignore" not in seen
    assert not any(p.startswith((".perfpilot/plans", ".perfpilot/results", ".perfpilot/reports"))
                   for p in seen), seen
    assert DiskCache(repo).plans.get("k") == {"x": 1}
    # Lines a user added stay.
    ignore = repo / ".perfpilot" / ".gitignore"
    ignore.write_text(ignore.read_text() + "/scratch/\n")
    private_folder(repo, "candidates")
    assert "/scratch/" in ignore.read_text() and "/candidates/" in ignore.read_text()


def test_the_old_ignore_everything_file_is_replaced(tmp_path: Path) -> None:
    repo = _repo(tmp_path)
    (repo / ".perfpilot" / ".gitignore").write_text("# PerfPilot's local results and reports\n*\n")
    DiskCache(repo).put_plan("k", Plan((), "builtin"))
    seen = _untracked(repo)
    assert ".perfpilot/scale.bench.cpp" in seen
    assert not any(p.startswith(".perfpilot/plans") for p in seen)


def test_a_folder_of_caches_alone_leaves_the_repository_clean(tmp_path: Path) -> None:
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    cache = DiskCache(tmp_path)
    cache.verdicts.put("k", {"x": 1})
    (private_folder(tmp_path, "applied") / "a.json").write_text("{}\n")
    assert _untracked(tmp_path) == set()
    # An ignore file written before it listed itself gets the line.
    ignore = tmp_path / ".perfpilot" / ".gitignore"
    ignore.write_text("/results/\n/applied/\n")
    private_folder(tmp_path, "plans")
    assert "/.gitignore" in ignore.read_text().splitlines()
    assert _untracked(tmp_path) == set()
