"""Commands: the code actions that offer them, and ``workspace/executeCommand`` handlers.

Each handler parses its argument into a typed value (``protocol``), asks the session or the
job runner, and answers with JSON. An ill-formed argument is answered with -32602.
"""

from __future__ import annotations

from typing import Any, TypeVar

from lsprotocol import types as lsp
from pygls.exceptions import JsonRpcInvalidParams

from perfpilot import __version__
from perfpilot.code.locate import LocateError
from perfpilot.code.parse import language_for
from perfpilot.engine.disk_cache import private_folder
from perfpilot.engine.present import report_markdown, reverted_report
from perfpilot.lsp.build_flags import flag_actions
from perfpilot.lsp.convert import StaleSiteError, function_edit
from perfpilot.lsp.language_server import PerfPilotServer
from perfpilot.lsp.protocol import (
    CMD_CANCEL,
    CMD_EXPLAIN,
    CMD_FASTER,
    CMD_REPORT,
    CMD_RERUN,
    CMD_REVERT,
    CMD_STATUS,
    CMD_TEST,
    KIND_BUILD_FLAGS,
    KIND_DRAFT_SPEC,
    KIND_EXPLAIN,
    KIND_FASTER,
    CancelArgument,
    InvalidArgument,
    PositionArgument,
    TestConnectionArgument,
    command_argument,
    shape,
)
from perfpilot.lsp.spec_drafts import draft_actions, wanted
from perfpilot.lsp.views import publish_diagnostics

T = TypeVar("T")


def argument(ls: PerfPilotServer, command: str, args: tuple[Any, ...], cls: type[T]) -> T:
    """A command's argument as ``cls``; -32602 saying what is wrong when it does not fit."""
    try:
        return command_argument(ls.converter, args, cls)
    except InvalidArgument as exc:
        raise JsonRpcInvalidParams(f"invalid argument for {command}: {exc}") from exc


async def _start(ls: PerfPilotServer, kind: str, arg: PositionArgument) -> dict[str, Any]:
    try:
        site = await ls.checked_site(arg.uri, arg.line, arg.character)
    except LocateError as exc:
        ls.tell(f"PerfPilot: {exc}", lsp.MessageType.Warning)
        return {"error": str(exc)}
    baseline = None
    rerun = kind == "rerun"
    if rerun:
        rec = ls.session.record(arg.uri, site.qualified_name)
        if rec is None:
            msg = f"nothing to re-run for {site.name}: run Make this faster first"
            ls.tell(f"PerfPilot: {msg}", lsp.MessageType.Warning)
            return {"error": msg}
        kind, baseline = ls.session.remeasure(rec)  # nothing applied: measure candidates again
    job = ls.jobs.start(kind, site, baseline, fresh=rerun)
    return {"jobId": job.id, "function": site.qualified_name}


