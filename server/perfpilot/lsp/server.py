"""The PerfPilot language server: LSP requests in, engine calls out, results back as LSP.

Handlers translate and return quickly; jobs run as asyncio tasks owned by the engine's Session.
Nothing here blocks the event loop: compilers, timing and models run as subprocesses or workers.
"""

from __future__ import annotations

import asyncio
import logging
import sys
from concurrent.futures import ThreadPoolExecutor
from contextlib import suppress
from pathlib import Path
from threading import Event
from typing import Any
from urllib.parse import unquote

from cachetools import LRUCache
from lsprotocol import types as lsp
from pygls.exceptions import JsonRpcInvalidParams
from pygls.io_ import run_async
from pygls.lsp.server import LanguageServer
from pygls.workspace import TextDocument

from perfpilot import __version__
from perfpilot.code.compdb import flags_for
from perfpilot.code.locate import LocateError, function_at, list_functions
from perfpilot.code.parse import language_for
from perfpilot.code.site import FunctionSite
from perfpilot.engine.disk_cache import private_folder
from perfpilot.engine.engine import Engine
from perfpilot.engine.hotspots import ProfileSlot
from perfpilot.engine.outcome import Outcome
from perfpilot.engine.present import (
    escape_md,
    hover_markdown,
    lens_title,
    plan_markdown,
    report_markdown,
    speedup_phrase,
)
from perfpilot.engine.session import Job, Session, path_of_uri
from perfpilot.engine.source_files import SourceReadError, read_source_file
from perfpilot.engine.trust import TrustList
from perfpilot.engine.watch import WorkspaceWatcher
from perfpilot.engine.workspace_config import ConfigError, workspace_config
from perfpilot.lsp.convert import (
    StaleSiteError,
    client_position,
    function_edit,
    header_range,
    server_position,
)
from perfpilot.lsp.profile_view import profile_hover, profile_lenses, register_profile_commands
from perfpilot.lsp.transport import (
    BoundedStdin,
    BoundedStreamReader,
    GuardedProtocol,
    MessageFramer,
    is_parse_failure,
    parse_error,
)
from perfpilot.settings import Settings, merge_settings

log = logging.getLogger(__name__)

KIND_FASTER = "refactor.rewrite.perfpilot"
KIND_EXPLAIN = "refactor.rewrite.perfpilot.explain"
CMD_FASTER = "perfpilot.makeFaster"
CMD_EXPLAIN = "perfpilot.explain"
CMD_RERUN = "perfpilot.rerun"
CMD_REVERT = "perfpilot.revert"
CMD_CANCEL = "perfpilot.cancel"
CMD_REPORT = "perfpilot.showReport"
CMD_TEST = "perfpilot.testConnection"
CMD_STATUS = "perfpilot.status"
NOTIFY_SECRET = "perfpilot/setSecret"
NOTIFY_JOB = "perfpilot/jobStatus"
DISK_READ_TIMEOUT_S = 2.0  # unopened documents: a file that takes longer is not read
_PROBLEM_VERDICTS = {"incorrect": lsp.DiagnosticSeverity.Warning,
                     "build-failed": lsp.DiagnosticSeverity.Warning,
                     "slower": lsp.DiagnosticSeverity.Information}


