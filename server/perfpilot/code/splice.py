"""Splicing new function text into a translation unit."""

from __future__ import annotations

from perfpilot.code.site import FunctionSite


def splice(site: FunctionSite, new_text: str) -> str:
    """The unit text with exactly the function's byte range replaced by ``new_text``."""
    data = site.unit_text.encode("utf-8")
    new = new_text.rstrip("\n")
    if site.text.endswith("\n") and not new.endswith("\n"):
        new += "\n"
    return (data[: site.start_byte] + new.encode("utf-8") + data[site.end_byte:]).decode("utf-8")
