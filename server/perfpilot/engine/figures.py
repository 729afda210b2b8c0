"""The one format of the figures every message shows: ``2.31×``, ``1585×``, ``2.20–2.43``."""

from __future__ import annotations


def number(value: float) -> str:
    """A figure's number: two decimals below 100; whole numbers above, where decimals are
    noise (1585, not 1585.04)."""
    return f"{value:.2f}" if value < 100 else f"{value:.0f}"


def ratio(value: float) -> str:
    """A speedup ratio: ``2.31×``, ``1585×``."""
    return f"{number(value)}×"


def interval(ci: tuple[float, float]) -> str:
    """A 95% interval's bounds, joined by an en dash: ``2.20–2.43``, ``1364–1687``."""
    return f"{number(ci[0])}–{number(ci[1])}"
