"""The engine: FunctionSite -> Plan -> Candidates -> Verdicts, with caches and a measuring queue.

It knows nothing of LSP; the CLI and the language server both drive it.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from cachetools import LRUCache

from perfpilot.code.site import FunctionSite
from perfpilot.engine.backends import ModelClients, make_optimizer, make_planner, plan_only
from perfpilot.engine.disk_cache import DiskCache
from perfpilot.engine.keys import content_key, runner_fingerprint, secret_fingerprint
from perfpilot.engine.limits import check_analysable
from perfpilot.engine.outcome import Outcome, Trial
from perfpilot.engine.present import race_phrases, speedup_phrase
from perfpilot.engine.racing import Race, race
from perfpilot.engine.ranking import Ranked, rank
from perfpilot.engine.records import Measured, keep
from perfpilot.optimizing.base import Optimizer
from perfpilot.planning.base import Planner
from perfpilot.progress import JobContext, gate_for_tests
from perfpilot.runner.admission import NO_SANDBOX, Origin, policy_verdict
from perfpilot.runner.budget import JobBudget
from perfpilot.runner.gate import MeasureGate
from perfpilot.runner.measurement_inputs import MeasurementInputs, resolve_inputs
from perfpilot.settings import API_KEY_SECRET, RoleSettings, Settings, settings_to_dict
from perfpilot.strategy.values import Candidate, OptimizeResult, Plan, Rejected

if TYPE_CHECKING:
    from perfpilot.llm.reward_scorer import RewardScorer
    from perfpilot.runner.values import Tuning, Verdict


log = logging.getLogger(__name__)

_INLINE_CHECK_CHARS = 20_000  # larger functions are checked off the event loop
# The version of the checks a model's answer goes through (``prompting/candidates.py``):
# candidates stored by earlier checks are not reused.
CANDIDATE_CHECKS = 2


def _role_key(role: RoleSettings) -> dict[str, Any]:
    return settings_to_dict(role)  # type: ignore[arg-type]


class Engine:
    """Runs planning, optimizing and measuring for functions, caching by content hashes.

    Measurements share one gate: builds of several candidates may overlap, but timing runs
    alone, with no build of ours beside it, because it needs quiet cores.
    """

    def __init__(self, settings: Settings | None = None, workspace: Path | None = None,
                 secrets: dict[str, str] | None = None,
                 log_fn: Callable[[str], None] | None = None,
                 tuning: Tuning | None = None) -> None:
        self.settings = settings or Settings()
        self.tuning = tuning  # the measurement procedure's knobs (tests make it smaller)
        self.workspace = workspace
        self.secrets: dict[str, str] = dict(secrets or {})
        self._clients = ModelClients()
        self._backends: LRUCache[str, Any] = LRUCache(maxsize=16)
        self._scorers: LRUCache[Path, RewardScorer] = LRUCache(maxsize=2)
        self._plans: LRUCache[str, Plan] = LRUCache(maxsize=256)
        self._candidates: LRUCache[str, OptimizeResult] = LRUCache(maxsize=256)
        self._verdicts: LRUCache[str, Verdict] = LRUCache(maxsize=512)
        self._gate = MeasureGate()
        self._disk = DiskCache(workspace) if workspace is not None else None
        self._log = log_fn or log.info

    @property
    def gate(self) -> MeasureGate:
        """The gate all of this engine's measurements share (builds overlap, timing alone)."""
        return self._gate

    # -- configuration -------------------------------------------------------------------
    def set_workspace(self, workspace: Path | None) -> None:
        """Set the workspace folder: compile flags, specs and the result store live there."""
        self.workspace = workspace
        self._disk = DiskCache(workspace) if workspace is not None else None

    def update_settings(self, settings: Settings) -> None:
        """Replace the settings; backends are rebuilt on next use."""
        self.settings = settings

    def set_secret(self, name: str, value: str, role: str | None = None) -> None:
        """Hold a secret (an API key) in memory; never logged or written."""
        key = f"{role}.{name}" if role else name
        if value:
            self.secrets[key] = value
        else:
            self.secrets.pop(key, None)

    def planner(self, plan_only_mode: bool = False) -> Planner:
        """The planner for the current settings (kept while the settings stay the same).

        ``plan_only_mode`` asks for the plan alone (``perfpilot plan``, Explain): a model
        planner then stops at ``[/SUGG]`` instead of writing code nobody uses."""
        s = self.settings
        only = plan_only_mode or plan_only(s.planner, s.optimizer)
        secrets = self._role_secrets("planner")
        # By the secrets' values (fingerprinted, never in clear): a rotated key takes effect.
        key = content_key("planner", _role_key(s.planner), only, secret_fingerprint(secrets))
        if key not in self._backends:
            self._backends[key] = make_planner(s.planner, secrets, self._clients,
                                               only_plan=only)
        planner: Planner = self._backends[key]
        return planner

    def optimizer(self, flags: tuple[str, ...] = (), role: RoleSettings | None = None
                  ) -> Optimizer:
        """The optimizer for the current settings (kept while the settings stay the same);
        ``role`` serves instead of the optimizer's settings (evaluation's per-task answers)."""
        s = self.settings
        role = role or s.optimizer
        secrets = self._role_secrets("optimizer")
        key = content_key("optimizer", _role_key(role), flags, s.runner.compiler,
                          secret_fingerprint(secrets), str(self.workspace or ""))
        if key not in self._backends:
            self._backends[key] = make_optimizer(
                role, secrets, self._clients, flags=flags, compiler=s.runner.compiler,
                workspace=self.workspace)
        optimizer: Optimizer = self._backends[key]
        return optimizer

    def api_key(self, role: str) -> str | None:
        """The API key the editor handed over for ``role`` (or for both roles), if any."""
        return self._role_secrets(role).get(API_KEY_SECRET)

    def _role_secrets(self, role: str) -> dict[str, str]:
        out = {k: v for k, v in self.secrets.items() if "." not in k}
        prefix = f"{role}."
        out.update({k[len(prefix):]: v for k, v in self.secrets.items() if k.startswith(prefix)})
        return out

    async def close(self) -> None:
        """Release model workers and connections."""
        for failure in await self._clients.close():
            self._log(failure)
        self._backends.clear()

    # -- pipeline ------------------------------------------------------------------------
    async def plan(self, site: FunctionSite, ctx: JobContext, *,
                   plan_only_mode: bool = False) -> Plan:
        """The plan for ``site`` (cached by function text, unit and planner settings).

        ``plan_only_mode``: only the plan is wanted (see ``planner``)."""
        only = plan_only_mode or plan_only(self.settings.planner, self.settings.optimizer)
        key = self._plan_key(site, plan_only_mode)
        cached = self._plans.get(key)
        persist = self._disk is not None and self.settings.planner.backend != "builtin"
        if cached is None and persist and self._disk is not None:
            cached = self._disk.get_plan(key)
        if cached is not None:
            self._plans[key] = cached
            return cached
        ctx.report("planning", f"planning {site.name}")
        await _check_analysable(site)
        plan = await self.planner(only).plan(site, ctx)
        ctx.check()
        self._plans[key] = plan
        # A built-in plan standing in for an unreadable model answer is not kept: the model
        # may answer better next time.
        if persist and self._disk is not None and plan.backend != "builtin":
            self._disk.put_plan(key, plan)
        return plan

    def _plan_key(self, site: FunctionSite, plan_only_mode: bool = False) -> str:
        s = self.settings
        only = plan_only_mode or plan_only(s.planner, s.optimizer)
        return content_key("plan", site.text, site.unit_text, _role_key(s.planner), only)

    async def candidates(self, site: FunctionSite, plan: Plan, ctx: JobContext,
                         flags: tuple[str, ...] = (), role: RoleSettings | None = None
                         ) -> OptimizeResult:
        """Candidates for ``site`` following ``plan`` (cached; replayed answers are read
        afresh each time, their files may have changed). ``role``: see ``optimizer``."""
        role = role or self.settings.optimizer
        key = self._candidates_key(site, plan, flags, role)
        cached = None if role.backend == "replay" else self._candidates.get(key)
        persist = self._disk is not None and role.backend in ("local", "remote")
        if cached is None and persist and self._disk is not None:
            cached = self._disk.get_candidates(key)
        if cached is not None:
            self._candidates[key] = cached
            return cached
        await _check_analysable(site)
        planner_code = _planner_code(self.planner(), site)
        ctx.report("generating", f"rewriting {site.name}")
        result = await self.optimizer(flags, role).optimize(site, plan, ctx)
        ctx.check()
        if planner_code is not None:
            # A PerfCoder-style planner also wrote code: measure it beside the optimizer's.
            seen = {c.code.strip() for c in result.candidates}
            extra = tuple(c for c in planner_code.candidates if c.code.strip() not in seen)
            result = OptimizeResult(extra + result.candidates,
                                    planner_code.rejected + result.rejected)
        if result.complete and role.backend != "replay":
            # With samples missing, a later run asks for them again.
            self._candidates[key] = result
            if persist and self._disk is not None:
                self._disk.put_candidates(key, result)
        return result

    def _candidates_key(self, site: FunctionSite, plan: Plan, flags: tuple[str, ...],
                        role: RoleSettings) -> str:
        return content_key("opt", CANDIDATE_CHECKS, site.text, site.unit_text, plan.strategies,
                           plan.raw_text, _role_key(role), flags)

    def remember_drafts(self, site: FunctionSite, plan: Plan, result: OptimizeResult,
                        flags: tuple[str, ...] = ()) -> None:
        """Take a plan and candidates made by another engine with the same settings (a scan's
        driver, for a worker that only measures): ``optimize`` then uses them instead of asking
        the planner and the optimizer again."""
        self._plans[self._plan_key(site)] = plan
        self._candidates[self._candidates_key(site, plan, flags, self.settings.optimizer)] = \
            result

    def measurement_inputs(self, site: FunctionSite, source_path: Path | None = None,
                           spec: Path | None = None) -> MeasurementInputs:
        """Everything measuring ``site`` (a function of ``source_path``) depends on besides
        the code, resolved from the settings and the workspace: the one place a job's flags,
        spec, stdin files and mode are looked up (``spec`` overrides the one found)."""
        return resolve_inputs(self.settings.runner, site, source_path, self.workspace, spec,
                              self.tuning)

    async def measure(self, site: FunctionSite, code: str, ctx: JobContext,
                      source_path: Path | None = None, spec: Path | None = None,
                      includes: tuple[str, ...] = (), fresh: bool = False,
                      origin: Origin = "model", pairs: int | None = None,
                      budget: JobBudget | None = None,
                      inputs: MeasurementInputs | None = None) -> Verdict:
        """Verify and time ``code`` (with the headers it needs) against ``site`` (timing gated;
        cached in memory and on disk). ``origin`` is who wrote ``code`` (see
        ``measure_candidate``): builtin and model code must pass the capability policy.

        ``inputs`` are the measurement's inputs when the job resolved them already (its
        candidates share them); else they are resolved from ``source_path`` and ``spec``. The
        key covers the unit, the candidate and the inputs (runner settings, flags, and the
        content of every file that decides the measurement: spec, compile database, stdin
        inputs). ``fresh`` (Re-run) measures again whatever is cached, and the new figure
        replaces the old one. ``pairs`` asks for that many pairs instead of the configured
        ones, without instruction counts: a round of a race between variants (see
        ``racing.py``). ``budget`` is the job's time budget, shared by its candidates (by
        default one for this measurement).
        """
        from perfpilot.runner.measure import measure_candidate

        inputs = inputs or self.measurement_inputs(site, source_path, spec)
        if pairs is not None:
            inputs = inputs.with_pairs(pairs)
        key = content_key("measure", runner_fingerprint(), site.unit_text, site.qualified_name,
                          code, "\n".join(includes), origin, inputs.key_material())
        cached = None if fresh else self._verdicts.get(key)
        if cached is None and self._disk is not None and not fresh:
            cached = self._disk.get(key)
        if cached is not None:
            self._verdicts[key] = cached
            return cached
        ctx.check()
        if fresh:
            # A re-measurement that comes back noisy must not leave the old figure standing
            # as if it had been confirmed.
            self._verdicts.pop(key, None)
            if self._disk is not None:
                self._disk.forget(key)
        verdict = await measure_candidate(site, code, inputs, ctx, gate=self._gate,
                                          includes=includes, origin=origin, budget=budget)
        # The verdict is final: a training record (off the event loop; records.enabled).
        await keep(self.settings, self.workspace, Measured(
            site, code, verdict, self._plans.get(self._plan_key(site)), includes, origin,
            f"{self.settings.optimizer.backend}:{self.settings.optimizer.model}"))
        # Noisy and timed-out results are worth retrying later, so they are not cached (a
        # parallel slowdown is only reported once a second run showed it too); nor is a
        # refusal for want of a sandbox, which installing bubblewrap lifts.
        if verdict.verdict not in ("noisy", "timeout") and verdict.message != NO_SANDBOX:
            self._verdicts[key] = verdict
            if self._disk is not None:
                self._disk.put(key, verdict)
        return verdict

    async def optimize(self, site: FunctionSite, ctx: JobContext, *, measure: bool = True,
                       source_path: Path | None = None, spec: Path | None = None,
                       fresh: bool = False) -> Outcome:
        """Plan, rewrite, and (when ``measure``) verify and time every candidate of ``site``, a
        function of ``source_path``; pick the best. The optimizer checks its candidates with
        the flags the compile database gives the file, and every candidate is measured with
        the same inputs, resolved here once (``spec`` overrides the spec found).

        ``fresh`` measures every candidate again instead of reusing cached verdicts."""
        inputs = self.measurement_inputs(site, source_path, spec)
        flags = inputs.compdb_flags
        plan = await self.plan(site, ctx)
        result = await self.candidates(site, plan, ctx, flags)
        cands: tuple[Candidate, ...] = result.candidates
        if not cands:
            reasons = "; ".join(r.reason for r in result.rejected) or "no rewrite applies"
            return Outcome(site, plan, (), result.rejected, None, "no-candidate",
                           f"No candidate for {site.name}: {reasons}")
        if not (measure and self.settings.runner.enabled):
            # Unmeasured, variants cannot be told apart: each family shows its first (the
            # rewrite's own choice).
            cands = tuple(c for i, c in enumerate(cands)
                          if not c.family or _first_of_family(cands, i))
            # Unmeasured candidates are still held to the capability policy: a refused one
            # carries its ``rejected`` verdict and is never the proposal.
            screened = tuple([Trial(c, await asyncio.to_thread(
                policy_verdict, site, c.code, c.includes, origin=origin_of(c))) for c in cands])
            first = next((i for i, t in enumerate(screened) if t.verdict is None), None)
            if first is None:
                return Outcome(site, plan, screened, result.rejected, None, "not-improved",
                               _rejected_message(site, screened))
            return Outcome(site, plan, screened, result.rejected, first,
                           "unmeasured", f"{len(cands)} candidate(s), not measured")

        ranked = await self._ranked(site, cands, ctx)
        cands = ranked.kept
        rejected = result.rejected + ranked.left
        # One budget for every candidate of the job: past it, the rest are not measured.
        budget = JobBudget(self.settings.runner.job_budget_s)

        async def measure_one(index: int, pairs: int | None = None) -> Verdict:
            cand = cands[index]
            await gate_for_tests("building", ctx)
            return await self.measure(site, cand.code, ctx, includes=cand.includes,
                                      fresh=fresh, origin=origin_of(cand), pairs=pairs,
                                      budget=budget, inputs=inputs)

        trials: list[Trial] = []
        races: list[Race] = []
        for i, cand in enumerate(cands):
            if cand.family and not _first_of_family(cands, i):
                continue  # raced with the first of its family
            members = [(j, c.variant) for j, c in enumerate(cands)
                       if cand.family and c.family == cand.family]
            if len(members) > 1:
                # Each variant is built and checked first: the race starts with building.
                ctx.report("building", f"racing {len(members)} variants ({cand.family})")
                done = await race(cand.family, members, measure_one, self.settings.runner.pairs)
                races.append(done)
                trials += [Trial(cands[e.index], e.last) for e in done.finalists]
                if not done.finalists and done.entrants[0].last is not None:
                    # Every variant left: the first one's verdict stands for the family (a
                    # needs-spec, about the original, then leads to the spec as it should).
                    trials.append(Trial(cands[done.entrants[0].index], done.entrants[0].last))
                continue
            ctx.report("building", f"candidate {i + 1} of {len(cands)}")
            trials.append(Trial(cand, await measure_one(i)))

        async def measure_repair(cand: Candidate) -> Verdict:
            await gate_for_tests("building", ctx)
            return await self.measure(site, cand.code, ctx, includes=cand.includes,
                                      fresh=fresh, origin=origin_of(cand), inputs=inputs)

        repaired, refused = await self.repair_rounds(site, plan, tuple(trials), ctx,
                                                     measure_repair, flags)
        outcome = choose(site, plan, (*trials, *repaired), (*rejected, *refused),
                         policy=self.settings.parallel_policy)
        return with_races(outcome, tuple(races))

    async def repair_rounds(self, site: FunctionSite, plan: Plan, trials: tuple[Trial, ...],
                            ctx: JobContext,
                            measure: Callable[[Candidate], Awaitable[Verdict]],
                            flags: tuple[str, ...] = (), role: RoleSettings | None = None
                            ) -> tuple[list[Trial], list[Rejected]]:
        """Up to ``role.repair_rounds`` rounds, while no candidate was measured faster: the
        model candidate most worth fixing (see ``repair_pick``) goes back to the optimizer
        with its verdict, and the corrected version is measured (``measure``) like any
        candidate. Each later round repairs the previous round's answer. Returns the new
        trials and the answers that could not be used."""
        role = role or self.settings.optimizer
        optimizer = self.optimizer(flags, role)
        repair = getattr(optimizer, "repair", None)
        added: list[Trial] = []
        refused: list[Rejected] = []
        if repair is None or role.repair_rounds < 1:
            return added, refused
        for round_ in range(1, role.repair_rounds + 1):
            pool = trials if round_ == 1 else tuple(
                t for t in added if t.candidate.round == round_ - 1)
            if any(t.verdict is not None and t.verdict.verdict == "faster"
                   for t in (*trials, *added)):
                break
            pick = repair_pick(pool)
            if pick is None or pick.verdict is None:
                break
            ctx.check()
            ctx.report("generating", f"repair round {round_}: {pick.verdict.verdict} "
                                     f"candidate back to {getattr(optimizer, 'name', 'the model')}")
            result: OptimizeResult = await repair(site, plan, pick.candidate, pick.verdict,
                                                  round_, ctx)
            ctx.check()
            refused.extend(result.rejected)
            seen = {_fingerprint(t.candidate) for t in (*trials, *added)}
            fresh = [c for c in result.candidates if _fingerprint(c) not in seen]
            refused.extend(Rejected(c.backend, "the repair answer is the code already "
                                    "measured", c.sample, c.code, round=round_)
                           for c in result.candidates if c not in fresh)
            if not fresh:
                break
            for cand in fresh:
                ctx.report("building", f"repair round {round_}")
                added.append(Trial(cand, await measure(cand)))
        return added, refused

    async def _ranked(self, site: FunctionSite, cands: tuple[Candidate, ...],
                      ctx: JobContext) -> Ranked:
        """The candidates worth measuring: all of them, or with a reward model set
        (``ranker.model``), the ``ranker.measure_top`` it scores best. A ranker that cannot
        load or score leaves every candidate to be measured, and says why."""
        setting = self.settings.ranker
        if not setting.model:
            return Ranked(cands, ())
        from perfpilot.llm.errors import LocalModelError
        from perfpilot.llm.reward_scorer import RewardScorer
        from perfpilot.prompting.context import unit_context
        from perfpilot.prompting.prompts import planner_messages

        folder = Path(setting.model).expanduser()
        if not folder.is_absolute() and self.workspace is not None:
            folder = self.workspace / folder
        scorer = self._scorers.get(folder)
        if scorer is None:
            scorer = self._scorers[folder] = RewardScorer(folder)
        prompt = [dict(m) for m in planner_messages(site, unit_context(site))]
        ctx.report("generating", "ranking candidates with the reward model")
        try:
            return await asyncio.to_thread(
                rank, cands, lambda codes: scorer.score(prompt, codes), setting.measure_top)
        except (LocalModelError, OSError, ValueError, RuntimeError) as e:
            self._scorers.pop(folder, None)
            ctx.report("generating", f"the reward model could not rank ({e}); "
                       "measuring every candidate")
            log.warning("ranker %s: %s", folder, e)
            return Ranked(cands, ())


