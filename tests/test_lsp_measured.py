"""Through the real server with the real runner: a measured edit, its lens, hover and Revert."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from pathlib import Path

import pytest_lsp
from lsprotocol import types as lsp
from pytest_lsp import ClientServerConfig, LanguageClient

from lsp_support import (
    SERVER_COMMAND,
    Recorder,
    apply_text_edit,
    apply_text_edits,
    finished_job,
    vscode_capabilities,
)

# Copying the vector on every call dominates; taking it by const reference is O(1).
SOURCE = """\
#include <vector>

long ends(std::vector<long> v) {
    if (v.empty()) return 0;
    return v.front() + v.back();
}
"""


@pytest_lsp.fixture(config=ClientServerConfig(server_command=SERVER_COMMAND))
async def client(lsp_client: LanguageClient, tmp_path: Path) -> AsyncIterator[LanguageClient]:
    lsp_client.recorder = Recorder(lsp_client)  # type: ignore[attr-defined]
    await lsp_client.initialize_session(lsp.InitializeParams(
        capabilities=vscode_capabilities(), root_uri=tmp_path.as_uri(),
        initialization_options={"settings": {"runner": {"callgrind": False}}}))
    yield lsp_client
    await lsp_client.shutdown_session()


async def test_measured_edit_lens_hover_and_revert(client: LanguageClient,
                                                   tmp_path: Path) -> None:
    r: Recorder = client.recorder  # type: ignore[attr-defined]
    uri, _ = await finished_job(client, r, tmp_path / "ends.cpp", SOURCE, 3, 4, version=3)
    assert len(r.edits) == 1, ([m.message for m in client.messages], r.jobs)
    change = r.edits[0].edit.document_changes[0]  # type: ignore[index]
    assert isinstance(change, lsp.TextDocumentEdit) and change.text_document.version == 3
    new_text = apply_text_edit(SOURCE, change.edits[0])  # type: ignore[arg-type]
    assert "const std::vector<long> &v" in new_text.replace("& v", "&v")
    # The editor applies the edit and tells the server.
    client.text_document_did_change(lsp.DidChangeTextDocumentParams(
        lsp.VersionedTextDocumentIdentifier(uri=uri, version=4),
        [lsp.TextDocumentContentChangeWholeDocument(new_text)]))
    lenses = await client.text_document_code_lens_async(lsp.CodeLensParams(
        lsp.TextDocumentIdentifier(uri)))
    titles = [lens.command.title for lens in lenses or [] if lens.command]
    assert any(t.startswith("⚡") and "× faster (95% CI" in t for t in titles), titles
    assert {"Details", "Re-run", "Revert"} <= set(titles)
    # One lens line that fits a narrow editor: the actions first (a clipped line loses a
    # figure, never an action), then the result; how it was checked is in the hover.
    assert titles[:3] == ["Details", "Re-run", "Revert"], titles
    assert titles[-1].startswith("⚡") and "inputs" not in titles[-1]
    assert len(" | ".join(titles)) <= 100, titles
    hover = await client.text_document_hover_async(lsp.HoverParams(
        lsp.TextDocumentIdentifier(uri), lsp.Position(2, 6)))
    assert hover is not None
    text = hover.contents.value  # type: ignore[union-attr]
    assert "Function Call Overhead Reduction" in text
    # Short enough to read without scrolling: the result, how it was checked, no table (every
    # measurement is in Details).
    assert "**Result:** " in text and "95% CI" in text and "**Checked:** " in text, text
    assert "pairs timed" in text and "| measure |" not in text, text
    hints = await client.text_document_inlay_hint_async(lsp.InlayHintParams(
        lsp.TextDocumentIdentifier(uri), lsp.Range(lsp.Position(0, 0), lsp.Position(9, 0))))
    assert hints and str(hints[0].label).startswith("⚡")
    # Revert restores the original function as a versioned edit.
    reverted = await client.workspace_execute_command_async(lsp.ExecuteCommandParams(
        "perfpilot.revert", [{"uri": uri, "line": 2, "character": 0}]))
    assert reverted["applied"] is True
    back = r.edits[-1].edit.document_changes[0]  # type: ignore[index]
    assert isinstance(back, lsp.TextDocumentEdit) and back.text_document.version == 4
    assert apply_text_edit(new_text, back.edits[0]) == SOURCE  # type: ignore[arg-type]


SORT = """\
// Values in ascending order.
#include <vector>

