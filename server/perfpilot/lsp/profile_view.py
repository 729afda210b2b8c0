"""LSP side of profiles: the "Profile with PerfPilot" commands, and the lenses and hover
lines on hot functions. Translation only: the work is in ``perfpilot.engine.hotspots``."""

from __future__ import annotations

import uuid
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from lsprotocol import types as lsp
from pygls.exceptions import JsonRpcInvalidParams
from pygls.lsp.server import LanguageServer
from pygls.workspace import TextDocument

from perfpilot.code.locate import LocateError
from perfpilot.code.site import FunctionSite
from perfpilot.engine.confirm_rewrite import (
    can_confirm,
    confirm_pending,
    confirm_rewrite,
    measured_text,
    pending_rewrite,
    program_lens_text,
)
from perfpilot.engine.disk_cache import private_folder
from perfpilot.engine.hotspots import (
    HotSpot,
    headline,
    hot_spots,
    hover_text,
    lens_text,
    profile_markdown,
    profile_workspace,
)
from perfpilot.engine.session import path_of_uri
from perfpilot.lsp.protocol import (
    CMD_CANCEL_PROFILE,
    CMD_CONFIRM,
    CMD_FASTER,
    CMD_PROFILE,
    CMD_SHOW_PROFILE,
    InvalidArgument,
    PositionArgument,
    ProfileArgument,
    command_argument,
)
from perfpilot.profiling.proc import ProfileError
from perfpilot.profiling.run import import_profile
from perfpilot.profiling.values import Profile
from perfpilot.progress import Cancelled, JobContext

if TYPE_CHECKING:
    from perfpilot.lsp.language_server import PerfPilotServer



def _folder(ls: PerfPilotServer, create: bool = False) -> Path | None:
    """The workspace's profile folder; created (with its ignore entry) only to save."""
    if ls.workspace_root is None or not ls.workspace_root.is_dir():
        return None
    if not create:
        return ls.workspace_root / ".perfpilot" / "profiles"
    try:
        return private_folder(ls.workspace_root, "profiles")
    except OSError:
        return None


def _spots(ls: PerfPilotServer, doc: TextDocument) -> list[tuple[HotSpot, FunctionSite]]:
    profile = ls.profiles.current(_folder(ls))
    path = path_of_uri(doc.uri)
    if profile is None or path is None:
        return []
    outline = ls.outline(doc)
    settings = ls.engine.settings.profile
    spots = hot_spots(profile, path, doc.source, outline, settings.lenses, settings.min_share)
    by_name = {s.qualified_name: s for s in outline}
    return [(h, by_name[h.qualified_name]) for h in spots if h.qualified_name in by_name]


def profile_lenses(ls: PerfPilotServer, doc: TextDocument,
                   header: Any) -> list[tuple[bool, lsp.CodeLens]]:
    """``34% of run time`` and ``Make this faster`` above each hot function of ``doc``, and
    Confirm in program (or the program's figure) on rewrites; each paired with whether it is
    a figure (True) or an action (False), so the lens line can put the actions first.
    ``header`` maps (doc, site) to the range of the function's first line."""
    # The program's figure before the share: it is the newer and more telling one.
    lenses = _confirm_lenses(ls, doc, header)
    for spot, site in _spots(ls, doc):
        rng = header(doc, site)
        arg = {"uri": doc.uri, "line": rng.start.line, "character": rng.start.character,
               "version": doc.version}
        lenses.append((True, lsp.CodeLens(rng, lsp.Command(
            f"$(flame) {lens_text(spot)}", CMD_SHOW_PROFILE, arguments=[{}]))))
        if ls.session.record(doc.uri, site.qualified_name) is None:
            # A function with a result has Re-run among its actions already.
            lenses.append((False, lsp.CodeLens(rng, lsp.Command(
                "Make this faster", CMD_FASTER, arguments=[arg]))))
    return lenses


