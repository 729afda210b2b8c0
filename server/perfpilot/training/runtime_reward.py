"""The GRPO reward: the runner's measurement of the code a frozen optimizer writes from a plan.

As in PerfCoder, the planner is trained and the optimizer is frozen. The optimizer is built by
the engine's factory from role settings, as in the editor: a model (``local``, ``remote``, or
another backend the engine knows) that reads the planner's plan, explanations included, or the
builtin rewriter restricted to the planned categories. The engine makes the candidates, the
runner verifies and times each, and the engine's own choice decides the reward: the reward is
the log speedup of the candidate the engine would apply, not the best of all of them.

Shaping (``RewardShape``): a plan that parses into 1 to 4 strategies earns a small format
bonus; text with no plan is garbage and earns a penalty; a plan with more strategies than the
cap is cut to the cap and penalised; with the builtin rewriter, each strategy that yields no
candidate costs a little (naming every category is no longer free); each candidate that is
incorrect, fails to build, times out or is stopped for running far slower than the
original costs its share of the failure penalty. A sample whose
outcome rests on an unproven measurement (noisy, weakly verified, suspicious, unvalidated, or a
function the harness cannot feed) gets no reward at all (None: trl leaves it out of the group's
advantage), so no unproven figure ever becomes a reward.

Measuring runs on one persistent event loop on a worker thread (the engine's model clients and
measuring gate live there); under ``accelerate launch`` rank 0 measures for every rank
(``measure_pool``).
"""

from __future__ import annotations

import asyncio
import contextlib
import math
import threading
from collections.abc import Awaitable, Callable, Coroutine, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, TypeVar

from perfpilot.code.locate import function_by_name
from perfpilot.code.site import FunctionSite
from perfpilot.engine.engine import Engine, choose, origin_of
from perfpilot.engine.outcome import Trial
from perfpilot.engine.records import Measured, append, record_json
from perfpilot.progress import JobContext
from perfpilot.runner.values import Tuning, Verdict
from perfpilot.settings import RecordSettings, RoleSettings, RunnerSettings, Settings
from perfpilot.strategy.plan_format import parse_plan
from perfpilot.strategy.values import Candidate, Plan
from perfpilot.training.measure_pool import pooled

T = TypeVar("T")
PENALTY = -1.0  # incorrect, build-failed, timeout: a fixed figure, not a measurement
PENALISED = ("incorrect", "build-failed", "timeout")
Measure = Callable[[FunctionSite, Candidate], Awaitable[Verdict]]


@dataclass(frozen=True)
class RewardShape:
    """The fixed terms added to the measured log speedup."""

    format_bonus: float = 0.1  # a plan of 1..max_strategies known strategies
    garbage: float = -0.5  # no plan at all
    too_long: float = -0.2  # more strategies than the cap (instead of the bonus)
    idle_strategy: float = -0.1  # per strategy the builtin rewriter makes nothing of
    failure: float = PENALTY  # times the share of candidates that were wrong or failed
    max_strategies: int = 4


def reward_of(verdict: Verdict) -> float | None:
    """The value one verdict is worth, or None when it proved nothing (unscorable)."""
    if verdict.verdict in PENALISED or (verdict.verdict == "slower" and verdict.speedup is None
                                        and verdict.validation_status == "passed"):
        # (Stopped for running far slower than the original: no figure, but a clear loss.)
        return PENALTY
    weak = verdict.verification is not None and (verdict.verification.weak
                                                 or verdict.verification.blind)
    if verdict.verdict not in ("faster", "slower", "no-change") or weak or verdict.needs_spec \
            or verdict.validation_status != "passed" or verdict.speedup is None \
            or verdict.speedup <= 0:
        return None
    if verdict.verdict == "no-change":
        return 0.0
    return math.log(verdict.speedup)


def capped(plan: Plan, limit: int) -> Plan:
    """``plan`` with at most ``limit`` strategies (the first ones: a plan is ordered)."""
    return replace(plan, strategies=plan.strategies[:limit])


