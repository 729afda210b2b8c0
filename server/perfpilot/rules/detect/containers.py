"""Data Structure Selection: ordered containers without ordered use, lists, front operations."""

from __future__ import annotations

import re
from collections.abc import Iterator

from perfpilot.code.declarations import VarType
from perfpilot.code.facts import FunctionFacts
from perfpilot.code.syntax import (
    Node,
    callee,
    line,
    operator,
    text,
)
from perfpilot.rules.detect.common import cpp, lines_phrase
from perfpilot.rules.finding import Finding, make_finding

_ORDERED = re.compile(r"^(?:std::)?(map|set|multimap|multiset)\s*<\s*(.+)>$", re.S)
_LIST = re.compile(r"^(?:std::)?list\s*<")
# Keys std::hash supports out of the box.
_HASHABLE = re.compile(
    r"^(?:(?:unsigned|signed|const)\s+)*(?:int|long|long long|short|char|bool|size_t|std::size_t|"
    r"u?int(?:8|16|32|64)_t|std::u?int(?:8|16|32|64)_t|unsigned|std::string|string|double|float)$")
# Uses that depend on key order.
_ORDERED_OPS = frozenset({
    "begin", "end", "rbegin", "rend", "cbegin", "cend", "lower_bound", "upper_bound",
    "equal_range", "key_comp", "extract", "merge",
})
_LIST_OK = frozenset({
    "push_back", "emplace_back", "pop_back", "back", "front", "size", "empty", "clear",
    "begin", "end", "cbegin", "cend", "rbegin", "rend", "sort", "reverse",
})


class _Use:
    """How a local variable is used: method names, whole-variable escapes, line numbers."""

    def __init__(self) -> None:
        self.methods: set[str] = set()
        self.lines: list[int] = []
        self.escapes = False
        self.iterated = False
        self.subscripted = False


def _uses(facts: FunctionFacts, name: str) -> _Use:
    use = _Use()
    for ident in facts.nodes("identifier", facts.body):
        if text(ident) != name:
            continue
        parent = ident.parent
        if parent is None:
            continue
        if parent.type == "field_expression" and parent.child_by_field_name("argument") == ident:
            call = parent.parent
            if call is not None and call.type == "call_expression":
                use.methods.add(callee(call))
                use.lines.append(line(call))
            continue
        if parent.type == "subscript_expression":
            use.subscripted = True
            use.lines.append(line(parent))
            continue
        if parent.type == "for_range_loop":
            use.iterated = True
            continue
        if parent.type in ("declaration", "init_declarator") or "declarator" in parent.type:
            continue
        # passed whole to a call, returned, assigned, compared: its type leaks out
        use.escapes = True
    return use


def _local_vars(facts: FunctionFacts, pattern: re.Pattern[str]) -> Iterator[VarType]:
    if facts.body is None:
        return
    for v in list(facts.vars.values()):
        if v.scope == "local" and not v.pointer and not v.reference and not v.array \
                and pattern.match(v.base):
            yield v


def ordered_map_unneeded(facts: FunctionFacts) -> Iterator[Finding]:
    """A local ``std::map``/``std::set`` used only for lookup and insertion."""
    if not cpp(facts):
        return
    for v in _local_vars(facts, _ORDERED):
        m = _ORDERED.match(v.base)
        if m is None:
            continue
        kind = m.group(1)
        key = _first_template_arg(m.group(2))
        if key is None or not _HASHABLE.match(key.strip()):
            continue
        use = _uses(facts, v.name)
        if use.escapes or use.methods & _ORDERED_OPS or not use.lines:
            continue
        loops = _iterations(facts, v.name)
        if use.iterated and (not loops or not all(_order_free(facts, lp) for lp in loops)):
            continue
        target = "std::unordered_" + kind
        ops = sorted(use.methods | ({"operator[]"} if use.subscripted else set()))
        where = lines_phrase(use.lines)
        yield make_finding(
            "ordered-map-unneeded",
            f"`{v.name}` (`{v.base}`, line {v.line}) is only used through "
            f"{', '.join(f'`{o}`' for o in ops)} ({where}); nothing needs its keys in "
            f"order, so `{target}` gives O(1) average lookups instead of O(log n) tree walks "
            f"with a pointer chase per level"
            + (f". The loop on line {loops[0].start_point[0] + 1} only aggregates over it; if "
               f"ties must go to the smallest key, compare the keys explicitly there."
               if loops else "."),
            [v.line, *sorted(set(use.lines))[:6]],
            names=[v.name],
            data={"var": v.name, "from": v.base, "to": target + v.base[v.base.index("<"):]},
        )


def _iterations(facts: FunctionFacts, name: str) -> list[Node]:
    return [r for r in facts.nodes("for_range_loop")
            if text(r.child_by_field_name("right")) == name]


def _order_free(facts: FunctionFacts, loop: Node) -> bool:
    """The loop only folds values into scalars: no calls, output, appends or early exits."""
    body = loop.child_by_field_name("body")
    if body is None:
        return False
    if facts.nodes("call_expression", body) or facts.nodes("break_statement", body) or \
            facts.nodes("return_statement", body) or facts.nodes("goto_statement", body):
        return False
    return not any(operator(b) in ("<<", ">>") for b in facts.nodes("binary_expression", body))


def _first_template_arg(args: str) -> str | None:
    depth = 0
    for i, ch in enumerate(args):
        if ch == "<":
            depth += 1
        elif ch == ">":
            depth -= 1
        elif ch == "," and depth == 0:
            return args[:i].strip()
    return args.strip() or None


def list_to_vector(facts: FunctionFacts) -> Iterator[Finding]:
    """A local ``std::list`` used only as a sequence appended at the back."""
    if not cpp(facts):
        return
    for v in _local_vars(facts, _LIST):
        use = _uses(facts, v.name)
        if use.escapes or not use.methods or not use.methods <= _LIST_OK:
            continue
        where = lines_phrase(use.lines)
        yield make_finding(
            "list-to-vector",
            f"`{v.name}` (`{v.base}`, line {v.line}) is only appended to and traversed "
            f"({', '.join(f'`{m}`' for m in sorted(use.methods))}, {where}); a "
            f"`std::list` allocates a node per element and every traversal chases pointers, "
            f"while `std::vector` keeps the elements contiguous"
            + (f" (sort it with `std::sort({v.name}.begin(), {v.name}.end())`)"
               if "sort" in use.methods else "") + ".",
            [v.line, *sorted(set(use.lines))[:6]],
            names=[v.name],
            data={"var": v.name, "from": v.base,
                  "to": "std::vector" + v.base[v.base.index("<"):]},
        )


