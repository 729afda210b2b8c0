"""The ``perfpilot`` command line, run as a real subprocess."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"

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


def run(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "perfpilot", *args], capture_output=True,
                          text=True, timeout=300, cwd=cwd, check=False)


@pytest.fixture()
def source(tmp_path: Path) -> Path:
    path = tmp_path / "energy.cpp"
    path.write_text(SCALE)
    return path


def test_plan_json_has_the_documented_keys(source: Path) -> None:
    proc = run("plan", str(source), "--function", "energy", "--json")
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    assert data["function"] == "energy"
    assert data["range"] == {"start_line": 4, "end_line": 10}
    assert data["backend"] == "builtin"
    cats = {s["category"] for s in data["strategies"]}
    assert {"Memory Usage and Allocation", "Numerical Computation Optimization"} <= cats
    for s in data["strategies"]:
        assert set(s) >= {"category", "category_id", "explanation", "lines"}
        assert 1 <= s["category_id"] <= 15 and s["lines"]


def test_plan_by_line_prints_a_readable_plan(source: Path) -> None:
    proc = run("plan", str(source), "--line", "7")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("Plan for energy (lines 4-10), builtin planner:")
    assert "`samples`" in proc.stdout


def test_optimize_json_and_write(source: Path) -> None:
    before = source.read_text()
    proc = run("optimize", str(source), "--function", "energy", "--json")
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    assert data["candidates"], data
    cand = data["candidates"][0]
    assert set(cand) >= {"code", "strategies", "backend", "diff"}
    assert cand["diff"].startswith("--- a/energy.cpp\n+++ b/energy.cpp\n")
    # A counted append into an empty vector of numbers: sized once, filled by index.
    assert "resize(" in cand["code"] and "push_back" not in cand["code"], cand["code"]
    assert source.read_text() == before  # without --write nothing changes
    # --write measures first; with the runner turned off (the user's own choice, here from a
    # trusted workspace file) the rewrite is written unmeasured, and the user is told so.
    (source.parent / ".perfpilot.toml").write_text("[runner]\nenabled = false\n")
    proc = run("optimize", str(source), "--function", "energy", "--write", "--trust-workspace")
    assert proc.returncode == 0, proc.stderr
    assert "written without being measured" in proc.stderr
    assert "resize(" in source.read_text()


@pytest.mark.parametrize(("args", "message"), [
    (["plan", "missing.cpp", "--function", "f"], "missing.cpp: no such file"),
    (["plan", "{src}", "--function", "nope"], "no function named 'nope'"),
    (["plan", "{src}", "--line", "1"], "no function definition at line 1"),
    (["plan", "{latin1}", "--line", "2"], "not valid UTF-8 (byte 0xe9 at offset 6)"),
    (["plan", "{empty}", "--line", "1"], "the file is empty"),
    (["plan", "{broken}", "--line", "2"], "syntax error near line 3"),
    (["plan", "{twice}", "--function", "f"], "2 functions are named 'f'"),
    (["plan", "{src}", "--function", "energy", "--planner", "remote"],
     "no endpoint"),
])
def test_errors_exit_non_zero_with_one_line(tmp_path: Path, source: Path, args: list[str],
                                            message: str) -> None:
    (tmp_path / "latin1.cpp").write_bytes(b"// caf\xe9\nint f(int x) { return x; }\n")
    (tmp_path / "empty.cpp").write_text("")
    (tmp_path / "broken.cpp").write_text(
        "int f(int n) {\n  int s = 0;\n  for (int i = 0; i < n; i++ { s += i; }\n  return s;\n}\n")
    (tmp_path / "twice.cpp").write_text("int f(int a) { return a; }\nint f() { return 0; }\n")
    names = {"src": str(source), "latin1": str(tmp_path / "latin1.cpp"),
             "empty": str(tmp_path / "empty.cpp"), "broken": str(tmp_path / "broken.cpp"),
             "twice": str(tmp_path / "twice.cpp")}
    proc = run(*[a.format(**names) for a in args], cwd=tmp_path)
    assert proc.returncode != 0
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1, proc.stderr
    assert lines[0].startswith("perfpilot: ") and message in lines[0], lines[0]
    assert "Traceback" not in proc.stderr


def test_bench_json_keys(tmp_path: Path) -> None:
    a = tmp_path / "a.cpp"
    b = tmp_path / "b.cpp"
    a.write_text("#include <vector>\nlong ends(std::vector<long> v) {\n"
                 "    return v.empty() ? 0 : v.front() + v.back();\n}\n")
    b.write_text(a.read_text().replace("std::vector<long> v", "const std::vector<long>& v"))
    proc = run("bench", str(a), "--function", "ends", "--candidate", str(b), "--json")
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    assert set(data) >= {"verdict", "speedup", "ci95", "threads", "serial_speedup",
                         "instructions_ratio", "validation", "pairs", "dropped_pairs", "flags"}
    assert data["validation"]["status"] == "passed"
    assert data["verdict"] in ("faster", "noisy")
    if data["verdict"] == "faster":
        assert data["ci95"][0] > 1.0


def test_spec_draft_writes_once(tmp_path: Path) -> None:
    src = tmp_path / "shapes.cpp"
    src.write_text("struct Shape { virtual double area() const { return 1; } };\n"
                   "double twice(const Shape& s) { return 2 * s.area(); }\n")
    proc = run("spec", "--draft", str(src), "--function", "twice", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    draft = tmp_path / ".perfpilot" / "twice.bench.cpp"
    assert str(draft) in proc.stdout
    text = draft.read_text()
    assert "has virtual functions" in text and "TODO" in text and "PERFPILOT_BENCH" in text
    again = run("spec", "--draft", str(src), "--function", "twice", cwd=tmp_path)
    assert again.returncode == 2 and "not overwritten" in again.stderr
    assert draft.read_text() == text


UNFED = """\
#include <vector>

