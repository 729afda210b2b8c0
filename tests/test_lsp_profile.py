"""Profiles in the editor, through the real server over stdio: "Profile with PerfPilot" builds
and runs the workspace's program under a real profiler, then the hot function carries a lens
with its share, the hover says it, and an edit marks the profile stale."""

from __future__ import annotations

import asyncio
import concurrent.futures
import functools
import os
import shutil
import signal
import subprocess
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
import pytest_lsp
from lsprotocol import types as lsp
from pytest_lsp import ClientServerConfig, LanguageClient

from lsp_support import SERVER_COMMAND, Recorder, open_doc, vscode_capabilities
from perfpilot.profiling import perf
from test_profiling import PROGRAM, SPIN, alive

pytestmark = pytest.mark.skipif(shutil.which("gcc") is None, reason="gcc is not installed")


@functools.cache
def _tool() -> str:
    """The profiler the server will pick here ("" when none works); asked from a thread, as
    the async fixtures and tests already run an event loop."""
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        works = pool.submit(asyncio.run, perf.perf_works()).result()
    if works:
        return "perf"
    if shutil.which("valgrind") is not None:
        return "callgrind"
    return ""


@pytest_lsp.fixture(config=ClientServerConfig(server_command=SERVER_COMMAND))
async def client(lsp_client: LanguageClient, tmp_path: Path) -> AsyncIterator[LanguageClient]:
    lsp_client.recorder = Recorder(lsp_client)  # type: ignore[attr-defined]
    (tmp_path / "prog.c").write_text(PROGRAM, encoding="utf-8")
    size = 150000 if _tool() == "perf" else 3000
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
    if not _tool():
        pytest.skip("neither perf nor valgrind works here")
    uri = open_doc(client, tmp_path / "prog.c", language="c")
    assert await _lenses(client, uri) == []  # no profile yet: no share to show

    result = await client.workspace_execute_command_async(
        lsp.ExecuteCommandParams("perfpilot.profile", []))
    assert isinstance(result, dict) and "error" not in result, result
    assert result["functions"][0]["name"] == "heavy"
    assert "heavy" in result["markdown"]
    # Kept in the workspace's private folder, so a restarted server shows it again.
    assert (tmp_path / ".perfpilot" / "profiles" / "profile.json").is_file()

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


UPPER = """\
#include <cstdio>
#include <cstdlib>
#include <cstring>

long count_upper(const char* s) {
    long c = 0;
    for (size_t i = 0; i < strlen(s); ++i)
        if (s[i] >= 'A' && s[i] <= 'Z') ++c;
    return c;
}

int main(int argc, char** argv) {
    size_t n = argc > 1 ? (size_t)atol(argv[1]) : 20000;
    char* s = (char*)malloc(n + 1);
    for (size_t i = 0; i < n; ++i) s[i] = (char)('A' + (i * 7) % 40);
    s[n] = 0;
    std::printf("%ld\\n", count_upper(s));
    free(s);
    return 0;
}
"""


