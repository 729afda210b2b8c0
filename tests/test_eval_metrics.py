"""Evaluation metrics on hand-made results: PIE and ParEval definitions and their edge cases."""

from __future__ import annotations

import itertools
import random
import statistics

import pytest

from perfpilot.evaluation.evaluate import choose_sample
from perfpilot.evaluation.metrics import compute_metrics, expected_best_of_k, summary
from perfpilot.evaluation.results import TASK_VERDICTS, SampleResult, TaskResult

LOOP = "Loop Efficiency Techniques"
MT = "Multithreading and Concurrency"
ALGO = "Algorithm Design Optimization"


def sample(verdict: str, speedup: float | None = None, low: float | None = None,
           serial: float | None = None) -> SampleResult:
    ci = (low, speedup + 0.1) if low is not None and speedup is not None else None
    return SampleResult(verdict=verdict, speedup=speedup, ci95=ci, serial_speedup=serial,
                        threads=2 if serial is not None else 1)


def task(name: str, *samples: SampleResult, openmp: bool = False,
         labels: tuple[str, ...] = (), planned: tuple[str, ...] = (),
         error: str = "", seconds: float = 1.0) -> TaskResult:
    return TaskResult(task=name, openmp=openmp, labels=labels, planned=planned,
                      samples=tuple(samples), chosen=choose_sample(samples), error=error,
                      seconds=seconds)


def brute_best_of_k(values: list[float], k: int) -> float:
    subsets = list(itertools.combinations(values, k))
    return sum(max(s) for s in subsets) / len(subsets)


def test_expected_best_of_k_matches_enumeration() -> None:
    rng = random.Random(3)
    for _ in range(50):
        values = [round(rng.uniform(0.5, 4.0), 1) for _ in range(rng.randint(1, 7))]
        for k in range(1, len(values) + 1):
            assert expected_best_of_k(values, k) == pytest.approx(brute_best_of_k(values, k))


def test_best_of_k_edge_cases() -> None:
    # k = 1 is the mean; k = n the maximum; more than n means all of them.
    assert expected_best_of_k([1.0, 2.0, 4.0], 1) == pytest.approx(7 / 3)
    assert expected_best_of_k([1.0, 2.0, 4.0], 3) == 4.0
    assert expected_best_of_k([1.0, 2.0, 4.0], 10) == 4.0
    # Ties: every pair drawn from [2, 2, 1] has a 2 in it.
    assert expected_best_of_k([2.0, 2.0, 1.0], 2) == pytest.approx(2.0)
    assert expected_best_of_k([], 3) == 1.0
    with pytest.raises(ValueError):
        expected_best_of_k([1.0], 0)


def test_all_incorrect() -> None:
    results = [task("a", sample("incorrect")), task("b", sample("build-failed"),
                                                   sample("incorrect")),
               task("c", sample("timeout"))]
    m = compute_metrics(results, k=2)
    assert m["tasks"] == 3
    assert m["correct_rate"] == 0.0
    assert m["opt_rate"] == 0.0
    assert m["mean_speedup"] == 1.0
    assert m["speedup_at_k"] == 1.0
    assert m["unmeasured"] == 0
    assert [r["verdict"] for r in m["per_task"]] == ["incorrect", "incorrect", "timeout"]
    assert m["verdicts"] == {"incorrect": 2, "timeout": 1}


def test_pie_mean_counts_incorrect_and_slower_as_one() -> None:
    results = [task("fast", sample("faster", 3.0, 2.8)),
               task("slow", sample("slower", 0.5, 0.4)),
               task("wrong", sample("incorrect")),
               task("same", sample("no-change", 1.02, 0.98))]
    m = compute_metrics(results)
    assert m["mean_speedup"] == pytest.approx((3.0 + 1 + 1 + 1) / 4)
    assert m["geomean_speedup"] == pytest.approx(3.0 ** 0.25, rel=1e-3)
    assert m["correct_rate"] == 0.75  # faster, slower and no-change all passed validation
    assert m["opt_rate"] == 0.25
    row = {r["task"]: r for r in m["per_task"]}
    assert row["slow"]["speedup"] == 1.0 and row["slow"]["measured_speedup"] == 0.5
    assert row["wrong"]["measured_speedup"] is None


def test_opt_threshold_is_inclusive() -> None:
    results = [task("at", sample("faster", 1.10, 1.05)),
               task("below", sample("faster", 1.09, 1.05))]
    assert compute_metrics(results)["opt_rate"] == 0.5


def test_k_one_is_mean_over_samples_and_best_is_lower_bound() -> None:
    # Samples: 2.0 (sure) and 2.5 (shaky): the engine's rule picks the better lower bound.
    t = task("t", sample("faster", 2.0, 1.9), sample("faster", 2.5, 1.2), sample("incorrect"))
    assert t.chosen == 0
    m1 = compute_metrics([t], k=1)
    assert m1["speedup_at_k"] == pytest.approx((2.0 + 2.5 + 1.0) / 3, abs=1e-4)
    assert m1["mean_speedup"] == 2.0
    m3 = compute_metrics([t], k=3)
    assert m3["speedup_at_k"] == 2.5
    assert m3["k"] == 3


