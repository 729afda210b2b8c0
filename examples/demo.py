"""Run PerfPilot's embedded default (builtin planner, rules rewriter, runner) on the examples.

For each bundled example this prints the strategy plan, the rewrite as a diff, and the measured
speedup with its 95% interval. Nothing is written back: the examples stay as they are.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
EXAMPLES = [
    ("strlen_loop.c", "count_upper"),
    ("column_scale.cpp", "scale_columns"),
    ("scale_copy.cpp", "scaled_energy"),
    ("sum_of_roots.cpp", "sum_of_roots"),
]


def main() -> int:
    """Optimize and measure each example with the CLI; return non-zero if one failed to run."""
    failures = 0
    for name, function in EXAMPLES:
        banner = f" {name}: {function} "
        print(f"\n{banner:=^78}\n", flush=True)
        proc = subprocess.run(
            [sys.executable, "-m", "perfpilot", "optimize", str(HERE / name),
             "--function", function, "--bench"],
            check=False)
        if proc.returncode != 0:
            failures += 1
    print("\nEvery figure above was measured just now on this machine: paired, alternating "
          "runs in one process, median of per-pair ratios with a bootstrap 95% interval.")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
