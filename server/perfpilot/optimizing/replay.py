"""The ``replay`` optimizer: answers written beforehand, read from a folder, so the model path
(extraction, checks, policy, runner, repair rounds, the choice) can be measured without a model.

In the folder (``optimizer.answers``), for the function named ``f``:

- ``f.md`` is the first answer, ``f.2.md``, ``f.3.md``, ... further samples (all that exist,
  in order);
- ``f.repair1.md``, ``f.repair2.md``, ... the answers to repair rounds 1, 2, ...

A method ``Class::method`` may also be spelled ``Class__method.md`` (any qualification, with
``::`` written ``__``). An answer is text as a model writes it: prose, optionally a
``[SUGG/]`` plan, fenced blocks, helpers beside the function. A missing first answer is an
outcome ("no replayed answer"), never an error; a missing repair answer ends the repairs.
"""

from __future__ import annotations

import asyncio
from dataclasses import replace
from pathlib import Path

from perfpilot.code.site import FunctionSite
from perfpilot.optimizing.llm_optimizer import result_from_answers
from perfpilot.progress import JobContext
from perfpilot.regular_files import FileReadError, read_regular_file
from perfpilot.runner.values import Verdict
from perfpilot.settings import RoleSettings
from perfpilot.strategy.values import Candidate, OptimizeResult, Plan, Rejected

BACKEND = "replay"
MAX_ANSWER_BYTES = 1_000_000
MAX_SAMPLES = 64


def answer_stems(site: FunctionSite) -> list[str]:
    """The file names (without ``.md``) an answer for ``site`` may have, most specific first:
    the qualified name with ``::`` as ``__``, the class and method, the plain name."""
    parts = [p.strip() for p in site.qualified_name.split("::") if p.strip()]
    stems = ["__".join(parts), "__".join(parts[-2:]), site.name]
    return [s for s in dict.fromkeys(stems) if s and "/" not in s and not s.startswith(".")]


def _unplanned(plan: Plan) -> Plan:
    """A replayed answer was not written to this plan: it carries its own plan's strategies
    (a ``[SUGG/]`` block in the answer), or none."""
    return replace(plan, strategies=())


class ReplayOptimizer:
    """``Optimizer`` whose answers are files in ``role.answers`` (see the module)."""

    def __init__(self, role: RoleSettings, folder: Path) -> None:
        self.role = role
        self.folder = folder
        self.name = f"{BACKEND}:{folder.name or folder}"

    def _read(self, stem: str, suffix: str) -> str | None:
        path = self.folder / f"{stem}{suffix}.md"
        if not path.is_file():
            return None
        try:
            return read_regular_file(path.resolve(), MAX_ANSWER_BYTES).decode("utf-8", "replace")
        except FileReadError:
            return None

    def _answer(self, site: FunctionSite, suffix: str) -> str | None:
        for stem in answer_stems(site):
            text = self._read(stem, suffix)
            if text is not None:
                return text
        return None

    async def optimize(self, site: FunctionSite, plan: Plan, ctx: JobContext) -> OptimizeResult:
        """Every replayed sample for ``site``, checked like a model's answers."""
        ctx.check()
        ctx.report("generating", f"replaying answers from {self.folder}", None)
        first = await asyncio.to_thread(self._answer, site, "")
        if first is None:
            files = " or ".join(f"{s}.md" for s in answer_stems(site))
            return OptimizeResult((), (Rejected(
                BACKEND, f"no replayed answer for `{site.name}` (no {files} in "
                         f"{self.folder})"),))
        answers = [(0, first)]
        for k in range(2, MAX_SAMPLES + 1):
            more = await asyncio.to_thread(self._answer, site, f".{k}")
            if more is None:
                break
            answers.append((k - 1, more))
        return result_from_answers(site, answers, _unplanned(plan), BACKEND)

    async def repair(self, site: FunctionSite, plan: Plan, candidate: Candidate,
                     verdict: Verdict, round_: int, ctx: JobContext) -> OptimizeResult:
        """The replayed answer to repair round ``round_`` (nothing when there is none)."""
        ctx.check()
        text = await asyncio.to_thread(self._answer, site, f".repair{round_}")
        if text is None:
            return OptimizeResult(())
        ctx.report("generating", f"repair round {round_}: replaying {site.name}", None)
        return result_from_answers(site, [(candidate.sample, text)], _unplanned(plan),
                                   BACKEND, round_=round_)
