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
    """A verdict reached without a measurement (incorrect, timeout, build-failed, needs-spec)."""

    verdict: str
    message: str
    validation_status: str = "failed"
    validation_detail: str = ""
    build_log: str | None = None
    needs_spec: bool = False

    def apply(self, base: Verdict) -> Verdict:
        """``base`` with this outcome filled in."""
        return replace(base, verdict=self.verdict, message=self.message,
                       validation_status=self.validation_status,
                       validation_detail=self.validation_detail or base.validation_detail,
                       build_log=self.build_log if self.build_log is not None
                       else base.build_log, needs_spec=self.needs_spec or base.needs_spec)


def inputs_unusable(mode: str, name: str, reason: str, detail: str = "") -> Failure:
    """The inputs do not work for the original itself (it fails on every one of them, its
    harness does not compile, they cannot be set up). With generated inputs that is no fault
    of the candidate's: ``needs-spec``, "PerfPilot cannot build inputs for NAME: REASON." With a
    bench spec, the spec's inputs are at fault: ``build-failed``, saying so."""
    if mode == "harness":
        return Failure("needs-spec", f"PerfPilot cannot build inputs for {name}: {reason}.",
                       "skipped", detail or reason, needs_spec=True)
    return Failure("build-failed", f"The bench spec's inputs do not work: {reason}. Fix them "
                   "(see docs/bench-spec.md).", "skipped", detail or reason)


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
    if event.get("memory"):
        return from_memory(detail)
    return Failure("incorrect", f"The candidate's output differs from the original's at {detail}.",
                   "failed", detail)


def from_memory(detail: str) -> Failure:
    """``incorrect`` for a candidate caught by the memory probe returning, after its input was
    changed in place, the answer to the input before (``detail``: where, and the values)."""
    return Failure("incorrect", "The candidate answers from memory: after its input changed in "
                   f"place it returned the previous answer ({detail}).", "failed",
                   f"answers from memory: {detail}")


# How many times the gain one measure shows the other may claim before the pair is not trusted.
_DISAGREEMENT = 10


def wall_outruns_counts(wall: float, instructions_ratio: float) -> bool:
    """Whether a wall-time speedup claims more than ten times the gain the instruction counts
    show: the verdict is then ``suspicious``. Code that tampers with its own timing, or answers
    timed calls from memory, looks faster by the clock than by its counted call (taken on
    inputs it has not seen). Compare them at one size: a change of complexity class makes both
    ratios grow with the size."""
    return instructions_ratio > 0 and wall > _DISAGREEMENT * instructions_ratio


def counts_outrun_wall(wall: float, instructions_ratio: float) -> bool:
    """Whether the instruction counts show more than ten times the wall-time gain. Only a note:
    honest rewrites do this when the call became tiny and costs outside its instructions
    dominate its time (a bundled string-joining rewrite measured 21× by the clock and 921× by
    the counts: allocation and memory traffic are not instructions)."""
    return wall > 0 and instructions_ratio > _DISAGREEMENT * wall


def suspicious_reason(wall: float, instructions_ratio: float) -> str:
    """Why a wall-time figure is not trusted beside its instruction counts (one sentence)."""
    return (f"Wall time says {_x(wall)} but instruction counts say {_x(instructions_ratio)}: the "
            "clock claims more than ten times the gain the instructions show, which code that "
            "tampers with its timing or answers from memory does; the figure is not trusted and "
            "nothing is applied.")


