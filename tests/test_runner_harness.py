"""The generated harness: which signatures it accepts, and that its source compiles."""

from __future__ import annotations

import shutil
import subprocess
from importlib import resources
from pathlib import Path

import pytest

from perfpilot.code.locate import function_by_name
from perfpilot.engine.settings import RunnerSettings
from perfpilot.progress import JobContext
from perfpilot.runner.entry import EntryError, entry_source
from perfpilot.runner.harness import HarnessUnsupported, classify, harness_source
from perfpilot.runner.measure import verify_and_measure
from perfpilot.runner.values import Tuning

INCLUDE = Path(str(resources.files("perfpilot.runner") / "include"))
FAST = Tuning(target_sample_s=0.002, edge_sizes=(0, 1, 7), budget_s=10.0, noisy_retries=2,
              # Verification itself is tested in test_verification*.py: fewer cases here.
              profiles=(0, 1), seeds_per_profile=1, mutants=False, coverage=False)
SETTINGS = RunnerSettings(pairs=10, callgrind=False, run_timeout_s=30.0)

SIGNATURES = {
    "nested": ("#include <vector>\nusing namespace std;\n"
               "int total(const vector<vector<int>>& m) { int s = 0; for (auto& r : m) "
               "for (int x : r) s += x; return s; }", "total"),
    "alias": ("#include <vector>\ntypedef long long ll;\n"
              "ll sum(const std::vector<ll>& v, int k) { ll s = 0; for (ll x : v) s += x * k; "
              "return s; }", "sum"),
    "buffer": ("#include <cstddef>\nvoid axpy(double a, const double* x, double* y, "
               "std::size_t n) { for (std::size_t i = 0; i < n; ++i) y[i] += a * x[i]; }",
               "axpy"),
    "string": ("#include <string>\nvoid upper(std::string& s) { for (auto& c : s) "
               "c = (char)(c - 32); }", "upper"),
    "returns_vector": ("#include <vector>\nstd::vector<int> squares(int n) { std::vector<int> "
                       "v(n); for (int i = 0; i < n; ++i) v[i] = i * i; return v; }",
                       "squares"),
    "cstring": ("#include <cstring>\nint vowels(const char* s) { int c = 0; "
                "for (; *s; ++s) c += std::strchr(\"aeiou\", *s) != nullptr; return c; }",
                "vowels"),
}


@pytest.mark.parametrize("key", sorted(SIGNATURES))
def test_supported_signatures_generate_compilable_benches(key: str, tmp_path: Path) -> None:
    if shutil.which("g++") is None:
        pytest.skip("g++ not installed")
    unit, name = SIGNATURES[key]
    site = function_by_name(unit, "cpp", name)
    source = harness_source(site)
    assert "PERFPILOT_BENCH" in source
    # The unit with its entry must compile too (as both builds will).
    (tmp_path / "unit.cpp").write_text(unit + "\n" + entry_source(site))
    (tmp_path / "bench.cpp").write_text(source + "\n#include <perfpilot_driver.hpp>\n")
    for file in ("unit.cpp", "bench.cpp"):
        res = subprocess.run(["g++", "-std=c++17", "-fsyntax-only", f"-I{INCLUDE}", file],
                             cwd=tmp_path, capture_output=True, text=True, timeout=120)
        assert res.returncode == 0, res.stderr


def test_mutated_and_size_parameters_are_classified() -> None:
    unit, name = SIGNATURES["buffer"]
    args, _ = classify(function_by_name(unit, "cpp", name))
    kinds = {a.param.name: (a.kind, a.mutated) for a in args}
    assert kinds == {"a": ("scalar", False), "x": ("buffer", False), "y": ("buffer", True),
                     "n": ("size", False)}
    unit, name = SIGNATURES["returns_vector"]
    args, _ = classify(function_by_name(unit, "cpp", name))
    assert args[0].kind == "size"  # the only scalar scales the work


@pytest.mark.parametrize("unit,name,why", [
    ("struct P { int x; };\nint get(P p) { return p.x; }", "get", "'p'"),
    ("int first(const int* a) { return a[0]; }", "first", "size parameter"),
    ("template <class T> T id(T x) { return x; }", "id", "template"),
    ("struct S { int v; int get() const { return v; } };", "get", "member"),
    ("int* ptr(int n) { static int x; return &x + n * 0; }", "ptr", "return type"),
])
def test_unsupported_signatures_name_the_reason(unit: str, name: str, why: str) -> None:
    site = function_by_name(unit, "cpp", name)
    with pytest.raises(HarnessUnsupported, match=why):
        harness_source(site)


def test_entry_refuses_member_functions() -> None:
    site = function_by_name("struct S { int v; int get() const { return v; } };", "cpp", "get")
    with pytest.raises(EntryError):
        entry_source(site)


def test_entry_reopens_the_namespace() -> None:
    unit = "namespace geo { namespace {\nint sq(int a) { return a * a; }\n} }\n"
    text = entry_source(function_by_name(unit, "cpp", "sq"))
    assert "namespace geo {" in text and "namespace {" in text
    assert "geo::perfpilot_trampoline" in text


@pytest.mark.skipif(shutil.which("g++") is None, reason="g++ not installed")
async def test_mutated_string_argument_is_compared() -> None:
    unit, name = SIGNATURES["string"]
    site = function_by_name(unit, "cpp", name)
    wrong = "void upper(std::string& s) { for (std::size_t i = 1; i < s.size(); ++i) " \
            "s[i] = (char)(s[i] - 32); }"
    v = await verify_and_measure(site, wrong, SETTINGS, JobContext(), tuning=FAST)
    assert v.verdict == "incorrect"
    assert v.validation_detail.startswith("size 1: original s = ")


@pytest.mark.skipif(shutil.which("g++") is None, reason="g++ not installed")
async def test_by_value_objects_and_aliased_scalars_reach_the_function() -> None:
    unit = ("#include <vector>\nusing namespace std;\ntypedef long long ll;\n"
            "ll weighted(vector<ll> v, ll k) { ll s = 0; for (ll x : v) s += x * k; return s; }\n")
    site = function_by_name(unit, "cpp", "weighted")
    # The candidate takes the vector by const reference: same call, no copy.
    better = ("ll weighted(const vector<ll>& v, ll k) { ll s = 0; for (ll x : v) s += x * k; "
              "return s; }")
    v = await verify_and_measure(site, better, SETTINGS, JobContext(), tuning=FAST)
    assert v.validation_status == "passed", v.message
    wrong = better.replace("x * k", "x * (k + 1)")
    bad = await verify_and_measure(site, wrong, SETTINGS, JobContext(), tuning=FAST)
    assert bad.verdict == "incorrect"
