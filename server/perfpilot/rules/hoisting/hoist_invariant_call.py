"""The hoist-invariant-call rule: a call whose arguments the loop never changes, evaluated on every
iteration.

Its second finding, invariant-algorithm-call, is the complexity case: a standard algorithm that
scans a whole container (``std::accumulate``, ``std::count_if``, ``std::max_element``, ...)
with arguments the loop never changes, proved by ``code/invariant_scans.py``. The call moves
before the outermost loop it is invariant in, into a ``const auto`` local the loop reads (under
the loop's entry condition when the call could misbehave where the original never made it).

Each finding is one local the rewrite computes (its proof says which calls it stands for and
before which loop it goes) or a call left in its loop with the reason (``hoist_fix``).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field

from perfpilot.code.effects import (
    ELEMENT_COUNT_METHODS,
    NEVER_WRITES_MEMORY,
    PARALLEL_SAFE_METHODS,
    PURE_RANGE_SCANS,
)
from perfpilot.code.facts import FunctionFacts, Loop
from perfpilot.code.invariant_scans import InvariantScan, invariant_scans, iter_targets
from perfpilot.code.sorted_ranges import unit_functions
from perfpilot.code.syntax import (
    Node,
    ancestors,
    callee,
    identifiers,
    line,
    node_text,
    receiver,
    walk,
)
from perfpilot.rules.base import Example, RuleSpec
from perfpilot.rules.by_finding import by_finding
from perfpilot.rules.detect.common import code, loop_phrase, rng
from perfpilot.rules.edits import Edit
from perfpilot.rules.finding import Finding, Proof, depth_bonus, make_finding
from perfpilot.rules.rewrite_input import (
    Left,
    Planned,
    RuleInput,
    RuleOutput,
    insertion_before,
    statement_slot_ok,
)

# detection


# Calls whose cost grows with their argument: invariant ones in a loop make it quadratic.
_LINEAR_CALLS = frozenset({"strlen", "wcslen"})


_MATH_CALLS = frozenset({
    "sqrt", "sqrtf", "cbrt", "pow", "powf", "exp", "expf", "log", "logf", "log2", "log10", "sin",
    "cos", "tan", "sinf", "cosf", "atan", "atan2", "hypot",
})




@dataclass(frozen=True)
class InvariantCall:
    """A call the loop never changes the value of: where it is, and how far out it may go."""

    call: Node
    loop: Loop  # the innermost loop holding it
    target: Loop  # the outermost loop it stays invariant in
    region: str  # "condition" or "body"


def invariant_loop_calls(facts: FunctionFacts) -> Iterator[InvariantCall]:
    """Calls in a loop's condition (``strlen``, math, ``size()``/``length()``) or body (math,
    ``strlen``) whose arguments the loop never changes (``FunctionFacts.invariant_in``)."""
    seen: set[tuple[int, int]] = set()
    for loop in facts.loops:
        regions: list[tuple[str, Node]] = []
        if loop.condition is not None:
            regions.append(("condition", loop.condition))
        for region_name, region in regions + [("body", b) for b in
                                              ([loop.body] if loop.body is not None else [])]:
            for call in facts.nodes("call_expression", region):
                name = callee(call)
                method = receiver(call) is not None
                if region_name == "body" and (method or name not in _LINEAR_CALLS | _MATH_CALLS):
                    continue
                if region_name == "condition" and not (
                        (not method and name in _LINEAR_CALLS | _MATH_CALLS)
                        or (method and name in ELEMENT_COUNT_METHODS)):
                    continue
                innermost = facts.loop_of(call)
                if innermost is None or innermost.index != loop.index:
                    continue  # reported for the innermost loop that contains it
                key = (call.start_byte, call.end_byte)
                # a condition call moves only by the loop analysis's own proof
                # (``invariant_calls``, aliases included); by names alone it says why it stays
                by_names = region_name == "condition"
                if key in seen or not facts.invariant_in(call, loop,
                                                         through_aliases=not by_names):
                    continue
                if not (identifiers(call) - {name}):
                    continue  # no variable argument: constant folding handles it
                # Hoist as far out as the call stays invariant.
                target = loop
                while target.parent is not None and \
                        facts.invariant_in(call, facts.loops[target.parent],
                                           through_aliases=not by_names):
                    target = facts.loops[target.parent]
                seen.add(key)
                yield InvariantCall(call, loop, target, region_name)


def _explained(found: InvariantCall, doubt: bool = False) -> tuple[str, float]:
    """The finding's words for an invariant call detection proved, and its impact bonus
    (``doubt``: only its names are proved unchanged, not what a reference or pointer
    reaches)."""
    call, loop, target, region_name = found.call, found.loop, found.target, found.region
    name = callee(call)
    method = receiver(call) is not None
    vars_ = sorted(identifiers(call) - {name})
    if name in _LINEAR_CALLS:
        cost, bonus = (f"`{name}` walks the whole string each time, which makes the "
                       f"loop quadratic"), 0.30
    elif method:
        cost, bonus = ("the compiler often cannot prove the size unchanged when the "
                       "body writes through pointers or calls functions"), -0.30
    else:
        cost, bonus = f"each `{name}` call costs tens of cycles", 0.0
    where = "in its condition" if region_name == "condition" else "in its body"
    names = f"{', '.join(f'`{v}`' for v in vars_)} {'is' if len(vars_) == 1 else 'are'}"
    before = "the loop" if target is loop else loop_phrase(target)
    said = (f"{names} not modified in the loop, so the call is loop-invariant ({cost}): "
            f"compute it once before {before}." if not doubt else
            f"{names} not modified by name in the loop: if no reference or pointer "
            f"changes it either, compute it once before {before} ({cost}).")
    return (f"{loop_phrase(loop)} calls `{code(call)}` {where} on every iteration; {said}",
            bonus + depth_bonus(loop.depth))


# What a finding proves, per kind of hoist: each is one local computed once before a loop
# (``before``), replacing ``calls``; its declaration goes in at ``order`` among the locals
# put before that loop.


@dataclass(frozen=True)
class ConditionHoist(Proof):
    """Condition calls spelled ``text`` whose object or argument the loop body never changes
    (the loop analysis's ``invariant_calls``); the same calls inside the body (``inside``: the
    proof covers every point of it); and the same calls in later loops of the block that read
    the local because nothing between the loops can change it (``reuse``, in the loops
    ``later``)."""

    calls: tuple[Node, ...]
    before: Node
    text: str
    stem: str
    order: int
    reuse: tuple[Node, ...] = ()
    later: tuple[Node, ...] = ()
    inside: tuple[Node, ...] = ()


@dataclass(frozen=True)
class BodyHoist(Proof):
    """Math calls spelled ``text`` in a loop body, invariant in the loop ``before``: a pure
    function of values that loop never changes, safe to evaluate before it."""

    calls: tuple[Node, ...]
    before: Node
    text: str
    order: int


@dataclass(frozen=True)
class AlgorithmHoist(Proof):
    """Standard algorithm calls spelled ``text`` that scan ``container`` (with ``kind``), proved
    invariant in the loop ``before`` (``code/invariant_scans.py``); computed under ``guard``
    (else ``fallback``) when not empty."""

    calls: tuple[Node, ...]
    before: Node
    text: str
    container: str
    kind: str
    guard: str
    fallback: str
    order: int


@dataclass(frozen=True)
class StaysInLoop(Proof):
    """An invariant call detection reports that no hoist may move: ``what`` it is in words and
    ``why``."""

    call: Node
    what: str
    why: str


def _call_at(root: Node, start: int, end: int) -> Node | None:
    """The call expression spanning exactly ``[start, end)`` under ``root``."""
    node: Node | None = root.descendant_for_byte_range(start, end)
    while node is not None and node.start_byte == start and node.end_byte == end:
        if node.type == "call_expression":
            return node
        node = node.parent
    return None


@dataclass
class _Condition:
    """A condition hoist while later loops may still join it."""

    loop: Loop
    calls: list[Node]
    text: str
    stem: str
    order: int
    reuse: list[Node] = field(default_factory=list)
    later: list[Node] = field(default_factory=list)
    inside: list[Node] = field(default_factory=list)


def _same_calls_inside(facts: FunctionFacts, lp: Loop, text: str) -> list[Node]:
    """The calls spelled ``text`` in ``lp``'s body, outside lambdas (which may run after the
    loop): the proof that the body never changes what the condition's call measures holds at
    every point of the body, so they give its value too. None when the body declares a name
    the call reads (another object under the same name)."""
    if lp.body is None:
        return []
    key = "".join(text.split())
    calls = [c for c in facts.nodes("call_expression", lp.body)
             if "".join(node_text(c).split()) == key]
    if not calls or identifiers(calls[0]) & facts.declared_in(lp.body):
        return []
    return [c for c in calls
            if not any(a.type == "lambda_expression" for a in ancestors(c, lp.body))]


def _condition_hoists(facts: FunctionFacts) -> tuple[list[_Condition],
                                                     list[tuple[Loop, Node]]]:
    """The condition calls the loop analysis proves invariant, one hoist per call text and
    loop (a later loop of the same block joins an earlier hoist when nothing between them can
    change what it measures), and the calls of loops not directly inside a block."""
    hoists: list[_Condition] = []
    stuck: list[tuple[Loop, Node]] = []
    hoisted: dict[str, _Condition] = {}
    claimed: set[tuple[int, int]] = set()  # calls an enclosing loop's hoist already reads
    for lp in facts.loops:
        if lp.kind != "for":
            continue
        sites = [c for c in facts.loop_facts(lp).invariant_calls
                 if (c.start_byte, c.end_byte) not in claimed]
        if not sites:
            continue
        by_text: dict[str, list[Node]] = {}
        for site in sites:
            node = _call_at(lp.node, site.start_byte, site.end_byte)
            if node is not None:
                by_text.setdefault(site.text, []).append(node)
        if not statement_slot_ok(lp.node):
            stuck.extend((lp, n) for nodes in by_text.values() for n in nodes)
            continue
        for k, (text, nodes) in enumerate(by_text.items()):
            site = next(c for c in sites if c.text == text)
            earlier = hoisted.get(text)
            inside = _same_calls_inside(facts, lp, text)
            claimed.update((c.start_byte, c.end_byte) for c in inside)
            if earlier is not None and site.obj and \
                    _unchanged_between(facts, earlier.loop.node, lp.node, site.obj):
                earlier.reuse.extend((*nodes, *inside))
                earlier.later.append(lp.node)
                continue
            stem = f"{site.obj}_size" if site.obj else f"{site.args[0]}_len"
            hoists.append(_Condition(lp, nodes, text, stem, k, inside=inside))
            hoisted[text] = hoists[-1]
    return hoists, stuck


def hoist_invariant_call(facts: FunctionFacts) -> Iterator[Finding]:
    """A call whose arguments the loop never changes, evaluated on every iteration: each
    finding one local the hoist computes once, or a call it leaves, with why."""
    proved = {(f.call.start_byte, f.call.end_byte): f for f in invariant_loop_calls(facts)}
    hoists, stuck = _condition_hoists(facts)
    handled = {(c.start_byte, c.end_byte) for h in hoists
               for c in (*h.calls, *h.inside, *h.reuse)} | \
        {(c.start_byte, c.end_byte) for _, c in stuck}
    for h in hoists:
        first = h.calls[0]
        found = proved.get((first.start_byte, first.end_byte))
        text, bonus = _explained(found) if found is not None else (
            f"{loop_phrase(h.loop)} calls `{code(first)}` in its condition on every "
            "iteration, though the body never changes what it measures: compute it once "
            "before the loop.", depth_bonus(h.loop.depth))
        name = callee(first)
        calls = (*h.calls, *h.reuse)
        later = [line(n) for n in h.later]
        inside = sorted({line(c) for c in h.inside})
        if inside:
            text += (f" The same call on line{'s' if len(inside) > 1 else ''} "
                     f"{', '.join(map(str, inside))}, in the loop's body, can read the local "
                     "too.")
        if later:
            text += (f" The loop{'s' if len(later) > 1 else ''} on line"
                     f"{'s' if len(later) > 1 else ''} {', '.join(map(str, later))} can read "
                     "the same local: nothing between the loops changes it.")
        yield make_finding(
            "hoist-invariant-call", text,
            [line(first), h.loop.line, *(line(c) for c in calls[1:]), *later, *inside],
            loop_range=h.loop.byte_range, node_range=rng(first),
            names=[name, *sorted(identifiers(first) - {name})], bonus=bonus,
            proof=ConditionHoist(tuple(h.calls), h.loop.node, h.text, h.stem, h.order,
                                 tuple(h.reuse), tuple(h.later), tuple(h.inside)))
    for lp, call in stuck:
        found = proved.get((call.start_byte, call.end_byte))
        yield _staying(found.call if found else call, lp, found, "in the condition",
                       "its loop is not directly inside a block")
    body: dict[int, dict[str, list[InvariantCall]]] = {}
    for key, found in proved.items():
        if key in handled:
            continue
        call = found.call
        if found.region == "condition":
            yield _staying(call, found.loop, found, "in the condition",
                           "a call or store in the loop might change what it reads (an "
                           "object of the same type reached through a reference or pointer)",
                           doubt=True)
        elif callee(call) not in _MATH_CALLS:
            yield _staying(call, found.loop, found, "in the loop body",
                           "computed before the loop it would run where the original may "
                           "never call it (a loop that runs no iteration, a branch not taken)")
        elif not statement_slot_ok(found.target.node):
            yield _staying(call, found.loop, found, "", "the loop it is invariant in is not "
                           "directly inside a block")
        else:
            text = " ".join(code(call, 10_000).split())
            body.setdefault(found.target.index, {}).setdefault(text, []).append(found)
    for index in sorted(body):
        for k, (text, group) in enumerate(body[index].items()):
            first = group[0].call
            words, bonus = _explained(group[0])
            name = callee(first)
            yield make_finding(
                "hoist-invariant-call", words,
                [line(first), group[0].loop.line, *(line(f.call) for f in group[1:]),
                 *([group[0].target.line] if group[0].target is not group[0].loop else [])],
                loop_range=group[0].target.byte_range, node_range=rng(first),
                names=[name, *sorted(identifiers(first) - {name})], bonus=bonus,
                proof=BodyHoist(tuple(f.call for f in group), group[0].target.node, text, k))


def _staying(call: Node, loop: Loop, found: InvariantCall | None, where: str,
             why: str, doubt: bool = False) -> Finding:
    """The finding of an invariant call no hoist moves, with the reason it stays (``doubt``:
    the reason is that the call may not be invariant after all)."""
    words, bonus = _explained(found, doubt) if found is not None else (
        f"{loop_phrase(loop)} calls `{code(call)}` {where} on every iteration, though the "
        "loop never changes what it reads: compute it once before the loop.",
        depth_bonus(loop.depth))
    target = found.target if found is not None else loop
    name = callee(call)
    return make_finding(
        "hoist-invariant-call", words,
        [line(call), loop.line] + ([target.line] if target is not loop else []),
        loop_range=target.byte_range, node_range=rng(call),
        names=[name, *sorted(identifiers(call) - {name})], bonus=bonus,
        proof=StaysInLoop(call, f"`{code(call, 60)}`" + (f" {where}" if where else ""), why))


ALGORITHM_RULE = "invariant-algorithm-call"


def invariant_algorithm_calls(facts: FunctionFacts) -> Iterator[Finding]:
    """A standard algorithm scanning a container the loop never changes, with arguments it
    never changes: the same result on every iteration (one finding per call text and loop
    it moves before: the same call twice is computed once)."""
    for target, group in iter_targets(invariant_scans(facts)[0]):
        by_text: dict[tuple[str, str], list[InvariantScan]] = {}
        for s in group:
            by_text.setdefault((node_text(s.call), s.guard), []).append(s)
        for k, ((text, guard), same) in enumerate(by_text.items()):
            s = same[0]
            loop = facts.loop_of(s.call)
            if loop is None:
                continue
            where = "the loop" if target is loop else loop_phrase(target)
            why = (f" (under `{guard}`, the loop's entry condition, since the call could "
                   "misbehave where the original never makes it)") if guard else ""
            yield make_finding(
                ALGORITHM_RULE,
                f"`{code(s.call)}` on line {line(s.call)} scans `{s.container}` on every "
                f"iteration of {loop_phrase(loop)}, though neither `{s.container}` nor its "
                f"other arguments change there, so the loop does O(n·m) work for one value: "
                f"compute it once before {where} into a `const auto` local{why} and read that "
                f"(O(n + m)); the call is the same, so even a floating sum is bit-identical.",
                [line(s.call), loop.line, *(line(o.call) for o in same[1:])]
                + ([target.line] if target is not loop else []),
                loop_range=target.byte_range, node_range=rng(s.call),
                claims=[rng(o.call) for o in same], names=[s.kind, s.container],
                bonus=depth_bonus(loop.depth),
                proof=AlgorithmHoist(tuple(o.call for o in same), target.node, text,
                                     s.container, s.kind, guard, s.fallback, k))


def _detect(facts: FunctionFacts) -> Iterator[Finding]:
    # the algorithm calls first: their locals are named first, as they are computed first
    yield from invariant_algorithm_calls(facts)
    yield from hoist_invariant_call(facts)


# rewrite


def hoist_fix(inp: RuleInput, finding: Finding) -> Planned | Left:
    """Compute the proved invariant call once, before its loop, into a ``const`` local that
    every call it stands for reads instead; or say why it stays."""
    proof = finding.proof
    if isinstance(proof, StaysInLoop):
        return Left(proof.what, proof.call, proof.why)
    if isinstance(proof, AlgorithmHoist):
        return _algorithm_hoist(inp, proof)
    if isinstance(proof, BodyHoist):
        return _body_hoist(inp, proof)
    assert isinstance(proof, ConditionHoist)
    name = inp.fresh_name(proof.stem)
    kind = "size_t" if inp.language == "c" else "auto"
    edits = [insertion_before(inp, proof.before, f"const {kind} {name} = {proof.text};",
                              "hoist-invariant-call", order=proof.order)]
    edits.extend(Edit(c.start_byte, c.end_byte, name, "hoist-invariant-call")
                 for c in (*proof.calls, *proof.inside, *proof.reuse))
    later = ", ".join(str(inp.line_of(n)) for n in proof.later)
    inside = ", ".join(str(n) for n in sorted({inp.line_of(c) for c in proof.inside}))
    return Planned(
        tuple(edits),
        f"The condition of the loop at line {inp.line_of(proof.before)} calls '{proof.text}' "
        "on every iteration although the loop body never changes what it measures; "
        f"computing it once before the loop (as {name}) removes the repeated work" +
        (" (strlen is linear in the string's length, so the loop was quadratic)"
         if "strlen" in proof.text else "") +
        (f"; the same call in its body (line {inside}) reads it too" if inside else "") +
        (f"; the loop at line {later} reads the same local, since nothing between the loops "
         "can change it" if later else "") + ".",
        (proof.before, *proof.later), includes=())


def _algorithm_hoist(inp: RuleInput, proof: AlgorithmHoist) -> Planned:
    """The invariant algorithm call computed once before its loop (under its guard)."""
    name = inp.fresh_name(f"{proof.container}_{proof.kind}")
    value = proof.text if not proof.guard else \
        f"({proof.guard}) ? {proof.text} : {proof.fallback}"
    edits = [insertion_before(inp, proof.before, f"const auto {name} = {value};",
                              ALGORITHM_RULE, order=-10 + proof.order)]
    edits.extend(Edit(c.start_byte, c.end_byte, name, ALGORITHM_RULE) for c in proof.calls)
    return Planned(
        tuple(edits),
        f"The loop at line {inp.line_of(proof.before)} recomputed std::{proof.kind} over "
        "data it never changes on every iteration; it is now computed once before the loop "
        f"(as {name}), which turns O(n·m) work into O(n + m); the call itself is unchanged, "
        "so the value is bit-identical" +
        (", and it is computed only when the loop runs its first iteration, as the original "
         "did." if proof.guard else "."),
        (proof.before,),
        includes=("<type_traits>",) if "decay_t" in proof.fallback else ())


def _body_hoist(inp: RuleInput, proof: BodyHoist) -> Planned:
    """The invariant math call computed once before the outermost loop it is invariant in."""
    name = inp.fresh_name("_".join(identifiers_in_order(proof.calls[0])))
    fn = callee(proof.calls[0])
    kind = "auto" if inp.language == "cpp" else \
        ("float" if fn.endswith("f") and fn[:-1] in _MATH_CALLS else "double")
    edits = [insertion_before(inp, proof.before, f"const {kind} {name} = {proof.text};",
                              "hoist-invariant-call", order=-5 + proof.order)]
    edits.extend(Edit(c.start_byte, c.end_byte, name, "hoist-invariant-call")
                 for c in proof.calls)
    calls = tuple(sorted(proof.calls, key=lambda c: c.start_byte))
    lines = ", ".join(str(n) for n in sorted({inp.line_of(c) for c in calls}))
    return Planned(
        tuple(edits),
        f"`{proof.text}` on line(s) {lines} gave the same value on every iteration of the "
        f"loop at line {inp.line_of(proof.before)}; it is now computed once before the loop "
        f"(as {name}): the same call on the same values, so the same result.",
        calls, includes=())


def hoist_rule(inp: RuleInput) -> RuleOutput:
    """The fix of every finding (``hoist_fix``), and a note for each algorithm call the proof
    of invariance refused (no finding names those: they vary, or may)."""
    changes, notes = _by_finding(inp)
    if inp.language == "cpp":
        notes = [f"{ALGORITHM_RULE}: `{code(c, 60)}` on line {inp.line_of(c)} stays: {why}"
                 for c, why in invariant_scans(inp.facts)[1]] + notes
    return changes, notes


_by_finding = by_finding(_detect, hoist_fix)


# Containers whose ``[]`` never changes their size (a map's inserts).
_SEQUENCE = re.compile(r"\b(?:vector|array|deque|span|(?:w|u8|u16|u32)?string(?:_view)?|"
                       r"basic_string(?:_view)?)\b")


def _unchanged_between(facts: FunctionFacts, first: Node, second: Node, obj: str
                       ) -> bool:
    """Whether ``obj``'s size at ``second`` is surely what it was before ``first``: the two
    loops are statements of one block, ``second`` later (each loop was proved to leave the
    size alone), and the statements between them call only functions and methods known to
    leave memory alone (none the file defines itself), assign only plain arithmetic
    variables, jump nowhere, and read ``obj`` only through ``[]`` or such methods, ``obj``
    being a sequence container or string."""
    block = first.parent
    if block is None or block.type != "compound_statement" or second.parent is None or \
            (second.parent.start_byte, second.parent.end_byte) != \
            (block.start_byte, block.end_byte) or first.end_byte > second.start_byte:
        return False
    vt = facts.loop_types.get(obj)
    if vt is None or vt.pointer or not _SEQUENCE.search(vt.base):
        return False
    # A function the file defines or declares under a standard name (its own `max`) is not
    # the standard one: it may do anything.
    own = unit_functions(facts.unit)
    for stmt in block.named_children:
        if stmt.start_byte < first.end_byte or stmt.end_byte > second.start_byte:
            continue
        for n in walk(stmt, named=True):
            if n.type in _JUMPS_AND_EFFECTS:
                return False
            if n.type == "call_expression":
                method = receiver(n) is not None
                if callee(n) not in (PARALLEL_SAFE_METHODS if method
                                     else NEVER_WRITES_MEMORY | PURE_RANGE_SCANS) or \
                        (not method and callee(n).split("::")[-1] in own):
                    return False
            elif n.type in ("assignment_expression", "compound_assignment_expression",
                            "update_expression"):
                target = n.child_by_field_name("left") or n.child_by_field_name("argument")
                tv = facts.loop_types.get(node_text(target)) if target is not None and \
                    target.type == "identifier" else None
                if tv is None or not tv.is_arithmetic or tv.reference or tv.scope != "local":
                    return False
            elif n.type == "identifier" and node_text(n) == obj and not _reads_only(n):
                return False
    return True


_JUMPS_AND_EFFECTS = frozenset({
    "goto_statement", "labeled_statement", "lambda_expression", "new_expression",
    "delete_expression",
})


def _reads_only(name: Node) -> bool:
    """``name`` is the object of a subscript or of a method call (the call is checked on its
    own)."""
    parent = name.parent
    if parent is None:
        return False
    if parent.type == "subscript_expression":
        base = parent.child_by_field_name("argument")
        return base is not None and base.id == name.id
    if parent.type == "field_expression":
        return parent.parent is not None and parent.parent.type == "call_expression"
    return False


def identifiers_in_order(call: Node) -> list[str]:
    """The callee and the variables a call names, in the order written (a local's name)."""
    out: list[str] = []
    stack = [call]
    while stack:
        n = stack.pop()
        if n.type == "identifier" and node_text(n) not in out:
            out.append(node_text(n))
        stack.extend(reversed(n.children))
    return out[:3]


RULE = RuleSpec(
    id="hoist-invariant-call",
    detect=_detect,
    finds=frozenset({"hoist-invariant-call", ALGORITHM_RULE}),
    fix=hoist_fix,
    rewrite=hoist_rule,
    rewrites_as=frozenset({"hoist-invariant-call", ALGORITHM_RULE}),
    phase=2,
    order=0,
    examples=(
        Example("c", """
#include <string.h>
int upper(const char *s) {
    int c = 0;
    for (int i = 0; i < strlen(s); i++) {
        if (s[i] >= 'A' && s[i] <= 'Z') c++;
    }
    return c;
}
""", "upper"),
        Example("cpp", """
#include <numeric>
#include <vector>
double variance(const std::vector<double>& v) {
    double var = 0;
    for (std::size_t i = 0; i < v.size(); ++i) {
        double mean = std::accumulate(v.begin(), v.end(), 0.0) / v.size();
        var += (v[i] - mean) * (v[i] - mean);
    }
    return var / v.size();
}
""", "variance"),
    ),
)
