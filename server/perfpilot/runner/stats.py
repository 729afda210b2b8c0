"""Statistics over paired samples: clean-pair filtering, median ratio, bootstrap interval."""

from __future__ import annotations

import os
import random
import statistics
import time
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from perfpilot.runner.values import Measurement, Tuning


@dataclass(frozen=True)
class PairSample:
    """One A/B pair: wall time and run-queue wait of each side, in nanoseconds."""

    a_ns: int
    b_ns: int
    a_wait_ns: int = 0
    b_wait_ns: int = 0
    a_cpu_ns: int = 0
    b_cpu_ns: int = 0


def contended(pair: PairSample, wait_fraction: float) -> bool:
    """Whether either call of the pair waited for a CPU longer than ``wait_fraction`` of it."""
    return (pair.a_wait_ns > wait_fraction * max(pair.a_ns, 1)
            or pair.b_wait_ns > wait_fraction * max(pair.b_ns, 1))


def bootstrap_median_ci(values: Sequence[float], samples: int, seed: int) -> tuple[float, float]:
    """Percentile bootstrap 95% interval of the median (seeded, so reproducible)."""
    if not values:
        raise ValueError("no values")
    if len(values) == 1:
        return (values[0], values[0])
    rng = random.Random(seed)
    n = len(values)
    medians = sorted(statistics.median(rng.choices(values, k=n)) for _ in range(samples))
    lo = medians[int(0.025 * (samples - 1))]
    hi = medians[round(0.975 * (samples - 1))]
    return (lo, hi)


def summarize(pairs: Sequence[PairSample], threads: int, tuning: Tuning,
              psi: float | None = None, size: int = 0, reps: int = 1,
              wanted: int = 0) -> Measurement:
    """Median speedup (A time / B time) over clean pairs with its bootstrap interval.

    ``wanted`` is the number of clean pairs asked for (default: all pairs). When fewer than
    half of them are clean the estimate uses every pair and the measurement says so in its
    notes; callers then report ``noisy``.
    """
    if not pairs:
        raise ValueError("no pairs to summarize")
    clean = [p for p in pairs if not contended(p, tuning.wait_fraction)]
    dropped = len(pairs) - len(clean)
    notes: list[str] = []
    use = clean
    basis = "wall"
    a_times = [p.a_ns for p in clean]
    b_times = [p.b_ns for p in clean]
    if len(clean) * 2 < (wanted or len(pairs)) or len(clean) < 3:
        notes.append(f"machine busy: {dropped} of {len(pairs)} pairs waited for a CPU")
        use = list(pairs)
        a_times = [p.a_ns for p in use]
        b_times = [p.b_ns for p in use]
        if (tuning.cpu_fallback and threads == 1
                and all(p.a_cpu_ns > 0 and p.b_cpu_ns > 0 for p in use)):
            # Serial code: CPU time leaves out the time spent waiting for a CPU, and pairing
            # still cancels what the neighbours do to caches and clocks.
            basis = "cpu"
            a_times = [p.a_cpu_ns for p in use]
            b_times = [p.b_cpu_ns for p in use]
            notes.append("serial figures from CPU time instead of wall time")
    ratios = [a / max(b, 1) for a, b in zip(a_times, b_times, strict=True)]
    med = statistics.median(ratios)
    lo, hi = bootstrap_median_ci(ratios, tuning.bootstrap, tuning.seed)
    per_call = max(reps, 1) * 1e9
    return Measurement(
        speedup=med,
        ci95_low=lo,
        ci95_high=hi,
        pairs=len(pairs),
        dropped_pairs=dropped,
        threads=threads,
        median_a_s=statistics.median(a_times) / per_call,
        median_b_s=statistics.median(b_times) / per_call,
        psi=psi,
        notes=tuple(notes),
        size=size,
        reps=reps,
        wanted_pairs=wanted,
        basis=basis,
    )


def classify(m: Measurement, band: float) -> str:
    """The verdict word for a clean measurement: faster, slower, no-change or noisy.

    ``no-change``: the interval lies inside 1 ± band, or the interval excludes 1 but the median
    moved by less than the band (a real but unmeasurably small change). ``noisy``: the interval
    straddles 1 and is wider than the band, so the run cannot tell.
    """
    if m.withheld or (m.basis == "wall" and not m.clean):
        return "noisy"
    lo, hi = m.ci95
    if lo >= 1.0 - band and hi <= 1.0 + band:
        return "no-change"
    # A claimed difference needs its whole interval clear of 1 by a margin: an A/A run whose
    # interval merely touches 1 must not come out "slower" at the edge of the band.
    margin = band / 3
    if lo > 1.0 + margin and m.speedup >= 1.0 + band:
        return "faster"
    if hi < 1.0 - margin and m.speedup <= 1.0 - band:
        return "slower"
    if (lo > 1.0 or hi < 1.0) and abs(m.speedup - 1.0) < band:
        return "no-change"
    return "noisy"


