"""A planner backed by a language model (local worker or remote endpoint).

The model writes a ``[SUGG/]`` plan and, unless the planner is in plan-only mode, the optimized
function in ``[OPT/]``. That code is not thrown away: ``last_code_for(site)`` returns it, checked,
as an ``OptimizeResult`` the engine can measure beside (or instead of) the optimizer's output.

In plan-only mode generation stops at ``[/SUGG]`` within the role's ``plan_max_tokens``. A model
answer with no readable strategy gives way to the built-in plan, which says so in its notes and
keeps the model's text in ``raw_text``: an unreadable answer is never shown (or cached) as
"no optimization opportunity".
"""

from __future__ import annotations

from perfpilot.code.site import FunctionSite
from perfpilot.llm.base import TextGenerator
from perfpilot.llm.cache import TextCache, cache_key
from perfpilot.llm.errors import ModelError, for_role
from perfpilot.progress import JobContext
from perfpilot.prompting.candidates import candidate_from_text, code_from_text
from perfpilot.prompting.context import unit_context
from perfpilot.prompting.prompts import planner_messages
from perfpilot.settings import RoleSettings
from perfpilot.strategy.plan_format import SUGG_CLOSE, parse_output
from perfpilot.strategy.values import OptimizeResult, Plan, Rejected

PROMPT_VERSION = 1


def site_key(site: FunctionSite) -> str:
    """Identifies one function in one version of its unit's text."""
    return cache_key(site.uri, site.qualified_name, site.text, site.unit_text)


class ModelPlanner:
    """``Planner`` that asks a model for a strategy plan.

    ``plan_only`` stops the generation at ``[/SUGG]`` (PerfCoder's plan-only mode, for when a
    separate optimizer writes the code). ``context_tokens`` bounds the file context in the
    prompt. Plans are cached by function, context, backend, model and generation settings.
    """

    def __init__(self, role: RoleSettings, client: TextGenerator, *, plan_only: bool = False,
                 context_tokens: int = 1500, cache: TextCache | None = None) -> None:
        self.role = role
        self.client = client
        self.plan_only = plan_only
        self.context_tokens = context_tokens
        self.cache = cache if cache is not None else TextCache()
        self._code = TextCache()
        self.name = f"{client.backend}:{role.model}" if role.model else client.backend

    async def plan(self, site: FunctionSite, ctx: JobContext) -> Plan:
        """Generate (or reuse) the plan for ``site``; raises ``ModelError`` or ``Cancelled``."""
        ctx.check()
        context = unit_context(site, self.context_tokens)
        budget = self.token_budget
        key = cache_key("plan", PROMPT_VERSION, site.text, context, self.client.backend,
                        self.role.model, self.plan_only, self.role.temperature, budget)
        cached = self.cache.get(key)
        if cached is not None:
            text = cached[0]
        else:
            ctx.report("planning", f"asking {self.name}", None)
            try:
                texts = await self.client.generate(
                    planner_messages(site, context), n=1, max_tokens=budget,
                    temperature=self.role.temperature,
                    stop=[SUGG_CLOSE] if self.plan_only else [], ctx=ctx)
            except ModelError as exc:
                raise for_role(exc, "planner") from exc
            text = texts[0] if texts else ""
            self.cache.put(key, (text,))
        raw = text + SUGG_CLOSE if self.plan_only and SUGG_CLOSE not in text else text
        parsed = parse_output(raw)
        self._code.put(site_key(site), (raw,))
        if not parsed.strategies:
            return await self._builtin_instead(site, ctx, text)
        notes = tuple(n for n in parsed.notes
                      if not (self.plan_only and n.startswith("no optimized code")))
        return Plan(parsed.strategies, self.client.backend, raw_text=raw, notes=notes,
                    model=self.role.model)

    @property
    def token_budget(self) -> int:
        """Tokens the model may write: a plan alone needs far fewer than plan and code."""
        if self.plan_only:
            return max(1, min(self.role.max_tokens, self.role.plan_max_tokens))
        return self.role.max_tokens

    async def _builtin_instead(self, site: FunctionSite, ctx: JobContext, text: str) -> Plan:
        """The built-in plan, for a model answer without a readable strategy."""
        from perfpilot.planning.builtin.planner import BuiltinPlanner

        plan = await BuiltinPlanner().plan(site, ctx)
        what = "was empty" if not text.strip() else "had no strategy PerfPilot could read"
        note = (f"the planner {self.name}'s answer {what}; this is the built-in plan instead "
                "(the model's text is kept in the report and in --json)")
        return Plan(plan.strategies, plan.backend, raw_text=text, notes=(note, *plan.notes),
                    model=self.role.model)

    def last_code_for(self, site: FunctionSite) -> OptimizeResult | None:
        """The code the planner wrote with its last plan for ``site``, checked like any
        optimizer output (one ``Candidate`` with sample 0, or one ``Rejected``).

        None when the planner has not planned this exact function text or wrote no code.
        """
        if self.plan_only:
            return None
        stored = self._code.get(site_key(site))
        if stored is None or code_from_text(stored[0]) is None:
            return None
        raw = stored[0]
        parsed = parse_output(raw)
        result = candidate_from_text(site, raw, parsed.strategies, self.client.backend, 0,
                                     self.role.model)
        if isinstance(result, Rejected):
            return OptimizeResult((), (result,))
        return OptimizeResult((result,))
