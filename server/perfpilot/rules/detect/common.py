"""Shared wording and small queries for the detectors."""

from __future__ import annotations

import re

from perfpilot.code.facts import FunctionFacts, Loop
from perfpilot.code.syntax import (
    Node,
    node_text,
    unwrap,
)

HEAVY_TYPE = re.compile(
    r"^(?:std::)?(?:vector|basic_string|string|wstring|map|multimap|set|multiset|unordered_map|"
    r"unordered_set|unordered_multimap|unordered_multiset|list|forward_list|deque|valarray|"
    r"function|array|bitset|priority_queue|queue|stack|stringstream|ostringstream|"
    r"istringstream)\b"
)
CONTAINER_TYPE = re.compile(
    r"^(?:std::)?(?:vector|basic_string|string|wstring|map|multimap|set|multiset|unordered_map|"
    r"unordered_set|list|deque|stringstream|ostringstream|istringstream|priority_queue)\b"
)
ARITH = frozenset({
    "char", "signed char", "unsigned char", "short", "unsigned short", "int", "unsigned",
    "unsigned int", "long", "unsigned long", "long long", "unsigned long long", "float", "double",
    "long double", "size_t", "int8_t", "int16_t", "int32_t", "int64_t", "uint8_t", "uint16_t",
    "uint32_t", "uint64_t", "std::size_t", "std::int32_t", "std::int64_t", "std::uint32_t",
    "std::uint64_t", "bool",
})


def rng(node: Node) -> tuple[int, int]:
    """Byte range of a node in the unit."""
    return (int(node.start_byte), int(node.end_byte))


def squashed(node: Node | None) -> str:
    """A node's source with all whitespace removed, for comparing shapes of code."""
    return "".join(node_text(node).split()) if node is not None else ""


def code(node: Node | None, limit: int = 48) -> str:
    """A node's source on one line, shortened for prose."""
    s = " ".join(node_text(node).split())
    return s if len(s) <= limit else s[: limit - 1].rstrip() + "…"


def loop_phrase(loop: Loop) -> str:
    """``the `for` loop on line 8 (over `i`)``, ``the range-based `for` loop on line 3``."""
    over = f" (over `{loop.var}`)" if loop.var else ""
    kind = {"range-for": "range-based `for`", "do": "`do`-`while`"}.get(
        loop.kind, f"`{loop.kind}`")
    return f"the {kind} loop on line {loop.line}{over}"


def trip_count(loop: Loop) -> str | None:
    """The number of iterations of a counted ``for`` loop as C++ source, when simple."""
    if loop.kind == "range-for":
        right = loop.node.child_by_field_name("right")
        if right is not None and right.type == "identifier":
            return f"{node_text(right)}.size()"
        return None
    if not loop.counted or loop.bound is None or loop.step != "++":
        return None
    bound = code(loop.bound, 80)
    start = code(loop.init, 80) if loop.init is not None else None
    if start is None:
        return None
    if loop.compare in ("<", "!="):
        return bound if start == "0" else f"({bound}) - ({start})"
    if loop.compare == "<=":
        if start == "1":
            return bound
        return f"{bound} + 1" if start == "0" else f"({bound}) - ({start}) + 1"
    return None


def lines_phrase(lines: list[int] | tuple[int, ...], limit: int = 6) -> str:
    """``line 7`` or ``lines 7, 9, 12`` (sorted, deduplicated, at most ``limit``)."""
    uniq = sorted(set(lines))[:limit]
    return f"line{'s' if len(uniq) > 1 else ''} {', '.join(str(n) for n in uniq)}"


def cpp(facts: FunctionFacts) -> bool:
    """Whether the unit is C++."""
    return facts.language == "cpp"


def operand_text(node: Node) -> str:
    """An operand as written, in parentheses unless it is a name, element or number."""
    s = code(node, 60)
    inner = unwrap(node)
    simple = inner is not None and inner.type in (
        "identifier", "subscript_expression", "field_expression", "number_literal")
    return s if simple else f"({s})"
