"""A session: background jobs and per-function results for open documents.

The language server keeps one session. Jobs run as asyncio tasks on the server's loop; each has a
JobContext whose cancellation reaches the model and the runner's subprocesses. Results are kept by
document URI and qualified function name, so hover, lenses and Revert find them after the edit.
"""

from __future__ import annotations

import asyncio
import itertools
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from urllib.parse import unquote, urlparse

from perfpilot.code.callees import caller_part
from perfpilot.code.locate import LocateError, function_by_name
from perfpilot.code.site import FunctionSite
from perfpilot.code.splice import splice
from perfpilot.engine.applied_store import (
    AppliedStore,
    StoredRewrite,
    outcome_from_json,
    outcome_to_json,
)
from perfpilot.engine.engine import Engine, choose
from perfpilot.engine.outcome import Outcome, Trial
from perfpilot.engine.present import rerun_kept_message
from perfpilot.progress import Cancelled, JobContext, gate_for_tests

log = logging.getLogger(__name__)

# Stages at which a job has its result: the editor shows the result, not a running state,
# even while the job still delivers it (an edit in flight is already in the buffer).
RESULT_STAGES = frozenset({"applying", "done", "failed", "cancelled"})

# What Revert says when the function was edited after its rewrite was applied: restoring the
# original would throw the edits away.
REVERT_CHANGED = "Revert no longer applies: the function changed"


def path_of_uri(uri: str) -> Path | None:
    """The local path of a ``file:`` URI, else None."""
    parsed = urlparse(uri)
    return Path(unquote(parsed.path)) if parsed.scheme == "file" else None


@dataclass
class Job:
    """A running or finished background job (mutable: its stage changes as it runs)."""

    id: str
    kind: str  # "optimize", "explain" or "rerun"
    uri: str
    function: str
    site: FunctionSite
    ctx: JobContext
    stage: str = "queued"
    message: str = ""
    percent: int | None = None
    task: asyncio.Task[None] | None = None
    outcome: Outcome | None = None
    error: str = ""
    cancelled: bool = False
    reported: bool = False  # the listeners were told that the job ended
    given_up: bool = False  # cancelled, and did not stop in time

    @property
    def done(self) -> bool:
        """Whether the job has finished (successfully or not), or was given up on."""
        return self.given_up or (self.task is not None and self.task.done())

    @property
    def active(self) -> bool:
        """Whether the job is still working towards its result (not done, no result yet)."""
        return not self.done and self.stage not in RESULT_STAGES


@dataclass
class FunctionRecord:
    """What we know about one function of one document."""

    outcome: Outcome
    original_text: str
    applied: bool = False
    applied_text: str = ""
    added_includes: tuple[str, ...] = ()  # headers the applied rewrite added to the unit
    # Copies of callees the applied rewrite put just above the function (builtin callee
    # rewrites, ``optimizing/builtin/callees.py``): Revert removes them with it.
    added_before: str = ""
    stale: bool = False
    # Why the chosen rewrite is not in the code although it was offered (discarded in the
    # preview or the prompt, refused by the editor): no figure is claimed for the function.
    declined: str = ""
    inputs: tuple[Path, ...] = ()
    history: list[Outcome] = field(default_factory=list)


JobListener = Callable[[Job], Awaitable[None] | None]