def _confirm_lenses(ls: PerfPilotServer, doc: TextDocument, header: Any
                    ) -> list[tuple[bool, lsp.CodeLens]]:
    """On rewrites, applied or awaiting the user's review: the program's figure once
    confirmed, else "Confirm in program"."""
    lenses: list[tuple[bool, lsp.CodeLens]] = []
    settings = ls.engine.settings.profile
    for name, rec in ls.session.records.get(doc.uri, {}).items():
        site = ls.site_named(doc, name)
        rewrite = measured_text(rec, site) if site is not None else None
        if site is None or rewrite is None:
            continue
        rng = header(doc, site)
        arg = {"uri": doc.uri, "line": rng.start.line, "character": rng.start.character}
        key = (doc.uri, name)
        done = ls.profiles.confirmations.get(key)
        if key in ls.profiles.confirming:
            lenses.append((True, lsp.CodeLens(rng, lsp.Command(
                "$(sync~spin) confirming in the program…", CMD_SHOW_PROFILE, arguments=[{}]))))
        elif done is not None and done.function_text.strip() == rewrite.strip():
            lenses.append((True, lsp.CodeLens(rng, lsp.Command(
                program_lens_text(done.verdict), CMD_CONFIRM, arguments=[arg]))))
        elif can_confirm(settings):
            title = "Confirm in program" if rec.applied else "Confirm in program (not applied)"
            lenses.append((False, lsp.CodeLens(rng, lsp.Command(title, CMD_CONFIRM,
                                                                arguments=[arg]))))
    return lenses


def profile_hover(ls: PerfPilotServer, doc: TextDocument, site: FunctionSite) -> list[str]:
    """The hover paragraph with the function's share, when it is among the hot ones."""
    profile = ls.profiles.current(_folder(ls))
    if profile is None:
        return []
    return [hover_text(spot, profile) for spot, s in _spots(ls, doc)
            if s.qualified_name == site.qualified_name]


def _summary(profile: Profile) -> dict[str, Any]:
    return {"markdown": profile_markdown(profile),
            "functions": [f.to_json() for f in profile.hottest(20)],
            "notes": list(profile.notes), "staleFiles": list(profile.stale_files())}


async def _progress(ls: PerfPilotServer, title: str = "PerfPilot: profiling"
                    ) -> tuple[JobContext, Callable[[str], None]]:
    """A job context whose reports show as work-done progress (cancellable: the user's cancel
    cancels the context), and the function ending it with a last message."""
    token = f"perfpilot-profile-{uuid.uuid4().hex[:8]}"
    shown = False
    if ls.supports_progress():
        try:
            await ls.work_done_progress.create_async(token)
            ls.work_done_progress.begin(token, lsp.WorkDoneProgressBegin(
                title=title, cancellable=True))
            shown = True
        except Exception as exc:
            ls.log_info(f"progress not created: {exc}")

    def report(stage: str, message: str, percent: int | None) -> None:
        ls.log_info(f"profile: {stage} {message}")
        if shown:
            ls.work_done_progress.report(token, lsp.WorkDoneProgressReport(
                message=f"{stage}: {message}" if message else stage))

    ctx = JobContext(on_report=report)
    ls.profiles.jobs[token] = ctx

    def end(message: str) -> None:
        ls.profiles.jobs.pop(token, None)
        if shown:
            ls.work_done_progress.end(token, lsp.WorkDoneProgressEnd(message=message or None))

    return ctx, end


