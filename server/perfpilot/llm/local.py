"""The local backend's server side: a handle on the worker process and a registry sharing it.

``LocalWorker`` starts ``python -m perfpilot.llm.local_worker`` with asyncio (never a fork of the
threaded server), loads the model once, keeps it warm and stops the process after an idle time;
the next request starts it again. A crashed worker fails the requests in flight with one clear
message and is replaced on the next request. Cancellation sends ``cancel`` to the worker, whose
stopping criterion ends the generation at the next token; a worker that does not answer within a
grace period is killed.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import logging
import os
import signal
import sys
from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from perfpilot.llm.base import Message
from perfpilot.llm.errors import LocalModelError
from perfpilot.progress import Cancelled, JobContext
from perfpilot.settings import RoleSettings

log = logging.getLogger(__name__)

DEFAULT_IDLE_S = 600.0
CANCEL_GRACE_S = 5.0
_LINE_LIMIT = 64 * 1024 * 1024


@dataclass(frozen=True)
class WorkerSpec:
    """What a worker loads; workers are shared between roles with equal specs."""

    model: str
    device: str = "cpu"
    dtype: str = "auto"
    threads: int = 1

    @classmethod
    def from_role(cls, role: RoleSettings) -> WorkerSpec:
        """The spec for a role; the model path is made absolute so equal models share."""
        path = Path(role.model).expanduser()
        # Absolute when it exists (equal models share a worker); else as given, for the error.
        model = str(path.resolve()) if role.model.strip() and path.exists() else role.model
        return cls(model=model, device=role.device or "cpu", dtype=role.dtype or "auto",
                   threads=max(1, role.threads))


@dataclass
class _Pending:
    future: asyncio.Future[list[str]]
    ctx: JobContext
    tokens: int = 0
    last_activity: float = 0.0  # loop time of the request or its latest progress event


@dataclass
class _Process:
    proc: asyncio.subprocess.Process
    ready: asyncio.Future[dict[str, Any]]
    reader: asyncio.Task[None] | None = None
    stderr_task: asyncio.Task[None] | None = None
    stderr_tail: deque[str] = field(default_factory=lambda: deque(maxlen=30))


def worker_env(spec: WorkerSpec, base: dict[str, str] | None = None) -> dict[str, str]:
    """The worker's environment: thread counts fixed before torch is imported, hub offline."""
    env = dict(os.environ if base is None else base)
    threads = str(max(1, spec.threads))
    env.update({
        "OMP_NUM_THREADS": threads,
        "MKL_NUM_THREADS": threads,
        "OPENBLAS_NUM_THREADS": threads,
        "TOKENIZERS_PARALLELISM": "false",
        # Local models load by path only; never reach for the hub.
        "HF_HUB_OFFLINE": "1",
        "TRANSFORMERS_OFFLINE": "1",
        "HF_HUB_DISABLE_TELEMETRY": "1",
        "PYTHONUNBUFFERED": "1",
    })
    return env