def _fingerprint(candidate: Candidate) -> str:
    """What makes two candidates the same build: the code without spaces, and the headers it
    adds (a repair that only adds a missing include is a new candidate)."""
    return "".join(candidate.code.split()) + "|" + ",".join(sorted(candidate.includes))


# Which failure is most worth a repair round: a correct but slow candidate needs the least
# change, a wrong one more, one that does not compile the most.
_REPAIR_ORDER = {"slower": 0, "no-change": 0, "incorrect": 1, "timeout": 2, "build-failed": 3}


def repair_pick(trials: tuple[Trial, ...]) -> Trial | None:
    """The model candidate to send back for repair: among those the runner turned down for a
    reason a model can fix (``prompting.repair.repairable``), a correct one closest to a gain
    first, then a wrong one, then one that did not build; the earliest on ties."""
    from perfpilot.prompting.repair import repairable

    fit = [(i, t) for i, t in enumerate(trials)
           if origin_of(t.candidate) == "model" and repairable(t.verdict)]
    if not fit:
        return None

    def order(item: tuple[int, Trial]) -> tuple[int, float, int]:
        i, t = item
        assert t.verdict is not None
        return (_REPAIR_ORDER[t.verdict.verdict], -(t.verdict.speedup or 0.0), i)

    return min(fit, key=order)[1]


