"""Confirm a rewrite in the user's program: the engine's side of "Confirm in program".

After the rewrite is applied, the document's current text holds it; the original is the same
text with the function put back as it was. Before it is applied (apply mode ``preview`` or
``ask``: the editor still shows the original), the document's text is the original and the
rewrite is spliced into the copy that is built, so the program can be timed before the user
accepts. The figures are kept per function with the rewritten function's text they were
measured for, so a later edit makes them disappear rather than mislead.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from perfpilot.code.site import FunctionSite
from perfpilot.code.splice import splice
from perfpilot.confirm.program import ProgramCommands, ProgramVerdict, confirm_in_program
from perfpilot.engine.session import FunctionRecord
from perfpilot.progress import JobContext
from perfpilot.settings import ProfileSettings
from perfpilot.strategy.values import Candidate


@dataclass(frozen=True)
class Confirmation:
    """A program-level verdict and the rewritten function's text it was measured with."""

    verdict: ProgramVerdict
    function_text: str


def pending_rewrite(rec: FunctionRecord, site: FunctionSite) -> Candidate | None:
    """The chosen rewrite of a function that is not applied yet (the user is reviewing it in a
    preview, or was asked), while the function's text is still the one it was made for."""
    chosen = rec.outcome.chosen
    if rec.applied or chosen is None or site.text.strip() != rec.original_text.strip():
        return None
    return chosen.candidate


def measured_text(rec: FunctionRecord, site: FunctionSite) -> str | None:
    """The rewritten function's text a confirmation of this record measures: the applied text
    as it is now, or the pending rewrite's; None when there is nothing to confirm."""
    if rec.applied:
        return site.text
    pending = pending_rewrite(rec, site)
    return pending.code if pending is not None else None


def can_confirm(settings: ProfileSettings) -> bool:
    """Whether the workspace says how to build and run its program."""
    return bool(settings.build_command.strip() and settings.run_command.strip())


async def confirm_rewrite(settings: ProfileSettings, root: Path, path: Path,
                          site: FunctionSite, original_function: str,
                          ctx: JobContext) -> Confirmation:
    """Build, test and time the program with the function as it is now against the original."""
    original_unit = splice(site, original_function)
    verdict = await confirm_in_program(root, path, original_unit, site.unit_text,
                                       _commands(settings),
                                       pairs=settings.confirm_pairs,
                                       timeout_s=settings.timeout_s, ctx=ctx)
    return Confirmation(verdict, site.text)


async def confirm_pending(settings: ProfileSettings, root: Path, path: Path,
                          site: FunctionSite, code: str, includes: Sequence[str],
                          ctx: JobContext) -> Confirmation:
    """Before the rewrite ``code`` is applied: the document's text (``site``) is the original,
    and the rewrite, with the headers it needs, goes only into the copy that is built."""
    rewritten_unit = splice(site, code, includes)
    verdict = await confirm_in_program(root, path, site.unit_text, rewritten_unit,
                                       _commands(settings), pairs=settings.confirm_pairs,
                                       timeout_s=settings.timeout_s, ctx=ctx)
    return Confirmation(verdict, code)


def _commands(settings: ProfileSettings) -> ProgramCommands:
    return ProgramCommands(build=settings.build_command, run=settings.run_command,
                           test=settings.test_command, cwd=settings.cwd)


def program_lens_text(v: ProgramVerdict) -> str:
    """The lens beside the function's own figure: ``program: 1.12× faster (95% CI 1.05–1.20)``."""
    if v.speedup is not None and v.ci95 is not None:
        word = {"faster": "faster", "slower": "slower", "no-change": "no change",
                "noisy": "noisy"}.get(v.verdict, v.verdict)
        return (f"program: {v.speedup:.2f}× {word} "
                f"(95% CI {v.ci95[0]:.2f}–{v.ci95[1]:.2f})")
    return {"test-failed": "program: tests fail with this rewrite",
            "build-failed": "program: build failed",
            "run-failed": "program: run failed"}.get(v.verdict, f"program: {v.verdict}")
