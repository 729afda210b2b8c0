"""Turning measurements and failures into verdicts with one human sentence each."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

from perfpilot.runner.stats import classify
from perfpilot.runner.values import Measurement, Tuning, Verdict, Verification


def _x(value: float) -> str:
    return f"{value:.2f}×" if value < 100 else f"{value:.0f}×"


@dataclass(frozen=True)
class Failure:
    """A verdict reached without a measurement (incorrect, timeout, build-failed)."""

    verdict: str
    message: str
    validation_status: str = "failed"
    validation_detail: str = ""
    build_log: str | None = None

    def apply(self, base: Verdict) -> Verdict:
        """``base`` with this outcome filled in."""
        return replace(base, verdict=self.verdict, message=self.message,
                       validation_status=self.validation_status,
                       validation_detail=self.validation_detail or base.validation_detail,
                       build_log=self.build_log if self.build_log is not None
                       else base.build_log)


def forged(lines: int) -> Failure | None:
    """``incorrect`` when ``lines`` lines on the driver's result channel failed their tag."""
    if not lines:
        return None
    return Failure("incorrect", "Something other than the runner wrote to its result channel "
                   f"({lines} forged line(s)) while the candidate ran: its results cannot be "
                   "trusted.", "failed", "forged result channel")


def mismatch(event: Mapping[str, Any]) -> Failure:
    """An ``incorrect`` verdict from the driver's mismatch event."""
    detail = f"size {event.get('size')}: {event.get('detail')}"
    return Failure("incorrect", f"The candidate's output differs from the original's at {detail}.",
                   "failed", detail)


def wall_outruns_counts(wall: float, instructions_ratio: float) -> bool:
    """Whether a wall-time speedup claims more than ten times the gain the instruction counts
    show. Only that direction is suspect: code that tampers with its own timing looks faster,
    never slower, while counts can honestly show more gain than the clock does (per-call
    costs outside the function dominate a call that became tiny). Compare them at one size: a
    change of complexity class makes both ratios grow with the size."""
    return instructions_ratio > 0 and wall > 10 * instructions_ratio


def from_measurement(base: Verdict, m: Measurement, serial: Measurement | None,
                     instructions_ratio: float | None, tuning: Tuning,
                     verification: Verification | None = None) -> Verdict:
    """The verdict for a validated, timed candidate.

    A candidate faster by the clock whose inputs left some behaviour of the original untested
    (a strong mutant survived) is ``weakly-verified``, not ``faster``. Wall time and instruction
    counts that show less than a tenth of the wall-time gain withhold the figure: code under
    test that tampered with its own timing is the likeliest cause.
    """
    if instructions_ratio is not None and m.speedup > 0:
        wall = serial.speedup if serial is not None else m.speedup
        if wall_outruns_counts(wall, instructions_ratio):
            m = replace(m, withheld=(
                f"Wall time says {_x(wall)} but instruction counts say "
                f"{_x(instructions_ratio)}: the clock claims more than ten times the gain "
                "the instructions show, so the timing is not trusted."))
    word = classify(m, tuning.no_change_band)
    threads = f"{m.threads} threads" if m.threads > 1 else "serial"
    ci = f"95% CI {m.ci95_low:.3g}–{m.ci95_high:.3g}"
    if m.basis == "cpu":
        ci += ", CPU time: machine busy"
    serial_text = ""
    if serial is not None:
        serial_text = f"; 1 thread {_x(serial.speedup)}"
    if word == "faster":
        message = f"{_x(m.speedup)} faster ({ci}, {threads}{serial_text})."
    elif word == "slower":
        message = f"{_x(m.speedup)}: slower ({ci}, {threads}{serial_text})."
    elif word == "no-change":
        message = f"No measurable change: {_x(m.speedup)} ({ci}, {threads}{serial_text})."
    elif m.withheld:
        message = (f"Not reliable: {m.withheld} The run measured {_x(m.speedup)} ({ci}). "
                   "Re-run when the machine is quieter.")
    elif not m.clean:
        psi = f", CPU pressure {m.psi:.0f}%" if m.psi is not None else ""
        message = (f"Machine too busy to measure: {m.dropped_pairs} of {m.pairs} pairs waited "
                   f"for a CPU{psi}. Re-run when the machine is quieter.")
    else:
        message = (f"Inconclusive: {_x(m.speedup)} with {ci} straddles 1 and is wider than "
                   f"±{tuning.no_change_band:.0%}. Re-run when the machine is quieter.")
    if instructions_ratio is not None and word in ("faster", "slower", "no-change"):
        # Threads divide the wall time, not the instructions: compare with one thread.
        wall = serial.speedup if serial is not None else m.speedup
        if max(wall, instructions_ratio) > 2 * min(wall, instructions_ratio):
            message += (f" Instruction counts say {_x(instructions_ratio)}, far from the "
                        f"{'1-thread ' if serial is not None else ''}wall time figure.")
    status = "passed"
    detail = f"outputs agree on edge sizes and at size {m.size}"
    if verification is not None:
        detail = (f"outputs agree on {verification.phrase()} and at the timed size {m.size}"
                  + (f"; {verification.beyond}" if verification.beyond else ""))
        if verification.weak:
            status = "weak"
            detail += f"; untested: {verification.untested()}"
            if word == "faster":
                word = "weakly-verified"
                message = f"{message[:-1]}, but only weakly verified: {verification.weakness()}."
    return replace(
        base,
        verdict=word,
        message=message,
        speedup=m.speedup,
        ci95=m.ci95,
        threads=m.threads,
        serial_speedup=serial.speedup if serial else None,
        serial_ci95=serial.ci95 if serial else None,
        instructions_ratio=instructions_ratio,
        validation_status=status,
        validation_detail=detail,
        pairs=m.pairs,
        dropped_pairs=m.dropped_pairs,
        median_a_s=m.median_a_s,
        median_b_s=m.median_b_s,
        psi=m.psi if m.psi is not None else base.psi,
        notes=base.notes,
        measurement=m,
        serial_measurement=serial,
        verification=verification,
    )