class LocalWorker:
    """One worker process serving one model; one generation at a time."""

    def __init__(self, spec: WorkerSpec, *, idle_s: float = DEFAULT_IDLE_S,
                 python: str = sys.executable, load_timeout_s: float = 600.0) -> None:
        self.spec = spec
        self.idle_s = idle_s
        self._python = python
        self._load_timeout_s = load_timeout_s
        self._proc: _Process | None = None
        self._pending: dict[int, _Pending] = {}
        self._ids = itertools.count(1)
        self._lock = asyncio.Lock()
        self._idle: asyncio.TimerHandle | None = None
        self._stopping: set[asyncio.Task[None]] = set()
        self._last_used = 0.0
        self.info: dict[str, Any] = {}
        self.starts = 0

    # -- state ---------------------------------------------------------------------------
    @property
    def pid(self) -> int | None:
        """The worker's process id while it runs."""
        p = self._proc
        return p.proc.pid if p is not None and p.proc.returncode is None else None

    @property
    def running(self) -> bool:
        """Whether a worker process is alive."""
        return self.pid is not None

    # -- lifecycle -----------------------------------------------------------------------
    async def _spawn(self) -> _Process:
        proc = await asyncio.create_subprocess_exec(
            self._python, "-m", "perfpilot.llm.local_worker",
            stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE, env=worker_env(self.spec),
            start_new_session=True, limit=_LINE_LIMIT)
        self.starts += 1
        loop = asyncio.get_running_loop()
        state = _Process(proc, loop.create_future())
        state.reader = asyncio.create_task(self._read_events(state))
        state.stderr_task = asyncio.create_task(self._read_stderr(state))
        log.info("started local model worker pid %d for %s", proc.pid, self.spec.model)
        self._send(state, {"op": "load", "model": self.spec.model, "device": self.spec.device,
                           "dtype": self.spec.dtype, "threads": self.spec.threads})
        return state

    async def _ensure_ready(self, ctx: JobContext) -> _Process:
        if self._proc is None or self._proc.proc.returncode is not None:
            ctx.report("loading model", Path(self.spec.model).name or self.spec.model, None)
            self._proc = await self._spawn()
        state = self._proc
        if not state.ready.done():
            # A cancelled wait leaves the worker loading, so the next request finds it warm.
            await _race(state.ready, ctx, self._load_timeout_s,
                        f"loading {self.spec.model} took longer than "
                        f"{self._load_timeout_s:.0f} s")
        self.info = state.ready.result()
        return state

    async def warm(self, ctx: JobContext | None = None) -> dict[str, Any]:
        """Start the worker and load the model now; returns what the worker reported."""
        async with self._lock:
            self._cancel_idle()
            await self._ensure_ready(ctx or JobContext())
            self._schedule_idle()
            return dict(self.info)

    async def stop(self) -> None:
        """Stop the worker process (a later request starts a new one)."""
        self._cancel_idle()
        state, self._proc = self._proc, None
        if state is None:
            return
        if state.proc.returncode is None:
            with contextlib.suppress(Exception):
                self._send(state, {"op": "shutdown"})
            try:
                await asyncio.wait_for(state.proc.wait(), 3.0)
            except asyncio.TimeoutError:
                _kill_group(state.proc)
                await state.proc.wait()
        for task in (state.reader, state.stderr_task):
            if task is not None:
                with contextlib.suppress(asyncio.TimeoutError, asyncio.CancelledError):
                    await asyncio.wait_for(task, 2.0)
        self._fail_all(state, LocalModelError("the local model worker was stopped", "stopped"))
        log.info("stopped local model worker pid %d", state.proc.pid)

    async def kill(self) -> None:
        """Kill the worker at once (used when it does not stop a cancelled generation)."""
        state = self._proc
        if state is not None and state.proc.returncode is None:
            _kill_group(state.proc)
        await self.stop()

    # -- generation ----------------------------------------------------------------------
    async def generate(self, messages: Sequence[Message], *, n: int, max_tokens: int,
                       temperature: float, stop: Sequence[str], ctx: JobContext,
                       timeout_s: float) -> list[str]:
        """Generate in the worker; see ``perfpilot.llm.base.TextGenerator.generate``."""
        ctx.check()
        async with self._lock:
            self._cancel_idle()
            try:
                return await self._generate(messages, n=n, max_tokens=max_tokens,
                                            temperature=temperature, stop=stop, ctx=ctx,
                                            timeout_s=timeout_s)
            finally:
                self._schedule_idle()

    async def _generate(self, messages: Sequence[Message], *, n: int, max_tokens: int,
                        temperature: float, stop: Sequence[str], ctx: JobContext,
                        timeout_s: float) -> list[str]:
        state = await self._ensure_ready(ctx)
        rid = next(self._ids)
        fut: asyncio.Future[list[str]] = asyncio.get_running_loop().create_future()
        pending = _Pending(fut, ctx, last_activity=asyncio.get_running_loop().time())
        self._pending[rid] = pending
        ctx.report("generating", "0 tokens", None)
        self._send(state, {"op": "generate", "id": rid,
                           "messages": [dict(m) for m in messages], "n": n,
                           "max_tokens": max_tokens, "temperature": temperature,
                           "stop": list(stop)})
        try:
            return await self._await_progress(pending, timeout_s)
        except BaseException:
            # Cancelled, timed out, or the caller's task was cancelled: stop the generation.
            if not fut.done():
                await self._abort(state, rid, fut)
            raise
        finally:
            self._pending.pop(rid, None)

    async def _await_progress(self, pending: _Pending, timeout_s: float) -> list[str]:
        """The generation's texts; ``timeout_s`` bounds the time without progress (as a read
        timeout does for a remote stream), so a slow CPU may take longer for many tokens."""
        loop = asyncio.get_running_loop()
        while True:
            remaining = pending.last_activity + timeout_s - loop.time()
            try:
                texts: list[str] = await _race(pending.future, pending.ctx, max(0.0, remaining),
                                               "")
                return texts
            except LocalModelError as exc:
                if exc.kind != "timeout":
                    raise
                if loop.time() - pending.last_activity >= timeout_s:
                    raise LocalModelError(
                        f"the local model made no progress for {timeout_s:.0f} s (timeoutS); "
                        "it may be too large for this machine", "timeout") from None

    async def _abort(self, state: _Process, rid: int, fut: asyncio.Future[list[str]]) -> None:
        """Ask the worker to stop ``rid``; kill it if it does not within the grace period."""
        with contextlib.suppress(Exception):
            self._send(state, {"op": "cancel", "id": rid})
        await asyncio.wait({fut}, timeout=CANCEL_GRACE_S)
        if not fut.done():
            log.warning("local model worker did not stop generating; killing it")
            await self.kill()
        if fut.done() and not fut.cancelled():
            fut.exception()  # retrieved: the caller raises its own error

    # -- plumbing ------------------------------------------------------------------------
    def _send(self, state: _Process, message: dict[str, Any]) -> None:
        stdin = state.proc.stdin
        if stdin is None or stdin.is_closing():
            raise self._crash_error(state)
        stdin.write((json.dumps(message) + "\n").encode("utf-8"))

    async def _read_events(self, state: _Process) -> None:
        stdout = state.proc.stdout
        assert stdout is not None
        while True:
            try:
                line = await stdout.readline()
            except (ValueError, asyncio.LimitOverrunError):
                continue
            if not line:
                break
            try:
                event = json.loads(line)
            except json.JSONDecodeError:
                continue
            self._dispatch(state, event)
        await state.proc.wait()
        if state.stderr_task is not None:
            with contextlib.suppress(asyncio.TimeoutError):
                await asyncio.wait_for(asyncio.shield(state.stderr_task), 1.0)
        self._fail_all(state, self._crash_error(state))
        if self._proc is state:
            self._proc = None

    async def _read_stderr(self, state: _Process) -> None:
        stderr = state.proc.stderr
        assert stderr is not None
        while True:
            try:
                line = await stderr.readline()
            except (ValueError, asyncio.LimitOverrunError):
                continue
            if not line:
                return
            text = line.decode("utf-8", "replace").rstrip()
            # Progress bars rewrite one line with carriage returns; keep the last frame.
            text = text.rsplit("\r", 1)[-1].strip()
            if text:
                state.stderr_tail.append(text)
                log.debug("worker %d: %s", state.proc.pid, text)

    def _dispatch(self, state: _Process, event: dict[str, Any]) -> None:
        kind = event.get("event")
        rid = event.get("id")
        pending = self._pending.get(rid) if isinstance(rid, int) else None
        if kind == "ready":
            if not state.ready.done():
                state.ready.set_result(event)
        elif kind == "progress" and pending is not None:
            pending.tokens = int(event.get("tokens", 0))
            pending.last_activity = asyncio.get_running_loop().time()
            pending.ctx.report("generating", f"{pending.tokens} tokens", None)
        elif kind == "done" and pending is not None and not pending.future.done():
            if event.get("cancelled"):
                pending.future.set_exception(Cancelled())
            else:
                pending.future.set_result([str(t) for t in event.get("texts", [])])
        elif kind == "error":
            error = LocalModelError(str(event.get("message", "the local model failed")),
                                    str(event.get("kind", "error")))
            if pending is not None and not pending.future.done():
                pending.future.set_exception(error)
            elif rid is None and not state.ready.done():
                state.ready.set_exception(error)
                state.ready.exception()  # raised to whoever waits; nobody else must log it

    def _crash_error(self, state: _Process) -> LocalModelError:
        code = state.proc.returncode
        tail = next((line for line in reversed(state.stderr_tail)
                     if not line.startswith(("Loading", "Writing"))), "")
        if code is not None and code < 0 and -code == signal.SIGKILL:
            why = "it was killed (often: out of memory)"
        elif code is not None:
            why = f"exit code {code}"
        else:
            why = "its pipe closed"
        detail = f": {tail}" if tail else ""
        return LocalModelError(f"the local model worker stopped unexpectedly ({why}){detail}",
                               "worker-crashed")

    def _fail_all(self, state: _Process, error: LocalModelError) -> None:
        if not state.ready.done():
            state.ready.set_exception(error)
            state.ready.exception()
        for pending in list(self._pending.values()):
            if not pending.future.done():
                pending.future.set_exception(error)
                pending.future.exception()  # a caller that left must not log it

    def _cancel_idle(self) -> None:
        if self._idle is not None:
            self._idle.cancel()
            self._idle = None

    def _schedule_idle(self) -> None:
        self._cancel_idle()
        loop = asyncio.get_running_loop()
        self._last_used = loop.time()
        if self.idle_s > 0 and self._proc is not None:
            self._idle = loop.call_later(self.idle_s, self._on_idle)

    def _on_idle(self) -> None:
        self._idle = None
        task = asyncio.create_task(self._stop_if_idle())
        self._stopping.add(task)
        task.add_done_callback(self._stopping.discard)

    async def _stop_if_idle(self) -> None:
        # Under the lock, so a job that arrived meanwhile is never cut short; it reschedules.
        async with self._lock:
            if asyncio.get_running_loop().time() - self._last_used < self.idle_s * 0.999:
                return
            log.info("unloading the local model after %.0f s idle", self.idle_s)
            await self.stop()


