"""The linear-search-in-loop rule: ``std::find``/``count``/... inside a loop, and nested loops that
compare elements.

Rewrite: A linear search repeated in a loop becomes a binary search over a sorted copy.

``std::find(b.begin(), b.end(), x) != b.end()`` inside a loop over ``n`` items scans all ``m``
elements of ``b`` each time: O(n·m). Sorting a copy of ``b`` once before the loop and asking
``std::binary_search`` makes it O((n + m) log m), and both answer the same membership question
when ``==`` and ``<`` agree on the element type: integers and ``std::string``, looked up with a
value of that same type (mixed types compare after conversions that ``<`` and ``==`` need not
share; floating point has NaN). ``b`` must not change during the loop.

Hand-written forms under the same conditions: a membership scan loop nested in another loop
becomes a lookup in a sorted copy (``code/nested_membership.py``), and a loop over the pairs
``i < j`` of one integer sequence returning a constant at an equal pair or a pair of a given
sum becomes a hash-set pass or a two-pointer walk (``triangle_pairs.py``).
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from perfpilot.code.container_changes import changes_in_loop
from perfpilot.code.declarations import VarType
from perfpilot.code.facts import FunctionFacts, Loop
from perfpilot.code.invariant_scans import scan_starts
from perfpilot.code.loops import LoopFacts, all_loops
from perfpilot.code.nested_membership import (
    NestedScan,
    copy_declaration,
    nested_scan,
    outer_writes_ok,
    replacement,
)
from perfpilot.code.seen_list import seen_lists
from perfpilot.code.sorted_scan import sorted_scans
from perfpilot.code.syntax import (
    Node,
    arguments,
    callee,
    identifiers,
    line,
    node_text,
    operator,
    receiver,
    root_name,
    statements,
    unwrap,
    walk,
)
from perfpilot.rules.base import Example, RuleSpec
from perfpilot.rules.detect.common import code, cpp, loop_phrase, rng
from perfpilot.rules.edits import Edit
from perfpilot.rules.finding import Finding, depth_bonus, make_finding
from perfpilot.rules.rewrite_input import (
    Change,
    RuleInput,
    RuleOutput,
    insertion_before,
    left_findings,
    loop_node,
    statement_slot_ok,
)
from perfpilot.rules.search.triangle_pairs import replacement as pair_replacement
from perfpilot.rules.search.triangle_pairs import triangle_pairs

RULE_ID = "linear-search-in-loop"
_FIND = {"std::find", "find"}
_STRING = {"std::string", "string"}
_AT_LEAST_INT = {"int", "long", "long long", "unsigned", "unsigned int", "unsigned long",
                 "unsigned long long"}

# Free functions that scan a whole range each time they are called.
LINEAR_SCANS = frozenset({
    "find", "find_if", "find_if_not", "count", "count_if", "min_element", "max_element",
    "accumulate", "any_of", "all_of", "none_of", "search", "lfind", "strstr",
})



def _norm(text: str) -> str:
    text = re.sub(r"\bconst\b|&", "", text)
    return " ".join(text.split()).replace("< ", "<").replace(" >", ">")


def _element(vt: VarType | None) -> str | None:
    """The element type of a ``std::vector`` or ``std::string`` variable, when searchable."""
    if vt is None or vt.pointer or vt.array:
        return None
    base = _norm(vt.base)
    if base in _STRING:
        return "char"
    m = re.fullmatch(r"(?:std::)?vector<(.+)>", base)
    if m is None:
        return None
    elem = _norm(m.group(1))
    return elem if VarType(elem).is_integral or elem in _STRING else None


def _same(a: str, b: str) -> bool:
    return _norm(a).removeprefix("std::") == _norm(b).removeprefix("std::")


def _range_var(loop: Node, types: dict[str, VarType | None]) -> tuple[str, str] | None:
    """``(name, type)`` of a range-for's variable (``auto`` resolved through the range)."""
    if loop.type != "for_range_loop":
        return None
    type_node = loop.child_by_field_name("type")
    decl = loop.child_by_field_name("declarator")
    rng = loop.child_by_field_name("right")
    if type_node is None or decl is None or rng is None:
        return None
    name = node_text(decl).lstrip("&* ").strip()
    if not re.fullmatch(r"[A-Za-z_]\w*", name):
        return None
    declared = _norm(node_text(type_node))
    if declared == "auto":
        elem = _element(types.get(node_text(rng))) if rng.type == "identifier" else None
        return (name, elem) if elem is not None else None
    return name, declared