async def test_confirm_in_program_after_an_applied_rewrite(
        client: LanguageClient, tmp_path: Path) -> None:
    from lsp_support import apply_text_edits

    (tmp_path / "prog.cpp").write_text(UPPER, encoding="utf-8")
    (tmp_path / "check.sh").write_text(
        '#!/bin/sh\n[ "$(./prog 1000)" = "$(cat expected.txt)" ] || '
        '{ echo "FAIL test_count"; exit 1; }\n', encoding="utf-8")
    (tmp_path / ".perfpilot.toml").write_text(
        "[profile]\n"
        'build_command = "g++ -O1 prog.cpp -o prog"\n'
        'run_command = "./prog 20000"\n'
        'test_command = "sh check.sh"\n'
        "confirm_pairs = 3\n", encoding="utf-8")
    subprocess.run(["g++", "-O1", "prog.cpp", "-o", "prog"], cwd=tmp_path, check=True)
    expected = subprocess.run(["./prog", "1000"], cwd=tmp_path, check=True,
                              capture_output=True, text=True).stdout
    (tmp_path / "expected.txt").write_text(expected, encoding="utf-8")
    client.workspace_did_change_configuration(lsp.DidChangeConfigurationParams(
        settings={"perfpilot": {"runner": {"enabled": False}}}))
    uri = open_doc(client, tmp_path / "prog.cpp")
    start = _line_in(UPPER, "long count_upper")
    recorder: Recorder = client.recorder  # type: ignore[attr-defined]
    result = await client.workspace_execute_command_async(lsp.ExecuteCommandParams(
        "perfpilot.makeFaster", [{"uri": uri, "line": start + 2, "character": 4}]))
    assert isinstance(result, dict) and "jobId" in result, result
    await recorder.wait(lambda: bool(recorder.edits))
    change = recorder.edits[0].edit.document_changes[0]  # type: ignore[index]
    new_text = apply_text_edits(UPPER, change.edits)  # type: ignore[union-attr]
    client.text_document_did_change(lsp.DidChangeTextDocumentParams(
        lsp.VersionedTextDocumentIdentifier(version=2, uri=uri),
        [lsp.TextDocumentContentChangeWholeDocument(new_text)]))

    async def titles() -> list[str]:
        return [lens.command.title for lens in await _lenses(client, uri)
                if lens.command is not None]

    for _ in range(50):  # the record is marked applied once the edit's answer arrives
        if "Confirm in program" in await titles():
            break
        await asyncio.sleep(0.1)
    assert "Confirm in program" in await titles()

    verdict = await client.workspace_execute_command_async(lsp.ExecuteCommandParams(
        "perfpilot.confirmInProgram", [{"uri": uri, "line": start, "character": 5}]))
    assert isinstance(verdict, dict) and "error" not in verdict, verdict
    assert verdict["verdict"] in ("faster", "slower", "no-change", "noisy"), verdict
    assert verdict["pairs"] == 3
    shown = await titles()
    assert any(t.startswith("program: ") and "95% CI" in t for t in shown), shown
    assert "Confirm in program" not in shown


def _line_in(text: str, needle: str) -> int:
    return next(i for i, line in enumerate(text.split("\n")) if needle in line)


async def test_cancel_stops_a_running_profile_and_keeps_nothing(
        client: LanguageClient, tmp_path: Path) -> None:
    if not _tool():
        pytest.skip("neither perf nor valgrind works here")
    (tmp_path / "spin.c").write_text(SPIN, encoding="utf-8")
    (tmp_path / ".perfpilot.toml").write_text(
        "[profile]\n"
        'build_command = "gcc -g -O0 spin.c -o spin"\n'
        'run_command = "./spin"\n', encoding="utf-8")
    client.workspace_did_change_configuration(lsp.DidChangeConfigurationParams(
        settings={"perfpilot": {"runner": {"enabled": False}}}))
    # Nothing to cancel yet.
    idle = await client.workspace_execute_command_async(
        lsp.ExecuteCommandParams("perfpilot.cancelProfile", []))
    assert idle == {"cancelled": False}

    running = asyncio.ensure_future(client.workspace_execute_command_async(
        lsp.ExecuteCommandParams("perfpilot.profile", [])))
    pid_file = tmp_path / "pid.txt"
    for _ in range(1200):  # the build, then the program under the profiler
        if pid_file.is_file() or running.done():
            break
        await asyncio.sleep(0.05)
    assert pid_file.is_file(), await running
    pid = int(pid_file.read_text(encoding="utf-8"))
    assert alive(pid)

    cancelled = await client.workspace_execute_command_async(
        lsp.ExecuteCommandParams("perfpilot.cancelProfile", []))
    assert cancelled == {"cancelled": True}
    result = await running
    assert isinstance(result, dict) and result.get("status") == "cancelled", result
    for _ in range(200):  # the group was killed; its processes may take a moment to be reaped
        if not alive(pid):
            break
        await asyncio.sleep(0.05)
    survived = alive(pid)
    if survived:
        os.kill(pid, signal.SIGKILL)
    assert not survived
    # Nothing partial became the latest profile, and the editor was told.
    assert not (tmp_path / ".perfpilot" / "profiles" / "profile.json").exists()
    shown = await client.workspace_execute_command_async(
        lsp.ExecuteCommandParams("perfpilot.showProfile", []))
    assert isinstance(shown, dict) and shown["functions"] == []
    assert any("profile cancelled" in m.message for m in client.messages), client.messages


