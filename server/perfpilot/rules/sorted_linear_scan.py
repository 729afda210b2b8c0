"""The sorted-linear-scan rule: a loop that counts or finds elements of a container that a sort
has already put in order.

Rewrite: the loop becomes ``std::lower_bound`` / ``std::upper_bound`` / ``std::equal_range``.

After ``std::sort(v.begin(), v.end())``, the elements with ``x < q`` are a prefix of ``v`` and
those with ``x >= q`` the rest, so a loop counting them (``if (x < q) ++c;``) or stopping at the
first one (``if (v[i] >= q) { k = i; break; }``) does in O(n) what a binary search does in
O(log n); inside a loop over queries, O(q·n) becomes O(q·log n). ``code/sorted_scan.py`` proves
the order still holds at the loop, and that the binary search compares exactly what the loop
compares (integers, the same conversions); the count keeps its type and its ``+=``/``-=``.
"""

from __future__ import annotations

from collections.abc import Iterator

from perfpilot.code.facts import FunctionFacts
from perfpilot.code.sorted_scan import SortedScan, sorted_scans
from perfpilot.code.syntax import Node, line, text, walk
from perfpilot.rules.base import Example, RuleSpec
from perfpilot.rules.detect.common import code, loop_phrase, rng
from perfpilot.rules.edits import Edit
from perfpilot.rules.finding import Finding, depth_bonus, make_finding
from perfpilot.rules.rewrite_input import Change, RuleInput, RuleOutput, line_indent, newline_of

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
    return " ".join(text(s.query).split())


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


def detect(facts: FunctionFacts) -> Iterator[Finding]:
    """Counting and first-match loops over a container proved sorted."""
    found, _refused = sorted_scans(facts, facts.root)
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
            data={"container": s.var, "form": s.form, "op": s.op,
                  "search": _SHAPE[(s.op, s.sort.descending)][1]},
            bonus=depth_bonus(lp.depth),
        )


def _uses(nodes: tuple[Node, ...], name: str) -> bool:
    return any(n.type == "identifier" and text(n) == name for b in nodes for n in walk(b))


def _count_lines(s: SortedScan, pos: str) -> list[str]:
    assert s.target is not None
    shape, kind = _SHAPE[(s.op, s.sort.descending)]
    target, op = " ".join(text(s.target).split()), f"{s.sign}="
    v = s.var
    if shape == "prefix":
        return [f"{target} {op} {_search(kind, s)} - {v}.begin();"]
    if shape == "suffix":
        return [f"{target} {op} {v}.end() - {_search(kind, s)};"]
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


def rewrite(inp: RuleInput) -> RuleOutput:
    """Replace each proved scan of a sorted container with a binary search."""
    changes: list[Change] = []
    notes: list[str] = []
    facts = FunctionFacts(inp.site, inp.function, inp.unit)
    found, refused = sorted_scans(facts, inp.unit)
    for r in refused:
        notes.append(f"{RULE_ID}: the scan of '{r.var}' on line {inp.line_of(r.loop.node)} "
                     f"stays linear: {r.why}")
    data, nl = inp.data, newline_of(inp.text)
    for s in found:
        node = s.loop.node
        pos = inp.fresh_name("pos" if s.form == "first" else "run")
        if s.form == "count":
            lines = _count_lines(s, pos)
        else:
            branch = [data[b.start_byte:b.end_byte].decode("utf-8") for b in s.branch]
            lines = _first_lines(s, pos, branch)
        _, indent = line_indent(data, node)
        replacement = f"{nl}{indent}".join(lines)
        includes = ("<algorithm>", "<functional>") if s.sort.descending else ("<algorithm>",)
        lp_line, sort_line = inp.line_of(node), inp.line_of(s.sort.statement)
        changes.append(Change(
            RULE_ID, (Edit(node.start_byte, node.end_byte, replacement, RULE_ID),),
            f"'{s.var}' is sorted at line {sort_line} and unchanged up to the loop at line "
            f"{lp_line}, so the elements with {_test_text(s)} form one run of it: a binary "
            f"search finds it in logarithmic time, with the same "
            f"{'count' if s.form == 'count' else 'first match'}.",
            (lp_line, sort_line), includes=includes))
    return changes, notes


RULE = RuleSpec(
    id=RULE_ID,
    detect=detect,
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
    ),
)
