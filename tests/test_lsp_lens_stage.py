"""The lens follows the job: a refresh at every stage (never a stage behind the job's
notification, which the status bar shows), the result once the edit is in the buffer, and one
status item for a client that shows job status itself."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest_lsp
from lsprotocol import types as lsp
from pytest_lsp import ClientServerConfig, LanguageClient

from lsp_support import (
    SERVER_COMMAND,
    Recorder,
    apply_text_edit,
    make_faster,
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


@pytest_lsp.fixture(config=ClientServerConfig(server_command=SERVER_COMMAND))
async def client(lsp_client: LanguageClient, tmp_path: Path) -> AsyncIterator[LanguageClient]:
    lsp_client.recorder = Recorder(lsp_client)  # type: ignore[attr-defined]

    @lsp_client.feature(lsp.WINDOW_SHOW_MESSAGE_REQUEST)
    def ask(params: lsp.ShowMessageRequestParams) -> lsp.MessageActionItem:
        return lsp.MessageActionItem("Apply")  # a weakly verified result asks first
    await lsp_client.initialize_session(lsp.InitializeParams(
        capabilities=vscode_capabilities(), root_uri=tmp_path.as_uri(),
        initialization_options={"showsJobStatus": True,
                                "settings": {"runner": {"callgrind": False}}}))
    yield lsp_client
    await lsp_client.shutdown_session()


async def lens_titles(client: LanguageClient, uri: str) -> list[str]:
    lenses = await client.text_document_code_lens_async(lsp.CodeLensParams(
        lsp.TextDocumentIdentifier(uri)))
    return [lens.command.title for lens in lenses or [] if lens.command]


async def test_the_lens_never_lags_the_job(client: LanguageClient, tmp_path: Path) -> None:
    r: Recorder = client.recorder  # type: ignore[attr-defined]
    path = tmp_path / "ends.cpp"
    path.write_text(SOURCE)
    uri = open_doc(client, path)
    answers: list[list[str]] = []  # the lenses asked for after each refresh, in order
    # For each refresh: how many job notifications the client had when it asked, and the
    # lens it got.
    asked: list[tuple[int, list[str]]] = []
    at_edit: list[str] = []

    async def on_refresh() -> None:
        seen = len(r.jobs)
        titles = await lens_titles(client, uri)
        answers.append(titles)
        asked.append((seen, titles))

    async def on_edit(params: lsp.ApplyWorkspaceEditParams) -> None:
        # The editor puts the edit in the buffer, tells the server, and asks for the lenses
        # before it answers the applyEdit request.
        change = params.edit.document_changes[0]  # type: ignore[index]
        assert isinstance(change, lsp.TextDocumentEdit)
        new_text = apply_text_edit(SOURCE, change.edits[0])  # type: ignore[arg-type]
        client.text_document_did_change(lsp.DidChangeTextDocumentParams(
            lsp.VersionedTextDocumentIdentifier(uri=uri, version=2),
            [lsp.TextDocumentContentChangeWholeDocument(new_text)]))
        at_edit.extend(await lens_titles(client, uri))

    r.on_lens_refresh = on_refresh
    r.on_edit = on_edit
    job_id = await make_faster(client, uri, 3, 4)
    await r.wait(lambda: r.job_done(job_id) is not None, timeout=300)
    assert len(r.edits) == 1, ([m.message for m in client.messages], r.job_done(job_id))

    # Every stage the job went through was followed by a lens refresh.
    stages = {j["stage"] for j in r.jobs if j["jobId"] == job_id and not j["done"]}
    assert {"building", "timing"} <= stages, stages
    assert r.lens_refreshes >= len(stages), (r.lens_refreshes, stages)
    running = {t.removeprefix("$(sync~spin) PerfPilot: ").removesuffix("…")
               for titles in answers for t in titles if t.startswith("$(sync~spin)")}
    assert "building" in running, answers
    # Never a stage behind: the running lens asked for after a refresh shows the stage of the
    # newest notification the client had then (the status bar's), or a later one.
    for seen, titles in asked:
        for t in titles:
            if t.startswith("$(sync~spin) PerfPilot: "):
                stage = t.removeprefix("$(sync~spin) PerfPilot: ").removesuffix("…")
                current = [j["stage"] for j in r.jobs[max(seen - 1, 0):]
                           if j["jobId"] == job_id]
                assert stage in current, (stage, r.jobs[:seen][-1:], titles)

    # With the edit in the buffer the lens shows the result, not a running state.
    assert at_edit and at_edit[-1].startswith("⚡"), at_edit  # actions first, then the result
    assert "Cancel" not in at_edit and not any("sync~spin" in t for t in at_edit), at_edit

    # Once the edit landed, the last refresh shows the applied result with Revert.
    await r.wait(lambda: bool(answers) and "Revert" in answers[-1], timeout=10)
    assert "Cancel" not in answers[-1], answers[-1]

    # One status item: the client shows job status, so no work-done progress besides it.
    assert client.progress_reports == {}, client.progress_reports
