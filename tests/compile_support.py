"""Building and running a small C++ program that compares an original with its rewrite."""

from __future__ import annotations

import subprocess
from pathlib import Path


def assert_no_difference(tmp_path: Path, program: str) -> None:
    """Build ``program`` with every warning of ``-Wall -Wextra -Wshadow`` an error and run it:
    it prints how many inputs gave the original and the rewrite different results, which must
    be none."""
    source = tmp_path / "compare.cpp"
    source.write_text(program)
    subprocess.run(["g++", "-std=c++17", "-Wall", "-Wextra", "-Wshadow", "-Werror", "-o",
                    str(tmp_path / "compare"), str(source)], check=True)
    done = subprocess.run([str(tmp_path / "compare")], capture_output=True, text=True,
                          check=False)
    assert done.returncode == 0 and done.stdout.strip() == "0", done.stdout
