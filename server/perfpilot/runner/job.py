"""Job: everything fixed for one measurement of one candidate against the original."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import AsyncExitStack, asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from perfpilot.code.site import FunctionSite
from perfpilot.progress import JobContext
from perfpilot.runner.budget import JobBudget
from perfpilot.runner.gate import MeasureGate
from perfpilot.runner.measurement_inputs import MeasurementInputs
from perfpilot.runner.sandbox import Limits, Sandbox
from perfpilot.runner.toolchain import Toolchain
from perfpilot.runner.values import Tuning
from perfpilot.settings import RunnerSettings


@dataclass(frozen=True)
class Job:
    """Everything fixed for one measurement."""

    site: FunctionSite
    inputs: MeasurementInputs  # as the engine (or ``resolve_inputs``) resolved them
    tuning: Tuning  # the inputs' tuning, narrowed by the stages (sizes the original allows)
    tc: Toolchain
    sandbox: Sandbox
    workdir: Path
    ctx: JobContext
    mode: str  # harness | spec | stdin
    units: tuple[str, str] = ("", "")  # the unit texts of A and B, entry included
    compile_as_nobody: bool = False
    gate: MeasureGate = field(default_factory=MeasureGate)
    bench: str = ""  # the bench source (generated or from a spec)
    # Judge the candidate's compiled object before it runs (builtin and model candidates).
    object_policy: bool = False
    # The job's time budget (shared with its other candidates); no limit by default.
    budget: JobBudget = field(default_factory=lambda: JobBudget(0))

    @property
    def settings(self) -> RunnerSettings:
        """The runner settings the inputs were resolved with."""
        return self.inputs.settings

    @property
    def threads(self) -> int:
        """The thread count of the job's runs: the inputs' for OpenMP code, else one."""
        return self.inputs.threads if self.tc.openmp else 1

    def limits(self, threads: int) -> Limits:
        """Resource limits of one driver run at ``threads`` threads."""
        cpu = int(self.settings.run_timeout_s * max(threads, 1)) + 5
        return Limits(memory_mb=self.tuning.memory_mb, cpu_s=cpu, nproc=256)

    def env(self, threads: int) -> dict[str, str]:
        """Environment of one driver run (the OpenMP thread count)."""
        return {"OMP_NUM_THREADS": str(threads)} if self.tc.openmp else {}

    @asynccontextmanager
    async def held(self, kind: Literal["building", "timing"]) -> AsyncIterator[None]:
        """The measuring gate held for ``kind``; waiting for it (another job's timing) is not
        counted against this job's budget."""
        async with AsyncExitStack() as stack:
            async with self.budget.paused():
                await stack.enter_async_context(self.gate.building() if kind == "building"
                                                else self.gate.timing())
            yield
