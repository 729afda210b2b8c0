""""Show where to add -fopenmp": when a rewrite's verdict says the project's build lacks a flag,
a code action opens the build file at the place the flag goes (``engine.flag_place`` finds it;
this module only turns it into a code action and ``window/showDocument`` with a selection)."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from lsprotocol import types as lsp
from pygls.exceptions import JsonRpcInvalidParams

from perfpilot.code.site import FunctionSite
from perfpilot.engine.flag_place import flag_place, needed_flags
from perfpilot.engine.session import path_of_uri
from perfpilot.lsp.language_server import PerfPilotServer
from perfpilot.lsp.protocol import (
    CMD_SHOW_FLAG_PLACE,
    KIND_BUILD_FLAGS,
    InvalidArgument,
    PositionArgument,
    command_argument,
)


def _wanted(only: Sequence[str] | None) -> bool:
    return not only or any(KIND_BUILD_FLAGS.startswith(k) or k.startswith(KIND_BUILD_FLAGS)
                           for k in only)


def flag_actions(ls: PerfPilotServer, params: lsp.CodeActionParams,
                 site: FunctionSite | None) -> list[lsp.CodeAction]:
    """"Show where to add FLAGS" on a function whose rewrite needs flags the build lacks."""
    if site is None or not _wanted(params.context.only):
        return []
    rec = ls.session.record(params.text_document.uri, site.qualified_name)
    flags = needed_flags(rec.outcome) if rec is not None else ()
    if not flags:
        return []
    title = f"Show where to add {' '.join(flags)}"
    arg = {"uri": params.text_document.uri, "line": params.range.start.line,
           "character": params.range.start.character}
    return [lsp.CodeAction(title=title, kind=KIND_BUILD_FLAGS,
                           command=lsp.Command(title, CMD_SHOW_FLAG_PLACE, arguments=[arg]))]


def register(server: PerfPilotServer) -> None:
    """Register the command the action sends."""

    @server.command(CMD_SHOW_FLAG_PLACE)
    async def show_flag_place(ls: PerfPilotServer, *args: Any) -> dict[str, Any]:
        try:
            a = command_argument(ls.converter, args, PositionArgument)
        except InvalidArgument as exc:
            raise JsonRpcInvalidParams(
                f"invalid argument for {CMD_SHOW_FLAG_PLACE}: {exc}") from exc
        doc = await ls.document_async(a.uri)
        site = ls.site_at(doc, lsp.Position(a.line, a.character))
        rec = ls.session.record(a.uri, site.qualified_name) if site is not None else None
        flags = needed_flags(rec.outcome) if rec is not None else ()
        path = path_of_uri(a.uri)
        if site is None or not flags or path is None:
            return {"shown": False, "message": "no rewrite here needs a flag your build lacks"}
        root = ls.workspace_root or path.parent
        place = await asyncio.to_thread(flag_place, root, path, flags, site.language)
        if place is None:
            msg = (f"no CMakeLists.txt, Makefile or compile_commands.json found for "
                   f"{path.name}: add {' '.join(flags)} where your build compiles it")
            ls.tell(f"PerfPilot: {msg}", lsp.MessageType.Warning)
            return {"shown": False, "message": msg}
        selection = lsp.Range(lsp.Position(place.start_line, place.start_character),
                              lsp.Position(place.end_line, place.end_character))
        uri = Path(place.path).as_uri()
        shown = False
        if ls.supports_show_document():
            result = await ls.window_show_document_async(lsp.ShowDocumentParams(
                uri=uri, take_focus=True, selection=selection))
            shown = bool(result and result.success)
        ls.tell(f"PerfPilot: {place.message}" if shown else
                f"PerfPilot: {place.path}:{place.start_line + 1}: {place.message}")
        return {"shown": shown, "uri": uri, "kind": place.kind, "message": place.message,
                "range": ls.converter.unstructure(selection)}