async def test_confirm_in_program_before_a_previewed_rewrite_is_applied(
        client: LanguageClient, tmp_path: Path) -> None:
    """applyMode preview: while the editor shows the rewrite for review (not applied), the
    program is built with the rewrite in a copy and timed; the figure stays once applied."""
    from lsp_support import apply_text_edits

    (tmp_path / "prog.cpp").write_text(UPPER, encoding="utf-8")
    (tmp_path / ".perfpilot.toml").write_text(
        "[profile]\n"
        'build_command = "g++ -O1 prog.cpp -o prog"\n'
        'run_command = "./prog 20000"\n'
        "confirm_pairs = 2\n", encoding="utf-8")
    client.workspace_did_change_configuration(lsp.DidChangeConfigurationParams(
        settings={"perfpilot": {"applyMode": "preview", "runner": {"enabled": False}}}))
    uri = open_doc(client, tmp_path / "prog.cpp")
    start = _line_in(UPPER, "long count_upper")
    recorder: Recorder = client.recorder  # type: ignore[attr-defined]

    async def titles() -> list[str]:
        return [lens.command.title for lens in await _lenses(client, uri)
                if lens.command is not None]

    seen: dict[str, Any] = {}

    async def review(params: lsp.ApplyWorkspaceEditParams) -> None:
        # The edit awaits the user's review: the document still holds the original.
        assert params.edit.change_annotations, "preview edits need confirmation"
        seen["before"] = await titles()
        seen["verdict"] = await client.workspace_execute_command_async(lsp.ExecuteCommandParams(
            "perfpilot.confirmInProgram", [{"uri": uri, "line": start, "character": 5}]))
        seen["after"] = await titles()

    recorder.on_edit = review
    result = await client.workspace_execute_command_async(lsp.ExecuteCommandParams(
        "perfpilot.makeFaster", [{"uri": uri, "line": start + 2, "character": 4}]))
    assert isinstance(result, dict) and "jobId" in result, result
    await recorder.wait(lambda: "after" in seen, timeout=300)

    assert "Confirm in program (not applied)" in seen["before"], seen
    verdict = seen["verdict"]
    assert isinstance(verdict, dict) and "error" not in verdict, verdict
    assert verdict["verdict"] in ("faster", "slower", "no-change", "noisy"), verdict
    assert verdict["pairs"] == 2
    assert any(t.startswith("program: ") for t in seen["after"]), seen
    # Nothing was written to the user's file: the rewrite was built in a copy.
    assert (tmp_path / "prog.cpp").read_text(encoding="utf-8") == UPPER

    # The user accepts: the figure measured before applying still describes the function.
    change = recorder.edits[0].edit.document_changes[0]  # type: ignore[index]
    new_text = apply_text_edits(UPPER, change.edits)  # type: ignore[union-attr]
    client.text_document_did_change(lsp.DidChangeTextDocumentParams(
        lsp.VersionedTextDocumentIdentifier(version=2, uri=uri),
        [lsp.TextDocumentContentChangeWholeDocument(new_text)]))
    for _ in range(50):  # the record is marked applied once the edit's answer arrives
        shown = await titles()
        if "Revert" in shown:
            break
        await asyncio.sleep(0.1)
    shown = await titles()
    assert any(t.startswith("program: ") for t in shown), shown
    assert not any(t.startswith("Confirm in program") for t in shown), shown
