"""Verification end to end: valid inputs, mutants, sanitizers, a result channel nobody can forge."""

from __future__ import annotations

import re
import shutil
from dataclasses import replace
from pathlib import Path

import pytest

from perfpilot.code.locate import function_by_name
from perfpilot.progress import JobContext
from perfpilot.runner.measure import verify_and_measure
from perfpilot.runner.mutants import CONSTANT_KINDS, LEVELS, STRONG, schemata
from perfpilot.runner.values import Tuning, Verdict
from perfpilot.runner.verify import call_growth
from perfpilot.settings import RunnerSettings

pytestmark = pytest.mark.skipif(shutil.which("g++") is None or shutil.which("gcc") is None,
                                reason="g++/gcc not installed")

TUNING = Tuning(target_sample_s=0.0005, budget_s=3.0, noisy_retries=0, max_size=1 << 16)
# The capability policy refuses these candidates before any build (they print, write to
# descriptors or keep state); switched off, the runner's own defences must still hold.
UNPOLICED = replace(TUNING, capability_policy=False)
SETTINGS = RunnerSettings(pairs=4, callgrind=False, run_timeout_s=60.0, build_timeout_s=120.0)

HISTOGRAM = """\
#include <cstddef>
#include <vector>

std::vector<long> histogram(const std::vector<int>& v, std::size_t bins) {
  std::vector<long> h(bins, 0);
  for (std::size_t i = 0; i < v.size(); ++i) h[v[i]] += 1;
  return h;
}
"""

SENTINEL = """\
#include <vector>

long checked_sum(const std::vector<int>& v) {
  long s = 0;
  for (int x : v) {
    if (x == 123456789) return -1;
    s += x;
  }
  return s;
}
"""

SIZE_GUARD = """\
#include <vector>

long guarded_sum(const std::vector<int>& v) {
  if (v.size() > 50000000) return -1;
  long s = 0;
  for (int x : v) s += x;
  return s;
}
"""

TOTAL = """\
#include <cstddef>
#include <vector>

long total(const std::vector<int>& v) {
  long s = 0;
  for (std::size_t i = 0; i < v.size(); ++i) s += v[i];
  return s;
}
"""


async def _verdict(unit: str, name: str, candidate: str, language: str = "cpp",
                   tuning: Tuning = TUNING) -> Verdict:
    site = function_by_name(unit, language, name)  # type: ignore[arg-type]
    return await verify_and_measure(site, candidate, SETTINGS, JobContext(), tuning=tuning)


def test_schemata_hold_strong_mutants_and_keep_the_function_text_otherwise() -> None:
    site = function_by_name(SENTINEL, "cpp", "checked_sum")
    sch = schemata(site, LEVELS[0])
    kinds = {m.kind for m in sch.mutants}
    # Every strong kind but those of constants (SENTINEL has no modulus, mask or shift).
    assert kinds >= STRONG - CONSTANT_KINDS
    assert "perfpilot_mutant == " in sch.unit_text
    # Every mutant has its own id, and the descriptions name the code they change.
    assert [m.id for m in sch.mutants] == list(range(1, len(sch.mutants) + 1))
    assert any("return -1" in m.description for m in sch.mutants)


def test_the_originals_time_past_the_timed_size_is_predicted_from_calibration() -> None:
    # (size, ns of the original's call, ns of the candidate's), as calibration tried them.
    growth, ns = call_growth(((1024, 1000, 900), (2048, 2000, 1800)), 2048)
    assert growth == pytest.approx(1.0) and ns == pytest.approx(2000)
    # A recursive Fibonacci: 2000 times slower for twice the size; at 4x it takes hours.
    growth, ns = call_growth(((16, 5_000, 10), (32, 10_000_000, 10)), 32)
    assert growth > 10 and ns * 4 ** growth > 3.6e12
    assert call_growth((), 100) == (1.0, 0.0)


# Each invalid case is a sanitized crash of the original, slow to report: ``make test`` draws
# the natural profile (valid cases) and the signed one (invalid cases), ``make test-deep`` all.
@pytest.mark.parametrize("tuning", [
    pytest.param(replace(TUNING, profiles=(0, 1), seeds_per_profile=1), id="two-profiles"),
    pytest.param(TUNING, id="every-profile", marks=pytest.mark.deep)])
async def test_invalid_cases_are_dropped_not_blamed_on_a_correct_rewrite(tuning: Tuning) -> None:
    # Negative values index out of bounds in the original itself: those cases are invalid
    # inputs; the natural ones (values in [0, n)) still verify a correct rewrite.
    rewrite = """\
std::vector<long> histogram(const std::vector<int>& v, std::size_t bins) {
  std::vector<long> h(bins, 0);
  const int* p = v.data();
  for (std::size_t i = 0, n = v.size(); i < n; ++i) ++h[p[i]];
  return h;
}"""
    v = await _verdict(HISTOGRAM, "histogram", rewrite, tuning=tuning)
    assert v.verdict not in ("incorrect", "build-failed", "timeout"), v.message
    assert v.verification is not None
    assert v.verification.rejected_cases > 0 and v.verification.cases > 0
    assert any("inputs skipped as invalid" in n for n in v.notes), v.notes


