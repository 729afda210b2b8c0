"""Running a task set: plan and rewrite every task (concurrently), then verify and time each
candidate and the reference version one at a time, storing each task's result as it lands.

Timing needs quiet cores, so nothing else of ours runs while a measurement is in progress:
generation of all pending tasks finishes first, then the measuring pass runs serially.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from perfpilot.code.site import FunctionSite
from perfpilot.engine.engine import Engine, origin_of
from perfpilot.engine.outcome import Trial
from perfpilot.evaluation.pass_through import SHORT_OF
from perfpilot.evaluation.results import RejectedAnswer, SampleResult, TaskResult
from perfpilot.evaluation.store import ResultStore
from perfpilot.evaluation.tasks import Task
from perfpilot.progress import Cancelled, JobContext, gate_for_tests
from perfpilot.runner.measurement_inputs import MeasurementInputs
from perfpilot.runner.values import Tuning, Verdict
from perfpilot.settings import REFERENCE_ANSWERS, RoleSettings, settings_to_dict
from perfpilot.strategy.values import Candidate, OptimizeResult, Plan, Rejected


@dataclass(frozen=True)
class EvalOptions:
    """How a run proceeds (the backends themselves live in the engine's settings)."""

    jobs: int = 2  # tasks planned and rewritten at the same time
    fresh: bool = False  # ignore stored results
    reference: bool = True  # measure each task's reference version too
    retries: int = 1  # re-measure samples that came back noisy, once per retry, at the end
    code_key: str = ""  # names the code that made stored results; empty: a hash of the code


@dataclass(frozen=True)
class _Generated:
    """A task after planning and rewriting."""

    task: Task
    site: FunctionSite | None
    plan: Plan | None
    result: OptimizeResult | None
    seconds: float
    error: str = ""
    role: RoleSettings | None = None  # the optimizer's settings for this task (replay)


def _digest(*parts: object) -> str:
    text = json.dumps(parts, sort_keys=True, default=str)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def code_fingerprint() -> str:
    """A hash of PerfPilot's own code that decides results (backends, runner, analysis).

    Stored results made by other code are not reused: a changed rewrite rule must be
    measured again. The evaluation package and the editor layers do not count.
    """
    root = Path(__file__).resolve().parent.parent
    h = hashlib.sha256()
    for path in sorted(root.rglob("*")):
        rel = path.relative_to(root).as_posix()
        if not path.is_file() or path.suffix not in (".py", ".h", ".hpp") \
                or rel.split("/")[0] in _NOT_DECISIVE:
            continue
        h.update(rel.encode())
        h.update(path.read_bytes())
    return h.hexdigest()[:16]


_NOT_DECISIVE = ("evaluation", "lsp", "cli.py", "__main__.py")


def _detail(verdict: Verdict) -> str:
    """The evidence behind a verdict, in one line: the first compiler error of a failed build,
    else the validation's detail."""
    if verdict.verdict == "build-failed" and verdict.build_log.strip():
        from perfpilot.runner.build import first_error

        return first_error(verdict.build_log)
    return verdict.validation_detail


def sample_from_verdict(verdict: Verdict, categories: tuple[str, ...] = (),
                        round_: int = 0) -> SampleResult:
    """The stored form of a runner verdict (``round_``: the repair round it answers)."""
    return SampleResult(verdict=verdict.verdict, speedup=verdict.speedup, ci95=verdict.ci95,
                        serial_speedup=verdict.serial_speedup, threads=verdict.threads,
                        categories=categories, message=verdict.message, round=round_,
                        detail=_detail(verdict)[:500], needs_spec=verdict.needs_spec,
                        size=verdict.measurement.size if verdict.measurement else None)


def choose_sample(samples: Sequence[SampleResult]) -> int | None:
    """The faster sample with the best lower confidence bound (the engine's rule), if any."""
    best: tuple[float, int] | None = None
    for i, s in enumerate(samples):
        if s.verdict != "faster" or s.speedup is None:
            continue
        score = s.ci95[0] if s.ci95 is not None else s.speedup
        if best is None or score > best[0]:
            best = (score, i)
    return best[1] if best is not None else None


def _categories(cand: Candidate) -> tuple[str, ...]:
    return tuple(dict.fromkeys(s.category.name for s in cand.strategies))


class Evaluator:
    """Evaluates tasks with one engine, storing results in ``store``."""

    def __init__(self, engine: Engine, store: ResultStore, options: EvalOptions | None = None,
                 log: Callable[[str], None] | None = None) -> None:
        self.engine = engine
        self.store = store
        self.options = options or EvalOptions()
        self._log = log or (lambda _msg: None)
        self.resumed: list[str] = []  # tasks of the last run taken from stored results
        self._code = self.options.code_key or code_fingerprint()
        # Repair rounds' candidates by task: a noisy task measured again keeps them.
        self._repaired: dict[str, tuple[Candidate, ...]] = {}
        self._refused: dict[str, tuple[Rejected, ...]] = {}

    # -- replayed answers ----------------------------------------------------------------
    @property
    def replaying(self) -> bool:
        """Whether the optimizer replays answers written beforehand."""
        return self.engine.settings.optimizer.backend == "replay"

    def answers_folder(self, task: Task) -> Path | None:
        """Where the replayed answers of ``task`` are: with ``--answers reference`` a folder
        made under the output directory holding the task's reference unit as the answer;
        with ``--answers DIR`` the task's own subfolder of DIR when there is one, else DIR;
        otherwise the folder the task names (``answers`` in its task.toml), if any."""
        given = self.engine.settings.optimizer.answers
        if given == REFERENCE_ANSWERS:
            return self._reference_answers(task)
        if given:
            folder = Path(given)
            return folder / task.name if (folder / task.name).is_dir() else folder
        return task.answers

    def _reference_answers(self, task: Task) -> Path | None:
        if task.reference is None:
            return None
        folder = self.store.out_dir / "answers" / task.name
        folder.mkdir(parents=True, exist_ok=True)
        lang = "c" if task.language == "c" else "cpp"
        text = task.reference.read_text(encoding="utf-8")
        stem = task.function.split("::")[-1].strip()
        (folder / f"{stem}.md").write_text(
            f"A faster version of `{stem}` (the task's reference unit):\n\n```{lang}\n"
            f"{text.rstrip()}\n```\n", encoding="utf-8")
        return folder

    def _answers_digest(self, task: Task) -> str:
        """A hash of the replayed answer files of ``task`` (empty when not replaying)."""
        if not self.replaying:
            return ""
        given = self.engine.settings.optimizer.answers
        if given == REFERENCE_ANSWERS:
            return given
        folder = Path(given) if given else task.answers
        if folder is None:
            return ""
        if given and (folder / task.name).is_dir():
            folder = folder / task.name
        h = hashlib.sha256()
        for path in sorted(folder.glob("*.md")) if folder.is_dir() else ():
            h.update(path.name.encode() + b"\0" + path.read_bytes() + b"\0")
        return h.hexdigest()[:16]

    # -- keys ----------------------------------------------------------------------------
    def task_key(self, task: Task) -> str:
        """What a stored task result depends on: its files and every setting that matters."""
        s = settings_to_dict(self.engine.settings)
        return _digest(task.fingerprint(), s["planner"], s["optimizer"], s["runner"],
                       self.options.reference, self._code, self._answers_digest(task))

    def reference_key(self, task: Task) -> str:
        """What a stored reference measurement depends on: the task's files and the runner."""
        return _digest(task.fingerprint(), settings_to_dict(self.engine.settings)["runner"],
                       self._code)

    # -- the run -------------------------------------------------------------------------
    async def run(self, tasks: Sequence[Task], ctx: JobContext) -> list[TaskResult]:
        """Evaluate ``tasks`` (reusing stored results) and return the results in task order."""
        done: dict[str, TaskResult] = {}
        pending: list[Task] = []
        self.resumed = []
        for task in tasks:
            stored = None if self.options.fresh else self.store.load_task(task.name,
                                                                          self.task_key(task))
            if self.replaying and stored is not None and stored.measured \
                    and _falls_short(stored) \
                    and _undecided(stored.against_reference) and task.reference is not None:
                # Stored before answers were timed against their reference: only that
                # comparison runs (every stored figure is reused).
                done[task.name] = await self._compare_stored(task, stored, ctx)
                self.resumed.append(task.name)
            elif stored is not None and stored.measured:
                if stored.reference is not None and stored.reference.verdict == "noisy":
                    # Only the reference is measured again.
                    stored = replace(stored, reference=await self._reference(task, ctx, None))
                    self.store.save_task(stored)
                done[task.name] = stored
                self.resumed.append(task.name)
                self._log(f"{task.name}: stored result reused ({stored.verdict})")
            else:
                pending.append(task)
        if pending:
            generated = await self._generate_all(pending, ctx)
            # Several tasks are measured at once: the engine's gate lets their builds overlap
            # while each timing run has the cores to itself.
            slots = asyncio.Semaphore(max(1, self.options.jobs))
            finished = 0

            async def measure(gen: _Generated) -> TaskResult:
                nonlocal finished
                async with slots:
                    ctx.check()
                    await gate_for_tests(f"measure-{gen.task.name}", ctx)
                    result = await self._measure_task(gen, ctx, None)
                self.store.save_task(result)
                finished += 1
                self._log(f"[{finished}/{len(generated)}] {_describe(result)}")
                return result

            results = list(await asyncio.gather(*(measure(g) for g in generated)))
            for _attempt in range(self.options.retries):
                again = [(g, r) for g, r in zip(generated, results, strict=True)
                         if _has_noisy(r)]
                if not again:
                    break
                self._log(f"measuring {len(again)} noisy task(s) again")
                for gen, previous in again:
                    ctx.check()
                    result = await self._measure_task(gen, ctx, previous)
                    self.store.save_task(result)
                    self._log(f"again: {_describe(result)}")
                    results[results.index(previous)] = result
            done.update((r.task, r) for r in results)
        return [done[t.name] for t in tasks]

    async def _generate_all(self, tasks: Sequence[Task], ctx: JobContext) -> list[_Generated]:
        gate = asyncio.Semaphore(max(1, self.options.jobs))

        async def one(task: Task) -> _Generated:
            async with gate:
                return await self._generate(task, ctx)

        return list(await asyncio.gather(*(one(t) for t in tasks)))

    async def _generate(self, task: Task, ctx: JobContext) -> _Generated:
        start = time.perf_counter()
        site: FunctionSite | None = None
        role: RoleSettings | None = None
        try:
            site = task.site()
            plan = await self.engine.plan(site, ctx)
            if self.replaying:
                folder = self.answers_folder(task)
                if folder is None:
                    why = ("no replayed answer for `" + site.name + "`: the task has no "
                           "reference" if self.engine.settings.optimizer.answers
                           == REFERENCE_ANSWERS else "no replayed answer for `" + site.name
                           + "`: the task names no answers folder")
                    return _Generated(task, site, plan, OptimizeResult((), (
                        Rejected("replay", why),)), time.perf_counter() - start)
                role = replace(self.engine.settings.optimizer, answers=str(folder))
            result = await self.engine.candidates(site, plan, ctx, role=role)
        except Cancelled:
            raise
        except Exception as exc:  # one broken task must not stop the run; it is reported
            return _Generated(task, site, None, None, time.perf_counter() - start,
                              f"{type(exc).__name__}: {exc}")
        return _Generated(task, site, plan, result, time.perf_counter() - start, role=role)

    async def _measure_task(self, gen: _Generated, ctx: JobContext,
                            previous: TaskResult | None) -> TaskResult:
        task = gen.task
        start = time.perf_counter()
        planned = tuple(dict.fromkeys(s.category.name for s in gen.plan.strategies)) \
            if gen.plan is not None else ()
        base = TaskResult(task=task.name, openmp=task.openmp, labels=task.labels,
                          planned=planned, samples=(), chosen=None, key=self.task_key(task))
        reference = await self._reference(task, ctx, previous)
        base = replace(base, reference=reference)
        if gen.error or gen.site is None or gen.result is None:
            return replace(base, error=gen.error or "not generated", seconds=gen.seconds)
        samples: list[SampleResult] = []
        measured: list[Candidate] = []  # the candidate of each sample
        rejected = list(gen.result.rejected)
        try:
            cands = _one_per_rewrite(gen.result) + list(self._repaired.get(task.name, ()))
            measured += cands
            # Resolved once for the task: every candidate is measured (and keyed) with them.
            inputs = self.engine.measurement_inputs(gen.site, task.source, task.spec)
            verdicts: list[Verdict | None] = []
            for i, cand in enumerate(cands):
                old = previous.samples[i] if previous is not None \
                    and i < len(previous.samples) else None
                if old is not None and old.verdict != "noisy":
                    samples.append(old)
                    verdicts.append(None)
                    continue
                verdict = await self._measure_candidate(gen, cand, ctx, inputs)
                verdicts.append(verdict)
                samples.append(sample_from_verdict(verdict, _categories(cand), cand.round))
            if previous is None and gen.plan is not None:
                trials = tuple(Trial(c, v) for c, v in zip(cands, verdicts, strict=True))

                async def measure(cand: Candidate) -> Verdict:
                    return await self._measure_candidate(gen, cand, ctx, inputs)

                added, refused = await self.engine.repair_rounds(
                    gen.site, gen.plan, trials, ctx, measure, role=gen.role)
                self._repaired[task.name] = tuple(t.candidate for t in added)
                self._refused[task.name] = tuple(refused)
                for t in added:
                    assert t.verdict is not None
                    measured.append(t.candidate)
                    samples.append(sample_from_verdict(t.verdict, _categories(t.candidate),
                                                       t.candidate.round))
            rejected += self._refused.get(task.name, ())
        except Cancelled:
            raise
        except Exception as exc:  # reported as an unmeasured task, never as a success
            return replace(base, samples=tuple(samples), error=f"{type(exc).__name__}: {exc}",
                           seconds=gen.seconds + time.perf_counter() - start)
        reasons = "; ".join(r.reason for r in rejected)
        message = "" if samples else (reasons or "no rewrite applies")
        # A second attempt adds its time to the first one's (which includes generation).
        elapsed = time.perf_counter() - start + (
            previous.seconds if previous is not None else gen.seconds)
        chosen = choose_sample(samples)
        pinned = await self._reference_at(task, ctx, samples[chosen] if chosen is not None
                                          else None, reference, previous)
        result = replace(base, samples=tuple(samples), chosen=chosen,
                         message=message, seconds=elapsed, reference_at_size=pinned,
                         rejected=tuple(RejectedAnswer(r.reason, r.round, r.answer[-4000:])
                                        for r in rejected))
        direct = await self._against_reference(
            gen, measured[chosen] if chosen is not None else None, result, ctx, previous)
        return replace(result, against_reference=direct)

    async def _compare_stored(self, task: Task, stored: TaskResult,
                              ctx: JobContext) -> TaskResult:
        """``stored`` with its chosen answer timed against the reference (the answer is
        generated again: replayed, it is the same; a repair round's answer is not redone)."""
        gen = await self._generate(task, ctx)
        cands = _one_per_rewrite(gen.result) if gen.result is not None else []
        chosen = stored.chosen
        cand = cands[chosen] if chosen is not None and chosen < len(cands) \
            and stored.samples[chosen].round == 0 else None
        result = replace(stored, against_reference=await self._against_reference(
            gen, cand, stored, ctx, None))
        self.store.save_task(result)
        self._log(f"{task.name}: stored result reused, answer timed against the reference: "
                  f"{_describe(result)}")
        return result

    async def _against_reference(self, gen: _Generated, cand: Candidate | None,
                                 result: TaskResult, ctx: JobContext,
                                 previous: TaskResult | None) -> SampleResult | None:
        """The chosen answer timed against the reference in one paired run, at the answer's
        size, when their separate figures say the answer falls short (see
        ``TaskResult.against_reference``); else None."""
        task, best = gen.task, result.best
        # Only a replayed answer has a reference to be held to (pass-through).
        if not self.replaying or cand is None or gen.site is None or task.reference is None \
                or best is None or best.size is None or not _falls_short(result):
            return None
        old = previous.against_reference if previous is not None else None
        if old is not None and old.size == best.size and old.verdict != "noisy":
            return old
        from perfpilot.code.splice import splice

        with tempfile.TemporaryDirectory(prefix="perfpilot-answer-") as folder:
            answer = Path(folder) / task.source.name
            answer.write_text(splice(gen.site, cand.code, cand.includes), encoding="utf-8")
            return await self._reference_against(task, answer, best.size, ctx)

    async def _reference_at(self, task: Task, ctx: JobContext, best: SampleResult | None,
                            reference: SampleResult | None,
                            previous: TaskResult | None) -> SampleResult | None:
        """The reference timed again at ``best``'s size when both were measured faster at
        different sizes (each measurement calibrates its own size), else None."""
        if best is None or reference is None or best.size is None or reference.size is None \
                or best.verdict != "faster" or reference.verdict != "faster" \
                or best.size == reference.size or task.reference is None:
            return None
        if previous is not None and previous.reference_at_size is not None \
                and previous.reference_at_size.size == best.size \
                and previous.reference_at_size.verdict != "noisy":
            return previous.reference_at_size
        return await self._reference_against(task, task.source, best.size, ctx)

    async def _reference_against(self, task: Task, original: Path, size: int,
                                 ctx: JobContext) -> SampleResult:
        """The task's reference timed at ``size`` as the candidate to ``original`` (the task's
        source, or a unit holding an answer), built with the source's folder and flags."""
        from perfpilot.runner.measure import bench_files

        assert task.reference is not None
        tuning = replace(self.engine.tuning or Tuning(), min_size=size, max_size=size)
        try:
            verdict = await bench_files(original, task.function, task.reference,
                                        self.engine.settings.runner, ctx, spec=task.spec,
                                        gate=self.engine.gate, tuning=tuning,
                                        built_as=task.source)
        except Cancelled:
            raise
        except Exception as exc:  # context, like the reference itself: shown, not fatal
            return SampleResult(verdict="build-failed", message=f"{type(exc).__name__}: {exc}")
        return sample_from_verdict(verdict)

    async def _measure_candidate(self, gen: _Generated, cand: Candidate, ctx: JobContext,
                                 inputs: MeasurementInputs) -> Verdict:
        assert gen.site is not None
        return await self.engine.measure(gen.site, cand.code, ctx, includes=cand.includes,
                                         origin=origin_of(cand), inputs=inputs)

    async def _reference(self, task: Task, ctx: JobContext,
                         previous: TaskResult | None) -> SampleResult | None:
        if not self.options.reference or task.reference is None:
            return None
        if previous is not None and previous.reference is not None \
                and previous.reference.verdict != "noisy":
            return previous.reference
        key = self.reference_key(task)
        stored = None if self.options.fresh or previous is not None \
            else self.store.load_reference(task.name, key)
        if stored is not None and stored.verdict != "noisy":
            return stored
        from perfpilot.runner.measure import bench_files

        try:
            verdict = await bench_files(task.source, task.function, task.reference,
                                        self.engine.settings.runner, ctx, spec=task.spec,
                                        gate=self.engine.gate)
        except Cancelled:
            raise
        except Exception as exc:  # the reference is context; its failure is shown, not fatal
            return SampleResult(verdict="build-failed", message=f"{type(exc).__name__}: {exc}")
        result = sample_from_verdict(verdict)
        self.store.save_reference(task.name, key, result)
        return result


def _one_per_rewrite(result: OptimizeResult) -> list[Candidate]:
    """One candidate per rewrite: of a family of variants (schedules of one OpenMP rewrite)
    only the rule's own choice, so that sample counts keep their meaning."""
    return [c for c in result.candidates
            if not c.family or c is next(d for d in result.candidates if d.family == c.family)]


def _falls_short(result: TaskResult) -> bool:
    """Whether the chosen answer and the reference were both measured faster and the
    answer's figure is under ``SHORT_OF`` of the reference's."""
    best, ref = result.best, result.compared_reference
    return best is not None and ref is not None and best.verdict == ref.verdict == "faster" \
        and best.size is not None and bool(best.speedup) \
        and bool(ref.speedup) and (best.speedup or 0.0) < SHORT_OF * (ref.speedup or 0.0)


def _undecided(direct: SampleResult | None) -> bool:
    """Whether a task's answer still waits for its paired run against the reference."""
    return direct is None or direct.verdict == "noisy"


def _has_noisy(result: TaskResult) -> bool:
    if result.against_reference is not None and _undecided(result.against_reference):
        return True
    return any(s.verdict == "noisy" for s in result.samples) or (
        result.reference is not None and result.reference.verdict == "noisy")


def _describe(result: TaskResult) -> str:
    text = f"{result.task}: {result.verdict}"
    if result.raw_speedup is not None:
        text += f" {result.raw_speedup:.2f}×"
    ref = result.reference
    if ref is not None:
        text += f" (reference {ref.verdict}"
        text += f" {ref.speedup:.2f}×)" if ref.speedup is not None else ")"
    if result.error:
        text += f" — {result.error}"
    return text
