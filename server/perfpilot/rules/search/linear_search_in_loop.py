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
from dataclasses import dataclass, replace

from perfpilot.code.container_changes import changes_in_loop
from perfpilot.code.declarations import VarType, declared_types, top_level_types
from perfpilot.code.facts import FunctionFacts, Loop
from perfpilot.code.invariant_scans import scan_starts
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
from perfpilot.rules.by_finding import by_finding
from perfpilot.rules.detect.common import code, cpp, loop_phrase, rng
from perfpilot.rules.edits import Edit
from perfpilot.rules.finding import Finding, Proof, depth_bonus, make_finding
from perfpilot.rules.rewrite_input import (
    Left,
    Planned,
    RuleInput,
    RuleOutput,
    insertion_before,
    left_note,
    statement_slot_ok,
)
from perfpilot.rules.search.triangle_pairs import TrianglePairs, triangle_pairs
from perfpilot.rules.search.triangle_pairs import replacement as pair_replacement

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


# the proved rewrites (what the fix acts on)


@dataclass(frozen=True)
class PairSite(Proof):
    """A loop over the pairs ``i < j`` of one integer sequence that returns a constant at the
    first equal pair or pair of a given sum (``triangle_pairs.py``)."""

    loop: Node
    found: TrianglePairs


@dataclass(frozen=True)
class FindSite(Proof):
    """The ``std::find`` membership tests of one container in an outermost loop that never
    changes it: each ``(comparison with end(), value looked up, present)``, and the calls."""

    loop: Node
    container: str
    tests: tuple[tuple[Node, Node, bool], ...]
    calls: tuple[Node, ...]


@dataclass(frozen=True)
class NestedSite(Proof):
    """Hand-written membership scans of one sequence nested in an outermost loop
    (``code/nested_membership.py``), looked up in one sorted copy made before it."""

    loop: Node
    container: str
    scans: tuple[NestedScan, ...]


@dataclass(frozen=True)
class Refused(Proof):
    """A candidate the proof refuses: what it is in words, its node, why; ``covers``: the
    nodes (calls, loops) whose findings it answers."""

    what: str
    node: Node
    why: str
    covers: tuple[Node, ...]


@dataclass(frozen=True)
class Unproved(Proof):
    """A linear search detection advises but no rewrite proves equal: its node and why."""

    node: Node
    why: str


Site = PairSite | FindSite | NestedSite | Refused


def _covers(site: Site) -> tuple[Node, ...]:
    if isinstance(site, PairSite):
        return (site.loop,)
    if isinstance(site, FindSite):
        return site.calls
    if isinstance(site, NestedSite):
        return tuple(sc.loop for sc in site.scans)
    return site.covers


def _sites(facts: FunctionFacts) -> list[Site]:
    """The function's proved rewrites and refused candidates, in source order of their loops:
    pair loops, then per outermost loop its ``std::find`` tests and its nested scans."""
    if facts.body is None or not facts.loops:
        return []
    types = {**top_level_types(facts.unit), **declared_types(facts.fn)}
    sites: list[Site] = []
    claimed: set[int] | None = None
    cpp_only = facts.language == "cpp"
    for lp in facts.loops:  # outer before inner, in source order
        loop = lp.node
        if cpp_only:
            found, why = triangle_pairs(loop, types)
            if found is not None:
                sites.append(PairSite(loop, found))
                continue
            if why:
                sites.append(Refused("the pair loop", loop, why, (loop,)))
        if lp.parent is not None:
            continue  # the outermost loop: the copy is made once per call
        loop_vars = dict(filter(None, (_range_var(n, types) for n in walk(loop))))
        tests: dict[str, list[tuple[Node, Node, bool, Node]]] = {}
        for call in walk(loop):
            if call.type != "call_expression":
                continue
            bounds = _bounds(call)
            parent = call.parent
            if bounds is None or parent is None or parent.type != "binary_expression":
                continue
            b, value = bounds
            op = parent.child_by_field_name("operator")
            other = parent.child_by_field_name("right") if parent.child_by_field_name(
                "left") == call else parent.child_by_field_name("left")
            if op is None or other is None or node_text(op) not in ("!=", "==") or \
                    "".join(node_text(other).split()) not in (f"{b}.end()", f"{b}.cend()"):
                continue
            if claimed is None:
                # a seen list proved by the seen-list-set rule gets a hash set beside it
                claimed = {x.search.start_byte for x in seen_lists(facts, facts.unit)[0]}
                # a search proved invariant is computed once before the loop instead
                claimed |= scan_starts(facts)
            if call.start_byte in claimed:
                continue
            tests.setdefault(b, []).append((parent, value, node_text(op) == "!=", call))
        for b, found_tests in tests.items():
            calls = tuple(t[3] for t in found_tests)
            first = found_tests[0][0]
            b_type = types.get(b)
            elem = _element(b_type)
            why = ""
            if b_type is None or elem is None or b in facts.declared_in(loop):
                why = ("its elements are not integers or strings, or it is made inside the "
                       "loop")
            elif any(t is None or not _same(t, elem) for t in
                     (_value_type(v, types, loop_vars) for _, v, _, _ in found_tests)):
                why = "the value looked up is not known to have the element type"
            else:
                why = changes_in_loop(loop, b, b_type, types)
            if why:
                sites.append(Refused(f"the search of '{b}'", first, why, calls))
            elif statement_slot_ok(loop):
                sites.append(FindSite(loop, b, tuple(t[:3] for t in found_tests), calls))
        if cpp_only:  # the copies are std::vector
            sites += _nested_sites(facts, loop, types, loop_vars)
    return sites