class PerfPilotServer(LanguageServer):
    """Language server state: the engine session, outlines per document version, settings."""

    def __init__(self) -> None:
        super().__init__("perfpilot", __version__, protocol_cls=GuardedProtocol)
        self.engine = Engine(log_fn=self.log_info)
        self.session = Session(self.engine)
        self.session.on_progress = self._on_job_progress
        self.session.on_done = self._on_job_done
        self.workspace_root: Path | None = None
        self.editor_settings: dict[str, Any] = {}
        self.trust_workspace = False  # the client's trustWorkspace initialization option
        # The client shows perfpilot/jobStatus itself (showsJobStatus initialization option):
        # no work-done progress then, so a job has one status item, not two.
        self.client_shows_jobs = False
        self._told_ignored = ""
        self.progress_tokens: dict[str, str] = {}  # progress token -> job id
        self.watcher: WorkspaceWatcher | None = None
        self._tasks: set[asyncio.Task[None]] = set()
        self._last_stage: dict[str, str] = {}
        self._outlines: LRUCache[tuple[str, int | None, int], list[FunctionSite]] = \
            LRUCache(32)
        # Reads of unopened documents: two threads, so a file system that hangs them can
        # cost at most these two, never the event loop or pygls's own pool.
        self._disk_reads = ThreadPoolExecutor(2, thread_name_prefix="perfpilot-read")
        self.profiles = ProfileSlot()  # the workspace's latest profile (lenses on hot functions)

    # -- transport ------------------------------------------------------------------------
    @property
    def guarded(self) -> GuardedProtocol:
        """The protocol, with its document sync state."""
        protocol: GuardedProtocol = self.protocol  # type: ignore[assignment]
        return protocol

    def start_io(self, stdin: Any = None, stdout: Any = None) -> None:
        """Serve over stdio, every message bounded in size."""
        framer = MessageFramer(self._message_skipped)
        super().start_io(BoundedStdin(stdin or sys.stdin.buffer, framer),  # type: ignore[arg-type]
                         stdout)

    def start_tcp(self, host: str, port: int) -> None:
        """Serve one client at a time over TCP, every message bounded in size."""
        stop = self._stop_event = Event()

        async def connection(reader: asyncio.StreamReader, writer: asyncio.StreamWriter
                             ) -> None:
            self.protocol.set_writer(writer)  # type: ignore[arg-type]
            await run_async(stop_event=stop,
                            reader=BoundedStreamReader(reader,
                                                       MessageFramer(self._message_skipped)),
                            protocol=self.protocol, logger=log,
                            error_handler=self.report_server_error)
            self.shutdown()  # type: ignore[no-untyped-call]

        async def serve() -> None:
            self._server = await asyncio.start_server(connection, host, port)
            async with self._server:
                await self._server.serve_forever()

        with suppress(asyncio.CancelledError):
            asyncio.run(serve())

    def _message_skipped(self, reason: str) -> None:
        # Called on the reader's thread: log only (stderr), never write to the protocol here.
        log.warning("PerfPilot: %s", reason)

    def report_server_error(self, error: Exception, source: Any) -> None:
        """A body that is not JSON gets a parse error (id null) instead of silence."""
        if is_parse_failure(error):
            self.guarded.answer_error(None, parse_error())
            log.warning("answered a message that is not JSON: %s", str(error)[:200])
            return
        super().report_server_error(error, source)

    # -- logging and messages -------------------------------------------------------------
    def log_info(self, message: str) -> None:
        """Log through window/logMessage (never stdout, which carries the protocol)."""
        try:
            self.window_log_message(lsp.LogMessageParams(lsp.MessageType.Info, message))
        except Exception:  # before initialization there is no transport yet
            log.info(message)

    def tell(self, message: str, kind: lsp.MessageType = lsp.MessageType.Info) -> None:
        """Show a message to the user."""
        self.window_show_message(lsp.ShowMessageParams(kind, message))

    # -- capabilities ---------------------------------------------------------------------
    def _caps(self) -> lsp.ClientCapabilities:
        return self.client_capabilities

    def supports_progress(self) -> bool:
        w = self._caps().window
        return bool(w and w.work_done_progress)

    def supports_config_pull(self) -> bool:
        ws = self._caps().workspace
        return bool(ws and ws.configuration)

    def supports_annotations(self) -> bool:
        ws = self._caps().workspace
        we = ws.workspace_edit if ws else None
        return bool(we and we.change_annotation_support)

    def supports_show_document(self) -> bool:
        w = self._caps().window
        return bool(w and w.show_document and w.show_document.support)

    def supports_disabled_actions(self) -> bool:
        td = self._caps().text_document
        ca = td.code_action if td else None
        return bool(ca and ca.disabled_support)

    # -- settings -------------------------------------------------------------------------
    def apply_settings(self, editor: dict[str, Any] | None) -> None:
        """Workspace file settings overlaid with the editor's settings."""
        if editor is not None:
            self.editor_settings = editor
        trusted = self.trust_workspace or TrustList.default().trusts(self.workspace_root)
        try:
            config = workspace_config(self.workspace_root, trusted=trusted)
            base = config.settings
            message = config.ignored_message()
            if message and message != self._told_ignored:  # once, not on every change
                self._told_ignored = message
                self.tell(f"PerfPilot: {message}", lsp.MessageType.Warning)
        except ConfigError as exc:
            self.tell(f"PerfPilot: {exc}; using defaults", lsp.MessageType.Warning)
            base = Settings()
        try:
            settings = merge_settings(base, self.editor_settings)
        except ValueError as exc:
            self.tell(f"PerfPilot: {exc}; keeping the previous settings",
                      lsp.MessageType.Warning)
            return
        self.engine.update_settings(settings)
        self.log_info(f"settings: planner={settings.planner.backend} "
                      f"optimizer={settings.optimizer.backend} apply={settings.apply_mode}")

    async def pull_settings(self) -> None:
        """Ask the client for the ``perfpilot`` section (workspace/configuration)."""
        if not self.supports_config_pull():
            return
        try:
            result = await self.workspace_configuration_async(
                lsp.ConfigurationParams(items=[lsp.ConfigurationItem(section="perfpilot")]))
        except Exception as exc:
            self.log_info(f"workspace/configuration failed: {exc}")
            return
        if result and isinstance(result[0], dict):
            self.apply_settings(result[0])

    # -- documents and functions ----------------------------------------------------------
    def document(self, uri: str) -> TextDocument:
        """The open document (pygls keeps it in sync), else an empty one: never a disk read
        on the event loop."""
        opened: TextDocument | None = self.workspace.text_documents.get(unquote(uri))
        if opened is not None:
            return opened
        return TextDocument(uri, source="", position_codec=self.workspace.position_codec)

    def is_open(self, uri: str) -> bool:
        """Whether the client opened the document."""
        return unquote(uri) in self.workspace.text_documents

    def in_sync(self, uri: str) -> bool:
        """False once the client sent a change the server had to refuse."""
        return unquote(uri) not in self.guarded.out_of_sync

    async def document_async(self, uri: str) -> TextDocument:
        """The open document, else the file from disk when it is a regular file of at most
        ``max_file_bytes`` that reads within a timeout; else an empty document."""
        if self.is_open(uri):
            return self.document(uri)
        path = path_of_uri(uri)
        source = ""
        if path is not None and language_for(uri) is not None:
            try:
                source = await read_source_file(path, self.engine.settings.max_file_bytes,
                                                DISK_READ_TIMEOUT_S, self._disk_reads)
            except SourceReadError as exc:
                self.log_info(f"not reading {uri[:200]}: {exc}")
        return TextDocument(uri, source=source, position_codec=self.workspace.position_codec)

    def outline(self, doc: TextDocument) -> list[FunctionSite]:
        """All function definitions of this text of the document (cached per version and
        text: a client that changes the text without a new version gets no stale outline)."""
        key = (doc.uri, doc.version, hash(doc.source))
        cached = self._outlines.get(key)
        if cached is not None:
            return cached
        language = language_for(doc.uri, doc.language_id)
        source = doc.source
        if language is None or len(source) > self.engine.settings.max_file_bytes:
            sites: list[FunctionSite] = []
        else:
            sites = list_functions(source, language, uri=doc.uri, version=doc.version)
        self._outlines[key] = sites
        return sites

    def site_at(self, doc: TextDocument, pos: lsp.Position) -> FunctionSite | None:
        """The innermost function containing a client position, from the cached outline."""
        p = server_position(doc, pos)
        best: FunctionSite | None = None
        for s in self.outline(doc):
            starts_before = (s.start_line, s.start_col) <= (p.line, p.character)
            ends_after = (p.line, p.character) <= (s.end_line, s.end_col)
            if starts_before and ends_after and (
                    best is None or s.start_byte >= best.start_byte):
                best = s
        return best

    def site_named(self, doc: TextDocument, qualified: str) -> FunctionSite | None:
        """The function with this qualified name in the current version, if exactly one."""
        matches = [s for s in self.outline(doc) if s.qualified_name == qualified]
        return matches[0] if len(matches) == 1 else None

    async def checked_site(self, uri: str, line: int, character: int) -> FunctionSite:
        """The function at a position, with syntax errors reported (raises LocateError)."""
        if not self.in_sync(uri):
            raise LocateError("this document is out of sync with the editor; "
                              "close and reopen it")
        doc = await self.document_async(uri)
        if not doc.source:
            raise LocateError("the document is empty or could not be read")
        language = language_for(uri, doc.language_id)
        if language is None:
            raise LocateError("PerfPilot works on C and C++ files only")
        if len(doc.source) > self.engine.settings.max_file_bytes:
            raise LocateError(
                f"the file is larger than {self.engine.settings.max_file_bytes} bytes")
        p = server_position(doc, lsp.Position(line, character))
        return function_at(doc.source, language, p.line, p.character, uri=uri,
                           version=doc.version)

    def inputs_changed(self, path: Path) -> None:
        """A spec, input or compile database changed: results that used it are re-measured."""
        for uri, name, rec in self.session.affected_by(path):
            rec.stale = True
            if uri not in self.workspace.text_documents:
                continue
            site = self.site_named(self.document(uri), name)
            if site is None or self.session.running(uri, name):
                continue
            self.log_info(f"{path.name} changed: re-measuring {name}")
            if rec.applied:
                self.start_job("rerun", site, rec.original_text)
            elif rec.outcome.trials:
                self.start_job("optimize", site)
        self._refresh()

    # -- jobs -----------------------------------------------------------------------------
    def start_job(self, kind: str, site: FunctionSite, baseline: str | None = None,
                  fresh: bool = False) -> Job:
        """Start a job and its work-done progress (``fresh``: measure, never reuse a verdict)."""
        path = path_of_uri(site.uri)
        compdb = flags_for(path, self.workspace_root) if path is not None else None
        job = self.session.start(kind, site, source_path=path,
                                 flags=compdb.flags if compdb else (), baseline_text=baseline,
                                 fresh=fresh)
        if self.supports_progress() and not self.client_shows_jobs:
            self._tasks.add(asyncio.get_running_loop().create_task(self._begin_progress(job)))
        self._notify_job(job)
        self._refresh()
        return job

    async def _begin_progress(self, job: Job) -> None:
        token = job.id
        try:
            await self.work_done_progress.create_async(token)
        except Exception as exc:
            self.log_info(f"progress not created: {exc}")
            return
        self.progress_tokens[token] = job.id
        title = {"optimize": "Making faster", "explain": "Planning",
                 "rerun": "Re-running benchmark"}.get(job.kind, job.kind)
        self.work_done_progress.begin(token, lsp.WorkDoneProgressBegin(
            title=f"PerfPilot: {title} {job.site.name}", cancellable=True,
            message=job.stage))
        if job.done:
            self._end_progress(job)

    def _end_progress(self, job: Job) -> None:
        if job.id in self.progress_tokens:
            self.progress_tokens.pop(job.id)
            msg = job.error or job.message or job.stage
            self.work_done_progress.end(job.id, lsp.WorkDoneProgressEnd(message=msg))

    def _on_job_progress(self, job: Job) -> None:
        new_stage = self._last_stage.get(job.id) != job.stage
        if new_stage:
            self._last_stage[job.id] = job.stage
            self.log_info(f"{job.id} {job.site.name}: {job.stage}")
        if job.id in self.progress_tokens:
            text = f"{job.stage}: {job.message}" if job.message else job.stage
            self.work_done_progress.report(job.id, lsp.WorkDoneProgressReport(
                message=text, percentage=job.percent))
        self._notify_job(job)
        if new_stage:
            self._refresh()  # the running lens shows the stage: never let it lag the job

    def _notify_job(self, job: Job) -> None:
        self.protocol.notify(NOTIFY_JOB, {
            "jobId": job.id, "uri": job.uri, "function": job.function, "kind": job.kind,
            "stage": job.stage, "done": job.done or job.stage in ("done", "failed", "cancelled"),
            "message": job.error or job.message})

    async def _on_job_done(self, job: Job) -> None:
        self._last_stage.pop(job.id, None)
        detail = job.error or job.message
        self.log_info(f"{job.id} {job.site.name}: {job.stage}"
                      + (f" {detail}" if detail and detail != job.stage else ""))
        self._end_progress(job)
        try:
            await self._finish(job)
        finally:
            # The final status goes out last, so a client that sees it also saw the edit.
            self._notify_job(job)

    async def _finish(self, job: Job) -> None:
        if job.cancelled:
            pass  # nothing to apply or tell: the user asked for it to stop
        elif job.error:
            self.tell(f"PerfPilot: {job.site.name}: {job.error}", lsp.MessageType.Error)
        elif job.outcome is not None and job.kind == "optimize":
            await self._deliver(job, job.outcome)
        elif job.outcome is not None and job.kind == "rerun":
            self.tell(f"PerfPilot: {job.site.name}: {job.outcome.message or job.outcome.status}")
        self.publish_diagnostics(job.uri)
        self._refresh()

    async def _deliver(self, job: Job, outcome: Outcome) -> None:
        """Apply the chosen candidate as a versioned edit, if the apply mode allows."""
        chosen = outcome.chosen
        name = job.site.name
        if chosen is None:
            self.tell(f"PerfPilot: {outcome.message}")
            return
        doc = await self.document_async(job.uri)
        if doc.version != job.site.version or not self.in_sync(job.uri):
            self.tell(f"PerfPilot: {name} changed while the job ran (version "
                      f"{job.site.version} → {doc.version}); the rewrite was not applied. "
                      "Run Make this faster again.", lsp.MessageType.Warning)
            return
        mode = self.engine.settings.apply_mode
        weak = outcome.status == "weakly-verified"
        if mode == "ask" or weak:
            measured = speedup_phrase(chosen.verdict) if chosen.verdict else "not measured"
            if weak and chosen.verdict is not None:
                measured = chosen.verdict.message
            choice = await self.window_show_message_request_async(lsp.ShowMessageRequestParams(
                lsp.MessageType.Warning if weak else lsp.MessageType.Info,
                f"PerfPilot: apply the rewrite of {name}? ({measured})",
                [lsp.MessageActionItem("Apply"), lsp.MessageActionItem("Discard")]))
            if choice is None or choice.title != "Apply":
                self.tell(f"PerfPilot: rewrite of {name} discarded")
                return
            doc = await self.document_async(job.uri)
            if doc.version != job.site.version or not self.in_sync(job.uri):
                self.tell(f"PerfPilot: {name} changed meanwhile; not applied",
                          lsp.MessageType.Warning)
                return
        main = outcome.plan.main_category
        strategy = chosen.candidate.strategies[0].category.name if chosen.candidate.strategies \
            else (main.name if main else "rewrite")
        label = f"Optimize {name} ({strategy})"
        confirm = mode == "preview" and self.supports_annotations()
        try:
            edit = function_edit(doc, job.site, chosen.candidate.code, label,
                                 version=doc.version, confirm=confirm,
                                 includes=chosen.candidate.includes)
        except StaleSiteError as exc:
            self.tell(f"PerfPilot: rewrite of {name} not applied: {exc}",
                      lsp.MessageType.Warning)
            return
        if confirm:
            job.stage, job.message = "awaiting confirmation", "review the change to apply it"
        else:
            # The result is final: the editor puts the edit in the buffer before it answers,
            # so the lens shows the result from now on, not a running state.
            job.stage, job.message = "applying", label
        self._notify_job(job)
        self._refresh()
        try:
            result = await self.workspace_apply_edit_async(
                lsp.ApplyWorkspaceEditParams(edit=edit, label=label))
        finally:
            job.stage, job.message = "done", outcome.message
        rec = self.session.record(job.uri, job.function)
        if result.applied and rec is not None:
            rec.applied = True
            rec.applied_text = chosen.candidate.code
            rec.added_includes = chosen.candidate.includes
            phrase = speedup_phrase(chosen.verdict) if chosen.verdict else "not measured"
            self.tell(f"PerfPilot: {name} rewritten — {phrase}")
        else:
            reason = result.failure_reason or "the editor refused the edit"
            self.tell(f"PerfPilot: rewrite of {name} not applied: {reason}",
                      lsp.MessageType.Warning)

    def _refresh(self) -> None:
        ws = self._caps().workspace
        loop = asyncio.get_running_loop()
        if ws and ws.code_lens and ws.code_lens.refresh_support:
            self._tasks.add(loop.create_task(
                self._safe(self.workspace_code_lens_refresh_async(None))))
        if ws and ws.inlay_hint and ws.inlay_hint.refresh_support:
            self._tasks.add(loop.create_task(
                self._safe(self.workspace_inlay_hint_refresh_async(None))))
        self._tasks = {t for t in self._tasks if not t.done()}

    async def _safe(self, awaitable: Any) -> None:
        try:
            await awaitable
        except Exception as exc:
            self.log_info(f"refresh failed: {exc}")

    def publish_diagnostics(self, uri: str) -> None:
        """Diagnostics only for outcomes the user must act on."""
        doc = self.document(uri)
        diags: list[lsp.Diagnostic] = []
        for name, rec in self.session.records.get(uri, {}).items():
            site = self.site_named(doc, name)
            if site is None or rec.outcome.chosen is not None:
                continue  # a candidate was applied: the others ask nothing of the user
            for t in rec.outcome.trials:
                v = t.verdict
                if v is None or v.verdict not in _PROBLEM_VERDICTS:
                    continue
                rng = header_range(doc, site)
                # A measured verdict's phrase has its figures; the runner's message would
                # repeat them in another format. A failure's message says what failed.
                said = "" if v.verdict == "slower" else v.message
                message = f"PerfPilot candidate for {site.name}: {speedup_phrase(v)}. " \
                          f"{said}".strip()
                # Related information only for evidence the message does not already say.
                evidence = (v.validation_detail or v.build_log[-300:]).strip()
                related = [lsp.DiagnosticRelatedInformation(lsp.Location(uri, rng), evidence)] \
                    if evidence and evidence not in message else None
                diags.append(lsp.Diagnostic(
                    range=rng, severity=_PROBLEM_VERDICTS[v.verdict], source="perfpilot",
                    code=v.verdict, message=message, related_information=related,
                    data={"uri": uri, "function": name}))
                break
        self.text_document_publish_diagnostics(
            lsp.PublishDiagnosticsParams(uri=uri, diagnostics=diags, version=doc.version))


