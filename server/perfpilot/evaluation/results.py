"""Result values of an evaluation run and their JSON form (the files resume reads back)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from perfpilot.runner.values import VERDICTS

# Task-level words: the runner's verdicts plus two outcomes that have no measurement.
TASK_VERDICTS: tuple[str, ...] = (*VERDICTS, "no-candidate", "error")
TIMED = ("faster", "slower", "no-change")
# A noisy sample passed validation (the runner validates before timing): correct, unmeasured.
# A suspicious one passed it too, but its clock and its instruction counts disagree the way
# code that answers from memory makes them: neither correct nor a figure.
CORRECT = (*TIMED, "noisy")
UNMEASURED = ("noisy", "error", "no-input")
# The generated harness could not feed the function: nothing about the candidates was learned,
# and a bench spec, not a better rewrite, is what the task needs. Counted on its own.
NEEDS_SPEC = "needs-spec"
# When no candidate was faster, the task takes the word of its most telling sample. A
# suspicious sample comes first (the alarm must show), then a noisy one: it might have been
# the faster one, so the task stays unmeasured.
_PRIORITY = ("suspicious", "noisy", "no-change", "slower", "timeout", "incorrect",
             "build-failed", "needs-spec", "no-input", "rejected")


@dataclass(frozen=True)
class SampleResult:
    """One measured candidate (or the reference): the runner's verdict and figures."""

    verdict: str
    speedup: float | None = None
    ci95: tuple[float, float] | None = None
    serial_speedup: float | None = None
    threads: int = 1
    categories: tuple[str, ...] = ()
    message: str = ""
    # 0 for a first answer, r for the answer to repair round r.
    round: int = 0
    # The evidence behind a failure: the first compiler error, the differing input, the
    # untested behaviour of a weak verification, the refused construct.
    detail: str = ""
    # The generated harness cannot feed the function (a bench spec is needed).
    needs_spec: bool = False
    # The input size the timing ran at (calibrated per measurement: an algorithmic speedup
    # grows with it), when it was timed.
    size: int | None = None

    @property
    def effective(self) -> float:
        """The speedup the user gets: the measured one when faster, else 1.0 (original kept)."""
        if self.verdict == "faster" and self.speedup is not None and self.speedup > 1.0:
            return self.speedup
        return 1.0

    @property
    def effective_serial(self) -> float:
        """Like ``effective`` for the one-thread figure of an OpenMP candidate."""
        if self.verdict == "faster" and self.serial_speedup is not None \
                and self.serial_speedup > 1.0:
            return self.serial_speedup
        return self.effective if self.serial_speedup is None else 1.0

    def to_json(self) -> dict[str, Any]:
        """A JSON-able dict."""
        return {"verdict": self.verdict, "speedup": self.speedup,
                "ci95": list(self.ci95) if self.ci95 is not None else None,
                "serial_speedup": self.serial_speedup, "threads": self.threads,
                "categories": list(self.categories), "message": self.message,
                "round": self.round, "detail": self.detail, "needs_spec": self.needs_spec,
                "size": self.size}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> SampleResult:
        """The inverse of ``to_json``."""
        ci = data.get("ci95")
        return cls(verdict=str(data["verdict"]), speedup=data.get("speedup"),
                   ci95=(float(ci[0]), float(ci[1])) if ci else None,
                   serial_speedup=data.get("serial_speedup"), threads=int(data.get("threads", 1)),
                   categories=tuple(data.get("categories", ())),
                   message=str(data.get("message", "")), round=int(data.get("round", 0)),
                   detail=str(data.get("detail", "")),
                   needs_spec=bool(data.get("needs_spec", False)),
                   size=int(data["size"]) if data.get("size") is not None else None)


@dataclass(frozen=True)
class RejectedAnswer:
    """An answer dropped before measurement (no code found, refused by the checks)."""

    reason: str
    round: int = 0
    answer: str = ""

    def to_json(self) -> dict[str, Any]:
        """A JSON-able dict."""
        return {"reason": self.reason, "round": self.round, "answer": self.answer}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> RejectedAnswer:
        """The inverse of ``to_json``."""
        return cls(str(data.get("reason", "")), int(data.get("round", 0)),
                   str(data.get("answer", "")))


