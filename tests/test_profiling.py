"""Profiling with the real tools: a small C program built with -g, profiled by perf or callgrind,
and profiles the real tools wrote (perf script, callgrind, gprof) imported."""

from __future__ import annotations

import asyncio
import functools
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from perfpilot.cli import main
from perfpilot.profiling import perf
from perfpilot.profiling.run import import_profile, profile_command
from perfpilot.profiling.values import FunctionCost, Profile

PROGRAM = """\
#include <stdio.h>
#include <stdlib.h>

__attribute__((noinline)) static double heavy(int n) {   /* heavy: first */
    double s = 0;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < 2000; j++)
            s += (i ^ j) * 0.5;                          /* heavy: body */
    return s;
}

__attribute__((noinline)) static double light(int n) {
    double s = 0;
    for (int i = 0; i < n; i++)
        s += i * 0.25;
    return s;
}

int main(int argc, char **argv) {
    int n = argc > 1 ? atoi(argv[1]) : 20000;
    printf("%f %f\\n", heavy(n), light(n));
    return 0;
}
"""

needs_gcc = pytest.mark.skipif(shutil.which("gcc") is None, reason="gcc is not installed")


def _line_of(marker: str) -> int:
    return next(i for i, line in enumerate(PROGRAM.splitlines(), 1) if marker in line)


def _build(tmp: Path, *extra: str) -> Path:
    src = tmp / "prog.c"
    src.write_text(PROGRAM, encoding="utf-8")
    exe = tmp / "prog"
    subprocess.run(["gcc", "-g", "-O1", *extra, str(src), "-o", str(exe)], check=True)
    return exe


@functools.cache
def _perf_ok() -> bool:
    return asyncio.run(perf.perf_works())


def _by_name(profile: Profile, name: str) -> FunctionCost:
    return next(f for f in profile.functions if f.name == name)


def _check_hot(profile: Profile, src: Path, min_share: float) -> None:
    """The hot function leads, with a plausible share and its real place in the source."""
    top = profile.hottest(1)[0]
    assert top.name == "heavy"
    assert top.self_share >= min_share
    assert Path(top.file).resolve() == src.resolve()
    assert top.first_line <= _line_of("heavy: first") + 1
    assert _line_of("heavy: body") <= top.last_line < _line_of("light(int n)")
    main_fn = _by_name(profile, "main")
    # main only calls: its own share is small, its inclusive share holds heavy's.
    assert main_fn.self_share < 0.2
    assert main_fn.inclusive_share >= top.self_share - 0.02
    light = _by_name(profile, "light") if any(
        f.name == "light" for f in profile.functions) else None
    if light is not None:
        assert light.self_share < top.self_share


@needs_gcc
def test_perf_finds_the_hot_function(tmp_path: Path) -> None:
    if not _perf_ok():
        pytest.skip("perf record -e cpu-clock does not work on this machine")
    exe = _build(tmp_path)
    profile = asyncio.run(profile_command([str(exe), "150000"], tmp_path, profiler="perf"))
    assert profile.tool == "perf"
    assert profile.event.startswith("cpu-clock")
    _check_hot(profile, tmp_path / "prog.c", 0.6)


@needs_gcc
def test_callgrind_finds_the_hot_function(tmp_path: Path) -> None:
    if shutil.which("valgrind") is None:
        pytest.skip("valgrind is not installed")
    exe = _build(tmp_path)
    profile = asyncio.run(profile_command([str(exe), "3000"], tmp_path,
                                          profiler="callgrind"))
    assert profile.tool == "callgrind"
    assert profile.event == "Ir"
    _check_hot(profile, tmp_path / "prog.c", 0.8)


@needs_gcc
def test_import_perf_script_text(tmp_path: Path) -> None:
    if not _perf_ok():
        pytest.skip("perf record -e cpu-clock does not work on this machine")
    exe = _build(tmp_path)
    data = tmp_path / "perf.data"
    subprocess.run(["perf", "record", "-q", "-e", "cpu-clock", "--call-graph", "dwarf",
                    "-o", str(data), "--", str(exe), "150000"], check=True,
                   capture_output=True)
    text = subprocess.run(["perf", "script", "-i", str(data)], check=True,
                          capture_output=True, text=True).stdout
    script = tmp_path / "out.perf"
    script.write_text(text, encoding="utf-8")
    profile = asyncio.run(import_profile(script))
    assert profile.tool == "perf"
    _check_hot(profile, tmp_path / "prog.c", 0.6)
    # perf.data itself is read through perf script.
    again = asyncio.run(import_profile(data))
    assert again.hottest(1)[0].name == "heavy"


