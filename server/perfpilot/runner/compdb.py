"""Compile flags for a source file from the workspace's ``compile_commands.json``."""

from __future__ import annotations

import json
import shlex
from dataclasses import dataclass
from pathlib import Path

# Flags that name outputs or dependency files: meaningless for our own builds.
_DROP_WITH_ARG = {"-o", "-MF", "-MT", "-MQ", "-MJ", "--serialize-diagnostics"}
_DROP = {"-c", "-S", "-E", "-M", "-MM", "-MD", "-MMD", "-MP", "-Werror", "-pipe"}
_KEEP_PREFIXES = ("-I", "-D", "-U", "-std=", "-O", "-f", "-m", "-W", "-isystem", "-include",
                  "-g", "-pthread", "-iquote", "-x")
_WITH_ARG = {"-I", "-D", "-U", "-isystem", "-include", "-iquote", "-x"}


@dataclass(frozen=True)
class CompileFlags:
    """Flags for one file, and where they came from (a path, or empty for defaults)."""

    flags: tuple[str, ...]
    source: str
    directory: str


def find_compdb(path: Path, stop: Path | None = None) -> Path | None:
    """The nearest ``compile_commands.json`` in the file's folder or its parents (or ``build/``)."""
    here = path.parent.resolve()
    limit = stop.resolve() if stop is not None else None
    while True:
        for candidate in (here / "compile_commands.json", here / "build" / "compile_commands.json"):
            if candidate.is_file():
                return candidate
        if here.parent == here or (limit is not None and here == limit):
            return None
        here = here.parent


def _absolutize(flag: str, arg: str, directory: Path) -> str:
    if flag in ("-I", "-isystem", "-iquote", "-include") and not Path(arg).is_absolute():
        return str((directory / arg).resolve())
    return arg


def clean_flags(args: list[str], source: Path, directory: Path) -> tuple[str, ...]:
    """Keep the flags that change code generation or preprocessing; drop outputs and inputs."""
    out: list[str] = []
    i = 1  # args[0] is the compiler
    src = source.resolve()
    while i < len(args):
        a = args[i]
        if a in _DROP_WITH_ARG:
            i += 2
            continue
        if a in _DROP or a.startswith("-o"):
            i += 1
            continue
        if a in _WITH_ARG and i + 1 < len(args):
            out += [a, _absolutize(a, args[i + 1], directory)]
            i += 2
            continue
        if not a.startswith("-"):
            candidate = Path(a) if Path(a).is_absolute() else directory / a
            if candidate.resolve() == src or candidate.suffix in (".c", ".cc", ".cpp", ".cxx"):
                i += 1
                continue
        if a.startswith(("-I", "-isystem")) and len(a) > 2 and a not in _WITH_ARG:
            flag = "-I" if a.startswith("-I") else "-isystem"
            rest = a[len(flag):]
            out.append(flag + _absolutize(flag, rest, directory))
        elif a.startswith(_KEEP_PREFIXES):
            out.append(a)
        i += 1
    return tuple(out)


def flags_for(source: Path, workspace: Path | None = None) -> CompileFlags | None:
    """Flags for ``source`` from the nearest compile database, or None if there is no entry."""
    db = find_compdb(source, workspace)
    if db is None:
        return None
    try:
        entries = json.loads(db.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    src = source.resolve()
    for entry in entries if isinstance(entries, list) else []:
        directory = Path(entry.get("directory", db.parent))
        file = Path(entry.get("file", ""))
        if not file.is_absolute():
            file = directory / file
        if file.resolve() != src:
            continue
        args = entry.get("arguments") or shlex.split(entry.get("command", ""))
        return CompileFlags(clean_flags(list(args), src, directory), str(db), str(directory))
    return None