def _first_of_family(cands: tuple[Candidate, ...], index: int) -> bool:
    """Whether ``cands[index]`` is the first candidate of its family."""
    family = cands[index].family
    return next(i for i, c in enumerate(cands) if c.family == family) == index


def with_races(outcome: Outcome, races: tuple[Race, ...]) -> Outcome:
    """``outcome`` with the races that chose its variants, the variants tried and the one
    picked named in its message."""
    if not races:
        return outcome
    phrases = race_phrases(races, outcome.trials, outcome.chosen)
    message = outcome.message.rstrip()
    message += "" if not message or message.endswith(".") else "."
    said = " ".join(f"{p[:1].upper()}{p[1:]}." for p in phrases)
    return replace(outcome, races=races, message=f"{message} {said}".strip())


async def _check_analysable(site: FunctionSite) -> None:
    # Before any analyser sees the function: one of their queries on a pathological tree
    # holds the GIL for tens of seconds. The check itself is a parse and a bounded walk.
    if len(site.text) > _INLINE_CHECK_CHARS:
        await asyncio.to_thread(check_analysable, site)
    else:
        check_analysable(site)


def origin_of(candidate: Candidate) -> Origin:
    """``builtin`` for the builtin rules' candidates, ``model`` for everything else."""
    return "builtin" if candidate.backend == "builtin" else "model"


