"""The engine's choice among measured candidates: the parallel policy weighs a candidate's
figure at the configured threads against its figure on one thread."""

from __future__ import annotations

import pytest

from perfpilot.code.locate import function_by_name
from perfpilot.engine.engine import choose
from perfpilot.engine.outcome import Outcome, Trial
from perfpilot.runner.values import Verdict
from perfpilot.settings import Settings, merge_settings
from perfpilot.strategy import Candidate, Plan

SITE = function_by_name("int f(int a) { return a; }\n", "cpp", "f")


def serial(speedup: float) -> Trial:
    """A serial candidate measured ``speedup`` faster (a tight interval around it)."""
    v = Verdict(verdict="faster", message="", speedup=speedup,
                ci95=(speedup * 0.98, speedup * 1.02), threads=1)
    return Trial(Candidate(f"int f(int a){{return a; /* s{speedup} */}}", (), "builtin"), v)


def parallel(speedup: float, one: float | None, threads: int = 4) -> Trial:
    """A parallel candidate: ``speedup`` at ``threads`` threads, ``one`` on 1 thread (None: the
    1-thread figure is missing)."""
    v = Verdict(verdict="faster", message="", speedup=speedup,
                ci95=(speedup * 0.98, speedup * 1.02), threads=threads,
                serial_speedup=one,
                serial_ci95=(one * 0.98, one * 1.02) if one is not None else None,
                flags=("-O2", "-fopenmp"))
    return Trial(Candidate(f"int f(int a){{return a; /* p{speedup}/{one} */}}", (), "builtin"),
                 v)


def pick(policy: str, *trials: Trial) -> Outcome:
    return choose(SITE, Plan((), "builtin"), trials, policy=policy)


def test_the_default_policy_is_balanced_and_other_values_are_refused() -> None:
    assert Settings().parallel_policy == "balanced"
    assert merge_settings(Settings(), {"parallelPolicy": "max-threads"}).parallel_policy == \
        "max-threads"
    with pytest.raises(ValueError, match="parallel_policy"):
        merge_settings(Settings(), {"parallelPolicy": "fastest"})


def test_a_candidate_faster_on_both_counts_wins_under_every_policy() -> None:
    for policy in ("prefer-serial", "balanced", "max-threads"):
        both = parallel(3.0, 1.5)
        assert pick(policy, serial(1.4), both).best == 1, policy
        assert pick(policy, both, serial(1.4)).best == 0, policy


def test_balanced_needs_the_margin_from_a_parallel_candidate_slower_on_one_thread() -> None:
    # 2.4x / 1.25 = 1.92 < 2.0: the serial candidate stays.
    out = pick("balanced", serial(2.0), parallel(2.4, 0.8))
    assert out.best == 0
    # Both figures of the candidate passed over are said, and why.
    assert "on 4 threads" in out.message and "0.80× on 1 thread (slower)" in out.message
    assert "balanced" in out.message and "1.25×" in out.message
    # 2.8x / 1.25 = 2.24 > 2.0: the parallel candidate clears the margin.
    out = pick("balanced", serial(2.0), parallel(2.8, 0.8))
    assert out.best == 1
    assert "on 4 threads" in out.message and "0.80× on 1 thread (slower)" in out.message


def test_max_threads_ranks_by_the_figure_at_the_configured_threads_alone() -> None:
    assert pick("max-threads", serial(2.0), parallel(2.4, 0.8)).best == 1
    assert pick("max-threads", serial(2.5), parallel(2.4, 0.8)).best == 0


def test_prefer_serial_ranks_by_the_one_thread_figure() -> None:
    assert pick("prefer-serial", serial(1.3), parallel(6.0, 1.0)).best == 0
    assert pick("prefer-serial", serial(1.3), parallel(6.0, 1.5)).best == 1
    # Alone, a parallel candidate slower on one thread is still the only faster one.
    assert pick("prefer-serial", parallel(3.0, 0.7)).best == 0


def test_no_loss_on_one_thread_needs_no_margin() -> None:
    # 1.0x on one thread is no slowdown: the N-thread figure decides.
    assert pick("balanced", serial(2.0), parallel(2.1, 1.0)).best == 1


def test_ties_go_to_the_better_one_thread_figure_then_the_earlier_candidate() -> None:
    assert pick("balanced", parallel(2.0, 1.0), serial(2.0)).best == 1
    assert pick("max-threads", parallel(2.0, 1.0), serial(2.0)).best == 1
    assert pick("balanced", serial(2.0), serial(2.0)).best == 0
    assert pick("prefer-serial", parallel(2.0, 2.0), serial(2.0)).best == 0


def test_a_missing_one_thread_figure_counts_as_a_possible_loss() -> None:
    # Nothing vouches for the candidate on one thread: balanced asks for the margin.
    assert pick("balanced", serial(2.0), parallel(2.4, None)).best == 0
    assert pick("balanced", serial(2.0), parallel(2.8, None)).best == 1
    assert pick("prefer-serial", serial(1.1), parallel(5.0, None)).best == 0
    out = pick("max-threads", serial(2.0), parallel(2.4, None))
    assert out.best == 1 and "not measured on 1 thread" in out.message


def test_candidates_not_measured_faster_are_never_chosen() -> None:
    slow = Trial(Candidate("int f(int a){return a;}", (), "builtin"),
                 Verdict(verdict="slower", message="", speedup=0.5, ci95=(0.4, 0.6)))
    out = pick("prefer-serial", slow)
    assert out.best is None and out.status == "not-improved"
    assert pick("prefer-serial", slow, parallel(1.5, 0.5)).best == 1
