"""End to end: real compiler, real sandbox, real driver; verdict semantics only (no timings)."""

from __future__ import annotations

import asyncio
import shutil
from dataclasses import replace
from pathlib import Path

import pytest

from perfpilot.code.locate import function_by_name
from perfpilot.progress import Cancelled, JobContext
from perfpilot.runner.measure import bench_files, verify_and_measure
from perfpilot.runner.values import VERDICTS, Tuning
from perfpilot.settings import RunnerSettings

pytestmark = pytest.mark.skipif(shutil.which("g++") is None or shutil.which("gcc") is None,
                                reason="g++/gcc not installed")

# Small samples, and patience with a busy machine: more retries and more pairs to find clean ones.
# Sizes up to 16384: a linear function reaches the sample time there or repeats its call, and
# setting up inputs of a million elements for every sample would take most of the test's time.
FAST = Tuning(target_sample_s=0.002, edge_sizes=(0, 1, 2, 7), budget_s=10.0, noisy_retries=2,
              max_pairs_factor=6, max_size=1 << 14,
              # Verification itself is tested in test_verification*.py: fewer cases here.
              profiles=(0, 1), seeds_per_profile=1, mutants=False, coverage=False)
SETTINGS = RunnerSettings(pairs=16, callgrind=False, run_timeout_s=30.0, build_timeout_s=60.0)
# The runner alone, for candidates the capability policy would refuse before any build
# (volatile spins, traps, unknown functions): what the runner does with them is tested here.
RUNNER_ONLY = replace(FAST, capability_policy=False)
# A unit including a project header is built afresh every time (no build cache): the tests of
# what a spec feeds skip the sanitized builds, which test_verification.py covers.
UNSANITIZED = replace(FAST, sanitizers=False)

DUPS = """\
#include <cstddef>
#include <vector>

// Counts elements that occur again later in the vector.
long count_dups(const std::vector<int>& v) {
  long c = 0;
  for (std::size_t i = 0; i < v.size(); ++i)
    for (std::size_t j = i + 1; j < v.size(); ++j)
      if (v[i] == v[j]) { ++c; break; }
  return c;
}
"""

DUPS_HASH = """\
long count_dups(const std::vector<int>& v) {
  std::unordered_map<int, int> seen;
  seen.reserve(v.size());
  long c = 0;
  for (std::size_t i = v.size(); i-- > 0;)
    if (seen[v[i]]++) ++c;
  return c;
}"""

DUPS_WRONG = """\
long count_dups(const std::vector<int>& v) {
  long c = 0;
  for (std::size_t i = 1; i < v.size(); ++i)
    if (v[i] == v[i - 1]) ++c;
  return c;
}"""


def _site(text: str, name: str, language: str = "cpp"):  # type: ignore[no-untyped-def]
    return function_by_name(text, language, name)  # type: ignore[arg-type]


def _check_json(v) -> None:  # type: ignore[no-untyped-def]
    data = v.to_json()
    for key in ("verdict", "speedup", "ci95", "threads", "serial_speedup", "instructions_ratio",
                "validation", "pairs", "dropped_pairs", "flags", "compiler", "median_a_s",
                "median_b_s", "message"):
        assert key in data
    assert data["verdict"] in VERDICTS
    assert set(data["validation"]) == {"status", "detail"}


async def _measure_same(site, tries: int = 5, settings: RunnerSettings = SETTINGS,  # type: ignore[no-untyped-def]
                        tuning: Tuning = FAST, ctx: JobContext | None = None,
                        exact: bool = False):
    """Time a function against itself until a run claims no difference, at most ``tries``.

    A 95% interval misses 1 about one time in twenty by chance alone, more often while other
    work on the machine comes and goes; a real bias between the two sides (an order effect,
    one side timed warm) misses every time. ``exact``: only a ``no-change`` whose interval
    holds 1 ends the tries; a machine too busy ever to give one must still leave all but
    one run inconclusive with 1 inside the interval (an honest "cannot tell", centred).
    """
    runs = []
    for _ in range(tries):
        v = await verify_and_measure(site, site.text, settings, ctx or JobContext(),
                                     tuning=tuning)
        _check_json(v)
        runs.append(v)
        holds_one = v.ci95 is not None and v.ci95[0] <= 1 <= v.ci95[1]
        if exact and v.verdict == "no-change" and holds_one:
            return v
        if not exact and v.verdict in ("no-change", "noisy"):
            return v
    seen = " | ".join(r.message for r in runs)
    assert exact, f"every run of {tries} claimed a difference: {seen}"
    honest = [r for r in runs if r.verdict in ("no-change", "noisy") and r.ci95 is not None
              and r.ci95[0] <= 1 <= r.ci95[1]]
    assert len(honest) >= tries - 1, f"runs that claimed or leaned to a difference: {seen}"
    return runs[-1]