async def _race(fut: asyncio.Future[Any], ctx: JobContext, timeout_s: float,
                timeout_message: str) -> Any:
    """Await ``fut`` unless ``ctx`` is cancelled (raise Cancelled) or time runs out.

    ``fut`` itself is never cancelled here: a load or generation goes on until the worker
    is told otherwise.
    """
    if fut.done():
        return fut.result()
    waiter = asyncio.ensure_future(ctx.cancelled.wait())
    try:
        done, _ = await asyncio.wait({fut, waiter}, timeout=timeout_s,
                                     return_when=asyncio.FIRST_COMPLETED)
    finally:
        waiter.cancel()
    if fut in done:
        return fut.result()
    if waiter in done:
        raise Cancelled()
    raise LocalModelError(timeout_message, "timeout")


def _kill_group(proc: asyncio.subprocess.Process) -> None:
    # The worker runs in its own session, so its process group holds only its own processes.
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(proc.pid, signal.SIGKILL)


class LocalWorkerRegistry:
    """Owns the local workers of one server (or CLI run); equal specs share one worker."""

    def __init__(self, *, idle_s: float = DEFAULT_IDLE_S, python: str = sys.executable) -> None:
        self.idle_s = idle_s
        self._python = python
        self._workers: dict[WorkerSpec, LocalWorker] = {}

    def worker_for(self, role: RoleSettings) -> LocalWorker:
        """The (possibly shared) worker for a local role; starts nothing yet."""
        spec = WorkerSpec.from_role(role)
        worker = self._workers.get(spec)
        if worker is None:
            worker = LocalWorker(spec, idle_s=self.idle_s, python=self._python)
            self._workers[spec] = worker
        return worker

    @property
    def workers(self) -> tuple[LocalWorker, ...]:
        """Every worker created so far."""
        return tuple(self._workers.values())

    async def close(self) -> None:
        """Stop every worker."""
        for worker in list(self._workers.values()):
            await worker.stop()
        self._workers.clear()