async def test_a_candidate_with_undefined_behaviour_is_rejected_with_the_report() -> None:
    # Unrolled by two: for an odd length it reads one element past the end and multiplies
    # it by zero, so every output agrees; only the sanitizer sees the bad read.
    reads_past_the_end = """\
long total(const std::vector<int>& v) {
  long s = 0;
  const int* p = v.data();
  const std::size_t n = v.size();
  for (std::size_t i = 0; i < n; i += 2) s += p[i] + p[i + 1] * (long)(i + 1 < n);
  return s;
}"""
    v = await _verdict(TOTAL, "total", reads_past_the_end)
    assert v.verdict == "incorrect", v.message
    assert "AddressSanitizer" in v.message or "memory error" in v.message


async def test_a_sentinel_value_in_the_code_is_tried_as_an_input() -> None:
    # Dropping the sentinel branch agrees on every value a profile draws (none holds
    # 123456789), but the constants profile draws the code's own numbers.
    dropped = """\
long checked_sum(const std::vector<int>& v) {
  long s = 0;
  for (int x : v) s += x;
  return s;
}"""
    v = await _verdict(SENTINEL, "checked_sum", dropped)
    assert v.verdict == "incorrect", v.message
    assert "constants values" in v.message


async def test_untested_behaviour_makes_a_faster_candidate_weakly_verified() -> None:
    # No generated input is that large: the surviving strong mutant (`return -1` returning
    # the default) shows that this behaviour was never exercised.
    dropped = """\
long guarded_sum(const std::vector<int>& v) {
  long s = 0;
  for (int x : v) s += x;
  return s;
}"""
    v = await _verdict(SIZE_GUARD, "guarded_sum", dropped)
    assert v.verdict != "incorrect", v.message
    assert v.validation_status == "weak", v.validation_detail
    assert v.verification is not None and v.verification.weak
    assert any("return -1" in s for s in v.verification.survivors)
    if v.speedup is not None and v.verdict != "noisy" and v.speedup > 1.03:
        assert v.verdict == "weakly-verified"


async def test_printing_a_fake_result_changes_nothing() -> None:
    # (it reads its parameter: an unused one is a warning, rejected before any run)
    fake = """\
long total(const std::vector<int>& v) {
  (void)v;
  std::puts("{\\"event\\":\\"case\\",\\"profile\\":0,\\"seed\\":1,\\"status\\":\\"ok\\"}");
  std::puts("{\\"event\\":\\"done\\"}");
  return 42;
}"""
    unit = TOTAL.replace("#include <cstddef>", "#include <cstddef>\n#include <cstdio>")
    v = await _verdict(unit, "total", fake, tuning=UNPOLICED)
    assert v.verdict == "incorrect", v.message
    assert v.speedup is None


async def test_writing_to_the_result_channel_is_caught_as_forgery() -> None:
    forger = """\
long total(const std::vector<int>& v) {
  static const char line[] = "{\\"event\\":\\"case\\",\\"status\\":\\"ok\\"}\\n";
  for (int fd = 3; fd < 64; ++fd) (void)!write(fd, line, sizeof line - 1);
  long s = 0;
  for (std::size_t i = 0; i < v.size(); ++i) s += v[i];
  return s;
}"""
    unit = TOTAL.replace("#include <cstddef>", "#include <cstddef>\n#include <unistd.h>")
    v = await _verdict(unit, "total", forger, tuning=UNPOLICED)
    assert v.verdict == "incorrect", v.message
    assert "forged" in v.message


async def test_a_candidate_that_changes_after_validation_is_caught_after_timing() -> None:
    counter = """\
long total(const std::vector<int>& v) {
  static long calls = 0;
  if (++calls > 20) return 0;
  long s = 0;
  for (std::size_t i = 0; i < v.size(); ++i) s += v[i];
  return s;
}"""
    v = await _verdict(TOTAL, "total", counter, tuning=UNPOLICED)
    assert v.verdict == "incorrect", v.message


# Calls of `total` at 2048 elements take about a microsecond: calibration always reaches this
# maximum, so the timed size is the same for every candidate below and 4x it stays cheap.
SMALL_SIZES = replace(TUNING, max_size=2048)
HONEST_TOTAL = """\
long total(const std::vector<int>& v) {
  long s = 0;
  for (int x : v) s += x;
  return s;
}"""