async def test_same_function_is_no_change() -> None:
    site = _site(DUPS, "count_dups")
    stages: list[str] = []
    ctx = JobContext(on_report=lambda stage, msg, pct: stages.append(stage))
    # A busy machine may leave a run inconclusive ("noisy", the honest answer) or, now and
    # then, claim a difference; on a quiet one some run of five finds none, with 1 inside
    # its interval.
    precise = replace(FAST, target_sample_s=Tuning().target_sample_s)
    v = await _measure_same(site, settings=replace(SETTINGS, pairs=30), tuning=precise,
                            ctx=ctx, exact=True)
    assert v.validation_status == "passed"
    assert v.input_mode == "harness"
    assert list(dict.fromkeys(stages))[:3] == ["building", "validating", "timing"]


DUPS_THRICE = """\
long count_dups(const std::vector<int>& v) {
  long c = 0;
  for (int round = 0; round < 3; ++round) {
    c = 0;
    for (std::size_t i = 0; i < v.size(); ++i)
      for (std::size_t j = i + 1; j < v.size(); ++j)
        if (v[i] == v[j]) { ++c; break; }
  }
  return c;
}"""


async def test_a_serial_slowdown_is_timed_twice_before_it_is_reported() -> None:
    site = _site(DUPS, "count_dups")
    said: list[str] = []
    ctx = JobContext(on_report=lambda stage, msg, pct: said.append(msg))
    # A busy machine may leave the first timing inconclusive, and then nothing is confirmed.
    for _ in range(3):
        v = await verify_and_measure(site, DUPS_THRICE, SETTINGS, ctx, tuning=FAST)
        assert v.verdict in ("slower", "noisy"), v.message
        if any("confirm a slowdown" in m for m in said):
            break
    assert any("confirm a slowdown" in m for m in said), said
    if v.verdict == "slower":
        assert v.measurement is not None
        assert any("confirmed by a second run" in n for n in v.measurement.notes)


async def test_algorithmic_rewrite_is_faster() -> None:
    unit = DUPS.replace("#include <vector>", "#include <vector>\n#include <unordered_map>")
    site = _site(unit, "count_dups")
    v = await verify_and_measure(site, DUPS_HASH, SETTINGS, JobContext(), tuning=FAST)
    _check_json(v)
    assert v.verdict == "faster", v.message
    assert v.ci95 is not None and v.ci95[0] > 1.0
    assert v.speedup is not None and v.speedup > 1.0
    assert v.to_json()["ci95"] == list(v.ci95)


SLOW_FIRST_CALL = """\
#include <unistd.h>
#include <vector>

// The first call pays a one-time cost, as a starting OpenMP thread pool does.
long total(const std::vector<int>& v) {
  static bool first = true;
  if (first) { first = false; usleep(50000); }
  long s = 0;
  for (int x : v) s += x;
  return s;
}
"""


async def test_a_slow_first_call_does_not_shrink_the_timed_size() -> None:
    # Calibration once stopped at the smallest size because the first call of a side took
    # longer than a sample should; the timing then measured sub-microsecond calls.
    site = _site(SLOW_FIRST_CALL, "total")
    v = await _measure_same(site)
    assert v.measurement is not None, v.message
    assert v.measurement.size > 10 * FAST.min_size, v.measurement
    assert v.verdict in ("no-change", "noisy"), v.message


async def test_a_candidate_needing_a_new_header_gets_it_in_its_unit() -> None:
    # DUPS lacks <unordered_map>: without the header the candidate would not build.
    site = _site(DUPS, "count_dups")
    missing = await verify_and_measure(site, DUPS_HASH, SETTINGS, JobContext(), tuning=FAST)
    assert missing.verdict == "build-failed"
    v = await verify_and_measure(site, DUPS_HASH, SETTINGS, JobContext(), tuning=FAST,
                                 includes=("<unordered_map>",))
    assert v.validation_status == "passed", v.message
    assert v.verdict in ("faster", "noisy"), v.message


async def test_wrong_rewrite_is_incorrect_with_first_mismatch() -> None:
    site = _site(DUPS, "count_dups")
    v = await verify_and_measure(site, DUPS_WRONG, SETTINGS, JobContext(), tuning=FAST)
    assert v.verdict == "incorrect"
    assert v.validation_status == "failed"
    assert "return value" in v.validation_detail and "size" in v.validation_detail
    assert v.speedup is None


async def test_non_compiling_rewrite_is_build_failed_with_compiler_message() -> None:
    site = _site(DUPS, "count_dups")
    broken = "long count_dups(const std::vector<int>& v) { return undefined_thing(v); }"
    v = await verify_and_measure(site, broken, SETTINGS, JobContext(), tuning=RUNNER_ONLY)
    assert v.verdict == "build-failed"
    assert "undefined_thing" in v.message
    assert "error" in v.build_log


async def test_candidate_that_never_returns_is_timeout() -> None:
    site = _site(DUPS, "count_dups")
    loop = ("long count_dups(const std::vector<int>& v) {\n"
            "  volatile long c = 0; for (;;) { c = c + 1; } return c + (long)v.size(); }")
    settings = RunnerSettings(pairs=8, callgrind=False, run_timeout_s=3.0)
    v = await verify_and_measure(site, loop, settings, JobContext(), tuning=RUNNER_ONLY)
    assert v.verdict == "timeout", v.message
    # Stopped by the original's own time on the case, not by the fixed limit.
    assert "over 20× the" in v.message and "original takes on the whole case" in v.message


