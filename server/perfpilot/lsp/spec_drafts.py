"""Draft a bench spec for a function the generated harness cannot feed: the code action (and
quick fix on the failure's diagnostic) that offers it, and the command that creates the file.

The engine drafts the text and picks the path (``engine.spec_drafts``); this module only turns
them into a ``CreateFile`` + insert ``WorkspaceEdit`` and shows the file for review. An existing
spec is never overwritten: it is opened instead.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Any

from lsprotocol import types as lsp
from pygls.exceptions import JsonRpcInvalidParams
from pygls.workspace import TextDocument

from perfpilot.code.site import FunctionSite
from perfpilot.engine.spec_drafts import spec_draft, write_spec_draft
from perfpilot.lsp.convert import create_file_edit
from perfpilot.lsp.language_server import PerfPilotServer
from perfpilot.lsp.protocol import (
    CMD_DRAFT_SPEC,
    KIND_DRAFT_SPEC,
    DraftSpecArgument,
    InvalidArgument,
    command_argument,
)


def wanted(kind: str, only: Sequence[str] | None) -> bool:
    """Whether the client's ``only`` filter admits actions of ``kind``."""
    return not only or any(kind.startswith(k) or k.startswith(kind) for k in only)


def _action(uri: str, function: str, name: str,
            diagnostic: lsp.Diagnostic | None) -> lsp.CodeAction:
    title = f"PerfPilot: Draft a bench spec for {name}"
    return lsp.CodeAction(
        title=title, kind=KIND_DRAFT_SPEC, is_preferred=diagnostic is not None,
        diagnostics=[diagnostic] if diagnostic is not None else None,
        command=lsp.Command(title, CMD_DRAFT_SPEC,
                            arguments=[{"uri": uri, "function": function}]))


def draft_actions(ls: PerfPilotServer, params: lsp.CodeActionParams, doc: TextDocument,
                  site: FunctionSite | None) -> list[lsp.CodeAction]:
    """The draft action for the function whose last job needed a spec, and a quick fix on
    each PerfPilot diagnostic that says so."""
    if not wanted(KIND_DRAFT_SPEC, params.context.only):
        return []
    actions: list[lsp.CodeAction] = []
    offered: set[str] = set()
    for d in params.context.diagnostics:
        data = d.data if isinstance(d.data, dict) else {}
        function = data.get("function")
        if d.source != "perfpilot" or data.get("needsSpec") is not True \
                or not isinstance(function, str) or function in offered:
            continue
        if not ls.session.needs_spec(doc.uri, function):
            continue  # an older diagnostic: the function was measured since
        offered.add(function)
        actions.append(_action(doc.uri, function, function.split("::")[-1], d))
    if site is not None and site.qualified_name not in offered \
            and ls.session.needs_spec(doc.uri, site.qualified_name):
        actions.append(_action(doc.uri, site.qualified_name, site.name, None))
    return actions


async def _show(ls: PerfPilotServer, uri: str, shown: str) -> None:
    if ls.supports_show_document():
        await ls.window_show_document_async(lsp.ShowDocumentParams(uri=uri, take_focus=True))
    else:
        ls.tell(f"PerfPilot: {shown}")


def register(server: PerfPilotServer) -> None:
    """Register the draft command."""

    @server.command(CMD_DRAFT_SPEC)
    async def draft_bench_spec(ls: PerfPilotServer, *args: Any) -> dict[str, Any]:
        try:
            a = command_argument(ls.converter, args, DraftSpecArgument)
        except InvalidArgument as exc:
            raise JsonRpcInvalidParams(f"invalid argument for {CMD_DRAFT_SPEC}: {exc}") from exc
        doc = await ls.document_async(a.uri)
        site = ls.site_named(doc, a.function) if a.function is not None \
            else ls.site_at(doc, lsp.Position(a.line, a.character))
        if site is None:
            msg = "no function to draft a bench spec for here"
            ls.tell(f"PerfPilot: {msg}", lsp.MessageType.Warning)
            return {"created": False, "message": msg}
        # Reading the unit's types takes a while on a large file: off the event loop.
        draft = await asyncio.to_thread(spec_draft, site)
        if draft is None:
            msg = "bench specs are drafted for files on disk only"
            ls.tell(f"PerfPilot: {msg}", lsp.MessageType.Warning)
            return {"created": False, "message": msg}
        uri = draft.path.as_uri()
        if draft.exists:
            msg = f"{draft.path.name} exists; it was opened, not overwritten"
            await _show(ls, uri, f"{draft.path} exists; it was not overwritten")
            return {"created": False, "uri": uri, "message": msg}
        label = f"Draft a bench spec for {site.name}"
        if ls.supports_create_file():
            result = await ls.workspace_apply_edit_async(lsp.ApplyWorkspaceEditParams(
                edit=create_file_edit(uri, draft.text), label=label))
            if not result.applied:
                msg = result.failure_reason or "the editor refused to create the file"
                return {"created": False, "uri": uri, "message": msg}
        else:
            try:
                await asyncio.to_thread(write_spec_draft, site)
            except (OSError, ValueError) as exc:  # FileExistsError included: never overwritten
                ls.tell(f"PerfPilot: {exc}", lsp.MessageType.Warning)
                return {"created": False, "uri": uri, "message": str(exc)}
        await _show(ls, uri, f"draft bench spec written to {draft.path}; complete its TODOs")
        return {"created": True, "uri": uri,
                "message": f"review {draft.path.name}, then benchmark {site.name} again"}