def _value_type(node: Node, types: dict[str, VarType | None],
                loop_vars: dict[str, str]) -> str | None:
    """The type of the looked-up value: a variable, or an element of a searchable container."""
    if node.type == "identifier":
        name = node_text(node)
        if name in loop_vars:
            return loop_vars[name]
        vt = types.get(name)
        return _norm(vt.base) if vt is not None and not vt.pointer and not vt.array else None
    if node.type == "subscript_expression":
        arg = node.child_by_field_name("argument")
        if arg is not None and arg.type == "identifier":
            return _element(types.get(node_text(arg)))
    if node.type == "number_literal" and re.fullmatch(r"\d+", node_text(node)):
        return "int"
    if node.type == "cast_expression":
        type_node = node.child_by_field_name("type")
        return _norm(node_text(type_node)) if type_node is not None else None
    if node.type == "parenthesized_expression" and node.named_child_count == 1:
        inner = node.named_children[0]
        return _value_type(inner, types, loop_vars) if inner is not None else None
    if node.type == "binary_expression":
        op = node.child_by_field_name("operator")
        left = node.child_by_field_name("left")
        right = node.child_by_field_name("right")
        if op is None or left is None or right is None or node_text(op) not in ("+", "-", "*"):
            return None
        lt, rt = _value_type(left, types, loop_vars), _value_type(right, types, loop_vars)
        # Same-type arithmetic at int rank or above keeps the type; narrower types promote.
        if lt is not None and lt == rt and lt in _AT_LEAST_INT:
            return lt
    return None


def _bounds(call: Node) -> tuple[str, Node] | None:
    """``(b, x)`` for ``find(b.begin(), b.end(), x)``."""
    fn = call.child_by_field_name("function")
    args = call.child_by_field_name("arguments")
    if fn is None or args is None or node_text(fn) not in _FIND or args.named_child_count != 3:
        return None
    first, last, value = args.named_children
    if first is None or last is None or value is None:
        return None
    m1 = re.fullmatch(r"([A-Za-z_]\w*)\.c?begin\(\)", "".join(node_text(first).split()))
    m2 = re.fullmatch(r"([A-Za-z_]\w*)\.c?end\(\)", "".join(node_text(last).split()))
    if m1 is None or m2 is None or m1.group(1) != m2.group(1):
        return None
    return m1.group(1), value


