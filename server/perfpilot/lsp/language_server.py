"""The PerfPilot language server's state: transport, capabilities, settings and documents.

Features (``lifecycle``, ``jobs``, ``commands``, ``views``, ``profile_view``) are registered on
it by ``server.create_server``; this class only holds what they share.
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
from pygls.exceptions import JsonRpcException
from pygls.io_ import run_async
from pygls.lsp.server import LanguageServer
from pygls.workspace import TextDocument

from perfpilot import __version__
from perfpilot.code.locate import LocateError, function_at, list_functions
from perfpilot.code.parse import language_for
from perfpilot.code.site import FunctionSite
from perfpilot.engine.engine import Engine
from perfpilot.engine.hotspots import ProfileSlot
from perfpilot.engine.session import Session, path_of_uri
from perfpilot.engine.source_files import SourceReadError, read_source_file
from perfpilot.engine.trust import TrustList
from perfpilot.engine.watch import WorkspaceWatcher
from perfpilot.engine.workspace_config import ConfigError, workspace_config
from perfpilot.lsp.convert import server_position
from perfpilot.lsp.jobs import JobRunner
from perfpilot.lsp.protocol import PerfPilotProtocol, make_converter
from perfpilot.lsp.transport import (
    BoundedStdin,
    BoundedStreamReader,
    GuardedProtocol,
    MessageFramer,
    is_empty_body,
    is_parse_failure,
    parse_error,
)
from perfpilot.settings import Settings, merge_settings

log = logging.getLogger(__name__)

DISK_READ_TIMEOUT_S = 2.0  # unopened documents: a file that takes longer is not read


def _first_line(error: BaseException) -> str:
    lines = str(error).strip().splitlines()
    return lines[0][:200] if lines else type(error).__name__


class PerfPilotServer(LanguageServer):
    """Language server state: the engine session, outlines per document version, settings."""

    def __init__(self) -> None:
        converter = make_converter()
        super().__init__("perfpilot", __version__, protocol_cls=PerfPilotProtocol,
                         converter_factory=lambda: converter)
        self.converter = converter  # structures command arguments (protocol.parse)
        self.engine = Engine(log_fn=self.log_info)
        self.session = Session(self.engine)
        self.workspace_root: Path | None = None
        self.editor_settings: dict[str, Any] = {}
        self.trust_workspace = False  # the client's trustWorkspace initialization option
        # The client shows perfpilot/jobStatus itself (showsJobStatus initialization option):
        # no work-done progress then, so a job has one status item, not two.
        self.client_shows_jobs = False
        # The client shows perfpilot/result itself (showsResults): a job's result then goes
        # there instead of window/showMessage, so a new result can replace the previous one.
        self.client_shows_results = False
        # The client asks about a rewrite itself (confirmsRewrites): perfpilot/confirmRewrite
        # carries the text before and after, so the question comes with a diff.
        self.client_confirms_rewrites = False
        self._told_ignored = ""
        self.watcher: WorkspaceWatcher | None = None
        self._tasks: set[asyncio.Task[None]] = set()
        self._outlines: LRUCache[tuple[str, int | None, int], list[FunctionSite]] = \
            LRUCache(32)
        # Reads of unopened documents: two threads, so a file system that hangs them can
        # cost at most these two, never the event loop or pygls's own pool.
        self.disk_reads = ThreadPoolExecutor(2, thread_name_prefix="perfpilot-read")
        self.profiles = ProfileSlot()  # the workspace's latest profile (lenses on hot functions)
        self.jobs = JobRunner(self)  # jobs' progress, status notifications and delivery

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
        """A body that is not JSON gets a parse error (id null) instead of silence. Any other
        error of the message loop itself (``source`` JsonRpcException: a message the protocol
        could not take) is logged as one line, never shown to the user as a server error:
        the client sent it, and the user cannot act on it. Errors of feature handlers go on
        to pygls (a notification handler's failure is shown)."""
        if is_parse_failure(error):
            answer = parse_error(error)
            self.guarded.answer_error(None, answer)
            detail = "" if is_empty_body(error) else f" ({_first_line(error)})"
            log.warning("answered -32700: %s%s", answer.message, detail)
            return
        if source is JsonRpcException:
            log.warning("dropped a message the protocol could not take: %s: %s",
                        type(error).__name__, _first_line(error))
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

    def supports_create_file(self) -> bool:
        """Whether the client applies workspace edits that create files."""
        ws = self._caps().workspace
        we = ws.workspace_edit if ws else None
        return bool(we and we.document_changes and we.resource_operations
                    and lsp.ResourceOperationKind.Create in we.resource_operations)

    def supports_show_document(self) -> bool:
        w = self._caps().window
        return bool(w and w.show_document and w.show_document.support)

    def hover_is_plain(self) -> bool:
        """Whether the client asked for hovers without markdown (its hover
        ``contentFormat`` lists plaintext only)."""
        td = self._caps().text_document
        formats = td.hover.content_format if td and td.hover else None
        return formats is not None and lsp.MarkupKind.Markdown not in formats

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
            message = config.notice()
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
                                                DISK_READ_TIMEOUT_S, self.disk_reads)
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

    # -- views --------------------------------------------------------------------------
    def refresh(self) -> None:
        """Ask the client to fetch lenses and inlay hints again (when it can)."""
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