async def test_candidate_crash_is_incorrect() -> None:
    site = _site(DUPS, "count_dups")
    crash = ("long count_dups(const std::vector<int>& v) {\n"
             "  if (v.size() == 7) { volatile int* p = nullptr; *p = 1; }\n"
             "  long c = 0;\n"
             "  for (std::size_t i = 0; i < v.size(); ++i)\n"
             "    for (std::size_t j = i + 1; j < v.size(); ++j)\n"
             "      if (v[i] == v[j]) { ++c; break; }\n"
             "  return c;\n}")
    v = await verify_and_measure(site, crash, SETTINGS, JobContext(), tuning=RUNNER_ONLY)
    assert v.verdict == "incorrect"
    # Under the sanitizers the crash comes with their report (a null store, or a SEGV).
    detail = v.validation_detail
    assert ("SEGV" in detail or "null pointer" in detail) and "size 7" in detail, detail


C_UNIT = """\
#include <stddef.h>

/* Scales a buffer in place and returns the sum of squares. */
double scale_sq(double* restrict a, size_t n, double f) {
  double s = 0.0;
  for (size_t i = 0; i < n; ++i) { a[i] = a[i] * f; s += a[i] * a[i]; }
  return s;
}
"""


async def test_c_unit_pointer_with_size_and_mutated_buffer() -> None:
    site = _site(C_UNIT, "scale_sq", "c")
    same = await _measure_same(site)
    assert same.verdict in ("no-change", "noisy"), same.message
    assert same.validation_status == "passed"
    # Same return value but the buffer is left unscaled: only the mutated argument differs.
    wrong = ("double scale_sq(double* a, size_t n, double f) {\n"
             "  double s = 0.0;\n"
             "  for (size_t i = 0; i < n; ++i) { double x = a[i] * f; s += x * x; }\n"
             "  return s;\n}")
    v = await verify_and_measure(site, wrong, SETTINGS, JobContext(), tuning=FAST)
    assert v.verdict == "incorrect"
    assert "a[0]" in v.validation_detail


OMP_UNIT = """\
#include <cmath>
#include <vector>

double heavy_sum(const std::vector<double>& x) {
  double s = 0.0;
  for (long i = 0; i < (long)x.size(); ++i) s += std::sin(x[i]) * std::sqrt(x[i] + 1.0);
  return s;
}
"""

OMP_CANDIDATE = """\
double heavy_sum(const std::vector<double>& x) {
  double s = 0.0;
  #pragma omp parallel for reduction(+:s)
  for (long i = 0; i < (long)x.size(); ++i) s += std::sin(x[i]) * std::sqrt(x[i] + 1.0);
  return s;
}"""


async def test_openmp_reduction_validates_with_tolerance_and_reports_threads() -> None:
    site = _site(OMP_UNIT, "heavy_sum")
    settings = RunnerSettings(pairs=10, callgrind=False, threads=2, run_timeout_s=30.0)
    v = await verify_and_measure(site, OMP_CANDIDATE, settings, JobContext(), tuning=FAST)
    # The parallel sum differs in the last digits: validation must still pass.
    assert v.validation_status == "passed", v.validation_detail
    assert v.verdict in ("faster", "slower", "no-change", "noisy")
    assert v.threads == 2
    assert v.serial_speedup is not None
    assert "-fopenmp" in v.flags


async def test_callgrind_instruction_ratio() -> None:
    if shutil.which("valgrind") is None:
        pytest.skip("valgrind not installed")
    unit = DUPS.replace("#include <vector>", "#include <vector>\n#include <unordered_map>")
    site = _site(unit, "count_dups")
    settings = RunnerSettings(pairs=8, callgrind=True, run_timeout_s=60.0)
    v = await verify_and_measure(site, DUPS_HASH, settings, JobContext(), tuning=FAST)
    assert v.verdict == "faster", v.message
    if v.instructions_ratio is None:
        pytest.skip(f"callgrind unavailable here: {v.notes}")
    assert v.instructions_ratio > 1.0
    same = await verify_and_measure(site, site.text, settings, JobContext(), tuning=FAST)
    # Instruction counts of identical builds are deterministic.
    assert same.instructions_ratio == pytest.approx(1.0, abs=0.01)


async def test_unsupported_signature_asks_for_a_spec() -> None:
    unit = "struct P { int x; P* next; };\nint get(P p) { return p.x; }\n"
    site = _site(unit, "get")
    v = await verify_and_measure(site, site.text, SETTINGS, JobContext(), tuning=FAST)
    # Not the candidate's fault, and not a build that failed: the function needs a spec.
    assert v.verdict == "needs-spec" and v.needs_spec
    assert v.message.startswith("PerfPilot cannot build inputs for get: "), v.message
    assert "'p'" in v.message and "perfpilot spec" not in v.message


