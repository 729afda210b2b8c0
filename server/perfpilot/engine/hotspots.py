"""Profiles in the editor: run the workspace's program under a profiler, keep the latest
profile, and say which functions of a document are hot (for lenses and hovers).

Knows nothing of LSP: the server turns ``HotSpot`` values into code lenses and hover text.
"""

from __future__ import annotations

import contextlib
import json
import re
import shlex
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from perfpilot.code.site import FunctionSite
from perfpilot.engine.confirm_rewrite import Confirmation
from perfpilot.engine.present import escape_md
from perfpilot.profiling.proc import ProfileError
from perfpilot.profiling.run import Profiler, profile_command
from perfpilot.profiling.values import FunctionCost, Profile, text_digest
from perfpilot.progress import JobContext
from perfpilot.settings import ProfileSettings

PROFILE_FILE = "profile.json"


@dataclass(frozen=True)
class HotSpot:
    """A function of an open document with its share of the profiled run."""

    qualified_name: str
    cost: FunctionCost
    rank: int  # 1: the hottest function of the whole program
    stale: bool  # the document's text differs from the source that was profiled


def run_argv(settings: ProfileSettings) -> list[str]:
    """The program to profile, from the ``run_command`` setting (a shell-like line)."""
    if not settings.run_command.strip():
        raise ProfileError("no run command: set perfpilot.profile.runCommand (or "
                           "[profile] run_command in .perfpilot.toml) to the command that "
                           "runs your program")
    try:
        return shlex.split(settings.run_command)
    except ValueError as exc:
        raise ProfileError(f"the run command cannot be read: {exc}") from exc


async def profile_workspace(settings: ProfileSettings, root: Path, ctx: JobContext) -> Profile:
    """Build with the build command, then profile the run command, in the configured folder."""
    argv = run_argv(settings)
    cwd = (root / settings.cwd).resolve() if settings.cwd else root.resolve()
    if not cwd.is_dir():
        raise ProfileError(f"the working directory {cwd} does not exist")
    wanted: Profiler = "perf" if settings.profiler == "perf" else (
        "callgrind" if settings.profiler == "callgrind" else "auto")
    return await profile_command(argv, cwd, build_command=settings.build_command,
                                 profiler=wanted, frequency=settings.frequency,
                                 timeout_s=settings.timeout_s, ctx=ctx)


def save_profile(profile: Profile, folder: Path) -> Path:
    """Write the profile as JSON in ``folder`` (the workspace's private folder)."""
    path = folder / PROFILE_FILE
    path.write_text(json.dumps(profile.to_json()), encoding="utf-8")
    return path


def load_profile(folder: Path) -> Profile | None:
    """The profile saved in ``folder``, if there is a readable one."""
    try:
        return Profile.from_json(json.loads((folder / PROFILE_FILE).read_text(encoding="utf-8")))
    except (OSError, ValueError, KeyError, TypeError):
        return None


_PARAMS = re.compile(r"\(.*\)\s*(const)?\s*$")


def _plain_name(name: str) -> str:
    """``ns::Type::method(int) const`` -> ``method``: the identifier the source declares."""
    bare = _PARAMS.sub("", name).strip()
    return re.split(r"::", bare)[-1].split("<")[0].strip()


def _same_file(a: str, b: Path) -> bool:
    try:
        return Path(a).resolve() == b.resolve()
    except OSError:
        return False


# A function with this much of the run under it is the program's entry (main, a driver):
# "100% with callees" points at nothing to rewrite.
_WHOLE_RUN = 0.95
# Callees take this much more than the function itself: it is hot through them.
_THROUGH_CALLEES = 0.05


def lens_candidates(profile: Profile, count: int, min_share: float) -> tuple[FunctionCost, ...]:
    """The ``count`` functions of the program's own sources (files on this machine, which
    the profile stamped) that deserve a lens, hottest first: by self share (at least
    ``min_share``), or by share with callees for a function hot through its callees (a loop
    calling ``pow`` spends its time in libm, whose code is not the user's). Library code and
    the program's entry (nearly the whole run under it) are left out."""
    own = {s.path for s in profile.sources}
    picked = [f for f in profile.functions if f.file in own and lead_share(f) >= min_share
              and not implementation_name(f.name)]
    picked.sort(key=lambda f: (-lead_share(f), -f.self_share, f.name))
    return tuple(picked[:count])