_FAILED = frozenset({"needs-spec", "build-failed", "timeout", "incorrect", "no-input",
                     "suspicious"})


def nothing_faster_message(name: str, verdicts: list[Verdict], rejected: tuple[Any, ...] = ()
                           ) -> str:
    """Why nothing was applied, with its reason: "No candidate for f was measured faster
    (noisy); nothing applied. Too few pairs to measure: …". A failure's or a noisy run's own
    message is the reason (the user's next step, a bench spec or a quieter machine, depends on
    it); with no candidate measured in full (every variant of a race left it), the parentheses
    are never empty: the message says so, and the race or a refused candidate says why."""
    if not verdicts:
        message = f"No candidate for {name} was measured in full; nothing applied"
        reason = next((str(r.reason) for r in rejected if getattr(r, "reason", "")), "")
        return f"{message}. Refused: {reason}" if reason else message
    words = ", ".join(dict.fromkeys(v.verdict for v in verdicts))
    message = f"No candidate for {name} was measured faster ({words}); nothing applied"
    why = next((v.message for v in verdicts if v.verdict in _FAILED and v.message), "") \
        or next((v.message for v in verdicts if v.verdict == "noisy" and v.message), "")
    return f"{message}. {why.rstrip('.')}." if why else message


def _rejected_message(site: FunctionSite, trials: tuple[Trial, ...]) -> str:
    """Why nothing was applied when every candidate was refused (the sandbox notice once)."""
    verdicts = [t.verdict for t in trials if t.verdict is not None]
    if any(v.message == NO_SANDBOX for v in verdicts):
        return NO_SANDBOX
    first = next((v for v in verdicts if v.verdict == "rejected"), None)
    return (f"No candidate for {site.name} may run: {first.message}" if first is not None
            else f"No candidate for {site.name}")


