"""Time to a verdict for originals that are slow at the validation sizes.

Each original (an exponential Fibonacci, LCS and edit distance, a quartic smallest-circle
search, a cubic triple count) goes through ``perfpilot optimize --bench --json`` as a user
would run it, in a fresh folder with an empty cache (builds and the study of the original are
not reused), and the wall time, the verdict and what the runner said about the sizes are
printed as a Markdown table.

    .venv/bin/python bench/slow_originals.py [--only fib,lcs] [--job-budget 120]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

ORIGINALS: dict[str, str] = {
    "fib": """\
long long fib(int n) {
    if (n < 2) return n;
    return fib(n - 1) + fib(n - 2);
}
""",
    "lcs": """\
#include <string>
#include <algorithm>
static int lcs_from(const std::string& a, const std::string& b, std::size_t i, std::size_t j) {
    if (i == a.size() || j == b.size()) return 0;
    if (a[i] == b[j]) return 1 + lcs_from(a, b, i + 1, j + 1);
    return std::max(lcs_from(a, b, i + 1, j), lcs_from(a, b, i, j + 1));
}
int lcs(const std::string& a, const std::string& b) { return lcs_from(a, b, 0, 0); }
""",
    "edit_distance": """\
#include <string>
#include <algorithm>
int edit_distance(const std::string& a, const std::string& b, int m, int n) {
    if (m == 0) return n;
    if (n == 0) return m;
    if (a[m - 1] == b[n - 1]) return edit_distance(a, b, m - 1, n - 1);
    return 1 + std::min({edit_distance(a, b, m, n - 1), edit_distance(a, b, m - 1, n),
                         edit_distance(a, b, m - 1, n - 1)});
}
""",
    "smallest_circle": """\
#include <vector>
#include <cmath>
// The smallest circle through two or three of the points that holds every point: O(n^4).
double smallest_circle(const std::vector<double>& xs, const std::vector<double>& ys) {
    std::size_t n = xs.size() < ys.size() ? xs.size() : ys.size();
    double best = 1e300;
    for (std::size_t i = 0; i < n; ++i)
        for (std::size_t j = i + 1; j < n; ++j) {
            double cx = (xs[i] + xs[j]) / 2, cy = (ys[i] + ys[j]) / 2;
            double r = std::hypot(xs[i] - cx, ys[i] - cy);
            if (r >= best) continue;
            bool all = true;
            for (std::size_t k = 0; k < n && all; ++k)
                if (std::hypot(xs[k] - cx, ys[k] - cy) > r + 1e-9) all = false;
            if (all) best = r;
            for (std::size_t k = j + 1; k < n; ++k) {
                double ax = xs[i], ay = ys[i], bx = xs[j], by = ys[j], qx = xs[k], qy = ys[k];
                double d = 2 * (ax * (by - qy) + bx * (qy - ay) + qx * (ay - by));
                if (std::fabs(d) < 1e-12) continue;
                double ux = ((ax * ax + ay * ay) * (by - qy) + (bx * bx + by * by) * (qy - ay)
                             + (qx * qx + qy * qy) * (ay - by)) / d;
                double uy = ((ax * ax + ay * ay) * (qx - bx) + (bx * bx + by * by) * (ax - qx)
                             + (qx * qx + qy * qy) * (bx - ax)) / d;
                double rr = std::hypot(ax - ux, ay - uy);
                if (rr >= best) continue;
                bool ok = true;
                for (std::size_t t = 0; t < n && ok; ++t)
                    if (std::hypot(xs[t] - ux, ys[t] - uy) > rr + 1e-9) ok = false;
                if (ok) best = rr;
            }
        }
    return best;
}
""",
    "zero_triples": """\
#include <vector>
// Triples i < j < k whose values sum to zero: O(n^3).
long zero_triples(const std::vector<int>& v) {
    long c = 0;
    for (std::size_t i = 0; i < v.size(); ++i)
        for (std::size_t j = i + 1; j < v.size(); ++j)
            for (std::size_t k = j + 1; k < v.size(); ++k)
                if (v[i] + v[j] + v[k] == 0) ++c;
    return c;
}
""",
}


@dataclass(frozen=True)
class Row:
    """One original's run: seconds to the verdicts, and what the runner said of the sizes."""

    name: str
    seconds: float
    verdicts: tuple[str, ...]
    said: str


def run_one(name: str, source: str, budget: float | None) -> Row:
    """One ``optimize --bench`` in a fresh folder and cache: seconds, verdicts, notes."""
    with tempfile.TemporaryDirectory(prefix="perfpilot-slow-") as tmp:
        folder = Path(tmp)
        path = folder / f"{name}.cpp"
        path.write_text(source, encoding="utf-8")
        argv = [sys.executable, "-m", "perfpilot", "optimize", str(path), "--function", name,
                "--bench", "--json"]
        if budget is not None:
            argv += ["--job-budget", f"{budget:g}"]
        env = {**os.environ, "XDG_CACHE_HOME": str(folder / "cache")}
        start = time.monotonic()
        proc = subprocess.run(argv, capture_output=True, text=True, env=env, check=False,
                              timeout=3600)
        seconds = time.monotonic() - start
    if proc.returncode != 0:
        return Row(name, seconds, ("error",), proc.stderr.strip()[-200:])
    data = json.loads(proc.stdout)
    measured = [c["measurement"] for c in data["candidates"] if c.get("measurement")]
    said = next((n for m in measured for n in m.get("notes", ())
                 if "validated at n" in n or "timed at sizes up to" in n), "")
    if not said and measured:
        said = str(measured[0].get("message", ""))[:160]
    return Row(name, seconds, tuple(str(m["verdict"]) for m in measured), said)


def main() -> None:
    """Time every original (or those named) and print the table."""
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--only", default="", help="comma-separated names to run")
    parser.add_argument("--job-budget", type=float, default=None)
    args = parser.parse_args()
    names = [n for n in args.only.split(",") if n] or list(ORIGINALS)
    print("| original | seconds to a verdict | verdicts | what the runner said |")
    print("|---|---|---|---|")
    for name in names:
        row = run_one(name, ORIGINALS[name], args.job_budget)
        said = row.said.replace("|", "\\|")
        print(f"| `{name}` | {row.seconds:.0f} | {', '.join(row.verdicts)} | {said} |",
              flush=True)


if __name__ == "__main__":
    main()
