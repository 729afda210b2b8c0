"""The measurement driver on its own: built with the real compiler and run without the engine."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from perfpilot.code.locate import function_by_name
from perfpilot.runner.build import install_headers
from perfpilot.runner.driver_run import LIB_A, LIB_B, layout_copies, pairs_of, parse_events
from perfpilot.runner.entry import entry_source
from perfpilot.runner.harness import harness_source

pytestmark = pytest.mark.skipif(shutil.which("g++") is None, reason="g++ not installed")

UNIT = """\
#include <vector>
long total(const std::vector<int>& v) {
  long s = 0;
  for (int x : v) s += x;
  return s;
}
"""


@pytest.fixture(scope="module")
def workdir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder with liba.so, libb.so (the same unit) and the driver, built by g++."""
    w = tmp_path_factory.mktemp("driver")
    site = function_by_name(UNIT, "cpp", "total")
    install_headers(w)
    for lib in (LIB_A, LIB_B):
        side = Path(lib).parent
        (w / side).mkdir()
        (w / side / "unit.cpp").write_text(UNIT + "\n" + entry_source(site), encoding="utf-8")
        subprocess.run(["g++", "-std=c++17", "-O2", "-fPIC", "-shared", f"{side}/unit.cpp",
                        "-o", lib], cwd=w, check=True)
    (w / "bench_main.cpp").write_text(
        harness_source(site) + "\n#include <perfpilot_driver.hpp>\n", encoding="utf-8")
    subprocess.run(["g++", "-std=c++17", "-O2", "-Iinclude", "bench_main.cpp", "-o", "driver",
                    "-ldl"], cwd=w, check=True)
    return w


def _driver(w: Path, *argv: str) -> list[dict[str, object]]:
    out = subprocess.run(["./driver", *argv], cwd=w, capture_output=True, text=True, timeout=60)
    return list(parse_events(out.stdout))


def test_layout_copies_are_identical_files(tmp_path: Path) -> None:
    (tmp_path / "a").mkdir()
    (tmp_path / LIB_A).write_bytes(b"\x7fELF library bytes")
    names = layout_copies(tmp_path, LIB_A, 3).split(",")
    assert names == [LIB_A, "a/liba.1.so", "a/liba.2.so"]
    assert {(tmp_path / n).read_bytes() for n in names} == {b"\x7fELF library bytes"}
    assert layout_copies(tmp_path, LIB_A, 1) == LIB_A


def test_timing_rotates_over_every_copy(workdir: Path) -> None:
    libs_a = layout_copies(workdir, LIB_A, 3)
    libs_b = layout_copies(workdir, LIB_B, 3)
    events = _driver(workdir, "time", libs_a, libs_b, "target_ns=200000", "pairs=18",
                     "max_pairs=18", "warmup=1")
    chosen = next(e for e in events if e["event"] == "chosen")
    assert chosen["copies"] == [3, 3]
    timing = next(e for e in events if e["event"] == "timing")
    assert len(pairs_of(timing)) == 18
    assert all(p.a_ns > 0 and p.b_ns > 0 for p in pairs_of(timing))


def test_validation_agrees_across_copies(workdir: Path) -> None:
    events = _driver(workdir, "validate", layout_copies(workdir, LIB_A, 2), LIB_B,
                     "sizes=0,1,9")
    assert [e["event"] for e in events if e["event"] in ("ok", "mismatch", "done")] == [
        "ok", "ok", "ok", "done"]


def test_a_missing_copy_is_a_load_error_of_its_side(workdir: Path) -> None:
    events = _driver(workdir, "time", LIB_A, f"{LIB_B},b/missing.so")
    error = next(e for e in events if e["event"] == "load-error")
    assert error["side"] == "B"
    assert "missing.so" in str(error["message"])