def _planner_code(planner: Planner, site: FunctionSite) -> OptimizeResult | None:
    last = getattr(planner, "last_code_for", None)
    if last is None:
        return None
    result: OptimizeResult | None = last(site)
    return result


def _score(trial: Trial) -> float:
    v = trial.verdict
    if v is None or v.verdict != "faster" or v.speedup is None:
        return 0.0
    # Rank by the lower end of the interval: a sure 1.8x beats a shaky 2x.
    return v.ci95[0] if v.ci95 is not None else v.speedup


# How much more a candidate slower than the original on one thread must gain at the configured
# threads, under each parallel policy, to be chosen over one that is not.
PARALLEL_MARGIN = {"max-threads": 1.0, "balanced": 1.25}
_ONE_THREAD_BAND = 0.03  # the runner's no-change band: within it, no loss on one thread


def one_thread_score(verdict: Verdict) -> float | None:
    """The lower bound of ``verdict``'s speedup on one thread: the speedup itself for a serial
    candidate, the separate 1-thread measurement for a parallel one (None when it is missing)."""
    if verdict.threads <= 1:
        if verdict.speedup is None:
            return None
        return verdict.ci95[0] if verdict.ci95 is not None else verdict.speedup
    if verdict.serial_speedup is None:
        return None
    return verdict.serial_ci95[0] if verdict.serial_ci95 is not None else verdict.serial_speedup


