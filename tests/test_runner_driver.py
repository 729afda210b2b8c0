"""The measurement driver on its own: built with the real compiler and run without the engine."""

from __future__ import annotations

import asyncio
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from perfpilot.code.locate import function_by_name
from perfpilot.progress import JobContext
from perfpilot.runner.build import compile_placed, compile_shared, install_headers, write_source
from perfpilot.runner.channel import ChannelKey, Events, read_events, siphash24
from perfpilot.runner.driver_run import LIB_A, LIB_B, layout_copies, pairs_of, parse_events
from perfpilot.runner.entry import entry_source
from perfpilot.runner.harness import harness_source
from perfpilot.runner.measurement_inputs import resolve_inputs
from perfpilot.runner.sandbox import detect_sandbox
from perfpilot.runner.toolchain import make_toolchain
from perfpilot.settings import RunnerSettings

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


async def test_layout_copies_place_the_same_code_at_different_offsets(tmp_path: Path) -> None:
    site = function_by_name(UNIT, "cpp", "total")
    tc = make_toolchain(resolve_inputs(RunnerSettings(), site), UNIT, "")
    sandbox = await detect_sandbox(False)
    built = await compile_placed(sandbox, tc, tmp_path, "a", UNIT + entry_source(site),
                                 "unit.cpp", copies=4, timeout_s=120, ctx=JobContext())
    assert built.ok, built.log
    names = layout_copies(tmp_path, LIB_A, 4).split(",")
    assert names == [LIB_A, "a/liba.1.so", "a/liba.2.so", "a/liba.3.so"]
    offsets = []
    for name in names:
        out = subprocess.run(["nm", "-D", "--defined-only", name], cwd=tmp_path,
                             capture_output=True, text=True, check=True).stdout
        line = next(ln for ln in out.splitlines() if ln.endswith(" perfpilot_entry"))
        offsets.append(int(line.split()[0], 16))
    # The same function sits at another offset within a 64-byte window in every copy.
    assert len({off % 64 for off in offsets}) == 4, [hex(o) for o in offsets]


def test_a_source_being_compiled_is_never_seen_half_written(tmp_path: Path) -> None:
    path = tmp_path / "unit.cpp"
    write_source(path, UNIT)
    first = path.stat()
    with path.open(encoding="utf-8") as reading:
        # The same text again: the file a compiler may be reading is left as it is.
        write_source(path, UNIT)
        assert path.stat().st_ino == first.st_ino and path.stat().st_mtime_ns == first.st_mtime_ns
        # A new text arrives whole, in one rename: a reader of the old file still reads it all.
        write_source(path, UNIT + "// changed\n")
        assert reading.read() == UNIT
    assert path.read_text(encoding="utf-8") == UNIT + "// changed\n"
    assert path.stat().st_mode & 0o044 == 0o044 & ~_umask()  # readable as before
    assert [p.name for p in tmp_path.iterdir()] == ["unit.cpp"]


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


async def test_timing_and_sanitized_builds_of_one_side_run_side_by_side(tmp_path: Path) -> None:
    # They start together and write the same a/unit.cpp: every library must hold the unit.
    site = function_by_name(UNIT, "cpp", "total")
    tc = make_toolchain(resolve_inputs(RunnerSettings(), site), UNIT, "")
    sandbox = await detect_sandbox(False)
    unit = UNIT + entry_source(site)
    for _ in range(3):
        placed, shared = await asyncio.gather(
            compile_placed(sandbox, tc, tmp_path, "a", unit, "unit.cpp", copies=4,
                           timeout_s=120, ctx=JobContext()),
            compile_shared(sandbox, tc, tmp_path, "a", unit, "unit.cpp", timeout_s=120,
                           ctx=JobContext(), tag="_san"))
        assert placed.ok and shared.ok, (placed.log, shared.log)
        for name in [*layout_copies(tmp_path, LIB_A, 4).split(","), shared.output]:
            out = subprocess.run(["nm", "-D", "--defined-only", name], cwd=tmp_path,
                                 capture_output=True, text=True, check=True).stdout
            assert " perfpilot_entry" in out, name


def _copies(w: Path, lib: str, n: int) -> str:
    for k in range(1, n):
        shutil.copy2(w / lib, w / lib.replace(".so", f".{k}.so"))
    return layout_copies(w, lib, n)


