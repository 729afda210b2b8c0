"""Jobs on the LSP side: starting them, their work-done progress and ``perfpilot/jobStatus``
notifications, and delivering a finished job's result (the versioned edit, messages).

The engine's Session owns jobs and results; this module only shows them to the client and
tells the session what the editor did (an edit applied).
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import TYPE_CHECKING

from lsprotocol import types as lsp
from pygls.exceptions import JsonRpcException

from perfpilot.code.site import FunctionSite
from perfpilot.code.splice import splice
from perfpilot.engine.outcome import Outcome
from perfpilot.engine.present import draft_spec_hint, needs_spec_verdict, speedup_phrase
from perfpilot.engine.session import FunctionRecord, Job, path_of_uri
from perfpilot.engine.spec_drafts import spec_unfinished
from perfpilot.lsp.convert import StaleSiteError, function_edit
from perfpilot.lsp.protocol import (
    NOTIFY_JOB,
    NOTIFY_RESULT,
    REQUEST_CONFIRM_REWRITE,
    ConfirmRewriteParams,
    JobStatus,
    ResultMessage,
)
from perfpilot.lsp.views import publish_diagnostics

if TYPE_CHECKING:
    from perfpilot.lsp.language_server import PerfPilotServer


def job_status(job: Job) -> JobStatus:
    """The ``perfpilot/jobStatus`` params for a job."""
    return JobStatus(job_id=job.id, uri=job.uri, function=job.function, kind=job.kind,
                     stage=job.stage,
                     done=job.done or job.stage in ("done", "failed", "cancelled"),
                     message=job.error or job.message)


class JobRunner:
    """Starts the session's jobs for the server and shows their progress and results."""

    def __init__(self, ls: PerfPilotServer) -> None:
        self.ls = ls
        self.session = ls.session
        self.session.on_progress = self._on_job_progress
        self.session.on_done = self._on_job_done
        self.progress_tokens: dict[str, str] = {}  # progress token -> job id
        self._last_stage: dict[str, str] = {}
        self._tasks: set[asyncio.Task[None]] = set()
        # The job whose apply question about a function (uri, name) is the open one.
        self._asking: dict[tuple[str, str], str] = {}
        # Functions whose inputs changed while a job on them ran: measured again after it.
        self._inputs_changed_during: dict[tuple[str, str], Path] = {}

    def inputs_changed(self, path: Path) -> None:
        """A spec, input or compile database changed: results that used it are re-measured.
        An unfinished spec (empty, or a draft with TODO markers) is not measured until it is
        saved complete."""
        ls = self.ls
        if spec_unfinished(path):
            ls.log_info(f"{path.name} changed but is not complete (empty or with TODO "
                        "markers): measuring once it is saved without them")
            return
        for uri, name, rec in self.session.mark_stale_by_inputs(path):
            self._remeasure(uri, name, rec, path)
        ls.refresh()

    def _remeasure(self, uri: str, name: str, rec: FunctionRecord, path: Path) -> None:
        """Measure ``name`` again because ``path``, one of its inputs, changed."""
        if uri not in self.ls.workspace.text_documents:
            return
        if self.session.running(uri, name):
            # The running job may have read the old inputs: measure again after it.
            self._inputs_changed_during[(uri, name)] = path
            return
        site = self.ls.site_named(self.ls.document(uri), name)
        if site is None:
            return
        self.ls.log_info(f"{path.name} changed: re-measuring {name}")
        if rec.applied or rec.outcome.trials:
            kind, baseline = self.session.remeasure(rec)
            self.start(kind, site, baseline)

    def start(self, kind: str, site: FunctionSite, baseline: str | None = None,
              fresh: bool = False) -> Job:
        """Start a job and its work-done progress (``fresh``: measure, never reuse a verdict)."""
        path = path_of_uri(site.uri)
        job = self.session.start(kind, site, source_path=path, baseline_text=baseline,
                                 fresh=fresh)
        if self.ls.supports_progress() and not self.ls.client_shows_jobs:
            self._tasks = {t for t in self._tasks if not t.done()}
            self._tasks.add(asyncio.get_running_loop().create_task(self._begin_progress(job)))
        self._notify_job(job)
        self.ls.refresh()
        return job

    async def _begin_progress(self, job: Job) -> None:
        token = job.id
        try:
            await self.ls.work_done_progress.create_async(token)
        except Exception as exc:
            self.ls.log_info(f"progress not created: {exc}")
            return
        self.progress_tokens[token] = job.id
        title = {"optimize": "Making faster", "explain": "Planning",
                 "rerun": "Re-running benchmark"}.get(job.kind, job.kind)
        self.ls.work_done_progress.begin(token, lsp.WorkDoneProgressBegin(
            title=f"PerfPilot: {title} {job.site.name}", cancellable=True,
            message=job.stage))
        if job.done:
            self._end_progress(job)

    def cancel_progress(self, token: str) -> None:
        """The user cancelled a job's work-done progress: the job is cancelled."""
        job_id = self.progress_tokens.get(token)
        if job_id is not None:
            self.session.cancel(job_id)
        else:  # a profile or a confirmation in the program
            self.ls.profiles.cancel_job(token)

    def _end_progress(self, job: Job) -> None:
        if job.id in self.progress_tokens:
            self.progress_tokens.pop(job.id)
            msg = job.error or job.message or job.stage
            self.ls.work_done_progress.end(job.id, lsp.WorkDoneProgressEnd(message=msg))

    def _on_job_progress(self, job: Job) -> None:
        new_stage = self._last_stage.get(job.id) != job.stage
        if new_stage:
            self._last_stage[job.id] = job.stage
            self.ls.log_info(f"{job.id} {job.site.name}: {job.stage}")
        if job.id in self.progress_tokens:
            text = f"{job.stage}: {job.message}" if job.message else job.stage
            self.ls.work_done_progress.report(job.id, lsp.WorkDoneProgressReport(
                message=text, percentage=job.percent))
        self._notify_job(job)
        if new_stage:
            self.ls.refresh()  # the running lens shows the stage: never let it lag the job

    def _notify_job(self, job: Job) -> None:
        self.ls.protocol.notify(NOTIFY_JOB, job_status(job))

    async def _on_job_done(self, job: Job) -> None:
        self._last_stage.pop(job.id, None)
        detail = job.error or job.message
        self.ls.log_info(f"{job.id} {job.site.name}: {job.stage}"
                         + (f" {detail}" if detail and detail != job.stage else ""))
        self._end_progress(job)
        try:
            await self._finish(job)
        finally:
            # The final status goes out last, so a client that sees it also saw the edit.
            self._notify_job(job)
        changed = self._inputs_changed_during.pop((job.uri, job.site.name), None)
        rec = self.session.record(job.uri, job.site.name)
        if changed is not None and rec is not None and not job.cancelled:
            self._remeasure(job.uri, job.site.name, rec, changed)
            self.ls.refresh()

    async def _finish(self, job: Job) -> None:
        if job.cancelled:
            pass  # nothing to apply or tell: the user asked for it to stop
        elif job.error:
            self.ls.tell(f"PerfPilot: {job.site.name}: {job.error}", lsp.MessageType.Error)
        elif job.outcome is not None and job.kind == "optimize":
            await self._deliver(job, job.outcome)
        elif job.outcome is not None and job.kind == "rerun":
            said = job.outcome.message or job.outcome.status
            self._result(job, f"PerfPilot: {job.site.name}: {said}")
        publish_diagnostics(self.ls, job.uri)
        self.ls.refresh()

    async def _deliver(self, job: Job, outcome: Outcome) -> None:
        """Apply the chosen candidate as a versioned edit, if the apply mode allows."""
        chosen = outcome.chosen
        name = job.site.name
        # A question still open about this function quotes an older measurement: withdrawn.
        self._withdraw_question(job.uri, job.function)
        if chosen is None:
            if needs_spec_verdict(outcome) is not None:
                # Already says "PerfPilot cannot build inputs ...": what to do next follows.
                self._result(job, f"{outcome.message} {draft_spec_hint(name)}")
            else:
                self._result(job, f"PerfPilot: {outcome.message}")
            return
        doc = await self.ls.document_async(job.uri)
        if doc.version != job.site.version or not self.ls.in_sync(job.uri):
            self.session.declined(job.uri, job.function, "the function changed while it ran")
            self.ls.tell(f"PerfPilot: {name} changed while the job ran (version "
                      f"{job.site.version} → {doc.version}); the rewrite was not applied. "
                      "Run Make this faster again.", lsp.MessageType.Warning)
            return
        mode = self.ls.engine.settings.apply_mode
        weak = outcome.status == "weakly-verified"
        if mode == "ask" or weak:
            measured = speedup_phrase(chosen.verdict) if chosen.verdict else "not measured"
            if weak and chosen.verdict is not None:
                measured = chosen.verdict.message
            # Waiting for the user's word: the lens shows that, not a result.
            self.session.set_stage(job, "awaiting confirmation", "apply or discard the rewrite")
            self._notify_job(job)
            self.ls.refresh()
            key = (job.uri, job.function)
            self._asking[key] = job.id
            try:
                proposed = splice(job.site, chosen.candidate.code, chosen.candidate.includes)
                choice = await self._ask(job, measured, weak, proposed)
            finally:
                self.session.set_stage(job, "done", outcome.message)
            self.ls.log_info(f"{job.id} {name}: apply question answered: {choice or 'no answer'}")
            if self._asking.get(key) != job.id:
                # A newer measurement (a Re-run's) asks with its own figure: this question
                # was replaced, and its answer decides nothing.
                return
            del self._asking[key]
            if choice != "Apply":
                self.session.declined(job.uri, job.function, "you discarded it")
                self._result(job, f"PerfPilot: rewrite of {name} discarded")
                return
            doc = await self.ls.document_async(job.uri)
            if doc.version != job.site.version or not self.ls.in_sync(job.uri):
                self.session.declined(job.uri, job.function, "the function changed meanwhile")
                self.ls.tell(f"PerfPilot: {name} changed meanwhile; not applied",
                          lsp.MessageType.Warning)
                return
        main = outcome.plan.main_category
        strategy = chosen.candidate.strategies[0].category.name if chosen.candidate.strategies \
            else (main.name if main else "rewrite")
        label = f"Optimize {name} ({strategy})"
        confirm = mode == "preview" and self.ls.supports_annotations()
        try:
            # A preview's row for the change: short, so the editor leaves room for its tick.
            edit = function_edit(doc, job.site, chosen.candidate.code,
                                 f"PerfPilot: {name} — {strategy}" if confirm else label,
                                 version=doc.version, confirm=confirm,
                                 includes=chosen.candidate.includes,
                                 confirm_by_file_op=self.ls.supports_create_file()
                                 and _on_disk(job.uri))
        except StaleSiteError as exc:
            self.session.declined(job.uri, job.function, str(exc))
            self.ls.tell(f"PerfPilot: rewrite of {name} not applied: {exc}",
                      lsp.MessageType.Warning)
            return
        if confirm:
            self.session.set_stage(job, "awaiting confirmation", "review the change to apply it")
        else:
            # The result is final: the editor puts the edit in the buffer before it answers,
            # so the lens shows the result from now on, not a running state.
            self.session.set_stage(job, "applying", label)
        self._notify_job(job)
        self.ls.refresh()
        try:
            result = await self.ls.workspace_apply_edit_async(
                lsp.ApplyWorkspaceEditParams(edit=edit, label=label))
        finally:
            self.session.set_stage(job, "done", outcome.message)
        if result.applied and self.session.mark_applied(job.uri, job.function,
                                                        chosen.candidate.code,
                                                        chosen.candidate.includes):
            phrase = speedup_phrase(chosen.verdict) if chosen.verdict else "not measured"
            self._result(job, f"PerfPilot: {name} rewritten — {phrase}")
        else:
            reason = result.failure_reason or ("discarded in the preview" if confirm
                                               else "the editor refused the edit")
            self.session.declined(job.uri, job.function, reason)
            self.ls.tell(f"PerfPilot: rewrite of {name} not applied: {reason}",
                      lsp.MessageType.Warning)

    def _withdraw_question(self, uri: str, function: str) -> None:
        """Close the open apply question about a function: its answer then decides nothing
        (see ``_deliver``), and a client that confirms rewrites closes it."""
        asked = self._asking.pop((uri, function), None)
        if asked is not None and self.ls.client_confirms_rewrites:
            self.ls.protocol.notify(lsp.CANCEL_REQUEST, lsp.CancelParams(id=question_id(asked)))

    def _result(self, job: Job, text: str) -> None:
        """Tell a job's result: as ``perfpilot/result`` to a client that shows results itself
        (a new one replaces the previous one there), else as a message."""
        if self.ls.client_shows_results:
            self.ls.protocol.notify(NOTIFY_RESULT, ResultMessage(
                job_id=job.id, uri=job.uri, function=job.function, message=text))
        else:
            self.ls.tell(text)

    async def _ask(self, job: Job, measured: str, weak: bool, proposed: str) -> str:
        """Ask whether to apply the rewrite; the title of the answer ("" when dismissed). A
        client that confirms rewrites itself gets the text before and after (it shows the
        diff with the question); others get a plain message request."""
        message = ask_prompt(job.site.name, measured)
        if self.ls.client_confirms_rewrites:
            params = ConfirmRewriteParams(
                job_id=job.id, uri=job.uri, function=job.function, message=message,
                measured=measured.strip().rstrip("."), original=job.site.unit_text,
                proposed=proposed, weak=weak)
            try:
                answer = await self.ls.protocol.send_request_async(
                    REQUEST_CONFIRM_REWRITE, params, msg_id=question_id(job.id))
            except JsonRpcException as exc:  # withdrawn (RequestCancelled), or the client failed
                self.ls.log_info(f"{job.id} {job.site.name}: the apply question ended: {exc}")
                return ""
            except asyncio.CancelledError:
                # The job was cancelled (a Re-run replaces it): its question goes with it.
                if self._asking.get((job.uri, job.function)) == job.id:
                    self._withdraw_question(job.uri, job.function)
                raise
            # A JSON object: a dict, or the attribute object pygls makes of an untyped result.
            choice = answer.get("choice") if isinstance(answer, dict) \
                else getattr(answer, "choice", None)
            return choice if choice in ("Apply", "Discard") else ""
        asked = await self.ls.window_show_message_request_async(lsp.ShowMessageRequestParams(
            lsp.MessageType.Warning if weak else lsp.MessageType.Info, message,
            [lsp.MessageActionItem("Apply"), lsp.MessageActionItem("Discard")]))
        return asked.title if asked is not None else ""


def question_id(job_id: str) -> str:
    """The request id of a job's apply question (so that it can be withdrawn)."""
    return f"confirm-{job_id}"


def ask_prompt(name: str, measured: str) -> str:
    """The apply question of ask mode, quoting the job's own (the latest) measurement:
    ``PerfPilot: apply the rewrite of f? Measured: 2.31× faster (95% CI 2.20–2.43, serial).``"""
    measured = measured.strip().rstrip(".")
    return f"PerfPilot: apply the rewrite of {name}? Measured: {measured}."


def register(server: PerfPilotServer) -> None:
    """Register work-done progress cancellation (it cancels the job)."""

    @server.feature(lsp.WINDOW_WORK_DONE_PROGRESS_CANCEL)
    def progress_cancel(ls: PerfPilotServer, params: lsp.WorkDoneProgressCancelParams) -> None:
        ls.jobs.cancel_progress(str(params.token))


def _on_disk(uri: str) -> bool:
    """Whether ``uri`` names a file that exists: the preview's no-op "create this file" must
    never create one (an open buffer whose file was deleted)."""
    path = path_of_uri(uri)
    return path is not None and path.is_file()
