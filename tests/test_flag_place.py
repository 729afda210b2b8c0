"""Where a flag the project's build lacks goes: the CMake target that compiles the file, the
Makefile's flags variable, or the file's compile_commands.json entry. Real build files."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from perfpilot.engine.flag_place import (
    cmake_calls,
    cmake_place,
    compdb_place,
    flag_place,
    makefile_place,
)

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "profiled"

# A multi-target project in the style CMake's own tutorial and many repositories use.
MULTI = """\
cmake_minimum_required(VERSION 3.16)
project(imaging LANGUAGES C CXX)

# Options for every target:
set(CMAKE_CXX_STANDARD 17)
add_library(codec STATIC
  src/codec/huffman.cpp
  "src/codec/rle.cpp"   # run-length
)
target_include_directories(codec PUBLIC include)

add_executable(imgtool
  ${CMAKE_CURRENT_SOURCE_DIR}/src/tool/main.cpp
  src/tool/filters.cpp)
target_compile_options(imgtool PRIVATE
  -Wall -Wextra
  $<$<CONFIG:Release>:-O3>)
target_link_libraries(imgtool PRIVATE codec m)

add_executable(bench src/bench/blur.c)
#[[ target_compile_options(bench PRIVATE -O0)
]]
target_link_libraries(bench PRIVATE codec)
"""

MAKEFILE = """\
# Simple build of the simulator.
CC ?= gcc
CXX := g++
CPPFLAGS = -Iinclude -DNDEBUG
CFLAGS ?= -O2 -g
CXXFLAGS += -O2 -g -std=c++17 \\
            -Wall
LDFLAGS =
LDLIBS = -lm