SPEC = """\
#include <perfpilot_bench.hpp>
#include "points.hpp"

using Fn = double (*)(const std::vector<Point>&);

struct Bench {
  std::vector<Point> pts;
  double result = 0;
  void setup(std::size_t n, std::mt19937_64& rng) {
    std::uniform_real_distribution<double> d(0.0, 1.0);
    pts.resize(n);
    for (auto& p : pts) p = Point{d(rng), d(rng)};
  }
  void call(Fn f) { result = f(pts); }
  void record(perfpilot::Recorder& r) const { r.add("closest", result); }
  static constexpr std::size_t max_size = 4096;
};
PERFPILOT_BENCH(Bench, Fn)
"""

POINTS_H = """\
#pragma once
#include <vector>
struct Point { double x, y; };
"""

CLOSEST = """\
#include <cmath>
#include "points.hpp"

double closest(const std::vector<Point>& p) {
  double best = 1e300;
  for (std::size_t i = 0; i < p.size(); ++i)
    for (std::size_t j = i + 1; j < p.size(); ++j) {
      double dx = p[i].x - p[j].x, dy = p[i].y - p[j].y;
      best = std::min(best, dx * dx + dy * dy);
    }
  return best;
}
"""

CLOSEST_BETTER = """\
double closest(const std::vector<Point>& p) {
  double best = 1e300;
  for (std::size_t i = 0; i < p.size(); ++i)
    for (std::size_t j = i + 1; j < p.size(); ++j) {
      double dx = p[i].x - p[j].x, dy = p[i].y - p[j].y;
      double d = dx * dx + dy * dy;
      if (d < best) best = d;
    }
  return best;
}"""


async def test_bench_spec_with_user_type(tmp_path: Path) -> None:
    (tmp_path / "points.hpp").write_text(POINTS_H)
    src = tmp_path / "closest.cpp"
    src.write_text(CLOSEST)
    spec_dir = tmp_path / ".perfpilot"
    spec_dir.mkdir()
    (spec_dir / "closest.bench.cpp").write_text(SPEC)
    site = _site(CLOSEST, "closest")
    # The spec is found by name beside the source.
    v = await verify_and_measure(site, CLOSEST_BETTER, SETTINGS, JobContext(),
                                 tuning=UNSANITIZED, source_path=src, workspace=tmp_path)
    assert v.input_mode == "spec"
    assert v.validation_status == "passed", v.message
    assert v.verdict in ("faster", "slower", "no-change", "noisy")
    wrong = CLOSEST_BETTER.replace("if (d < best) best = d;", "if (d > best) best = d;")
    bad = await verify_and_measure(site, wrong, SETTINGS, JobContext(), tuning=UNSANITIZED,
                                   source_path=src, workspace=tmp_path)
    assert bad.verdict == "incorrect"
    assert "closest" in bad.validation_detail


DRAIN = """\
#include <vector>

// Sums the queue and empties it.
long drain(std::vector<int>& q) {
  long s = 0;
  for (int x : q) s += x;
  q.clear();
  return s;
}
"""

DRAIN_SPEC = """\
#include <perfpilot_bench.hpp>
#include <vector>

using Fn = long (*)(std::vector<int>&);
// No reset(): the call empties the queue, so every call after the first sees it empty.
struct Bench {
  std::vector<int> q;
  long result = 0;
  void setup(std::size_t n, std::mt19937_64& rng) { perfpilot::gen::fill(q, n, rng); }
  void call(Fn f) { result = f(q); }
  void record(perfpilot::Recorder& r) const { r.add("result", result); r.add("q", q); }
};
PERFPILOT_BENCH(Bench, Fn)
"""


async def test_a_spec_without_reset_still_validates_both_on_the_same_inputs(
        tmp_path: Path) -> None:
    # Both versions share one set of inputs; validation must still set them up for each.
    spec = tmp_path / "drain.bench.cpp"
    spec.write_text(DRAIN_SPEC)
    site = _site(DRAIN, "drain")
    # Calibration meets the queue already drained; each timed call gets it full again, and
    # the repetitions per sample must count that (else a sample outlasts the run's limit).
    v = await verify_and_measure(site, site.text, SETTINGS,
                                 JobContext(), tuning=FAST, spec=spec)
    assert v.input_mode == "spec"
    assert v.validation_status == "passed", v.message
    assert v.verdict not in ("incorrect", "timeout"), v.message


METHOD_SPEC = """\
#include <perfpilot_bench.hpp>
#include "acc.hpp"

// perfpilot:entry-begin
static long perfpilot_call(Acc& a, int k) { return a.add_all(k); }
extern "C" void* perfpilot_entry(void) { return reinterpret_cast<void*>(&perfpilot_call); }
// perfpilot:entry-end

using Fn = long (*)(Acc&, int);
struct Bench {
  Acc acc;
  long result = 0;
  void setup(std::size_t n, std::mt19937_64&) { acc.n = static_cast<long>(n); }
  void call(Fn f) { result = f(acc, 3); }
  void record(perfpilot::Recorder& r) const { r.add("result", result); }
};
PERFPILOT_BENCH(Bench, Fn)
"""


