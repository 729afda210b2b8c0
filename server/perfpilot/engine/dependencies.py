"""Files besides the source that decide a measurement: spec, compile database, stdin inputs."""

from __future__ import annotations

import hashlib
from pathlib import Path

from perfpilot.code.site import FunctionSite
from perfpilot.runner.compdb import find_compdb


def measurement_inputs(site: FunctionSite, source_path: Path | None, workspace: Path | None,
                       spec: Path | None = None) -> tuple[Path, ...]:
    """The existing files whose content changes the verdict for ``site``."""
    from perfpilot.runner.spec import find_spec
    from perfpilot.runner.stdin_inputs import input_files, unmatched_inputs

    found: list[Path] = []
    chosen_spec = spec or find_spec(site.qualified_name, source_path, workspace)
    if chosen_spec is not None:
        found.append(chosen_spec)
    if source_path is not None:
        db = find_compdb(source_path, workspace)
        if db is not None:
            found.append(db)
        if site.name == "main":
            # Near-miss names count too: renaming one into the rule must change the key.
            found.extend(input_files(source_path))
            found.extend(unmatched_inputs(source_path))
    return tuple(dict.fromkeys(p.resolve() for p in found if p.is_file()))


def fingerprint(paths: tuple[Path, ...]) -> list[tuple[str, str]]:
    """(path, sha256 of content) for each file; unreadable files hash as empty."""
    out = []
    for p in paths:
        try:
            digest = hashlib.sha256(p.read_bytes()).hexdigest()
        except OSError:
            digest = ""
        out.append((str(p), digest))
    return out