sim: main.o grid.o
\t$(CXX) $(LDFLAGS) -o $@ $^ $(LDLIBS)
"""


def test_cmake_calls_read_arguments_comments_and_spans() -> None:
    calls = list(cmake_calls(MULTI))
    names = [c.name for c in calls]
    assert names == ["cmake_minimum_required", "project", "set", "add_library",
                     "target_include_directories", "add_executable", "target_compile_options",
                     "target_link_libraries", "add_executable", "target_link_libraries"]
    codec = calls[3]
    assert codec.args == ("codec", "STATIC", "src/codec/huffman.cpp", "src/codec/rle.cpp")
    assert (codec.start_line, codec.start_character, codec.end_line) == (5, 0, 8)
    options = calls[6]
    assert options.args[0] == "imgtool" and options.end_line == 16  # nested $<...> parens


def test_cmake_openmp_goes_to_the_target_compile_options_of_the_files_target() -> None:
    call, advice, target = cmake_place(MULTI, "src/tool/filters.cpp", ("-fopenmp",))
    assert target == "imgtool"
    assert call is not None and call.name == "target_compile_options" and call.start_line == 14
    assert "find_package(OpenMP)" in advice
    assert "target_link_libraries(imgtool PRIVATE OpenMP::OpenMP_CXX)" in advice
    # A source named through ${CMAKE_CURRENT_SOURCE_DIR} is the same file.
    assert cmake_place(MULTI, "src/tool/main.cpp", ("-fopenmp",))[2] == "imgtool"


def test_cmake_without_compile_options_uses_the_link_line_then_the_definition() -> None:
    # bench has target_link_libraries but its target_compile_options is commented out.
    call, advice, target = cmake_place(MULTI, "src/bench/blur.c", ("-fopenmp",), "c")
    assert target == "bench" and call is not None
    assert call.name == "target_link_libraries" and call.start_line == 22
    assert "OpenMP::OpenMP_C)" in advice
    # A quoted source with a comment after it; a flag that is not OpenMP wants compile options.
    call, advice, target = cmake_place(MULTI, "src/codec/rle.cpp", ("-mavx2",))
    assert target == "codec" and call is not None and call.name == "add_library"
    assert advice.endswith("target_compile_options(codec PRIVATE -mavx2)")


def test_cmake_file_no_target_lists_points_at_project_with_generic_advice() -> None:
    call, advice, target = cmake_place(MULTI, "src/other.cpp", ("-fopenmp",))
    assert target is None and call is not None and call.name == "project"
    assert "<your target>" in advice and "find_package(OpenMP)" in advice


def test_the_example_projects_cmakelists() -> None:
    text = (EXAMPLE / "CMakeLists.txt").read_text(encoding="utf-8")
    call, advice, target = cmake_place(text, "src/stats.cpp", ("-fopenmp",))
    assert target == "stats" and call is not None
    line = text.splitlines()[call.start_line]
    assert "target_link_libraries(stats" in line
    assert "find_package(OpenMP) then" not in advice  # the project already finds it


def test_makefile_flags_variable_by_language() -> None:
    line, advice = makefile_place(MAKEFILE, ("-fopenmp",), "cpp")
    assert line is not None and MAKEFILE.splitlines()[line].startswith("CXXFLAGS +=")
    assert "CXXFLAGS" in advice and "LDFLAGS" in advice
    line, _ = makefile_place(MAKEFILE, ("-fopenmp",), "c")
    assert line is not None and MAKEFILE.splitlines()[line].startswith("CFLAGS ?=")
    line, advice = makefile_place("all:\n\tcc -o a a.c\n", ("-fopenmp",), "c")
    assert line is None and "CFLAGS += -fopenmp" in advice


def test_compdb_entry_line(tmp_path: Path) -> None:
    entries = [{"directory": str(tmp_path / "build"), "file": str(tmp_path / "a.cpp"),
                "command": "g++ -O2 -c a.cpp"},
               {"directory": str(tmp_path / "build"), "file": "../src/b.cpp",
                "arguments": ["g++", "-O2", "-c", "../src/b.cpp"]}]
    text = json.dumps(entries, indent=2)
    line = compdb_place(text, tmp_path / "src" / "b.cpp", tmp_path / "build")
    assert line is not None and '"file": "../src/b.cpp"' in text.splitlines()[line]
    assert compdb_place(text, tmp_path / "src" / "c.cpp", tmp_path / "build") is None
    assert compdb_place("not json", tmp_path / "a.cpp", tmp_path) is None


def test_flag_place_finds_the_build_file_on_disk(tmp_path: Path) -> None:
    cmake = tmp_path / "cmake"
    shutil.copytree(EXAMPLE, cmake, ignore=shutil.ignore_patterns("build", ".perfpilot"))
    place = flag_place(cmake, cmake / "src" / "stats.cpp", ("-fopenmp",))
    assert place is not None and place.kind == "cmake"
    assert place.path == cmake / "CMakeLists.txt"
    assert "target_link_libraries(stats" in place.path.read_text().splitlines()[place.start_line]

    make = tmp_path / "make"
    (make / "src").mkdir(parents=True)
    (make / "Makefile").write_text(MAKEFILE, encoding="utf-8")
    (make / "src" / "grid.cpp").write_text("int f() { return 1; }\n", encoding="utf-8")
    place = flag_place(make, make / "src" / "grid.cpp", ("-fopenmp",))
    assert place is not None and place.kind == "make" and place.start_line == 5
    assert place.end_character == len(MAKEFILE.splitlines()[5])

    bare = tmp_path / "bare"
    (bare / "build").mkdir(parents=True)
    source = bare / "k.c"
    source.write_text("int k(void) { return 0; }\n", encoding="utf-8")
    (bare / "build" / "compile_commands.json").write_text(json.dumps(
        [{"directory": str(bare / "build"), "file": str(source), "command": "cc -c k.c"}],
        indent=1), encoding="utf-8")
    place = flag_place(bare, source, ("-fopenmp",), "c")
    assert place is not None and place.kind == "compile-commands"
    assert "\"file\"" in place.path.read_text().splitlines()[place.start_line]
    (bare / "build" / "compile_commands.json").unlink()
    assert flag_place(bare, source, ("-fopenmp",), "c") is None
