"""A previewed rewrite (``applyMode: preview``): the change as the small edits that differ,
ticked, and a confirmation that changes nothing and that a preview does not list."""

from __future__ import annotations

from pathlib import Path

import pytest
from lsprotocol import types as lsp
from pygls.workspace import TextDocument

from perfpilot.code.locate import function_by_name
from perfpilot.lsp.convert import REVIEW_ANNOTATION, function_edit
from perfpilot.lsp.jobs import _on_disk

UNIT = """// counts
#include <vector>

namespace n {
  long count(std::vector<int> v) {
    const char* tag = "é😀"; long c = 0;
    for (int x : v) c += x > 0;
    return c;
  }
}
"""

NEW = """long count(const std::vector<int>& v) {
    const char* tag = "é😀"; long c = 1;
    #pragma GCC unroll 4
    for (int x : v) c += x > 0;
    return c;
  }"""


def _apply(text: str, edit: lsp.WorkspaceEdit) -> str:
    """Apply the text edits as an editor does: all against the old text, columns in UTF-16."""
    assert edit.document_changes is not None
    change = edit.document_changes[0]
    assert isinstance(change, lsp.TextDocumentEdit)
    lines = text.splitlines(keepends=True)

    def offset(pos: lsp.Position) -> int:
        units = 0
        col = 0
        for ch in lines[pos.line] if pos.line < len(lines) else "":
            if units >= pos.character:
                break
            units += len(ch.encode("utf-16-le")) // 2
            col += 1
        return sum(len(line) for line in lines[:pos.line]) + col

    out = text
    for e in sorted(change.edits, key=lambda e: offset(e.range.start), reverse=True):
        out = out[:offset(e.range.start)] + e.new_text + out[offset(e.range.end):]
    return out


@pytest.mark.parametrize("newline", ["\n", "\r\n"])
def test_the_previewed_change_is_the_small_edits_that_differ(newline: str) -> None:
    unit = UNIT.replace("\n", newline)
    uri = "file:///w/count.cpp"
    site = function_by_name(unit, "cpp", "count", uri=uri)
    doc = TextDocument(uri, unit, version=3)
    whole = function_edit(doc, site, NEW, "Optimize count", version=3, confirm=False,
                          includes=("<algorithm>",))
    edit = function_edit(doc, site, NEW, "PerfPilot: count — Loop Efficiency Techniques",
                         version=3, confirm=True, includes=("<algorithm>",),
                         confirm_by_file_op=True)
    # The same text once applied, as edits that each hold a changed line at most.
    assert _apply(unit, edit) == _apply(unit, whole)
    assert edit.document_changes is not None and edit.change_annotations is not None
    change, review = edit.document_changes
    assert isinstance(change, lsp.TextDocumentEdit) and isinstance(review, lsp.CreateFile)
    # The header, the parameter, the figure, the pragma's line: each its own short edit.
    assert [e.new_text for e in change.edits] == [
        f"#include <algorithm>{newline}", "const std::vector<int>&", "1",
        f"    #pragma GCC unroll 4{newline}"], change.edits
    # Every edit is the change, ticked; the confirmation is a CreateFile of the file itself
    # that never applies (it exists), so a preview lists the change alone.
    notes = edit.change_annotations
    assert {e.annotation_id for e in change.edits} == {"perfpilot"}  # type: ignore[union-attr]
    assert notes["perfpilot"].needs_confirmation is False
    assert notes["perfpilot"].label == "PerfPilot: count — Loop Efficiency Techniques"
    assert review.uri == uri and review.options == lsp.CreateFileOptions(ignore_if_exists=True)
    assert review.annotation_id == REVIEW_ANNOTATION and notes[REVIEW_ANNOTATION].needs_confirmation


def test_without_file_operations_an_empty_edit_asks_for_the_confirmation() -> None:
    for uri, by_file in (("file:///w/count.cpp", False), ("untitled:Untitled-1", True)):
        site = function_by_name(UNIT, "cpp", "count", uri=uri)
        doc = TextDocument(uri, UNIT, version=1)
        edit = function_edit(doc, site, NEW, "PerfPilot: count — x", version=1, confirm=True,
                             confirm_by_file_op=by_file)
        assert edit.document_changes is not None and len(edit.document_changes) == 1
        change = edit.document_changes[0]
        assert isinstance(change, lsp.TextDocumentEdit)
        review = change.edits[-1]
        assert isinstance(review, lsp.AnnotatedTextEdit)
        assert review.annotation_id == REVIEW_ANNOTATION and review.new_text == ""
        assert _apply(UNIT, edit) == UNIT.replace(site.text, NEW)


def test_any_rewrite_applies_to_the_same_text_as_the_whole_replacement() -> None:
    import random

    uri = "file:///w/count.cpp"
    site = function_by_name(UNIT, "cpp", "count", uri=uri)
    doc = TextDocument(uri, UNIT, version=1)
    lines = site.text.splitlines(keepends=True)
    pool = ["  x;\n", "    long c = 0;\n", "  }\n", "    return c;\n", "// é😀\n", "\n"]
    rng = random.Random(7)
    for _ in range(200):
        new = list(lines)
        for _ in range(rng.randint(1, 4)):
            at = rng.randrange(len(new) + 1)
            kind = rng.randrange(3)
            if kind == 0:
                new.insert(at, rng.choice(pool))
            elif kind == 1 and len(new) > 1 and at < len(new):
                del new[at]
            elif at < len(new):
                new[at] = new[at].replace("c", "cc", 1) if "c" in new[at] else rng.choice(pool)
        text = "".join(new)
        if text == site.text:
            continue
        whole = function_edit(doc, site, text, "f", version=1, confirm=False)
        small = function_edit(doc, site, text, "f", version=1, confirm=True,
                              confirm_by_file_op=True)
        assert _apply(UNIT, small) == _apply(UNIT, whole), text


def test_a_line_added_above_a_changed_one_is_an_insertion_not_a_change() -> None:
    from perfpilot.lsp.convert import _pairs

    old = ["    for (std::size_t i = 0; i < values.size(); i += 64) {\n"]
    new = ["    const auto values_size = values.size();\n",
           "    for (std::size_t i = 0; i < values_size; i += 64) {\n"]
    assert _pairs(old, new) == [(0, 1)]


def test_a_block_too_large_to_pair_stays_one_edit() -> None:
    from perfpilot.lsp.convert import _pairs

    assert _pairs([f"a{i}\n" for i in range(50)], [f"a{i};\n" for i in range(50)]) == []
    assert _pairs(["a;\n"], ["a;;\n"]) == [(0, 0)]


def test_the_no_op_create_is_offered_only_for_a_file_that_exists(tmp_path: Path) -> None:
    # An open buffer whose file was deleted: a "create this file" would create it.
    f = tmp_path / "kept.cpp"
    f.write_text("int f() { return 1; }\n")
    assert _on_disk(f.as_uri())
    f.unlink()
    assert not _on_disk(f.as_uri())
    assert not _on_disk("untitled:Untitled-1")
