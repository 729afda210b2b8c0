"""The plan text format shared with PerfCoder-style models.

A plan sits between ``[SUGG/]`` and ``[/SUGG]``, one strategy a line as
``- **<Category name>**: <explanation>``; optimized code sits between ``[OPT/]`` and ``[/OPT]`` in
a fenced block. Parsing is tolerant: ``<think>`` blocks, prose around the markers, a missing
``[OPT/]`` or ``[/SUGG]``, a bare fenced block, and category names with small spelling drift.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from perfpilot.strategy.categories import match_category
from perfpilot.strategy.values import Plan, Strategy

SUGG_OPEN, SUGG_CLOSE = "[SUGG/]", "[/SUGG]"
OPT_OPEN, OPT_CLOSE = "[OPT/]", "[/OPT]"

_THINK = re.compile(r"<think>.*?(</think>|$)", re.S | re.I)
# A fenced block: its language tag and its body (an unterminated last fence runs to the end).
FENCE = re.compile(r"```[ \t]*([A-Za-z0-9_+#-]*)[ \t]*\n(.*?)(?:```|\Z)", re.S)
_BULLET = re.compile(r"^\s*(?:[-*+•]|\d{1,2}[.)])?\s*")
# A name in bold: "**Name**: text", "**Name:** text", "__Name__ - text".
_BOLD = re.compile(r"^(\*\*|__)\s*(?P<cat>[A-Za-z0-9][^*_\n]{2,80}?)\s*[:：]?\s*\1\s*"
                   r"(?:[:：—–-]\s*)?(?P<text>\S.*)$")
# Where a plain "Name: text" line may split: a colon or a dash. A hyphen between two word
# characters is part of a name ("Instruction-Level"), never a separator.
_SEPARATOR = re.compile(r"\s*(?:[:：—–]|(?<!\w)-|-(?!\w))\s*")
_NAME = re.compile(r"[A-Za-z0-9][^:*_\n]{2,80}")
_LINES_SUFFIX = re.compile(r"\s*\((?:lines?|L)\s*(?P<nums>\d+(?:\s*[-,–]\s*\d+)*)\)\s*$", re.I)


@dataclass(frozen=True)
class ParsedOutput:
    """What a model's text yields: the plan (possibly empty), the code (or None), notes."""

    strategies: tuple[Strategy, ...]
    code: str | None
    notes: tuple[str, ...]
    had_plan_block: bool


def _fmt_lines(lines: tuple[int, ...]) -> str:
    if not lines:
        return ""
    return f" (line{'s' if len(lines) > 1 else ''} {', '.join(str(n) for n in lines)})"


def render_plan(plan: Plan, code: str | None = None, lang: str = "cpp") -> str:
    """Render a plan (and optionally optimized code) in the ``[SUGG/]`` text format."""
    out = [SUGG_OPEN]
    for s in plan.strategies:
        text = " ".join(s.explanation.split())
        out.append(f"- **{s.category.name}**: {text}{_fmt_lines(s.lines)}")
    out.append(SUGG_CLOSE)
    if code is not None:
        out += [OPT_OPEN, f"```{lang}", code.rstrip("\n"), "```", OPT_CLOSE]
    return "\n".join(out) + "\n"


def strip_think(text: str) -> str:
    """Remove ``<think>...</think>`` blocks, including an unterminated trailing one."""
    return _THINK.sub("", text)


def _parse_lines(nums: str) -> tuple[int, ...]:
    out: list[int] = []
    for part in re.split(r"\s*,\s*", nums.strip()):
        m = re.match(r"(\d+)\s*[-–]\s*(\d+)$", part)
        if m:
            a, b = int(m.group(1)), int(m.group(2))
            if 0 < a <= b and b - a < 1000:
                out.extend(range(a, b + 1))
        elif part.isdigit():
            out.append(int(part))
    return tuple(dict.fromkeys(out))


