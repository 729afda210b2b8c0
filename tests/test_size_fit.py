"""Validation sizes that fit the original's time: which are dropped, and what the user reads."""

from __future__ import annotations

import itertools

from perfpilot.runner.size_fit import fit_sizes, growth_kind, scan_ladder

EDGES = (0, 1, 2, 7, 33, 100)
LIMIT_NS = 50_000_000


def test_the_ladder_holds_every_edge_size_and_steps_between() -> None:
    ladder = scan_ladder(EDGES)
    assert set(EDGES) <= set(ladder) and list(ladder) == sorted(ladder)
    assert max(ladder) == 100
    # No jump between two sizes is larger than a third: the size that replaces a dropped one
    # is close to the largest that fits.
    steps = [b / a for a, b in itertools.pairwise(ladder) if a >= 4]
    assert max(steps) < 1.34


def test_an_exponential_original_keeps_the_sizes_it_finishes_at() -> None:
    # A recursive Fibonacci: 1.6 times slower per unit of size, 50 ms past n = 30.
    times = {n: int(30 * 1.618 ** n) for n in scan_ladder(EDGES) if n <= 30}
    fit = fit_sizes("fib", EDGES, times, LIMIT_NS)
    assert fit.dropped == (33, 100)
    assert max(fit.sizes) == 24 and set(fit.sizes) >= {0, 1, 2, 7}
    assert fit.note.startswith("fib is exponential in n here (about 1.6^n): one call at n = 30 "
                               "takes"), fit.note
    assert fit.note.endswith("validated at n <= 24 (not at 33, 100)")


def test_a_polynomial_original_is_named_by_its_exponent() -> None:
    times = {n: 30 * n ** 4 for n in scan_ladder(EDGES)}
    fit = fit_sizes("circle", EDGES, times, LIMIT_NS)
    assert fit.dropped == (100,) and max(fit.sizes) == 33
    assert "circle grows about as n^4.0 here" in fit.note
    assert growth_kind(sorted(times.items()))[0] == "polynomial"


def test_a_call_that_runs_out_of_time_stops_the_scan_there() -> None:
    times = {0: 900, 1: 950, 2: 990, 3: 1000, 4: 1100}
    fit = fit_sizes("f", EDGES, times, LIMIT_NS, timed_out_at=5, timeout_ns=2_000_000_000)
    assert fit.sizes == (0, 1, 2, 4) and fit.dropped == (7, 33, 100)
    assert "one call at n = 5 did not finish within 2 s" in fit.note


def test_a_fast_original_keeps_every_size_and_says_nothing() -> None:
    times = {n: 100 + n * n for n in scan_ladder(EDGES)}
    fit = fit_sizes("f", EDGES, times, LIMIT_NS)
    assert fit.sizes == EDGES and not fit.dropped and fit.note == ""
