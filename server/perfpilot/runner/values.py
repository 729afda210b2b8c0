"""Values the runner produces: a timing measurement and the verdict on one candidate."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

# ``rejected``: never built, refused by the capability policy or for want of a sandbox.
VerdictWord = Literal["faster", "slower", "no-change", "incorrect", "build-failed", "timeout",
                      "noisy", "rejected"]
VERDICTS: tuple[str, ...] = ("faster", "slower", "no-change", "incorrect", "build-failed",
                             "timeout", "noisy", "rejected")
ValidationStatus = Literal["passed", "failed", "skipped"]
InputMode = Literal["harness", "spec", "stdin"]


@dataclass(frozen=True)
class Measurement:
    """One paired timing run at a fixed thread count.

    ``speedup`` is the median over clean pairs of (time of original / time of candidate), so
    values above 1 mean the candidate is faster. ``psi`` is the CPU pressure ("some avg10", in
    percent) read before the run, or None where the kernel does not expose it.
    """

    speedup: float
    ci95_low: float
    ci95_high: float
    pairs: int
    dropped_pairs: int
    threads: int
    median_a_s: float
    median_b_s: float
    psi: float | None = None
    notes: tuple[str, ...] = ()
    size: int = 0
    reps: int = 1
    wanted_pairs: int = 0  # clean pairs asked for (0: all pairs taken)
    basis: str = "wall"  # "cpu": too few clean pairs, serial figures from CPU time
    # Why the figure is not trusted although its pairs looked clean (a sentence), or "".
    withheld: str = ""

    @property
    def ci95(self) -> tuple[float, float]:
        """The 95% bootstrap interval of the speedup."""
        return (self.ci95_low, self.ci95_high)

    @property
    def clean(self) -> bool:
        """Whether at least half of the wanted pairs (and 3) ran without contention."""
        kept = self.pairs - self.dropped_pairs
        return kept >= 3 and kept * 2 >= (self.wanted_pairs or self.pairs)


@dataclass(frozen=True)
class Tuning:
    """Knobs of the measurement procedure that are not user settings (tests lower them)."""

    target_sample_s: float = 0.002  # each timed sample lasts at least this long
    min_size: int = 16
    max_size: int = 1 << 20
    edge_sizes: tuple[int, ...] = (0, 1, 2, 7, 33)
    warmup: int = 2
    seed: int = 12345
    bootstrap: int = 2000
    no_change_band: float = 0.03  # |speedup - 1| below this is no measurable change
    wait_fraction: float = 0.02  # a call that waited longer than this share of its wall time
    max_pairs_factor: int = 4  # take up to this many times the wanted pairs to get clean ones
    cpu_fallback: bool = True  # serial code on a busy machine: judge by CPU time, say so
    noisy_retries: int = 1  # time again once when the first run was too contended
    count_target_s: float = 0.002  # native time of the counted call under callgrind
    budget_s: float = 30.0  # time limit of one timing run inside the driver
    memory_mb: int = 4096  # address-space limit of sandboxed runs
    program_pairs: int = 10  # pairs for whole programs (each costs two process starts)
    # A multi-thread run during which some task waited for a CPU this share of the time or
    # more is not trusted: another process held the cores the threads needed.
    parallel_pressure_gate: float = 25.0
    # Likewise when the hypervisor ran other guests on our virtual CPUs ("steal") for this share
    # of the CPUs' time: a thread that is not running holds up every barrier of the others.
    parallel_steal_gate: float = 5.0
    # Copies of each side's library the timing loop rotates through, so that no single code
    # layout decides the ratio (see driver_run.layout_copies). Eight same-code runs each: with
    # one copy a side 0.988-1.045 (one wrong "faster"), with four 0.989-1.011.
    layout_copies: int = 4
    # Reuse builds of identical sources (the original, the driver): a verdict in 0.2 s instead
    # of 2.3 s when only the candidate is new. Safe with layout copies; with a single copy a
    # reused build made one fixed layout of the original face fresh ones, and widened the
    # same-code spread.
    build_cache: bool = True
    # Refuse candidates the capability policy rejects before building them. Off only in tests
    # that check what the sandbox alone contains.
    capability_policy: bool = True


@dataclass(frozen=True)
class Verdict:
    """The runner's verdict on one candidate, with the evidence behind it."""

    verdict: str
    message: str
    speedup: float | None = None
    ci95: tuple[float, float] | None = None
    threads: int = 1
    serial_speedup: float | None = None
    serial_ci95: tuple[float, float] | None = None
    instructions_ratio: float | None = None
    validation_status: str = "skipped"
    validation_detail: str = ""
    pairs: int = 0
    dropped_pairs: int = 0
    flags: tuple[str, ...] = ()
    compiler: str = ""
    median_a_s: float | None = None
    median_b_s: float | None = None
    build_log: str = ""
    input_mode: str = "harness"
    psi: float | None = None
    sandbox: str = ""
    notes: tuple[str, ...] = ()
    measurement: Measurement | None = None
    serial_measurement: Measurement | None = None

    def to_json(self) -> dict[str, Any]:
        """A plain JSON-able dict (the shape the CLI prints and the editor receives)."""
        return {
            "verdict": self.verdict,
            "speedup": self.speedup,
            "ci95": list(self.ci95) if self.ci95 is not None else None,
            "threads": self.threads,
            "serial_speedup": self.serial_speedup,
            "serial_ci95": list(self.serial_ci95) if self.serial_ci95 is not None else None,
            "instructions_ratio": self.instructions_ratio,
            "validation": {"status": self.validation_status, "detail": self.validation_detail},
            "pairs": self.pairs,
            "dropped_pairs": self.dropped_pairs,
            "flags": list(self.flags),
            "compiler": self.compiler,
            "median_a_s": self.median_a_s,
            "median_b_s": self.median_b_s,
            "message": self.message,
            "input_mode": self.input_mode,
            "psi": self.psi,
            "sandbox": self.sandbox,
            "notes": list(self.notes),
            "basis": self.measurement.basis if self.measurement is not None else None,
            "build_log": self.build_log,
        }
