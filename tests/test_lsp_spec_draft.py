"""Through the real server and runner: a function the generated harness cannot feed gets a
"Draft a bench spec" action that creates the draft through the editor and opens it."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path

import pytest_lsp
from lsprotocol import types as lsp
from pytest_lsp import ClientServerConfig, LanguageClient

from lsp_support import SERVER_COMMAND, Recorder, finished_job, open_doc, vscode_capabilities
from perfpilot.code.locate import function_by_name
from perfpilot.runner.spec_draft import draft_spec

# The vector taken by value gives the builtin rewriter a candidate; the opaque handle is a
# parameter the generated harness cannot build (an incomplete type behind a pointer).
SOURCE = """\
#include <vector>

struct Handle;
long tag_of(const Handle* h);

long ends(std::vector<long> v, const Handle* h) {
    if (v.empty()) return tag_of(h);
    return v.front() + v.back();
}
"""
LINE = 6  # inside ends
TITLE = "PerfPilot: Draft a bench spec for ends"


@pytest_lsp.fixture(config=ClientServerConfig(server_command=SERVER_COMMAND))
async def client(lsp_client: LanguageClient, tmp_path: Path) -> AsyncIterator[LanguageClient]:
    lsp_client.recorder = Recorder(lsp_client)  # type: ignore[attr-defined]
    await lsp_client.initialize_session(lsp.InitializeParams(
        capabilities=vscode_capabilities(), root_uri=tmp_path.as_uri(),
        initialization_options={"settings": {"runner": {"callgrind": False}}}))
    yield lsp_client
    await lsp_client.shutdown_session()


async def actions(client: LanguageClient, uri: str,
                  diagnostics: list[lsp.Diagnostic] | None = None) -> list[lsp.CodeAction]:
    pos = lsp.Position(LINE, 4)
    result = await client.text_document_code_action_async(lsp.CodeActionParams(
        text_document=lsp.TextDocumentIdentifier(uri), range=lsp.Range(pos, pos),
        context=lsp.CodeActionContext(diagnostics=diagnostics or [])))
    return [a for a in result or [] if isinstance(a, lsp.CodeAction)]


async def test_draft_spec_action_creates_the_draft_and_never_overwrites(
        client: LanguageClient, tmp_path: Path) -> None:
    r: Recorder = client.recorder  # type: ignore[attr-defined]
    path = tmp_path / "ends.cpp"
    path.write_text(SOURCE)
    before = await actions(client, open_doc(client, path))
    assert TITLE not in [a.title for a in before]  # nothing failed yet: nothing to draft

    uri, _ = await finished_job(client, r, path, SOURCE, LINE, 4)
    offered = {a.title: a for a in await actions(client, uri)}
    assert TITLE in offered, list(offered)
    action = offered[TITLE]
    assert action.kind == "quickfix.perfpilot.spec" and action.command is not None
    assert action.command.command == "perfpilot.draftBenchSpec"

    # The diagnostic is a hint about the function, not an error blaming the rewrite: it says
    # what PerfPilot cannot do and points at the quick fix, never at a command line.
    diags = [d for d in client.diagnostics.get(uri, [])
             if isinstance(d.data, dict) and d.data.get("needsSpec") is True]
    assert diags, client.diagnostics.get(uri)
    (diag,) = diags
    assert diag.code == "needs-spec" and diag.severity == lsp.DiagnosticSeverity.Information
    assert diag.message.startswith("PerfPilot cannot build inputs for ends: "), diag.message
    assert "'h'" in diag.message and "Draft a bench spec for ends" in diag.message
    assert "candidate" not in diag.message and "perfpilot spec" not in diag.message
    assert str(tmp_path) not in diag.message and not diag.related_information
    # The lens says it too, and offers the draft beside Details.
    lenses = await client.text_document_code_lens_async(
        lsp.CodeLensParams(text_document=lsp.TextDocumentIdentifier(uri)))
    commands = [lens.command for lens in lenses or [] if lens.command is not None]
    titles = [c.title for c in commands]
    assert any(t.startswith("PerfPilot cannot build inputs for ends: ") for t in titles), titles
    draft = [c for c in commands if c.command == "perfpilot.draftBenchSpec"]
    assert draft and list(draft[0].arguments or []) == [{"uri": uri, "function": "ends"}], titles
    # No failure toast: what the user is told is the same hint, at information level.
    assert not [m for m in client.messages if m.type == lsp.MessageType.Error], client.messages
    told = [m.message for m in client.messages
            if "PerfPilot cannot build inputs for ends" in m.message]
    assert told and "Quick Fix" in told[-1] and "perfpilot spec" not in told[-1], told
    quick = [a for a in await actions(client, uri, diags) if a.title == TITLE]
    assert len(quick) == 1 and quick[0].is_preferred
    assert list(quick[0].diagnostics or []) == diags[:1]

    edits_before = len(r.edits)
    result = await client.workspace_execute_command_async(lsp.ExecuteCommandParams(
        action.command.command, action.command.arguments))
    spec = tmp_path / ".perfpilot" / "ends.bench.cpp"
    assert result["created"] is True and result["uri"] == spec.as_uri(), result
    assert len(r.edits) == edits_before + 1
    changes = r.edits[-1].edit.document_changes
    assert changes is not None and len(changes) == 2
    create, insert = changes
    assert isinstance(create, lsp.CreateFile) and create.uri == spec.as_uri()
    assert create.options is not None and not create.options.overwrite \
        and not create.options.ignore_if_exists
    assert isinstance(insert, lsp.TextDocumentEdit) and insert.text_document.uri == spec.as_uri()
    (edit,) = insert.edits
    assert edit.range == lsp.Range(lsp.Position(0, 0), lsp.Position(0, 0))
    site = function_by_name(SOURCE, "cpp", "ends", uri=uri)
    assert edit.new_text == draft_spec(site)
    assert "could not generate inputs" in edit.new_text and "'h'" in edit.new_text
    assert not spec.exists()  # the editor creates it, not the server
    assert client.shown_documents[-1].uri == spec.as_uri()

    # The editor creates the draft and saves it with its TODOs: nothing is measured on it
    # (it would compile an unfinished draft and blame the rewrite).
    spec.parent.mkdir(exist_ok=True)
    jobs_before = {j["jobId"] for j in r.jobs}
    spec.write_text("")
    spec.write_text(edit.new_text)
    await r.wait(lambda: any("ends.bench.cpp changed but is not complete" in m.message
                             for m in client.log_messages), timeout=15)
    await asyncio.sleep(1)
    assert {j["jobId"] for j in r.jobs} == jobs_before, r.jobs[-3:]
    spec.unlink()

    # A spec that exists is opened, never overwritten and never edited.
    spec.write_text("// my own spec\n")
    shown = len(client.shown_documents)
    again = await client.workspace_execute_command_async(lsp.ExecuteCommandParams(
        action.command.command, action.command.arguments))
    assert again["created"] is False and again["uri"] == spec.as_uri(), again
    assert len(r.edits) == edits_before + 1
    assert spec.read_text() == "// my own spec\n"
    assert len(client.shown_documents) == shown + 1
    assert client.shown_documents[-1].uri == spec.as_uri()
