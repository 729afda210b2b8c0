"""An applied rewrite survives a server restart on the same workspace (an editor reload):
lens, inlay hint, hover and Revert come back for a function whose text still matches (also in
an unsaved buffer the editor restored), and a function edited since gets one message saying
Revert no longer applies."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from pathlib import Path

from lsprotocol import types as lsp
from pytest_lsp import ClientServerConfig, LanguageClient

from lsp_support import (
    SERVER_COMMAND,
    Recorder,
    apply_text_edit,
    finished_job,
    open_doc,
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


@contextlib.asynccontextmanager
async def served(root: Path, plain_hover: bool = False, shows_results: bool = False
                 ) -> AsyncIterator[LanguageClient]:
    """One run of the real server over stdio on the workspace ``root`` (``plain_hover``: a
    client whose hovers show plain text only; ``shows_results``: one that shows results)."""
    client = await ClientServerConfig(server_command=SERVER_COMMAND).start()
    client.recorder = Recorder(client)  # type: ignore[attr-defined]
    caps = vscode_capabilities()
    if plain_hover:
        assert caps.text_document is not None
        caps.text_document.hover = lsp.HoverClientCapabilities(
            content_format=[lsp.MarkupKind.PlainText])
    try:
        await client.initialize_session(lsp.InitializeParams(
            capabilities=caps, root_uri=root.as_uri(),
            initialization_options={"settings": {"runner": {"callgrind": False}},
                                    "showsResults": shows_results}))
        yield client
        await client.shutdown_session()
    finally:
        await client.stop()


async def _titles(client: LanguageClient, uri: str) -> list[str]:
    lenses = await client.text_document_code_lens_async(lsp.CodeLensParams(
        lsp.TextDocumentIdentifier(uri)))
    return [lens.command.title for lens in lenses or [] if lens.command]


async def _revert(client: LanguageClient, uri: str) -> dict[str, object]:
    result = await client.workspace_execute_command_async(lsp.ExecuteCommandParams(
        "perfpilot.revert", [{"uri": uri, "line": 2, "character": 0}]))
    assert isinstance(result, dict)
    return result


async def test_an_applied_rewrite_survives_a_restart(tmp_path: Path) -> None:
    path = tmp_path / "ends.cpp"
    async with served(tmp_path, shows_results=True) as first:
        r: Recorder = first.recorder  # type: ignore[attr-defined]
        await finished_job(first, r, path, SOURCE, 3, 4)
        assert len(r.edits) == 1, ([m.message for m in first.messages], r.jobs)
        # A client that shows results gets the result as perfpilot/result, not as a message
        # (so that a later result can replace it).
        assert [x["message"].startswith("PerfPilot: ends rewritten — ") for x in r.results] \
            == [True], r.results
        assert not any("rewritten" in m.message for m in first.messages)
        change = r.edits[0].edit.document_changes[0]  # type: ignore[index]
        rewritten = apply_text_edit(SOURCE, change.edits[0])  # type: ignore[union-attr,arg-type]
    assert (tmp_path / ".perfpilot" / "applied").is_dir()
    ignored = (tmp_path / ".perfpilot" / ".gitignore").read_text().splitlines()
    assert "/applied/" in ignored

    edited = rewritten.replace("return 0;", "return -1;")
    async with served(tmp_path, plain_hover=True) as second:
        r = second.recorder  # type: ignore[attr-defined]
        # Edited since the rewrite: no result is claimed, and Revert says why, once.
        uri = open_doc(second, path, edited)
        assert not any(t.startswith("⚡") for t in await _titles(second, uri))
        answer = await _revert(second, uri)
        assert answer["applied"] is False
        assert answer["message"] == "Revert no longer applies: the function changed"
        said = [m.message for m in second.messages if "revert" in m.message.lower()]
        assert said == ["PerfPilot: Revert no longer applies: the function changed"], said
        assert r.edits == []
        # The edit undone: the function is the rewrite again, and its result comes back.
        second.text_document_did_change(lsp.DidChangeTextDocumentParams(
            lsp.VersionedTextDocumentIdentifier(uri=uri, version=2),
            [lsp.TextDocumentContentChangeWholeDocument(rewritten)]))
        titles = await _titles(second, uri)
        assert "Revert" in titles and any(t.startswith("⚡") for t in titles), titles
        second.text_document_did_close(lsp.DidCloseTextDocumentParams(
            lsp.TextDocumentIdentifier(uri)))

        # The applied text in an unsaved buffer (an editor restores it after a reload from its
        # own backup; the file on disk still holds the original): the result and Revert are
        # back from the text the editor sent, without a file write.
        assert path.read_text() == SOURCE
        uri = open_doc(second, path, rewritten, version=3)
        titles = await _titles(second, uri)
        assert any(t.startswith("⚡") and "×" in t for t in titles), titles
        assert "Revert" in titles and "Details" in titles, titles
        hints = await second.text_document_inlay_hint_async(lsp.InlayHintParams(
            lsp.TextDocumentIdentifier(uri),
            lsp.Range(lsp.Position(0, 0), lsp.Position(9, 0))))
        assert hints and str(hints[0].label).startswith("⚡")
        hover = await second.text_document_hover_async(lsp.HoverParams(
            lsp.TextDocumentIdentifier(uri), lsp.Position(2, 6)))
        # This client asked for plain text: the result on a line of its own, no markup.
        assert hover is not None and isinstance(hover.contents, lsp.MarkupContent)
        assert hover.contents.kind == lsp.MarkupKind.PlainText
        assert "\nResult: " in hover.contents.value, hover.contents.value
        assert "95% CI " in hover.contents.value, hover.contents.value
        assert "**" not in hover.contents.value and "\\" not in hover.contents.value
        answer = await _revert(second, uri)
        assert answer["applied"] is True, answer
        back = r.edits[-1].edit.document_changes[0]  # type: ignore[index]
        assert apply_text_edit(rewritten, back.edits[0]) == SOURCE  # type: ignore[union-attr,arg-type]
        # An open report, asked again after Revert, says what happened and what was measured.
        report = await second.workspace_execute_command_async(lsp.ExecuteCommandParams(
            "perfpilot.showReport", [{"uri": uri, "line": 2, "character": 0}]))
        assert "**Reverted**; last measured: " in report["markdown"], report
        assert "× faster" in report["markdown"]
    # Reverted: nothing is kept for a third run.
    assert not list((tmp_path / ".perfpilot" / "applied").glob("*.json"))
