"""The PerfPilot language server: creates the server and registers its features.

Handlers translate and return quickly; jobs run as asyncio tasks owned by the engine's Session.
Nothing blocks the event loop: compilers, timing and models run as subprocesses or workers.
Features live by concern: ``lifecycle`` (initialize, settings, secrets, document sync),
``jobs`` (progress, job status, delivering results), ``commands`` (code actions and
executeCommand), ``spec_drafts`` (drafting a bench spec for a function the harness cannot
feed), ``views`` (hover, lenses, inlay hints, diagnostics) and ``profile_view``.
"""

from __future__ import annotations

from perfpilot.lsp import build_flags, commands, jobs, lifecycle, spec_drafts, views
from perfpilot.lsp.language_server import PerfPilotServer
from perfpilot.lsp.profile_view import register_profile_commands

__all__ = ["PerfPilotServer", "create_server"]


def create_server() -> PerfPilotServer:
    """A server with every feature registered."""
    server = PerfPilotServer()
    lifecycle.register(server)
    jobs.register(server)
    commands.register(server)
    spec_drafts.register(server)
    build_flags.register(server)
    views.register(server)
    register_profile_commands(server)
    return server
