"""Helpers for driving the real PerfPilot server over stdio with pytest-lsp."""

from __future__ import annotations

import asyncio
import contextlib
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from lsprotocol import types as lsp
from pytest_lsp import LanguageClient, client_capabilities

SERVER_COMMAND = [sys.executable, "-m", "perfpilot", "serve"]


def vscode_capabilities() -> lsp.ClientCapabilities:
    """VS Code's recorded capabilities plus inlay hints (the record predates them)."""
    caps = client_capabilities("visual-studio-code")
    assert caps.text_document is not None and caps.workspace is not None
    caps.text_document.inlay_hint = lsp.InlayHintClientCapabilities()
    caps.workspace.inlay_hint = lsp.InlayHintWorkspaceClientCapabilities(refresh_support=True)
    return caps


def decode_code_actions_correctly(client: LanguageClient) -> None:
    """lsprotocol decodes every code action that carries a ``command`` as a bare Command;
    a real client (VS Code) sees the CodeAction. Register the discriminating hook instead."""
    converter = client.protocol._converter

    def hook(obj: Any, _: type) -> lsp.Command | lsp.CodeAction:
        if isinstance(obj.get("command"), str):
            return converter.structure(obj, lsp.Command)
        return converter.structure(obj, lsp.CodeAction)

    converter.register_structure_hook(lsp.Command | lsp.CodeAction, hook)  # type: ignore[arg-type]


class Recorder:
    """Collects applyEdit requests and PerfPilot job notifications sent to the client."""

    def __init__(self, client: LanguageClient) -> None:
        decode_code_actions_correctly(client)
        self.edits: list[lsp.ApplyWorkspaceEditParams] = []
        self.jobs: list[dict[str, Any]] = []
        self.results: list[dict[str, Any]] = []  # perfpilot/result (clients that show results)
        self.apply_result = True
        self.lens_refreshes = 0
        # Hooks a test may set, run as an editor would: on a lens refresh request, and when an
        # edit is in the buffer but not yet answered.
        self.on_lens_refresh: Callable[[], Awaitable[None]] | None = None
        self.on_edit: Callable[[lsp.ApplyWorkspaceEditParams], Awaitable[None]] | None = None
        self._hooks: set[asyncio.Task[None]] = set()
        self._changed = asyncio.Event()

        @client.feature(lsp.WORKSPACE_APPLY_EDIT)
        async def apply_edit(params: lsp.ApplyWorkspaceEditParams
                             ) -> lsp.ApplyWorkspaceEditResult:
            self.edits.append(params)
            if self.on_edit is not None:
                await self.on_edit(params)
            self._changed.set()
            return lsp.ApplyWorkspaceEditResult(applied=self.apply_result)

        @client.feature("perfpilot/jobStatus")
        def job_status(params: Any) -> None:
            self.jobs.append(params if isinstance(params, dict) else params._asdict())
            self._changed.set()

        @client.feature("perfpilot/result")
        def result(params: Any) -> None:
            self.results.append(params if isinstance(params, dict) else params._asdict())
            self._changed.set()

        @client.feature(lsp.WORKSPACE_CODE_LENS_REFRESH)
        def lens_refresh(params: None) -> None:
            self.lens_refreshes += 1
            if self.on_lens_refresh is not None:
                # Answer first, then ask for the lenses, as VS Code does.
                task = asyncio.get_running_loop().create_task(self.on_lens_refresh())
                self._hooks.add(task)
                task.add_done_callback(self._hooks.discard)
            return None

        @client.feature(lsp.WORKSPACE_INLAY_HINT_REFRESH)
        def hint_refresh(params: None) -> None:
            return None

    async def wait(self, predicate: Callable[[], bool], timeout: float = 120.0) -> None:
        """Wait until ``predicate`` holds, re-checking on every edit or job notification."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while not predicate():
            remaining = deadline - loop.time()
            if remaining <= 0:
                raise TimeoutError("condition not met; jobs seen: "
                                   + repr(self.jobs[-5:]))
            self._changed.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._changed.wait(), min(remaining, 0.5))

    def job_done(self, job_id: str) -> dict[str, Any] | None:
        """The final status notification of a job, once it arrived."""
        for j in reversed(self.jobs):
            if j.get("jobId") == job_id and j.get("done") and j.get("stage") != "queued":
                return j
        return None


def open_doc(client: LanguageClient, path: Path, text: str | None = None,
             language: str = "cpp", version: int = 1) -> str:
    """didOpen a file; returns its URI."""
    uri = path.as_uri()
    client.text_document_did_open(lsp.DidOpenTextDocumentParams(lsp.TextDocumentItem(
        uri=uri, language_id=language, version=version,
        text=text if text is not None else path.read_text(encoding="utf-8"))))
    return uri


async def make_faster(client: LanguageClient, uri: str, line: int, character: int) -> str:
    """Run ``perfpilot.makeFaster`` at a position; returns the job id."""
    result = await client.workspace_execute_command_async(lsp.ExecuteCommandParams(
        "perfpilot.makeFaster", [{"uri": uri, "line": line, "character": character}]))
    assert isinstance(result, dict) and "jobId" in result, result
    return str(result["jobId"])


async def finished_job(client: LanguageClient, recorder: Recorder, path: Path, text: str,
                       line: int, character: int, *, version: int = 1,
                       timeout: float = 300.0) -> tuple[str, str]:
    """Write and open ``path``, run Make this faster at a position and wait for the job to
    end; returns the document URI and the job id."""
    path.write_text(text)
    uri = open_doc(client, path, version=version)
    job_id = await make_faster(client, uri, line, character)
    await recorder.wait(lambda: recorder.job_done(job_id) is not None, timeout=timeout)
    return uri, job_id


def apply_text_edit(text: str, edit: lsp.TextEdit) -> str:
    """Apply one LSP edit (ASCII text: UTF-16 units equal characters here)."""
    return apply_text_edits(text, [edit])


def apply_text_edits(text: str, edits: list[lsp.TextEdit]) -> str:
    """Apply the edits of one TextDocumentEdit as an editor does: all against the old text."""
    lines = text.split("\n")

    def offset(p: lsp.Position) -> int:
        return sum(len(line) + 1 for line in lines[: p.line]) + p.character

    for e in sorted(edits, key=lambda e: offset(e.range.start), reverse=True):
        text = text[: offset(e.range.start)] + e.new_text + text[offset(e.range.end):]
    return text
