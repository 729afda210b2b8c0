"""Validation sizes that fit the original's time: the study's size scan, read.

Before every input case is run at every validation (edge) size, the original alone is called
once at each size of a ladder up to the largest edge size, each call timed, stopping at the
first call that takes longer than the limit (or that runs out of time). An edge size at or past
that point would make every input case wait for a call that long (a recursive Fibonacci at size
100 never returns): it is dropped, with every larger one, and the largest ladder size that fit
validates in their place. The times also say how the original grows, for the note the user
reads ("fib is exponential in the input size n here: ...").
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass

# Calls shorter than this are mostly call overhead and timer noise: no growth is read from them.
_MEASURABLE_NS = 20_000
_STEP = 1.25  # the ladder's growth from one size to the next
_STEEPEST = 6.0  # a polynomial exponent above this is read as exponential growth


def scan_ladder(edge_sizes: tuple[int, ...]) -> tuple[int, ...]:
    """The sizes the scan tries: every edge size, and sizes growing by a quarter in between
    (so that the size replacing a dropped edge size is close to the largest that fits)."""
    top = max(edge_sizes, default=0)
    sizes = set(edge_sizes)
    n = 3
    while n < top:
        sizes.add(n)
        n = max(n + 1, round(n * _STEP))
    return tuple(sorted(sizes))


@dataclass(frozen=True)
class EdgeFit:
    """The validation sizes kept (``sizes``), those dropped as too slow, the size the scan
    stopped at (0: it did not stop) and the note that says why (empty when nothing changed)."""

    sizes: tuple[int, ...]
    dropped: tuple[int, ...] = ()
    stopped_at: int = 0
    note: str = ""


def fit_sizes(name: str, edge_sizes: tuple[int, ...], times: Mapping[int, int],
              limit_ns: int, timed_out_at: int | None = None, timeout_ns: int = 0) -> EdgeFit:
    """The edge sizes that fit, from the scan's call times (size -> ns) and the size at which
    a call ran out of time (None when none did; ``timeout_ns`` the time it was given)."""
    slow = [n for n, ns in sorted(times.items()) if ns > limit_ns]
    stops = slow[:1] + ([timed_out_at] if timed_out_at is not None else [])
    if not stops:
        return EdgeFit(tuple(edge_sizes))
    stop = min(stops)
    kept = [n for n in edge_sizes if n < stop]
    dropped = tuple(n for n in edge_sizes if n >= stop)
    if not dropped:
        return EdgeFit(tuple(edge_sizes), stopped_at=stop)
    fitting = [n for n, ns in times.items() if n < stop and ns <= limit_ns]
    if fitting and max(fitting) > max(kept, default=-1):
        kept.append(max(fitting))
    if not kept:
        kept = [min(edge_sizes)]  # slow at every size: validate at the smallest alone
    growth = describe_growth(name, times, stop, times.get(stop, 0), timeout_ns)
    shown = ", ".join(str(n) for n in dropped)
    note = f"{growth}; validated at n <= {max(kept)} (not at {shown})"
    return EdgeFit(tuple(sorted(set(kept))), dropped, stop, note)


def _line(xs: list[float], ys: list[float]) -> tuple[float, float]:
    """Least-squares slope of ys against xs, and the sum of squared residuals."""
    mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
    sxx = sum((x - mx) ** 2 for x in xs)
    if sxx <= 0:
        return 0.0, math.inf
    slope = sum((x - mx) * (y - my) for x, y in zip(xs, ys, strict=True)) / sxx
    rss = sum((y - my - slope * (x - mx)) ** 2 for x, y in zip(xs, ys, strict=True))
    return slope, rss


def growth_kind(points: list[tuple[int, int]]) -> tuple[str, float]:
    """``("exponential", base)``, ``("polynomial", exponent)`` or ``("", 0)`` from measured
    (size, ns) points: an exponential time is a straight line of log time against n, a
    polynomial one of log time against log n; the better fit over the measurable points
    (three at least, else the last two read as a polynomial) decides. One call a size on a
    busy machine can be slowed down at any point: growth faster than n^6 is read as
    exponential whichever fits better (no algorithm worth timing here is n^7)."""
    pts = [(n, ns) for n, ns in points if n > 0 and ns >= _MEASURABLE_NS]
    if len(pts) < 2 or pts[-1][0] <= pts[0][0] or pts[-1][1] <= pts[0][1]:
        return "", 0.0
    logs = [math.log(ns) for _, ns in pts]
    power, power_rss = _line([math.log(n) for n, _ in pts], logs)
    if len(pts) >= 3:
        rate, exp_rss = _line([float(n) for n, _ in pts], logs)
        if rate > 0 and math.exp(rate) > 1.05 and (exp_rss < power_rss or power > _STEEPEST):
            return "exponential", math.exp(rate)
    return "polynomial", power


def _duration(ns: int) -> str:
    s = ns / 1e9
    if s >= 1:
        return f"{s:.3g} s"
    return f"{s * 1e3:.3g} ms" if s >= 1e-3 else f"{s * 1e6:.3g} µs"


def describe_growth(name: str, times: Mapping[int, int], stop: int, stop_ns: int,
                    timeout_ns: int = 0) -> str:
    """``fib is exponential in the input size n here: one call at n = 37 takes 152 ms`` (the
    sanitized build the study runs), from the scan's times up to ``stop``."""
    points = sorted((n, ns) for n, ns in times.items() if n <= stop)
    kind, value = growth_kind(points)
    if stop_ns:
        call = f"one call at n = {stop} takes {_duration(stop_ns)} (sanitized)"
    else:
        call = f"one call at n = {stop} did not finish within {_duration(timeout_ns)}"
    if kind == "exponential":
        return f"{name} is exponential in n here (about {value:.2g}^n): {call}"
    if kind == "polynomial" and value >= 1.5:
        return f"{name} grows about as n^{value:.1f} here: {call}"
    return f"{name} is slow at these sizes: {call}"