def between(text: str, start: str, end: str, *stops: str) -> str | None:
    """The text after the first ``start`` up to ``end`` or the first of ``stops`` (or to the
    end of ``text``); None when ``start`` is not there."""
    i = text.find(start)
    if i < 0:
        return None
    body = text[i + len(start):]
    cut = len(body)
    for marker in (end, *stops):
        j = body.find(marker)
        if 0 <= j < cut:
            cut = j
    return body[:cut]


def _split_line(raw: str) -> tuple[str, str] | None:
    """The category name and the explanation of one strategy line, or None for other lines.

    A plain line may split at more than one colon or dash ("Hardware-Aware System
    Optimization – use ..."): the first split whose left part names a category wins, else
    the first split (so an unknown name is still reported)."""
    line = _BULLET.sub("", raw, count=1).rstrip()
    bold = _BOLD.match(line)
    if bold is not None:
        return bold.group("cat").strip(), bold.group("text").strip()
    first: tuple[str, str] | None = None
    for sep in _SEPARATOR.finditer(line):
        name, text = line[:sep.start()].strip(), line[sep.end():].strip()
        if not text or _NAME.fullmatch(name) is None:
            continue
        if match_category(name) is not None:
            return name, text
        if first is None:
            first = (name, text)
    return first


def parse_strategies(block: str) -> tuple[tuple[Strategy, ...], tuple[str, ...]]:
    """Parse strategy lines; unknown categories are dropped with a note."""
    strategies: list[Strategy] = []
    notes: list[str] = []
    for raw in block.splitlines():
        split = _split_line(raw)
        if split is None:
            continue
        name, text = split
        cat = match_category(name)
        if cat is None:
            notes.append(f"dropped a strategy with an unknown category: {name!r}")
            continue
        lines: tuple[int, ...] = ()
        lm = _LINES_SUFFIX.search(text)
        if lm:
            lines = _parse_lines(lm.group("nums"))
            text = text[: lm.start()].rstrip()
        strategies.append(Strategy(cat, text, lines))
    return tuple(strategies), tuple(notes)


def extract_code(text: str) -> str | None:
    """The code between ``[OPT/]`` and ``[/OPT]``, else the last fenced block after the plan."""
    opt = between(text, OPT_OPEN, OPT_CLOSE)
    if opt is not None:
        fences = FENCE.findall(opt)
        if fences:
            return str(fences[-1][1]).strip("\n") + "\n"
        stripped = opt.strip()
        return stripped + "\n" if stripped else None
    close = text.find(SUGG_CLOSE)
    tail = text[close + len(SUGG_CLOSE):] if close >= 0 else text
    fences = FENCE.findall(tail)
    if fences:
        return str(fences[-1][1]).strip("\n") + "\n"
    return None


def parse_output(text: str) -> ParsedOutput:
    """Parse a model's full text into strategies and optimized code, tolerating drift."""
    clean = strip_think(text)
    notes: list[str] = []
    block = between(clean, SUGG_OPEN, SUGG_CLOSE, OPT_OPEN)
    had_block = block is not None
    if block is None:
        # No markers: read strategy lines from the prose before any code fence.
        block = FENCE.split(clean, maxsplit=1)[0]
    strategies, parse_notes = parse_strategies(block)
    if had_block:
        # In free prose, "Word: text" lines are not strategies; only a plan block warrants notes.
        notes.extend(parse_notes)
    code = extract_code(clean)
    if not strategies:
        notes.append("no strategies found in the model's text")
    if code is None:
        notes.append("no optimized code found in the model's text")
    return ParsedOutput(strategies, code, tuple(notes), had_block)


def parse_plan(text: str, backend: str, model: str = "") -> Plan:
    """Parse a plan from model text into a ``Plan`` (code, if any, is ignored)."""
    parsed = parse_output(text)
    return Plan(parsed.strategies, backend, raw_text=text, notes=parsed.notes, model=model)
