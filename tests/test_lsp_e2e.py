"""The real server over stdio, driven by pytest-lsp as an editor would drive it."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path

import pytest_lsp
from lsprotocol import types as lsp
from pytest_lsp import ClientServerConfig, LanguageClient

from lsp_support import (
    SERVER_COMMAND,
    Recorder,
    apply_text_edit,
    open_doc,
    vscode_capabilities,
)

SOURCE = """\
#include <cstring>
#include <vector>

int counter = 0;

long count_upper(const char* s) {
    long c = 0;
    for (size_t i = 0; i < strlen(s); ++i)
        if (s[i] >= 'A' && s[i] <= 'Z') ++c;
    return c;
}

double total(std::vector<double> v) {
    double s = 0;
    for (size_t i = 0; i < v.size(); ++i) s += v[i] * 2.0;
    return s;
}
"""


@pytest_lsp.fixture(config=ClientServerConfig(server_command=SERVER_COMMAND))
async def client(lsp_client: LanguageClient, tmp_path: Path) -> AsyncIterator[LanguageClient]:
    lsp_client.recorder = Recorder(lsp_client)  # type: ignore[attr-defined]
    (tmp_path / "src").mkdir()
    await lsp_client.initialize_session(lsp.InitializeParams(
        capabilities=vscode_capabilities(),
        root_uri=tmp_path.as_uri(),
        workspace_folders=[lsp.WorkspaceFolder(tmp_path.as_uri(), "ws")],
        initialization_options={"settings": {"runner": {"enabled": False}}},
    ))
    yield lsp_client
    await lsp_client.shutdown_session()


def rec(client: LanguageClient) -> Recorder:
    r: Recorder = client.recorder  # type: ignore[attr-defined]
    return r


def write(tmp_path: Path, text: str = SOURCE, name: str = "src/a.cpp") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def line_of(text: str, needle: str) -> int:
    return next(i for i, line in enumerate(text.split("\n")) if needle in line)


async def actions_at(client: LanguageClient, uri: str, line: int, char: int = 4
                     ) -> list[lsp.CodeAction]:
    pos = lsp.Position(line, char)
    result = await client.text_document_code_action_async(lsp.CodeActionParams(
        text_document=lsp.TextDocumentIdentifier(uri), range=lsp.Range(pos, pos),
        context=lsp.CodeActionContext(diagnostics=[])))
    return [a for a in result or [] if isinstance(a, lsp.CodeAction)]


async def run_command(client: LanguageClient, action: lsp.CodeAction) -> dict[str, object]:
    assert action.command is not None
    result = await client.workspace_execute_command_async(lsp.ExecuteCommandParams(
        command=action.command.command, arguments=action.command.arguments))
    assert isinstance(result, dict)
    return result


async def test_code_action_inside_function_and_absent_outside(client: LanguageClient,
                                                              tmp_path: Path) -> None:
    uri = open_doc(client, write(tmp_path))
    inside = await actions_at(client, uri, line_of(SOURCE, "long c = 0"))
    assert [a.kind for a in inside] == ["refactor.rewrite.perfpilot",
                                        "refactor.rewrite.perfpilot.explain"]
    assert "count_upper" in inside[0].title
    assert inside[0].edit is None  # the model never runs while listing actions
    assert await actions_at(client, uri, line_of(SOURCE, "int counter")) == []
    assert await actions_at(client, uri, 0, 0) == []


async def test_make_faster_applies_one_versioned_edit_of_exactly_the_function(
        client: LanguageClient, tmp_path: Path) -> None:
    uri = open_doc(client, write(tmp_path), version=7)
    start = line_of(SOURCE, "long count_upper")
    action = (await actions_at(client, uri, start + 2))[0]
    result = await run_command(client, action)
    job_id = str(result["jobId"])
    r = rec(client)
    await r.wait(lambda: bool(r.edits) or r.job_done(job_id) is not None)
    assert len(r.edits) == 1, client.messages
    params = r.edits[0]
    assert params.label is not None and params.label.startswith("Optimize count_upper")
    changes = params.edit.document_changes
    assert changes is not None and len(changes) == 1
    change = changes[0]
    assert isinstance(change, lsp.TextDocumentEdit)
    assert change.text_document.uri == uri and change.text_document.version == 7
    (edit,) = change.edits
    assert edit.range.start == lsp.Position(start, 0)
    end = line_of(SOURCE, "return c;") + 1
    assert edit.range.end == lsp.Position(end, 1)
    new_text = apply_text_edit(SOURCE, edit)  # type: ignore[arg-type]
    assert "strlen(s)" in new_text
    # The rewrite hoists the invariant strlen call; everything outside is untouched.
    loop_line = next(line for line in new_text.split("\n") if "for (" in line
                     and "count" not in line and "size_t i" in line)
    assert "strlen" not in loop_line
    assert new_text.endswith(SOURCE[SOURCE.index("double total"):])
    # Progress went Begin -> ... -> End for the job's token.
    reports = client.progress_reports.get(job_id, [])
    kinds = [type(p).__name__ for p in reports]
    assert kinds[0] == "WorkDoneProgressBegin" and kinds[-1] == "WorkDoneProgressEnd"


async def test_stale_version_is_refused(client: LanguageClient, tmp_path: Path) -> None:
    path = write(tmp_path)
    uri = open_doc(client, path, version=1)
    action = (await actions_at(client, uri, line_of(SOURCE, "long c = 0")))[0]
    result = await run_command(client, action)
    # The user types before the job finishes.
    client.text_document_did_change(lsp.DidChangeTextDocumentParams(
        text_document=lsp.VersionedTextDocumentIdentifier(uri=uri, version=2),
        content_changes=[lsp.TextDocumentContentChangeWholeDocument(
            text="// typing\n" + SOURCE)]))
    r = rec(client)
    job_id = str(result["jobId"])
    await r.wait(lambda: r.job_done(job_id) is not None)
    await asyncio.sleep(0.2)
    assert r.edits == []
    assert any("changed while the job ran" in m.message for m in client.messages)


async def test_hover_shows_the_plan_after_explain(client: LanguageClient,
                                                  tmp_path: Path) -> None:
    uri = open_doc(client, write(tmp_path))
    line = line_of(SOURCE, "double total")
    hover_params = lsp.HoverParams(lsp.TextDocumentIdentifier(uri), lsp.Position(line, 8))
    assert await client.text_document_hover_async(hover_params) is None
    explain = (await actions_at(client, uri, line + 1))[1]
    result = await run_command(client, explain)
    r = rec(client)
    await r.wait(lambda: r.job_done(str(result["jobId"])) is not None)
    hover = await client.text_document_hover_async(hover_params)
    assert hover is not None and isinstance(hover.contents, lsp.MarkupContent)
    text = hover.contents.value
    assert "PerfPilot plan for `total`" in text
    assert "Multithreading and Concurrency" in text or "Memory Usage" in text
    assert r.edits == []  # explain never edits
    # Hover inside the body (not the signature) stays quiet.
    body = lsp.HoverParams(lsp.TextDocumentIdentifier(uri), lsp.Position(line + 2, 8))
    assert await client.text_document_hover_async(body) is None


async def test_cancelling_progress_stops_the_job(client: LanguageClient,
                                                 tmp_path: Path) -> None:
    # With the runner on, the job spends seconds building and timing: time enough to cancel.
    client.workspace_did_change_configuration(lsp.DidChangeConfigurationParams(
        settings={"perfpilot": {"runner": {"enabled": True}}}))
    uri = open_doc(client, write(tmp_path))
    action = (await actions_at(client, uri, line_of(SOURCE, "double s = 0")))[0]
    result = await run_command(client, action)
    job_id = str(result["jobId"])
    r = rec(client)
    await r.wait(lambda: job_id in client.progress_reports)
    client.protocol.notify(lsp.WINDOW_WORK_DONE_PROGRESS_CANCEL,
                           lsp.WorkDoneProgressCancelParams(token=job_id))
    await r.wait(lambda: r.job_done(job_id) is not None, timeout=30)
    final = r.job_done(job_id)
    assert final is not None and final["stage"] == "cancelled"
    assert r.edits == []


async def test_syntax_error_empty_file_and_unknown_language(client: LanguageClient,
                                                            tmp_path: Path) -> None:
    broken = "int f(int n) {\n  int s = 0;\n  for (int i = 0; i < n; i++ { s += i; }\n" \
             "  return s;\n}\n"
    uri = open_doc(client, write(tmp_path, broken, "src/broken.cpp"))
    actions = await actions_at(client, uri, 1)
    # VS Code shows the action greyed out with the reason; a click still gets a clear message.
    assert actions[0].disabled is not None and "syntax error" in actions[0].disabled.reason
    result = await run_command(client, actions[0])
    assert "syntax error near line 3" in str(result.get("error"))
    assert any("syntax error" in m.message for m in client.messages)
    empty = open_doc(client, write(tmp_path, "", "src/empty.cpp"))
    assert await actions_at(client, empty, 0, 0) == []
    other = open_doc(client, write(tmp_path, "def f(): pass\n", "src/x.py"), language="python")
    assert await actions_at(client, other, 0, 0) == []


async def test_huge_file_answers_without_blocking(client: LanguageClient,
                                                  tmp_path: Path) -> None:
    body = "".join(f"int f{i}(int x) {{ return x + {i}; }}\n" for i in range(50_000))
    uri = open_doc(client, write(tmp_path, body, "src/huge.cpp"))
    actions = await actions_at(client, uri, 41_234, 3)
    assert actions and "f41234" in actions[0].title
    # The server is still responsive afterwards.
    assert await actions_at(client, uri, 10, 3)


async def test_non_utf8_text_arrives_replaced_and_is_not_rewritten_blindly(
        client: LanguageClient, tmp_path: Path) -> None:
    raw = b"// caf\xe9\nint f(int x) { return x * 2; }\n"
    path = tmp_path / "src" / "latin1.cpp"
    path.write_bytes(raw)
    text = raw.decode("utf-8", errors="replace")  # what an editor sends for a Latin-1 file
    uri = open_doc(client, path, text)
    actions = await actions_at(client, uri, 1, 5)
    assert actions and "f" in actions[0].title
    result = await run_command(client, actions[0])
    r = rec(client)
    await r.wait(lambda: r.job_done(str(result["jobId"])) is not None)
    assert path.read_bytes() == raw  # the server never writes the user's file


async def test_requests_are_answered_while_a_job_runs(client: LanguageClient,
                                                     tmp_path: Path) -> None:
    client.workspace_did_change_configuration(lsp.DidChangeConfigurationParams(
        settings={"perfpilot": {"runner": {"enabled": True}}}))
    uri = open_doc(client, write(tmp_path))
    line = line_of(SOURCE, "double s = 0")
    result = await run_command(client, (await actions_at(client, uri, line))[0])
    job_id = str(result["jobId"])
    r = rec(client)
    await r.wait(lambda: any(j["jobId"] == job_id and j["stage"] == "building"
                             for j in r.jobs))
    # Code actions and hovers are answered while the job builds and times in the background.
    assert await actions_at(client, uri, line)
    hover = await client.text_document_hover_async(lsp.HoverParams(
        lsp.TextDocumentIdentifier(uri), lsp.Position(line - 1, 8)))
    assert hover is not None and "is working on `total`" in str(hover.contents)
    assert r.job_done(job_id) is None
    lenses = await client.text_document_code_lens_async(lsp.CodeLensParams(
        lsp.TextDocumentIdentifier(uri)))
    titles = [lens.command.title for lens in lenses or [] if lens.command]
    assert "Cancel" in titles
    await client.workspace_execute_command_async(lsp.ExecuteCommandParams(
        command="perfpilot.cancel", arguments=[{"jobId": job_id}]))
    await r.wait(lambda: r.job_done(job_id) is not None, timeout=30)