def implementation_name(name: str) -> bool:
    """Whether ``name`` belongs to the compiler's or the standard library's code: in ``std``,
    or with a part of its qualified name reserved to the implementation (``__x``, ``_X``).
    An inlined library template can carry a project file's line, so the file alone does not
    make a function the user's."""
    bare = re.sub(r"[<(].*", "", name.strip())  # template arguments, parameters, what follows
    parts = [p for p in bare.split("::") if p]
    return bool(parts) and (parts[0] == "std" or any(
        re.match(r"_[_A-Z]", p.strip()) for p in parts))


def hot_through_callees(f: FunctionCost) -> bool:
    """Whether ``f`` is hot through what it calls (a loop calling ``pow``) rather than in its
    own code; never the program's entry (nearly the whole run under it, or ``main``)."""
    # main is the program's entry by definition: its callees are the program, however
    # much of the run the profiler puts outside it (start-up, the loader, the kernel).
    return f.inclusive_share - f.self_share >= _THROUGH_CALLEES \
        and f.inclusive_share < _WHOLE_RUN and _plain_name(f.name) != "main"


def lead_share(f: FunctionCost) -> float:
    """The share a function is ranked and named by: with its callees when it is hot through
    them, else its own."""
    return max(f.self_share, f.inclusive_share if hot_through_callees(f) else 0.0)


def _short_name(name: str, limit: int = 60) -> str:
    """A function name that fits a table cell or a message: template arguments elided."""
    name = name.replace("`", "")
    return name if len(name) <= limit else name[:limit - 1].rstrip() + "…"


def headline(profile: Profile) -> str | None:
    """What a finished profile says first: the hottest of the program's own functions, by
    its share with callees when it is hot through them (``third_moment: 87% of the run with
    its callees``); None when no function of the program's sources was sampled."""
    own = lens_candidates(profile, 1, 0.0)
    if not own:
        return None
    f = own[0]
    if hot_through_callees(f):
        return (f"{_short_name(f.name)}: {f.inclusive_share:.0%} of the run with its callees "
                f"({f.self_share:.1%} in its own code)")
    return f"{_short_name(f.name)}: {f.self_share:.0%} of the run"


def hot_spots(profile: Profile, path: Path, text: str, outline: Sequence[FunctionSite],
              count: int, min_share: float) -> list[HotSpot]:
    """The program's ``count`` hottest functions (self share at least ``min_share``) that are
    defined in this document, matched to its functions.

    A profiled function matches the document's function that holds its first line and has its
    name; when the document changed since the profile, lines may have moved, so the name alone
    (in the same file) decides and the spot is marked stale.
    """
    hottest = lens_candidates(profile, count, min_share)
    stamps = {s.path: s.sha256 for s in profile.sources}
    spots: list[HotSpot] = []
    for rank, cost in enumerate(hottest, 1):
        if not _same_file(cost.file, path):
            continue
        stamp = next((v for k, v in stamps.items() if _same_file(k, path)), "")
        stale = not stamp or stamp != text_digest(text)
        wanted = _plain_name(cost.name)
        named = [s for s in outline if s.name == wanted]
        at_line = [s for s in named if s.start_line <= cost.first_line - 1 <= s.end_line]
        pick = at_line or (named if len(named) == 1 else [])
        if pick:
            spots.append(HotSpot(pick[0].qualified_name, cost, rank, stale))
    return spots


def lens_text(spot: HotSpot) -> str:
    """``34% of run time`` (with a stale mark when the source changed since the profile)."""
    share = spot.cost.self_share
    own = f"{share:.0%}" if share >= 0.01 else f"{share:.1%}"
    if hot_through_callees(spot.cost):
        # Hot through its callees: the share with them leads, its own code's after.
        text = f"{spot.cost.inclusive_share:.0%} of run time with callees ({own} itself)"
    else:
        text = f"{own} of run time"
        if spot.cost.inclusive_share - share >= _THROUGH_CALLEES:
            text += f" ({spot.cost.inclusive_share:.0%} with callees)"
    return text + (" · profile is stale" if spot.stale else "")


