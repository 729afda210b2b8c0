"""Through the real server and the real runner: a rewrite that needs -fopenmp, in a CMake
project whose build lacks it, is offered "Show where to add -fopenmp", which opens the
CMakeLists.txt at the target that compiles the file (window/showDocument with a selection).

The optimizer is the remote backend talking to a loopback endpoint that answers with a fixed
OpenMP rewrite (the builtin planner plans); the runner measures it for real."""

from __future__ import annotations

import json
import shutil
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
import pytest_lsp
from lsprotocol import types as lsp
from pytest_lsp import ClientServerConfig, LanguageClient

from lsp_support import SERVER_COMMAND, Recorder, finished_job, vscode_capabilities
from test_llm_remote_faults import FaultyEndpoint, Stream
from test_runner_measure import PREFIX_SQ, PREFIX_SQ_OMP

pytestmark = pytest.mark.skipif(shutil.which("g++") is None, reason="g++ is not installed")

# A quadratic sum and its linear, parallel rewrite: faster on one thread too, so the verdict
# does not hang on the cores.
SOURCE, REWRITE = PREFIX_SQ, PREFIX_SQ_OMP
ANSWER = f"[OPT/]\n```cpp\n{REWRITE}\n```\n[/OPT]"

CMAKELISTS = """\
cmake_minimum_required(VERSION 3.16)
project(squares CXX)
add_executable(squares main.cpp prefix.cpp)
target_compile_options(squares PRIVATE -O2 -Wall)
"""


@pytest.fixture
async def endpoint() -> AsyncIterator[FaultyEndpoint]:
    async with FaultyEndpoint(Stream(ANSWER)) as e:
        yield e


@pytest_lsp.fixture(config=ClientServerConfig(server_command=SERVER_COMMAND))
async def client(lsp_client: LanguageClient, tmp_path: Path) -> AsyncIterator[LanguageClient]:
    lsp_client.recorder = Recorder(lsp_client)  # type: ignore[attr-defined]
    await lsp_client.initialize_session(lsp.InitializeParams(
        capabilities=vscode_capabilities(), root_uri=tmp_path.as_uri(),
        workspace_folders=[lsp.WorkspaceFolder(tmp_path.as_uri(), "ws")]))
    yield lsp_client
    await lsp_client.shutdown_session()


def _project(root: Path, flags: str) -> None:
    (root / "CMakeLists.txt").write_text(CMAKELISTS, encoding="utf-8")
    (root / "build").mkdir()
    # What CMake writes for that target: the project's real flags, here without -fopenmp.
    (root / "build" / "compile_commands.json").write_text(json.dumps([{
        "directory": str(root / "build"), "file": str(root / "prefix.cpp"),
        "command": f"/usr/bin/g++ -O2 -Wall {flags}-o prefix.o -c {root / 'prefix.cpp'}"}],
        indent=2), encoding="utf-8")


def _settings(endpoint: FaultyEndpoint) -> dict[str, Any]:
    return {"perfpilot": {
        "optimizer": {"backend": "remote", "endpoint": endpoint.url, "model": "tiny",
                      "samples": 1, "timeoutS": 30},
        "runner": {"callgrind": False, "threads": 1, "pairs": 8}}}


async def _actions(client: LanguageClient, uri: str, line: int) -> list[lsp.CodeAction]:
    got = await client.text_document_code_action_async(lsp.CodeActionParams(
        lsp.TextDocumentIdentifier(uri), lsp.Range(lsp.Position(line, 6), lsp.Position(line, 6)),
        lsp.CodeActionContext(diagnostics=[])))
    return [a for a in got or [] if isinstance(a, lsp.CodeAction)]


async def test_show_where_to_add_fopenmp_opens_the_targets_cmake_line(
        client: LanguageClient, endpoint: FaultyEndpoint, tmp_path: Path) -> None:
    r: Recorder = client.recorder  # type: ignore[attr-defined]
    _project(tmp_path, "")
    client.workspace_did_change_configuration(lsp.DidChangeConfigurationParams(
        settings=_settings(endpoint)))
    uri, job = await finished_job(client, r, tmp_path / "prefix.cpp", SOURCE, 4, 6)
    done = r.job_done(job)
    assert done is not None and "faster" in done["message"], done

    actions = await _actions(client, uri, 4)
    flag = [a for a in actions if a.kind == "quickfix.perfpilot.buildFlags"]
    assert [a.title for a in flag] == ["Show where to add -fopenmp"], [a.title for a in actions]
    command = flag[0].command
    assert command is not None and command.command == "perfpilot.showFlagPlace"
    result = await client.workspace_execute_command_async(lsp.ExecuteCommandParams(
        command.command, command.arguments))
    assert isinstance(result, dict) and result["kind"] == "cmake", result
    shown = client.shown_documents[-1]
    assert shown.uri == (tmp_path / "CMakeLists.txt").as_uri() and shown.take_focus
    assert shown.selection is not None
    line = CMAKELISTS.splitlines()[shown.selection.start.line]
    assert line.startswith("target_compile_options(squares"), line
    assert "target_link_libraries(squares PRIVATE OpenMP::OpenMP_CXX)" in result["message"]
    assert any("find_package(OpenMP)" in m.message for m in client.messages)


async def test_no_flag_action_when_the_build_has_the_flag(
        client: LanguageClient, endpoint: FaultyEndpoint, tmp_path: Path) -> None:
    r: Recorder = client.recorder  # type: ignore[attr-defined]
    _project(tmp_path, "-fopenmp ")
    client.workspace_did_change_configuration(lsp.DidChangeConfigurationParams(
        settings=_settings(endpoint)))
    uri, job = await finished_job(client, r, tmp_path / "prefix.cpp", SOURCE, 4, 6)
    done = r.job_done(job)
    assert done is not None and "faster" in done["message"], done
    titles = [a.title for a in await _actions(client, uri, 4)]
    assert any(t.startswith("Make this faster") for t in titles), titles
    assert not any(t.startswith("Show where to add") for t in titles), titles
    # The command itself answers without opening anything.
    result = await client.workspace_execute_command_async(lsp.ExecuteCommandParams(
        "perfpilot.showFlagPlace", [{"uri": uri, "line": 4, "character": 6}]))
    assert result == {"shown": False,
                      "message": "no rewrite here needs a flag your build lacks"}
    assert client.shown_documents == []
