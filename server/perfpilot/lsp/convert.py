"""Conversions between engine values and LSP types (positions in UTF-16 client units)."""

from __future__ import annotations

import difflib
from collections.abc import Sequence

from lsprotocol import types as lsp
from pygls.workspace import TextDocument

from perfpilot.code.callees import caller_part
from perfpilot.code.site import FunctionSite
from perfpilot.code.splice import (
    comment_start,
    function_line_ending,
    include_lines,
    include_point,
    missing_includes,
    unit_line_ending,
    with_line_ending,
)


def client_position(doc: TextDocument, line: int, col: int) -> lsp.Position:
    """A server (code point) position as the client's position units."""
    return doc.position_codec.position_to_client_units(doc.lines, lsp.Position(line, col))


def server_position(doc: TextDocument, pos: lsp.Position) -> lsp.Position:
    """A client position as code point units."""
    p = doc.position_codec.position_from_client_units(doc.lines, pos)
    return lsp.Position(p.line, p.character)


def site_range(doc: TextDocument, site: FunctionSite) -> lsp.Range:
    """The function's whole range, in client units."""
    return lsp.Range(client_position(doc, site.start_line, site.start_col),
                     client_position(doc, site.end_line, site.end_col))


def header_range(doc: TextDocument, site: FunctionSite) -> lsp.Range:
    """The first line of the function (for lenses and diagnostics)."""
    line = doc.lines[site.start_line] if site.start_line < len(doc.lines) else ""
    end = len(line.rstrip("\r\n"))
    return lsp.Range(client_position(doc, site.start_line, site.start_col),
                     client_position(doc, site.start_line, max(end, site.start_col)))


class StaleSiteError(Exception):
    """The document's text at the function's range is not the text that was analysed."""


def text_at(doc: TextDocument, rng: lsp.Range) -> str:
    """The document's text in a client range (clamped to the document)."""
    lines = doc.lines
    start = doc.position_codec.position_from_client_units(lines, rng.start)
    end = doc.position_codec.position_from_client_units(lines, rng.end)

    def offset(line: int, char: int) -> int:
        if line >= len(lines):
            return sum(len(x) for x in lines)
        return sum(len(x) for x in lines[:line]) + min(char, len(lines[line]))

    return doc.source[offset(start.line, start.character):offset(end.line, end.character)]


def _position(doc: TextDocument, data: bytes, offset: int) -> lsp.Position:
    """The client position of a byte offset of ``data`` (the document's UTF-8 text)."""
    line = data.count(b"\n", 0, offset)
    col = len(data[data.rfind(b"\n", 0, offset) + 1:offset].decode("utf-8", "replace"))
    return client_position(doc, line, col)


_SIMILAR = 0.5  # a changed line and its new text, rather than a line out and another in
_MAX_PAIRING = 1600  # lines out times lines in: past it, the block is one edit


def _pairs(old: list[str], new: list[str]) -> list[tuple[int, int]]:
    """The lines of ``old`` and ``new`` that are one line changed (similar text), in order,
    the most alike (an alignment maximising the summed similarity of its pairs); none for a
    block too large to compare line by line (it stays one edit)."""
    if len(old) * len(new) > _MAX_PAIRING:
        return []
    alike = [[difflib.SequenceMatcher(None, x, y, autojunk=False).ratio() for y in new]
             for x in old]
    best = [[0.0] * (len(new) + 1) for _ in range(len(old) + 1)]
    for i in range(len(old) - 1, -1, -1):
        for j in range(len(new) - 1, -1, -1):
            paired = best[i + 1][j + 1] + alike[i][j] if alike[i][j] >= _SIMILAR else 0.0
            best[i][j] = max(best[i + 1][j], best[i][j + 1], paired)
    out: list[tuple[int, int]] = []
    i = j = 0
    while i < len(old) and j < len(new):
        if alike[i][j] >= _SIMILAR and best[i][j] == best[i + 1][j + 1] + alike[i][j]:
            out.append((i, j))
            i, j = i + 1, j + 1
        elif best[i + 1][j] >= best[i][j + 1]:
            i += 1
        else:
            j += 1
    return out