class LocalClient:
    """``TextGenerator`` for a local role, backed by a (possibly shared) ``LocalWorker``."""

    def __init__(self, role: RoleSettings, worker: LocalWorker, *, owns_worker: bool) -> None:
        self.role = role
        self.worker = worker
        self._owns_worker = owns_worker

    @property
    def backend(self) -> str:
        """Always ``local``."""
        return "local"

    @property
    def model(self) -> str:
        """The configured model path."""
        return self.role.model

    async def generate(self, messages: Sequence[Message], *, n: int, max_tokens: int,
                       temperature: float, stop: Sequence[str], ctx: JobContext) -> list[str]:
        """Generate with the local model; see ``TextGenerator.generate``. The job's usage
        meter counts the request and its time; the worker reports no token counts."""
        if ctx.usage is not None:
            ctx.usage.begin()
        try:
            texts = await self.worker.generate(messages, n=n, max_tokens=max_tokens,
                                               temperature=temperature, stop=stop, ctx=ctx,
                                               timeout_s=self.role.timeout_s)
        finally:
            if ctx.usage is not None:
                ctx.usage.end()
        if ctx.usage is not None:
            ctx.usage.record(None, None)
        return texts

    async def close(self) -> None:
        """Stop the worker when this client owns it (a registry's workers stay)."""
        if self._owns_worker:
            await self.worker.stop()
