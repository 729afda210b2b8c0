"""Pass-through: how much of a known-good answer reaches the user through the model path.

With answers whose worth is known (each task's reference unit, replayed as a model's answer),
two figures say whether the path drops good answers:

- ``share_verified``: the share of tasks whose answer came out verified and measured (a
  ``faster``, ``no-change`` or ``slower`` verdict after a full verification);
- ``geomean``: the geometric mean over tasks, whose reference was measured, of the speedup that
  reaches the user (the chosen candidate's when measured faster, else 1.0: the original is
  kept) over the speedup the reference itself delivers by the same rule. Where the two
  separate figures say the answer falls short, the answer and the reference are timed against
  each other in one paired run, and that run's ratio counts instead: separate figures taken
  minutes apart drift with the machine's load more than their intervals say.

Every task that falls short is a loss with its reason: no answer, extraction failed, answer
refused (and why), rejected by policy (which construct), build failed, incorrect, weak, slower,
no change, noisy, harness cannot feed, or less than ``SHORT_OF`` of the reference's speedup.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from perfpilot.evaluation.results import TIMED, SampleResult, TaskResult

# A verified answer that delivers less than this share of the reference's speedup is a loss.
SHORT_OF = 0.9
_KINDS = {"rejected": "rejected by policy", "build-failed": "build failed",
          "incorrect": "incorrect", "weakly-verified": "weak", "noisy": "noisy",
          "timeout": "timeout", "suspicious": "suspicious", "no-input": "no input",
          "slower": "slower", "no-change": "no change"}
_ORDER = ("weakly-verified", "suspicious", "noisy", "incorrect", "timeout", "build-failed",
          "no-input", "rejected")


def verified(result: TaskResult) -> bool:
    """Whether some answer of the task came out verified and measured."""
    return any(s.verdict in TIMED for s in result.samples)


def _telling(samples: Sequence[SampleResult]) -> SampleResult:
    """The sample that best says why a task's answers failed: the latest round first, and
    within it the failure closest to success."""
    last = max(s.round for s in samples)
    pool = [s for s in samples if s.round == last]
    return min(pool, key=lambda s: _ORDER.index(s.verdict) if s.verdict in _ORDER
               else len(_ORDER))


def loss(result: TaskResult, ratio: float | None = None) -> dict[str, str] | None:
    """The task's loss as ``{"kind", "reason"}``, or None when the answer passed through
    (verified, and at least ``SHORT_OF`` of the reference's speedup when that is known)."""
    if result.error:
        return {"kind": "error", "reason": result.error}
    if not result.samples:
        why = result.rejected[0].reason if result.rejected else (result.message
                                                                  or "no candidate")
        kind = ("no answer" if why.startswith("no replayed answer") else
                "extraction failed" if why.startswith("extraction failed") else
                "answer refused")
        return {"kind": kind, "reason": why.removeprefix("extraction failed: ")}
    if any(s.needs_spec for s in result.samples) and not verified(result):
        s = next(s for s in result.samples if s.needs_spec)
        return {"kind": "harness cannot feed", "reason": s.detail or s.message}
    if not verified(result):
        s = _telling(result.samples)
        kind = _KINDS.get(s.verdict, s.verdict)
        # A noisy result passed validation: why it could not be timed is in its message.
        reason = s.message if s.verdict == "noisy" else (s.detail or s.message)
        if s.round:
            reason = f"{reason} (after {s.round} repair round{'s' if s.round > 1 else ''})"
        return {"kind": kind, "reason": reason}
    if ratio is not None and ratio < SHORT_OF:
        best = result.best
        timed = [s for s in result.samples if s.verdict in TIMED]
        shown = best or max(timed, key=lambda s: s.speedup or 0.0)
        ref = result.compared_reference
        ref_text = f"{ref.speedup:.2f}×" if ref is not None and ref.speedup else "?"
        got = f"{shown.speedup:.2f}×" if shown.speedup else shown.verdict
        kind = "short of the reference" if shown.verdict == "faster" else \
            _KINDS.get(shown.verdict, shown.verdict)
        reason = f"measured {got} ({shown.verdict}) where the reference measured {ref_text}"
        if ref is not None and shown.size and ref.size:
            reason += (f", timed at size {shown.size} against {ref.size}" if shown.size
                       != ref.size else f", both timed at size {shown.size}")
        direct = result.against_reference
        if direct is not None and direct.verdict in TIMED and direct.speedup:
            reason += (f"; timed against each other, the reference is {direct.speedup:.2f}× "
                       "the answer's speed")
        return {"kind": kind, "reason": reason}
    return None


def direct_share(result: TaskResult) -> float | None:
    """The answer's share of the reference's speed from the paired run of the two, when there
    was one (``TaskResult.against_reference``): 1.0 when they did not differ measurably."""
    direct = result.against_reference
    if direct is None or direct.verdict not in TIMED or not direct.speedup:
        return None
    return 1.0 if direct.verdict == "no-change" else 1.0 / direct.speedup


def pass_through(results: Sequence[TaskResult]) -> dict[str, Any]:
    """The pass-through figures of a run (see the module's docstring)."""
    n = len(results)
    ratios: list[float] = []
    ours: list[float] = []
    refs: list[float] = []
    losses: list[dict[str, str]] = []
    paired = 0
    for r in results:
        ref = r.compared_reference
        ratio: float | None = None
        if ref is not None and ref.verdict in TIMED and ref.speedup:
            ratio = direct_share(r)
            if ratio is None:
                ratio = r.speedup / ref.effective
            else:
                paired += 1
            ratios.append(ratio)
            ours.append(r.speedup)
            refs.append(r.speedup / ratio)
        lost = loss(r, ratio)
        if lost is not None:
            losses.append({"task": r.task, **lost})
    passed = sum(verified(r) for r in results)

    def geomean(values: list[float]) -> float | None:
        if not values:
            return None
        return round(math.exp(sum(math.log(v) for v in values) / len(values)), 4)

    by_kind: dict[str, int] = {}
    for item in losses:
        by_kind[item["kind"]] = by_kind.get(item["kind"], 0) + 1
    return {
        "tasks": n,
        "verified_measured": passed,
        "share_verified": round(passed / n, 4) if n else None,
        "with_reference": len(ratios),
        "paired": paired,
        "geomean": geomean(ratios),
        "ours_geomean": geomean(ours),
        "reference_geomean": geomean(refs),
        "losses": losses,
        "loss_kinds": dict(sorted(by_kind.items(), key=lambda kv: (-kv[1], kv[0]))),
    }