async def test_spec_entry_block_reaches_a_member_function(tmp_path: Path) -> None:
    (tmp_path / "acc.hpp").write_text("#pragma once\nstruct Acc { long n = 0; "
                                      "long add_all(int k); };\n")
    unit = ('#include "acc.hpp"\n'
            "long Acc::add_all(int k) { long s = 0; for (long i = 0; i < n; ++i) s += i * k; "
            "return s; }\n")
    src = tmp_path / "acc.cpp"
    src.write_text(unit)
    spec = tmp_path / "acc.bench.cpp"
    spec.write_text(METHOD_SPEC)
    site = _site(unit, "add_all")
    better = "long Acc::add_all(int k) { return k * (n * (n - 1) / 2); }"
    v = await verify_and_measure(site, better, SETTINGS, JobContext(), tuning=UNSANITIZED,
                                 source_path=src, spec=spec)
    assert v.validation_status == "passed", v.message
    assert v.verdict == "faster", v.message


PROGRAM = """\
#include <cstdio>
#include <vector>
int main() {
  int n;
  if (std::scanf("%d", &n) != 1) return 1;
  std::vector<int> v(n);
  for (auto& x : v) std::scanf("%d", &x);
  long c = 0;
  for (int i = 0; i < n; ++i)
    for (int j = i + 1; j < n; ++j)
      if (v[i] == v[j]) { ++c; break; }
  std::printf("%ld\\n", c);
  return 0;
}
"""

PROGRAM_FAST = """\
#include <cstdio>
#include <unordered_set>
#include <vector>
int main() {
  int n;
  if (std::scanf("%d", &n) != 1) return 1;
  std::vector<int> v(n);
  for (auto& x : v) std::scanf("%d", &x);
  long c = 0;
  std::unordered_set<int> seen;
  for (int i = n - 1; i >= 0; --i)
    if (!seen.insert(v[i]).second) ++c;
  std::printf("%ld\\n", c);
  return 0;
}
"""


async def test_whole_program_with_stdin_files(tmp_path: Path) -> None:
    import random

    rng = random.Random(7)
    src = tmp_path / "dups.cpp"
    src.write_text(PROGRAM)
    n = 20000
    (tmp_path / "dups.in").write_text(f"{n}\n" + " ".join(str(rng.randrange(n))
                                                          for _ in range(n)) + "\n")
    (tmp_path / "dups.small.in").write_text("5\n1 2 1 3 2\n")
    (tmp_path / "dups.small.out").write_text("2\n")
    cand = tmp_path / "cand.cpp"
    cand.write_text(PROGRAM_FAST)
    settings = RunnerSettings(pairs=8, callgrind=False, run_timeout_s=30.0)
    v = await bench_files(src, "main", cand, settings, JobContext(), tuning=FAST)
    assert v.input_mode == "stdin"
    assert v.validation_status == "passed", v.message
    # Whole processes on a shared machine: a busy machine may only allow "noisy" here, but the
    # ratio of a 20000-element O(n^2) loop against a hash set still favours the candidate.
    assert v.verdict in ("faster", "noisy"), v.message
    assert v.speedup is not None and v.speedup > 1.0
    assert "2 input file" in v.validation_detail
    wrong = tmp_path / "wrong.cpp"
    wrong.write_text(PROGRAM_FAST.replace("++c;", "c += 2;"))
    bad = await bench_files(src, "main", wrong, settings, JobContext(), tuning=FAST)
    assert bad.verdict == "incorrect"
    assert "dups" in bad.validation_detail


async def test_bench_files_whole_unit_candidate(tmp_path: Path) -> None:
    src = tmp_path / "dups.cpp"
    src.write_text(DUPS)
    cand = tmp_path / "dups_new.cpp"
    # A whole unit that adds an include the function needs.
    cand.write_text("#include <unordered_map>\n" + DUPS.replace(
        DUPS[DUPS.index("long count_dups"):], DUPS_HASH + "\n"))
    v = await bench_files(src, "count_dups", cand, SETTINGS, JobContext(), tuning=FAST)
    assert v.verdict == "faster", v.message


async def test_cancellation_kills_the_run_and_raises() -> None:
    site = _site(DUPS, "count_dups")
    loop = ("long count_dups(const std::vector<int>& v) {\n"
            "  volatile long c = 0; for (;;) { c = c + 1; } return c + (long)v.size(); }")
    ctx = JobContext(on_report=lambda stage, msg, pct: None)

    async def cancel_when_validating() -> None:
        await asyncio.sleep(0.05)
        while True:
            await asyncio.sleep(0.05)
            if validating:
                await asyncio.sleep(0.5)
                ctx.cancel()
                return

    validating: list[str] = []
    ctx = JobContext(on_report=lambda stage, msg, pct: validating.append(stage)
                     if stage == "validating" else None)
    settings = RunnerSettings(pairs=8, callgrind=False, run_timeout_s=120.0)
    canceller = asyncio.create_task(cancel_when_validating())
    start = asyncio.get_running_loop().time()
    with pytest.raises(Cancelled):
        await verify_and_measure(site, loop, settings, ctx, tuning=RUNNER_ONLY)
    await canceller
    assert asyncio.get_running_loop().time() - start < 60


