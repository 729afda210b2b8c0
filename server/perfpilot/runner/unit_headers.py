"""The project's own headers a unit includes, read so that their types feed the bench.

A class declared in ``ledger.h`` and used by ``ledger.cpp`` is as much the unit's as one declared
in the file: the generated bench needs its definition to build and compare values, and the entry
needs it to call a method. Quote includes are resolved the way the compiler does (the including
file's folder, then ``-iquote`` and ``-I`` folders of the file's ``compile_commands.json`` entry,
which the caller gives: the runner's ``MeasurementInputs.compdb``, looked up once per job) and
read with tree-sitter. Bounded: only headers under the project root (the folder holding both
the source and its compile database, else the source's folder), each at most ``MAX_BYTES``, at
most ``MAX_HEADERS`` per unit, read through headers at most four deep (unit_types.py).
"""

from __future__ import annotations

import os
from pathlib import Path
from urllib.parse import unquote, urlparse

from perfpilot.code.site import FunctionSite
from perfpilot.runner.compdb import CompileFlags
from perfpilot.runner.unit_types import HeaderLookup, UnitTypes, read_unit

MAX_BYTES = 256 * 1024
MAX_HEADERS = 32


def site_path(site: FunctionSite) -> Path | None:
    """The file a site was read from, when its URI names one on this machine."""
    uri = site.uri
    if uri.startswith("file://"):
        path = Path(unquote(urlparse(uri).path))
    elif uri.startswith("/"):
        path = Path(uri)
    else:
        return None
    return path if path.is_file() else None


def include_folders(flags: tuple[str, ...]) -> list[Path]:
    """Folders searched for quote includes, in the compiler's order: -iquote, then -I."""
    quote: list[Path] = []
    angle: list[Path] = []
    i = 0
    while i < len(flags):
        f = flags[i]
        if f in ("-iquote", "-I") and i + 1 < len(flags):
            (quote if f == "-iquote" else angle).append(Path(flags[i + 1]))
            i += 2
            continue
        if f.startswith("-I") and len(f) > 2:
            angle.append(Path(f[2:]))
        i += 1
    return quote + angle


def _under(path: Path, root: Path) -> bool:
    try:
        path.relative_to(root)
    except ValueError:
        return False
    return True


def header_lookup(source: Path, entry: CompileFlags | None,
                  workspace: Path | None = None) -> HeaderLookup:
    """Resolves quote includes written in ``source`` or in the headers it reads, through the
    folders of ``entry`` (the source's compile database entry, when it has one)."""
    src = source.resolve()
    folders: list[Path] = []
    root = src.parent
    if entry is not None:
        folders = [f if f.is_absolute() else Path(entry.directory) / f
                   for f in include_folders(entry.flags)]
        common = Path(os.path.commonpath([src.parent, Path(entry.source).resolve().parent]))
        # A database far above the source (the home folder, /) does not make a project root.
        if len(common.parts) > 2:
            root = common
    if workspace is not None and _under(src, workspace.resolve()):
        root = workspace.resolve()
    read = 0

    def lookup(name: str, where: str) -> tuple[str, str] | None:
        nonlocal read
        if read >= MAX_HEADERS or not name or os.path.isabs(name):
            return None
        here = Path(where).parent if where else src.parent
        for folder in (here, *folders):
            candidate = (folder / name).resolve()
            if not _under(candidate, root) or not candidate.is_file():
                continue
            try:
                if candidate.stat().st_size > MAX_BYTES:
                    return None
                text = candidate.read_text(encoding="utf-8", errors="replace")
            except OSError:
                return None
            read += 1
            return str(candidate), text
        return None

    return lookup


def site_types(site: FunctionSite, compdb: CompileFlags | None = None) -> UnitTypes:
    """The unit's types, those of the project headers it includes among them (found through
    ``compdb``, the source's compile database entry, besides the source's folder)."""
    path = site_path(site)
    if path is None:
        return read_unit(site.unit_text, site.language)
    return read_unit(site.unit_text, site.language, header_lookup(path, compdb),
                     str(path.resolve()))