def too_few_pairs_message(m: Measurement) -> str:
    """Why a measurement with too few clean pairs gives no figure, in words that agree with
    its numbers: "machine too busy" only when pairs did wait for a CPU (and most of them),
    else that too few pairs were timed; the CPU pressure only when there was some."""
    kept = m.pairs - m.dropped_pairs
    needed = max(3, -(-(m.wanted_pairs or m.pairs) // 2))
    psi = f", CPU pressure {m.psi:.0f}%" if m.psi is not None and round(m.psi) > 0 else ""
    if m.dropped_pairs > 0 and m.dropped_pairs >= kept:
        return (f"Machine too busy to measure: {m.dropped_pairs} of {m.pairs} pairs waited for "
                f"a CPU{psi}; {needed} clean pairs are needed. Re-run when the machine is "
                "quieter.")
    # Few pairs, few of them contended: the timing ran out of time before it had enough.
    waited = f", {m.dropped_pairs} waited for a CPU{psi}" if m.dropped_pairs else ""
    return (f"Too few pairs to measure: the timing stopped after {m.pairs} pairs ({kept} "
            f"clean{waited}); {needed} clean pairs are needed. Re-run with more time for the "
            "job.")


def from_measurement(base: Verdict, m: Measurement, serial: Measurement | None,
                     instructions_ratio: float | None, tuning: Tuning,
                     verification: Verification | None = None, *,
                     same_code: bool = False) -> Verdict:
    """The verdict for a validated, timed candidate.

    A candidate faster by the clock whose inputs left some behaviour of the original untested
    (a strong mutant survived) is ``weakly-verified``, not ``faster``. Instruction counts that
    show less than a tenth of the wall-time gain make it ``suspicious``: code under test that
    tampered with its own timing, or answered timed calls from memory, is the likeliest cause.
    Such a verdict carries no speedup (the measurement stays as evidence) and is never applied.
    ``same_code``: the candidate changed only how its parameters are passed (the same body,
    nothing added), so it cannot tamper or remember; its clock gain stands, with a note (copies
    no longer made cost memory traffic and page faults, few instructions).
    """
    # Threads divide the wall time, not the instructions: compare with one thread.
    wall = serial.speedup if serial is not None else m.speedup
    word = classify(m, tuning.no_change_band)
    threads = f"{m.threads} threads" if m.threads > 1 else "serial"
    # The one interval format: the bounds as the speedup is written, an en dash between.
    ci = f"95% CI {_x(m.ci95_low)[:-1]}–{_x(m.ci95_high)[:-1]}"
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
        message = too_few_pairs_message(m)
    else:
        message = (f"Inconclusive: {_x(m.speedup)} with {ci} straddles 1 and is wider than "
                   f"±{tuning.no_change_band:.0%}. Re-run when the machine is quieter.")
    if instructions_ratio is not None and word in ("faster", "slower", "no-change") and \
            max(wall, instructions_ratio) > 2 * min(wall, instructions_ratio):
        message += (f" Instruction counts say {_x(instructions_ratio)}, far from the "
                    f"{'1-thread ' if serial is not None else ''}wall time figure")
        message += (": time the instructions do not show (memory, allocation, the system) "
                    "decides it." if counts_outrun_wall(wall, instructions_ratio) else ".")
    status = "passed"
    detail = f"outputs agree on edge sizes and at size {m.size}"
    if verification is not None:
        detail = (f"outputs agree on {verification.phrase()} and at the timed size {m.size}"
                  + (f"; {verification.beyond}" if verification.beyond else ""))
        if verification.reach():
            detail += f"; {verification.reach()}"
        if verification.weak:
            status = "weak"
            detail += f"; untested: {verification.untested()}"
            if word == "faster":
                word = "weakly-verified"
                message = f"{message[:-1]}, but only weakly verified: {verification.weakness()}."
    verdict = replace(
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
    if instructions_ratio is not None and m.speedup > 0 and same_code and \
            wall_outruns_counts(wall, instructions_ratio):
        return replace(verdict, notes=(*verdict.notes, (
            f"Wall time says {_x(wall)} and instruction counts {_x(instructions_ratio)}: only "
            "the parameters' passing changed (the same body, no code added), so the gain the "
            "instructions miss is the copies no longer made: memory traffic and page faults.")))
    if instructions_ratio is not None and m.speedup > 0 and \
            wall_outruns_counts(wall, instructions_ratio):
        # Not a speedup at all: no figure to show, rank or apply; the measurement stays as
        # evidence.
        return replace(verdict, verdict="suspicious",
                       message=suspicious_reason(wall, instructions_ratio), speedup=None,
                       ci95=None, serial_speedup=None, serial_ci95=None)
    return verdict
