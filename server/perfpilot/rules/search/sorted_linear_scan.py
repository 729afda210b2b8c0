"""The sorted-linear-scan rule: a loop, or a standard algorithm call, that counts or finds
elements of a container that a sort has already put in order.

Rewrite: the loop or call becomes ``std::lower_bound`` / ``std::upper_bound`` /
``std::equal_range`` / ``std::binary_search``.

After ``std::sort(v.begin(), v.end())``, the elements with ``x < q`` are a prefix of ``v`` and
those with ``x >= q`` the rest, so a loop counting them (``if (x < q) ++c;``) or stopping at the
first one (``if (v[i] >= q) { k = i; break; }``) does in O(n) what a binary search does in
O(log n); inside a loop over queries, O(q·n) becomes O(q·log n). ``code/sorted_scan.py`` proves
the order still holds at the loop, and that the binary search compares exactly what the loop
compares (integers, the same conversions); the count keeps its type and its ``+=``/``-=``.
The same holds for ``std::count``/``std::find`` over the whole sorted range, and for
``std::count_if``/``std::find_if`` with a lambda that only compares its element with a fixed
value (``code/sorted_calls.py``; integer or ``std::string`` elements): a count becomes the
width of a run, a find the run's start checked for a match (same iterator type, same first
match, the end when there is none), and ``find(...) != v.end()`` a ``std::binary_search``;
``std::find_if_not`` is ``find_if`` of the negated comparison. ``std::ranges::sort(v)`` orders
``v`` too, and ``std::ranges::count(v, q)``/``std::ranges::find(v, q)`` are searched as the
classic calls over ``v.begin(), v.end()``: the rewrite names only classic iterator algorithms,
valid under any standard.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from perfpilot.code.facts import FunctionFacts
from perfpilot.code.sorted_calls import SortedCall, sorted_calls
from perfpilot.code.sorted_scan import SortedScan, sorted_scans
from perfpilot.code.syntax import (
    Node,
    line,
    node_text,
    walk,
)
from perfpilot.rules.base import Example, RuleSpec
from perfpilot.rules.by_finding import by_finding
from perfpilot.rules.detect.common import code, loop_phrase, rng
from perfpilot.rules.edits import Edit
from perfpilot.rules.emit import folded_into_declaration
from perfpilot.rules.finding import Finding, Proof, depth_bonus, make_finding
from perfpilot.rules.rewrite_input import (
    Left,
    Planned,
    RuleInput,
    RuleOutput,
    left_note,
    line_indent,
    newline_of,
)

RULE_ID = "sorted-linear-scan"

# (test, descending) -> where the matching elements lie: a prefix ending at a bound, a suffix
# starting at one, the run of equal elements, or everything but that run.
_SHAPE: dict[tuple[str, bool], tuple[str, str]] = {
    ("<", False): ("prefix", "lower_bound"), ("<=", False): ("prefix", "upper_bound"),
    (">", False): ("suffix", "upper_bound"), (">=", False): ("suffix", "lower_bound"),
    (">", True): ("prefix", "lower_bound"), (">=", True): ("prefix", "upper_bound"),
    ("<", True): ("suffix", "upper_bound"), ("<=", True): ("suffix", "lower_bound"),
    ("==", False): ("run", "equal_range"), ("==", True): ("run", "equal_range"),
    ("!=", False): ("outside", "equal_range"), ("!=", True): ("outside", "equal_range"),
}


def _search(kind: str, s: SortedScan) -> str:
    comp = ", std::greater<>()" if s.sort.descending else ""
    return f"std::{kind}({s.var}.begin(), {s.var}.end(), {_q(s)}{comp})"


def _q(s: SortedScan) -> str:
    return " ".join(node_text(s.query).split())


def _what(s: SortedScan) -> str:
    """The search that replaces the loop, in words for the plan."""
    shape, kind = _SHAPE[(s.op, s.sort.descending)]
    if s.form == "first":
        if shape == "prefix":
            return "a test of the first element"
        return f"`std::{'lower_bound' if shape == 'run' else kind}`"
    return f"`std::{kind}`"


def _test_text(s: SortedScan) -> str:
    x = s.element_name or f"{s.var}[{s.index}]"
    return f"{x} {s.op} {_q(s)}"


@dataclass(frozen=True)
class SortedScanProof(Proof):
    """A counting or first-match loop proved to scan a sorted container
    (``code/sorted_scan.py``)."""

    scan: SortedScan


@dataclass(frozen=True)
class SortedCallProof(Proof):
    """A whole-range count or find call proved to search a sorted container
    (``code/sorted_calls.py``)."""

    call: SortedCall


def detect(facts: FunctionFacts) -> Iterator[Finding]:
    """Counting and first-match loops over a container proved sorted."""
    found, _refused = sorted_scans(facts, facts.unit)
    calls, _refused_calls = sorted_calls(facts, facts.unit)
    return _findings(facts, found, calls)


def _findings(facts: FunctionFacts, found: list[SortedScan],
              calls: list[SortedCall]) -> Iterator[Finding]:
    """The findings of the proved scans, then of the proved calls."""
    for s in found:
        lp = s.loop
        sort_line = line(s.sort.statement)
        doing = (f"counts the elements of `{s.var}` with `{_test_text(s)}`" if s.form == "count"
                 else f"looks for the first element of `{s.var}` with `{_test_text(s)}`")
        outer = ""
        if lp.parent is not None:
            outer = (f"; it runs on every iteration of the loop on line "
                     f"{line(facts.loops[lp.parent].node)}, so O(q·n) becomes O(q·log n)")
        yield make_finding(
            RULE_ID,
            f"{loop_phrase(lp)} {doing}, but `{s.var}` is sorted on line {sort_line} "
            f"(`{code(s.sort.statement)}`) and nothing changes it before the loop: "
            f"{_what(s)} answers the same in O(log n) instead of O(n){outer}.",
            [lp.line, sort_line],
            loop_range=lp.byte_range, node_range=rng(lp.node), names=[s.var],
            claims=[rng(lp.node)],
            bonus=depth_bonus(lp.depth),
            proof=SortedScanProof(s),
        )
    yield from _call_findings(facts, calls)


def _call_findings(facts: FunctionFacts, calls: list[SortedCall]) -> Iterator[Finding]:
    for c in calls:
        lp = facts.loop_of(c.call)
        sort_line = line(c.sort.statement)
        doing = (f"counts the elements of `{c.var}` with `{_call_test(c)}`" if c.form == "count"
                 else f"looks for the first element of `{c.var}` with `{_call_test(c)}`")
        outer = ""
        if lp is not None:
            outer = (f"; it runs on every iteration of the loop on line {lp.line}, so O(q·n) "
                     "becomes O(q·log n)")
        search = _call_search(c)
        yield make_finding(
            RULE_ID,
            f"`{code(c.call)}` on line {line(c.call)} {doing}, but `{c.var}` is sorted on line "
            f"{sort_line} (`{code(c.sort.statement)}`) and nothing changes it before the call: "
            f"`std::{search}` answers the same in O(log n) instead of O(n){outer}.",
            [line(c.call), sort_line],
            loop_range=lp.byte_range if lp is not None else None, node_range=rng(c.call),
            claims=[rng(c.call)],
            names=[c.var],
            bonus=depth_bonus(lp.depth + 1) if lp is not None else 0.0,
            proof=SortedCallProof(c),
        )


def _uses(nodes: tuple[Node, ...], name: str) -> bool:
    return any(n.type == "identifier" and node_text(n) == name
               for b in nodes for n in walk(b, named=True))


def _count_amount(s: SortedScan) -> str | None:
    """The count of a prefix or suffix run as one expression (None for other shapes)."""
    shape, kind = _SHAPE[(s.op, s.sort.descending)]
    if shape == "prefix":
        return f"{_search(kind, s)} - {s.var}.begin()"
    if shape == "suffix":
        return f"{s.var}.end() - {_search(kind, s)}"
    return None


def _count_lines(s: SortedScan, pos: str) -> list[str]:
    assert s.target is not None
    shape, kind = _SHAPE[(s.op, s.sort.descending)]
    target, op = " ".join(node_text(s.target).split()), f"{s.sign}="
    v = s.var
    single = _count_amount(s)
    if single is not None:
        return [f"{target} {op} {single};"]
    amount = f"{pos}.second - {pos}.first" if shape == "run" else \
        f"({pos}.first - {v}.begin()) + ({v}.end() - {pos}.second)"
    return ["{", f"    const auto {pos} = {_search(kind, s)};", f"    {target} {op} {amount};",
            "}"]


def _first_lines(s: SortedScan, pos: str, branch: list[str]) -> list[str]:
    shape, kind = _SHAPE[(s.op, s.sort.descending)]
    v, q = s.var, _q(s)
    if shape == "prefix":
        start, check = f"{v}.begin()", f" && *{pos} {s.op} {q}"
    elif shape == "run":
        start, check = _search("lower_bound", s), f" && *{pos} == {q}"
    else:
        start, check = _search(kind, s), ""
    lines = ["{", f"    auto {pos} = {start};"]
    body = [f"        {b}" for b in branch]
    if s.index and not s.index_declared:
        # the index outlives the loop: it ends at the match, or at the size
        if check:
            lines.append(f"    if ({pos} != {v}.end() && !(*{pos} {s.op} {q})) {pos} = {v}.end();")
        lines.append(f"    {s.index} = static_cast<{s.index_type}>({pos} - {v}.begin());")
        if body:
            lines += [f"    if ({pos} != {v}.end()) {{", *body, "    }"]
        return [*lines, "}"]
    lines.append(f"    if ({pos} != {v}.end(){check}) {{")
    if s.index and _uses(s.branch, s.index):
        lines.append(f"        {s.index_type} {s.index} = "
                     f"static_cast<{s.index_type}>({pos} - {v}.begin());")
    elif s.element_name and _uses(s.branch, s.element_name):
        lines.append(f"        {s.element_decl} = *{pos};")
    return [*lines, *body, "    }", "}"]


def _tight(node: Node | None) -> str:
    return " ".join(node_text(node).split())


def _call_test(c: SortedCall) -> str:
    return f"{c.element or 'x'} {c.op} {_tight(c.query)}"


def _call_search(c: SortedCall) -> str:
    """The search that replaces the call."""
    shape, kind = _SHAPE[(c.op, c.sort.descending)]
    if c.form == "count":
        return kind
    if shape == "run":
        return "binary_search" if c.compared is not None or c.declared is None else \
            "lower_bound"
    return "lower_bound" if shape == "prefix" else kind


def _call_edit(inp: RuleInput, c: SortedCall) -> Edit:
    """The replacement of the call (or of the comparison or declaration holding it)."""
    shape, kind = _SHAPE[(c.op, c.sort.descending)]
    f, last, q = c.first, c.last, _tight(c.query)
    comp = ", std::greater<>()" if c.sort.descending else ""

    def search(k: str) -> str:
        return f"std::{k}({f}, {last}, {q}{comp})"

    def edit(node: Node, new: str) -> Edit:
        return Edit(node.start_byte, node.end_byte, new, RULE_ID)

    run = f"{search('upper_bound')} - {search('lower_bound')}"
    if c.form == "count":
        return edit(c.call, {"prefix": f"({search(kind)} - {f})",
                             "suffix": f"({last} - {search(kind)})",
                             "run": f"({run})",
                             "outside": f"(({last} - {f}) - ({run}))"}[shape])
    head = f"({f} != {last} && *{f} {c.op} {q})"  # the first element matches
    if c.compared is not None and shape != "suffix":
        found = search("binary_search") if shape == "run" else head
        return edit(c.compared, found if c.found_when else f"!{found}")
    if shape == "prefix":
        return edit(c.call, f"({head[1:-1]} ? {f} : {last})")
    if shape == "suffix":
        return edit(c.call, search(kind))
    if c.declared is None:
        return edit(c.call, f"({search('binary_search')} ? {search('lower_bound')} : {last})")
    # ``auto it = std::find(...);``: one search, then the end when it is not a match
    d, data = c.declared, inp.data
    it = _tight(d.children_by_field_name("declarator")[0].child_by_field_name("declarator"))
    decl = (data[d.start_byte:c.call.start_byte].decode("utf-8") + search("lower_bound") +
            data[c.call.end_byte:d.end_byte].decode("utf-8"))
    start, indent = line_indent(data, d)
    own_line = bool(indent) or start == d.start_byte
    sep = f"{newline_of(inp.text)}{indent}" if own_line else " "
    return edit(d, f"{decl}{sep}if ({it} != {last} && !(*{it} == {q})) {it} = {last};")


def fix(inp: RuleInput, finding: Finding) -> Planned | Left:
    """The proved scan or call replaced with a binary search."""
    proof = finding.proof
    if isinstance(proof, SortedCallProof):
        c = proof.call
        return Planned(
            (_call_edit(inp, c),),
            _explained(c.var, c.sort.statement, f"`{_tight(c.call)}`", c.call, _call_test(c),
                       c.form, inp),
            (c.call, c.sort.statement), _includes(c.sort.descending))
    assert isinstance(proof, SortedScanProof)
    s = proof.scan
    data, nl = inp.data, newline_of(inp.text)
    node = s.loop.node
    pos = inp.fresh_name("pos" if s.form == "first" else "run")
    if s.form == "count":
        lines = _count_lines(s, pos)
    else:
        branch = [data[b.start_byte:b.end_byte].decode("utf-8") for b in s.branch]
        lines = _first_lines(s, pos, branch)
    _, indent = line_indent(data, node)
    replacement = f"{nl}{indent}".join(lines)
    amount = _count_amount(s) if s.form == "count" and s.target is not None else None
    # `int c = 0;` right before the loop: the count becomes its initializer
    folded = folded_into_declaration(inp, node, " ".join(node_text(s.target).split()),
                                      f"{s.sign}=", amount, RULE_ID) \
        if amount is not None and s.target is not None else None
    return Planned(
        folded or (Edit(node.start_byte, node.end_byte, replacement, RULE_ID),),
        _explained(s.var, s.sort.statement, "the loop", node, _test_text(s), s.form, inp),
        (node, s.sort.statement), _includes(s.sort.descending))


def rewrite(inp: RuleInput) -> RuleOutput:
    """Each finding fixed (``fix``), and a note for each scan or call the proof refused
    (detection does not report those)."""
    facts = inp.facts
    found, refused = sorted_scans(facts, inp.unit)
    calls, refused_calls = sorted_calls(facts, inp.unit)
    changes, notes = by_finding(lambda _facts: _findings(facts, found, calls), fix)(inp)
    left = [Left(f"the scan of '{r.var}'", r.loop.node, r.why, "stays linear")
            for r in refused]
    left += [Left(f"`{_tight(r.call)}`", r.call, r.why, "stays linear") for r in refused_calls]
    return changes, [*(left_note(inp, RULE_ID, x) for x in left), *notes]


def _includes(descending: bool) -> tuple[str, ...]:
    return ("<algorithm>", "<functional>") if descending else ("<algorithm>",)


def _explained(var: str, sort: Node, what: str, node: Node, test: str, form: str,
               inp: RuleInput) -> str:
    return (f"'{var}' is sorted at line {inp.line_of(sort)} and unchanged up to {what} at line "
            f"{inp.line_of(node)}, so the elements with {test} form one run of it: a binary "
            f"search finds it in logarithmic time, with the same "
            f"{'count' if form == 'count' else 'first match'}.")


RULE = RuleSpec(
    id=RULE_ID,
    detect=detect,
    fix=fix,
    rewrite=rewrite,
    rewrites_as=frozenset({RULE_ID}),
    phase=1,
    order=11,
    examples=(
        Example("cpp", """
#include <algorithm>
#include <vector>
long long below(std::vector<int> v, const std::vector<int>& queries) {
    std::sort(v.begin(), v.end());
    long long total = 0;
    for (int q : queries) {
        int c = 0;
        for (int x : v)
            if (x < q) ++c;
        total += c;
    }
    return total;
}
""", "below"),
        Example("cpp", """
#include <algorithm>
#include <vector>
int first_at_least(std::vector<long> v, long q) {
    std::sort(v.begin(), v.end());
    int at = -1;
    for (int i = 0; i < (int)v.size(); ++i) {
        if (v[i] >= q) {
            at = i;
            break;
        }
    }
    return at;
}
""", "first_at_least"),
        Example("cpp", """
#include <algorithm>
#include <string>
#include <vector>
long known(std::vector<std::string> names, const std::vector<std::string>& asked) {
    std::sort(names.begin(), names.end());
    long hits = 0;
    for (const std::string& a : asked)
        if (std::find(names.begin(), names.end(), a) != names.end()) ++hits;
    return hits;
}
""", "known"),
    ),
)