async def test_a_candidate_wrong_only_past_the_timed_size_is_incorrect() -> None:
    honest = await _verdict(TOTAL, "total", HONEST_TOTAL, tuning=SMALL_SIZES)
    assert honest.verdict not in ("incorrect", "build-failed", "timeout", "weakly-verified"), \
        honest.message
    assert honest.verification is not None and honest.measurement is not None
    timed = honest.measurement.size
    found = re.search(r"outputs also agree at size (\d+), (\S+) the timed size",
                      honest.validation_detail)
    assert found, honest.validation_detail
    reached = int(found.group(1))
    assert reached > 2 * timed
    # Wrong only past twice the timed size, and only at the largest size checked.
    for threshold in (2 * timed, reached - 1):
        wrong = HONEST_TOTAL.replace("return s;", f"return v.size() > {threshold} ? s + 1 : s;")
        v = await _verdict(TOTAL, "total", wrong, tuning=SMALL_SIZES)
        assert v.verdict == "incorrect", v.message
        assert "Past the timed size" in v.message and v.speedup is None


FIB_MOD = """\
long long fib_mod(int n) {
  if (n < 2) return n;
  return (fib_mod(n - 1) + fib_mod(n - 2)) % 1000000007;
}
"""
FIB_LOOP = """\
long long fib_mod(int n) {
  long long a = 0, b = 1;
  for (int i = 0; i < n; ++i) {
    long long c = (a + b) % 1000000007;
    a = b;
    b = c;
  }
  return a;
}"""
# The original is exponential: edge sizes stay small enough for it to finish.
FIB_TUNING = replace(TUNING, edge_sizes=(0, 1, 2, 7, 20))


async def test_a_changed_modulus_that_no_valid_input_reaches_is_weakly_verified() -> None:
    # fib(n) stays below the modulus at every size the original finishes at: no input can
    # tell 1000000009 from 1000000007, and the surviving modulus mutants say so.
    v = await _verdict(FIB_MOD, "fib_mod", FIB_LOOP.replace("1000000007", "1000000009"),
                       tuning=FIB_TUNING)
    assert v.verdict not in ("incorrect", "faster"), v.message
    assert v.validation_status == "weak", v.validation_detail
    assert "the modulus 1000000007 on line 3" in v.validation_detail
    # Twice the timed size would take the original far past the budget (or past the time
    # limit, which makes those sizes invalid): not tried.
    assert "not compared past the timed size" in v.validation_detail
    if v.verdict == "weakly-verified":
        assert "modulus 1000000007" in v.message
    # The same rewrite keeping the modulus is not weakened, and says why.
    ok = await _verdict(FIB_MOD, "fib_mod", FIB_LOOP, tuning=FIB_TUNING)
    assert ok.verdict not in ("incorrect", "weakly-verified"), ok.message
    assert ok.validation_status == "passed", ok.validation_detail
    assert ok.verification is not None
    assert any("1000000007" in n and "keeps it unchanged" in n for n in ok.verification.notes)


PAIRS = """\
#include <cstddef>
#include <set>
#include <unordered_set>
#include <utility>
#include <vector>

long distinct_pairs(const std::vector<int>& a, const std::vector<int>& b) {
  std::set<std::pair<int, int>> seen;
  for (std::size_t i = 0; i < a.size() && i < b.size(); ++i) seen.insert({a[i], b[i]});
  return (long)seen.size();
}
"""
PACKED = """\
long distinct_pairs(const std::vector<int>& a, const std::vector<int>& b) {
  std::size_t n = a.size() < b.size() ? a.size() : b.size();
  std::unordered_set<long long> seen;
  seen.reserve(n);
  for (std::size_t i = 0; i < n; ++i) seen.insert(PACK);
  return (long)seen.size();
}"""


async def test_inputs_reach_the_candidates_own_constants() -> None:
    # Keys packed as a * 100000 + b collide once b reaches 100000, a value no profile
    # draws: the candidate's constant joins the inputs.
    wrong = PACKED.replace("PACK", "(long long)a[i] * 100000 + b[i]")
    v = await verify_and_measure(function_by_name(PAIRS, "cpp", "distinct_pairs"), wrong,
                                 SETTINGS, JobContext(), tuning=TUNING)
    assert v.verdict == "incorrect", v.message
    assert "100000" in v.message
    honest = PACKED.replace("PACK", "((unsigned long long)(unsigned)a[i] << 32) | "
                                    "(unsigned)b[i]").replace("<long long>",
                                                              "<unsigned long long>")
    ok = await verify_and_measure(function_by_name(PAIRS, "cpp", "distinct_pairs"), honest,
                                  SETTINGS, JobContext(), tuning=TUNING)
    assert ok.verdict not in ("incorrect", "build-failed", "timeout", "weakly-verified"), \
        ok.message
    assert ok.validation_status == "passed", ok.validation_detail