def _arg(args: tuple[Any, ...]) -> dict[str, Any]:
    if args and isinstance(args[0], dict):
        return args[0]
    if len(args) >= 3 and isinstance(args[0], str):  # (uri, line, character) form
        return {"uri": args[0], "line": args[1], "character": args[2]}
    return {}


_MAX_POSITION = 2**31 - 1  # LSP positions are uintegers


def _position_arg(a: dict[str, Any]) -> tuple[str, int, int]:
    """``(uri, line, character)`` of a command argument; -32602 when it is malformed."""
    try:
        uri, line, character = a["uri"], a.get("line", 0), a.get("character", 0)
        if not isinstance(uri, str) or not all(
                isinstance(v, int) and not isinstance(v, bool) and 0 <= v <= _MAX_POSITION
                for v in (line, character)):
            raise TypeError
    except (KeyError, TypeError) as exc:
        raise JsonRpcInvalidParams("expected an argument {uri: string, line: uinteger, "
                                   "character: uinteger}") from exc
    return uri, line, character


def create_server() -> PerfPilotServer:
    """A server with every feature registered."""
    server = PerfPilotServer()

    @server.feature(lsp.INITIALIZE)
    def initialize(ls: PerfPilotServer, params: lsp.InitializeParams) -> None:
        root: Path | None = None
        if params.workspace_folders:
            root = path_of_uri(params.workspace_folders[0].uri)
        elif params.root_uri:
            root = path_of_uri(params.root_uri)
        ls.workspace_root = root
        ls.engine.set_workspace(root)
        opts = params.initialization_options
        settings = None
        # Only the initialization options (the user's own client configuration) may trust
        # the workspace; settings pulled later may come from files inside the workspace.
        ls.trust_workspace = isinstance(opts, dict) and opts.get("trustWorkspace") is True
        ls.client_shows_jobs = isinstance(opts, dict) and opts.get("showsJobStatus") is True
        if isinstance(opts, dict):
            settings = opts.get("settings", opts)
            settings = settings.get("perfpilot", settings) if isinstance(settings, dict) else {}
        ls.apply_settings(settings if isinstance(settings, dict) else {})

    @server.feature(lsp.INITIALIZED)
    async def initialized(ls: PerfPilotServer, params: lsp.InitializedParams) -> None:
        await ls.pull_settings()
        if ls.workspace_root is not None and ls.workspace_root.is_dir():
            ls.watcher = WorkspaceWatcher(ls.workspace_root, ls.inputs_changed,
                                          asyncio.get_running_loop())
            ls.watcher.start()

    @server.feature(lsp.SHUTDOWN)
    async def shutdown(ls: PerfPilotServer, params: None) -> None:
        if ls.watcher is not None:
            ls.watcher.stop()
        for job in list(ls.session.jobs.values()):
            ls.session.cancel(job.id)
        ls._disk_reads.shutdown(wait=False, cancel_futures=True)
        await ls.engine.close()

    @server.feature(lsp.WORKSPACE_DID_CHANGE_CONFIGURATION)
    async def did_change_configuration(ls: PerfPilotServer,
                                       params: lsp.DidChangeConfigurationParams) -> None:
        data = params.settings
        if isinstance(data, dict) and isinstance(data.get("perfpilot"), dict):
            ls.apply_settings(data["perfpilot"])
        else:
            await ls.pull_settings()

    @server.feature(NOTIFY_SECRET)
    def set_secret(ls: PerfPilotServer, params: Any) -> None:
        name = getattr(params, "name", None) or "apiKey"
        value = getattr(params, "value", None) or ""
        role = getattr(params, "role", None)
        ls.engine.set_secret("api_key" if name == "apiKey" else str(name), str(value), role)
        ls.log_info(f"secret {name} {'set' if value else 'cleared'}")  # never the value

    @server.feature(lsp.TEXT_DOCUMENT_DID_CLOSE)
    def did_close(ls: PerfPilotServer, params: lsp.DidCloseTextDocumentParams) -> None:
        ls.session.forget(params.text_document.uri)

    @server.feature(lsp.TEXT_DOCUMENT_DID_CHANGE)
    def did_change(ls: PerfPilotServer, params: lsp.DidChangeTextDocumentParams) -> None:
        # Results stay attached by function name. A result is stale once the function's text
        # differs from what was measured (our own applied edit is not a change).
        records = ls.session.records.get(params.text_document.uri, {})
        if not records:
            return
        doc = ls.document(params.text_document.uri)
        for name, rec in records.items():
            site = ls.site_named(doc, name)
            expected = rec.applied_text if rec.applied else rec.original_text
            rec.stale = site is None or site.text.strip() != expected.strip()

    @server.feature(
        lsp.TEXT_DOCUMENT_CODE_ACTION,
        lsp.CodeActionOptions(code_action_kinds=[KIND_FASTER, KIND_EXPLAIN],
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
        only = params.context.only
        if only and not any(KIND_FASTER.startswith(k) or k.startswith(KIND_FASTER)
                            for k in only):
            return None
        site = ls.site_at(doc, params.range.start)
        if site is None:
            return None
        arg = {"uri": uri, "line": params.range.start.line,
               "character": params.range.start.character, "version": doc.version}
        disabled = None
        if site.has_errors and ls.supports_disabled_actions():
            # Shown greyed out with the reason, rather than failing after a click.
            disabled = lsp.CodeActionDisabled(
                reason=f"{site.name} has a syntax error; fix it before optimizing")
        faster = lsp.Command(f"Make {site.name} faster", CMD_FASTER, arguments=[arg])
        explain = lsp.Command(f"Explain {site.name}", CMD_EXPLAIN, arguments=[arg])
        actions = [
            lsp.CodeAction(title=f"Make this faster: {site.name}", kind=KIND_FASTER,
                           disabled=disabled, command=faster),
            lsp.CodeAction(title=f"Explain performance of {site.name} (plan only)",
                           kind=KIND_EXPLAIN, disabled=disabled, command=explain),
        ]
        return actions

    async def _start(ls: PerfPilotServer, kind: str, args: tuple[Any, ...]) -> dict[str, Any]:
        uri, line, character = _position_arg(_arg(args))
        try:
            site = await ls.checked_site(uri, line, character)
        except LocateError as exc:
            ls.tell(f"PerfPilot: {exc}", lsp.MessageType.Warning)
            return {"error": str(exc)}
        baseline = None
        rerun = kind == "rerun"
        if rerun:
            rec = ls.session.record(uri, site.qualified_name)
            if rec is None:
                msg = f"nothing to re-run for {site.name}: run Make this faster first"
                ls.tell(f"PerfPilot: {msg}", lsp.MessageType.Warning)
                return {"error": msg}
            if rec.applied:
                baseline = rec.original_text
            else:
                kind = "optimize"  # nothing applied: measure the candidates again
        job = ls.start_job(kind, site, baseline, fresh=rerun)
        return {"jobId": job.id, "function": site.qualified_name}

    @server.command(CMD_FASTER)
    async def make_faster(ls: PerfPilotServer, *args: Any) -> dict[str, Any]:
        return await _start(ls, "optimize", args)

    @server.command(CMD_EXPLAIN)
    async def explain(ls: PerfPilotServer, *args: Any) -> dict[str, Any]:
        return await _start(ls, "explain", args)

    @server.command(CMD_RERUN)
    async def rerun(ls: PerfPilotServer, *args: Any) -> dict[str, Any]:
        return await _start(ls, "rerun", args)

    @server.command(CMD_CANCEL)
    async def cancel(ls: PerfPilotServer, *args: Any) -> dict[str, Any]:
        a = _arg(args)
        if "jobId" in a:
            return {"cancelled": ls.session.cancel(str(a["jobId"]))}
        uri, line, character = _position_arg(a)
        site = ls.site_at(await ls.document_async(uri), lsp.Position(line, character))
        jobs = ls.session.running(uri, site.qualified_name if site else None)
        return {"cancelled": any([ls.session.cancel(j.id) for j in jobs])}

    @server.command(CMD_REVERT)
    async def revert(ls: PerfPilotServer, *args: Any) -> dict[str, Any]:
        uri, line, character = _position_arg(_arg(args))
        doc = await ls.document_async(uri)
        site = ls.site_at(doc, lsp.Position(line, character))
        rec = ls.session.record(uri, site.qualified_name) if site else None
        if not ls.in_sync(uri):
            msg = "the document is out of sync with the editor; close and reopen it"
            ls.tell(f"PerfPilot: {msg}", lsp.MessageType.Warning)
            return {"applied": False, "message": msg}
        if site is None or rec is None:
            msg = "nothing to revert here"
            ls.tell(f"PerfPilot: {msg}")
            return {"applied": False, "message": msg}
        try:
            edit = function_edit(doc, site, rec.original_text, f"Revert {site.name}",
                                 version=doc.version, confirm=False,
                                 drop_includes=rec.added_includes)
        except StaleSiteError as exc:
            return {"applied": False, "message": str(exc)}
        result = await ls.workspace_apply_edit_async(
            lsp.ApplyWorkspaceEditParams(edit=edit, label=f"Revert {site.name}"))
        if result.applied:
            rec.applied = False
            ls.session.records.get(uri, {}).pop(site.qualified_name, None)
            ls.publish_diagnostics(uri)
            ls._refresh()
            return {"applied": True, "message": f"{site.name} restored"}
        return {"applied": False, "message": result.failure_reason or "edit refused"}

    @server.command(CMD_REPORT)
    async def show_report(ls: PerfPilotServer, *args: Any) -> dict[str, Any]:
        a = _arg(args)
        uri, line, character = _position_arg(a)
        doc = await ls.document_async(uri)
        site = ls.site_at(doc, lsp.Position(line, character))
        rec = ls.session.record(uri, site.qualified_name) if site else None
        if site is None or rec is None:
            return {"markdown": "No PerfPilot result for this function yet."}
        markdown = report_markdown(rec.outcome)
        result: dict[str, Any] = {"markdown": markdown}
        if a.get("open") and ls.workspace_root is not None and ls.supports_show_document():
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
        role_name = str(_arg(args).get("role", "optimizer"))
        role = getattr(ls.engine.settings, role_name, None)
        if role is None or role_name not in ("planner", "optimizer"):
            return {"ok": False, "message": f"unknown role {role_name!r}"}
        if role.backend != "remote":
            return {"ok": True, "message": f"{role_name} uses the {role.backend} backend; "
                                           "no endpoint to test"}
        from perfpilot.llm.check import check_endpoint

        key = ls.engine.secrets.get(f"{role_name}.api_key") or ls.engine.secrets.get("api_key")
        ok, message = await check_endpoint(role, key)
        return {"ok": ok, "message": message}

    @server.feature(lsp.WINDOW_WORK_DONE_PROGRESS_CANCEL)
    def progress_cancel(ls: PerfPilotServer, params: lsp.WorkDoneProgressCancelParams) -> None:
        job_id = ls.progress_tokens.get(str(params.token))
        if job_id is not None:
            ls.session.cancel(job_id)

    @server.feature(lsp.TEXT_DOCUMENT_HOVER)
    async def hover(ls: PerfPilotServer, params: lsp.HoverParams) -> lsp.Hover | None:
        doc = await ls.document_async(params.text_document.uri)
        site = ls.site_at(doc, params.position)
        if site is None:
            return None
        line = server_position(doc, params.position).line
        if not site.start_line <= line <= site.body_start_line:
            return None  # only on the name and signature, not inside the body
        running = ls.session.running(doc.uri, site.qualified_name)
        rec = ls.session.record(doc.uri, site.qualified_name)
        parts: list[str] = []
        if running:
            j = running[0]
            parts.append(f"**PerfPilot** is working on `{site.name}`: {escape_md(j.stage)} "
                         f"{escape_md(j.message)}")
        if rec is not None:
            parts.append(hover_markdown(rec.outcome) if rec.outcome.trials
                         else plan_markdown(rec.outcome.plan, site.name))
            if rec.stale:
                parts.append("_The function changed since it was measured; Re-run to update._")
        parts.extend(profile_hover(ls, doc, site))
        if not parts:
            return None
        return lsp.Hover(contents=lsp.MarkupContent(lsp.MarkupKind.Markdown,
                                                    "\n\n".join(parts)))

    @server.feature(lsp.TEXT_DOCUMENT_CODE_LENS)
    def code_lens(ls: PerfPilotServer, params: lsp.CodeLensParams) -> list[lsp.CodeLens]:
        doc = ls.document(params.text_document.uri)
        lenses: list[lsp.CodeLens] = []
        shown: set[str] = set()
        for job in ls.session.running(doc.uri):
            site = ls.site_named(doc, job.function)
            if site is None:
                continue
            rng = header_range(doc, site)
            arg = {"uri": doc.uri, "line": rng.start.line, "character": rng.start.character}
            shown.add(job.function)
            lenses.append(lsp.CodeLens(rng, lsp.Command(
                f"$(sync~spin) PerfPilot: {job.stage}…", CMD_STATUS, arguments=[{}])))
            lenses.append(lsp.CodeLens(rng, lsp.Command(
                "Cancel", CMD_CANCEL, arguments=[{"jobId": job.id, **arg}])))
        for name, rec in ls.session.records.get(doc.uri, {}).items():
            site = ls.site_named(doc, name)
            if site is None or name in shown:
                continue
            rng = header_range(doc, site)
            arg = {"uri": doc.uri, "line": rng.start.line, "character": rng.start.character}
            report = [{**arg, "open": True}]
            lenses.append(lsp.CodeLens(rng, lsp.Command(lens_title(rec.outcome), CMD_REPORT,
                                                        arguments=report)))
            lenses.append(lsp.CodeLens(rng, lsp.Command("Details", CMD_REPORT,
                                                        arguments=report)))
            if rec.outcome.trials:
                lenses.append(lsp.CodeLens(rng, lsp.Command("Re-run", CMD_RERUN, arguments=[arg])))
            if rec.applied:
                lenses.append(lsp.CodeLens(rng, lsp.Command("Revert", CMD_REVERT, arguments=[arg])))
        lenses.extend(profile_lenses(ls, doc, header_range))
        return lenses

    @server.feature(lsp.TEXT_DOCUMENT_INLAY_HINT,
                    lsp.InlayHintOptions(resolve_provider=False))
    def inlay_hint(ls: PerfPilotServer, params: lsp.InlayHintParams) -> list[lsp.InlayHint]:
        if not ls.engine.settings.inlay_hints:
            return []
        doc = ls.document(params.text_document.uri)
        hints: list[lsp.InlayHint] = []
        for name, rec in ls.session.records.get(doc.uri, {}).items():
            chosen = rec.outcome.chosen
            site = ls.site_named(doc, name)
            if site is None or chosen is None or chosen.verdict is None:
                continue
            v = chosen.verdict
            if v.speedup is None:
                continue
            line = doc.lines[site.start_line].rstrip("\r\n") if site.start_line < len(
                doc.lines) else ""
            if not (params.range.start.line <= site.start_line <= params.range.end.line):
                continue
            hints.append(lsp.InlayHint(
                position=client_position(doc, site.start_line, len(line)),
                label=f"⚡ {v.speedup:.2f}×", padding_left=True,
                tooltip=lsp.MarkupContent(lsp.MarkupKind.Markdown,
                                          escape_md(speedup_phrase(v)))))
        return hints

    register_profile_commands(server)
    return server