def linear_search_rule(inp: RuleInput) -> RuleOutput:
    """Replace repeated ``std::find`` membership tests in a loop with a binary search."""
    changes: list[Change] = []
    notes: list[str] = []
    types = dict(inp.types)
    claimed: set[int] | None = None
    for lp in all_loops(inp.loops):
        pairs = _pair_change(inp, lp, types, notes) if inp.language == "cpp" else None
        if pairs is not None:
            changes.append(pairs)
            continue
        if lp.depth:
            continue  # the outermost loop: the copy is made once per call
        loop = loop_node(inp, lp)
        if loop is None:
            continue
        loop_vars = dict(filter(None, (_range_var(n, types) for n in walk(loop))))
        tests: dict[str, list[tuple[Node, Node, bool]]] = {}
        for call in walk(loop):
            if call.type != "call_expression":
                continue
            found = _bounds(call)
            parent = call.parent
            if found is None or parent is None or parent.type != "binary_expression":
                continue
            b, value = found
            op = parent.child_by_field_name("operator")
            other = parent.child_by_field_name("right") if parent.child_by_field_name(
                "left") == call else parent.child_by_field_name("left")
            if op is None or other is None or node_text(op) not in ("!=", "==") or \
                    "".join(node_text(other).split()) not in (f"{b}.end()", f"{b}.cend()"):
                continue
            if claimed is None:
                # a seen list proved by the seen-list-set rule gets a hash set beside it
                claimed = {s.search.start_byte for s in seen_lists(inp.facts, inp.unit)[0]}
                # a search proved invariant is computed once before the loop instead
                claimed |= scan_starts(inp.facts)
            if call.start_byte in claimed:
                continue
            tests.setdefault(b, []).append((parent, value, node_text(op) == "!="))
        for b, found_tests in tests.items():
            line = inp.line_of(found_tests[0][0])
            b_type = types.get(b)
            elem = _element(b_type)
            if b_type is None or elem is None or b in lp.locals:
                notes.append(f"{RULE_ID}: the search of '{b}' on line {line} stays: its elements "
                             "are not integers or strings, or it is made inside the loop")
                continue
            if any(t is None or not _same(t, elem) for t in
                   (_value_type(v, types, loop_vars) for _, v, _ in found_tests)):
                notes.append(f"{RULE_ID}: the search of '{b}' on line {line} stays: the value "
                             "looked up is not known to have the element type")
                continue
            why = changes_in_loop(loop, b, b_type, types)
            if why:
                notes.append(f"{RULE_ID}: the search of '{b}' on line {line} stays: {why}")
                continue
            if not statement_slot_ok(loop):
                continue
            name = inp.fresh_name(f"{b}_sorted")
            edits = [
                insertion_before(inp, loop, f"auto {name} = {b};", RULE_ID, order=-20),
                insertion_before(inp, loop, f"std::sort({name}.begin(), {name}.end());", RULE_ID,
                                 order=-19),
            ]
            for test, value, present in found_tests:
                search = f"std::binary_search({name}.begin(), {name}.end(), {node_text(value)})"
                edits.append(Edit(test.start_byte, test.end_byte,
                                  search if present else f"!{search}", RULE_ID))
            changes.append(Change(
                RULE_ID, tuple(edits),
                f"The loop at line {lp.line} searches '{b}' from end to end with std::find on "
                f"every iteration (time proportional to its length each time); sorting a copy "
                f"of '{b}' once before the loop and using std::binary_search answers the same "
                "question in logarithmic time.", (lp.line, line),
                includes=("<algorithm>",)))  # std::sort, std::binary_search
        if inp.language == "cpp":  # the copies are std::vector
            changes.extend(_nested_changes(inp, lp, loop, types, loop_vars, notes))
    notes += left_findings(
        inp, RULE_ID, linear_search_in_loop(inp.facts), changes, notes,
        "the rewrite proves a sorted copy and a binary search equal only for membership "
        "tests (std::find compared with end(), a scan for an equal element) of integers or "
        "strings in a container the loop never changes; C has no std::sort" if
        inp.language == "c" else
        "the rewrite proves a sorted copy and a binary search equal only for membership "
        "tests (std::find compared with end(), a scan for an equal element) of integers or "
        "strings in a container the loop never changes")
    return changes, notes


def _pointee(node: Node, types: dict[str, VarType | None]) -> str | None:
    """The integer type of ``p[k]`` for a pointer or array ``p`` of integers."""
    if node.type != "subscript_expression":
        return None
    arg = node.child_by_field_name("argument")
    vt = types.get(node_text(arg)) if arg is not None and arg.type == "identifier" else None
    if vt is None or vt.pointer + int(vt.array) != 1 or not VarType(_norm(vt.base)).is_integral:
        return None
    return _norm(vt.base)