_PSI = Path("/proc/pressure/cpu")
_STAT = Path("/proc/stat")
_USER_HZ = 100  # the unit of /proc/stat on Linux, whatever the kernel's internal tick


@dataclass(frozen=True)
class CpuSnapshot:
    """System-wide CPU contention counters at one moment (None where unavailable)."""

    stall_us: int | None  # PSI "some total": microseconds some task waited for a CPU
    steal_ticks: int | None  # /proc/stat: time the hypervisor gave our CPUs to other guests
    at: float

    @classmethod
    def now(cls, psi: Path = _PSI, stat: Path = _STAT) -> CpuSnapshot:
        """Read the counters."""
        return cls(read_psi_total(psi), read_steal_ticks(stat), time.monotonic())

    def pressure_since(self, before: CpuSnapshot) -> float | None:
        """Share (percent) of the time since ``before`` in which some task waited for a CPU."""
        return pressure_during(before.stall_us, self.stall_us, self.at - before.at)

    def steal_since(self, before: CpuSnapshot, cpus: int) -> float | None:
        """Share (percent) of the CPUs' time since ``before`` taken by other guests."""
        if before.steal_ticks is None or self.steal_ticks is None or self.at <= before.at:
            return None
        stolen_s = (self.steal_ticks - before.steal_ticks) / _USER_HZ
        return max(0.0, min(100.0, stolen_s / ((self.at - before.at) * max(cpus, 1)) * 100.0))


def gate_parallel(m: Measurement, before: CpuSnapshot, after: CpuSnapshot,
                  tuning: Tuning) -> Measurement:
    """``m``, withheld when it ran on several threads while the machine's counters say that
    other work held the cores (run-queue waits of worker threads miss part of that)."""
    if m.threads <= 1:
        return m
    pressure = after.pressure_since(before)
    steal = after.steal_since(before, os.cpu_count() or 1)
    why = ""
    if pressure is not None and pressure >= tuning.parallel_pressure_gate:
        why = (f"CPU pressure was {pressure:.0f}% during the {m.threads}-thread run: other "
               "work held the cores the threads needed.")
    elif steal is not None and steal >= tuning.parallel_steal_gate:
        why = (f"The hypervisor gave {steal:.0f}% of the CPUs' time to other machines during "
               f"the {m.threads}-thread run (steal time).")
    if not why:
        return m
    return replace(m, withheld=why, psi=pressure if pressure is not None else m.psi)


def read_steal_ticks(path: Path = _STAT) -> int | None:
    """Steal time of all CPUs from the ``cpu`` line of /proc/stat, in USER_HZ ticks."""
    try:
        with path.open(encoding="ascii") as f:
            fields = f.readline().split()
    except OSError:
        return None
    if len(fields) < 9 or fields[0] != "cpu":
        return None
    try:
        return int(fields[8])
    except ValueError:
        return None


def _psi_some(field: str, path: Path) -> float | None:
    """One field of the "some" line of a PSI file, or None where unavailable."""
    try:
        text = path.read_text(encoding="ascii")
    except OSError:
        return None
    for line in text.splitlines():
        if line.startswith("some"):
            for part in line.split():
                key, _, value = part.partition("=")
                if key == field:
                    try:
                        return float(value)
                    except ValueError:
                        return None
    return None


def read_psi_total(path: Path = _PSI) -> int | None:
    """Cumulative microseconds some task waited for a CPU ("some total"), or None."""
    total = _psi_some("total", path)
    return int(total) if total is not None else None


def pressure_during(total_before: int | None, total_after: int | None,
                    wall_s: float) -> float | None:
    """Share (percent) of a time window in which some task waited for a CPU."""
    if total_before is None or total_after is None or wall_s <= 0:
        return None
    return max(0.0, min(100.0, (total_after - total_before) / 1e6 / wall_s * 100.0))


def read_psi(path: Path = _PSI) -> float | None:
    """CPU pressure, "some avg10" in percent, or None where unavailable."""
    return _psi_some("avg10", path)