async def test_memory_bomb_candidate_fails_safely() -> None:
    from dataclasses import replace

    site = _site(DUPS, "count_dups")
    bomb = ("long count_dups(const std::vector<int>& v) {\n"
            "  std::vector<std::vector<char>> hog;\n"
            "  for (;;) hog.emplace_back(std::size_t(1) << 26, char(1));\n"
            "  return (long)v.size();\n}")
    v = await verify_and_measure(site, bomb, SETTINGS, JobContext(),
                                 tuning=replace(FAST, memory_mb=512))
    assert v.verdict == "incorrect"
    detail = v.validation_detail
    assert "bad_alloc" in detail or "out of memory" in detail, detail


async def test_counting_uses_x86_64_v3_builds_for_native_flags() -> None:
    if shutil.which("valgrind") is None:
        pytest.skip("valgrind not installed")
    unit = DUPS.replace("#include <vector>", "#include <vector>\n#include <unordered_map>")
    site = _site(unit, "count_dups")
    settings = RunnerSettings(pairs=8, callgrind=True, run_timeout_s=60.0,
                              flags=("-O2", "-march=native"))
    v = await verify_and_measure(site, DUPS_HASH, settings, JobContext(), tuning=FAST)
    assert v.verdict == "faster", v.message
    assert "-march=native" in v.flags
    assert v.instructions_ratio is not None and v.instructions_ratio > 1.0, v.notes
    from perfpilot.runner.toolchain import cpu_has_avx512

    if cpu_has_avx512():
        assert any("x86-64-v3" in n for n in v.notes), v.notes


async def test_flags_come_from_compile_commands(tmp_path: Path) -> None:
    import json

    inc = tmp_path / "inc"
    inc.mkdir()
    (inc / "scale.hpp").write_text("#pragma once\nconstexpr int kScale = SCALE;\n")
    unit = ("#include <vector>\n#include <scale.hpp>\n"
            "long total(const std::vector<int>& v) { long s = 0; for (int x : v) s += x * kScale;"
            " return s; }\n")
    src = tmp_path / "total.cpp"
    src.write_text(unit)
    (tmp_path / "compile_commands.json").write_text(json.dumps([{
        "directory": str(tmp_path), "file": "total.cpp",
        "command": "g++ -std=c++17 -O1 -DSCALE=3 -Iinc -c total.cpp -o total.o"}]))
    site = _site(unit, "total")
    v = await verify_and_measure(site, site.text, SETTINGS, JobContext(), tuning=UNSANITIZED,
                                 source_path=src, workspace=tmp_path)
    assert v.validation_status == "passed", v.message
    assert "-DSCALE=3" in v.flags and "-O1" in v.flags
    assert "-o" not in v.flags and "-c" not in v.flags


async def test_missing_compiler_is_reported() -> None:
    site = _site(DUPS, "count_dups")
    settings = RunnerSettings(compiler="no-such-compiler++", callgrind=False)
    v = await verify_and_measure(site, site.text, settings, JobContext(), tuning=FAST)
    assert v.verdict == "build-failed"
    assert "no-such-compiler++" in v.message and "not found" in v.message


async def test_crash_at_a_timing_size_blames_the_right_side() -> None:
    site = _site(DUPS, "count_dups")
    # Agrees on every edge size (so validation passes), then crashes while calibrating.
    late_crash = ("long count_dups(const std::vector<int>& v) {\n"
                  "  if (v.size() > 100) __builtin_trap();\n"
                  "  long c = 0;\n"
                  "  for (std::size_t i = 0; i < v.size(); ++i)\n"
                  "    for (std::size_t j = i + 1; j < v.size(); ++j)\n"
                  "      if (v[i] == v[j]) { ++c; break; }\n"
                  "  return c;\n}")
    v = await verify_and_measure(site, late_crash, SETTINGS, JobContext(), tuning=RUNNER_ONLY)
    assert v.verdict == "incorrect"
    assert v.validation_detail.startswith("candidate crashed (SIGILL)"), v.validation_detail


async def test_original_crashing_on_an_edge_size_skips_that_size() -> None:
    unit = ("#include <vector>\n"
            "int first_max(const std::vector<int>& v) {\n"
            "  if (v.empty()) __builtin_trap();\n"
            "  int m = v[0];\n"
            "  for (int x : v) if (x > m) m = x;\n"
            "  return m;\n}\n")
    site = _site(unit, "first_max")
    v = await verify_and_measure(site, site.text, SETTINGS, JobContext(), tuning=FAST)
    assert v.validation_status == "passed", v.message
    assert any("original crashed (SIGILL) at size 0" in n for n in v.notes), v.notes


PREFIX_SQ = """\
#include <cstddef>
#include <vector>
long prefix_sq(const std::vector<int>& v) {
  long s = 0;
  for (std::size_t i = 0; i < v.size(); ++i)
    for (std::size_t j = 0; j <= i; ++j)
      if (j == i) s += (long)v[j] * v[j];
  return s;
}
"""
PREFIX_SQ_OMP = """long prefix_sq(const std::vector<int>& v) {
  long s = 0;
  #pragma omp parallel for reduction(+:s)
  for (std::size_t i = 0; i < v.size(); ++i) s += (long)v[i] * v[i];
  return s;
}"""


