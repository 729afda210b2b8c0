"""The sort-compare-counts rule: two byte sequences sorted only to compare them.

Rewrite: ``std::sort(a...); std::sort(b...); return a == b;`` becomes a comparison of the
sizes and of the counts of each of the 256 byte values.

Two sequences sorted in one order are equal exactly when they hold the same elements the same
number of times. For one-byte elements (``std::string``, ``std::vector`` of ``char``,
``signed char``, ``unsigned char``) a table of 256 counts answers that in O(n) instead of
O(n log n): equal sizes, then every element of ``b`` takes one from the count ``a`` left for
its byte, and none runs out.

Proved before rewriting: the two sorts and the ``return`` are consecutive statements of one
block, so the function ends right after the sorts and nothing sees the sorted order; ``a`` and
``b`` are two different local or by-value containers of the same type (a caller's container
would see the order), sorted whole in the same order (natural, ``std::less`` or
``std::greater``), never reached through a pointer, reference, iterator or capture.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from perfpilot.code.facts import FunctionFacts
from perfpilot.code.sorted_ranges import (
    DECL,
    ESCAPE,
    Mentions,
    SortCall,
    jumps_in,
    plain_local,
    sort_calls,
    sorts_anything,
)
from perfpilot.code.syntax import (
    Node,
    line,
    node_text,
    operator,
    unwrap,
)
from perfpilot.rules.base import Example, RuleSpec
from perfpilot.rules.counting.byte_tables import byte_container
from perfpilot.rules.detect.common import code, rng
from perfpilot.rules.edits import Edit
from perfpilot.rules.finding import Finding, Proof, make_finding
from perfpilot.rules.rewrite_input import (
    Left,
    Planned,
    RuleInput,
    left_note,
)

RULE_ID = "sort-compare-counts"


@dataclass(frozen=True)
class SortedCompare(Proof):
    """``std::sort(a); std::sort(b); return a OP b;``: the first sort, the return, the two
    containers (as the return names them) and whether ``OP`` is ``==`` (the proof of a
    finding: the rewrite replaces the statements from the first sort to the return)."""

    first: SortCall
    ret: Node
    left: str
    right: str
    equal: bool


def _container(facts: FunctionFacts, var: str) -> str | None:
    """The element type of a string or vector of one-byte elements (not an array)."""
    vt = facts.var(var)
    if vt is None or "array" in vt.base:
        return None
    return byte_container(vt)


def _next(stmt: Node) -> Node | None:
    block = stmt.parent
    if block is None or block.type != "compound_statement":
        return None
    kids = block.named_children
    at = kids.index(stmt)
    return kids[at + 1] if at + 1 < len(kids) else None


def _compared(ret: Node) -> tuple[str, str, bool] | None:
    """``(a, b, equal)`` of ``return a == b;`` / ``return a != b;``."""
    if ret.type != "return_statement" or ret.named_child_count != 1:
        return None
    value = ret.named_children[0]
    e = unwrap(value) if value is not None else None
    if e is None or e.type != "binary_expression" or operator(e) not in ("==", "!="):
        return None
    left, right = e.child_by_field_name("left"), e.child_by_field_name("right")
    if left is None or right is None:
        return None
    left, right = unwrap(left), unwrap(right)
    if left.type != "identifier" or right.type != "identifier":
        return None
    return node_text(left), node_text(right), operator(e) == "=="


class _Finder:
    def __init__(self, facts: FunctionFacts, unit: Node) -> None:
        self.facts = facts
        self.mentions = Mentions(facts, unit)

    def found(self) -> tuple[list[SortedCompare], list[tuple[SortCall, str]]]:
        f = self.facts
        sorts = sort_calls(f, self.mentions.own, lambda v: _container(f, v))
        by_stmt = {s.statement.start_byte: s for s in sorts}
        out: list[SortedCompare] = []
        refused: list[tuple[SortCall, str]] = []
        for s in sorts:
            second_stmt = _next(s.statement)
            second = by_stmt.get(second_stmt.start_byte) if second_stmt is not None else None
            ret = _next(second.statement) if second is not None else None
            got = _compared(ret) if ret is not None else None
            if second is None or ret is None or got is None or \
                    {got[0], got[1]} != {s.var, second.var} or s.var == second.var:
                continue
            why = self._why(s, second, ret)
            if why:
                refused.append((s, why))
            else:
                out.append(SortedCompare(s, ret, got[0], got[1], got[2]))
        return out, refused

    def _why(self, a: SortCall, b: SortCall, ret: Node) -> str:
        f = self.facts
        if a.descending != b.descending:
            return "the two are sorted in different orders"
        ta, tb = f.var(a.var), f.var(b.var)
        if ta is None or tb is None or " ".join(ta.base.split()) != " ".join(tb.base.split()):
            return "the two containers are not of one type"
        for v, vt in ((a.var, ta), (b.var, tb)):
            if not plain_local(f, v) or vt.const:
                return f"'{v}' belongs to the caller, who sees its order"
            uses = self.mentions.of(v)
            if sum(1 for u in uses if u.kind == DECL) != 1:
                return f"the name '{v}' is declared more than once"
            if any(u.kind == ESCAPE and u.access.type != "return_statement" and
                   not (ret.start_byte <= u.ident.start_byte < ret.end_byte) for u in uses):
                return f"'{v}' may be reached through a pointer, reference, iterator or call"
        return ""


def compares(facts: FunctionFacts, unit: Node) -> tuple[list[SortedCompare],
                                                       list[tuple[SortCall, str]]]:
    """Pairs of byte sequences sorted only to be compared, and those that must stay."""
    if facts.body is None or facts.language != "cpp" or not sorts_anything(facts) or \
            jumps_in(facts):
        return [], []
    return _Finder(facts, unit).found()


def detect(facts: FunctionFacts) -> Iterator[Finding]:
    """Two byte sequences sorted and then compared for equality."""
    found, _refused = compares(facts, facts.unit)
    for c in found:
        stmt = c.first.statement
        yield make_finding(
            RULE_ID,
            f"`{code(stmt)}` on line {line(stmt)} and the sort after it order `{c.left}` and "
            f"`{c.right}` only to compare them on line {line(c.ret)}: two sequences sorted "
            "alike are equal exactly when each byte value occurs as often in both, which a "
            "table of 256 counts answers in O(n) instead of O(n log n).",
            [line(stmt), line(c.ret)], node_range=rng(stmt), names=[c.left, c.right],
            proof=c,
        )


def _replacement(c: SortedCompare, counts: str, byte: str, sep: str) -> str:
    """The statements that stand for the sorts and the return: sizes, then counts."""
    same, differ = ("true", "false") if c.equal else ("false", "true")
    a, b = c.left, c.right
    return sep.join([
        f"if ({a}.size() != {b}.size()) return {differ};",
        f"std::size_t {counts}[256] = {{}};",
        f"for (unsigned char {byte} : {a}) ++{counts}[{byte}];",
        f"for (unsigned char {byte} : {b}) {{ if ({counts}[{byte}] == 0) return {differ}; "
        f"--{counts}[{byte}]; }}",
        f"return {same};",
    ])


def fix(inp: RuleInput, finding: Finding) -> Planned | Left:
    """Replace the sorts and the comparison the finding proved with a comparison of byte
    counts."""
    c = finding.proof
    assert isinstance(c, SortedCompare)
    data = inp.data
    stmt = c.first.statement
    start = data.rfind(b"\n", 0, stmt.start_byte) + 1
    pad = data[start:stmt.start_byte].decode()
    indent = pad if pad.strip() == "" else ""
    sep = f"\n{indent}" if indent or start == stmt.start_byte else " "
    # two rewrites in one block may not share names
    counts, byte = inp.fresh_name("counts"), inp.fresh_name("byte")
    return Planned(
        (Edit(stmt.start_byte, c.ret.end_byte, _replacement(c, counts, byte, sep), RULE_ID),),
        f"'{c.left}' and '{c.right}' are sorted at line {inp.line_of(stmt)} only to be "
        "compared: their sizes and the counts of each byte value decide it in linear time.",
        (stmt, c.ret), includes=("<cstddef>",))


def refused(inp: RuleInput) -> list[str]:
    """A note for each pair of sorts detection refused: why the sorts stay is worth saying
    though the plan does not name them."""
    left = compares(inp.facts, inp.facts.unit)[1]
    return [left_note(inp, RULE_ID, Left("the sort", s.statement, why)) for s, why in left]


RULE = RuleSpec(
    id=RULE_ID,
    detect=detect,
    fix=fix,
    refused=refused,
    rewrites_as=frozenset({RULE_ID}),
    phase=1,
    order=14,
    examples=(
        Example("cpp", """
#include <algorithm>
#include <string>
bool is_anagram(std::string a, std::string b) {
    std::sort(a.begin(), a.end());
    std::sort(b.begin(), b.end());
    return a == b;
}
""", "is_anagram"),
    ),
)