void sort_values(std::vector<int>& v) {
    for (std::size_t i = 0; i < v.size(); ++i)
        for (std::size_t j = 0; j + 1 < v.size() - i; ++j)
            if (v[j] > v[j + 1]) std::swap(v[j], v[j + 1]);
}
"""


async def test_a_rewrite_adds_the_header_it_needs_and_revert_removes_it(
        client: LanguageClient, tmp_path: Path) -> None:
    r: Recorder = client.recorder  # type: ignore[attr-defined]
    uri, _ = await finished_job(client, r, tmp_path / "sort.cpp", SORT, 4, 8)
    assert len(r.edits) == 1, ([m.message for m in client.messages], r.jobs)
    change = r.edits[0].edit.document_changes[0]  # type: ignore[index]
    assert isinstance(change, lsp.TextDocumentEdit) and change.text_document.version == 1
    new_text = apply_text_edits(SORT, change.edits)  # type: ignore[arg-type]
    assert new_text.startswith("// Values in ascending order.\n#include <vector>\n"
                               "#include <algorithm>\n"), new_text
    assert "std::sort(v.begin(), v.end());" in new_text
    client.text_document_did_change(lsp.DidChangeTextDocumentParams(
        lsp.VersionedTextDocumentIdentifier(uri=uri, version=2),
        [lsp.TextDocumentContentChangeWholeDocument(new_text)]))
    reverted = await client.workspace_execute_command_async(lsp.ExecuteCommandParams(
        "perfpilot.revert", [{"uri": uri, "line": 5, "character": 0}]))
    assert reverted["applied"] is True
    back = r.edits[-1].edit.document_changes[0]  # type: ignore[index]
    assert isinstance(back, lsp.TextDocumentEdit) and back.text_document.version == 2
    assert apply_text_edits(new_text, back.edits) == SORT  # type: ignore[arg-type]


async def test_preview_mode_marks_the_edit_for_confirmation(client: LanguageClient,
                                                            tmp_path: Path) -> None:
    r: Recorder = client.recorder  # type: ignore[attr-defined]
    client.workspace_did_change_configuration(lsp.DidChangeConfigurationParams(
        {"perfpilot": {"applyMode": "preview", "runner": {"callgrind": False}}}))
    r.apply_result = False  # the user discards the change in the preview
    uri, _ = await finished_job(client, r, tmp_path / "ends.cpp", SOURCE, 3, 4)
    assert len(r.edits) == 1
    edit = r.edits[0].edit
    assert edit.change_annotations is not None
    notes = edit.change_annotations
    # The change is ticked in the preview (it needs no confirmation of its own), made of the
    # small edits that differ (short rows there) under a short label; a CreateFile of the file
    # itself, which never applies (it exists), asks for the confirmation that opens the
    # preview, and the preview lists no such operation.
    change, review = edit.document_changes  # type: ignore[misc]
    assert isinstance(change, lsp.TextDocumentEdit) and isinstance(review, lsp.CreateFile)
    assert all(isinstance(e, lsp.AnnotatedTextEdit) for e in change.edits)
    ids = {e.annotation_id for e in change.edits}  # type: ignore[union-attr]
    assert len(ids) == 1
    (rewrite_id,) = ids
    assert notes[rewrite_id].needs_confirmation is False
    assert notes[rewrite_id].label.startswith("PerfPilot: ends — "), notes[rewrite_id].label
    assert review.uri == uri and review.options is not None and review.options.ignore_if_exists
    assert not review.options.overwrite
    assert review.annotation_id is not None and notes[review.annotation_id].needs_confirmation
    # Each edit is short: the lines that changed, not the whole function again.
    assert all(len(e.new_text) < len(SOURCE) // 2 for e in change.edits), change.edits
    assert "const std::vector<long> &v" in \
        apply_text_edits(SOURCE, change.edits).replace("& v", "&v")  # type: ignore[arg-type]
    # Discarded: no figure is claimed on the unchanged function.
    lenses = await client.text_document_code_lens_async(lsp.CodeLensParams(
        lsp.TextDocumentIdentifier(uri)))
    titles = [lens.command.title for lens in lenses or [] if lens.command]
    assert not any("×" in t for t in titles), titles
    assert any(t.startswith("PerfPilot: not applied") for t in titles), titles
    assert "Revert" not in titles
    hints = await client.text_document_inlay_hint_async(lsp.InlayHintParams(
        lsp.TextDocumentIdentifier(uri), lsp.Range(lsp.Position(0, 0), lsp.Position(9, 0))))
    assert not hints


async def test_changed_compile_database_re_measures_the_applied_rewrite(
        client: LanguageClient, tmp_path: Path) -> None:
    r: Recorder = client.recorder  # type: ignore[attr-defined]
    uri, _ = await finished_job(client, r, tmp_path / "ends.cpp", SOURCE, 3, 4)
    assert len(r.edits) == 1
    change = r.edits[0].edit.document_changes[0]  # type: ignore[index]
    new_text = apply_text_edit(SOURCE, change.edits[0])  # type: ignore[union-attr,arg-type]
    client.text_document_did_change(lsp.DidChangeTextDocumentParams(
        lsp.VersionedTextDocumentIdentifier(uri=uri, version=2),
        [lsp.TextDocumentContentChangeWholeDocument(new_text)]))
    # New flags for the file: the measured result no longer describes the build.
    entry = {"directory": str(tmp_path), "file": "ends.cpp",
             "arguments": ["g++", "-O1", "-c", "ends.cpp"]}
    (tmp_path / "compile_commands.json").write_text(json.dumps([entry]))
    await r.wait(lambda: any(j["kind"] == "rerun" for j in r.jobs), timeout=60)
    rerun = next(j for j in r.jobs if j["kind"] == "rerun")
    await r.wait(lambda: r.job_done(rerun["jobId"]) is not None, timeout=300)
    assert r.job_done(rerun["jobId"])["stage"] == "done"  # type: ignore[index]
    assert len(r.edits) == 1  # re-measuring never edits
    report = await client.workspace_execute_command_async(lsp.ExecuteCommandParams(
        "perfpilot.showReport", [{"uri": uri, "line": 2, "character": 0}]))
    assert "-O1" in report["markdown"]


# A thin caller: its time goes into the helper above it, which the rewrite copies.
WRAPPED = """\
#include <cstddef>
#include <utility>
#include <vector>