@needs_gcc
def test_import_callgrind_file(tmp_path: Path) -> None:
    if shutil.which("valgrind") is None:
        pytest.skip("valgrind is not installed")
    exe = _build(tmp_path)
    out = tmp_path / "callgrind.out.1"
    # Default options: compressed names, line positions, as users' files usually are.
    subprocess.run(["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}",
                    str(exe), "3000"], check=True, capture_output=True)
    profile = asyncio.run(import_profile(out))
    assert profile.tool == "callgrind"
    _check_hot(profile, tmp_path / "prog.c", 0.8)


@needs_gcc
def test_import_gprof_report(tmp_path: Path) -> None:
    if shutil.which("gprof") is None:
        pytest.skip("gprof is not installed")
    exe = _build(tmp_path, "-pg")
    subprocess.run([str(exe), "150000"], check=True, cwd=tmp_path, capture_output=True)
    report = subprocess.run(["gprof", "-b", str(exe), str(tmp_path / "gmon.out")],
                            check=True, capture_output=True, text=True).stdout
    path = tmp_path / "gprof.txt"
    path.write_text(report, encoding="utf-8")
    profile = asyncio.run(import_profile(path, binary=exe))
    assert profile.tool == "gprof"
    top = profile.hottest(1)[0]
    assert top.name == "heavy" and top.self_share >= 0.6
    assert Path(top.file).resolve() == (tmp_path / "prog.c").resolve()
    assert top.first_line <= _line_of("heavy: first") + 1 <= top.last_line
    # Without the program, the report still ranks functions; files are then unknown.
    bare = asyncio.run(import_profile(path))
    assert bare.functions[0].name == "heavy" and not bare.functions[0].file
    assert bare.notes


@needs_gcc
def test_profile_goes_stale_when_the_source_changes(tmp_path: Path) -> None:
    if not _perf_ok() and shutil.which("valgrind") is None:
        pytest.skip("neither perf nor valgrind works here")
    exe = _build(tmp_path)
    profile = asyncio.run(profile_command([str(exe), "2000"], tmp_path))
    src = str((tmp_path / "prog.c").resolve())
    assert profile.stale_files() == ()
    assert src in {s.path for s in profile.sources}
    (tmp_path / "prog.c").write_text(PROGRAM + "\n/* edited */\n", encoding="utf-8")
    assert profile.stale_files() == (src,)
    assert Profile.from_json(json.loads(json.dumps(profile.to_json()))) == profile