def register(server: PerfPilotServer) -> None:
    """Register the code actions and the commands they and the lenses send."""

    @server.feature(
        lsp.TEXT_DOCUMENT_CODE_ACTION,
        lsp.CodeActionOptions(code_action_kinds=[KIND_FASTER, KIND_EXPLAIN, KIND_DRAFT_SPEC,
                                                 KIND_BUILD_FLAGS],
                              resolve_provider=False),
    )
    async def code_action(ls: PerfPilotServer, params: lsp.CodeActionParams
                          ) -> list[lsp.CodeAction] | None:
        uri = params.text_document.uri
        if language_for(uri, ls.document(uri).language_id) is None:
            return None
        doc = await ls.document_async(uri)
        if language_for(uri, doc.language_id) is None:
            return None
        site = ls.site_at(doc, params.range.start)
        drafts = draft_actions(ls, params, doc, site) + flag_actions(ls, params, site)
        if not wanted(KIND_FASTER, params.context.only) or site is None:
            return drafts or None
        arg = {"uri": uri, "line": params.range.start.line,
               "character": params.range.start.character, "version": doc.version}
        disabled = None
        if site.has_errors and ls.supports_disabled_actions():
            # Shown greyed out with the reason, rather than failing after a click.
            disabled = lsp.CodeActionDisabled(
                reason=f"{site.name} has a syntax error; fix it before optimizing")
        faster = lsp.Command(f"Make {site.name} faster", CMD_FASTER, arguments=[arg])
        explain = lsp.Command(f"Explain {site.name}", CMD_EXPLAIN, arguments=[arg])
        return [
            *drafts,
            lsp.CodeAction(title=f"Make this faster: {site.name}", kind=KIND_FASTER,
                           disabled=disabled, command=faster),
            lsp.CodeAction(title=f"Explain performance of {site.name} (plan only)",
                           kind=KIND_EXPLAIN, disabled=disabled, command=explain),
        ]

    @server.command(CMD_FASTER)
    async def make_faster(ls: PerfPilotServer, *args: Any) -> dict[str, Any]:
        return await _start(ls, "optimize", argument(ls, CMD_FASTER, args, PositionArgument))

    @server.command(CMD_EXPLAIN)
    async def explain(ls: PerfPilotServer, *args: Any) -> dict[str, Any]:
        return await _start(ls, "explain", argument(ls, CMD_EXPLAIN, args, PositionArgument))

    @server.command(CMD_RERUN)
    async def rerun(ls: PerfPilotServer, *args: Any) -> dict[str, Any]:
        return await _start(ls, "rerun", argument(ls, CMD_RERUN, args, PositionArgument))

    @server.command(CMD_CANCEL)
    async def cancel(ls: PerfPilotServer, *args: Any) -> dict[str, Any]:
        a = argument(ls, CMD_CANCEL, args, CancelArgument)
        if a.job_id is not None:
            return {"cancelled": ls.session.cancel(a.job_id)}
        if a.uri is None:
            raise JsonRpcInvalidParams(f"invalid argument for {CMD_CANCEL}: jobId or uri is "
                                       f"needed; expected {shape(CancelArgument)}")
        site = ls.site_at(await ls.document_async(a.uri), lsp.Position(a.line, a.character))
        jobs = ls.session.running(a.uri, site.qualified_name if site else None)
        return {"cancelled": any([ls.session.cancel(j.id) for j in jobs])}

    @server.command(CMD_REVERT)
    async def revert(ls: PerfPilotServer, *args: Any) -> dict[str, Any]:
        a = argument(ls, CMD_REVERT, args, PositionArgument)
        uri = a.uri
        doc = await ls.document_async(uri)
        site = ls.site_at(doc, lsp.Position(a.line, a.character))
        rec = ls.session.record(uri, site.qualified_name) if site else None
        if not ls.in_sync(uri):
            msg = "the document is out of sync with the editor; close and reopen it"
            ls.tell(f"PerfPilot: {msg}", lsp.MessageType.Warning)
            return {"applied": False, "message": msg}
        refusal = ls.session.revert_refusal(uri, site.qualified_name, site.text) if site \
            else None
        if refusal is not None or site is None or rec is None:
            # Told once, by the server (the client shows no message of its own for Revert).
            msg = refusal or "nothing to revert here"
            ls.tell(f"PerfPilot: {msg}", lsp.MessageType.Warning if refusal
                    else lsp.MessageType.Info)
            return {"applied": False, "message": msg}
        try:
            edit = function_edit(doc, site, rec.original_text, f"Revert {site.name}",
                                 version=doc.version, confirm=False,
                                 drop_includes=rec.added_includes,
                                 drop_before=rec.added_before)
        except StaleSiteError as exc:
            ls.tell(f"PerfPilot could not revert {site.name}: {exc}", lsp.MessageType.Warning)
            return {"applied": False, "message": str(exc)}
        result = await ls.workspace_apply_edit_async(
            lsp.ApplyWorkspaceEditParams(edit=edit, label=f"Revert {site.name}"))
        if result.applied:
            ls.session.reverted(uri, site.qualified_name)
            publish_diagnostics(ls, uri)
            ls.refresh()
            return {"applied": True, "message": f"{site.name} restored"}
        msg = result.failure_reason or "edit refused"
        ls.tell(f"PerfPilot could not revert {site.name}: {msg}", lsp.MessageType.Warning)
        return {"applied": False, "message": msg}

    @server.command(CMD_REPORT)
    async def show_report(ls: PerfPilotServer, *args: Any) -> dict[str, Any]:
        a = argument(ls, CMD_REPORT, args, PositionArgument)
        doc = await ls.document_async(a.uri)
        site = ls.site_at(doc, lsp.Position(a.line, a.character))
        if site is None:
            return {"markdown": "No PerfPilot result for this function yet."}
        rec = ls.session.record(a.uri, site.qualified_name)
        gone = ls.session.reverted_outcome(a.uri, site.qualified_name)
        if rec is not None:
            markdown = report_markdown(rec.outcome)
        elif gone is not None:
            markdown = reverted_report(gone)  # an open report says what happened
        else:
            return {"markdown": "No PerfPilot result for this function yet."}
        result: dict[str, Any] = {"markdown": markdown}
        if a.open and ls.workspace_root is not None and ls.supports_show_document():
            # Clients without a report view of their own get a file they can read.
            try:
                folder = private_folder(ls.workspace_root, "reports")
                path = folder / f"{site.qualified_name.replace('::', '.')}.md"
                path.write_text(markdown, encoding="utf-8")
                await ls.window_show_document_async(lsp.ShowDocumentParams(
                    uri=path.as_uri(), take_focus=True))
                result["reportUri"] = path.as_uri()
            except OSError as exc:
                ls.log_info(f"report not written: {exc}")
        return result

    @server.command(CMD_STATUS)
    def status(ls: PerfPilotServer, *args: Any) -> dict[str, Any]:
        s = ls.engine.settings
        jobs = [{"jobId": j.id, "uri": j.uri, "function": j.function, "stage": j.stage}
                for j in ls.session.jobs.values() if not j.done]
        return {"planner": s.planner.backend, "optimizer": s.optimizer.backend,
                "runner": s.runner.enabled, "applyMode": s.apply_mode, "jobs": jobs,
                "version": __version__}

    @server.command(CMD_TEST)
    async def test_connection(ls: PerfPilotServer, *args: Any) -> dict[str, Any]:
        role_name = argument(ls, CMD_TEST, args, TestConnectionArgument).role
        role = getattr(ls.engine.settings, role_name, None)
        if role is None or role_name not in ("planner", "optimizer"):
            return {"ok": False, "message": f"unknown role {role_name!r}"}
        if role.backend != "remote":
            return {"ok": True, "message": f"{role_name} uses the {role.backend} backend; "
                                           "no endpoint to test"}
        from perfpilot.llm.check import check_endpoint

        key = ls.engine.api_key(role_name)
        ok, message = await check_endpoint(role, key)
        return {"ok": ok, "message": message}
