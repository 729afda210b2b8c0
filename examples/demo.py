"""Run PerfPilot's embedded default (builtin planner, rules rewriter, runner) on the examples.

For each bundled example this prints the strategy plan, the rewrite as a diff, and the measured
speedup with its 95% interval. Then, on the CMake project in ``examples/profiled``: profile the
whole program, take its hottest function, rewrite it, and confirm the rewrite in the program
(both versions built with the project's build, its tests run, the program timed A/B). Nothing is
written back: the examples stay as they are (the project is worked on in a temporary copy).
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
EXAMPLES = [
    ("strlen_loop.c", "count_upper"),
    ("column_scale.cpp", "scale_columns"),
    ("scale_copy.cpp", "scaled_energy"),
    ("sum_of_roots.cpp", "sum_of_roots"),
]
PROJECT = HERE / "profiled"
CONFIRM_PAIRS = 5  # whole-program pairs: enough for an interval, short on two cores


def _perfpilot(*args: str, cwd: Path | None = None) -> int:
    return subprocess.run([sys.executable, "-m", "perfpilot", *args], cwd=cwd,
                          check=False).returncode


def _banner(text: str) -> None:
    print(f"\n{f' {text} ':=^78}\n", flush=True)


def _hottest(profile: dict[str, Any], root: Path) -> dict[str, Any] | None:
    """The project's function with the largest share of the run, its callees included (time in
    a library routine it calls, such as libm's ``pow``, is spent on its behalf). ``main`` is
    the whole program, not a place to optimize."""
    own = [f for f in profile["functions"]
           if f["file"] and Path(f["file"]).resolve().is_relative_to(root)
           and f["name"] != "main"]
    return max(own, key=lambda f: f["inclusive_share"], default=None)


def profiled_project() -> int:
    """Profile, optimize the hottest function, confirm in the program; 0 when all ran."""
    _banner("profiled/: profile the program, optimize where the time goes")
    if shutil.which("cmake") is None:
        print("cmake is not installed: skipping the profiled project")
        return 0
    with tempfile.TemporaryDirectory(prefix="perfpilot-demo-") as tmp:
        root = Path(tmp) / "profiled"
        shutil.copytree(PROJECT, root, ignore=shutil.ignore_patterns("build", ".perfpilot"))
        saved = Path(tmp) / "profile.json"
        # The build, run and test commands are the project's .perfpilot.toml [profile].
        if _perfpilot("profile", "--top", "6", "--output", str(saved), cwd=root) != 0:
            return 1
        hot = _hottest(json.loads(saved.read_text(encoding="utf-8")), root.resolve())
        if hot is None:
            print("no function of the project was sampled")
            return 1
        source = Path(hot["file"])
        name = hot["name"].split("(")[0]
        print(f"\nhottest function: {name} ({hot['self_share']:.0%} of the run in its own "
              f"code, {hot['inclusive_share']:.0%} with what it calls)", flush=True)
        _banner(f"profiled/: optimize {name}")
        original = source.read_text(encoding="utf-8")
        code = _perfpilot("optimize", str(source), "--line", str(hot["first_line"]),
                          "--bench", "--write", cwd=root)
        rewritten = source.read_text(encoding="utf-8")
        source.write_text(original, encoding="utf-8")
        if code != 0 or rewritten == original:
            print("no rewrite was chosen: nothing to confirm")
            return code
        candidate = Path(tmp) / f"rewrite{source.suffix}"
        candidate.write_text(rewritten, encoding="utf-8")
        _banner(f"profiled/: confirm {name} in the whole program")
        print(f"build both versions, run the project's tests, time {CONFIRM_PAIRS} pairs of "
              "whole runs:", flush=True)
        return _perfpilot("confirm", str(source), "--candidate", str(candidate),
                          "--pairs", str(CONFIRM_PAIRS), cwd=root)


def main() -> int:
    """Optimize and measure each example with the CLI; return non-zero if one failed to run."""
    failures = 0
    for name, function in EXAMPLES:
        _banner(f"{name}: {function}")
        if _perfpilot("optimize", str(HERE / name), "--function", function, "--bench") != 0:
            failures += 1
    if profiled_project() != 0:
        failures += 1
    print("\nEvery figure above was measured just now on this machine: paired, alternating "
          "runs (in one process for a function, whole processes for the program), median of "
          "per-pair ratios with a bootstrap 95% interval.")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