class Session:
    """Owns jobs and results; notifies listeners on progress and completion."""

    def __init__(self, engine: Engine, cancel_grace_s: float = 10.0) -> None:
        self.engine = engine
        self.cancel_grace_s = cancel_grace_s
        self.jobs: dict[str, Job] = {}
        self.records: dict[str, dict[str, FunctionRecord]] = {}
        self._ids = itertools.count(1)
        self.on_progress: JobListener | None = None
        self.on_done: JobListener | None = None
        # Functions whose kept rewrite (``.perfpilot/applied/``) no longer matches their text.
        self.changed: dict[str, set[str]] = {}
        # The outcome of each function's reverted rewrite: the report still shows it.
        self.reverted_outcomes: dict[str, dict[str, Outcome]] = {}

    def _applied_store(self) -> AppliedStore | None:
        root = self.engine.workspace
        return AppliedStore(root) if root is not None else None

    def _keep(self, uri: str, function: str, rec: FunctionRecord) -> None:
        """Write an applied record to ``.perfpilot/applied/`` (a restart finds it again)."""
        store, path = self._applied_store(), path_of_uri(uri)
        if store is None or path is None:
            return
        store.put(path, StoredRewrite(function, rec.original_text, rec.applied_text,
                                      rec.added_before, rec.added_includes,
                                      outcome_to_json(rec.outcome)))

    def restore(self, uri: str, sites: list[FunctionSite]) -> list[str]:
        """Bring back the kept applied rewrites of a document's functions (after a restart or
        a reopen): a function whose text is still the applied rewrite gets its record back;
        one edited since is remembered as changed. Returns the functions restored."""
        store, path = self._applied_store(), path_of_uri(uri)
        if store is None or path is None:
            return []
        restored: list[str] = []
        per_doc = self.records.setdefault(uri, {})
        for site in sites:
            name = site.qualified_name
            if name in per_doc:
                continue
            kept = store.get(path, name)
            if kept is None:
                continue
            if not kept.matches(site.text):
                self.changed.setdefault(uri, set()).add(name)
                continue
            rec = self._record_of(kept, site)
            if rec is not None:
                per_doc[name] = rec
                self.changed.get(uri, set()).discard(name)
                restored.append(name)
        if not per_doc:
            self.records.pop(uri, None)
        return restored

    def _record_of(self, kept: StoredRewrite, site: FunctionSite) -> FunctionRecord | None:
        """The record of a kept rewrite, its outcome about the original function (rebuilt by
        putting the original text back in the current unit)."""
        try:
            unit = splice(site, kept.original_text)
            original = function_by_name(unit, site.language, site.qualified_name, uri=site.uri,
                                        check_errors=False)
            outcome = outcome_from_json(kept.outcome_json, original)
        except (LocateError, KeyError, TypeError, ValueError) as exc:
            log.warning("kept rewrite of %s not restored: %s", site.qualified_name, exc)
            return None
        return FunctionRecord(outcome, original_text=kept.original_text, applied=True,
                              applied_text=kept.applied_text,
                              added_includes=kept.added_includes,
                              added_before=kept.added_before,
                              inputs=self.engine.measurement_inputs(
                                  original, path_of_uri(site.uri)).paths)

    def revert_refusal(self, uri: str, function: str, text: str) -> str | None:
        """Why Revert must not restore the original of ``function`` (current ``text``): the
        function was edited after its rewrite was applied. None when Revert applies (or there
        is nothing to revert)."""
        rec = self.record(uri, function)
        if rec is None:
            return REVERT_CHANGED if function in self.changed.get(uri, set()) else None
        if rec.applied and text.strip() != rec.applied_text.strip():
            return REVERT_CHANGED
        return None

    # -- queries (cheap; used by hover, lenses, code actions) ---------------------------
    def record(self, uri: str, function: str) -> FunctionRecord | None:
        """The result record for a function, if any."""
        return self.records.get(uri, {}).get(function)

    def needs_spec(self, uri: str, function: str) -> bool:
        """Whether the function's last job could not measure its candidates because the
        generated harness cannot build its inputs: a bench spec (which can be drafted) is
        what it needs."""
        rec = self.record(uri, function)
        return rec is not None and any(t.verdict is not None and t.verdict.needs_spec
                                       for t in rec.outcome.trials)

    def claims_result(self, uri: str, function: str) -> bool:
        """Whether the function's chosen rewrite is in the code (applied) or being put there
        (its edit in flight): only then may the editor show its figure on the function."""
        rec = self.record(uri, function)
        if rec is None or rec.declined:
            return False
        return rec.applied or any(j.uri == uri and j.function == function
                                  and j.stage == "applying" for j in self.jobs.values())

    def running(self, uri: str, function: str | None = None) -> list[Job]:
        """Jobs of a document (and function) still working towards their result."""
        return [j for j in self.jobs.values() if j.active and j.uri == uri
                and (function is None or j.function == function)]

    # -- jobs -----------------------------------------------------------------------------
    def start(self, kind: str, site: FunctionSite, *, source_path: Path | None = None,
              baseline_text: str | None = None, fresh: bool = False) -> Job:
        """Start a background job for ``site``; an unfinished job for it is cancelled first.

        ``fresh`` makes an ``optimize`` job measure its candidates again rather than reuse
        cached verdicts (Re-run of a result that was not applied); ``rerun`` jobs always do."""
        for old in self.running(site.uri, site.qualified_name):
            self.cancel(old.id)
        job_id = f"pp-{next(self._ids)}"

        def report(stage: str, message: str, percent: int | None) -> None:
            job.stage, job.message, job.percent = stage, message, percent
            self._notify(self.on_progress, job)

        job = Job(job_id, kind, site.uri, site.qualified_name, site, JobContext(on_report=report))
        self.jobs[job_id] = job
        job.task = asyncio.get_running_loop().create_task(
            self._run(job, source_path, baseline_text, fresh), name=job_id)
        job.task.add_done_callback(lambda _task: self._ended_unreported(job))
        return job

    def _ended_unreported(self, job: Job) -> None:
        """A task cancelled before its first step never runs ``_run``, so nothing reported
        its end: report it here."""
        if not job.reported:
            self._report_cancelled(job)

    def _report_cancelled(self, job: Job) -> None:
        job.cancelled = True
        job.stage, job.message = "cancelled", "cancelled"
        job.reported = True
        self._notify(self.on_done, job)

    def cancel(self, job_id: str) -> bool:
        """Cancel a job: its context is flagged so backends and subprocesses stop."""
        job = self.jobs.get(job_id)
        if job is None or job.done:
            return False
        job.cancelled = True
        job.ctx.cancel()
        if job.task is not None:
            job.task.cancel()
        asyncio.get_running_loop().call_later(self.cancel_grace_s, self._give_up, job)
        return True

    def _give_up(self, job: Job) -> None:
        """A cancelled job that has not stopped in time is reported as cancelled anyway, so
        the editor is never left showing it; its subprocesses were already told to stop."""
        if job.reported:
            return
        log.warning("job %s did not stop within %.0f s of being cancelled", job.id,
                    self.cancel_grace_s)
        job.given_up = True
        self._report_cancelled(job)

    async def _run(self, job: Job, source_path: Path | None, baseline_text: str | None,
                   fresh: bool = False) -> None:
        try:
            await gate_for_tests("queued", job.ctx)
            if job.kind == "explain":
                plan = await self.engine.plan(job.site, job.ctx, plan_only_mode=True)
                job.outcome = Outcome(job.site, plan, status="planned",
                                      message=f"{len(plan.strategies)} strategies")
            elif job.kind == "rerun":
                job.outcome = await self._rerun(job, source_path, baseline_text)
            else:
                job.outcome = await self.engine.optimize(job.site, job.ctx,
                                                         source_path=source_path, fresh=fresh)
            job.stage = "done"
            job.message = job.outcome.message
            self._store(job, source_path)
        except (Cancelled, asyncio.CancelledError):
            job.cancelled = True
            job.stage = "cancelled"
            job.message = "cancelled"
        except Exception as exc:  # a failing job must never take the server down
            log.exception("job %s failed", job.id)
            job.stage = "failed"
            job.error = f"{type(exc).__name__}: {exc}"
        if not job.reported:
            job.reported = True
            await self._notify_async(self.on_done, job)

    async def _rerun(self, job: Job, source_path: Path | None,
                     baseline_text: str | None) -> Outcome:
        """Measure the current function text against the remembered original, afresh: a
        Re-run never answers from the cache, and its figure replaces the cached one."""
        rec = self.record(job.uri, job.function)
        if rec is None or baseline_text is None:
            raise ValueError("nothing to re-run: optimize this function first")
        from perfpilot.strategy.values import Candidate

        # The original unit is the current unit with the original function text back in place.
        original_unit = splice(job.site, baseline_text)
        original_site = function_by_name(original_unit, job.site.language,
                                         job.site.qualified_name, uri=job.uri)
        # The text in the editor is the user's own (edited, or a rewrite already checked).
        verdict = await self.engine.measure(original_site, job.site.text, job.ctx, source_path,
                                            fresh=True, origin="user")
        strategies = rec.outcome.chosen.candidate.strategies if rec.outcome.chosen else ()
        cand = Candidate(job.site.text, strategies, "current text")
        outcome = choose(original_site, rec.outcome.plan, (Trial(cand, verdict),))
        if outcome.chosen is None and rec.applied:
            # The rewrite is in the file all the same: the message must not say otherwise.
            outcome = replace(outcome, message=rerun_kept_message(verdict))
        return outcome

    def _store(self, job: Job, source_path: Path | None) -> None:
        if job.outcome is None:
            return
        inputs = self.engine.measurement_inputs(job.site, source_path).paths
        per_doc = self.records.setdefault(job.uri, {})
        prev = per_doc.get(job.function)
        if job.kind == "rerun" and prev is not None:
            prev.history.append(prev.outcome)
            prev.outcome = job.outcome
            prev.stale = False
            prev.inputs = inputs
            if prev.applied:
                self._keep(job.uri, job.function, prev)
            return
        per_doc[job.function] = FunctionRecord(job.outcome, original_text=job.site.text,
                                               inputs=inputs)

    def affected_by(self, path: Path) -> list[tuple[str, str, FunctionRecord]]:
        """Records whose measurement depended on ``path``, or now does (a new spec file or
        compile database), so their results are stale."""
        out = []
        for uri, per_doc in self.records.items():
            source = path_of_uri(uri)
            for name, rec in per_doc.items():
                now = self.engine.measurement_inputs(rec.outcome.site, source).paths
                if path in rec.inputs or path in now:
                    out.append((uri, name, rec))
        return out

    def mark_stale_by_inputs(self, path: Path) -> list[tuple[str, str, FunctionRecord]]:
        """Mark the records that depend on ``path`` (see ``affected_by``) stale; returns them."""
        affected = self.affected_by(path)
        for _uri, _name, rec in affected:
            rec.stale = True
        return affected

    def check_staleness(self, uri: str, text_of: Callable[[str], str | None]) -> None:
        """After an edit of a document: a record is stale once its function's text
        (``text_of(name)``, None when the function is gone) differs from what was measured.
        The text of an applied rewrite is not a change."""
        for name, rec in self.records.get(uri, {}).items():
            text = text_of(name)
            expected = rec.applied_text if rec.applied else rec.original_text
            rec.stale = text is None or text.strip() != expected.strip()

    @staticmethod
    def remeasure(rec: FunctionRecord) -> tuple[str, str | None]:
        """The job that measures a record again, and its baseline: an applied rewrite is
        re-run against the original text; otherwise the candidates are optimized again."""
        return ("rerun", rec.original_text) if rec.applied else ("optimize", None)

    def mark_applied(self, uri: str, function: str, text: str,
                     includes: tuple[str, ...]) -> bool:
        """The editor applied a rewrite of ``function``; False when it has no record."""
        rec = self.record(uri, function)
        if rec is None:
            return False
        rec.applied = True
        rec.declined = ""
        # The function's own definition is what the editor shows under its name; copies of
        # callees the rewrite put before it are kept apart.
        rec.added_before, rec.applied_text = caller_part(text, rec.outcome.site)
        rec.added_includes = includes
        self._keep(uri, function, rec)
        return True

    def declined(self, uri: str, function: str, reason: str) -> None:
        """The user (or the editor) did not take the offered rewrite of ``function``: its
        record stays (Details, Re-run) but claims no result for the unchanged code."""
        rec = self.record(uri, function)
        if rec is not None and not rec.applied:
            rec.declined = reason

    def reverted_outcome(self, uri: str, function: str) -> Outcome | None:
        """The outcome of the function's last reverted rewrite (None once it has a record
        again, or was never reverted)."""
        if self.record(uri, function) is not None:
            return None
        return self.reverted_outcomes.get(uri, {}).get(function)

    def reverted(self, uri: str, function: str) -> None:
        """The editor restored the original text: the function's result is dropped."""
        rec = self.records.get(uri, {}).pop(function, None)
        if rec is not None:
            rec.applied = False
            self.reverted_outcomes.setdefault(uri, {})[function] = rec.outcome
        store, path = self._applied_store(), path_of_uri(uri)
        if store is not None and path is not None:
            store.remove(path, function)

    @staticmethod
    def set_stage(job: Job, stage: str, message: str) -> None:
        """A stage of delivering a job's result (confirming, applying the edit, done)."""
        job.stage, job.message = stage, message

    def _notify(self, listener: JobListener | None, job: Job) -> None:
        if listener is None:
            return
        result = listener(job)
        if asyncio.iscoroutine(result):
            asyncio.get_running_loop().create_task(result)

    async def _notify_async(self, listener: JobListener | None, job: Job) -> None:
        if listener is None:
            return
        result = listener(job)
        if asyncio.iscoroutine(result):
            await result

    def forget(self, uri: str) -> None:
        """Drop results for a closed document and cancel its jobs."""
        for job in self.running(uri):
            self.cancel(job.id)
        self.records.pop(uri, None)
        self.changed.pop(uri, None)
        self.reverted_outcomes.pop(uri, None)
