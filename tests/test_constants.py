"""Constants of a function: their values, roles, mutants and the input pool built from them."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from perfpilot.code.locate import function_by_name
from perfpilot.code.site import FunctionSite
from perfpilot.runner.constants import (
    function_constants,
    input_pool,
    literal_value,
    pool_arg,
    unit_literals,
)
from perfpilot.runner.mutants import LEVELS, schemata
from perfpilot.runner.values import Verification
from perfpilot.runner.verify import mutant_outcome

UNIT = """\
#include <array>
#define MOD 1000000007
static const long long BASE = 1e5;

long mix(const int* a, int n, unsigned x) {
  int table[16] = {0};
  std::array<int, 4> quad{};
  long r = 0;
  switch (n) {
    case 3: r = 1; break;
    default: break;
  }
  for (int i = 0; i < n; ++i) {
    r = (r * BASE + a[i]) % MOD;
    r += (x & 0xFFu) >> 3;
    if (a[i] > 250) r -= 2;
  }
  return r + table[n & 15] + quad[0];
}
"""


def _site() -> FunctionSite:
    return function_by_name(UNIT, "cpp", "mix")


def test_literal_values_follow_c_spelling() -> None:
    assert literal_value("42") == 42
    assert literal_value("0x2Au") == 42
    assert literal_value("1'000'000") == 1000000
    assert literal_value("0b101") == 5
    assert literal_value("017") == 15
    assert literal_value("1e9") == 1e9
    assert literal_value(".5f") == 0.5
    assert literal_value("100000ULL") == 100000
    assert literal_value("abc") is None


def test_constants_have_roles_and_named_constants_resolve() -> None:
    site = _site()
    found = function_constants(UNIT, "cpp", site.start_byte, site.end_byte)
    by_text = {(c.text, c.role): c for c in found}
    assert by_text[("MOD", "modulus")].value == 1000000007
    assert by_text[("BASE", "factor")].value == 100000
    assert by_text[("0xFFu", "mask")].value == 255
    assert by_text[("3", "shift")].value == 3
    assert by_text[("250", "constant")].rewritable
    # Array sizes, case labels and template arguments need constant expressions.
    assert not by_text[("16", "constant")].rewritable
    assert not by_text[("4", "constant")].rewritable
    assert any(c.text == "3" and not c.rewritable for c in found)
    assert "the modulus MOD (1000000007)" in [c.describe() for c in found]
    # A const local computed at run time is no constant expression; one made of numbers is.
    local = ("long g(long a) { const long m = a % 97; const int k = 10; int b[k]; "
             "return m + k + b[0]; }")
    kinds = {c.text: c.rewritable for c in function_constants(local, "cpp", 0, len(local))}
    assert kinds["97"] and not kinds["10"]


def test_the_input_pool_drops_trivial_values_and_repeats() -> None:
    pool = input_pool([0, 1, -1, 7, 7, 2.5, 1e9, float("inf"), 1 << 70])
    assert pool == (7, 2.5, 1000000000)
    assert pool_arg(pool) == "7,2.5,1000000000"
    assert 100000 in unit_literals(UNIT, "cpp")


def test_constant_mutants_change_the_modulus_mask_and_shift_and_compile(tmp_path: Path) -> None:
    sch = schemata(_site(), LEVELS[0])
    strong = [m for m in sch.mutants if m.kind in ("change-constant", "drop-operation")
              and m.strong]
    subjects = {m.subject for m in strong}
    assert {"the modulus MOD (1000000007)", "the mask 0xFFu", "the shift 3"} <= subjects
    assert any(m.kind == "drop-operation" and m.role == "modulus" for m in strong)
    weak = [m for m in sch.mutants if m.kind == "change-constant" and not m.strong]
    assert any(m.value == "250" for m in weak)
    # 0 and 1 (loop starts, increments) are left alone; so are constant expressions.
    assert not any(m.value in ("0", "1", "16", "4") for m in sch.mutants if m.subject)
    assert len([m for m in sch.mutants if m.subject]) <= 24
    if shutil.which("g++") is None:
        pytest.skip("g++ not installed")
    src = tmp_path / "schemata.cpp"
    src.write_text(sch.unit_text)
    done = subprocess.run(["g++", "-std=c++17", "-fsyntax-only", str(src)],
                          capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr


def test_only_differing_outputs_or_the_mutants_own_failure_decide_a_mutant() -> None:
    assert mutant_outcome({"status": "mismatch", "side": ""}, True) == "killed"
    assert mutant_outcome({"status": "ok", "side": ""}, True) == "survived"
    assert mutant_outcome({"status": "crash", "side": "B"}, False) == "killed"
    assert mutant_outcome({"status": "timeout", "side": "B"}, True) == "killed"
    # A limit cut short cannot tell a hang from slow inputs; setting inputs up or the
    # original's own call running out of time says nothing about the mutant.
    assert mutant_outcome({"status": "timeout", "side": "B"}, False) == "timed out"
    assert "outside" in mutant_outcome({"status": "timeout", "side": ""}, True)
    assert "outside" in mutant_outcome({"status": "crash", "side": "A"}, True)


def test_a_mutant_call_far_longer_than_the_originals_on_the_same_input_is_a_hang() -> None:
    # The original's call took 5 ms on the input the mutant's call was stuck in for 2.5 s.
    hung = {"status": "timeout", "side": "B", "a_ns": 5_000_000, "b_ns": 2_500_000_000}
    assert mutant_outcome(hung, False) == "killed"
    # Only a few times slower, or no timing of the original on that input: not decided.
    slow = {"status": "timeout", "side": "B", "a_ns": 200_000_000, "b_ns": 900_000_000}
    assert mutant_outcome(slow, False) == "timed out"
    assert mutant_outcome({"status": "timeout", "side": "B", "a_ns": 0,
                           "b_ns": 2_500_000_000}, False) == "timed out"
    # A blink is never a hang, however small the original's time.
    assert mutant_outcome({"status": "timeout", "side": "B", "a_ns": 1_000,
                           "b_ns": 150_000_000}, False) == "timed out"


def test_undecided_and_blind_verifications_claim_no_kills() -> None:
    v = Verification(cases=4, sizes=(0, 1), mutants=7, killed=5, undecided=2,
                     survivors=("line 3: `x = 1;` skipped (not decided: timed out)",),
                     strong_survivors=1)
    assert "5/7 mutants killed, 2 not decided" in v.phrase()
    assert v.weak and "skipped" in v.weakness()
    blind = Verification(cases=4, sizes=(0, 1), blind=True)
    assert blind.weak and "killed" not in blind.phrase()
    assert "records no output" in blind.weakness()
    assert Verification.from_json(v.to_json()) == v