def _nested_sites(facts: FunctionFacts, loop: Node, types: dict[str, VarType | None],
                  loop_vars: dict[str, str]) -> list[Site]:
    """Hand-written membership scans nested in ``loop``, grouped by the sequence they scan
    (see ``nested_membership`` for the shapes and why they agree), and those refused."""
    out: list[Site] = []
    groups: dict[tuple[str, str], list[NestedScan]] = {}
    found: list[NestedScan] = []
    for inner in walk(loop):
        if inner == loop or inner.type not in ("for_statement", "for_range_loop"):
            continue
        scan, why = nested_scan(inner, types)
        if scan is not None:
            found.append(scan)
        elif why:
            out.append(Refused("the scan", inner, why, (inner,)))
    if found:
        # a scan of data proved sorted is the sorted-linear-scan rule's
        sorted_loops = {x.loop.node.start_byte for x in sorted_scans(facts, facts.unit)[0]}
        found = [x for x in found if x.loop.start_byte not in sorted_loops]
    # a range-for scan only reads its range: its 'b' is no write
    reading = frozenset(x.loop.start_byte for x in found)
    for scan in found:
        if scan.seq in facts.declared_in(loop):
            out.append(Refused("the scan", scan.loop, f"'{scan.seq}' is made inside the loop",
                               (scan.loop,)))
            continue
        if not _key_has_element_type(scan, types, loop_vars):
            out.append(Refused("the scan", scan.loop, "the value compared is not known to "
                               "have the element type", (scan.loop,)))
            continue
        b_type = types.get(scan.seq)
        why = outer_writes_ok(loop, scan, types) or (
            changes_in_loop(loop, scan.seq, b_type, types, reading)
            if b_type is not None and not scan.bound else "")
        if why:
            out.append(Refused("the scan", scan.loop, why, (scan.loop,)))
            continue
        groups.setdefault((scan.seq, scan.bound), []).append(scan)
    if groups and statement_slot_ok(loop):
        out += [NestedSite(loop, b, tuple(scans)) for (b, _), scans in groups.items()]
    return out


# rewrite


def _general_why(facts: FunctionFacts) -> str:
    why = ("the rewrite proves a sorted copy and a binary search equal only for membership "
           "tests (std::find compared with end(), a scan for an equal element) of integers or "
           "strings in a container the loop never changes")
    return why + "; C has no std::sort" if facts.language == "c" else why


def linear_search_fix(inp: RuleInput, finding: Finding) -> Planned | Left:
    """The proved rewrite of the finding, or why it stays."""
    proof = finding.proof
    if isinstance(proof, PairSite):
        return _pair_fix(inp, proof)
    if isinstance(proof, FindSite):
        return _find_fix(inp, proof)
    if isinstance(proof, NestedSite):
        return _nested_fix(inp, proof)
    if isinstance(proof, Refused):
        return Left(proof.what, proof.node, proof.why)
    assert isinstance(proof, Unproved)
    return Left("", proof.node, proof.why)


def linear_search_rule(inp: RuleInput) -> RuleOutput:
    """Each finding fixed (``linear_search_fix``), and a note for each candidate the proof
    refused that no finding names."""
    sites = _sites(inp.facts)
    findings = list(_findings(inp.facts, sites))
    changes, notes = by_finding(lambda _facts: findings, linear_search_fix)(inp)
    named = {id(f.proof) for f in findings}
    notes += [left_note(inp, RULE_ID, Left(x.what, x.node, x.why)) for x in sites
              if isinstance(x, Refused) and id(x) not in named]
    return changes, notes


