"""Splicing new function text into a translation unit, with any headers it needs."""

from __future__ import annotations

import re
from collections.abc import Sequence

from perfpilot.code.callees import caller_part
from perfpilot.code.parse import parse
from perfpilot.code.site import FunctionSite, Language

_INCLUDE = re.compile(rb"^[ \t]*#[ \t]*include[ \t]*([<\"][^>\"\n]+[>\"])", re.MULTILINE)


def _key(header: str) -> str:
    return "".join(header.split())


def present_includes(unit_text: str) -> frozenset[str]:
    """The headers the unit includes, spelled without spaces (``<vector>``, ``"a.h"``)."""
    return frozenset(_key(m.group(1).decode("utf-8", "replace"))
                     for m in _INCLUDE.finditer(unit_text.encode("utf-8")))


def missing_includes(unit_text: str, includes: Sequence[str]) -> tuple[str, ...]:
    """Those of ``includes`` the unit does not include yet (in order, once each)."""
    have = set(present_includes(unit_text))
    out: list[str] = []
    for header in includes:
        if _key(header) not in have:
            have.add(_key(header))
            out.append(_key(header))
    return tuple(out)


def include_point(unit_text: str, before_byte: int) -> tuple[int, int]:
    """Where new ``#include`` lines go: ``(byte offset, 0-based line)`` of the start of the
    line after the last ``#include`` above ``before_byte``, else of the file's start."""
    data = unit_text.encode("utf-8")
    last = None
    for m in _INCLUDE.finditer(data, 0, before_byte):
        last = m
    if last is None:
        return 0, 0
    end = data.find(b"\n", last.end())
    offset = len(data) if end < 0 else end + 1
    return offset, data[:offset].count(b"\n")


def _majority_ending(text: str) -> str | None:
    lines = text.count("\n")
    if not lines:
        return None
    return "\r\n" if 2 * text.count("\r\n") > lines else "\n"


def unit_line_ending(unit_text: str) -> str:
    """The line ending of a file: CRLF when most of its lines end so, else LF."""
    return _majority_ending(unit_text) or "\n"


def function_line_ending(site: FunctionSite) -> str:
    """The line ending a rewrite of the function gets: that of most of the function's own
    lines, else (a one-line function) the file's."""
    return _majority_ending(site.text) or unit_line_ending(site.unit_text)


def with_line_ending(text: str, newline: str) -> str:
    """``text`` with each bare LF written as ``newline``. Line endings already CRLF are kept,
    and for an LF file nothing changes: a model's LF text becomes CRLF in a CRLF file, and
    the original text put back (Revert) is the same bytes it was."""
    return text if newline == "\n" else re.sub(r"(?<!\r)\n", newline, text)


def include_lines(headers: Sequence[str], newline: str = "\n") -> str:
    """The ``#include`` lines for ``headers``, each ending with ``newline``."""
    return "".join(f"#include {h}{newline}" for h in headers)


def comment_start(unit_text: str, start_byte: int, language: Language) -> int:
    """The byte offset of the comments right above the definition at ``start_byte`` (no
    blank line between them and it, each on lines of its own), or ``start_byte`` when there
    are none: code put before a function goes above its documentation, not between."""
    data = unit_text.encode("utf-8")
    root = parse(data, language).root_node
    node = root.descendant_for_byte_range(start_byte, start_byte)
    while node is not None and node.start_byte == start_byte and node.parent is not None \
            and node.parent.start_byte == start_byte:
        node = node.parent
    at = start_byte
    prev = node.prev_sibling if node is not None else None
    while prev is not None and prev.type == "comment":
        between = data[prev.end_byte:at]
        line_start = data.rfind(b"\n", 0, prev.start_byte) + 1
        if between.count(b"\n") != 1 or between.strip() or data[line_start:prev.start_byte].strip():
            break
        at = line_start
        prev = prev.prev_sibling
    return at


def splice(site: FunctionSite, new_text: str, includes: Sequence[str] = ()) -> str:
    """The unit text with exactly the function's byte range replaced by ``new_text``, and the
    headers of ``includes`` the unit lacks added after its last include above the function.
    What ``new_text`` puts before the function itself (helpers, copies of callees) goes above
    the comments that document the function. The new lines keep the file's line endings (CRLF
    in a CRLF file)."""
    data = site.unit_text.encode("utf-8")
    newline = function_line_ending(site)
    before, own = caller_part(new_text, site)
    at = comment_start(site.unit_text, site.start_byte, site.language) if before \
        else site.start_byte
    new = with_line_ending(own if at < site.start_byte else new_text, newline).rstrip("\r\n")
    if site.text.endswith("\n"):
        new += newline
    head = with_line_ending(before, newline).encode("utf-8") if at < site.start_byte else b""
    pieces = [data[:at], head, data[at:site.start_byte], new.encode("utf-8"),
              data[site.end_byte:]]
    missing = missing_includes(site.unit_text, includes)
    if missing:
        offset, _line = include_point(site.unit_text, site.start_byte)
        lines = include_lines(missing, unit_line_ending(site.unit_text)).encode("utf-8")
        if offset <= at:
            pieces[0] = data[:offset] + lines + data[offset:at]
        else:  # an include between the comments and the function: not part of them
            pieces[2] = data[at:offset] + lines + data[offset:site.start_byte]
    return b"".join(pieces).decode("utf-8")