def test_timing_rotates_over_every_copy(workdir: Path) -> None:
    libs_a = _copies(workdir, LIB_A, 3)
    libs_b = _copies(workdir, LIB_B, 3)
    events = _driver(workdir, "time", libs_a, libs_b, "target_ns=200000", "pairs=18",
                     "max_pairs=18", "warmup=1")
    chosen = next(e for e in events if e["event"] == "chosen")
    assert chosen["copies"] == [3, 3]
    timing = next(e for e in events if e["event"] == "timing")
    assert len(pairs_of(timing)) == 18
    assert all(p.a_ns > 0 and p.b_ns > 0 for p in pairs_of(timing))


def test_check_runs_every_case_and_agrees(workdir: Path) -> None:
    events = _driver(workdir, "check", _copies(workdir, LIB_A, 2), LIB_B,
                     "sizes=0,1,9", "cases=0:1,1:1,4:2")
    cases = [e for e in events if e["event"] == "case"]
    assert [(c["profile"], c["seed"], c["status"]) for c in cases] == [
        (0, 1, "ok"), (1, 1, "ok"), (4, 2, "ok")]
    assert events[-1]["event"] == "done"


def _tagged_run(w: Path, key: ChannelKey, *argv: str) -> tuple[str, str]:
    """Run the driver with a channel pipe and a key; (channel text, stdout)."""
    read_fd, write_fd = os.pipe()
    proc = subprocess.Popen(["./driver", *argv, f"channel={write_fd}"], cwd=w,
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=False,
                            pass_fds=(write_fd,))
    os.close(write_fd)
    assert proc.stdin is not None and proc.stdout is not None
    proc.stdin.write(key.handshake())
    proc.stdin.close()
    with os.fdopen(read_fd, "rb") as f:
        channel = f.read().decode()
    out = proc.stdout.read().decode()
    proc.wait(timeout=60)
    return channel, out


def test_channel_lines_are_tagged_and_verified(workdir: Path) -> None:
    key = ChannelKey.fresh()
    channel, out = _tagged_run(workdir, key, "check", LIB_A, LIB_B, "sizes=1", "cases=0:1")
    assert out == ""  # nothing on stdout: events travel on the channel only
    parsed = read_events(channel, key)
    assert parsed.forged == 0
    assert [e["event"] for e in parsed.events] == ["case", "done"]
    # Another key (a forger's guess) verifies nothing, and a hand-written event is a forgery.
    assert read_events(channel, ChannelKey.fresh()).forged == 2
    fake = '{"event":"done","mac":"0123456789abcdef"}\n{"event":"timing","pairs":[]}\n'
    assert read_events(fake, key) == Events((), 2)


def test_siphash_matches_the_reference_vector() -> None:
    # The SipHash paper's test vector: key 00..0f, message 00..0e.
    k0 = int.from_bytes(bytes(range(8)), "little")
    k1 = int.from_bytes(bytes(range(8, 16)), "little")
    assert siphash24(k0, k1, bytes(range(15))) == 0xA129CA6149BE45E5


def test_a_missing_copy_is_a_load_error_of_its_side(workdir: Path) -> None:
    events = _driver(workdir, "time", LIB_A, f"{LIB_B},b/missing.so")
    error = next(e for e in events if e["event"] == "load-error")
    assert error["side"] == "B"
    assert "missing.so" in str(error["message"])


# Candidates that answer from memory of their last input, for the memory probe and the
# alternating timing. Each counts its calls and the ones it answered from memory, and writes
# both to a file when the driver exits.
_MEMO_REPORT = """\
#include <cstdio>
#include <vector>
static long calls = 0, hits = 0;
static struct Report {
  ~Report() {
    if (FILE* f = std::fopen("memo_hits.txt", "w")) {
      std::fprintf(f, "%ld %ld", calls, hits);
      std::fclose(f);
    }
  }
} report;
"""
MEMO_BY_ADDRESS = _MEMO_REPORT + """\
long total(const std::vector<int>& v) {
  static const int* last = nullptr;
  static long answer = 0;
  ++calls;
  if (v.data() == last && last != nullptr) { ++hits; return answer; }
  long s = 0;
  for (int x : v) s += x;
  last = v.data();
  answer = s;
  return s;
}
"""
MEMO_BY_LENGTH = _MEMO_REPORT + """\
long total(const std::vector<int>& v) {
  static std::size_t last = 0;
  static long answer = 0;
  ++calls;
  if (v.size() == last) { ++hits; return answer; }
  long s = 0;
  for (int x : v) s += x;
  last = v.size();
  answer = s;
  return s;
}
"""
# A fingerprint that tells the probe's two inputs apart: the probe cannot catch it, but with
# one entry it never answers a timed call from memory.
MEMO_BY_FINGERPRINT = _MEMO_REPORT + """\
long total(const std::vector<int>& v) {
  struct Key { std::size_t n; int first, last; long answer; };
  static Key memo{~std::size_t{0}, 0, 0, 0};
  ++calls;
  if (!v.empty() && v.size() == memo.n && v.front() == memo.first && v.back() == memo.last) {
    ++hits;
    return memo.answer;
  }
  long s = 0;
  for (int x : v) s += x;
  if (!v.empty()) memo = Key{v.size(), v.front(), v.back(), s};
  return s;
}
"""


