"""Confirm an applied rewrite in the user's program: the engine's side of "Confirm in program".

The document's current text holds the rewrite; the original is the same text with the function
put back as it was. The figures are kept per function with the text they were measured for, so
a later edit makes them disappear rather than mislead.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from perfpilot.code.site import FunctionSite
from perfpilot.code.splice import splice
from perfpilot.confirm.program import ProgramCommands, ProgramVerdict, confirm_in_program
from perfpilot.progress import JobContext
from perfpilot.settings import ProfileSettings


@dataclass(frozen=True)
class Confirmation:
    """A program-level verdict and the function text it was measured with."""

    verdict: ProgramVerdict
    function_text: str


def can_confirm(settings: ProfileSettings) -> bool:
    """Whether the workspace says how to build and run its program."""
    return bool(settings.build_command.strip() and settings.run_command.strip())


async def confirm_rewrite(settings: ProfileSettings, root: Path, path: Path,
                          site: FunctionSite, original_function: str,
                          ctx: JobContext) -> Confirmation:
    """Build, test and time the program with the function as it is now against the original."""
    original_unit = splice(site, original_function)
    commands = ProgramCommands(build=settings.build_command, run=settings.run_command,
                               test=settings.test_command, cwd=settings.cwd)
    verdict = await confirm_in_program(root, path, original_unit, site.unit_text, commands,
                                       pairs=settings.confirm_pairs,
                                       timeout_s=settings.timeout_s, ctx=ctx)
    return Confirmation(verdict, site.text)


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
