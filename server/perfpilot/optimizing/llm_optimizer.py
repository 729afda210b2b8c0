"""An optimizer backed by a language model: k samples, each checked before it is offered."""

from __future__ import annotations

from perfpilot.code.site import FunctionSite
from perfpilot.engine.settings import RoleSettings
from perfpilot.llm.base import TextGenerator
from perfpilot.llm.cache import TextCache, cache_key
from perfpilot.llm.candidates import candidate_from_text
from perfpilot.llm.context import unit_context
from perfpilot.llm.prompts import direct_messages, optimizer_messages
from perfpilot.optimizing.base import OptimizeResult, Rejected
from perfpilot.progress import JobContext
from perfpilot.strategy.plan_format import render_plan
from perfpilot.strategy.values import Candidate, Plan

PROMPT_VERSION = 1


class ModelOptimizer:
    """``Optimizer`` that asks a model to rewrite a function, following the plan when it has
    strategies and directly otherwise.

    ``role.samples`` completions are requested (one when the temperature is 0, since greedy
    samples are identical). Each must be exactly one function with the same name and a
    compatible signature; others, and duplicates, are returned as ``Rejected`` with a reason.
    Answers are cached by function, context, backend, model, plan and sample count.
    """

    def __init__(self, role: RoleSettings, client: TextGenerator, *,
                 context_tokens: int = 1500, cache: TextCache | None = None) -> None:
        self.role = role
        self.client = client
        self.context_tokens = context_tokens
        self.cache = cache if cache is not None else TextCache()
        self.name = f"{client.backend}:{role.model}" if role.model else client.backend

    async def optimize(self, site: FunctionSite, plan: Plan, ctx: JobContext) -> OptimizeResult:
        """Generate, check and return candidates for ``site``."""
        ctx.check()
        context = unit_context(site, self.context_tokens)
        follow = bool(plan.strategies)
        plan_text = render_plan(plan) if follow else ""
        samples = max(1, self.role.samples)
        key = cache_key("optimize", PROMPT_VERSION, site.text, context, self.client.backend,
                        self.role.model, plan_text, samples, self.role.temperature,
                        self.role.max_tokens)
        texts = self.cache.get(key)
        if texts is None:
            messages = (optimizer_messages(site, plan, context) if follow
                        else direct_messages(site, context))
            ctx.report("generating", f"asking {self.name}", None)
            texts = tuple(await self.client.generate(
                messages, n=samples, max_tokens=self.role.max_tokens,
                temperature=self.role.temperature, stop=[], ctx=ctx))
            self.cache.put(key, texts)
        candidates: list[Candidate] = []
        rejected: list[Rejected] = []
        seen: dict[str, int] = {}
        for index, text in enumerate(texts):
            result = candidate_from_text(site, text, plan.strategies, self.client.backend,
                                         index, self.role.model)
            if isinstance(result, Rejected):
                rejected.append(result)
                continue
            fingerprint = "".join(result.code.split())
            if fingerprint in seen:
                rejected.append(Rejected(self.client.backend,
                                         f"same code as sample {seen[fingerprint]}", index,
                                         result.code))
                continue
            seen[fingerprint] = index
            candidates.append(result)
        return OptimizeResult(tuple(candidates), tuple(rejected))
