"""Draft bench specs for functions the generated harness cannot feed, as values the editor
shows: where the draft goes and its text. Writing it is the editor's (a file created through
the editor, never over an existing spec) or ``write_spec_draft``'s for clients that cannot.
The source's compile database entry is looked up here, once, for the runner's draft (the
folders where the project headers it reads are found).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from perfpilot.code.site import FunctionSite
from perfpilot.engine.session import path_of_uri
from perfpilot.runner.compdb import flags_for
from perfpilot.runner.spec_draft import draft_path, draft_spec, write_draft


@dataclass(frozen=True)
class SpecDraft:
    """A draft spec for one function: its path (``.perfpilot/<name>.bench.cpp`` beside the
    source, where the runner looks first), its text, and whether a spec is already there."""

    function: str
    path: Path
    text: str
    exists: bool


def spec_draft(site: FunctionSite) -> SpecDraft | None:
    """The draft spec for ``site``; None for a document that is not a local file. When a
    spec exists already its text is not drafted (it is never overwritten)."""
    source = path_of_uri(site.uri)
    if source is None:
        return None
    path = draft_path(site, source)
    if path.exists():
        return SpecDraft(site.qualified_name, path, "", exists=True)
    return SpecDraft(site.qualified_name, path, draft_spec(site, flags_for(source)),
                     exists=False)


def write_spec_draft(site: FunctionSite) -> Path:
    """Write the draft directly (clients without file creation); raises FileExistsError
    rather than overwrite, OSError when it cannot be written, ValueError for a document
    that is not a local file."""
    source = path_of_uri(site.uri)
    if source is None:
        raise ValueError("the document is not a local file")
    return write_draft(site, source, flags_for(source))


# The draft's markers for what the user must complete ("// TODO: build the object ...").
_TODO = re.compile(r"//\s*TODO\b")


def spec_unfinished(path: Path) -> bool:
    """Whether ``path`` is a bench spec not ready to measure: empty (created, its text not
    saved yet) or still carrying a draft's ``// TODO`` markers. Measuring it would compile an
    unfinished draft and blame the rewrite for the failure."""
    if not path.name.endswith(".bench.cpp"):
        return False
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return False
    return not text.strip() or _TODO.search(text) is not None