def test_ties_in_choice_take_the_first() -> None:
    samples = (sample("faster", 2.0, 1.5), sample("faster", 2.0, 1.5))
    assert choose_sample(samples) == 0
    assert choose_sample((sample("slower", 0.5, 0.4), sample("noisy", 3.0))) is None


def test_unmeasured_is_never_a_success() -> None:
    noisy = task("n", sample("noisy", 3.0), sample("slower", 0.9, 0.8))
    broken = task("e", error="RuntimeError: boom")
    none = task("z")
    m = compute_metrics([noisy, broken, none])
    verdicts = {r["task"]: r["verdict"] for r in m["per_task"]}
    assert verdicts == {"n": "noisy", "e": "error", "z": "no-candidate"}
    assert m["unmeasured"] == 2
    # The noisy sample passed validation, so that task is correct; nothing is optimized.
    assert m["correct_rate"] == pytest.approx(1 / 3, abs=1e-4) and m["opt_rate"] == 0.0
    assert m["mean_speedup"] == 1.0
    # A noisy 3.0 is not counted in best-of-k either.
    assert m["speedup_at_k"] == 1.0
    assert set(verdicts.values()) <= set(TASK_VERDICTS)


def test_split_by_mode_category_and_recall() -> None:
    results = [
        task("s1", sample("faster", 4.0, 3.5), labels=(ALGO,), planned=(ALGO, LOOP)),
        task("s2", sample("slower", 0.8, 0.7), labels=(LOOP, ALGO), planned=(LOOP,)),
        task("o1", sample("faster", 1.8, 1.7, serial=1.0), openmp=True, labels=(MT,),
             planned=(LOOP,)),
    ]
    m = compute_metrics(results)
    assert m["by_mode"]["serial"]["tasks"] == 2
    assert m["by_mode"]["serial"]["mean_speedup"] == pytest.approx(2.5)
    assert m["by_mode"]["openmp"]["mean_speedup"] == pytest.approx(1.8)
    assert m["by_mode"]["openmp_one_thread"]["mean_speedup"] == 1.0
    assert m["by_category"][ALGO]["tasks"] == 2
    assert m["by_category"][ALGO]["opt_rate"] == 0.5
    assert m["by_category"][MT]["mean_speedup"] == pytest.approx(1.8)
    # Recall: s1 1/1, s2 1/2, o1 0/1.
    assert m["category_recall"] == pytest.approx(statistics.mean([1.0, 0.5, 0.0]), abs=1e-4)
    # Precision: s1 1/2, s2 1/1, o1 0/1.
    assert m["category_precision"] == pytest.approx(0.5, abs=1e-4)
    assert m["seconds_per_task"] == 1.0 and m["seconds_total"] == 3.0


def test_reference_figures() -> None:
    ref_fast = sample("faster", 10.0, 9.0)
    a = TaskResult("a", False, (), (), (sample("faster", 2.0, 1.9),), 0, reference=ref_fast)
    b = TaskResult("b", False, (), (), (), None, reference=sample("incorrect"))
    m = compute_metrics([a, b])
    assert m["reference"]["tasks"] == 2
    assert m["reference"]["correct_rate"] == 0.5
    assert m["reference"]["mean_speedup"] == pytest.approx(5.5)
    assert m["per_task"][0]["reference_speedup"] == 10.0


def test_empty_run() -> None:
    m = summary([], 1)
    assert m["tasks"] == 0 and m["mean_speedup"] is None and m["correct_rate"] is None


def test_task_result_round_trips_through_json() -> None:
    t = TaskResult("t", True, (MT,), (LOOP, MT), (sample("faster", 1.5, 1.4, serial=1.0),
                                                 sample("noisy")), 0,
                   reference=sample("faster", 1.9, 1.8), seconds=2.5, message="m", key="k")
    back = TaskResult.from_json(t.to_json())
    assert back == t
    assert back.verdict == "faster" and back.speedup == 1.5


def test_tasks_the_harness_cannot_feed_are_counted_on_their_own() -> None:
    from perfpilot.evaluation.report import markdown_report

    results = [task("fed", sample("faster", 2.0, 1.8)),
               task("unfed", sample("needs-spec"), sample("needs-spec")),
               task("broken", sample("build-failed"))]
    m = compute_metrics(results)
    assert m["needs_spec"] == 1 and m["unmeasured"] == 0
    assert [r["verdict"] for r in m["per_task"]] == ["faster", "needs-spec", "build-failed"]
    assert m["verdicts"]["needs-spec"] == 1
    assert "| Needs a bench spec (inputs not generated) | 1 |" in markdown_report(m)
