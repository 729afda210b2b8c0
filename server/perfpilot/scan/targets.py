"""Which functions a scan works on: every function of the given files and folders, or those a
profile found hot (hottest first), narrowed to the lines a diff touched when asked."""

from __future__ import annotations

import hashlib
import os
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path

from perfpilot.code.locate import list_functions
from perfpilot.code.parse import language_for
from perfpilot.code.site import FunctionSite
from perfpilot.profiling.values import Profile
from perfpilot.scan.values import Target

# Folders a scan never enters: version control, PerfPilot's own store, virtual environments.
SKIPPED_DIRS = frozenset({".git", ".hg", ".svn", ".perfpilot", "node_modules", ".venv"})


class ScanInputError(Exception):
    """A path or revision the scan cannot use (one line for the user)."""


def source_files(paths: Iterable[Path]) -> list[Path]:
    """The C and C++ files named, and those under the folders named, in a stable order."""
    found: list[Path] = []
    for path in paths:
        if path.is_file():
            if language_for(str(path)) is None:
                raise ScanInputError(f"{path}: not a C or C++ file")
            found.append(path)
        elif path.is_dir():
            found.extend(_walk(path))
        else:
            raise ScanInputError(f"{path}: no such file or folder")
    seen: set[Path] = set()
    unique = []
    for p in found:
        r = p.resolve()
        if r not in seen:
            seen.add(r)
            unique.append(p)
    return unique


def _walk(folder: Path) -> Iterator[Path]:
    for here, dirs, files in os.walk(folder):
        # Hidden folders and the skipped ones are not the user's sources.
        dirs[:] = sorted(d for d in dirs if d not in SKIPPED_DIRS and not d.startswith("."))
        for name in sorted(files):
            if language_for(name) is not None:
                yield Path(here) / name


def relative(path: Path, root: Path) -> str:
    """``path`` relative to ``root`` with ``/`` separators (the form patches and SARIF use)."""
    try:
        return path.resolve().relative_to(root.resolve()).as_posix()
    except ValueError as exc:
        raise ScanInputError(f"{path}: outside the workspace {root}") from exc


def digest(site: FunctionSite) -> str:
    """The unit's text and the function: a finished result stands while both are unchanged."""
    h = hashlib.sha256()
    for part in (site.unit_text, site.qualified_name, str(site.first_line)):
        h.update(part.encode("utf-8"))
        h.update(b"\0")
    return h.hexdigest()[:32]


def read_unit(path: Path) -> str | None:
    """The file's text, or None when it is not UTF-8 (a scan skips it rather than failing)."""
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None


def file_sites(path: Path) -> list[FunctionSite]:
    """Every function defined in ``path`` (none when it cannot be read or parsed)."""
    language = language_for(str(path))
    text = read_unit(path)
    if language is None or text is None or not text.strip():
        return []
    return list_functions(text, language, uri=path.resolve().as_uri())


def target_of(site: FunctionSite, path: Path, root: Path, share: float | None = None) -> Target:
    """The target for a function of ``path``."""
    return Target(relative(path, root), site.qualified_name, site.first_line, site.last_line,
                  digest(site), share)


def site_for(target: Target, root: Path) -> FunctionSite | None:
    """The function a target names, as the file is now; None when it changed or is gone."""
    path = root / target.path
    for site in file_sites(path):
        if site.qualified_name == target.function and site.first_line == target.first_line:
            return site if digest(site) == target.digest else None
    return None


def not_callable(site: FunctionSite) -> bool:
    """Whether the function harness cannot time ``site`` as a call: a program's ``main``
    (``perfpilot profile`` and Confirm in program time whole programs), or a free function
    that takes nothing and returns nothing (a self-test or a demo: no input to vary and no
    output to compare)."""
    if site.is_method:
        return False
    if site.name == "main":
        return True
    return not site.params and site.return_type.strip() == "void"


def touched(site: FunctionSite, lines: frozenset[int]) -> bool:
    """Whether any of the 1-based ``lines`` falls inside the function."""
    return any(site.first_line <= n <= site.last_line for n in lines)


def profile_sites(profile: Profile, files: Iterable[Path], root: Path
                  ) -> list[tuple[FunctionSite, Path, float]]:
    """The functions of ``files`` the profile sampled, hottest first, with their self share.

    A profiled function is matched by its file and a line inside it (debug information names
    the function's lines), so overloads and templates land on the definition that ran."""
    by_file: dict[Path, list[FunctionSite]] = {}
    for path in files:
        by_file[path.resolve()] = file_sites(path)
    paths = {p.resolve(): p for p in files}
    picked: list[tuple[FunctionSite, Path, float]] = []
    seen: set[tuple[Path, int]] = set()
    for cost in profile.hottest(len(profile.functions), with_source=True):
        where = Path(cost.file)
        resolved = (where if where.is_absolute() else root / where).resolve()
        sites = by_file.get(resolved)
        if not sites:
            continue
        line = cost.first_line
        for site in sites:
            if site.first_line <= line <= site.last_line and (resolved, site.first_line) \
                    not in seen:
                seen.add((resolved, site.first_line))
                picked.append((site, paths[resolved], cost.self_share))
                break
    return picked


def changed_filter(changes: Mapping[str, frozenset[int]], rel: str,
                   site: FunctionSite) -> bool:
    """Whether the diff (changed lines per relative path) touches the function."""
    lines = changes.get(rel)
    return lines is not None and touched(site, lines)