def _find_fix(inp: RuleInput, site: FindSite) -> Planned:
    """A sorted copy of the container before the loop; each test a binary search in it."""
    b, loop = site.container, site.loop
    name = inp.fresh_name(f"{b}_sorted")
    edits = [
        insertion_before(inp, loop, f"auto {name} = {b};", RULE_ID, order=-20),
        insertion_before(inp, loop, f"std::sort({name}.begin(), {name}.end());", RULE_ID,
                         order=-19),
    ]
    for test, value, present in site.tests:
        search = f"std::binary_search({name}.begin(), {name}.end(), {node_text(value)})"
        edits.append(Edit(test.start_byte, test.end_byte,
                          search if present else f"!{search}", RULE_ID))
    return Planned(
        tuple(edits),
        f"The loop at line {inp.line_of(loop)} searches '{b}' from end to end with std::find "
        f"on every iteration (time proportional to its length each time); sorting a copy "
        f"of '{b}' once before the loop and using std::binary_search answers the same "
        "question in logarithmic time.", (loop, site.tests[0][0]),
        ("<algorithm>",))  # std::sort, std::binary_search


def _pointee(node: Node, types: dict[str, VarType | None]) -> str | None:
    """The integer type of ``p[k]`` for a pointer or array ``p`` of integers."""
    if node.type != "subscript_expression":
        return None
    arg = node.child_by_field_name("argument")
    vt = types.get(node_text(arg)) if arg is not None and arg.type == "identifier" else None
    if vt is None or vt.pointer + int(vt.array) != 1 or not VarType(_norm(vt.base)).is_integral:
        return None
    return _norm(vt.base)


def _pair_fix(inp: RuleInput, site: PairSite) -> Planned:
    """The pair loop answered on a sorted copy or with a hash set (see ``triangle_pairs`` for
    the shapes and why overflow cannot differ)."""
    found, loop = site.found, site.loop
    fresh = {k: inp.fresh_name(k if k != "s" else
                               f"{found.seq}_{'sorted' if found.target else 'seen'}")
             for k in ("s", "lo", "hi", "sum", "v")}
    what = "two equal elements" if not found.target else f"two elements summing to " \
        f"'{found.target}'"
    return Planned(
        (Edit(loop.start_byte, loop.end_byte, pair_replacement(found, fresh), RULE_ID),),
        f"The loops at line {inp.line_of(loop)} compare every pair of '{found.seq}' looking "
        f"for {what} (quadratic time); "
        + ("one pass through a hash set stops at the first repeated value" if not found.target
           else "sorting a copy once and walking it from both ends answers the same question "
           "in O(n log n)") + ".", (loop,),
        ("<unordered_set>",) if not found.target else ("<algorithm>", "<vector>"))


def _key_has_element_type(scan: NestedScan, types: dict[str, VarType | None],
                          loop_vars: dict[str, str]) -> bool:
    """Whether the compared value has the scanned elements' type (so ``<`` and ``==`` agree)."""
    key_type = _value_type(scan.key, types, loop_vars) or _pointee(scan.key, types)
    return key_type is not None and _same(key_type, scan.elem)


def _nested_fix(inp: RuleInput, site: NestedSite) -> Planned:
    """A sorted copy of the scanned sequence before the loop; each scan a lookup in it."""
    b, loop, scans = site.container, site.loop, site.scans
    name = inp.fresh_name(f"{b}_sorted")
    edits = [
        insertion_before(inp, loop, copy_declaration(scans[0], name), RULE_ID, order=-18),
        insertion_before(inp, loop, f"std::sort({name}.begin(), {name}.end());", RULE_ID,
                         order=-17),
    ]
    edits += [Edit(x.loop.start_byte, x.loop.end_byte, replacement(x, name), RULE_ID)
              for x in scans]
    return Planned(
        tuple(edits),
        f"The loop at line {inp.line_of(loop)} scans '{b}' element by element for each of its "
        f"iterations (line {inp.line_of(scans[0].loop)}); sorting a copy of '{b}' once before "
        "the loop and searching it in logarithmic time gives the same matches.",
        (loop, *(x.loop for x in scans)), ("<algorithm>", "<vector>"))


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