def hover_text(spot: HotSpot, profile: Profile) -> str:
    """Markdown for the hover: the shares, where they come from, and staleness."""
    c = spot.cost
    what = escape_md(shlex.join(profile.command)) if profile.command else "an imported profile"
    lines = [f"**Profile** ({escape_md(profile.tool)}, {escape_md(profile.event)}): "
             f"{c.self_share:.1%} of run time in this function itself, "
             f"{c.inclusive_share:.1%} with its callees; #{spot.rank} of the program "
             f"({what})."]
    if spot.stale:
        lines.append("_The source changed since this profile was taken; profile again to "
                     "update the shares._")
    return "\n\n".join(lines)


def profile_markdown(profile: Profile, count: int = 20) -> str:
    """The hot functions by self share, with files and lines: the profile view."""
    what = escape_md(shlex.join(profile.command)) if profile.command else "imported profile"
    head = ["| self | with callees | function | where |", "|---:|---:|---|---|"]

    def row(f: FunctionCost) -> str:
        where = f"{escape_md(Path(f.file).name)}:{f.first_line}–{f.last_line}"
        return (f"| {f.self_share:.1%} | {f.inclusive_share:.1%} | `{_short_name(f.name)}` "
                f"| {where} |")

    # The program's own functions lead (by the share they are hot with); library and system
    # code follows, where the time their callers spend in it shows.
    own = lens_candidates(profile, count, 0.0)
    others = [f for f in profile.hottest(count) if f not in own]
    rows = ["### Your functions", "", *head, *(row(f) for f in own)] if own else []
    if others:
        rows += ([""] if rows else []) + ["### Library and system code", "", *head,
                                          *(row(f) for f in others)]
    stale = profile.stale_files()
    notes = [escape_md(n) for n in profile.notes]
    if stale:
        notes.append("changed since the profile: "
                     + ", ".join(escape_md(Path(s).name) for s in stale))
    return "\n".join([f"## Profile of {what}", "",
                      f"{escape_md(profile.tool)}, {escape_md(profile.event)}", "", *rows,
                      *(["", *(f"- {n}" for n in notes)] if notes else [])])


class ProfileSlot:
    """The workspace's program-level state: the latest profile (set by a profiling run or an
    import, saved in the workspace's private folder, read back from there on first use after a
    restart) and the "Confirm in program" results per (uri, function). It also knows the
    running profile and confirmation jobs, by their progress tokens, so they can be cancelled."""

    def __init__(self) -> None:
        self.profile: Profile | None = None
        self.running: JobContext | None = None
        self.confirmations: dict[tuple[str, str], Confirmation] = {}
        self.confirming: set[tuple[str, str]] = set()
        self.jobs: dict[str, JobContext] = {}  # progress token -> a running profile or confirm
        self._loaded = False

    def cancel_running(self) -> bool:
        """Cancel the profile being taken; False when none is."""
        if self.running is None or self.running.is_cancelled:
            return False
        self.running.cancel()
        return True

    def cancel_job(self, token: str) -> bool:
        """Cancel the profile or confirmation job shown with the progress ``token``."""
        ctx = self.jobs.get(token)
        if ctx is None or ctx.is_cancelled:
            return False
        ctx.cancel()
        return True

    def current(self, folder: Path | None) -> Profile | None:
        """The latest profile (loading the saved one the first time)."""
        if self.profile is None and not self._loaded and folder is not None:
            self._loaded = True
            self.profile = load_profile(folder)
        return self.profile

    def replace(self, profile: Profile, folder: Path | None) -> None:
        """Keep ``profile`` as the latest, and save it when there is a workspace."""
        self.profile = profile
        self._loaded = True
        if folder is not None:
            # On failure the profile still shows; it only will not survive a restart.
            with contextlib.suppress(OSError):
                save_profile(profile, folder)
