"""Where a scan's functions are measured: here, one at a time (``--jobs 1``), or on Ray
workers (``--workers auto|ray://ADDRESS``), one function per worker at a time.

Both run ``function_job.run_job`` for each function, so a function's original and candidate are
always built and timed by the same worker, and the result records that worker's CPU model,
cores and load. Ray is optional (the ``[scale]`` extra) and imported only here, only when asked.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from typing import Any, Protocol

from perfpilot.engine.engine import Engine
from perfpilot.progress import Cancelled, JobContext
from perfpilot.scan.core_pinning import pinned_cores
from perfpilot.scan.function_job import FunctionJob, draft, run_job, worker_info
from perfpilot.scan.targets import ScanInputError
from perfpilot.scan.values import FunctionResult

StageFn = Callable[[str, str], None]


class Workers(Protocol):
    """Runs functions: at most ``capacity`` at once."""

    capacity: int
    description: str

    def start(self, job: FunctionJob, on_stage: StageFn) -> asyncio.Future[FunctionResult]:
        """Begin one function; the future gives its result."""
        ...

    async def close(self) -> None:
        """Release what the workers hold."""
        ...


class LocalWorkers:
    """This process, one function at a time, sharing one engine (and its caches)."""

    capacity = 1
    description = "local, one function at a time"

    def __init__(self, engine: Engine, ctx: JobContext) -> None:
        self._engine = engine
        self._ctx = ctx

    def start(self, job: FunctionJob, on_stage: StageFn) -> asyncio.Future[FunctionResult]:
        """Run the function in this process; stages go to ``on_stage`` as they happen."""
        ctx = JobContext(cancelled=self._ctx.cancelled,
                         on_report=lambda stage, message, _pct: on_stage(stage, message))
        return asyncio.ensure_future(run_job(job, ctx, self._engine, "local"))

    async def close(self) -> None:
        """Close the shared engine."""
        await self._engine.close()


def _ray_task(job: FunctionJob, cores: int) -> FunctionResult:
    """The body of the Ray task: the same job, on the worker, in a fresh event loop, pinned
    to ``cores`` cores of the worker's machine no other function there is measured on."""
    with pinned_cores(cores):
        return asyncio.run(run_job(job, JobContext(), None, "ray"))


class RayWorkers:
    """Ray tasks, ``cpus_per_function`` CPUs each: Ray runs one on a worker's CPUs at a time,
    and the task pins itself to that many cores no other task on the machine holds.

    Plans and candidates are drafted here first, by the driver's engine (so model calls go
    from here to the configured endpoint, at most ``optimizer.concurrency`` at once); the
    worker's engine takes them and only verifies and measures (a model's repair rounds, which
    need a verdict, are asked from the worker)."""

    def __init__(self, address: str, engine: Engine, ctx: JobContext,
                 cpus_per_function: float = 1.0) -> None:
        self._engine = engine
        self._ctx = ctx
        self._drafting = asyncio.Semaphore(max(1, engine.settings.optimizer.concurrency))
        try:
            import ray
        except ImportError as exc:
            raise ScanInputError("--workers needs Ray: pip install 'perfpilot[scale]'") from exc
        self._ray: Any = ray
        self._owned = False
        if not self._ray.is_initialized():
            try:
                self._ray.init(address=address, log_to_driver=False)
            except ConnectionError:
                if address != "auto":
                    raise ScanInputError(f"--workers: no Ray cluster at {address}") from None
                # "auto" with no cluster started here (`ray start`): a local one.
                self._ray.init(log_to_driver=False)
            self._owned = True
        cpus = float(self._ray.cluster_resources().get("CPU", 1.0))
        self.capacity = max(1, int(cpus // cpus_per_function))
        self.description = (f"Ray ({address}), {self.capacity} function(s) at a time on "
                            f"{cpus:g} CPUs")
        self._remote = self._ray.remote(num_cpus=cpus_per_function, max_retries=0)(_ray_task)
        self._cores = max(1, int(cpus_per_function))

    def start(self, job: FunctionJob, on_stage: StageFn) -> asyncio.Future[FunctionResult]:
        """Draft the function here, then send it to a Ray worker (whose stages are not
        streamed back)."""
        return asyncio.ensure_future(self._run(job, on_stage))

    async def _run(self, job: FunctionJob, on_stage: StageFn) -> FunctionResult:
        start = time.monotonic()
        try:
            async with self._drafting:
                ctx = JobContext(cancelled=self._ctx.cancelled,
                                 on_report=lambda stage, msg, _pct: on_stage(stage, msg))
                job = await draft(job, self._engine, ctx)
            on_stage("measuring", "on a Ray worker")
            result: FunctionResult = await asyncio.wrap_future(
                self._remote.remote(job, self._cores).future())
            return result
        except (Cancelled, asyncio.CancelledError):
            raise
        except Exception as exc:  # a model that failed, a worker lost: this function's error
            return FunctionResult(job.target, "error", f"{type(exc).__name__}: {exc}",
                                  worker_info("ray"), round(time.monotonic() - start, 3))

    async def close(self) -> None:
        """Close the driver's engine; disconnect from Ray when this scan connected."""
        await self._engine.close()
        if self._owned:
            self._ray.shutdown()


def make_workers(spec: str, engine: Engine, ctx: JobContext,
                 cpus_per_function: float = 1.0) -> Workers:
    """``local`` (``--jobs 1``), ``auto`` or ``ray://ADDRESS``."""
    if spec == "local":
        return LocalWorkers(engine, ctx)
    if spec == "auto" or spec.startswith("ray://"):
        return RayWorkers(spec, engine, ctx, cpus_per_function)
    raise ScanInputError(f"--workers: '{spec}' is not auto or ray://HOST:PORT")