def _pair_change(inp: RuleInput, lp: LoopFacts, types: dict[str, VarType | None],
                 notes: list[str]) -> Change | None:
    """A loop over the pairs ``i < j`` of one integer sequence that returns a constant at the
    first equal pair or pair of a given sum, answered on a sorted copy (see ``triangle_pairs``
    for the shapes and why overflow cannot differ)."""
    loop = loop_node(inp, lp)
    if loop is None:
        return None
    found, why = triangle_pairs(loop, types)
    if found is None:
        if why:
            notes.append(f"{RULE_ID}: the pair loop on line {lp.line} stays: {why}")
        return None
    fresh = {k: inp.fresh_name(k if k != "s" else
                               f"{found.seq}_{'sorted' if found.target else 'seen'}")
             for k in ("s", "lo", "hi", "sum", "v")}
    what = "two equal elements" if not found.target else f"two elements summing to " \
        f"'{found.target}'"
    return Change(
        RULE_ID, (Edit(loop.start_byte, loop.end_byte, pair_replacement(found, fresh),
                       RULE_ID),),
        f"The loops at line {lp.line} compare every pair of '{found.seq}' looking for {what} "
        "(quadratic time); "
        + ("one pass through a hash set stops at the first repeated value" if not found.target
           else "sorting a copy once and walking it from both ends answers the same question "
           "in O(n log n)") + ".", (lp.line,),
        includes=("<unordered_set>",) if not found.target else ("<algorithm>", "<vector>"))


def _key_has_element_type(scan: NestedScan, types: dict[str, VarType | None],
                          loop_vars: dict[str, str]) -> bool:
    """Whether the compared value has the scanned elements' type (so ``<`` and ``==`` agree)."""
    key_type = _value_type(scan.key, types, loop_vars) or _pointee(scan.key, types)
    return key_type is not None and _same(key_type, scan.elem)


def _nested_changes(inp: RuleInput, lp: LoopFacts, loop: Node, types: dict[str, VarType | None],
                    loop_vars: dict[str, str], notes: list[str]) -> list[Change]:
    """Hand-written membership scans nested in ``loop`` become lookups in a sorted copy made
    once before it (see ``nested_membership`` for the shapes and why they agree)."""
    groups: dict[tuple[str, str], list[NestedScan]] = {}
    found: list[NestedScan] = []
    for inner in walk(loop):
        if inner == loop or inner.type not in ("for_statement", "for_range_loop"):
            continue
        scan, why = nested_scan(inner, types)
        if scan is not None:
            found.append(scan)
        elif why:
            notes.append(f"{RULE_ID}: the scan on line {inp.line_of(inner)} stays: {why}")
    if found:
        # a scan of data proved sorted is the sorted-linear-scan rule's
        sorted_loops = {s.loop.node.start_byte for s in sorted_scans(inp.facts, inp.unit)[0]}
        found = [s for s in found if s.loop.start_byte not in sorted_loops]
    # a range-for scan only reads its range: its 'b' is no write
    reading = frozenset(s.loop.start_byte for s in found)
    for scan in found:
        where = f"the scan on line {inp.line_of(scan.loop)} stays"
        if scan.seq in lp.locals or scan.seq in inp.facts.declared_in(loop):
            notes.append(f"{RULE_ID}: {where}: '{scan.seq}' is made inside the loop")
            continue
        if not _key_has_element_type(scan, types, loop_vars):
            notes.append(f"{RULE_ID}: {where}: the value compared is not known to have the "
                         "element type")
            continue
        b_type = types.get(scan.seq)
        why = outer_writes_ok(loop, scan, types) or (
            changes_in_loop(loop, scan.seq, b_type, types, reading)
            if b_type is not None and not scan.bound else "")
        if why:
            notes.append(f"{RULE_ID}: {where}: {why}")
            continue
        groups.setdefault((scan.seq, scan.bound), []).append(scan)
    if not groups or not statement_slot_ok(loop):
        return []
    changes = []
    for (b, _), scans in groups.items():
        name = inp.fresh_name(f"{b}_sorted")
        edits = [
            insertion_before(inp, loop, copy_declaration(scans[0], name), RULE_ID, order=-18),
            insertion_before(inp, loop, f"std::sort({name}.begin(), {name}.end());", RULE_ID,
                             order=-17),
        ]
        edits += [Edit(s.loop.start_byte, s.loop.end_byte, replacement(s, name), RULE_ID)
                  for s in scans]
        lines = tuple(inp.line_of(s.loop) for s in scans)
        changes.append(Change(
            RULE_ID, tuple(edits),
            f"The loop at line {lp.line} scans '{b}' element by element for each of its "
            f"iterations (line {lines[0]}); sorting a copy of '{b}' once before the loop and "
            "searching it in logarithmic time gives the same matches.", (lp.line, *lines),
            includes=("<algorithm>", "<vector>")))
    return changes