def _memo_lib(w: Path, name: str, unit: str) -> str:
    site = function_by_name(UNIT, "cpp", "total")
    (w / f"{name}.cpp").write_text(unit + "\n" + entry_source(site), encoding="utf-8")
    subprocess.run(["g++", "-std=c++17", "-O2", "-fPIC", "-shared", f"{name}.cpp", "-o",
                    f"{name}.so"], cwd=w, check=True)
    return f"./{name}.so"


@pytest.mark.parametrize("unit", [MEMO_BY_ADDRESS, MEMO_BY_LENGTH], ids=["address", "length"])
def test_the_memory_probe_catches_an_answer_from_memory(workdir: Path, unit: str) -> None:
    lib = _memo_lib(workdir, "memo", unit)
    # Fresh inputs at each size: without the probe such a memo can pass every check.
    args = ("sizes=0,1,9,33", "cases=0:1,1:1")
    events = _driver(workdir, "check", LIB_A, lib, *args, "probe=1")
    mismatch = next(e for e in events if e["event"] == "mismatch")
    assert mismatch["probe"] is True and mismatch["memory"] is True, mismatch
    assert mismatch["size"] == 9  # the second-largest size: small, but not trivial
    assert str(mismatch["detail"]).startswith("after its input was overwritten in place: "
                                              "original return value = ")
    # The original against itself agrees on the probe too; alone it runs its half of it.
    same = _driver(workdir, "check", LIB_A, LIB_B, *args, "probe=1")
    assert [e["status"] for e in same if e["event"] == "case"] == ["ok", "ok"]
    alone = _driver(workdir, "check", LIB_A, lib, *args, "probe=1", "sides=A")
    assert [e["status"] for e in alone if e["event"] == "case"] == ["ok", "ok"]


def test_timing_probes_the_timed_size_before_timing(workdir: Path) -> None:
    lib = _memo_lib(workdir, "memo_time", MEMO_BY_ADDRESS)
    events = _driver(workdir, "time", LIB_A, lib, "target_ns=200000", "pairs=6")
    mismatch = next(e for e in events if e["event"] == "mismatch")
    assert mismatch["memory"] is True and "after" not in mismatch
    assert not any(e["event"] == "timing" for e in events)


def test_timing_alternates_inputs_so_a_memo_never_answers_a_timed_call(workdir: Path) -> None:
    lib = _memo_lib(workdir, "memo_print", MEMO_BY_FINGERPRINT)
    (workdir / "memo_hits.txt").unlink(missing_ok=True)
    events = _driver(workdir, "time", LIB_A, lib, "target_ns=200000", "pairs=12",
                     "max_pairs=12", "warmup=1")
    timing = next(e for e in events if e["event"] == "timing")
    reps = int(str(timing["reps"]))
    assert reps % 2 == 0  # every sample calls both inputs equally often
    calls, hits = map(int, (workdir / "memo_hits.txt").read_text().split())
    timed_calls = (12 + 1) * reps  # the pairs' calls and the warm-up
    assert calls > timed_calls
    # Only calibration, which calls each side twice on one input per size, is answered from
    # memory, and the first call of the probe and of the warm-up (each follows a call on the
    # same input); no timed call is, where one input would have given hits on all of them.
    calibrations = sum(1 for e in events if e["event"] == "calib")
    assert hits <= calibrations + 2, (hits, calibrations, calls)
