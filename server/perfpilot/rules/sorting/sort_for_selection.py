"""The sort-for-selection rule: a container sorted only to read one or two fixed positions.

Rewrite: the sort becomes ``std::nth_element`` (or the reads ``std::min_element`` /
``std::max_element``).

``std::sort`` costs O(n log n); when nothing but ``v[k]`` is read afterwards (a median, a
percentile, the k-th smallest), ``std::nth_element(v.begin(), v.begin() + k, v.end())`` puts
the same value at ``k`` in O(n). The median pair ``v[k - 1]``, ``v[k]`` needs one selection:
after it, ``v[k - 1]`` of the sorted order is the largest of the first ``k`` elements. Only the
first and the last element read: they are the minimum and the maximum, and the sort goes.

Proved before rewriting: ``v`` is a local container or a by-value parameter (no caller sees its
order), sorted whole with the natural order (or ``std::less``/``std::greater``), never reached
through a pointer, reference or iterator, and after the sort only read at those positions
(``v[k]``, ``v.at(k)``, ``front()``, ``back()``) or asked its size, in the block of the sort;
a loop around the sort must declare ``v`` afresh. ``k`` is built from ``v.size()`` (or a
variable holding it), integer literals and variables nothing changes after the sort, so it is
the same at the sort as at the reads. The elements must be integers or strings: equal ones
are identical, so whichever the selection leaves at ``k`` is the value the sort put there. For
floating elements the finding advises it but nothing is rewritten (``-0.0`` and ``0.0`` are
equal, and the other one may land at ``k``).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

from perfpilot.code.facts import FunctionFacts
from perfpilot.code.sorted_ranges import (
    DECL,
    ESCAPE,
    READ,
    SIZE,
    Mentions,
    SortCall,
    container_type,
    element_type,
    flat,
    jumps_in,
    later_in_block,
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
    unwrap,
)
from perfpilot.rules.base import Example, RuleSpec
from perfpilot.rules.by_finding import by_finding
from perfpilot.rules.detect.common import code, rng
from perfpilot.rules.edits import Edit
from perfpilot.rules.emit import ADDITIVE, UNARY, fit, precedence
from perfpilot.rules.finding import Finding, Proof, make_finding
from perfpilot.rules.rewrite_input import Left, Planned, RuleInput, RuleOutput, left_note
from perfpilot.rules.sorting.sort_positions import FLOATING, Positions, element_kind, scope_ok

RULE_ID = "sort-for-selection"
_SAFE = re.compile(r"0|\(N/[1-9]\d*\)|\(N>>\d+\)")  # positions within [0, size] for any size


@dataclass(frozen=True)
class Selection:
    """A sort whose result is read only at fixed positions.

    ``form``: ``one`` (one position, kept by ``nth_element``), ``pair`` (two neighbours: the
    selection at ``index``, the other one found beside it), ``extremes`` (the first and/or the
    last: minimum and maximum, no selection). ``index`` is the selected position as C++ text
    valid at the sort, ``clamp`` whether it must be limited to the size there (it is not
    within it for every size). ``others`` are the reads to replace, each with its text.
    """

    sort: SortCall
    var: str
    form: str
    index: str
    clamp: bool
    reads: tuple[Node, ...]
    others: tuple[tuple[Node, str], ...]
    floating: bool


class _Finder:
    def __init__(self, facts: FunctionFacts, unit: Node) -> None:
        self.facts = facts
        self.mentions = Mentions(facts, unit)
        self.own = self.mentions.own
        self.positions = Positions(facts, self.mentions)

    def selections(self) -> tuple[list[Selection], list[tuple[SortCall, str]]]:
        found: list[Selection] = []
        refused: list[tuple[SortCall, str]] = []

        def element_of(var: str) -> str | None:
            vt = container_type(self.facts, var)
            return element_type(vt) if vt is not None else None

        for s in sort_calls(self.facts, self.own, element_of):
            got = self.selection(s, element_of(s.var) or "")
            if isinstance(got, Selection):
                found.append(got)
            elif got:
                refused.append((s, got))
        return found, refused

    def selection(self, s: SortCall, element: str) -> Selection | str:
        """The sort as a selection, why it cannot be one ('' when it plainly is not)."""
        f, v = self.facts, s.var
        vt = container_type(f, v)
        if vt is None:
            return ""
        all_uses = self.mentions.of(v)
        after = [u for u in all_uses if u.ident.start_byte >= s.statement.end_byte]
        reads = [u for u in after if u.kind == READ]
        if not reads or any(u.kind not in (READ, SIZE) for u in after):
            return ""  # the order is used some other way (or not at all)
        if not plain_local(f, v) or vt.const:
            return f"'{v}' belongs to the caller, who sees its order"
        decls = [u for u in all_uses if u.kind == DECL]
        if len(decls) != 1:
            return f"the name '{v}' is declared more than once"
        if any(u.kind == ESCAPE for u in all_uses):
            return f"'{v}' may be reached through a pointer, reference, iterator or call"
        if not scope_ok(f, s, decls[0]):
            return f"a loop around the sort keeps '{v}' from one iteration to the next"
        if vt.scope == "param":
            why = self.mentions.alias_problem([(s.statement.end_byte, f.fn.end_byte)],
                                              strict=False)
            if why:
                return f"'{v}' is a parameter and {why}"
        kind = element_kind(element)
        if not kind:
            return f"the elements of '{v}' are not integers or strings"
        floating = kind == FLOATING
        positions: dict[str, list[tuple[Node, Node | None]]] = {}
        texts: dict[str, str] = {}
        for u in reads:
            if not later_in_block(s.statement, u.access):
                return f"'{v}' is read where the sort may not have run"
            got = self._position(u.access, s)
            if got is None:
                return ""  # a position that moves (an index, a loop): the order is used
            key, at_sort, k_node = got
            positions.setdefault(key, []).append((u.access, k_node))
            texts[key] = at_sort
        return self._shape(s, positions, texts, floating) or \
            f"'{v}' is read at more positions than one selection gives"

    def _position(self, access: Node, s: SortCall) -> tuple[str, str, Node | None] | None:
        """``(key, text at the sort, the node of k)`` of a read ``v[k]`` / ``v.at(k)`` /
        ``front()`` (k = 0) / ``back()`` (k = size - 1); ``k - 1`` and ``k + 1`` reads also
        give the node of ``k`` (the replacement needs it)."""
        v = s.var
        if access.type == "subscript_expression":
            idx = access.child_by_field_name("indices") or access.child_by_field_name("index")
            inner = [c for c in idx.named_children] if idx is not None and \
                idx.type == "subscript_argument_list" else [idx] if idx is not None else []
            if len(inner) != 1 or inner[0] is None:
                return None
            index: Node | None = inner[0]
        else:
            name = callee(access)
            if name == "front":
                return "0", "0", None
            if name == "back":
                return "(N-1)", f"{v}.size() - 1", None
            args = arguments(access)
            index = args[0] if name == "at" and len(args) == 1 else None
        if index is None or not small(index):
            return None
        got = self.positions.index(index, s, self.facts.fn.end_byte)
        if got is None:
            return None
        node = unwrap(index)
        k_node = node.child_by_field_name("left") if node.type == "binary_expression" and \
            operator(node) in ("+", "-") and flat(node.child_by_field_name("right")) == "1" \
            else None
        return got[0], got[1], k_node

    def _shape(self, s: SortCall, positions: dict[str, list[tuple[Node, Node | None]]],
               texts: dict[str, str], floating: bool) -> Selection | None:
        v = s.var
        comp = f", {s.comparator}" if s.comparator else ""
        reads = tuple(a for group in positions.values() for a, _ in group)
        keys = set(positions)

        def make(form: str, key: str, others: list[tuple[Node, str]]) -> Selection:
            return Selection(s, v, form, texts[key], _SAFE.fullmatch(key) is None, reads,
                             tuple(others), floating)

        loop_of_sort = self.facts.loop_of(s.statement)
        repeated = any((lp := self.facts.loop_of(a)) is not None and (
            loop_of_sort is None or lp.index != loop_of_sort.index) for a in reads)
        if keys <= {"0", "(N-1)"} and not repeated and len(reads) <= 4:
            # the first and the last: the minimum and the maximum, each found once per read
            # (a read a loop repeats would scan the container each time: select instead)
            others = [(a, f"(*std::min_element({v}.begin(), {v}.end(){comp}))")
                      for a, _ in positions.get("0", [])]
            others += [(a, f"(*std::max_element({v}.begin(), {v}.end(){comp}))")
                       for a, _ in positions.get("(N-1)", [])]
            return Selection(s, v, "extremes", "", False, reads, tuple(others), floating)
        if len(keys) == 1:
            key = next(iter(keys))
            return make("one", key, [])
        if len(keys) != 2:
            return None
        for key in keys:
            other = next(k for k in keys if k != key)
            for step, fn in (("-", "max_element"), ("+", "min_element")):
                if other != f"({key}{step}1)":
                    continue
                replaced = []
                for a, k_node in positions[other]:
                    if k_node is None:
                        return None
                    k = " ".join(node_text(k_node).split())
                    k = k if precedence(k_node) > ADDITIVE else f"({k})"
                    span = f"{v}.begin(), {v}.begin() + {k}" if step == "-" else \
                        f"{v}.begin() + {k} + 1, {v}.end()"
                    replaced.append((a, f"(*std::{fn}({span}{comp}))"))
                return make("pair", key, replaced)
        return None


def selections(facts: FunctionFacts, unit: Node) -> tuple[list[Selection],
                                                           list[tuple[SortCall, str]]]:
    """The sorts of the function used only for an order statistic, and those that come close
    but must stay (with why)."""
    if facts.body is None or facts.language != "cpp" or not sorts_anything(facts) or \
            jumps_in(facts):
        return [], []
    return _Finder(facts, unit).selections()


def _reads_phrase(sel: Selection) -> str:
    shown = list(dict.fromkeys(f"`{code(r)}`" for r in sel.reads))
    return " and ".join(shown[:3])


def _top_operator(index: str) -> str:
    """The operator of a position rendered by ``_index`` as ``(a op b)`` ('' for a leaf)."""
    if not index.startswith("("):
        return ""
    depth = 0
    for i, ch in enumerate(index):
        depth += ch == "("
        depth -= ch == ")"
        if depth == 1 and index[i:i + 1] == " " and i + 1 < len(index):
            return index[i + 1:].split(" ", 1)[0]
    return ""


def _selection_call(sel: Selection) -> str:
    v = sel.var
    comp = f", {sel.sort.comparator}" if sel.sort.comparator else ""
    k = sel.index
    if _top_operator(k) in ("*", "/", "%"):
        k = k[1:-1]  # binds tighter than the ``+`` it joins
    at = f"std::min<std::size_t>({k}, {v}.size())" if sel.clamp else k
    return f"std::nth_element({v}.begin(), {v}.begin() + {at}, {v}.end(){comp})"


@dataclass(frozen=True)
class SelectionProof(Proof):
    """The proved sort, the positions read after it and what replaces them."""

    selection: Selection


def detect(facts: FunctionFacts) -> Iterator[Finding]:
    """Whole-container sorts read afterwards only at one or two fixed positions."""
    found, _refused = selections(facts, facts.unit)
    return _findings(found)


def _findings(found: list[Selection]) -> Iterator[Finding]:
    """The findings of the proved sorts used only for an order statistic."""
    for sel in found:
        stmt = sel.sort.statement
        if sel.form == "extremes":
            kinds = [k for k in ("min_element", "max_element")
                     if any(k in t for _a, t in sel.others)]
            remedy = (f"{'they are' if len(kinds) == 2 else 'it is'} the "
                   f"{' and the '.join(k.replace('_element', 'imum') for k in kinds)} "
                   f"{'' if not sel.sort.descending else '(in the order sorted) '}of the "
                   f"elements: {' and '.join(f'`std::{k}`' for k in kinds)} "
                   f"find{'s it' if len(kinds) == 1 else ' them'} in O(n) without sorting")
        elif sel.form == "pair":
            remedy = (f"`{_selection_call(sel)}` puts one of them in place in O(n), and the "
                   "other is the extreme of the elements beside it (`std::max_element` or "
                   "`std::min_element`), instead of O(n log n) for the sort")
        else:
            remedy = (f"`{_selection_call(sel)}` puts the same element there in O(n) instead of "
                   "O(n log n)")
        caveat = ("; the elements are floating-point, so check it by hand: `-0.0` and `0.0` "
                  "compare equal and the selection may leave the other one there"
                  if sel.floating else "")
        yield make_finding(
            RULE_ID,
            f"`{code(stmt)}` on line {line(stmt)} orders all of `{sel.var}`, but afterwards "
            f"only {_reads_phrase(sel)} {'is' if len(sel.reads) == 1 else 'are'} read: "
            f"{remedy}{caveat}.",
            [line(stmt), *(line(r) for r in sel.reads)], node_range=rng(stmt),
            names=[sel.var],
            proof=SelectionProof(sel),
        )


def _remove_statement(inp: RuleInput, stmt: Node) -> Edit:
    """Delete a statement, with its line when it stands alone on it."""
    data = inp.data
    start = data.rfind(b"\n", 0, stmt.start_byte) + 1
    end = data.find(b"\n", stmt.end_byte)
    if data[start:stmt.start_byte].strip() == b"" and end != -1 and \
            data[stmt.end_byte:end].strip() == b"":
        return Edit(start, end + 1, "", RULE_ID)
    return Edit(stmt.start_byte, stmt.end_byte, "", RULE_ID)


def fix(inp: RuleInput, finding: Finding) -> Planned | Left:
    """The proved sort becomes a selection (or goes, for the extremes)."""
    proof = finding.proof
    assert isinstance(proof, SelectionProof)
    sel = proof.selection
    stmt = sel.sort.statement
    if sel.floating:
        return Left("the sort", stmt, "its elements are floating-point, and -0.0 and 0.0 "
                    "compare equal, so a selection may leave the other one at the position "
                    "read")
    if sel.form == "extremes":
        edits = [_remove_statement(inp, stmt)]
        how = "the minimum and the maximum are found directly"
    else:
        edits = [Edit(stmt.start_byte, stmt.end_byte, f"{_selection_call(sel)};", RULE_ID)]
        how = "std::nth_element puts the element read there in linear time"
        if sel.form == "pair":
            how += ", and its neighbour is the extreme of the elements beside it"
    # `*std::max_element(...)`: a unary expression, parenthesized only where it must be
    edits += [Edit(a.start_byte, a.end_byte,
                   fit(a, t[1:-1], UNARY) if t.startswith("(*") else t, RULE_ID)
              for a, t in sel.others]
    reads = ", ".join(dict.fromkeys(" ".join(node_text(r).split()) for r in sel.reads))
    return Planned(
        tuple(edits),
        f"'{sel.var}' is sorted at line {inp.line_of(stmt)} only to read {reads}: {how}, "
        "instead of sorting it all.",
        (stmt, *sel.reads))


def rewrite(inp: RuleInput) -> RuleOutput:
    """Each finding fixed (``fix``), and a note for each sort the proof refused (detection
    does not report those)."""
    found, refused = selections(inp.facts, inp.unit)
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
    order=12,
    examples=(
        Example("cpp", """
#include <algorithm>
#include <vector>
double median(std::vector<int> v) {
    if (v.empty()) return 0.0;
    std::sort(v.begin(), v.end());
    int n = v.size();
    if (n % 2 == 1) return v[n / 2];
    return (v[n / 2 - 1] + v[n / 2]) / 2.0;
}
""", "median"),
    ),
)
