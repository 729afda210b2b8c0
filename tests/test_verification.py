"""Verification end to end: valid inputs, mutants, sanitizers, a result channel nobody can forge."""

from __future__ import annotations

import shutil
from dataclasses import replace

import pytest

from perfpilot.code.locate import function_by_name
from perfpilot.code.mutants import LEVELS, STRONG, schemata
from perfpilot.progress import JobContext
from perfpilot.runner.measure import verify_and_measure
from perfpilot.runner.values import Tuning, Verdict
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
    assert kinds >= STRONG
    assert "perfpilot_mutant == " in sch.unit_text
    # Every mutant has its own id, and the descriptions name the code they change.
    assert [m.id for m in sch.mutants] == list(range(1, len(sch.mutants) + 1))
    assert any("return -1" in m.description for m in sch.mutants)


async def test_invalid_cases_are_dropped_not_blamed_on_a_correct_rewrite() -> None:
    # Negative values index out of bounds in the original itself: those cases are invalid
    # inputs; the natural ones (values in [0, n)) still verify a correct rewrite.
    rewrite = """\
std::vector<long> histogram(const std::vector<int>& v, std::size_t bins) {
  std::vector<long> h(bins, 0);
  const int* p = v.data();
  for (std::size_t i = 0, n = v.size(); i < n; ++i) ++h[p[i]];
  return h;
}"""
    v = await _verdict(HISTOGRAM, "histogram", rewrite)
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


async def test_untested_behaviour_makes_a_faster_candidate_weakly_verified() -> None:
    # Dropping the sentinel branch agrees on every generated input (none holds 123456789):
    # the surviving strong mutant shows that this behaviour was never exercised.
    dropped = """\
long checked_sum(const std::vector<int>& v) {
  long s = 0;
  for (int x : v) s += x;
  return s;
}"""
    v = await _verdict(SENTINEL, "checked_sum", dropped)
    assert v.verdict != "incorrect", v.message
    assert v.validation_status == "weak", v.validation_detail
    assert v.verification is not None and v.verification.weak
    assert any("return -1" in s for s in v.verification.survivors)
    if v.speedup is not None and v.verdict != "noisy" and v.speedup > 1.03:
        assert v.verdict == "weakly-verified"


async def test_printing_a_fake_result_changes_nothing() -> None:
    fake = """\
long total(const std::vector<int>& v) {
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