@pytest.mark.parametrize("project_openmp", [False, True])
async def test_a_flag_the_project_build_lacks_is_named_and_measured_without(
        tmp_path: Path, project_openmp: bool) -> None:
    import json

    src = tmp_path / "prefix.cpp"
    src.write_text(PREFIX_SQ)
    flags = "-fopenmp " if project_openmp else ""
    (tmp_path / "compile_commands.json").write_text(json.dumps([{
        "directory": str(tmp_path), "file": "prefix.cpp",
        "command": f"g++ -std=c++17 -O2 {flags}-c prefix.cpp -o prefix.o"}]))
    site = _site(PREFIX_SQ, "prefix_sq")
    # One thread: what is tested is the build the figure comes from, not parallel timing.
    v = await verify_and_measure(site, PREFIX_SQ_OMP, replace(SETTINGS, threads=1),
                                 JobContext(), tuning=FAST, source_path=src, workspace=tmp_path)
    assert v.verdict in ("faster", "weakly-verified"), v.message
    if project_openmp:
        assert v.added_flags == () and "your build" not in v.message
        return
    assert v.added_flags == ("-fopenmp",)
    assert "Needs -fopenmp in your build" in v.message, v.message
    # Built without -fopenmp the pragma is ignored, but the linear loop still beats the
    # quadratic one: the figure is measured, not assumed.
    if v.without_added_speedup is not None:
        assert v.without_added_ci95 is not None and v.without_added_ci95[0] > 1.0, v.message
    else:
        assert "not measurable" in v.message or "not measured" in v.message, v.message


STEPS = """\
long long steps(int n) {
    if (n < 0) return 0;
    if (n == 0) return 1;
    return steps(n - 1) + steps(n - 3) + steps(n - 4);
}
"""

STEPS_LOOP = """\
long long steps(int n) {
    if (n < 0) return 0;
    long long w[4] = {1, 0, 0, 0};  // steps(k), steps(k-1), steps(k-2), steps(k-3)
    for (int k = 1; k <= n; ++k) {
        long long next = w[0] + w[2] + w[3];
        w[3] = w[2]; w[2] = w[1]; w[1] = w[0]; w[0] = next;
    }
    return w[0];
}
"""


async def test_counts_confirm_an_exponential_gain_at_the_timed_size() -> None:
    # The gain of a linear rewrite of an exponential recursion grows with n, so counts at the
    # reduced size fall far short of the wall time at the timed size: they are taken again
    # there instead of withholding a true figure.
    if shutil.which("valgrind") is None:
        pytest.skip("valgrind not installed")
    site = _site(STEPS, "steps")
    settings = RunnerSettings(pairs=8, callgrind=True, run_timeout_s=60.0)
    v = await verify_and_measure(site, STEPS_LOOP, settings, JobContext(), tuning=FAST)
    if v.instructions_ratio is None:
        pytest.skip(f"callgrind unavailable here: {v.notes}")
    assert v.verdict == "faster", v.message
    counted = next(n for n in v.notes if n.startswith("callgrind at size"))
    # Counted where the clock timed it, when the reduced size fell short.
    assert "the gain grows" not in counted or \
        counted.startswith(f"callgrind at size {v.measurement.size if v.measurement else 0}:")
    assert v.instructions_ratio * 10 >= v.speedup, (v.speedup, v.notes)


SUM = """\
#include <cstddef>
#include <vector>
long total(const std::vector<int>& v) {
  long s = 0;
  for (std::size_t i = 0; i < v.size(); ++i) s += v[i];
  return s;
}
"""
# Remembers the last input and its answer: by where the input lives, or by a cheap
# fingerprint of it (its length). Both return the old sum once the input changed in place.
SUM_MEMO_BY_ADDRESS = """\
long total(const std::vector<int>& v) {
  struct Memo { const int* data = nullptr; std::size_t n = 0; long sum = 0; };
  static Memo memo;
  if (memo.data == v.data() && memo.n == v.size() && memo.data != nullptr) return memo.sum;
  long s = 0;
  for (std::size_t i = 0; i < v.size(); ++i) s += v[i];
  memo = Memo{v.data(), v.size(), s};
  return s;
}"""
SUM_MEMO_BY_LENGTH = """\
long total(const std::vector<int>& v) {
  static std::size_t last = 0;
  static long answer = 0;
  if (last != 0 && v.size() == last) return answer;
  long s = 0;
  for (std::size_t i = 0; i < v.size(); ++i) s += v[i];
  last = v.size();
  answer = s;
  return s;
}"""


@pytest.mark.parametrize("memo", [SUM_MEMO_BY_ADDRESS, SUM_MEMO_BY_LENGTH],
                         ids=["address", "length"])
async def test_a_candidate_answering_from_memory_is_incorrect(memo: str) -> None:
    # The capability policy would refuse the static state; the runner must catch it alone.
    site = _site(SUM, "total")
    v = await verify_and_measure(site, memo, SETTINGS, JobContext(), tuning=RUNNER_ONLY)
    assert v.verdict == "incorrect", v.message
    assert v.message.startswith("The candidate answers from memory: after its input changed "
                                "in place it returned the previous answer (size "), v.message
    assert v.validation_detail.startswith("answers from memory: size ")


