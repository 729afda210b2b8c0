"""Shared helpers for the built-in planner tests (not a test module itself)."""

from __future__ import annotations

from perfpilot.code.locate import function_by_name
from perfpilot.code.site import FunctionSite, Language
from perfpilot.planning.builtin import Finding, analyze


def site_of(src: str, name: str, language: Language = "cpp") -> FunctionSite:
    """The function ``name`` located in ``src`` (syntax errors allowed)."""
    return function_by_name(src, language, name, uri="file:///t", check_errors=False)


def findings(src: str, name: str, language: Language = "cpp") -> list[Finding]:
    """Every finding for function ``name`` in ``src``."""
    return analyze(site_of(src, name, language))


def by_rule(src: str, name: str, rule: str, language: Language = "cpp") -> list[Finding]:
    """The findings of one rule."""
    return [f for f in findings(src, name, language) if f.rule == rule]


def line_of(src: str, marker: str, nth: int = 0) -> int:
    """1-based line of the ``nth`` line containing ``marker``."""
    hits = [i + 1 for i, text in enumerate(src.splitlines()) if marker in text]
    assert len(hits) > nth, f"marker {marker!r} not found"
    return hits[nth]