def slower_on_one_thread(verdict: Verdict) -> bool:
    """Whether a candidate is (or may be) slower than the original on one thread: its 1-thread
    interval lies below 1, or it has no 1-thread figure at all (nothing vouches for it)."""
    if verdict.threads <= 1:
        return False
    if verdict.serial_speedup is None:
        return True
    if verdict.serial_ci95 is not None:
        return verdict.serial_ci95[1] < 1.0
    return verdict.serial_speedup < 1.0 - _ONE_THREAD_BAND


def _rank(trial: Trial, index: int, policy: str) -> tuple[float, float, float, int]:
    """The sort key of a measured-faster trial under ``policy`` (larger is better).

    ``prefer-serial``: the 1-thread figure first, the N-thread one breaks ties. Otherwise the
    N-thread figure, divided by the policy's margin for a candidate slower on one thread (so it
    wins over one that is not only by that margin); ties go to the better 1-thread figure, then
    to the earlier candidate.
    """
    v = trial.verdict
    assert v is not None
    n = _score(trial)
    one = one_thread_score(v)
    one_or_zero = one if one is not None else 0.0
    if policy == "prefer-serial":
        return (one_or_zero, n, 0.0, -index)
    effective = n / PARALLEL_MARGIN.get(policy, 1.25) if slower_on_one_thread(v) else n
    return (effective, one_or_zero, n, -index)