struct Handle;
long tag_of(const Handle* h);

long ends(std::vector<long> v, const Handle* h) {
    if (v.empty()) return tag_of(h);
    return v.front() + v.back();
}
"""


def test_a_function_the_harness_cannot_feed_is_needs_spec(tmp_path: Path) -> None:
    src = tmp_path / "ends.cpp"
    src.write_text(UNFED)
    proc = run("optimize", "ends.cpp", "--function", "ends", "--bench", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    assert "Measured (needs-spec): PerfPilot cannot build inputs for ends: " in out, out
    assert "build-failed" not in out and "does not compile" not in out
    # The CLI names the command that drafts a spec, with the file as it was given.
    assert "perfpilot spec --draft ends.cpp --function ends" in out
    assert str(tmp_path) not in out
    proc = run("optimize", "ends.cpp", "--function", "ends", "--bench", "--json",
               cwd=tmp_path)
    (cand,) = json.loads(proc.stdout)["candidates"]
    assert cand["measurement"]["verdict"] == "needs-spec"
    assert cand["measurement"]["needs_spec"] is True


def test_the_job_budget_stops_the_job_and_names_the_stage(tmp_path: Path) -> None:
    a = tmp_path / "a.cpp"
    b = tmp_path / "b.cpp"
    a.write_text("#include <vector>\nlong ends(std::vector<long> v) {\n"
                 "    return v.empty() ? 0 : v.front() + v.back();\n}\n")
    b.write_text(a.read_text().replace("std::vector<long> v", "const std::vector<long>& v"))
    proc = subprocess.run([sys.executable, "-m", "perfpilot", "bench", str(a), "--function",
                           "ends", "--candidate", str(b), "--job-budget", "0.5", "--json"],
                          capture_output=True, text=True, timeout=300, check=False,
                          env={**os.environ, "XDG_CACHE_HOME": str(tmp_path / "cache")})
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    assert data["verdict"] == "timeout", data["message"]
    assert data["message"].startswith("Stopped after 0.5 s while "), data["message"]
    assert "runner.jobBudgetS" in data["message"]
    assert "Traceback" not in proc.stderr and "Exception ignored" not in proc.stderr


def test_optimize_shows_a_strategy_the_rewriter_leaves_as_advice_once(tmp_path: Path) -> None:
    # A planned strategy the rewriter leaves (a sort in C: no std::sort) is advice in the plan,
    # with the rewriter's reason; the candidate that carries out the rest does not repeat it.
    src = tmp_path / "distinct.c"
    src.write_text((EXAMPLES / "tasks" / "sort_ints" / "distinct.c").read_text())
    proc = run("optimize", str(src), "--function", "count_distinct")
    assert proc.returncode == 0, proc.stderr
    plan, _, candidates = proc.stdout.partition("Candidate 1 (builtin;")
    assert candidates, proc.stdout
    assert "     advice (PerfPilot leaves it to you: the selection sort on line 4 stays: C has " \
        "no std::sort" in plan, proc.stdout
    assert "the selection sort on line 4 stays" not in candidates, proc.stdout
    assert "  note: openmp: " in candidates, proc.stdout  # the candidate's own notes remain


async def test_optimize_with_a_model_prints_its_requests_and_tokens(source: Path) -> None:
    import asyncio
    import shutil

    from test_llm_remote_faults import FaultyEndpoint, Stream

    answer = ("```cpp\nstd::vector<double> energy(std::vector<double> samples, double gain)\n"
              "{\n    std::vector<double> out;\n    for (double x : samples)\n"
              "        out.push_back((x * gain) * (x * gain));\n    return out;\n}\n```")
    elsewhere = source.parent / "other" / source.name  # another workspace: its own cache
    elsewhere.parent.mkdir()
    shutil.copy(source, elsewhere)

    async def optimize(path: Path, *extra: str) -> str:
        proc = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "perfpilot", "optimize", str(path), "--function", "energy",
            "--optimizer", "remote", "--endpoint", ep.url, "--model", "tiny", "--samples", "1",
            *extra, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
        out, err = await asyncio.wait_for(proc.communicate(), 300)
        assert proc.returncode == 0, err.decode()
        return out.decode()

    async with FaultyEndpoint(Stream(answer, usage={"prompt_tokens": 420,
                                                    "completion_tokens": 61})) as ep:
        text = await optimize(source)
        cached = json.loads(await optimize(source, "--json"))
        fresh = json.loads(await optimize(elsewhere, "--json"))
    assert len(ep.requests) == 2
    assert "model: 1 request(s), 420 prompt + 61 completion tokens, " in text
    assert "model_usage" not in cached  # the candidates came from the cache: no request
    usage = fresh["model_usage"]
    assert (usage["requests"], usage["prompt_tokens"], usage["completion_tokens"]) == \
        (1, 420, 61)