def _new_range_each_time(facts: FunctionFacts, loop: Loop, call: Node) -> bool:
    """Whether the call scans another container on each iteration of ``loop``: one declared
    in the loop (a range-for's element included), or picked by an index the loop changes
    (``rows[i]``)."""
    args = arguments(call)
    if not args:
        return False
    obj: Node | None = args[0]
    if obj is not None and obj.type == "call_expression" and callee(obj) in ("begin", "cbegin"):
        obj = receiver(obj) or next(iter(arguments(obj)), None)
    root = root_name(obj)
    if obj is None or root is None:
        return False
    fresh = facts.declared_in(loop.node)
    picked = identifiers(obj) - {root}
    return root in fresh or bool(picked & (fresh | facts.modified_in(loop.node)))


def linear_search_in_loop(facts: FunctionFacts) -> Iterator[Finding]:
    """``std::find``/``count``/... inside a loop, and nested loops that compare elements."""
    return _findings(facts, _sites(facts))


# A candidate of detection: its finding, and the nodes (call, inner loop, outer loop) a proved
# rewrite or a refusal may cover.
Candidate = tuple[Finding, tuple[Node, ...]]


def _findings(facts: FunctionFacts, sites: list[Site]) -> Iterator[Finding]:
    """One finding per proved rewrite or refusal (the first candidate it covers, with the
    lines of all it covers), then each candidate none covers, which the fix leaves."""
    candidates = [*_scan_calls(facts), *_nested_compare(facts), *_pair_sums(facts)]
    owner: dict[int, int] = {}  # candidate -> site
    for c, (_f, anchors) in enumerate(candidates):
        for anchor in anchors:
            k = next((k for k, x in enumerate(sites) if anchor in _covers(x)), None)
            if k is not None:
                owner[c] = k
                break
    for k, site in enumerate(sites):
        mine = [candidates[c][0] for c in sorted(owner) if owner[c] == k]
        if mine:
            lines = [n for f in mine for n in f.lines]
            yield replace(mine[0], lines=tuple(dict.fromkeys(lines)), proof=site)
        elif not isinstance(site, Refused):
            yield _unreported(facts, site)
    why = _general_why(facts)
    for c, (f, anchors) in enumerate(candidates):
        if c not in owner:
            yield replace(f, proof=Unproved(anchors[0], why))


def _unreported(facts: FunctionFacts, site: PairSite | FindSite | NestedSite) -> Finding:
    """The finding of a proved rewrite no candidate of detection names."""
    outer = facts.loop_of(site.loop)
    phrase = loop_phrase(outer) if outer is not None else f"the loop on line {line(site.loop)}"
    depth = outer.depth if outer is not None else 1
    if isinstance(site, PairSite):
        what = "two equal elements" if not site.found.target else \
            f"two elements summing to `{site.found.target}`"
        text = (f"{phrase} tries every pair of `{site.found.seq}` for {what}, O(n²) "
                "comparisons: " + ("one pass through a hash set stops at the first repeated "
                                   "value" if not site.found.target else
                                   "sort a copy once and walk it from both ends (O(n log n))"))
        at: list[Node] = [site.loop]
    elif isinstance(site, FindSite):
        text = (f"{phrase} searches `{site.container}` from end to end with `std::find` on "
                f"every iteration, O(n·m) work: sort a copy once before the loop and use "
                "`std::binary_search` (O(log m) per lookup)")
        at = [site.tests[0][0], site.loop]
    else:
        text = (f"{phrase} scans `{site.container}` element by element on every iteration, "
                f"O(n·m) comparisons: sort a copy once before the loop and search it in "
                "O(log m)")
        at = [site.scans[0].loop, site.loop]
    return make_finding(
        RULE_ID, text + ".", [line(n) for n in at],
        loop_range=rng(site.loop), node_range=rng(at[0]), names=[site.container]
        if not isinstance(site, PairSite) else [site.found.seq],
        bonus=depth_bonus(depth), proof=site)


def _pair_sums(facts: FunctionFacts) -> Iterator[Candidate]:
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
            bonus=depth_bonus(lp.depth + 1),
        ), (lp.node,)


def _scan_calls(facts: FunctionFacts) -> Iterator[Candidate]:
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
        if _new_range_each_time(facts, loop, call):
            continue  # one pass over each iteration's own range is no repeated scan
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
            bonus=depth_bonus(loop.depth),
        ), (call,)


def _nested_compare(facts: FunctionFacts) -> Iterator[Candidate]:
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
            bonus=depth_bonus(inner.depth) - 0.02,
        ), (inner.node, outer.node)


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
    fix=linear_search_fix,
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