@needs_gcc
def test_cli_profile_builds_then_profiles(tmp_path: Path,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    if not _perf_ok() and shutil.which("valgrind") is None:
        pytest.skip("neither perf nor valgrind works here")
    (tmp_path / "prog.c").write_text(PROGRAM, encoding="utf-8")
    rc = main(["profile", "--json", "--cwd", str(tmp_path),
               "--build", "gcc -g -O1 prog.c -o prog", "--", "./prog", "3000"])
    out = capsys.readouterr().out
    assert rc == 0
    data = json.loads(out)
    top = Profile.from_json(data).hottest(1)[0]
    assert top.name == "heavy"
    assert data["command"] == ["./prog", "3000"]


def test_cli_profile_reports_a_failing_build(tmp_path: Path,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    rc = main(["profile", "--cwd", str(tmp_path), "--build", "echo broken >&2; exit 3",
               "--", "./prog"])
    err = capsys.readouterr().err
    assert rc == 2
    assert "build command failed (exit 3)" in err and "broken" in err


def test_cli_profile_says_when_the_program_is_missing(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rc = main(["profile", "--cwd", str(tmp_path), "--", "./not-built"])
    assert rc == 2
    assert "no such program" in capsys.readouterr().err


CPP = """\
#include <cstdio>
#include <vector>

namespace geo {
struct Grid {
    std::vector<double> cells;
    double smooth(int rounds) const {
        double s = 0;
        for (int r = 0; r < rounds; ++r)
            for (double c : cells) s += c * 0.5 + r;
        return s;
    }
};
}  // namespace geo

int main() {
    geo::Grid g{std::vector<double>(4000, 1.5)};
    std::printf("%f\\n", g.smooth(3000));
    return 0;
}
"""


@pytest.mark.skipif(shutil.which("g++") is None, reason="g++ is not installed")
def test_cpp_method_is_matched_to_its_definition(tmp_path: Path) -> None:
    """C++ names from the debug information (qualified, with parameters) find the method the
    editor's outline knows, by file, line and name."""
    from perfpilot.code.locate import list_functions
    from perfpilot.engine.hotspots import hot_spots

    if not _perf_ok() and shutil.which("valgrind") is None:
        pytest.skip("neither perf nor valgrind works here")
    src = tmp_path / "grid.cpp"
    src.write_text(CPP, encoding="utf-8")
    subprocess.run(["g++", "-g", "-O1", str(src), "-o", str(tmp_path / "grid")], check=True)
    profile = asyncio.run(profile_command([str(tmp_path / "grid")], tmp_path))
    top = profile.hottest(1)[0]
    assert "smooth" in top.name and "geo::Grid" in top.name
    outline = list_functions(CPP, "cpp", uri=src.as_uri())
    spots = hot_spots(profile, src, CPP, outline, count=3, min_share=0.01)
    assert [s.qualified_name for s in spots][:1] == [
        next(s.qualified_name for s in outline if s.name == "smooth")]
    assert not spots[0].stale
    edited = CPP.replace("double s = 0;", "double s = 0.0;")
    assert hot_spots(profile, src, edited, outline, 3, 0.01)[0].stale


SPIN = """\
#include <stdio.h>
#include <unistd.h>

int main(void) {
    FILE* f = fopen("pid.tmp", "w");
    fprintf(f, "%d\\n", (int)getpid());
    fclose(f);
    rename("pid.tmp", "pid.txt");  /* whole, once it appears */
    volatile unsigned long x = 0;
    for (;;) ++x;
}
"""


def alive(pid: int) -> bool:
    """Whether ``pid`` is a process that still runs (a zombie waiting to be reaped does not)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text(encoding="utf-8")
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] not in ("Z", "X")



def test_ctrl_c_stops_the_profiled_program(tmp_path: Path) -> None:
    """``perfpilot profile`` interrupted: the program under the profiler is killed with it,
    and the command says it was cancelled (exit status 130), printing no profile."""
    if not _perf_ok() and shutil.which("valgrind") is None:
        pytest.skip("neither perf nor valgrind works here")
    (tmp_path / "spin.c").write_text(SPIN, encoding="utf-8")
    subprocess.run(["gcc", "-g", "-O0", "spin.c", "-o", "spin"], cwd=tmp_path, check=True)
    cli = subprocess.Popen([sys.executable, "-m", "perfpilot", "profile", "--", "./spin"],
                           cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           text=True)
    try:
        pid_file = tmp_path / "pid.txt"
        deadline = time.monotonic() + 60
        while not pid_file.is_file() and cli.poll() is None and time.monotonic() < deadline:
            time.sleep(0.05)
        assert pid_file.is_file(), cli.communicate()
        pid = int(pid_file.read_text(encoding="utf-8"))
        cli.send_signal(signal.SIGINT)
        out, err = cli.communicate(timeout=60)
    finally:
        if cli.poll() is None:
            cli.kill()
    assert cli.returncode == 130, (out, err)
    assert "cancelled" in err and "Profile of" not in out
    for _ in range(200):  # reaped by whoever inherits it
        if not alive(pid):
            break
        time.sleep(0.05)
    survived = alive(pid)
    if survived:
        os.kill(pid, signal.SIGKILL)
    assert not survived


def test_lens_candidates_rank_own_functions_with_their_library_callees() -> None:
    """The shape measured on examples/profiled: libm's pow internals lead by self share, the
    loop calling pow has almost no self time but 80% with callees, main has the whole run.
    The lenses go to the project's functions, the pow loop first; libm and main get none."""
    from perfpilot.engine.hotspots import lens_candidates
    from perfpilot.profiling.values import FunctionCost, Profile, SourceStamp

    src = "/p/src/stats.cpp"
    libm = "./math/../sysdeps/ieee754/dbl-64/e_pow.c"

    def cost(name: str, self_share: float, incl: float, file: str) -> FunctionCost:
        return FunctionCost(name, self_share * 100, incl * 100, self_share, incl, file, 1, 2)

    profile = Profile("perf", "cpu-clock", 100.0, (
        cost("exp_inline", 0.34, 0.35, libm),
        cost("count_equal_pairs(std::vector<int> const&)", 0.15, 0.15, src),
        cost("__ieee754_pow_fma", 0.13, 0.66, libm),
        cost("third_moment(std::vector<double> const&, double)", 0.005, 0.80, src),
        cost("make_readings(unsigned long, unsigned int)", 0.005, 0.037, src),
        cost("mean(std::vector<double> const&)", 0.004, 0.004, src),
        cost("main", 0.0, 1.0, "/p/src/main.cpp"),
    ), sources=(SourceStamp(src, "x"), SourceStamp("/p/src/main.cpp", "y")))
    names = [f.name.split("(")[0] for f in lens_candidates(profile, 5, 0.01)]
    assert names == ["third_moment", "count_equal_pairs"]
    assert [f.name.split("(")[0] for f in lens_candidates(profile, 1, 0.01)] == ["third_moment"]
    # A lower bar admits the smaller ones, by self share or with callees; never main or libm.
    assert [f.name.split("(")[0] for f in lens_candidates(profile, 9, 0.003)] == [
        "third_moment", "count_equal_pairs", "make_readings", "mean"]
    # A profile that puts start-up outside main (93% under it) still ranks main by its own
    # share: the entry is never "hot through its callees".
    short = Profile("perf", "cpu-clock", 100.0, (
        cost("main", 0.02, 0.93, "/p/src/main.cpp"),
        cost("smooth(int) const", 0.88, 0.88, src),
    ), sources=profile.sources)
    assert [f.name.split("(")[0] for f in lens_candidates(short, 2, 0.01)] == ["smooth", "main"]


def test_an_inlined_library_template_with_a_project_line_is_not_the_users() -> None:
    """A libstdc++ helper inlined into the project's loop can carry the project file's line:
    its reserved name, not its file, says it is the library's (the lens goes to the loop)."""
    from perfpilot.engine.hotspots import implementation_name, lens_candidates
    from perfpilot.profiling.values import FunctionCost, Profile, SourceStamp

    src = "/p/src/stats.cpp"

    def cost(name: str, self_share: float, incl: float) -> FunctionCost:
        return FunctionCost(name, self_share * 100, incl * 100, self_share, incl, src, 1, 2)

    promote = "__gnu_cxx::__promote_2<decltype ((__gnu_cxx::__promote_2<double>::__type)(0))>" \
        "::__type std::pow<double, int>(double, int)"
    profile = Profile("perf", "cpu-clock", 100.0, (
        cost(promote, 0.19, 0.84),
        cost("std::vector<double, std::allocator<double> >::size() const", 0.05, 0.05),
        cost("third_moment(std::vector<double> const&, double)", 0.01, 0.82),
        cost("geo::_Impl::step(int)", 0.04, 0.04),
        cost("my__mean(std::vector<double> const&)", 0.03, 0.03),
    ), sources=(SourceStamp(src, "x"),))
    assert [f.name.split("(")[0] for f in lens_candidates(profile, 5, 0.01)] == [
        "third_moment", "my__mean"]
    assert implementation_name("std::sort<int*>(int*, int*)")
    assert not implementation_name("run(__int128, std::string const&)")


def test_the_profile_leads_with_the_projects_own_functions() -> None:
    """The toast, report and lenses name the project's functions first; a function hot
    through its callees is named by its share with them, its own code's share after."""
    from perfpilot.engine.hotspots import HotSpot, headline, lens_text, profile_markdown
    from perfpilot.profiling.values import FunctionCost, Profile, SourceStamp

    src = "/p/src/stats.cpp"
    libm = "./math/../sysdeps/ieee754/dbl-64/e_pow.c"
    template = "std::" + "vector<std::pair<double, double>, std::allocator<double>>::" * 4 + "f"

    def cost(name: str, self_share: float, incl: float, file: str) -> FunctionCost:
        return FunctionCost(name, self_share * 100, incl * 100, self_share, incl, file, 1, 2)

    moment = cost("third_moment(std::vector<double> const&, double)", 0.0004, 0.87, src)
    profile = Profile("perf", "cpu-clock", 100.0, (
        cost("exp_inline", 0.44, 0.45, libm),
        cost(template, 0.2, 0.2, "/usr/include/c++/12/bits/stl_vector.h"),
        moment,
        cost("count_equal_pairs(std::vector<int> const&)", 0.05, 0.05, src),
    ), sources=(SourceStamp(src, "x"),))
    assert headline(profile) == ("third_moment(std::vector<double> const&, double): 87% of the "
                                 "run with its callees (0.0% in its own code)")
    assert lens_text(HotSpot("third_moment", moment, 1, False)) == \
        "87% of run time with callees (0.0% itself)"
    report = profile_markdown(profile)
    assert report.index("### Your functions") < report.index("`third_moment") \
        < report.index("### Library and system code") < report.index("`exp_inline`")
    assert template not in report and "…" in report  # a long template name is shortened
    # No function of the program's sources sampled: no headline of its own.
    assert headline(Profile("perf", "cpu-clock", 1.0, profile.functions[:1])) is None
