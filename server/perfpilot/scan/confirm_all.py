"""``scan --confirm``: the project built with every verified rewrite of the combined patch at
once, its tests run, and the whole program timed against the original, as "Confirm in program"
does for one rewrite (``confirm/program.py``)."""

from __future__ import annotations

from pathlib import Path

from perfpilot.confirm.program import ProgramCommands, ProgramVerdict, confirm_in_program
from perfpilot.progress import JobContext
from perfpilot.runner.values import Tuning
from perfpilot.scan.patches import combined
from perfpilot.scan.run import ScanResult


async def confirm_together(scan: ScanResult, root: Path, commands: ProgramCommands, *,
                           pairs: int, timeout_s: float, ctx: JobContext,
                           tuning: Tuning | None = None) -> ProgramVerdict | None:
    """The program verdict of the combined rewrites; None when there is none to confirm."""
    together = combined(list(scan.results), root)
    if not together.files:
        return None
    (first, (before, after)), *rest = sorted(together.files.items())
    return await confirm_in_program(
        root, root / first, before, after, commands, pairs=pairs, timeout_s=timeout_s,
        ctx=ctx, tuning=tuning, more={Path(rel): text for rel, (_, text) in rest})