# detection


def _scanned_container(call: Node) -> str | None:
    args = arguments(call)
    if not args:
        return None
    first = args[0]
    if first.type == "call_expression" and callee(first) in ("begin", "cbegin"):
        r = receiver(first)
        if r is not None:
            return root_name(r)
        inner = arguments(first)
        return root_name(inner[0]) if inner else None
    return root_name(first)


def linear_search_in_loop(facts: FunctionFacts) -> Iterator[Finding]:
    """``std::find``/``count``/... inside a loop, and nested loops that compare elements."""
    yield from _scan_calls(facts)
    yield from _nested_compare(facts)
    yield from _pair_sums(facts)


def _pair_sums(facts: FunctionFacts) -> Iterator[Finding]:
    """Loops over the pairs ``i < j`` looking for two elements of a given sum (the equal-pair
    test is a nested comparison, found above)."""
    if not cpp(facts):
        return
    types = facts.loop_types
    for lp in facts.loops:
        found, _ = triangle_pairs(lp.node, types)
        if found is None or not found.target:
            continue
        yield make_finding(
            "linear-search-in-loop",
            f"{loop_phrase(lp)} tries every pair of `{found.seq}` for two elements summing to "
            f"`{found.target}`, O(n²) additions; sort a copy once and walk it from both ends "
            "(O(n log n)).",
            [lp.line], loop_range=lp.byte_range, node_range=rng(lp.node),
            names=[found.seq, found.target],
            data={"form": "pair-sum", "container": found.seq},
            bonus=depth_bonus(lp.depth + 1),
        )


def _scan_calls(facts: FunctionFacts) -> Iterator[Finding]:
    # A call that a more specific rule of this category rewrites (a binary search on sorted
    # data, a hash set beside a seen list, a table of counts, a value computed once) is
    # claimed by that rule's finding, and ranking drops this one.
    for call in facts.in_loops("call_expression"):
        name = callee(call)
        if name not in LINEAR_SCANS or receiver(call) is not None:
            continue
        if name != "strstr" and len(arguments(call)) < 2:
            continue
        loop = facts.loop_of(call)
        if loop is None:
            continue
        container = _scanned_container(call)
        what = f"`{container}`" if container else "the range"
        if name == "strstr":
            fix = "search once before the loop, or use a precomputed index of the text"
        elif name in ("count", "count_if") and cpp(facts):
            fix = (f"count the values of {what} once before the loop into a "
                   f"`std::unordered_map` (or sort it once and use `std::equal_range`) so each "
                   f"query is O(1) or O(log n)")
        elif name in ("find", "find_if", "count", "count_if", "any_of", "none_of", "all_of"):
            fix = (f"build a `std::unordered_set` (or a sorted copy with `std::binary_search`) "
                   f"from {what} once before the loop so each lookup is O(1) or O(log n)"
                   if cpp(facts) else "sort the data once and use `bsearch`, or index it")
        else:
            fix = "maintain the running result across iterations instead of rescanning"
        yield make_finding(
            "linear-search-in-loop",
            f"`{code(call)}` on line {line(call)} scans {what} linearly on every iteration of "
            f"{loop_phrase(loop)}, so the loop does O(n·m) work: {fix}.",
            [line(call), loop.line],
            loop_range=loop.byte_range, node_range=rng(call),
            names=[n for n in (name, container) if n],
            data={"form": "call", "call": name, "container": container or ""},
            bonus=depth_bonus(loop.depth),
        )


