"""The GRPO reward: the runner's measurement of the code a frozen optimizer writes from a plan.

The planner's completion is parsed as a plan; the builtin rewriter, restricted to the rules of
the planned categories, writes the candidate; the runner verifies and times it. The reward is
``log(speedup)`` of a strongly verified, timed verdict; incorrect, failed and timed-out
candidates get a fixed penalty, as does one stopped for running far slower than the original;
noisy, suspicious, weakly verified or unvalidated ones are skipped (None: trl leaves them out
of the advantage), so no unproven figure ever becomes a reward. A function the harness cannot
feed (``needs-spec``) says nothing of the candidate: unscorable, skipped too. Results are
cached per (unit, candidate) for the life of the reward object.
"""

from __future__ import annotations

import asyncio
import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from perfpilot.code.locate import function_by_name
from perfpilot.code.site import FunctionSite
from perfpilot.optimizing.builtin.optimizer import BuiltinOptimizer
from perfpilot.optimizing.builtin.strategies import planned_rules
from perfpilot.progress import JobContext
from perfpilot.runner.gate import MeasureGate
from perfpilot.runner.measure import verify_and_measure
from perfpilot.runner.values import Tuning, Verdict
from perfpilot.settings import RunnerSettings
from perfpilot.strategy.plan_format import parse_plan

PENALTY = -1.0  # incorrect, build-failed, timeout: a fixed figure, not a measurement
PENALISED = ("incorrect", "build-failed", "timeout")
UNSCORABLE = ("needs-spec",)  # the inputs failed, not the candidate


def reward_of(verdict: Verdict) -> float | None:
    """The reward a verdict earns, or None when it proved nothing (skipped)."""
    if verdict.verdict in UNSCORABLE:
        return None
    if verdict.verdict in PENALISED or (verdict.verdict == "slower" and verdict.speedup is None
                                        and verdict.validation_status == "passed"):
        return PENALTY
    weak = verdict.verification is not None and verdict.verification.weak
    if verdict.verdict not in ("faster", "slower", "no-change") or weak \
            or verdict.validation_status != "passed" or verdict.speedup is None \
            or verdict.speedup <= 0:
        return None
    if verdict.verdict == "no-change":
        return 0.0
    return math.log(verdict.speedup)


@dataclass
class RuntimeReward:
    """A trl reward function (``__call__(prompts, completions, unit=..., name=...)``)."""

    settings: RunnerSettings = field(default_factory=lambda: RunnerSettings(callgrind=False))
    tuning: Tuning = field(default_factory=Tuning)
    verdicts: dict[tuple[str, str], Verdict] = field(default_factory=dict)
    log: list[dict[str, Any]] = field(default_factory=list)
    __name__: str = "runtime_reward"

    def __call__(self, prompts: Sequence[Any], completions: Sequence[Any], **columns: Any
                 ) -> list[float | None]:
        units = columns["unit"]
        names = columns["name"]
        texts = [c[-1]["content"] if isinstance(c, list) else str(c) for c in completions]
        return asyncio.run(self._all(list(units), list(names), texts))

    async def _all(self, units: list[str], names: list[str], texts: list[str]
                   ) -> list[float | None]:
        gate = MeasureGate()
        results = await asyncio.gather(*(self.one(u, n, t, gate)
                                         for u, n, t in zip(units, names, texts, strict=True)))
        return list(results)

    async def one(self, unit: str, name: str, text: str, gate: MeasureGate | None = None
                  ) -> float | None:
        """The reward of one completion for the function ``name`` in ``unit``."""
        site = function_by_name(unit, "cpp", name)
        plan = parse_plan(text, "planner")
        rules = planned_rules(plan)
        entry: dict[str, Any] = {"name": name, "categories": [s.category.name
                                                              for s in plan.strategies]}
        if not rules:
            entry["outcome"] = "no-rule"
            self.log.append(entry)
            return 0.0  # nothing the optimizer may do: the original is kept
        # Variants are the engine's race; the reward measures each rewrite once, in full.
        result = await BuiltinOptimizer(variants=False).optimize(site, plan, JobContext())
        if not result.candidates:
            entry["outcome"] = "no-candidate"
            self.log.append(entry)
            return 0.0
        best: float | None = None
        for cand in result.candidates:
            verdict = await self._measure(site, cand.code, cand.includes, gate)
            value = reward_of(verdict)
            entry.setdefault("verdicts", []).append(verdict.verdict)
            if value is not None and (best is None or value > best):
                best = value
        entry["reward"] = best
        self.log.append(entry)
        return best

    async def _measure(self, site: FunctionSite, code: str, includes: tuple[str, ...],
                       gate: MeasureGate | None) -> Verdict:
        key = (site.unit_text, code)
        if key not in self.verdicts:
            self.verdicts[key] = await verify_and_measure(
                site, code, self.settings, JobContext(), tuning=self.tuning,
                gate=gate, includes=includes)
        return self.verdicts[key]


def grpo_rows(tasks: Sequence[Any]) -> list[dict[str, Any]]:
    """GRPO prompts from corpus tasks, with the unit and name the reward needs."""
    from perfpilot.training.examples import prompt

    return [{"prompt": prompt(t.site()), "unit": t.unit, "name": t.name} for t in tasks]
