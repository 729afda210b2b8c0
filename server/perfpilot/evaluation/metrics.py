"""Scores over task results, as the PIE and ParEval papers define them.

- ``correct_rate``: share of tasks with a candidate that passed validation (PIE's %Correct;
  a noisy timing does not make a validated candidate wrong).
- ``opt_rate``: share of tasks whose chosen candidate was measured ``faster`` with speedup
  >= 1.10 (PIE's %Opt).
- ``mean_speedup``: mean over tasks of the chosen candidate's speedup, where a task without a
  faster candidate (incorrect, slower, no change, failed, unmeasured) counts as 1.0: the
  original is kept (PIE counts incorrect output as 1.0).
- ``speedup_at_k``: ParEval's expected best-of-k speedup. With n measured samples per task and
  each sample's value its speedup when faster, else 1.0, it is the unbiased estimator of the
  expected maximum over a uniformly drawn subset of k samples:
  sum_{i=k..n} C(i-1, k-1) / C(n, k) * v_(i) with v sorted ascending. When n == k this is
  simply the best of the n; when a task has fewer than k samples, the best of those it has.
- ``category_recall``: mean over labelled tasks of |labels ∩ planned| / |labels|.
Tasks that could not be measured (``noisy``, ``error``) are counted in ``unmeasured`` and never
as optimized; they count 1.0 in the means. Tasks whose function the generated harness could
not feed (``needs-spec``) are counted in ``needs_spec`` on their own: nothing about their
candidates was learned (they count 1.0 in the means and are not correct).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from perfpilot.evaluation.pass_through import pass_through
from perfpilot.evaluation.results import CORRECT, SampleResult, TaskResult

OPT_THRESHOLD = 1.10


def expected_best_of_k(values: Sequence[float], k: int) -> float:
    """Expected maximum of ``k`` values drawn without replacement from ``values``.

    ``k`` larger than ``len(values)`` means all of them (the best). Empty: 1.0 (nothing gained).
    """
    if k < 1:
        raise ValueError("k must be at least 1")
    n = len(values)
    if n == 0:
        return 1.0
    k = min(k, n)
    ordered = sorted(values)
    total = math.comb(n, k)
    return sum(math.comb(i - 1, k - 1) * ordered[i - 1] for i in range(k, n + 1)) / total


def _mean(values: Sequence[float]) -> float | None:
    return sum(values) / len(values) if values else None


def _geomean(values: Sequence[float]) -> float | None:
    return math.exp(sum(math.log(v) for v in values) / len(values)) if values else None


def _round(value: float | None, digits: int = 4) -> float | None:
    return round(value, digits) if value is not None else None


def summary(results: Sequence[TaskResult], k: int, serial: bool = False) -> dict[str, Any]:
    """The headline scores over ``results`` (``serial``: use the one-thread figures)."""
    n = len(results)

    def value(s: SampleResult) -> float:
        return s.effective_serial if serial else s.effective

    speedups = [value(r.best) if r.best is not None else 1.0 for r in results]
    at_k = [expected_best_of_k([value(s) for s in r.samples], k) for r in results]
    opt = [r for r, v in zip(results, speedups, strict=True)
           if r.verdict == "faster" and v >= OPT_THRESHOLD]
    return {
        "tasks": n,
        "correct_rate": _round(sum(r.correct for r in results) / n) if n else None,
        "opt_rate": _round(len(opt) / n) if n else None,
        "mean_speedup": _round(_mean(speedups)),
        "geomean_speedup": _round(_geomean(speedups)),
        "speedup_at_k": _round(_mean(at_k)),
        "unmeasured": sum(not r.measured for r in results),
        "needs_spec": sum(r.needs_spec for r in results),
    }


def category_recall(results: Sequence[TaskResult]) -> float | None:
    """Mean share of each labelled task's categories that its plan contains."""
    shares = [len(set(r.labels) & set(r.planned)) / len(r.labels) for r in results if r.labels]
    return _round(_mean(shares))


def category_precision(results: Sequence[TaskResult]) -> float | None:
    """Mean share of each labelled task's planned categories that its labels contain."""
    shares = [len(set(r.labels) & set(r.planned)) / len(r.planned)
              for r in results if r.labels and r.planned]
    return _round(_mean(shares))


def per_task(result: TaskResult) -> dict[str, Any]:
    """One row of the ``per_task`` list."""
    best = result.best
    ref = result.reference
    return {
        "task": result.task,
        "verdict": result.verdict,
        "speedup": _round(result.speedup),
        "measured_speedup": _round(result.raw_speedup),
        "serial_speedup": _round(best.serial_speedup) if best is not None else None,
        "categories": list(result.planned),
        "labels": list(result.labels),
        "openmp": result.openmp,
        "samples": len(result.samples),
        "sample_verdicts": [s.verdict for s in result.samples],
        "sample_rounds": [s.round for s in result.samples],
        "reference_verdict": ref.verdict if ref is not None else None,
        "reference_speedup": _round(ref.speedup) if ref is not None else None,
        "reference_serial_speedup": _round(ref.serial_speedup) if ref is not None else None,
        "seconds": _round(result.seconds, 2),
        "message": result.error or result.message,
    }


def compute_metrics(results: Sequence[TaskResult], k: int = 1) -> dict[str, Any]:
    """Every score of a run: headline, serial/OpenMP split, by category, recall, timing."""
    out = summary(results, k)
    out["k"] = k
    serial_tasks = [r for r in results if not r.openmp]
    omp_tasks = [r for r in results if r.openmp]
    omp_one_thread = summary(omp_tasks, k, serial=True)
    out["by_mode"] = {
        "serial": summary(serial_tasks, k),
        "openmp": summary(omp_tasks, k),
        "openmp_one_thread": omp_one_thread,
    }
    categories = sorted({c for r in results for c in r.labels})
    out["by_category"] = {c: summary([r for r in results if c in r.labels], k)
                          for c in categories}
    out["category_recall"] = category_recall(results)
    out["category_precision"] = category_precision(results)
    seconds = [r.seconds for r in results]
    out["seconds_per_task"] = _round(_mean(seconds), 2)
    out["seconds_total"] = _round(sum(seconds), 2)
    refs = [r for r in results if r.reference is not None]
    out["reference"] = {
        "tasks": len(refs),
        "correct_rate": _round(sum(r.reference.verdict in CORRECT
                                   for r in refs if r.reference) / len(refs)) if refs else None,
        "mean_speedup": _round(_mean([r.reference.effective for r in refs if r.reference])),
        "geomean_speedup": _round(_geomean([r.reference.effective for r in refs
                                            if r.reference])),
    }
    counts: dict[str, int] = {}
    for r in results:
        counts[r.verdict] = counts.get(r.verdict, 0) + 1
    out["verdicts"] = dict(sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])))
    out["per_task"] = [per_task(r) for r in results]
    out["pass_through"] = pass_through(results)
    return out
