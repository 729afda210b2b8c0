"""An optimizer backed by a language model: k samples, each checked before it is offered."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

from perfpilot.code.site import FunctionSite
from perfpilot.llm.base import Message, TextGenerator
from perfpilot.llm.cache import TextCache, cache_key
from perfpilot.llm.errors import ModelError, for_role
from perfpilot.progress import Cancelled, JobContext
from perfpilot.prompting.candidates import candidate_from_text
from perfpilot.prompting.context import unit_context
from perfpilot.prompting.prompts import direct_messages, optimizer_messages
from perfpilot.settings import RoleSettings
from perfpilot.strategy.plan_format import render_plan
from perfpilot.strategy.values import Candidate, OptimizeResult, Plan, Rejected

PROMPT_VERSION = 1


class ModelOptimizer:
    """``Optimizer`` that asks a model to rewrite a function, following the plan when it has
    strategies and directly otherwise.

    ``role.samples`` completions are requested (one when the temperature is 0, since greedy
    samples are identical). Each must be exactly one function with the same name and a
    compatible signature; others, and duplicates, are returned as ``Rejected`` with a reason.
    A remote role asks for each sample separately, at most ``role.concurrency`` at a time: a
    sample that fails (past its timeout, say) becomes a ``Rejected`` and the others are kept;
    only when every sample fails does the error reach the caller. Answers are cached by
    function, context, backend, model, plan and sample count, when every sample came back.
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
        cached = self.cache.get(key)
        answers: list[tuple[int, str]]
        failed: list[Rejected] = []
        if cached is not None:
            answers = list(enumerate(cached))
        else:
            messages = (optimizer_messages(site, plan, context) if follow
                        else direct_messages(site, context))
            ctx.report("generating", f"asking {self.name}", None)
            if self.client.backend == "remote" and samples > 1 and self.role.temperature > 0:
                answers, failed = await self._one_by_one(messages, samples, ctx)
            else:
                try:
                    texts = await self.client.generate(
                        messages, n=samples, max_tokens=self.role.max_tokens,
                        temperature=self.role.temperature, stop=[], ctx=ctx)
                except ModelError as exc:
                    raise for_role(exc, "optimizer") from exc
                answers = list(enumerate(texts))
            if not failed:
                self.cache.put(key, tuple(text for _i, text in answers))
        candidates: list[Candidate] = []
        rejected: list[Rejected] = []
        seen: dict[str, int] = {}
        rejected.extend(failed)
        for index, text in answers:
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
        return OptimizeResult(tuple(candidates), tuple(rejected), complete=not failed)

    async def _one_by_one(self, messages: Sequence[Message], samples: int, ctx: JobContext
                          ) -> tuple[list[tuple[int, str]], list[Rejected]]:
        """Each sample as its own request, ``role.concurrency`` at a time; failures kept
        apart so that one slow sample does not discard the finished ones."""
        gate = asyncio.Semaphore(max(1, self.role.concurrency))

        async def one(index: int) -> list[str]:
            async with gate:
                ctx.check()
                return await self.client.generate(
                    messages, n=1, max_tokens=self.role.max_tokens,
                    temperature=self.role.temperature, stop=[], ctx=ctx)

        results = await asyncio.gather(*(one(i) for i in range(samples)),
                                       return_exceptions=True)
        answers: list[tuple[int, str]] = []
        failed: list[Rejected] = []
        errors: list[ModelError] = []
        for index, result in enumerate(results):
            if isinstance(result, Cancelled | asyncio.CancelledError):
                raise Cancelled()
            if isinstance(result, ModelError):
                errors.append(result)
                failed.append(Rejected(self.client.backend,
                                       f"sample {index + 1} failed: {result}", index))
            elif isinstance(result, BaseException):
                raise result
            elif result:
                answers.append((index, result[0]))
        if errors and not answers:
            raise for_role(errors[0], "optimizer") from errors[0]
        return answers, failed
