"""Parsing C and C++ with tree-sitter (the helpers over its nodes live in ``syntax``)."""

from __future__ import annotations

from functools import cache
from pathlib import PurePosixPath

import tree_sitter
import tree_sitter_c
import tree_sitter_cpp

from perfpilot.code.site import Language

_C_EXTENSIONS = {".c"}
_CPP_EXTENSIONS = {
    ".cc", ".cpp", ".cxx", ".c++", ".hpp", ".hh", ".hxx", ".h", ".ipp", ".tpp", ".inl",
}


@cache
def grammar(language: Language) -> tree_sitter.Language:
    """The tree-sitter grammar for ``language`` (loaded once)."""
    capsule = tree_sitter_c.language() if language == "c" else tree_sitter_cpp.language()
    return tree_sitter.Language(capsule)


def parse(text: str | bytes, language: Language) -> tree_sitter.Tree:
    """Parse a translation unit; tree-sitter never fails, errors appear as ERROR nodes."""
    data = text.encode("utf-8") if isinstance(text, str) else text
    return tree_sitter.Parser(grammar(language)).parse(data)


def language_for(path_or_uri: str, language_id: str | None = None) -> Language | None:
    """The language of a document from its LSP language id, else from its file extension.

    Returns None for documents PerfPilot does not handle.
    """
    if language_id in ("c", "cpp", "cuda-cpp", "objective-cpp"):
        return "c" if language_id == "c" else "cpp"
    if language_id:
        return None
    suffix = PurePosixPath(path_or_uri).suffix.lower()
    if suffix in _C_EXTENSIONS:
        return "c"
    if suffix in _CPP_EXTENSIONS:
        return "cpp"
    return None