SILENT_SPEC = """\
#include <perfpilot_bench.hpp>
#include <vector>

using Fn = long (*)(const std::vector<int>&);

struct Bench {
  std::vector<int> v;
  long result = 0;
  void setup(std::size_t n, std::mt19937_64& rng) {
    v.resize(n);
    for (auto& x : v) x = static_cast<int>(rng() % 1000);
    volatile unsigned long long sink = 0;  // slow preparation
    for (int i = 0; i < 200000; ++i) sink = sink + rng();
  }
  void call(Fn f) { result = f(v); }
  void record(perfpilot::Recorder&) const {}
};
PERFPILOT_BENCH(Bench, Fn)
"""


async def test_a_spec_that_records_nothing_claims_no_killed_mutants(tmp_path: Path) -> None:
    spec = tmp_path / "total.bench.cpp"
    spec.write_text(SILENT_SPEC)
    site = function_by_name(TOTAL, "cpp", "total")
    tuning = replace(TUNING, profiles=(0, 1), seeds_per_profile=1, search_seeds=1)
    v = await verify_and_measure(site, "long total(const std::vector<int>& v) "
                                       "{ return 42 + (long)v.size(); }",
                                 SETTINGS, JobContext(), tuning=tuning, spec=spec)
    assert v.verdict not in ("faster", "incorrect"), v.message
    assert v.verification is not None and v.verification.blind
    assert v.verification.killed == 0 and "killed" not in v.validation_detail
    assert v.validation_status == "weak"
    if v.verdict == "weakly-verified":
        assert "records no output" in v.message


FLAGGED = """\
#include <vector>

long flagged_sum(const std::vector<int>& v) {
  long s = 0;
  for (int x : v) {
    if (x == 777777) {
      s -= 1;
    } else {
      s += x;
    }
  }
  return s;
}
"""
FLAGGED_REWRITE = """\
long flagged_sum(const std::vector<int>& v) {
  long s = 0;
  for (std::size_t i = 0; i < v.size(); ++i) s += v[i] == 777777 ? -1 : v[i];
  return s;
}"""
# Two profiles whose values never come near 777777, one seed each: line 7 is never reached.
NARROW = replace(TUNING, profiles=(0, 1), seeds_per_profile=1, search_seeds=0)


async def test_the_input_search_reaches_a_sentinel_branch_and_verifies() -> None:
    without = await _verdict(FLAGGED, "flagged_sum", FLAGGED_REWRITE,
                             tuning=replace(NARROW, search_rounds=0))
    assert without.verdict != "incorrect", without.message
    assert without.validation_status == "weak", without.validation_detail
    assert without.verification is not None and 7 in without.verification.unreached
    assert "never reached: 7" in without.validation_detail
    # The search draws the code's own constants (among other profiles): it reaches line 7,
    # keeps those inputs, and the surviving mutant there is told apart.
    v = await _verdict(FLAGGED, "flagged_sum", FLAGGED_REWRITE, tuning=NARROW)
    assert v.verdict not in ("incorrect", "weakly-verified"), v.message
    assert v.validation_status == "passed", v.validation_detail
    assert v.verification is not None and v.verification.unreached == ()
    assert v.verification.cases > without.verification.cases
    assert "kept: they reached line 7" in v.verification.search, v.verification.search
    # A rewrite that drops the sentinel is now caught by the inputs the search kept.
    dropped = FLAGGED_REWRITE.replace("v[i] == 777777 ? -1 : v[i]", "v[i]")
    wrong = await _verdict(FLAGGED, "flagged_sum", dropped, tuning=NARROW)
    assert wrong.verdict == "incorrect", wrong.message


GUARDED = """\
#include <vector>

long guarded_total(const std::vector<int>& v) {
  if (v.size() > 50000000) {
    return -1;
  }
  long s = 0;
  for (int x : v) s += x;
  return s;
}
"""


async def test_a_line_no_input_can_reach_is_reported_after_the_search() -> None:
    rewrite = """\
long guarded_total(const std::vector<int>& v) {
  long s = 0;
  for (std::size_t i = 0; i < v.size(); ++i) s += v[i];
  return s;
}"""
    v = await _verdict(GUARDED, "guarded_total", rewrite,
                       tuning=replace(NARROW, search_rounds=2, search_budget_s=3.0))
    assert v.verdict not in ("incorrect", "faster"), v.message
    assert v.validation_status == "weak", v.validation_detail
    checked = v.verification
    assert checked is not None and checked.unreached == (5,)
    assert f"1 of {checked.lines} lines never reached: 5" in v.validation_detail
    assert "reached none of line 5" in checked.search, checked.search
    if v.verdict == "weakly-verified":
        assert "never reached: 5" in v.message
