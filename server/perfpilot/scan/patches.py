"""Patches of a scan's rewrites that ``git apply`` takes (paths relative to the workspace root):
one per function, and one of all verified rewrites that do not overlap.

A rewrite is the candidate spliced into its unit as the file is now (``splice``, the editor's
and ``--write``'s own); a file whose text changed since the scan gives no patch. Several
rewrites of one file are spliced one after another, each function found again in the text the
previous ones left; one whose lines meet an earlier one's is left out of the combined patch.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass
from pathlib import Path

from perfpilot.code.locate import list_functions
from perfpilot.code.site import FunctionSite
from perfpilot.code.splice import splice
from perfpilot.scan.targets import file_sites, site_for
from perfpilot.scan.values import FunctionResult


@dataclass(frozen=True)
class Rewrite:
    """A function's rewrite as whole-file texts (before and after)."""

    result: FunctionResult
    path: str
    before: str
    after: str


def file_diff(rel: str, before: str, after: str) -> str:
    """A unified diff with ``a/`` and ``b/`` paths, as ``git apply`` reads it."""
    return "".join(difflib.unified_diff(
        before.splitlines(keepends=True), after.splitlines(keepends=True),
        fromfile=f"a/{rel}", tofile=f"b/{rel}"))


def rewrite_of(result: FunctionResult, root: Path) -> Rewrite | None:
    """The whole-file rewrite of a result with a candidate, while its file is unchanged."""
    if not result.code:
        return None
    site = site_for(result.target, root)
    if site is None:
        return None
    after = splice(site, result.code, result.includes)
    return Rewrite(result, result.target.path, site.unit_text, after)


def _find_again(text: str, path: Path, site: FunctionSite) -> FunctionSite | None:
    """The same function in the text earlier rewrites left: by qualified name, and the one
    nearest its old first line when several share it."""
    same = [s for s in list_functions(text, site.language, uri=path.resolve().as_uri())
            if s.qualified_name == site.qualified_name]
    if not same:
        return None
    return min(same, key=lambda s: abs(s.first_line - site.first_line))


@dataclass(frozen=True)
class Combined:
    """The verified rewrites together: each changed file's text before and after (relative
    path -> (before, after)), the results it holds, and those left out (overlapping an earlier
    rewrite, or no longer applicable)."""

    files: dict[str, tuple[str, str]]
    kept: list[FunctionResult]
    left: list[FunctionResult]

    @property
    def patch(self) -> str:
        """One patch of them all, file by file."""
        return "".join(file_diff(rel, before, after)
                       for rel, (before, after) in sorted(self.files.items()))


def combined(results: list[FunctionResult], root: Path) -> Combined:
    """The verified rewrites of ``results`` spliced together, file by file."""
    by_file: dict[str, list[FunctionResult]] = {}
    for r in results:
        if r.verified:
            by_file.setdefault(r.target.path, []).append(r)
    files: dict[str, tuple[str, str]] = {}
    kept: list[FunctionResult] = []
    left: list[FunctionResult] = []
    for rel in sorted(by_file):
        path = root / rel
        sites = {(s.qualified_name, s.first_line): s for s in file_sites(path)}
        original = next(iter(sites.values())).unit_text if sites else None
        text = original
        spans: list[tuple[int, int]] = []
        for r in sorted(by_file[rel], key=lambda r: r.target.first_line):
            site0 = site_for(r.target, root)
            span = (r.target.first_line, r.target.last_line)
            if site0 is None or text is None or any(
                    a <= span[1] and span[0] <= b for a, b in spans):
                left.append(r)
                continue
            site = _find_again(text, path, sites[(site0.qualified_name, site0.first_line)])
            if site is None:
                left.append(r)
                continue
            text = splice(site, r.code, r.includes)
            spans.append(span)
            kept.append(r)
        if original is not None and text is not None and text != original:
            files[rel] = (original, text)
    return Combined(files, kept, left)