def register_profile_commands(server: PerfPilotServer) -> None:
    """``perfpilot.profile`` (run the workspace's program, or ``{"import": FILE}``),
    ``perfpilot.cancelProfile`` (stop it), ``perfpilot.confirmInProgram`` and
    ``perfpilot.showProfile`` (the hot functions, ordered by share)."""

    # pygls reads the handlers' annotations at run time to find the server parameter; the
    # server class is imported for type checking only (a circular import otherwise).
    @server.command(CMD_PROFILE)
    async def profile(any_ls: LanguageServer, *args: Any) -> dict[str, Any]:
        ls = cast("PerfPilotServer", any_ls)
        try:
            a = command_argument(ls.converter, args, ProfileArgument)
        except InvalidArgument as exc:
            raise JsonRpcInvalidParams(f"invalid argument for {CMD_PROFILE}: {exc}") from exc
        if ls.profiles.running is not None:
            return {"error": "a profile is already being taken"}
        root = ls.workspace_root
        ctx, end = await _progress(ls)
        ls.profiles.running = ctx
        last = ""
        try:
            if a.import_:
                work = import_profile(Path(a.import_),
                                      binary=Path(a.binary) if a.binary else None, ctx=ctx)
            elif root is None:
                raise ProfileError("open a folder first: the run settings are the workspace's")
            else:
                work = profile_workspace(ls.engine.settings.profile, root, ctx)
            result: Profile = await work
            ctx.check()  # a cancel that came as the work ended: nothing is kept
        except Cancelled:
            # The profiler's process group was killed; the previous profile stays the latest.
            last = "cancelled"
            ls.tell("PerfPilot: profile cancelled (the program was stopped; nothing was "
                    "kept)", lsp.MessageType.Warning)
            return {"error": "cancelled", "status": "cancelled"}
        except ProfileError as exc:
            last = "failed"
            ls.tell(f"PerfPilot: profile not taken: {exc}", lsp.MessageType.Warning)
            return {"error": str(exc), "status": "failed"}
        finally:
            ls.profiles.running = None
            end(last)
        ls.profiles.replace(result, _folder(ls, create=True))
        top = result.hottest(1)
        lead = headline(result)
        if lead is not None:
            ls.tell(f"PerfPilot: profile taken; your hottest function is {lead}")
        elif top:
            ls.tell(f"PerfPilot: profile taken; none of the sampled functions is in your "
                    f"sources; the hottest is {top[0].name} ({top[0].self_share:.0%} of run "
                    "time)")
        else:
            ls.tell("PerfPilot: profile taken, but no sampled function has debug "
                    "information: build with -g", lsp.MessageType.Warning)
        ls.refresh()
        return _summary(result)

    @server.command(CMD_CONFIRM)
    async def confirm(any_ls: LanguageServer, *args: Any) -> dict[str, Any]:
        ls = cast("PerfPilotServer", any_ls)
        try:
            a = command_argument(ls.converter, args, PositionArgument)
            uri = a.uri
            site = await ls.checked_site(uri, a.line, a.character)
        except (InvalidArgument, LocateError) as exc:
            return {"error": f"no function here: {exc}"}
        rec = ls.session.record(uri, site.qualified_name)
        path = path_of_uri(uri)
        root = ls.workspace_root
        settings = ls.engine.settings.profile
        pending = pending_rewrite(rec, site) if rec is not None else None
        if rec is None or not (rec.applied or pending is not None):
            return {"error": f"no rewrite of {site.name} to confirm"}
        if root is None or path is None or not can_confirm(settings):
            msg = ("set the program's build and run commands (perfpilot.profile.buildCommand "
                   "and runCommand, or [profile] in .perfpilot.toml) to confirm in the program")
            ls.tell(f"PerfPilot: {msg}", lsp.MessageType.Warning)
            return {"error": msg}
        key = (uri, site.qualified_name)
        if key in ls.profiles.confirming:
            return {"error": "already confirming this function"}
        ctx, end = await _progress(ls, "PerfPilot: confirming in the program")
        ls.profiles.confirming.add(key)
        ls.refresh()
        last = ""
        try:
            if pending is not None:  # not applied yet: the rewrite goes into the copy only
                done = await confirm_pending(settings, root, path, site, pending.code,
                                             pending.includes, ctx)
            else:
                done = await confirm_rewrite(settings, root, path, site, rec.original_text,
                                             ctx)
        except (ProfileError, Cancelled) as exc:
            last = "cancelled" if isinstance(exc, Cancelled) else "failed"
            ls.tell(f"PerfPilot: not confirmed: {exc or 'cancelled'}", lsp.MessageType.Warning)
            return {"error": str(exc) or "cancelled", "status": last}
        finally:
            ls.profiles.confirming.discard(key)
            end(last)
            ls.refresh()
        ls.profiles.confirmations[key] = done
        v = done.verdict
        level = (lsp.MessageType.Warning if v.verdict in ("test-failed", "build-failed",
                                                          "run-failed")
                 else lsp.MessageType.Info)
        ls.tell(f"PerfPilot: {site.name} in the program: {v.verdict}: {v.message}", level)
        ls.refresh()
        return v.to_json()

    @server.command(CMD_CANCEL_PROFILE)
    def cancel_profile(any_ls: LanguageServer, *args: Any) -> dict[str, Any]:
        # The profile command answers {"error": "cancelled", "status": "cancelled"} once its
        # process group is gone.
        ls = cast("PerfPilotServer", any_ls)
        return {"cancelled": ls.profiles.cancel_running()}

    @server.command(CMD_SHOW_PROFILE)
    def show_profile(any_ls: LanguageServer, *args: Any) -> dict[str, Any]:
        ls = cast("PerfPilotServer", any_ls)
        current = ls.profiles.current(_folder(ls))
        if current is None:
            return {"markdown": "No profile yet: run *Profile with PerfPilot*.",
                    "functions": []}
        return _summary(current)