# Two entries keyed by a fingerprint that tells the probe's inputs apart: it passes every
# comparison, and with two entries alternating inputs still hit. Its counted call meets an
# input it has not seen, so the counts show no gain while the clock shows a huge one.
DUPS_MEMO_TWO = """\
long count_dups(const std::vector<int>& v) {
  struct Entry { std::size_t n = 0; int first = 0, last = 0; long answer = -1; };
  static Entry memo[2];
  static int next = 0;
  if (!v.empty())
    for (const Entry& e : memo)
      if (e.answer >= 0 && e.n == v.size() && e.first == v.front() && e.last == v.back())
        return e.answer;
  long c = 0;
  for (std::size_t i = 0; i < v.size(); ++i)
    for (std::size_t j = i + 1; j < v.size(); ++j)
      if (v[i] == v[j]) { ++c; break; }
  if (!v.empty()) { memo[next] = Entry{v.size(), v.front(), v.back(), c}; next ^= 1; }
  return c;
}"""


async def test_a_memo_the_probe_misses_is_suspicious_by_its_counts() -> None:
    if shutil.which("valgrind") is None:
        pytest.skip("valgrind not installed")
    site = _site(DUPS, "count_dups")
    settings = RunnerSettings(pairs=8, callgrind=True, run_timeout_s=60.0)
    v = await verify_and_measure(site, DUPS_MEMO_TWO, settings, JobContext(),
                                 tuning=RUNNER_ONLY)
    if v.instructions_ratio is None:
        pytest.skip(f"callgrind unavailable here: {v.notes}")
    assert v.verdict == "suspicious", v.message
    assert v.message.startswith("Wall time says ") and "nothing is applied" in v.message
    assert v.speedup is None and v.measurement is not None
    assert v.instructions_ratio == pytest.approx(1.0, rel=0.2)


FIB = """\
long long fib(int n) {
  if (n < 2) return n;
  return fib(n - 1) + fib(n - 2);
}
"""
FIB_LOOP = """\
long long fib(int n) {
  long long a = 0, b = 1;
  for (int i = 0; i < n; ++i) {
    long long c = a + b;
    a = b;
    b = c;
  }
  return a;
}"""


async def test_an_exponential_original_is_validated_at_the_sizes_it_finishes_at() -> None:
    # The default validation sizes end at 100, where a recursive Fibonacci never returns:
    # the study's scan drops them (instead of waiting out a time limit on every case) and
    # says why, with the sizes the verdict rests on.
    tuning = replace(FAST, edge_sizes=Tuning().edge_sizes, mutants=True, search_rounds=0)
    v = await verify_and_measure(_site(FIB, "fib"), FIB_LOOP, SETTINGS, JobContext(),
                                 tuning=tuning)
    assert v.verdict in ("faster", "noisy"), v.message
    assert v.verification is not None and v.measurement is not None
    sizes = v.verification.sizes
    assert 100 not in sizes and max(sizes) > 7, sizes
    note = next(n for n in v.notes if n.startswith("fib is exponential in n here"))
    assert f"validated at n <= {max(sizes)} (not at " in note and "100)" in note, note
    assert note.endswith(f"timed at n = {v.measurement.size}"), note
    if v.verdict == "faster":
        assert "Sizes: fib is exponential in n here" in v.message


async def test_a_candidate_far_slower_than_the_original_is_stopped_by_its_time() -> None:
    # Agrees at every validation size; past them each call spins for seconds while the
    # original's takes microseconds: timing stops it at 20 times the original's time.
    site = _site(DUPS, "count_dups")
    spin = ("long count_dups(const std::vector<int>& v) {\n"
            "  if (v.size() > 100) { volatile long x = 0;\n"
            "    for (long i = 0; i < 4000000000L; ++i) x = x + 1; }\n"
            "  long c = 0;\n"
            "  for (std::size_t i = 0; i < v.size(); ++i)\n"
            "    for (std::size_t j = i + 1; j < v.size(); ++j)\n"
            "      if (v[i] == v[j]) { ++c; break; }\n"
            "  return c;\n}")
    v = await verify_and_measure(site, spin, SETTINGS, JobContext(), tuning=RUNNER_ONLY)
    assert v.verdict == "slower", v.message
    assert v.speedup is None and v.message.startswith("Far slower: at size "), v.message
    assert "20× the original's time" in v.message


async def test_the_job_budget_stops_a_measurement_and_names_the_stage() -> None:
    from perfpilot.runner.budget import JobBudget

    site = _site(DUPS, "count_dups")
    budget = JobBudget(0.5)
    v = await verify_and_measure(site, DUPS_HASH, SETTINGS, JobContext(), tuning=FAST,
                                 budget=budget, includes=("<unordered_map>",))
    assert v.verdict == "timeout", v.message
    assert v.message.startswith("Stopped after 0.5 s while "), v.message
    assert "runner.jobBudgetS" in v.message
    # The next candidate of the same job is not started at all.
    again = await verify_and_measure(site, DUPS_HASH, SETTINGS, JobContext(), tuning=FAST,
                                     budget=budget, includes=("<unordered_map>",))
    assert again.verdict == "timeout"
    assert "spent on the candidates before this one" in again.message