def _nested_compare(facts: FunctionFacts) -> Iterator[Finding]:
    # As for _scan_calls: an inner loop a more specific rule rewrites is claimed by its finding.
    for inner in facts.loops:
        if inner.parent is None or inner.kind not in ("for", "range-for"):
            continue
        outer = facts.loops[inner.parent]
        ivar = inner.var or _range_for_var(inner)
        if ivar is None:
            continue
        hit = _equality_test(facts, inner, ivar)
        if hit is None:
            continue
        cmp_node, searched, key = hit
        if not _varies_with(facts, outer, inner, key):
            continue  # the same search on every outer iteration: a loop-invariant result
        fix = ("insert the elements into a `std::unordered_set`/`std::unordered_map` (or sort "
               "once and binary-search) so each lookup is O(1) or O(log n)" if cpp(facts) else
               "sort once (`qsort`) and binary-search (`bsearch`), or use a hash table")
        yield make_finding(
            "linear-search-in-loop",
            f"{loop_phrase(inner)} is a linear search nested in {loop_phrase(outer)}: it tests "
            f"`{code(cmp_node)}` (line {line(cmp_node)}) against every element of "
            f"`{searched}`, O(n²) comparisons in total; {fix}.",
            [line(cmp_node), inner.line, outer.line],
            loop_range=outer.byte_range, node_range=rng(inner.node),
            names=[ivar, searched],
            data={"form": "nested-loop", "inner_var": ivar, "container": searched},
            bonus=depth_bonus(inner.depth) - 0.02,
        )


def _range_for_var(loop: Loop) -> str | None:
    if loop.kind != "range-for":
        return None
    decl = loop.node.child_by_field_name("declarator")
    names = identifiers(decl)
    return next(iter(names)) if len(names) == 1 else None


def _varies_with(facts: FunctionFacts, outer: Loop, inner: Loop, key: Node) -> bool:
    """Whether the searched-for ``key`` may differ between iterations of ``outer``."""
    changed = (facts.modified_in(outer.node) | facts.declared_in(outer.node)) - \
        facts.declared_in(inner.node)
    if outer.var is not None:
        changed |= {outer.var}
    return bool(identifiers(key) & changed)


def _equality_test(facts: FunctionFacts, loop: Loop, var: str
                   ) -> tuple[Node, str, Node] | None:
    """An ``if (x[var] == key)`` in the loop's own body (not in a deeper loop)."""
    for stmt in statements(loop.body):
        if stmt.type != "if_statement":
            continue
        cond = unwrap(stmt.child_by_field_name("condition"))
        if cond is None:
            continue
        for b in walk(cond, named=True):
            if b.type != "binary_expression" or operator(b) != "==":
                continue
            left, right = b.child_by_field_name("left"), b.child_by_field_name("right")
            for side, other in ((left, right), (right, left)):
                searched = _indexed_by(side, var, loop)
                if searched and other is not None and var not in identifiers(other):
                    return b, searched, other
    return None


def _indexed_by(node: Node | None, var: str, loop: Loop) -> str | None:
    if node is None:
        return None
    if node.type == "subscript_expression":
        idx = node.child_by_field_name("indices") or node.child_by_field_name("index")
        if node_text(idx).strip("[] ") == var:
            return root_name(node)
    if node.type == "field_expression":
        return _indexed_by(node.child_by_field_name("argument"), var, loop)
    if node.type == "identifier" and node_text(node) == var and loop.kind == "range-for":
        right = loop.node.child_by_field_name("right")
        return root_name(right) if right is not None else None
    return None


RULE = RuleSpec(
    id=RULE_ID,
    detect=linear_search_in_loop,
    rewrite=linear_search_rule,
    rewrites_as=frozenset({"linear-search-in-loop"}),
    phase=2,
    order=-1,  # before the size hoist, which would turn a scan's `b.size()` into a name
    examples=(
        Example("cpp", """
#include <algorithm>
#include <vector>
int hits(const std::vector<int> &seen, int n) {
    int c = 0;
    for (int i = 0; i < n; ++i) {
        if (std::find(seen.begin(), seen.end(), i) != seen.end()) c++;
    }
    return c;
}
""", "hits"),
    ),
)
