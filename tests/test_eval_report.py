"""The evaluation report: Markdown figures and table rows, and the chart file."""

from __future__ import annotations

from pathlib import Path

import pytest

from perfpilot.evaluation.evaluate import choose_sample
from perfpilot.evaluation.metrics import compute_metrics
from perfpilot.evaluation.report import markdown_report, write_chart
from perfpilot.evaluation.results import SampleResult, TaskResult


def _metrics() -> dict[str, object]:
    fast = SampleResult("faster", 2.5, (2.4, 2.6))
    slow = SampleResult("slower", 0.2, (0.18, 0.22), serial_speedup=1.0, threads=2)
    results = [
        TaskResult("a|b", False, ("Loop Efficiency Techniques",), ("Loop Efficiency Techniques",),
                   (fast,), choose_sample((fast,)), reference=SampleResult("faster", 30.0)),
        TaskResult("omp", True, ("Multithreading and Concurrency",), (), (slow,), None,
                   reference=SampleResult("noisy", 1.7, serial_speedup=1.1, threads=2)),
        TaskResult("none", False, (), (), (), None, message="no rewrite applies"),
    ]
    return compute_metrics(results, 1)


def test_markdown_report_has_scores_rows_and_escapes() -> None:
    text = markdown_report(_metrics(), command="perfpilot eval tasks", backends="builtin",
                           chart="images/eval.png")
    assert "| Mean speedup | 1.50× | 1.75× | 1.00× | 15.50× |" in text
    assert "| Optimized (≥ 1.10×) | 33% | 50% | 0% | |" in text
    assert "| a\\|b | serial | faster | 2.50× | faster 30.00× |" in text
    assert "| omp | OpenMP | slower | 0.20× | noisy 1.70× (1 thread 1.10×) |" in text
    assert "| none | serial | no-candidate | – | – |" in text
    assert "![Speedup per task, PerfPilot against the reference](images/eval.png)" in text
    assert "Task verdicts: faster 1, no-candidate 1, slower 1." in text
    assert "```\nperfpilot eval tasks\n```" in text


def test_a_run_without_references_says_so() -> None:
    fast = SampleResult("faster", 2.0, (1.9, 2.1))
    bare = compute_metrics([TaskResult("a", False, (), (), (fast,), 0)], 1)
    assert "No reference version was measured" in markdown_report(bare)
    assert "No reference version was measured" not in markdown_report(_metrics())


def test_chart_is_a_png(tmp_path: Path) -> None:
    pytest.importorskip("matplotlib")
    path = write_chart(_metrics(), tmp_path / "img" / "eval.png")
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 5000
