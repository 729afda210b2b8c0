"""Lifecycle and synchronisation: initialize, settings, secrets, document changes, shutdown."""

from __future__ import annotations

import asyncio
from pathlib import Path

from lsprotocol import types as lsp

from perfpilot.engine.session import path_of_uri
from perfpilot.engine.watch import WorkspaceWatcher
from perfpilot.lsp.language_server import PerfPilotServer
from perfpilot.lsp.protocol import NOTIFY_SECRET, SECRET_API_KEY, SetSecretParams
from perfpilot.settings import API_KEY_SECRET


def register(server: PerfPilotServer) -> None:
    """Register the lifecycle, configuration, secret and document sync handlers."""

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
        ls.client_shows_results = isinstance(opts, dict) and opts.get("showsResults") is True
        ls.client_confirms_rewrites = isinstance(opts, dict) \
            and opts.get("confirmsRewrites") is True
        if isinstance(opts, dict):
            settings = opts.get("settings", opts)
            settings = settings.get("perfpilot", settings) if isinstance(settings, dict) else {}
        ls.apply_settings(settings if isinstance(settings, dict) else {})

    @server.feature(lsp.INITIALIZED)
    async def initialized(ls: PerfPilotServer, params: lsp.InitializedParams) -> None:
        await ls.pull_settings()
        if ls.workspace_root is not None and ls.workspace_root.is_dir():
            ls.watcher = WorkspaceWatcher(ls.workspace_root, ls.jobs.inputs_changed,
                                          asyncio.get_running_loop())
            ls.watcher.start()

    @server.feature(lsp.SHUTDOWN)
    async def shutdown(ls: PerfPilotServer, params: None) -> None:
        if ls.watcher is not None:
            ls.watcher.stop()
        for job in list(ls.session.jobs.values()):
            ls.session.cancel(job.id)
        ls.disk_reads.shutdown(wait=False, cancel_futures=True)
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
    def set_secret(ls: PerfPilotServer, params: SetSecretParams) -> None:
        name = params.name or SECRET_API_KEY
        ls.engine.set_secret(API_KEY_SECRET if name == SECRET_API_KEY else name, params.value,
                             params.role)
        ls.log_info(f"secret {name} {'set' if params.value else 'cleared'}")  # never the value

    @server.feature(lsp.TEXT_DOCUMENT_DID_OPEN)
    def did_open(ls: PerfPilotServer, params: lsp.DidOpenTextDocumentParams) -> None:
        # Rewrites applied before a restart (or before the document was closed) come back.
        uri = params.text_document.uri
        if ls.session.restore(uri, ls.outline(ls.document(uri))):
            ls.refresh()

    @server.feature(lsp.TEXT_DOCUMENT_DID_CLOSE)
    def did_close(ls: PerfPilotServer, params: lsp.DidCloseTextDocumentParams) -> None:
        ls.session.forget(params.text_document.uri)

    @server.feature(lsp.TEXT_DOCUMENT_DID_CHANGE)
    def did_change(ls: PerfPilotServer, params: lsp.DidChangeTextDocumentParams) -> None:
        # Results stay attached by function name; the session decides which are stale.
        uri = params.text_document.uri
        changed = ls.session.changed.get(uri)
        if changed:
            # A function whose kept rewrite no longer matched (opened with other text, or
            # edited and then undone) gets its result back once its text is the rewrite again.
            doc = ls.document(uri)
            if ls.session.restore(uri, [s for s in ls.outline(doc)
                                        if s.qualified_name in changed]):
                ls.refresh()
        if not ls.session.records.get(uri):
            return
        doc = ls.document(uri)

        def text_of(name: str) -> str | None:
            site = ls.site_named(doc, name)
            return site.text if site is not None else None

        ls.session.check_staleness(uri, text_of)
