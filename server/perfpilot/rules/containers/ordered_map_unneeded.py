"""The ordered-map-unneeded rule: a local ``std::map``/``std::set`` used only for lookup and
insertion.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from perfpilot.code.declarations import declared_vars
from perfpilot.code.facts import FunctionFacts
from perfpilot.code.syntax import (
    Node,
    node_text,
    operator,
    walk,
)
from perfpilot.rules.base import Example, RuleSpec
from perfpilot.rules.containers.order_free import order_free_fold
from perfpilot.rules.containers.small_key_map import small_key_maps
from perfpilot.rules.detect.common import cpp, lines_phrase
from perfpilot.rules.detect.containers import container_uses, local_containers
from perfpilot.rules.edits import Edit
from perfpilot.rules.finding import Finding, make_finding
from perfpilot.rules.rewrite_input import Change, RuleInput, RuleOutput

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


def ordered_map_unneeded(facts: FunctionFacts) -> Iterator[Finding]:
    """A local ``std::map``/``std::set`` used only for lookup and insertion."""
    if not cpp(facts):
        return
    tables = {m.name for m in small_key_maps(facts)[0]}  # small-key-table makes them arrays
    for v in local_containers(facts, _ORDERED):
        m = _ORDERED.match(v.base)
        if m is None or v.name in tables:
            continue
        kind = m.group(1)
        key = _first_template_arg(m.group(2))
        if key is None or not _HASHABLE.match(key.strip()):
            continue
        use = container_uses(facts, v.name)
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


def ordered_map_rule(inp: RuleInput) -> RuleOutput:
    """A local ordered map or set whose order nothing can observe becomes its unordered twin.

    A map that small-key-table proves an array can replace (a one-byte key) is left to it.
    Beyond the detection (local, hashable key, no ordered operation, never passed, returned
    or assigned whole), every loop over it must fold into integer accumulators with
    commutative operations (``+=``, ``++``, ``max``, ``if (e > m) m = e``), so that the
    visiting order cannot change a result (a tie broken by the first key seen can), and
    must not touch the container itself (an insertion may rehash under the iteration).
    """
    changes: list[Change] = []
    notes: list[str] = []
    if inp.language != "cpp":
        return changes, notes
    facts = inp.facts
    tables = {m.name for m in small_key_maps(facts, inp.types)[0]}
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
        unordered = [lp for lp in loops if not order_free_fold(lp, v.name, inp.types)]
        if unordered:
            notes.append(f"ordered-map-unneeded: '{v.name}' is kept ordered: the loop at line "
                         f"{inp.line_of(unordered[0])} may depend on the order it visits keys "
                         "in (only integer sums, counts and max/min of values are known not to)")
            continue
        decl = _declaration(inp, v.name)
        tnode = decl.child_by_field_name("type") if decl is not None else None
        if tnode is None or _ORDERED.match(node_text(tnode)) is None:
            continue
        written = node_text(tnode)
        kind = m.group(1)
        new_type = re.sub(rf"\b{kind}\s*<", f"unordered_{kind}<", written, count=1)
        header = "<unordered_map>" if "map" in kind else "<unordered_set>"
        changes.append(Change(
            "ordered-map-unneeded",
            (Edit(tnode.start_byte, tnode.end_byte, new_type, "ordered-map-unneeded"),),
            f"'{v.name}' (line {inp.line_of(decl) if decl else v.line}) is a {kind} used "
            "only for lookups and insertions"
            + (" and order-free integer folds" if loops else "")
            + "; nothing observes its key order, so a hash table gives O(1) average "
            "operations instead of O(log n) tree walks.",
            (inp.line_of(tnode),), (header,)))
    return changes, notes


def _declaration(inp: RuleInput, name: str) -> Node | None:
    found = [d for d in walk(inp.function) if d.type == "declaration" and any(
        v.name == name for v in declared_vars(d, "local"))]
    return found[0] if len(found) == 1 else None


RULE = RuleSpec(
    id="ordered-map-unneeded",
    detect=ordered_map_unneeded,
    rewrite=ordered_map_rule,
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
