"""BuiltinOptimizer: the rules rewrite as an Optimizer, with a compile check per candidate."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from urllib.parse import unquote, urlparse

from perfpilot.code.site import FunctionSite
from perfpilot.code.splice import missing_includes, splice
from perfpilot.optimizing.builtin.callees import CalleePlan, callee_rewrite, split_plan
from perfpilot.optimizing.builtin.strategies import (
    UNEXPLAINED,
    planned_rules,
    strategies_for,
    unkept,
    unsaid,
)
from perfpilot.optimizing.builtin.variants import (
    SOURCE_ORDER,
    Variant,
    build_of,
    candidate_variants,
)
from perfpilot.optimizing.formatting import format_candidate
from perfpilot.optimizing.syntax_check import compile_check
from perfpilot.progress import JobContext
from perfpilot.rules.registry import LAST_BIT, Phase, last_bit_phases, rule_spec
from perfpilot.rules.rewriting import (
    ALL_RULES,
    OPENMP_RULES,
    Applied,
    RewriteResult,
    rewrite,
)
from perfpilot.runner.compiler_warnings import added_warnings, describe_added
from perfpilot.strategy.values import Candidate, OptimizeResult, Plan, Rejected, Strategy

BACKEND = "builtin"
INTERCHANGE = "loop-interchange"


# How ``describe_added`` starts: a candidate refused for a warning, not for an error.
WARNING_REFUSAL = "it adds a compiler warning"


def _at(lines: tuple[int, ...]) -> str:
    """`` at line 4`` / `` at lines 4, 9``; nothing for a strategy without lines."""
    if not lines:
        return ""
    return f" at line{'s' if len(lines) > 1 else ''} {', '.join(map(str, lines))}"


def _failure(error: str) -> str:
    """Why a candidate was dropped: its new warning as it is, an error as a failed compile."""
    return error if error.startswith(WARNING_REFUSAL) else f"does not compile: {error}"


def _source_dir(uri: str) -> str | None:
    """The folder of a ``file://`` document, so quoted includes resolve in the check."""
    parsed = urlparse(uri)
    if parsed.scheme != "file":
        return None
    folder = Path(unquote(parsed.path)).parent
    return str(folder) if folder.is_dir() else None