def _choice_note(chosen: Trial, passed: list[Trial], policy: str) -> str:
    """Why the policy chose ``chosen`` over a candidate faster at the configured threads
    (empty when none was)."""
    beaten = [t for t in passed if _score(t) > _score(chosen)]
    if not beaten:
        return ""
    other = max(beaten, key=_score).verdict
    assert other is not None
    if policy == "prefer-serial":
        why = "the parallel policy prefer-serial ranks by the 1-thread figure"
    else:
        margin = PARALLEL_MARGIN.get(policy, 1.25)
        why = (f"it is slower on 1 thread, and the parallel policy {policy} asks for "
               f"{margin:.2f}× the other's gain at {other.threads} threads")
    return f" Chosen over a candidate with {speedup_phrase(other)}: {why}."


def choose(site: FunctionSite, plan: Plan, trials: tuple[Trial, ...],
           rejected: tuple[Any, ...] = (), policy: str = "balanced") -> Outcome:
    """Pick the measured-faster trial with the best lower confidence bound, if any, weighing
    the figures at the configured threads and at one thread by the parallel ``policy``
    (``prefer-serial``, ``balanced`` or ``max-threads``; see ``_rank``)."""
    passed = [(i, t) for i, t in enumerate(trials) if _score(t) > 0]
    if passed:
        index, best = max(passed, key=lambda p: _rank(p[1], p[0], policy))
        v = best.verdict
        # The editor's and the CLI's one wording and number format, not the runner's own.
        msg = speedup_phrase(v) if v is not None else ""
        msg += _choice_note(best, [t for _, t in passed], policy)
        return Outcome(site, plan, trials, tuple(rejected), index, "improved", msg)
    # Faster by the clock, but the inputs left behaviour of the original untested: offered for
    # the user to decide, never applied on its own.
    weak = [(i, _score(replace(t, verdict=replace(t.verdict, verdict="faster"))))
            for i, t in enumerate(trials)
            if t.verdict is not None and t.verdict.verdict == "weakly-verified"]
    if weak:
        index = max(weak, key=lambda x: x[1])[0]
        v = trials[index].verdict
        assert v is not None
        return Outcome(site, plan, trials, tuple(rejected), index, "weakly-verified", v.message)
    verdicts = [t.verdict for t in trials if t.verdict is not None]
    if verdicts and all(v.verdict == "needs-spec" for v in verdicts):
        # Nothing about the candidates was learned: what the function needs is the message.
        return Outcome(site, plan, trials, tuple(rejected), None, "not-improved",
                       verdicts[0].message)
    message = nothing_faster_message(site.name, verdicts, rejected)
    if trials and all(t.verdict is not None and t.verdict.verdict == "rejected"
                      for t in trials):
        message = _rejected_message(site, trials)
    elif any(t.verdict is not None and t.verdict.message == NO_SANDBOX for t in trials):
        message += ". " + NO_SANDBOX
    return Outcome(site, plan, trials, tuple(rejected), None, "not-improved", message)
