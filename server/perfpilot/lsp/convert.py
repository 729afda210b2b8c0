"""Conversions between engine values and LSP types (positions in UTF-16 client units)."""

from __future__ import annotations

from lsprotocol import types as lsp
from pygls.workspace import TextDocument

from perfpilot.code.site import FunctionSite


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


def function_edit(doc: TextDocument, site: FunctionSite, new_text: str, label: str,
                  *, version: int | None, confirm: bool) -> lsp.WorkspaceEdit:
    """One versioned TextDocumentEdit replacing exactly the function (one undo step)."""
    annotation_id = "perfpilot" if confirm else None
    edit: lsp.TextEdit | lsp.AnnotatedTextEdit
    new = new_text.rstrip("\n") if not site.text.endswith("\n") else new_text
    if annotation_id is not None:
        edit = lsp.AnnotatedTextEdit(range=site_range(doc, site), new_text=new,
                                     annotation_id=annotation_id)
    else:
        edit = lsp.TextEdit(range=site_range(doc, site), new_text=new)
    change = lsp.TextDocumentEdit(
        text_document=lsp.OptionalVersionedTextDocumentIdentifier(uri=doc.uri, version=version),
        edits=[edit],
    )
    annotations = None
    if annotation_id is not None:
        annotations = {annotation_id: lsp.ChangeAnnotation(label=label, needs_confirmation=True,
                                                           description="PerfPilot rewrite")}
    return lsp.WorkspaceEdit(document_changes=[change], change_annotations=annotations)