class BuiltinOptimizer:
    """Applies the mechanical rewrites the loop and pattern analysis proves safe.

    It carries out the plan: only the rewrites of the findings (or, for a model's plan, the
    categories) the plan names run, so a strategy left out of the plan is never applied;
    ``rules`` narrows that further. Candidate 0 carries every planned safe rewrite; when it
    adds OpenMP, candidate 1 is the same without the OpenMP rules, so the runner can keep the
    better one. Each candidate must pass ``-fsyntax-only`` with the unit's flags (rules the
    compiler rejects are dropped one by one before the whole candidate is given up). Each
    candidate comes with its variants (``variants.py``: schedules and chunk sizes, loop
    orders, ``simd``, unrolling), one family the engine races; ``variants=False`` leaves them
    out. Variants differ from the checked candidate in a clause, a pragma or the order of loop
    headers (or are the same rewrite without the loop interchange) and are not checked again:
    the runner builds each, and one that fails to build leaves the race.

    A rewrite's note that the plan's advice already says (``Strategy.advice``: the planner
    asked the same rewrite) is not repeated on a candidate or a rejection.

    Strategies the planner found in a callee of the function (``Strategy.callee``) are carried
    out in a renamed copy of that callee which the function then calls (``callees.py``): one
    candidate per callee, with the function's own rewrite when it has one, compile-checked
    like the others and without variants.
    """

    name = BACKEND

    def __init__(self, flags: Sequence[str] = (), compiler: str | None = None,
                 rules: Sequence[str] | None = None, timeout_s: float = 30,
                 variants: bool = True) -> None:
        self.flags = tuple(flags)
        self.compiler = compiler
        self.rules = frozenset(rules) if rules is not None else ALL_RULES
        self.timeout_s = timeout_s
        self.variants = variants
        # The original unit's warnings, by unit text and flags: read once, compared each time.
        self._original_warnings: dict[tuple[str, tuple[str, ...]], tuple[str, ...]] = {}

    async def optimize(self, site: FunctionSite, plan: Plan, ctx: JobContext) -> OptimizeResult:
        """Rewrite ``site`` with the builtin rules; raise ``Cancelled`` when ``ctx`` is.

        Strategies about a callee of ``site`` (``Strategy.callee``) are carried out in a
        renamed copy of it that ``site`` then calls (``callees.py``), one candidate per callee.
        """
        ctx.check()
        ctx.report("generating", "applying builtin rewrite rules")
        own, parts = split_plan(plan)
        if not parts:
            return await self._optimize_own(site, plan, ctx)
        mine = (await self._optimize_own(site, own, ctx) if own.strategies
                else OptimizeResult(()))
        first = mine.candidates[0] if mine.candidates else None
        candidates: list[Candidate] = list(mine.candidates)
        rejected: list[Rejected] = list(mine.rejected)
        base_error: str | None = None
        for part in parts:
            ctx.check()
            if first is None and base_error is None and part is parts[0]:
                ctx.report("generating", "checking the original unit compiles")
                base_error = await self._check_text(site, site.text, (), False)
            if base_error is not None:
                rejected.append(Rejected(
                    BACKEND, f"callee `{part.callee}`: the original unit does not compile with "
                    f"these flags, so rewrites cannot be checked: {base_error}"))
                continue
            made = await self._callee_candidate(site, part, first, len(candidates), ctx)
            if isinstance(made, Rejected):
                rejected.append(made)
            else:
                candidates.append(made)
        return OptimizeResult(tuple(candidates), tuple(rejected))

    async def _callee_candidate(self, site: FunctionSite, part: CalleePlan,
                                own: Candidate | None, sample: int,
                                ctx: JobContext) -> Candidate | Rejected:
        """The candidate carrying out ``part`` in a copy of its callee, with ``own`` (the
        function's own rewrite, when there is one) calling it; else why not."""
        if part.plan.strategies and all(s.advice for s in part.plan.strategies):
            # the planner asked the same rewrite of this callee: it changes nothing there,
            # and the plan says why
            return Rejected(BACKEND, f"callee `{part.callee}`: the plan leaves its strategies "
                            "there to you as advice")
        last_bit = frozenset(s.rule for s in part.plan.strategies) & LAST_BIT
        rules = self.rules & planned_rules(part.plan) | last_bit
        if not rules:
            return Rejected(BACKEND, f"callee `{part.callee}`: the plan names no strategy the "
                            "built-in rewriter carries out")
        extra: tuple[Phase, ...] = last_bit_phases() if last_bit else ()
        error = ""
        for base in ((own, None) if own is not None else (None,)):
            made = await asyncio.to_thread(callee_rewrite, site, part.callee, rules, extra,
                                           base.code if base is not None else None)
            ctx.check()
            if isinstance(made, str):
                error = made
                continue
            ctx.report("generating", f"checking the rewrite of {part.callee} compiles")
            wanted = made.result.includes + (base.includes if base is not None else ())
            openmp = made.result.needs_openmp or (base is not None and base.needs_openmp)
            failed = await self._check_text(site, made.code, wanted, openmp)
            ctx.check()
            if failed is not None:
                error = f"the rewritten copy of `{part.callee}` does not compile: {failed}"
                continue
            includes = missing_includes(site.unit_text, wanted)
            strategies = strategies_for(made.result, part.plan)
            if base is not None:
                strategies += tuple(s for s in base.strategies if s not in strategies)
            notes = (made.notes + (base.notes if base is not None else ())
                     + tuple(f"adds #include {h}" for h in includes))
            code = await asyncio.to_thread(format_candidate, site, made.code)
            return Candidate(code=code, strategies=strategies, backend=BACKEND,
                             sample=sample, notes=notes, needs_openmp=openmp,
                             includes=includes)
        return Rejected(BACKEND, f"callee `{part.callee}`: {error}", sample)

    async def _optimize_own(self, site: FunctionSite, plan: Plan,
                            ctx: JobContext) -> OptimizeResult:
        """Candidates rewriting ``site`` itself, as ``plan`` asks."""
        # A rewrite that may change a floating result in its last bit runs only when the plan
        # names it (its explanation says so); never by default.
        last_bit = frozenset(s.rule for s in plan.strategies) & LAST_BIT
        rules = self.rules & planned_rules(plan) | last_bit
        if not rules:
            return OptimizeResult((), (Rejected(
                BACKEND, "the plan names no strategy the built-in rewriter carries out"
                + (f" ({', '.join(s.category.name for s in plan.strategies)})"
                   if plan.strategies else "")),))
        extra: tuple[Phase, ...] = last_bit_phases() if last_bit else ()
        full = await asyncio.to_thread(rewrite, site, rules, extra)
        ctx.check()
        if not full.changed:
            # what the plan's advice says already is not said again
            notes = unsaid(plan, full.notes) + self._unexplained(plan, (), full.notes)
            why = "; ".join(notes) if notes else (
                "the plan leaves its strategies to you as advice"
                if any(s.advice for s in plan.strategies) else "no pattern found")
            return OptimizeResult((), (Rejected(BACKEND, f"no builtin rule applies: {why}"),))
        ctx.report("generating", "checking the original unit compiles")
        base_error = await self.check(site, RewriteResult(site.text, (), (),
                                                          full.needs_openmp))
        ctx.check()
        if base_error is not None:
            return OptimizeResult((), (Rejected(
                BACKEND, "the original unit does not compile with these flags, so rewrites "
                f"cannot be checked: {base_error}", 0, full.code),))
        variants: list[RewriteResult] = [full]
        if full.needs_openmp:
            serial = await asyncio.to_thread(rewrite, site, rules - OPENMP_RULES, extra)
            if serial.changed:
                variants.append(serial)
        candidates: list[Candidate] = []
        rejected: list[Rejected] = []
        # strategies whose rewrite was made but ended in a rejection that says why
        refused: list[Strategy] = []
        for sample, variant in enumerate(variants):
            ctx.check()
            ctx.report("generating", f"checking builtin candidate {sample + 1} compiles")
            checked, dropped_notes, error = await self._compiling(site, variant, extra)
            ctx.check()
            if checked is None:
                rejected.append(Rejected(BACKEND, _failure(error), sample, variant.code))
                refused += strategies_for(variant, plan)
                continue
            includes = missing_includes(site.unit_text, checked.includes)
            notes = (unsaid(plan, checked.notes) + tuple(dropped_notes)
                     + tuple(f"adds #include {h}" for h in includes))
            made = Candidate(
                code=await asyncio.to_thread(format_candidate, site, checked.code),
                strategies=strategies_for(checked, plan), backend=BACKEND,
                sample=sample, notes=notes, needs_openmp=checked.needs_openmp,
                includes=includes)
            if not self.variants:
                candidates.append(made)
                continue
            source_order = await self._source_order(site, checked, extra, plan)
            family = await asyncio.to_thread(
                candidate_variants, made, f"{BACKEND}-{sample}", site,
                build_of(self.flags, self.compiler), source_order)
            # each variant's own lines (a pragma, a swapped header) in the file's style too
            candidates.extend([c if c.code == made.code else
                               replace(c, code=await asyncio.to_thread(
                                   format_candidate, site, c.code)) for c in family])
        said = tuple(n for c in candidates for n in c.notes) + full.notes + \
            tuple(r.reason for r in rejected)
        missing = self._unexplained(
            plan, tuple(s for c in candidates for s in c.strategies) + tuple(refused), said,
            full.applied)
        if missing and candidates:
            candidates[0] = replace(candidates[0], notes=candidates[0].notes + missing)
        elif missing:
            rejected.append(Rejected(BACKEND, "; ".join(missing)))
        return OptimizeResult(tuple(candidates), tuple(rejected))

    def _unexplained(self, plan: Plan, carried: tuple[Strategy, ...],
                     notes: tuple[str, ...], applied: tuple[Applied, ...] = ()
                     ) -> tuple[str, ...]:
        """A note for each planned strategy this optimizer may carry out that no candidate
        carries out and no rule's note explains: a finding's promise ends in a candidate or
        in words, never in silence. A strategy whose lines another rule's applied rewrite is
        about was overtaken by that rewrite (an earlier phase replaced the code it names)."""
        out: list[str] = []
        for s in unkept(plan, carried, notes):
            spec = rule_spec(s.rule)
            if spec is None or not spec.rewrites_as & self.rules:
                continue
            first = [a.rule for a in applied if a.rule != s.rule and set(a.lines) & set(s.lines)]
            if first:
                out.append(f"{s.rule}: the code{_at(tuple(sorted(s.lines)))} was rewritten "
                           f"first by {first[0]}, which leaves nothing of it to change")
            else:
                out.append(f"{s.rule}: {UNEXPLAINED} (the rewrite found nothing it may "
                           f"change{_at(s.lines)})")
        return tuple(out)

    async def _source_order(self, site: FunctionSite, checked: RewriteResult,
                            extra: tuple[Phase, ...], plan: Plan) -> Variant | None:
        """The same rewrite without the loop interchange, when the candidate swapped loops and
        the rest still changes the function: the other loop order the race measures."""
        if INTERCHANGE not in checked.rules:
            return None
        other = await asyncio.to_thread(rewrite, site, checked.rules - {INTERCHANGE}, extra)
        if not other.changed or other.needs_openmp != checked.needs_openmp:
            return None
        return Variant(SOURCE_ORDER, other.code, strategies_for(other, plan))

    async def _compiling(self, site: FunctionSite, variant: RewriteResult,
                         extra: tuple[Phase, ...] = (),
                         ) -> tuple[RewriteResult | None, list[str], str]:
        """The variant if it compiles, else the largest subset of its rules that does."""
        error = await self.check(site, variant)
        if error is None:
            return variant, [], ""
        passing: list[str] = []
        dropped: list[str] = []
        for rule in sorted(variant.rules):
            single = await asyncio.to_thread(rewrite, site, {rule}, extra)
            why = await self.check(site, single) if single.changed else "it changed nothing"
            if why is None:
                passing.append(rule)
            elif why.startswith(WARNING_REFUSAL):
                dropped.append(f"{rule}: dropped, {why}")
            else:
                dropped.append(f"{rule}: dropped, the compiler rejected it")
        if not passing:
            return None, dropped, error
        subset = await asyncio.to_thread(rewrite, site, set(passing), extra)
        if subset.changed and await self.check(site, subset) is None:
            return subset, dropped, ""
        return None, dropped, error

    async def check(self, site: FunctionSite, variant: RewriteResult) -> str | None:
        """Compile the unit with the variant spliced in; None when it compiles."""
        return await self._check_text(site, variant.code, variant.includes,
                                      variant.needs_openmp)

    async def _check_text(self, site: FunctionSite, code: str, includes: Sequence[str],
                          needs_openmp: bool) -> str | None:
        """Compile the unit with ``code`` in place of ``site`` (and ``includes`` added); None
        when it compiles and adds no compiler warning the original unit does not have
        (``-Wall -Wextra -Wshadow``; the original's warnings are read once per unit)."""
        flags = list(self.flags)
        folder = _source_dir(site.uri)
        if folder is not None:
            flags += ["-iquote", folder]
        if needs_openmp and "-fopenmp" not in flags:
            flags.append("-fopenmp")
        error, warnings = await compile_check(splice(site, code, includes), site.language,
                                              flags, self.compiler, self.timeout_s)
        if error is not None or code == site.text:
            return error
        key = (site.unit_text, tuple(flags))
        before = self._original_warnings.get(key)
        if before is None:
            base_error, before = await compile_check(site.unit_text, site.language, flags,
                                                     self.compiler, self.timeout_s)
            if base_error is not None:
                return None  # the original's own errors are reported where they matter
            self._original_warnings[key] = before
        added = added_warnings(before, warnings)
        return describe_added(added) if added else None
