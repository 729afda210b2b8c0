"""The ordered-map-unneeded rule: a local ``std::map``/``std::set`` used only for lookup and
insertion.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

from perfpilot.code.declarations import VarType
from perfpilot.code.facts import FunctionFacts
from perfpilot.code.syntax import (
    Node,
    node_text,
    operator,
)
from perfpilot.rules.base import Example, RuleSpec
from perfpilot.rules.containers.order_free import order_free_fold
from perfpilot.rules.containers.small_key_map import function_types, small_key_maps
from perfpilot.rules.detect.common import cpp, lines_phrase
from perfpilot.rules.detect.containers import container_uses, local_containers
from perfpilot.rules.edits import Edit
from perfpilot.rules.finding import Finding, Proof, make_finding
from perfpilot.rules.rewrite_input import Left, Planned, RuleInput

_ORDERED = re.compile(r"^(?:std::)?(map|set|multimap|multiset)\s*<\s*(.+)>$", re.S)


# Keys std::hash supports out of the box.
_HASHABLE = re.compile(
    r"^(?:(?:unsigned|signed|const)\s+)*(?:int|long|long long|short|char|bool|size_t|std::size_t|"
    r"u?int(?:8|16|32|64)_t|std::u?int(?:8|16|32|64)_t|unsigned|std::string|string|double|float)$")


# Uses that depend on key order.
_ORDERED_OPS = frozenset({
    "begin", "end", "rbegin", "rend", "cbegin", "cend", "lower_bound", "upper_bound",
    "equal_range", "key_comp", "extract", "merge",
})


@dataclass(frozen=True)
class OrderFree(Proof):
    """A local ordered container ``var`` (``kind``: map, set, multimap, multiset) used only for
    lookups and insertions, with its declarations (one, for the rewrite) and the range-for
    loops over it (each an order-free fold)."""

    var: str
    kind: str
    decls: tuple[Node, ...]
    loops: tuple[Node, ...]


@dataclass(frozen=True)
class _Candidate:
    var: VarType
    kind: str
    methods: frozenset[str]
    lines: tuple[int, ...]
    loops: tuple[Node, ...]


def _candidates(facts: FunctionFacts) -> Iterator[_Candidate]:
    """Local ordered maps and sets with a hashable key, not passed, returned or assigned whole,
    used through no ordered operation (a map small-key-table makes an array is its own)."""
    if not cpp(facts):
        return
    tables = {m.name for m in small_key_maps(facts)[0]}  # small-key-table makes them arrays
    for v in local_containers(facts, _ORDERED):
        m = _ORDERED.match(v.base)
        if m is None or v.name in tables:
            continue
        key = _first_template_arg(m.group(2))
        if key is None or not _HASHABLE.match(key.strip()):
            continue
        use = container_uses(facts, v.name)
        if use.escapes or use.methods & _ORDERED_OPS or not use.lines:
            continue
        loops = _iterations(facts, v.name)
        if use.iterated and not loops:
            continue
        methods = use.methods | ({"operator[]"} if use.subscripted else set())
        yield _Candidate(v, m.group(1), frozenset(methods), tuple(use.lines), tuple(loops))


def _unordered(facts: FunctionFacts, c: _Candidate) -> list[Node]:
    """The loops over the container whose result its visiting order may change: neither a
    plain fold into scalars nor a proved order-free fold."""
    types = function_types(facts)
    return [lp for lp in c.loops
            if not _order_free(facts, lp) and not order_free_fold(lp, c.var.name, types)]


def ordered_map_unneeded(facts: FunctionFacts) -> Iterator[Finding]:
    """A local ``std::map``/``std::set`` used only for lookup and insertion."""
    for c in _candidates(facts):
        if _unordered(facts, c):
            continue
        v, loops = c.var, c.loops
        target = "std::unordered_" + c.kind
        where = lines_phrase(c.lines)
        decls = tuple(d for d in facts.nodes("declaration")
                      if any(x.name == v.name for x in facts.local_vars(d)))
        if not decls:
            continue
        yield make_finding(
            "ordered-map-unneeded",
            f"`{v.name}` (`{v.base}`, line {v.line}) is only used through "
            f"{', '.join(f'`{o}`' for o in sorted(c.methods))} ({where}); nothing needs its "
            f"keys in order, so `{target}` gives O(1) average lookups instead of O(log n) tree "
            f"walks with a pointer chase per level"
            + (f". The loop on line {loops[0].start_point[0] + 1} only aggregates over it; if "
               f"ties must go to the smallest key, compare the keys explicitly there."
               if loops else "."),
            [v.line, *sorted(set(c.lines))[:6]],
            names=[v.name],
            proof=OrderFree(v.name, c.kind, decls, loops),
        )


def _iterations(facts: FunctionFacts, name: str) -> list[Node]:
    return [r for r in facts.nodes("for_range_loop")
            if node_text(r.child_by_field_name("right")) == name]


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


# rewrite


_ORDER_WHY = "it may depend on the order it visits keys in (only integer sums, counts and " \
    "max/min of values are known not to)"


def fix(inp: RuleInput, finding: Finding) -> Planned | Left:
    """The proved ordered map or set becomes its unordered twin.

    Beyond the detection, every loop over it must fold into integer accumulators with
    commutative operations (``+=``, ``++``, ``max``, ``if (e > m) m = e``), so that the
    visiting order cannot change a result (a tie broken by the first key seen can), and
    must not touch the container itself (an insertion may rehash under the iteration).
    """
    proof = finding.proof
    assert isinstance(proof, OrderFree)
    name, kind = proof.var, proof.kind
    unordered = [lp for lp in proof.loops if not order_free_fold(lp, name, inp.types)]
    if unordered:
        return Left(f"the loop over '{name}'", unordered[0], _ORDER_WHY,
                    stays="keeps it ordered")
    decl = proof.decls[0]
    if len(proof.decls) > 1:
        return Left(f"'{name}'", decl, "the function declares that name more than once")
    tnode = decl.child_by_field_name("type")
    if tnode is None or _ORDERED.match(node_text(tnode)) is None:
        return Left(f"'{name}'", decl, f"its type is not written as a plain std::{kind}")
    new_type = re.sub(rf"\b{kind}\s*<", f"unordered_{kind}<", node_text(tnode), count=1)
    header = "<unordered_map>" if "map" in kind else "<unordered_set>"
    return Planned(
        (Edit(tnode.start_byte, tnode.end_byte, new_type, "ordered-map-unneeded"),),
        f"'{name}' (line {inp.line_of(decl)}) is a {kind} used only for lookups and "
        "insertions"
        + (" and order-free integer folds" if proof.loops else "")
        + "; nothing observes its key order, so a hash table gives O(1) average "
        "operations instead of O(log n) tree walks.",
        (tnode,), (header,))


def refused(inp: RuleInput) -> list[str]:
    """Why each candidate the detection did not report, for a loop over it whose result may
    depend on the visiting order, stays ordered."""
    facts = inp.facts
    out: list[str] = []
    for c in _candidates(facts):
        shown = _unordered(facts, c)
        if shown:
            out.append(f"ordered-map-unneeded: '{c.var.name}' is kept ordered: the loop at "
                       f"line {inp.line_of(shown[0])} {_ORDER_WHY}")
    return out


RULE = RuleSpec(
    id="ordered-map-unneeded",
    detect=ordered_map_unneeded,
    fix=fix,
    refused=refused,
    rewrites_as=frozenset({"ordered-map-unneeded"}),
    phase=1,
    order=8,
    examples=(
        Example("cpp", """
#include <map>
#include <vector>
int max_count(const std::vector<int> &v) {
    std::map<int, int> counts;
    for (int x : v) counts[x]++;
    int best = 0, distinct = 0;
    for (const auto &kv : counts) {
        if (kv.second > best) best = kv.second;
        ++distinct;
    }
    return best * 1000 + distinct;
}
""", "max_count"),
        Example("cpp", """
#include <map>
int freq(const int *a, int n) {
    std::map<int, int> cnt;
    for (int i = 0; i < n; ++i) cnt[a[i]]++;
    return cnt.count(7) ? cnt[7] : 0;
}
""", "freq"),
    ),
)