static void order(std::vector<int>& v) {
    for (std::size_t i = 0; i < v.size(); ++i)
        for (std::size_t j = 0; j + 1 < v.size() - i; ++j)
            if (v[j] > v[j + 1]) std::swap(v[j], v[j + 1]);
}

long median_gap(std::vector<int> v) {
    order(v);
    if (v.size() < 2) return 0;
    return (long)v[v.size() / 2] - (long)v[0];
}
"""


async def test_a_callee_copy_is_applied_above_the_caller_and_reverted_with_it(
        client: LanguageClient, tmp_path: Path) -> None:
    r: Recorder = client.recorder  # type: ignore[attr-defined]
    uri, _ = await finished_job(client, r, tmp_path / "gap.cpp", WRAPPED, 11, 6)
    assert len(r.edits) == 1, ([m.message for m in client.messages], r.jobs)
    change = r.edits[0].edit.document_changes[0]  # type: ignore[index]
    assert isinstance(change, lsp.TextDocumentEdit)
    new_text = apply_text_edits(WRAPPED, change.edits)  # type: ignore[arg-type]
    # The helper is untouched; its rewritten copy sits just above the caller, which calls it.
    assert WRAPPED.split("long median_gap")[0].split("#include <vector>\n")[1] in new_text
    copy_at = new_text.index("static void order_fast(std::vector<int>& v) {")
    assert new_text.index("static void order(") < copy_at < new_text.index("long median_gap(")
    assert "    order_fast(v);\n" in new_text
    client.text_document_did_change(lsp.DidChangeTextDocumentParams(
        lsp.VersionedTextDocumentIdentifier(uri=uri, version=2),
        [lsp.TextDocumentContentChangeWholeDocument(new_text)]))
    # Located by name again, the caller is what was applied: the result is not stale.
    line = new_text[:new_text.index("long median_gap(")].count("\n")
    hover = await client.text_document_hover_async(lsp.HoverParams(
        lsp.TextDocumentIdentifier(uri), lsp.Position(line, 6)))
    assert hover is not None
    text = hover.contents.value  # type: ignore[union-attr]
    # The strategy names the callee it is about (the call line among its lines).
    assert "**: in `order`, " in text and "12)_" in text, text
    assert "changed since it was measured" not in text
    lenses = await client.text_document_code_lens_async(lsp.CodeLensParams(
        lsp.TextDocumentIdentifier(uri)))
    titles = [lens.command.title for lens in lenses or [] if lens.command]
    assert "Revert" in titles and any("× faster" in t for t in titles), titles
    # Revert puts the caller back and takes the copy (and the header it added) away.
    reverted = await client.workspace_execute_command_async(lsp.ExecuteCommandParams(
        "perfpilot.revert", [{"uri": uri, "line": line, "character": 0}]))
    assert reverted["applied"] is True
    back = r.edits[-1].edit.document_changes[0]  # type: ignore[index]
    assert isinstance(back, lsp.TextDocumentEdit)
    assert apply_text_edits(new_text, back.edits) == WRAPPED  # type: ignore[arg-type]
