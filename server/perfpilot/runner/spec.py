"""Bench spec files: finding them, and splitting off the optional entry block.

A spec is a C++ file (see docs/bench-spec.md). Lines between ``// perfpilot:entry-begin`` and
``// perfpilot:entry-end`` are not part of the bench: they are appended to both versions of the
unit instead of the generated entry (for member functions, templates or anything the generated
trampoline cannot call) and must define ``extern "C" void* perfpilot_entry(void)``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

_BLOCK = re.compile(r"^[ \t]*//[ \t]*perfpilot:entry-begin[^\n]*\n(.*?)^[ \t]*//[ \t]*"
                    r"perfpilot:entry-end[^\n]*$", re.MULTILINE | re.DOTALL)
SPEC_FOLDER = ".perfpilot"


@dataclass(frozen=True)
class Spec:
    """A loaded spec: the bench source for the driver and the entry block, if any."""

    path: Path
    bench_text: str
    entry_text: str | None


def load_spec(path: Path) -> Spec:
    """Read a spec file and separate its entry block."""
    text = path.read_text(encoding="utf-8", errors="replace")
    m = _BLOCK.search(text)
    if m is None:
        return Spec(path, text, None)
    # Keep line numbers of compiler messages right: blank the block instead of cutting it.
    blanked = text[:m.start()] + "\n" * m.group(0).count("\n") + text[m.end():]
    return Spec(path, blanked, m.group(1))


def find_spec(function: str, source_path: Path | None, workspace: Path | None) -> Path | None:
    """``.perfpilot/<function>.bench.cpp`` beside the source or in the workspace, if present."""
    short = function.split("::")[-1]
    names = [f"{function.replace('::', '_')}.bench.cpp", f"{short}.bench.cpp"]
    folders: list[Path] = []
    if source_path is not None:
        folders.append(source_path.resolve().parent / SPEC_FOLDER)
    if workspace is not None:
        folders.append(workspace.resolve() / SPEC_FOLDER)
    for folder in folders:
        for name in names:
            candidate = folder / name
            if candidate.is_file():
                return candidate
    return None
