"""The sort-for-prefix rule: a container sorted whole, then cut to its first ``k`` elements.

Rewrite: the sort becomes ``std::partial_sort`` of the prefix kept; the cut stays.

``std::sort(v.begin(), v.end()); v.resize(k);`` orders all n elements in O(n log n) and throws
away all but the first ``k``. ``std::partial_sort(v.begin(), v.begin() + m, v.end())`` with
``m = std::min<std::size_t>(k, v.size())`` puts the ``m`` smallest (in the sort's order) first
and in order in O(n log m); the resize then leaves exactly what it left before. A ``k`` past
the size (or a negative ``int`` converted to a huge size) clamps to the size: the partial sort
sorts everything, and the resize grows or throws ``std::length_error`` as before, on the same
sorted contents. ``v.erase(v.begin() + k, v.end())`` needs ``0 <= k <= v.size()`` in the
original (otherwise the range is invalid), so its position is used as it stands.

Proved before rewriting: ``v`` is a local ``std::vector``/``std::deque`` or a by-value
parameter declared once (a caller never sees the elements past ``k``), sorted whole in the
natural order (or ``std::less``/``std::greater``, as ``sorted_ranges.sort_call`` accepts), in
a block whose next statement mentioning ``v`` is the cut, with nothing between that mentions
``v`` or jumps; ``k`` is built from ``v.size()``, integer literals and integer variables that
nothing changes from the sort to the cut (``sort_positions.py``), so it has the same
value at the sort. Elements must be integers or strings: equal elements are identical, so the
prefix holds the same values in the same order. Floating elements are advised, not rewritten
(``-0.0`` and ``0.0`` compare equal, and either may be kept).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

from perfpilot.code.facts import FunctionFacts
from perfpilot.code.sorted_ranges import (
    DECL,
    ESCAPE,
    Mentions,
    SortCall,
    container_type,
    element_type,
    ends_of,
    flat,
    is_size_of,
    jumps_in,
    plain_local,
    small,
    sort_calls,
    sorts_anything,
)
from perfpilot.code.syntax import (
    Node,
    arguments,
    callee,
    line,
    node_text,
    operator,
    receiver,
    unwrap,
    walk,
)
from perfpilot.rules.base import Example, RuleSpec
from perfpilot.rules.by_finding import by_finding
from perfpilot.rules.detect.common import code, rng
from perfpilot.rules.edits import Edit
from perfpilot.rules.finding import Finding, Proof, make_finding
from perfpilot.rules.rewrite_input import Left, Planned, RuleInput, RuleOutput, left_note
from perfpilot.rules.sorting.sort_positions import FLOATING, Positions, element_kind, scope_ok

RULE_ID = "sort-for-prefix"
_SAFE = re.compile(r"0|N|\(N/[1-9]\d*\)|\(N>>\d+\)")  # positions within [0, size] for any size
_JUMPS = frozenset({"return_statement", "break_statement", "continue_statement",
                    "throw_statement", "goto_statement", "co_return_statement"})
_BEGINS = ("{v}.begin()", "std::begin({v})")


@dataclass(frozen=True)
class Truncation:
    """A sort followed by a cut to a prefix: the cut statement (an ``if`` around the cut when
    guarded), the position where the kept prefix ends as C++ text valid at the sort (an
    iterator expression), whether the elements are floating-point (advised only), and the
    cutting method (``resize`` or ``erase``)."""

    sort: SortCall
    var: str
    cut: Node
    middle: str
    floating: bool
    method: str


def _names(node: Node, var: str) -> bool:
    return any(n.type == "identifier" and node_text(n) == var for n in walk(node, named=True))


class _Finder:
    def __init__(self, facts: FunctionFacts, unit: Node) -> None:
        self.facts = facts
        self.mentions = Mentions(facts, unit)
        self.positions = Positions(facts, self.mentions)

    def truncations(self) -> tuple[list[Truncation], list[tuple[SortCall, str]]]:
        found: list[Truncation] = []
        refused: list[tuple[SortCall, str]] = []

        def element_of(var: str) -> str | None:
            vt = container_type(self.facts, var)
            return element_type(vt) if vt is not None else None

        for s in sort_calls(self.facts, self.mentions.own, element_of):
            got = self.truncation(s, element_of(s.var) or "")
            if isinstance(got, Truncation):
                found.append(got)
            elif got:
                refused.append((s, got))
        return found, refused

    def _cut(self, s: SortCall) -> tuple[Node, list[Node]] | None:
        """The next statement of the sort's block that mentions the container, and the
        statements between."""
        block = s.statement.parent
        if block is None or block.type != "compound_statement":
            return None
        between: list[Node] = []
        for stmt in block.named_children[block.named_children.index(s.statement) + 1:]:
            if _names(stmt, s.var):
                return stmt, between
            between.append(stmt)
        return None

    def _middle(self, cut: Node, s: SortCall) -> tuple[str, str] | None:
        """The end of the kept prefix, as an iterator at the sort, and the cutting method, when
        ``cut`` is ``v.resize(k)`` / ``v.resize(k, x)`` or ``v.erase(v.begin() + k,
        v.end())``, or one of them alone under ``if (v.size() > k)``."""
        inner = _guarded_cut(cut, s.var)
        if inner is not None:
            return self._middle_of(inner, s, cut.end_byte, clamp=True)
        return self._middle_of(cut, s, cut.end_byte)

    def _middle_of(self, cut: Node, s: SortCall, until: int,
                   clamp: bool = False) -> tuple[str, str] | None:
        v = s.var
        if cut.type != "expression_statement" or cut.named_child_count != 1:
            return None
        call = cut.named_children[0]
        if call is None or call.type != "call_expression":
            return None
        fn, rcv = call.child_by_field_name("function"), receiver(call)
        if fn is None or operator(fn) != "." or rcv is None or rcv.type != "identifier" or \
                node_text(rcv) != v:
            return None
        args = arguments(call)
        if callee(call) == "resize" and len(args) in (1, 2) and small(args[0]) and \
                not any(_names(a, v) for a in args[1:]):
            got = self.positions.index(args[0], s, until)
            return (f"{v}.begin() + {_clamped(got, v)}", "resize") if got is not None else None
        if callee(call) == "erase" and len(args) == 2 and flat(args[1]) in ends_of(v):
            first = args[0]
            if first.type != "binary_expression" or operator(first) != "+":
                return None
            left, right = first.child_by_field_name("left"), first.child_by_field_name("right")
            if left is None or right is None or \
                    flat(left) not in {b.format(v=v) for b in _BEGINS} or not small(right):
                return None
            # the original's range is valid only for 0 <= k <= size: no clamp is needed,
            # except under a guard, where the partial sort runs whatever the guard says
            got = self.positions.index(right, s, until)
            if got is None:
                return None
            return f"{v}.begin() + {_clamped(got, v) if clamp else got[1]}", "erase"
        return None

    def truncation(self, s: SortCall, element: str) -> Truncation | str:
        """The sort as a prefix sort, why it cannot be one ('' when it plainly is not)."""
        f, v = self.facts, s.var
        vt = container_type(f, v)
        if vt is None or not re.match(r"^(?:std::)?(?:vector|deque)\s*<", vt.base):
            return ""
        found = self._cut(s)
        if found is None:
            return ""
        cut, between = found
        found_middle = self._middle(cut, s)
        if found_middle is None:
            return ""
        middle, method = found_middle  # the order is used some other way first
        if not plain_local(f, v) or vt.const:
            return f"'{v}' belongs to the caller, who sees its order"
        uses = self.mentions.of(v)
        decls = [u for u in uses if u.kind == DECL]
        if len(decls) != 1:
            return f"the name '{v}' is declared more than once"
        if not scope_ok(f, s, decls[0]):
            return f"a loop around the sort keeps '{v}' from one iteration to the next"
        if between:
            if any(n.type in _JUMPS for stmt in between for n in walk(stmt, named=True)):
                return f"a statement between the sort and the cut of '{v}' may leave the block"
            if any(n.type == "try_statement" for n in walk(f.fn, named=True)):
                return f"a handler could see '{v}' between the sort and the cut"
            if any(u.kind == ESCAPE and u.ident.start_byte < s.statement.start_byte and
                   u.access.type != "return_statement" for u in uses):  # a return ends it
                return f"'{v}' may be reached through a pointer, reference, iterator or call"
            if vt.scope == "param":
                why = self.mentions.alias_problem(
                    [(s.statement.end_byte, cut.start_byte)], strict=False)
                if why:
                    return f"'{v}' is a parameter and {why}"
        kind = element_kind(element)
        if not kind:
            return f"the elements of '{v}' are not integers or strings"
        return Truncation(s, v, cut, middle, kind == FLOATING, method)


def _clamped(position: tuple[str, str], v: str) -> str:
    """A position (key, text) as an offset within ``[0, v.size()]``: as it stands when it is
    one for any size, else clamped the way ``resize`` converts it (a negative ``int`` becomes
    a huge size)."""
    key, at = position
    return at if _SAFE.fullmatch(key) else f"std::min<std::size_t>({at}, {v}.size())"


def _guarded_cut(stmt: Node, v: str) -> Node | None:
    """The cut statement of ``if (v.size() > k) cut`` or ``if (k < v.size()) cut`` (or ``>=``,
    ``<=``) with no ``else``, the cut one statement (braced or not) whose position is ``k`` as
    written.

    When the test fails, ``k`` converted as the comparison converts it is at least the size,
    so a partial sort up to ``min(k, size)`` sorts everything, as the original did.
    """
    if stmt.type != "if_statement" or stmt.child_by_field_name("alternative") is not None or \
            any(c.type in ("constexpr", "init_statement") for c in stmt.children):
        return None
    cond = stmt.child_by_field_name("condition")
    body = stmt.child_by_field_name("consequence")
    if cond is None or body is None or cond.named_child_count != 1:
        return None
    test = unwrap(cond.named_children[0])
    if test.type != "binary_expression" or operator(test) not in (">", ">=", "<", "<="):
        return None
    left, right = test.child_by_field_name("left"), test.child_by_field_name("right")
    size, k = (left, right) if operator(test) in (">", ">=") else (right, left)
    if size is None or k is None or not is_size_of(unwrap(size), v):
        return None
    if body.type == "compound_statement":
        if body.named_child_count != 1:
            return None
        body = body.named_children[0]
    call = body.named_children[0] if body is not None and \
        body.type == "expression_statement" and body.named_child_count == 1 else None
    args = arguments(call) if call is not None and call.type == "call_expression" else []
    if call is None or body is None or not args:
        return None
    first: Node | None = args[0]
    if callee(call) == "erase":
        # v.erase(v.begin() + k, v.end()): k is the offset added to the beginning
        plus = unwrap(args[0])
        first = plus.child_by_field_name("right") if plus.type == "binary_expression" else None
    return body if first is not None and flat(first) == flat(k) else None


def truncations(facts: FunctionFacts, unit: Node) -> tuple[list[Truncation],
                                                           list[tuple[SortCall, str]]]:
    """The sorts of the function whose container is then cut to a prefix, and those that come
    close but must stay (with why)."""
    if facts.body is None or facts.language != "cpp" or not sorts_anything(facts) or \
            jumps_in(facts) or not any(
                node_text(n.child_by_field_name("field")) in ("resize", "erase")
                for n in facts.nodes("field_expression")):
        return [], []
    return _Finder(facts, unit).truncations()


def _partial_sort(t: Truncation) -> str:
    v = t.var
    comp = f", {t.sort.comparator}" if t.sort.comparator else ""
    return f"std::partial_sort({v}.begin(), {t.middle}, {v}.end(){comp});"


@dataclass(frozen=True)
class TruncationProof(Proof):
    """The proved sort and the cut after it to a prefix."""

    truncation: Truncation


def detect(facts: FunctionFacts) -> Iterator[Finding]:
    """Whole-container sorts followed by a cut to a prefix."""
    found, _refused = truncations(facts, facts.unit)
    return _findings(found)


def _findings(found: list[Truncation]) -> Iterator[Finding]:
    """The findings of the proved sorts cut to a prefix."""
    for t in found:
        stmt = t.sort.statement
        caveat = ("; the elements are floating-point, so check it by hand: `-0.0` and `0.0` "
                  "compare equal and the partial sort may keep the other one"
                  if t.floating else "")
        yield make_finding(
            RULE_ID,
            f"`{code(stmt)}` on line {line(stmt)} orders all of `{t.var}`, but "
            f"`{code(t.cut)}` on line {line(t.cut)} keeps only a prefix: "
            f"`{_partial_sort(t)}` orders just that prefix in O(n log k) instead of "
            f"O(n log n){caveat}.",
            [line(stmt), line(t.cut)], node_range=rng(stmt), names=[t.var],
            proof=TruncationProof(t),
        )


def fix(inp: RuleInput, finding: Finding) -> Planned | Left:
    """The proved sort becomes a partial sort of the prefix kept."""
    proof = finding.proof
    assert isinstance(proof, TruncationProof)
    t = proof.truncation
    stmt = t.sort.statement
    if t.floating:
        return Left("the sort", stmt, "its elements are floating-point, and -0.0 and 0.0 "
                    "compare equal, so a partial sort may keep the other one")
    return Planned(
        (Edit(stmt.start_byte, stmt.end_byte, _partial_sort(t), RULE_ID),),
        f"'{t.var}' is sorted at line {inp.line_of(stmt)} and then cut to a prefix at "
        f"line {inp.line_of(t.cut)}: std::partial_sort orders only the prefix kept, "
        "in O(n log k) instead of O(n log n).",
        (stmt, t.cut))


def rewrite(inp: RuleInput) -> RuleOutput:
    """Each finding fixed (``fix``), and a note for each sort the proof refused (detection
    does not report those)."""
    found, refused = truncations(inp.facts, inp.unit)
    changes, notes = by_finding(lambda _facts: _findings(found), fix)(inp)
    return changes, [*(left_note(inp, RULE_ID, Left("the sort", s.statement, why))
                       for s, why in refused), *notes]


RULE = RuleSpec(
    id=RULE_ID,
    detect=detect,
    fix=fix,
    rewrite=rewrite,
    rewrites_as=frozenset({RULE_ID}),
    phase=1,
    order=13,
    examples=(
        Example("cpp", """
#include <algorithm>
#include <functional>
#include <vector>
std::vector<int> top_k(std::vector<int> v, int k) {
    std::sort(v.begin(), v.end(), std::greater<int>());
    v.resize(k);
    return v;
}
""", "top_k"),
    ),
)