def _hunks(doc: TextDocument, site: FunctionSite, old: str,
           new: str) -> list[tuple[lsp.Range, str]]:
    """``old`` (the function's text in the document) turned into ``new`` as the few small
    edits that change it: a changed line narrowed to the characters that differ, lines added
    or removed as whole lines (each a short row in a refactor preview)."""
    a = old.splitlines(keepends=True)
    b = new.splitlines(keepends=True)
    starts = [0]
    for line in a:
        starts.append(starts[-1] + len(line))
    spans: list[tuple[int, int, str]] = []  # offsets in ``old`` and the text put there

    def change(i1: int, i2: int, j1: int, j2: int) -> None:
        lo, hi = starts[i1], starts[i2]
        gone, put = old[lo:hi], "".join(b[j1:j2])
        k = 0
        while k < min(len(gone), len(put)) and gone[k] == put[k]:
            k += 1
        m = 0
        while m < min(len(gone), len(put)) - k and gone[-1 - m] == put[-1 - m]:
            m += 1
        if lo + k < hi - m or k < len(put) - m:
            spans.append((lo + k, hi - m, put[k:len(put) - m]))

    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
        if tag == "equal":
            continue
        i, j = i1, j1
        for pi, pj in [*((i1 + x, j1 + y) for x, y in _pairs(a[i1:i2], b[j1:j2])), (i2, j2)]:
            change(i, pi, j, pj)  # lines out or in before the pair
            if pi < i2:
                change(pi, pi + 1, pj, pj + 1)  # the changed line
            i, j = pi + 1, pj + 1
    # edits that touch become one (an insertion where a change begins)
    merged: list[tuple[int, int, str]] = []
    for lo, hi, text in spans:
        if merged and merged[-1][1] >= lo:
            plo, phi, ptext = merged[-1]
            merged[-1] = (plo, max(hi, phi), ptext + old[phi:lo] + text)
        else:
            merged.append((lo, hi, text))

    def at(offset: int) -> lsp.Position:
        nl = old.rfind("\n", 0, offset)
        line = site.start_line + old.count("\n", 0, offset)
        col = offset - (nl + 1) + (site.start_col if nl < 0 else 0)
        return client_position(doc, line, col)

    return [(lsp.Range(at(lo), at(hi)), text) for lo, hi, text in merged]


