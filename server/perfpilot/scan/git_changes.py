"""What a git diff touched: the changed lines of each file since a revision (files git does not
track yet, unless ignored, wholly), and a file's text at that revision (``--changed-since REF``,
``--fail-on regression``)."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

from perfpilot.code.parse import language_for
from perfpilot.scan.targets import ScanInputError

_HUNK = re.compile(r"^@@ -\d+(?:,\d+)? \+(\d+)(?:,(\d+))? @@")
_TIMEOUT_S = 60.0


def _git(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    try:
        return subprocess.run(["git", "-C", str(root), *args], capture_output=True, text=True,
                              timeout=_TIMEOUT_S, check=False)
    except FileNotFoundError as exc:
        raise ScanInputError("git is not installed (needed for --changed-since)") from exc
    except subprocess.TimeoutExpired as exc:
        raise ScanInputError(f"git {args[0]} took longer than {_TIMEOUT_S:g} s") from exc


def parse_diff(text: str) -> dict[str, frozenset[int]]:
    """Changed lines of the new side of a ``git diff -U0`` output, per file path.

    An added or changed line counts as itself; a deletion counts as the line after it (the
    function that lost lines there changed)."""
    changes: dict[str, set[int]] = {}
    current: set[int] | None = None
    for line in text.splitlines():
        if line.startswith("+++ "):
            name = line[4:]
            if name == "/dev/null":
                current = None
                continue
            name = name[2:] if name.startswith("b/") else name
            current = changes.setdefault(name, set())
        elif line.startswith("@@") and current is not None:
            m = _HUNK.match(line)
            if m is None:
                continue
            start = int(m.group(1))
            count = int(m.group(2)) if m.group(2) is not None else 1
            if count == 0:
                current.update({start, start + 1})
            else:
                current.update(range(start, start + count))
    return {name: frozenset(lines) for name, lines in changes.items()}


def untracked_sources(root: Path) -> dict[str, frozenset[int]]:
    """Every line of each C or C++ file under ``root`` that git does not track and does not
    ignore (``git ls-files --others --exclude-standard``): a new file is wholly changed."""
    proc = _git(root, "ls-files", "--others", "--exclude-standard", "-z", "--")
    if proc.returncode != 0:
        raise ScanInputError(f"git ls-files failed: {proc.stderr.strip()[:200]}")
    found: dict[str, frozenset[int]] = {}
    for rel in proc.stdout.split("\0"):
        if not rel or language_for(rel) is None:
            continue
        try:
            text = (root / rel).read_text(encoding="utf-8", errors="replace")
        except OSError:
            continue  # gone or unreadable since git listed it: the scan cannot read it either
        found[rel] = frozenset(range(1, text.count("\n") + 2))
    return found


def changed_lines(root: Path, ref: str) -> dict[str, frozenset[int]]:
    """The lines changed since ``ref`` in the working tree under ``root``, per path relative to
    ``root``; a file git does not track (and does not ignore) counts as wholly changed."""
    if ref.startswith("-"):
        raise ScanInputError(f"--changed-since: '{ref}' is not a revision")
    check = _git(root, "rev-parse", "--verify", "--quiet", f"{ref}^{{commit}}")
    if check.returncode != 0:
        raise ScanInputError(f"--changed-since: no revision '{ref}' in {root}")
    proc = _git(root, "diff", "--relative", "--no-color", "--no-ext-diff", "-U0", ref, "--")
    if proc.returncode != 0:
        raise ScanInputError(f"git diff failed: {proc.stderr.strip()[:200]}")
    return {**parse_diff(proc.stdout), **untracked_sources(root)}


def text_at(root: Path, ref: str, rel: str) -> str | None:
    """The file's text at ``ref`` (``rel`` relative to ``root``); None when it did not exist."""
    proc = _git(root, "show", f"{ref}:./{rel}")
    return proc.stdout if proc.returncode == 0 else None