def _first_of_families(cands: Sequence[Candidate]) -> list[Candidate]:
    """One candidate per family of variants (the rewrite's own choice): the reward measures
    each rewrite once, in full, instead of racing its variants."""
    seen: set[str] = set()
    out: list[Candidate] = []
    for c in cands:
        if c.family and c.family in seen:
            continue
        seen.add(c.family)
        out.append(c)
    return out


@dataclass(frozen=True)
class Scored:
    """What one sampled plan earned, and why."""

    reward: float | None
    parts: dict[str, Any]


class RuntimeReward:
    """A trl reward function (``__call__(prompts, completions, unit=..., name=...)``).

    ``optimizer``: the frozen optimizer's role settings (the builtin rewriter by default);
    ``measure``: how a candidate is verified and timed (the engine's runner by default; tests
    give a stand-in); ``records``: a folder to append a training record of every measurement
    to (none by default).
    """

    __name__ = "runtime_reward"

    def __init__(self, optimizer: RoleSettings | None = None,
                 settings: RunnerSettings | None = None, tuning: Tuning | None = None,
                 shape: RewardShape | None = None, secrets: dict[str, str] | None = None,
                 records: Path | None = None, measure: Measure | None = None) -> None:
        self.role = optimizer or RoleSettings()
        self.shape = shape or RewardShape()
        self.records = records
        self.engine = Engine(Settings(optimizer=self.role,
                                      runner=settings or RunnerSettings(callgrind=False),
                                      records=RecordSettings(enabled=False)),
                             None, secrets=secrets, tuning=tuning or Tuning())
        self._measure = measure
        self.log: list[dict[str, Any]] = []
        self.verdicts: dict[tuple[str, str], Verdict] = {}
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None

    # -- trl's entry point ---------------------------------------------------------------
    def __call__(self, prompts: Sequence[Any], completions: Sequence[Any], **columns: Any
                 ) -> list[float | None]:
        texts = [c[-1]["content"] if isinstance(c, list) else str(c) for c in completions]
        items = list(zip(columns["unit"], columns["name"], texts, strict=True))
        return pooled(items, self.score_all)

    def score_all(self, items: list[tuple[str, str, str]]) -> list[float | None]:
        """Rewards of (unit, function name, completion text) items, measured together."""
        return [s.reward for s in self.details(items)]

    def details(self, items: list[tuple[str, str, str]]) -> list[Scored]:
        """What each (unit, function name, completion text) item earned, and why."""
        async def run() -> list[Scored]:
            return list(await asyncio.gather(*(self.score(u, n, t) for u, n, t in items)))
        return self._run(run())

    def run(self, coro: Coroutine[Any, Any, T]) -> T:
        """Run ``coro`` on the reward's own loop (where its engine lives) and wait for it."""
        return self._run(coro)

    def _run(self, coro: Coroutine[Any, Any, T]) -> T:
        if self._loop is None:
            loop = asyncio.new_event_loop()
            self._thread = threading.Thread(target=loop.run_forever, daemon=True,
                                            name="perfpilot-reward")
            self._thread.start()
            self._loop = loop
        return asyncio.run_coroutine_threadsafe(coro, self._loop).result()

    def close(self) -> None:
        """Release the optimizer's model clients and stop the worker loop."""
        if self._loop is None:
            return
        self._run(self.engine.close())
        self._loop.call_soon_threadsafe(self._loop.stop)
        if self._thread is not None:
            self._thread.join(timeout=10)
        self._loop.close()
        self._loop = None

    # -- one sample ----------------------------------------------------------------------
    async def score(self, unit: str, name: str, text: str) -> Scored:
        """The reward of one completion for the C++ function ``name`` in ``unit`` (on the
        reward's loop)."""
        return await self.score_site(function_by_name(unit, "cpp", name), text)

    async def score_site(self, site: FunctionSite, text: str, spec: Path | None = None,
                         source: Path | None = None) -> Scored:
        """The reward of one completion for ``site`` (``spec``: its bench spec, when the
        harness cannot feed it; ``source``: its file, for stdin inputs and flags)."""
        shape = self.shape
        plan = parse_plan(text, "planner")
        parts: dict[str, Any] = {"name": site.name,
                                 "categories": [s.category.name for s in plan.strategies]}
        if not plan.strategies:
            parts.update(outcome="garbage", format=shape.garbage)
            return self._done(Scored(shape.garbage, parts))
        too_long = len(plan.strategies) > shape.max_strategies
        plan = capped(plan, shape.max_strategies)
        fmt = shape.too_long if too_long else shape.format_bonus
        parts["format"] = fmt
        try:
            result = await self.engine.candidates(site, plan, JobContext())
        except Exception as exc:  # the frozen optimizer failed (an endpoint down, a limit)
            parts["outcome"] = f"optimizer failed: {exc}"
            return self._done(Scored(None, parts))  # not the planner's doing: unscorable
        cands = _first_of_families(result.candidates)
        idle = 0.0
        if self.role.backend == "builtin":
            used = {s.category.id for c in cands for s in c.strategies}
            lazy = [s.category.name for s in plan.strategies if s.category.id not in used]
            idle = shape.idle_strategy * len(lazy)
            parts["idle"] = lazy
        if not cands:
            parts["outcome"] = "no-candidate"
            return self._done(Scored(fmt + idle, parts))
        try:
            verdicts = list(await asyncio.gather(*(self._measured(site, c, spec, source)
                                                   for c in cands)))
        except Exception as exc:  # the runner could not run: nothing was proven
            parts["outcome"] = f"measurement failed: {exc}"
            return self._done(Scored(None, parts))
        trials = tuple(Trial(c, v) for c, v in zip(cands, verdicts, strict=True))
        self._keep(site, plan, trials)
        parts["verdicts"] = [v.verdict for v in verdicts]
        failed = sum(v.verdict in PENALISED for v in verdicts) / len(verdicts)
        outcome = choose(site, plan, trials, policy=self.engine.settings.parallel_policy)
        chosen = outcome.chosen
        measured: float | None
        if chosen is not None and chosen.verdict is not None:
            measured = reward_of(chosen.verdict)
            parts["chosen"] = outcome.best
            parts["speedup"] = chosen.verdict.speedup
        elif any(reward_of(v) is None for v in verdicts):
            measured = None  # an unproven result might have been the one applied
        else:
            measured = 0.0  # the engine keeps the original
        parts["outcome"] = outcome.status
        if measured is None:
            return self._done(Scored(None, parts))
        return self._done(Scored(fmt + idle + measured + shape.failure * failed, parts))

    def _done(self, scored: Scored) -> Scored:
        self.log.append({**scored.parts, "reward": scored.reward})
        return scored

    async def _measured(self, site: FunctionSite, cand: Candidate, spec: Path | None = None,
                        source: Path | None = None) -> Verdict:
        key = (site.unit_text + (f"\0{spec}" if spec else ""), cand.code)
        if key not in self.verdicts:
            if self._measure is not None:
                verdict = await self._measure(site, cand)
            else:
                verdict = await self.engine.measure(site, cand.code, JobContext(),
                                                    source_path=source, spec=spec,
                                                    includes=cand.includes,
                                                    origin=origin_of(cand))
            if verdict.verdict in ("noisy", "timeout"):
                return verdict  # worth measuring again when the plan comes back
            self.verdicts[key] = verdict
        return self.verdicts[key]

    def _keep(self, site: FunctionSite, plan: Plan, trials: tuple[Trial, ...]) -> None:
        if self.records is None:
            return
        rows = [record_json(Measured(site, t.candidate.code, t.verdict, plan,
                                     t.candidate.includes, origin_of(t.candidate),
                                     f"{self.role.backend}:{self.role.model}", "grpo"))
                for t in trials if t.verdict is not None]
        with contextlib.suppress(OSError):  # a record is never worth a failed step
            append(self.records, rows)


def grpo_rows(tasks: Sequence[Any]) -> list[dict[str, Any]]:
    """GRPO prompts from corpus tasks, with the unit and name the reward needs."""
    from perfpilot.training.examples import prompt

    return [{"prompt": prompt(t.site()), "unit": t.unit, "name": t.name} for t in tasks]