def function_edit(doc: TextDocument, site: FunctionSite, new_text: str, label: str,
                  *, version: int | None, confirm: bool, includes: Sequence[str] = (),
                  drop_includes: Sequence[str] = (),
                  drop_before: str = "", confirm_by_file_op: bool = False,
                  ) -> lsp.WorkspaceEdit:
    """One versioned TextDocumentEdit replacing exactly the function (one undo step).

    Raises StaleSiteError unless the document's text at the function's range is exactly the
    text that was analysed (``site.text``): an edit is never computed over other text.

    ``includes``: standard headers the new text needs, added after the unit's last include
    above the function when missing. What ``new_text`` puts before the function itself (a
    model's helpers, copies of callees) is inserted above the comments that document the
    function, in the same edit. ``drop_includes``: headers a rewrite added, whose lines
    (above the function) are removed again (Revert). ``drop_before``: text a rewrite put above
    the function (or above its comments), removed when it is still there (Revert).

    ``confirm``: the edit asks the user to review it (a refactor preview), the change made of
    the small edits that differ from the function (each a short row there, ticked), under the
    annotation ``label``. ``confirm_by_file_op``: the client applies ``CreateFile`` and the
    document is a file, so the confirmation rides on a ``CreateFile`` of the document itself
    that never applies (it exists: ``ignoreIfExists``), which a preview leaves out of its list;
    else on an empty edit away from the change.
    """
    if text_at(doc, site_range(doc, site)) != site.text:
        raise StaleSiteError(f"the text of {site.name} is no longer what was analysed")
    annotation_id = "perfpilot" if confirm else None
    data = site.unit_text.encode("utf-8")
    # The file's line endings: a model writes LF, the edit goes into a CRLF file as CRLF.
    newline = function_line_ending(site)
    before, own = caller_part(new_text, site)
    at = comment_start(site.unit_text, site.start_byte, site.language) if before \
        else site.start_byte
    head = with_line_ending(before, newline) if at < site.start_byte else ""
    new = with_line_ending(own if head else new_text, newline)
    if not site.text.endswith("\n"):
        new = new.rstrip("\r\n")
    edits: list[tuple[lsp.Range, str]] = []
    missing = missing_includes(site.unit_text, includes)
    if missing:
        lines = include_lines(missing, unit_line_ending(site.unit_text))
        offset, line = include_point(site.unit_text, site.start_byte)
        if line >= site.start_line:
            new = lines + new  # no insertion where the range starts
        elif head and offset == at:
            head = lines + head  # one insertion where both go
        else:
            at_include = lsp.Position(line, 0)
            edits.append((lsp.Range(at_include, at_include), lines))
    if head:
        here = _position(doc, data, at)
        edits.append((lsp.Range(here, here), head))
    dropped = {"".join(h.split()) for h in drop_includes}
    for k in range(min(site.start_line, len(doc.lines))):
        text = doc.lines[k].strip()
        if text.startswith("#") and "".join(text.lstrip("#").split()).removeprefix(
                "include") in dropped:
            edits.append((lsp.Range(lsp.Position(k, 0), lsp.Position(k + 1, 0)), ""))
    rng = site_range(doc, site)
    if drop_before:
        above = comment_start(site.unit_text, site.start_byte, site.language)
        for spelled in dict.fromkeys((drop_before, with_line_ending(drop_before, newline))):
            gone = spelled.encode("utf-8")
            if data[:site.start_byte].endswith(gone):
                rng = lsp.Range(_position(doc, data, site.start_byte - len(gone)), rng.end)
                break
            if above < site.start_byte and data[:above].endswith(gone):
                edits.append((lsp.Range(_position(doc, data, above - len(gone)),
                                        _position(doc, data, above)), ""))
                break
    small = _hunks(doc, site, site.text, new) if confirm and rng == site_range(doc, site) \
        else []
    edits.extend(small or [(rng, new)])
    text_edits: list[lsp.TextEdit | lsp.AnnotatedTextEdit] = [
        lsp.AnnotatedTextEdit(range=r, new_text=t, annotation_id=annotation_id)
        if annotation_id is not None else lsp.TextEdit(range=r, new_text=t)
        for r, t in edits]
    annotations = None
    review_op: lsp.CreateFile | None = None
    if annotation_id is not None:
        # The change itself needs no confirmation, so a preview shows it ticked (VS Code
        # leaves edits that need confirmation unticked, and its diff then shows nothing); an
        # operation that changes nothing asks for the confirmation that opens the preview.
        by_file = confirm_by_file_op and doc.uri.startswith("file:")
        review = None if by_file else _review_point(doc, [r for r, _t in edits])
        annotations = {annotation_id: lsp.ChangeAnnotation(
            label=label, needs_confirmation=review is None and not by_file,
            description="PerfPilot rewrite")}
        if by_file:
            review_op = lsp.CreateFile(
                uri=doc.uri, options=lsp.CreateFileOptions(ignore_if_exists=True),
                annotation_id=REVIEW_ANNOTATION)
            annotations[REVIEW_ANNOTATION] = _REVIEW_NOTE
        elif review is not None:
            text_edits.append(lsp.AnnotatedTextEdit(range=lsp.Range(review, review), new_text="",
                                                    annotation_id=REVIEW_ANNOTATION))
            annotations[REVIEW_ANNOTATION] = _REVIEW_NOTE
    change = lsp.TextDocumentEdit(
        text_document=lsp.OptionalVersionedTextDocumentIdentifier(uri=doc.uri, version=version),
        edits=text_edits,
    )
    # After the change: a CreateFile of an existing file with ignoreIfExists does nothing.
    ops: list[lsp.TextDocumentEdit | lsp.CreateFile] = [change]
    if review_op is not None:
        ops.append(review_op)
    return lsp.WorkspaceEdit(document_changes=ops, change_annotations=annotations)


REVIEW_ANNOTATION = "perfpilot-review"
_REVIEW_NOTE = lsp.ChangeAnnotation(
    label="Review the rewrite, then Apply", needs_confirmation=True,
    description="PerfPilot: the change is ticked; Apply keeps it, Discard leaves the function "
                "as it was")


def _review_point(doc: TextDocument, ranges: Sequence[lsp.Range]) -> lsp.Position | None:
    """A position touching none of ``ranges`` (the document's start or end) for the empty
    edit that asks for confirmation; None when the change spans the whole document."""
    lines = doc.lines
    if not lines or lines[-1].endswith(("\n", "\r")):
        end = lsp.Position(len(lines), 0)
    else:
        end = lsp.Position(len(lines) - 1, len(lines[-1].encode("utf-16-le")) // 2)
    for point in (lsp.Position(0, 0), end):
        key = (point.line, point.character)
        if all(not ((r.start.line, r.start.character) <= key <= (r.end.line, r.end.character))
               for r in ranges):
            return point
    return None


def create_file_edit(uri: str, text: str) -> lsp.WorkspaceEdit:
    """Create a new file holding ``text``: a ``CreateFile`` that fails when the file exists
    (never overwriting it, never inserting into it) and the insertion of the text."""
    start = lsp.Position(0, 0)
    return lsp.WorkspaceEdit(document_changes=[
        lsp.CreateFile(uri=uri, options=lsp.CreateFileOptions(overwrite=False,
                                                             ignore_if_exists=False)),
        lsp.TextDocumentEdit(
            text_document=lsp.OptionalVersionedTextDocumentIdentifier(uri=uri, version=None),
            edits=[lsp.TextEdit(range=lsp.Range(start, start), new_text=text)]),
    ])
