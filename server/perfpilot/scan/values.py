"""The values of a scan: its targets, each function's result, and the worker that measured it.

Every value round-trips through JSON (``to_json``/``from_json``): results travel back from
workers, the state file keeps the finished ones, and the JSON output is made of them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from perfpilot.model_usage import NO_USAGE, ModelUsage


@dataclass(frozen=True)
class Target:
    """One function to scan. ``path`` is relative to the workspace root (``/`` separators);
    ``digest`` identifies the unit's text and the function, so a finished result is reused only
    while both are unchanged; ``share`` is the function's self share in a profile, if one
    chose it."""

    path: str
    function: str
    first_line: int
    last_line: int
    digest: str
    share: float | None = None

    @property
    def key(self) -> str:
        """The name of the target in the state file and the outputs."""
        return f"{self.path}::{self.function}@{self.first_line}"

    def to_json(self) -> dict[str, Any]:
        """A plain JSON-able dict."""
        return {"path": self.path, "function": self.function, "first_line": self.first_line,
                "last_line": self.last_line, "digest": self.digest, "share": self.share}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Target:
        """The inverse of ``to_json``."""
        share = data.get("share")
        return cls(str(data["path"]), str(data["function"]), int(data["first_line"]),
                   int(data["last_line"]), str(data["digest"]),
                   float(share) if share is not None else None)


@dataclass(frozen=True)
class WorkerInfo:
    """Where a function was measured: the machine, its CPU model and cores, and its load
    average over the last minute when the measurement started; ``pinned``: the cores the
    measurement was pinned to (``0-1``), empty when it could use every core."""

    where: str  # "local", or "ray" for a Ray worker
    host: str
    cpu_model: str
    cores: int
    load1: float
    pinned: str = ""

    def to_json(self) -> dict[str, Any]:
        """A plain JSON-able dict."""
        return {"where": self.where, "host": self.host, "cpu_model": self.cpu_model,
                "cores": self.cores, "load1": self.load1, "pinned": self.pinned}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> WorkerInfo:
        """The inverse of ``to_json``."""
        return cls(str(data["where"]), str(data["host"]), str(data["cpu_model"]),
                   int(data["cores"]), float(data["load1"]), str(data.get("pinned", "")))


@dataclass(frozen=True)
class PlanStep:
    """One strategy of a function's plan (``advice``: why the built-in rewriter leaves it to
    the user, ``Strategy.advice``)."""

    category: str
    explanation: str
    lines: tuple[int, ...] = ()
    rule: str = ""
    advice: str = ""


@dataclass(frozen=True)
class FunctionResult:
    """What the pipeline made of one target.

    ``status`` is the engine's outcome status (``improved``, ``weakly-verified``,
    ``not-improved``, ``no-candidate``, ...) or ``error`` when the function could not be
    worked on (``message`` says why). ``code`` and ``includes`` are the chosen (or, when none
    was chosen, the best measured) candidate; ``verdict`` its verdict as the runner's JSON.
    ``usage``: what the function asked of models (its plan, candidates and repair rounds).
    """

    target: Target
    status: str
    message: str
    worker: WorkerInfo
    seconds: float
    plan: tuple[PlanStep, ...] = ()
    code: str = ""
    includes: tuple[str, ...] = ()
    verdict: dict[str, Any] | None = field(default=None, hash=False)
    usage: ModelUsage = NO_USAGE

    @property
    def verdict_word(self) -> str:
        """The runner's verdict word for the candidate, or the status when none was measured."""
        if self.verdict is None:
            return self.status
        return str(self.verdict.get("verdict", self.status))

    @property
    def speedup(self) -> float | None:
        """The measured speedup, if any."""
        value = self.verdict.get("speedup") if self.verdict else None
        return float(value) if value is not None else None

    @property
    def ci95(self) -> tuple[float, float] | None:
        """The 95% interval of the speedup, if any."""
        value = self.verdict.get("ci95") if self.verdict else None
        return (float(value[0]), float(value[1])) if value else None

    @property
    def verification(self) -> str:
        """How strongly the inputs checked the candidate, as one phrase (empty when unknown)."""
        data = self.verdict.get("verification") if self.verdict else None
        if not data:
            return ""
        phrase = str(data.get("phrase", ""))
        return f"weak: {phrase}" if data.get("weak") else phrase

    @property
    def verified(self) -> bool:
        """Whether the rewrite was measured faster and fully verified (it may be applied)."""
        return self.status == "improved" and bool(self.code)

    def to_json(self) -> dict[str, Any]:
        """A plain JSON-able dict."""
        return {"target": self.target.to_json(), "status": self.status,
                "message": self.message, "worker": self.worker.to_json(),
                "seconds": self.seconds,
                "plan": [{"category": s.category, "explanation": s.explanation,
                          "lines": list(s.lines), "rule": s.rule, "advice": s.advice}
                         for s in self.plan],
                "code": self.code, "includes": list(self.includes), "verdict": self.verdict,
                "model_usage": self.usage.to_json()}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> FunctionResult:
        """The inverse of ``to_json``."""
        return cls(Target.from_json(data["target"]), str(data["status"]),
                   str(data["message"]), WorkerInfo.from_json(data["worker"]),
                   float(data["seconds"]),
                   tuple(PlanStep(str(s["category"]), str(s["explanation"]),
                                  tuple(int(n) for n in s.get("lines", ())),
                                  str(s.get("rule", "")), str(s.get("advice", "")))
                         for s in data.get("plan", ())),
                   str(data.get("code", "")), tuple(str(i) for i in data.get("includes", ())),
                   data.get("verdict"), ModelUsage.from_json(data.get("model_usage")))


@dataclass(frozen=True)
class RegressionCheck:
    """A changed function timed as it is now (the candidate) against its version at the base
    revision (the original): ``verdict`` is the runner's JSON, or None with ``note`` saying
    why it was not timed."""

    target: Target
    verdict: dict[str, Any] | None = field(default=None, hash=False)
    note: str = ""

    @property
    def slower(self) -> bool:
        """Whether the function got slower beyond its interval (the runner's "slower")."""
        return self.verdict is not None and self.verdict.get("verdict") == "slower"

    def to_json(self) -> dict[str, Any]:
        """A plain JSON-able dict."""
        return {"target": self.target.to_json(), "verdict": self.verdict, "note": self.note,
                "slower": self.slower}
