"""An optimizer backed by a language model: k samples, each checked before it is offered, and
repair rounds for a candidate the runner turned down."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import replace

from perfpilot.code.site import FunctionSite
from perfpilot.llm.base import Message, TextGenerator
from perfpilot.llm.cache import TextCache, cache_key
from perfpilot.llm.errors import ModelError, for_role
from perfpilot.optimizing.formatting import format_candidate
from perfpilot.progress import Cancelled, JobContext
from perfpilot.prompting.candidates import candidate_from_text
from perfpilot.prompting.context import unit_context
from perfpilot.prompting.prompts import direct_messages, optimizer_messages
from perfpilot.prompting.repair import repair_messages
from perfpilot.runner.values import Verdict
from perfpilot.settings import RoleSettings
from perfpilot.strategy.plan_format import parse_output, render_plan
from perfpilot.strategy.values import Candidate, OptimizeResult, Plan, Rejected

PROMPT_VERSION = 2


def result_from_answers(site: FunctionSite, answers: Sequence[tuple[int, str]], plan: Plan,
                        backend: str, model: str = "", *, round_: int = 0,
                        failed: Sequence[Rejected] = (), complete: bool = True
                        ) -> OptimizeResult:
    """Candidates from a model's answers (``(sample, text)`` pairs), each checked; answers
    that cannot be used, and repeats of an earlier sample, are ``Rejected`` with the reason.

    A candidate carries the strategies of the plan in its own answer, else ``plan``'s."""
    candidates: list[Candidate] = []
    rejected: list[Rejected] = list(failed)
    seen: dict[str, int] = {}
    for index, text in answers:
        own = parse_output(text).strategies
        result = candidate_from_text(site, text, own or plan.strategies, backend, index, model,
                                     round_=round_)
        if isinstance(result, Rejected):
            rejected.append(result)
            continue
        # the lines it changed in the file's style (its formatting, never its logic)
        result = replace(result, code=format_candidate(site, result.code))
        fingerprint = "".join(result.code.split()) + "|" + ",".join(sorted(result.includes))
        if fingerprint in seen:
            rejected.append(Rejected(backend, f"same code as sample {seen[fingerprint]}", index,
                                     result.code, text, round_))
            continue
        seen[fingerprint] = index
        candidates.append(result)
    return OptimizeResult(tuple(candidates), tuple(rejected), complete=complete)


class ModelOptimizer:
    """``Optimizer`` that asks a model to rewrite a function, following the plan when it has
    strategies and directly otherwise.

    ``role.samples`` completions are requested (one when the temperature is 0, since greedy
    samples are identical). Each must define the function with the same name and a compatible
    signature, with any helpers beside it (``prompting/candidates.py``); others, and
    duplicates, are returned as ``Rejected`` with a reason. A remote role asks for each sample
    separately, at most ``role.concurrency`` at a time: a sample that fails (past its timeout,
    say) becomes a ``Rejected`` and the others are kept; only when every sample fails does the
    error reach the caller. Answers are cached by function, context, backend, model, plan and
    sample count, when every sample came back.

    ``repair`` sends a candidate back with the runner's verdict and asks for a corrected
    version (one answer per round).
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
                answers = list(enumerate(await self._generate(messages, samples, ctx)))
            if not failed:
                self.cache.put(key, tuple(text for _i, text in answers))
        return result_from_answers(site, answers, plan, self.client.backend, self.role.model,
                                   failed=failed, complete=not failed)

    async def repair(self, site: FunctionSite, plan: Plan, candidate: Candidate,
                     verdict: Verdict, round_: int, ctx: JobContext) -> OptimizeResult:
        """Round ``round_``: ``candidate`` and the runner's ``verdict`` on it go back to the
        model, which answers with a corrected version (checked like any answer)."""
        ctx.check()
        context = unit_context(site, self.context_tokens)
        messages = repair_messages(site, context, candidate, verdict, round_)
        key = cache_key("repair", PROMPT_VERSION, self.client.backend, self.role.model,
                        [dict(m) for m in messages], self.role.temperature,
                        self.role.max_tokens)
        cached = self.cache.get(key)
        if cached is None:
            ctx.report("generating", f"repair round {round_}: asking {self.name}", None)
            cached = tuple((await self._generate(messages, 1, ctx))[:1])
            self.cache.put(key, cached)
        return result_from_answers(site, [(candidate.sample, t) for t in cached], plan,
                                   self.client.backend, self.role.model, round_=round_)

    async def _generate(self, messages: Sequence[Message], n: int, ctx: JobContext
                        ) -> list[str]:
        try:
            return await self.client.generate(
                messages, n=n, max_tokens=self.role.max_tokens,
                temperature=self.role.temperature, stop=[], ctx=ctx)
        except ModelError as exc:
            raise for_role(exc, "optimizer") from exc

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
