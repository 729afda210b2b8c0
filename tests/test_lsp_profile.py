"""Profiles in the editor, through the real server over stdio: "Profile with PerfPilot" builds
and runs the workspace's program under a real profiler, then the hot function carries a lens
with its share, the hover says it, and an edit marks the profile stale."""

from __future__ import annotations

import asyncio
import shutil
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import pytest_lsp
from lsprotocol import types as lsp
from pytest_lsp import ClientServerConfig, LanguageClient

from lsp_support import SERVER_COMMAND, Recorder, open_doc, vscode_capabilities
from perfpilot.profiling import perf
from test_profiling import PROGRAM

pytestmark = pytest.mark.skipif(shutil.which("gcc") is None, reason="gcc is not installed")


def _tool() -> str:
    if asyncio.run(perf.perf_works()):
        return "perf"
    if shutil.which("valgrind") is not None:
        return "callgrind"
    return ""


TOOL = _tool()


@pytest_lsp.fixture(config=ClientServerConfig(server_command=SERVER_COMMAND))
async def client(lsp_client: LanguageClient, tmp_path: Path) -> AsyncIterator[LanguageClient]:
    Recorder(lsp_client)
    (tmp_path / "prog.c").write_text(PROGRAM, encoding="utf-8")
    size = 150000 if TOOL == "perf" else 3000
    (tmp_path / ".perfpilot.toml").write_text(
        "[profile]\n"
        'build_command = "gcc -g -O1 prog.c -o prog"\n'
        f'run_command = "./prog {size}"\n', encoding="utf-8")
    await lsp_client.initialize_session(lsp.InitializeParams(
        capabilities=vscode_capabilities(), root_uri=tmp_path.as_uri(),
        workspace_folders=[lsp.WorkspaceFolder(tmp_path.as_uri(), "ws")],
        initialization_options={"settings": {"runner": {"enabled": False}}}))
    yield lsp_client
    await lsp_client.shutdown_session()


def _line(needle: str) -> int:
    return next(i for i, line in enumerate(PROGRAM.split("\n")) if needle in line)


async def _lenses(client: LanguageClient, uri: str) -> list[lsp.CodeLens]:
    return list(await client.text_document_code_lens_async(
        lsp.CodeLensParams(lsp.TextDocumentIdentifier(uri))) or [])


async def test_profile_puts_lenses_and_hover_on_the_hot_function(
        client: LanguageClient, tmp_path: Path) -> None:
    if not TOOL:
        pytest.skip("neither perf nor valgrind works here")
    uri = open_doc(client, tmp_path / "prog.c", language="c")
    assert await _lenses(client, uri) == []  # no profile yet: no share to show

    result = await client.workspace_execute_command_async(
        lsp.ExecuteCommandParams("perfpilot.profile", []))
    assert isinstance(result, dict) and "error" not in result, result
    assert result["functions"][0]["name"] == "heavy"
    assert "heavy" in result["markdown"]

    heavy = _line("heavy: first")
    lenses = await _lenses(client, uri)
    titles: dict[int, list[str]] = {}
    for lens in lenses:
        assert lens.command is not None
        titles.setdefault(lens.range.start.line, []).append(lens.command.title)
    assert any("% of run time" in t for t in titles.get(heavy, [])), titles
    assert "Make this faster" in titles[heavy]
    faster = next(lens for lens in lenses if lens.command is not None
                  and lens.command.title == "Make this faster")
    assert faster.command is not None and faster.command.command == "perfpilot.makeFaster"
    assert not any("stale" in t for t in titles[heavy])

    hover = await client.text_document_hover_async(lsp.HoverParams(
        lsp.TextDocumentIdentifier(uri), lsp.Position(heavy, 45)))
    assert hover is not None and isinstance(hover.contents, lsp.MarkupContent)
    assert "of run time in this function itself" in hover.contents.value

    # An edit makes the profile stale: the lens says so.
    client.text_document_did_change(lsp.DidChangeTextDocumentParams(
        lsp.VersionedTextDocumentIdentifier(version=2, uri=uri),
        [lsp.TextDocumentContentChangeWholeDocument(PROGRAM + "/* edited */\n")]))
    lenses = await _lenses(client, uri)
    share = [lens.command.title for lens in lenses
             if lens.command is not None and "% of run time" in lens.command.title]
    assert share and all("stale" in t for t in share)

    shown = await client.workspace_execute_command_async(
        lsp.ExecuteCommandParams("perfpilot.showProfile", []))
    assert isinstance(shown, dict) and shown["functions"][0]["name"] == "heavy"


async def test_profile_without_a_run_command_says_what_to_set(
        client: LanguageClient, tmp_path: Path) -> None:
    (tmp_path / ".perfpilot.toml").write_text("[profile]\n", encoding="utf-8")
    client.workspace_did_change_configuration(lsp.DidChangeConfigurationParams(
        settings={"perfpilot": {"runner": {"enabled": False}}}))
    result = await client.workspace_execute_command_async(
        lsp.ExecuteCommandParams("perfpilot.profile", []))
    assert isinstance(result, dict)
    assert "runCommand" in str(result.get("error", "")), result
