"""The reserve rule: ``v.push_back`` once per iteration of a counted loop, with no ``v.reserve``."""

from __future__ import annotations

import re
from collections.abc import Iterator

from perfpilot.code.facts import FunctionFacts
from perfpilot.code.parse import LOOP_TYPES, walk_all
from perfpilot.code.syntax import (
    Node,
    ancestors,
    callee,
    line,
    receiver,
    root_name,
)
from perfpilot.rules.base import Example, RuleSpec
from perfpilot.rules.detect.common import (
    cpp,
    loop_phrase,
    rng,
    trip_count,
)
from perfpilot.rules.finding import Finding, depth_bonus, make_finding
from perfpilot.rules.rewrite_input import (
    Change,
    RuleInput,
    RuleOutput,
    insertion_before,
    loop_node,
    statement_slot_ok,
)

# detection


_VECTOR_TYPE = re.compile(r"^(?:std::)?vector\s*<")


def reserve(facts: FunctionFacts) -> Iterator[Finding]:
    """``v.push_back`` once per iteration of a counted loop, with no ``v.reserve``."""
    if not cpp(facts):
        return
    reserved = {root_name(receiver(c)) for c in facts.nodes("call_expression")
                if callee(c) in ("reserve", "resize") and receiver(c) is not None}
    seen: set[tuple[str, int]] = set()
    for call in facts.in_loops("call_expression"):
        method = callee(call)
        if method not in ("push_back", "emplace_back"):
            continue
        rcv = receiver(call)
        vname = root_name(rcv) if rcv is not None else None
        v = facts.var(vname)
        if vname is None or v is None or vname in reserved or v.scope == "global" \
                or not _VECTOR_TYPE.match(v.base) or v.pointer:
            continue
        loop = facts.loop_of(call)
        if loop is None or v.line >= loop.line or (vname, loop.index) in seen:
            continue
        count = trip_count(loop)
        if count is None or _conditional(call, loop.node):
            continue
        # Only the loop right around the call may lie after the declaration, else the count is
        # a product we do not know.
        outer = facts.loops[loop.parent] if loop.parent is not None else None
        if outer is not None and outer.line > v.line:
            continue
        seen.add((vname, loop.index))
        yield make_finding(
            "reserve",
            f"`{vname}.{method}(...)` on line {line(call)} runs on each of the `{count}` "
            f"iterations of {loop_phrase(loop)}, but `{vname}` (declared line {v.line}) "
            f"is never reserved, so it reallocates and copies its elements about log2(n) times: "
            f"call `{vname}.reserve({count});` before the loop.",
            [line(call), loop.line, v.line],
            loop_range=loop.byte_range, node_range=rng(call), names=[vname],
            data={"var": vname, "count": count, "method": method},
            bonus=depth_bonus(loop.depth),
        )


def _conditional(node: Node, stop: Node) -> bool:
    return any(a.type in ("if_statement", "conditional_expression", "switch_statement",
                          "while_statement", "do_statement", "for_statement", "for_range_loop")
               for a in ancestors(node, stop))


# rewrite


_VECTOR = re.compile(r"^(std::)?(vector\s*<|string$|basic_string\s*<)")


def _leaves_early(loop: Node) -> bool:
    body = loop.child_by_field_name("body")
    if body is None:
        return True
    for n in walk_all(body):
        if n.type in ("return_statement", "goto_statement", "throw_statement"):
            return True
        if n.type in ("break_statement", "continue_statement"):
            parent = n.parent
            while parent is not None and parent.type not in LOOP_TYPES and \
                    parent.type != "switch_statement":
                parent = parent.parent
            if parent == loop or (n.type == "continue_statement" and parent is not None and
                                  parent.type == "switch_statement"):
                return True
    return False


def _pure_bound(text: str) -> bool:
    """A bound expression that is cheap and safe to evaluate once more."""
    if re.search(r"\+\+|--|(?<![<>=!])=(?!=)", text):
        return False
    calls = re.findall(r"([\w.:>\-]+)\s*\(", text)
    return all(re.search(r"(\.|->)(size|length)$|^(std::)?strlen$", c) for c in calls)


def _balanced(text: str) -> bool:
    depth = 0
    for ch in text:
        depth += {"(": 1, ")": -1}.get(ch, 0)
        if depth < 0:
            return False
    return depth == 0


def _paren(text: str) -> str:
    return text if re.fullmatch(r"[\w.]+(\(\))?", text) else f"({text})"


def reserve_rule(inp: RuleInput) -> RuleOutput:
    """``v.reserve(...)`` before a counted loop that appends to local ``v`` once per iteration."""
    changes: list[Change] = []
    notes: list[str] = []
    if inp.language != "cpp":
        return changes, notes
    params = {p.name for p in inp.site.params}
    for lp in inp.loops:  # outermost loops only: inside another loop, exact reserves go quadratic
        if not lp.appends or not lp.counted or lp.step not in (1, -1):
            continue
        node = loop_node(inp, lp)
        if node is None or not statement_slot_ok(node) or _leaves_early(node):
            continue
        lo, hi, op = lp.lower or "", lp.upper or "", lp.cond_op or ""
        if not (_pure_bound(lo) and _pure_bound(hi)):
            continue
        for v in lp.appends:
            vt = inp.types.get(v)
            if v in params or vt is None or vt.pointer or vt.reference or vt.array or \
                    not _VECTOR.match(vt.base.replace("const", "").strip()):
                continue
            if re.search(rf"\b{re.escape(v)}\b", lo + " " + hi):
                continue
            if lp.step == 1:
                first, last = hi, lo
                strict = op in ("<", "!=")
            else:
                first, last = lo, hi
                strict = op in (">", "!=")
            minus_one = re.fullmatch(r"\(?\s*(.+?)\s*-\s*1\s*\)?", first)
            if not strict and minus_one and _balanced(minus_one.group(1)):
                # `i = x.size() - 1; i >= 0`: the trip count is the plain bound `x.size()`.
                # Testing `(x.size() - 1) >= 0` is always true for an unsigned size.
                first, strict = minus_one.group(1), True
            cmp = ">" if strict else ">="
            extra = "" if strict else " + 1"
            f_txt, l_txt = _paren(first), _paren(last)
            count = f_txt if last == "0" else f"{f_txt} - {l_txt}"
            stmt = (f"if ({f_txt} {cmp} {l_txt}) {v}.reserve({v}.size() + "
                    f"static_cast<std::size_t>({count}){extra});")
            edit = insertion_before(inp, node, stmt, "reserve", order=5)
            changes.append(Change(
                "reserve", (edit,),
                f"The loop at line {lp.line} appends to '{v}' once per iteration and its trip "
                f"count is known before it starts; reserving that capacity up front avoids "
                "repeated reallocation and copying as the vector grows.", (lp.line,)))
    return changes, notes


RULE = RuleSpec(
    id="reserve",
    detect=reserve,
    rewrite=reserve_rule,
    rewrites_as=frozenset({"reserve"}),
    phase=2,
    order=1,
    examples=(
        Example("cpp", """
#include <vector>
std::vector<int> squares(int n) {
    std::vector<int> out;
    for (int i = 0; i < n; ++i) {
        out.push_back(i * i);
    }
    return out;
}
""", "squares"),
    ),
)