@dataclass(frozen=True)
class TaskResult:
    """Everything evaluation learned about one task."""

    task: str
    openmp: bool
    labels: tuple[str, ...]
    planned: tuple[str, ...]
    samples: tuple[SampleResult, ...]
    chosen: int | None
    reference: SampleResult | None = None
    seconds: float = 0.0
    message: str = ""
    error: str = ""
    key: str = ""
    # Answers that never became a measured candidate: why, the repair round, and the answer
    # itself (shortened; kept as text, never run).
    rejected: tuple[RejectedAnswer, ...] = ()
    # The reference timed again at the chosen answer's size, when the two were calibrated to
    # different sizes (an algorithmic speedup grows with the size): pass-through compares
    # like with like.
    reference_at_size: SampleResult | None = None
    # The chosen answer timed directly against the reference (both sides in one paired run,
    # the reference as the candidate), when the two separate figures said the answer fell
    # short: two figures measured minutes apart drift with the machine's load more than
    # their intervals say, one paired run does not. Its speedup is the reference's over the
    # answer.
    against_reference: SampleResult | None = None

    @property
    def verdict(self) -> str:
        """The task's word: the chosen sample's, else the most telling sample's (see _PRIORITY)."""
        if self.error:
            return "error"
        if self.chosen is not None:
            return self.samples[self.chosen].verdict
        if not self.samples:
            return "no-candidate"
        words = {s.verdict for s in self.samples}
        for word in _PRIORITY:
            if word in words:
                return word
        return "faster" if "faster" in words else sorted(words)[0]

    @property
    def compared_reference(self) -> SampleResult | None:
        """The reference figure an answer is compared with: timed at the answer's own size
        when that measurement came out timed, else the reference's first measurement."""
        pinned = self.reference_at_size
        if pinned is not None and pinned.verdict in TIMED:
            return pinned
        return self.reference

    @property
    def best(self) -> SampleResult | None:
        """The chosen sample, if one was measured faster."""
        return self.samples[self.chosen] if self.chosen is not None else None

    @property
    def speedup(self) -> float:
        """The task's speedup for PIE-style means: the chosen sample's, else 1.0."""
        best = self.best
        return best.effective if best is not None else 1.0

    @property
    def raw_speedup(self) -> float | None:
        """The measured figure behind the verdict (slower ones too), for reports."""
        if self.chosen is not None:
            return self.samples[self.chosen].speedup
        measured = [s.speedup for s in self.samples if s.verdict in TIMED and s.speedup]
        return max(measured) if measured else None

    @property
    def correct(self) -> bool:
        """Whether a candidate passed validation (timed or not)."""
        return self.verdict in CORRECT

    @property
    def measured(self) -> bool:
        """False for tasks that could not be measured (a busy machine, an error)."""
        return self.verdict not in UNMEASURED

    @property
    def needs_spec(self) -> bool:
        """Whether the harness could not feed the task's function (a bench spec is needed)."""
        return self.verdict == NEEDS_SPEC

    def to_json(self) -> dict[str, Any]:
        """The stored form (one file per task in the output directory)."""
        return {"task": self.task, "openmp": self.openmp, "labels": list(self.labels),
                "planned": list(self.planned), "samples": [s.to_json() for s in self.samples],
                "chosen": self.chosen,
                "reference": self.reference.to_json() if self.reference else None,
                "seconds": self.seconds, "message": self.message, "error": self.error,
                "key": self.key, "verdict": self.verdict, "speedup": self.speedup,
                "rejected": [r.to_json() for r in self.rejected],
                "reference_at_size": self.reference_at_size.to_json()
                if self.reference_at_size else None,
                "against_reference": self.against_reference.to_json()
                if self.against_reference else None}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> TaskResult:
        """The inverse of ``to_json`` (derived keys are recomputed)."""
        ref = data.get("reference")
        pinned = data.get("reference_at_size")
        direct = data.get("against_reference")
        chosen = data.get("chosen")
        return cls(task=str(data["task"]), openmp=bool(data.get("openmp", False)),
                   labels=tuple(data.get("labels", ())), planned=tuple(data.get("planned", ())),
                   samples=tuple(SampleResult.from_json(s) for s in data.get("samples", ())),
                   chosen=int(chosen) if chosen is not None else None,
                   reference=SampleResult.from_json(ref) if ref else None,
                   seconds=float(data.get("seconds", 0.0)), message=str(data.get("message", "")),
                   error=str(data.get("error", "")), key=str(data.get("key", "")),
                   rejected=tuple(RejectedAnswer.from_json(r)
                                  for r in data.get("rejected", ())),
                   reference_at_size=SampleResult.from_json(pinned) if pinned else None,
                   against_reference=SampleResult.from_json(direct) if direct else None)
