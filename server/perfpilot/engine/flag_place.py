"""Where a flag the project's build lacks (``-fopenmp`` for a parallel rewrite) goes in the
project's own build: the CMake target that compiles the file, the Makefile's flags variable,
or the file's entry in ``compile_commands.json``.

The ``*_place`` functions are pure (text in, line and advice out); ``flag_place`` finds the
build file on disk. Nothing here edits a build file: the editor shows the place, the user adds
the flag.
"""

from __future__ import annotations

import json
import posixpath
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from perfpilot.engine.outcome import Outcome
from perfpilot.runner.compdb import find_compdb

_CMAKE_CALL = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)[ \t]*\(")
_TARGET_KEYWORDS = {"STATIC", "SHARED", "MODULE", "OBJECT", "INTERFACE", "EXCLUDE_FROM_ALL",
                    "WIN32", "MACOSX_BUNDLE", "PRIVATE", "PUBLIC"}
_SOURCE_DIR_VARS = ("${CMAKE_CURRENT_SOURCE_DIR}/", "${CMAKE_CURRENT_LIST_DIR}/")
_MAKE_FLAGS = re.compile(r"^[ \t]*(?:override[ \t]+)?(CXXFLAGS|CFLAGS|CPPFLAGS)[ \t]*"
                         r"(?:\+|\?|::?|!)?=")
_COMPDB_FILE = re.compile(r'"file"\s*:\s*"((?:[^"\\]|\\.)*)"')


@dataclass(frozen=True)
class FlagPlace:
    """A place in a build file: the lines to select (0-based, inclusive; characters on the
    first and last line) and what to write there."""

    path: Path
    kind: str  # "cmake", "make" or "compile-commands"
    start_line: int
    start_character: int
    end_line: int
    end_character: int
    message: str


@dataclass(frozen=True)
class CMakeCall:
    """One command of a CMakeLists.txt: its name (lower case), arguments (unquoted) and span."""

    name: str
    args: tuple[str, ...]
    start_line: int
    start_character: int
    end_line: int
    end_character: int


def _position(text: str, offset: int) -> tuple[int, int]:
    line = text.count("\n", 0, offset)
    return line, offset - (text.rfind("\n", 0, offset) + 1)


def cmake_calls(text: str) -> Iterator[CMakeCall]:
    """The commands of a CMake file in order, skipping comments; bracket arguments and
    nested parentheses are read as CMake reads them, closely enough to find targets."""
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c == "#":
            i = _skip_comment(text, i)
            continue
        m = _CMAKE_CALL.match(text, i)
        if m is None or (i > 0 and (text[i - 1].isalnum() or text[i - 1] == "_")):
            i += 1
            continue
        args, end = _arguments(text, m.end())
        sl, sc = _position(text, i)
        el, ec = _position(text, end)
        yield CMakeCall(m.group(1).lower(), tuple(args), sl, sc, el, ec)
        i = end


def _skip_comment(text: str, i: int) -> int:
    bracket = re.match(r"#\[(=*)\[", text[i:])
    if bracket:
        close = text.find(f"]{bracket.group(1)}]", i)
        return len(text) if close < 0 else close + len(bracket.group(1)) + 2
    nl = text.find("\n", i)
    return len(text) if nl < 0 else nl


def _arguments(text: str, i: int) -> tuple[list[str], int]:
    """The arguments from just after ``(`` to the matching ``)``, and the offset after it."""
    args: list[str] = []
    depth, word, n = 1, "", len(text)
    while i < n:
        c = text[i]
        if c == '"':
            close = i + 1
            while close < n and text[close] != '"':
                close += 2 if text[close] == "\\" else 1
            word += text[i + 1:close]
            i = close + 1
            continue
        if c == "#":
            i = _skip_comment(text, i)
            continue
        if c in " \t\r\n" or c in "()":
            if word:
                args.append(word)
                word = ""
            if c == "(":
                depth += 1
            elif c == ")":
                depth -= 1
                if depth == 0:
                    return args, i + 1
            i += 1
            continue
        word += c
        i += 1
    if word:
        args.append(word)
    return args, n


def _lists_source(call: CMakeCall, source: str) -> bool:
    """Whether an ``add_executable``/``add_library``/``target_sources`` call names ``source``
    (a path relative to the CMakeLists.txt folder, with ``/``)."""
    wanted = posixpath.normpath(source)
    for arg in call.args[1:]:
        for prefix in _SOURCE_DIR_VARS:
            if arg.startswith(prefix):
                arg = arg[len(prefix):]
        if "$" not in arg and arg not in _TARGET_KEYWORDS and posixpath.normpath(arg) == wanted:
            return True
    return False


def _openmp(flags: tuple[str, ...]) -> bool:
    return any(f in ("-fopenmp", "-qopenmp", "/openmp") or f.startswith("-fopenmp=")
               for f in flags)


def cmake_place(text: str, source: str, flags: tuple[str, ...],
                language: str = "cpp") -> tuple[CMakeCall | None, str, str | None]:
    """Where ``flags`` go in a CMakeLists.txt for ``source`` (relative to its folder): the
    ``target_compile_options`` of the target that compiles it, else its
    ``target_link_libraries`` (for OpenMP), else its ``add_executable``/``add_library``; the
    advice to show; and the target's name. Without a target that lists the file: the
    ``project()`` call (or None: the top of the file) and advice for "your target"."""
    calls = list(cmake_calls(text))
    target_of = next((c for c in calls if c.name in ("add_executable", "add_library",
                                                     "target_sources")
                      and c.args and _lists_source(c, source)), None)
    target = target_of.args[0] if target_of is not None else None
    shown = " ".join(flags)
    if _openmp(flags):
        lang = "C" if language == "c" else "CXX"
        found = any(c.name == "find_package" and c.args[:1] == ("OpenMP",) for c in calls)
        link = f"target_link_libraries({target or '<your target>'} PRIVATE OpenMP::OpenMP_{lang})"
        advice = (f"Add {shown} to the build of {source}: link OpenMP to "
                  f"{'target ' + target if target else 'the target that compiles it'}"
                  f" (it adds {shown} to its compile and link lines): "
                  + ("" if found else "find_package(OpenMP) then ") + link)
    else:
        advice = (f"Add {shown} to the build of {source}: target_compile_options("
                  f"{target or '<your target>'} PRIVATE {shown})")
    if target is None:
        return next((c for c in calls if c.name == "project"), None), advice, None

    def of_target(name: str) -> CMakeCall | None:
        return next((c for c in calls if c.name == name and c.args[:1] == (target,)), None)

    order = (["target_compile_options", "target_link_libraries"] if _openmp(flags)
             else ["target_compile_options"])
    for name in order:
        found_call = of_target(name)
        if found_call is not None:
            return found_call, advice, target
    defining = next((c for c in calls if c.name in ("add_executable", "add_library")
                     and c.args[:1] == (target,)), target_of)
    return defining, advice, target


def makefile_place(text: str, flags: tuple[str, ...],
                   language: str = "cpp") -> tuple[int | None, str]:
    """The line of the Makefile's compile-flags variable (``CXXFLAGS`` for C++, ``CFLAGS``
    for C; else the other, else ``CPPFLAGS``), or None; and the advice."""
    wanted = ["CFLAGS", "CXXFLAGS"] if language == "c" else ["CXXFLAGS", "CFLAGS"]
    wanted.append("CPPFLAGS")
    lines = text.splitlines()
    found: dict[str, int] = {}
    for i, line in enumerate(lines):
        m = _MAKE_FLAGS.match(line)
        if m and m.group(1) not in found:
            found[m.group(1)] = i
    var = next((v for v in wanted if v in found), None)
    shown = " ".join(flags)
    link = " (and to LDFLAGS: OpenMP is needed when linking too)" if _openmp(flags) else ""
    if var is None:
        return None, f"Add `{wanted[0]} += {shown}` to the Makefile{link}"
    return found[var], f"Add {shown} to {var} here{link}"


def compdb_place(text: str, source: Path, db_folder: Path) -> int | None:
    """The line of ``source``'s ``"file"`` in a compile_commands.json, or None."""
    try:
        entries = json.loads(text)
    except ValueError:
        return None
    if not isinstance(entries, list):
        return None
    files = list(_COMPDB_FILE.finditer(text))
    want = source.resolve()
    for index, entry in enumerate(entries):
        if not isinstance(entry, dict) or index >= len(files):
            continue
        folder = Path(entry.get("directory", db_folder))
        file = Path(str(entry.get("file", "")))
        if (file if file.is_absolute() else folder / file).resolve() == want:
            return text.count("\n", 0, files[index].start())
    return None


def needed_flags(outcome: Outcome) -> tuple[str, ...]:
    """The flags the project's build lacks for the rewrite the user was offered: the chosen
    candidate's verdict, else the best measured one that says it needs flags."""
    verdicts = [t.verdict for t in ((outcome.chosen,) if outcome.chosen is not None else ())]
    verdicts += [t.verdict for t in outcome.trials]
    return next((v.added_flags for v in verdicts if v is not None and v.added_flags), ())


def _read(path: Path) -> str | None:
    try:
        return path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None


def _folders(source: Path, root: Path) -> list[Path]:
    """The source's folder and its parents up to ``root`` (only the folder when outside)."""
    here = source.resolve().parent
    top = root.resolve()
    if here != top and top not in here.parents:
        return [here]
    out = [here]
    while here != top:
        here = here.parent
        out.append(here)
    return out


def flag_place(root: Path, source: Path, flags: tuple[str, ...],
               language: str = "cpp") -> FlagPlace | None:
    """Where to add ``flags`` for ``source`` in the project under ``root``: the nearest
    CMakeLists.txt whose target lists the file (else the top-level one), else the nearest
    Makefile, else the file's compile_commands.json entry; None when there is no build file."""
    folders = _folders(source, root)
    top_cmake: FlagPlace | None = None
    for folder in folders:
        text = _read(folder / "CMakeLists.txt")
        if text is None:
            continue
        rel = source.resolve().relative_to(folder).as_posix()
        call, advice, target = cmake_place(text, rel, flags, language)
        span = ((call.start_line, call.start_character, call.end_line, call.end_character)
                if call is not None else (0, 0, 0, 0))
        place = FlagPlace(folder / "CMakeLists.txt", "cmake", *span, advice)
        if target is not None:
            return place
        top_cmake = place  # the outermost one wins: it is the project's
    if top_cmake is not None:
        return top_cmake
    for folder in folders:
        for name in ("GNUmakefile", "makefile", "Makefile"):
            text = _read(folder / name)
            if text is None:
                continue
            line, advice = makefile_place(text, flags, language)
            width = len(text.splitlines()[line]) if line is not None else 0
            return FlagPlace(folder / name, "make", line or 0, 0, line or 0, width, advice)
    db = find_compdb(source, root)
    text = _read(db) if db is not None else None
    if db is None or text is None:
        return None
    line = compdb_place(text, source, db.parent)
    if line is None:
        return None
    width = len(text.splitlines()[line])
    shown = " ".join(flags)
    return FlagPlace(db, "compile-commands", line, 0, line, width,
                     f"{source.name} is compiled without {shown}: add it where your build "
                     f"writes this compile database")
