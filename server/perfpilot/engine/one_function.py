"""One function of a file through the whole pipeline: what ``optimize --bench`` and ``scan`` share.

Both commands plan, rewrite, verify and measure a function the same way: the engine's
``optimize`` with the file itself as the source (its compile flags, bench spec and stdin
inputs are resolved from it, see ``Engine.measurement_inputs``), and the engine's verdict
cache (``fresh`` measures again).
"""

from __future__ import annotations

from pathlib import Path

from perfpilot.code.site import FunctionSite
from perfpilot.engine.engine import Engine
from perfpilot.engine.outcome import Outcome
from perfpilot.progress import JobContext


async def optimize_in_file(engine: Engine, site: FunctionSite, path: Path, root: Path,
                           ctx: JobContext, *, measure: bool = True, spec: Path | None = None,
                           fresh: bool = False) -> Outcome:
    """Plan, rewrite and (when ``measure``) verify and time ``site``, a function of ``path``
    in the workspace ``root``."""
    return await engine.optimize(site, ctx, measure=measure, source_path=path.resolve(),
                                 spec=spec, fresh=fresh)
