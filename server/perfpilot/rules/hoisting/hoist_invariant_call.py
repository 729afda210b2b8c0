"""The hoist-invariant-call rule: a call whose arguments the loop never changes, evaluated on every
iteration.

Its second finding, invariant-algorithm-call, is the complexity case: a standard algorithm that
scans a whole container (``std::accumulate``, ``std::count_if``, ``std::max_element``, ...)
with arguments the loop never changes, proved by ``code/invariant_scans.py``. The call moves
before the outermost loop it is invariant in, into a ``const auto`` local the loop reads (under
the loop's entry condition when the call could misbehave where the original never made it).
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
from perfpilot.code.invariant_scans import invariant_scans, iter_targets
from perfpilot.code.loops import all_loops
from perfpilot.code.sorted_ranges import unit_functions
from perfpilot.code.syntax import (
    Node,
    callee,
    identifiers,
    line,
    node_text,
    receiver,
    walk,
)
from perfpilot.rules.base import Example, RuleSpec
from perfpilot.rules.detect.common import code, loop_phrase, rng
from perfpilot.rules.edits import Edit
from perfpilot.rules.finding import Finding, depth_bonus, make_finding
from perfpilot.rules.rewrite_input import (
    Change,
    RuleInput,
    RuleOutput,
    fresh_name,
    insertion_before,
    loop_node,
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
    ``strlen``) whose arguments the loop never changes: detection and rewrite share them."""
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
                if key in seen or not facts.invariant_in(call, loop):
                    continue
                if not (identifiers(call) - {name}):
                    continue  # no variable argument: constant folding handles it
                # Hoist as far out as the call stays invariant.
                target = loop
                while target.parent is not None and \
                        facts.invariant_in(call, facts.loops[target.parent]):
                    target = facts.loops[target.parent]
                seen.add(key)
                yield InvariantCall(call, loop, target, region_name)


def hoist_invariant_call(facts: FunctionFacts) -> Iterator[Finding]:
    """A call whose arguments the loop never changes, evaluated on every iteration."""
    for found in invariant_loop_calls(facts):
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
        yield make_finding(
            "hoist-invariant-call",
            f"{loop_phrase(loop)} calls `{code(call)}` {where} on every iteration; "
            f"{', '.join(f'`{v}`' for v in vars_)} "
            f"{'is' if len(vars_) == 1 else 'are'} not modified in the loop, so the "
            f"call is loop-invariant ({cost}): compute it once before "
            f"{'the loop' if target is loop else loop_phrase(target)}.",
            [line(call), loop.line] + ([target.line] if target is not loop else []),
            loop_range=target.byte_range, node_range=rng(call),
            names=[name, *vars_],
            data={"call": code(call, 200), "name": name, "where": region_name},
            bonus=bonus + depth_bonus(loop.depth),
        )


ALGORITHM_RULE = "invariant-algorithm-call"


def invariant_algorithm_calls(facts: FunctionFacts) -> Iterator[Finding]:
    """A standard algorithm scanning a container the loop never changes, with arguments it
    never changes: the same result on every iteration."""
    for s in invariant_scans(facts)[0]:
        loop = facts.loop_of(s.call)
        if loop is None:
            continue
        where = "the loop" if s.target is loop else loop_phrase(s.target)
        guard = (f" (under `{s.guard}`, the loop's entry condition, since the call could "
                 "misbehave where the original never makes it)") if s.guard else ""
        yield make_finding(
            ALGORITHM_RULE,
            f"`{code(s.call)}` on line {line(s.call)} scans `{s.container}` on every iteration "
            f"of {loop_phrase(loop)}, though neither `{s.container}` nor its other arguments "
            f"change there, so the loop does O(n·m) work for one value: compute it once "
            f"before {where} into a `const auto` local{guard} and read that (O(n + m)); the "
            f"call is the same, so even a floating sum is bit-identical.",
            [line(s.call), loop.line] + ([s.target.line] if s.target is not loop else []),
            loop_range=s.target.byte_range, node_range=rng(s.call), claims=[rng(s.call)],
            names=[s.kind, s.container],
            data={"call": code(s.call, 200), "container": s.container, "guard": s.guard},
            bonus=depth_bonus(loop.depth),
        )


def _detect(facts: FunctionFacts) -> Iterator[Finding]:
    yield from hoist_invariant_call(facts)
    yield from invariant_algorithm_calls(facts)


# rewrite


def _algorithm_hoists(inp: RuleInput, taken: set[str]) -> RuleOutput:
    """Each proved invariant algorithm call computed once before its loop."""
    changes: list[Change] = []
    scans, refused = invariant_scans(inp.facts)
    notes = [f"{ALGORITHM_RULE}: `{code(c, 60)}` on line {inp.line_of(c)} stays: {why}"
             for c, why in refused]
    for loop, group in iter_targets(scans):
        by_text: dict[tuple[str, str], list[Node]] = {}
        for s in group:
            by_text.setdefault((s.call.text.decode("utf-8") if s.call.text else "", s.guard),
                               []).append(s.call)
        edits: list[Edit] = []
        names: list[str] = []
        for k, ((call_text, guard), calls) in enumerate(by_text.items()):
            first = next(s for s in group if s.call == calls[0])
            name = fresh_name(taken, f"{first.container}_{first.kind}")
            taken.add(name)
            names.append(name)
            value = call_text if not guard else f"({guard}) ? {call_text} : {first.fallback}"
            edits.append(insertion_before(inp, loop.node, f"const auto {name} = {value};",
                                          ALGORITHM_RULE, order=-10 + k))
            edits.extend(Edit(c.start_byte, c.end_byte, name, ALGORITHM_RULE) for c in calls)
        guarded = any(g for _, g in by_text)
        changes.append(Change(
            ALGORITHM_RULE, tuple(edits),
            f"The loop at line {inp.line_of(loop.node)} recomputed "
            f"{', '.join(sorted({f'std::{s.kind}' for s in group}))} over data it never "
            f"changes on every iteration; it is now computed once before the loop (as "
            f"{', '.join(names)}), which turns O(n·m) work into O(n + m); the call itself is "
            "unchanged, so the value is bit-identical" +
            (", and it is computed only when the loop runs its first iteration, as the "
             "original did." if guarded else "."),
            (inp.line_of(loop.node),),
            includes=("<type_traits>",) if any("decay_t" in s.fallback for s in group) else ()))
    return changes, notes




def hoist_rule(inp: RuleInput) -> RuleOutput:
    """Evaluate ``strlen(s)`` / ``v.size()`` in a loop condition once, before the loop; a later
    loop of the same block reads the same local when nothing between them can change it."""
    taken = set(inp.taken)
    changes, notes = _algorithm_hoists(inp, taken) if inp.language == "cpp" else ([], [])
    # Per hoisted call text, the latest loop it was computed before, its local, and the group
    # of edits (one change) that declares it: a reuse joins that change, so the two are
    # applied or dropped together.
    hoisted: dict[str, tuple[Node, str, _Hoists]] = {}
    groups: list[_Hoists] = []
    for lp in all_loops(inp.loops):
        if not lp.invariant_calls:
            continue
        node = loop_node(inp, lp)
        if node is None or not statement_slot_ok(node):
            notes.append(f"hoist: the call in the condition at line {lp.line} is invariant "
                         "but the loop is not directly inside a block")
            continue
        by_text: dict[str, list[tuple[int, int]]] = {}
        for call in lp.invariant_calls:
            by_text.setdefault(call.text, []).append((call.start_byte, call.end_byte))
        group = _Hoists(lp.line)
        for k, (text, spans) in enumerate(by_text.items()):
            call = next(c for c in lp.invariant_calls if c.text == text)
            earlier = hoisted.get(text)
            if earlier is not None and call.obj and \
                    _unchanged_between(inp, earlier[0], node, call.obj):
                _, name, owner = earlier
                owner.edits.extend(Edit(s, e, name, "hoist-invariant-call") for s, e in spans)
                owner.reused.append(lp.line)
                continue
            stem = f"{call.obj}_size" if call.obj else f"{call.args[0]}_len"
            name = fresh_name(taken, stem)
            taken.add(name)
            group.names.append(name)
            group.calls.append(text)
            if inp.language == "c":
                decl = f"const size_t {name} = {text};"
            else:
                decl = f"const auto {name} = {text};"
            group.edits.append(insertion_before(inp, node, decl, "hoist-invariant-call",
                                                order=k))
            group.edits.extend(Edit(s, e, name, "hoist-invariant-call") for s, e in spans)
            hoisted[text] = (node, name, group)
        groups.append(group)
    changes.extend(g.change() for g in groups if g.edits)
    handled = {(c.start_byte, c.end_byte) for lp in all_loops(inp.loops)
               for c in lp.invariant_calls}
    body, more = _body_hoists(inp, taken, handled)
    return changes + body, notes + more


@dataclass
class _Hoists:
    """The condition calls of one loop computed once before it, while they are collected."""

    line: int
    calls: list[str] = field(default_factory=list)
    names: list[str] = field(default_factory=list)
    edits: list[Edit] = field(default_factory=list)
    reused: list[int] = field(default_factory=list)  # later loops' lines that read the locals

    def change(self) -> Change:
        calls = ", ".join(f"'{t}'" for t in self.calls)
        later = ", ".join(str(n) for n in self.reused)
        explanation = (f"The condition of the loop at line {self.line} calls {calls} on every "
                       "iteration although the loop body never changes what it measures; "
                       f"computing it once before the loop (as {', '.join(self.names)}) "
                       "removes the repeated work" +
                       (" (strlen is linear in the string's length, so the loop was "
                        "quadratic)" if any("strlen" in t for t in self.calls) else "") +
                       (f"; the loop at line {later} reads the same local, since nothing "
                        "between the loops can change it" if later else "") + ".")
        return Change("hoist-invariant-call", tuple(self.edits), explanation,
                      (self.line, *self.reused))


# Containers whose ``[]`` never changes their size (a map's inserts).
_SEQUENCE = re.compile(r"\b(?:vector|array|deque|span|(?:w|u8|u16|u32)?string(?:_view)?|"
                       r"basic_string(?:_view)?)\b")


def _unchanged_between(inp: RuleInput, first: Node, second: Node, obj: str) -> bool:
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
    vt = inp.types.get(obj)
    if vt is None or vt.pointer or not _SEQUENCE.search(vt.base):
        return False
    # A function the file defines or declares under a standard name (its own `max`) is not
    # the standard one: it may do anything.
    own = unit_functions(inp.unit)
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
                tv = inp.types.get(node_text(target)) if target is not None and \
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


def _body_hoists(inp: RuleInput, taken: set[str], handled: set[tuple[int, int]]
                 ) -> RuleOutput:
    """The invariant calls detection reports that the condition hoist above did not take:
    math calls in a loop body, computed once before the outermost loop they are invariant
    in (a pure function of values the loop never changes: safe to evaluate even where the
    original would not have); the others each left with a note saying why."""
    notes: list[str] = []
    by_target: dict[int, tuple[Node, list[InvariantCall]]] = {}
    for found in invariant_loop_calls(inp.facts):
        call = found.call
        if (call.start_byte, call.end_byte) in handled:
            continue
        shown = code(call, 60)
        where = inp.line_of(call)
        if found.region == "condition":
            notes.append(f"hoist-invariant-call: `{shown}` in the condition on line {where} "
                         "stays: a call or store in the loop might change what it reads (an "
                         "object of the same type reached through a reference or pointer)")
        elif callee(call) not in _MATH_CALLS:
            notes.append(f"hoist-invariant-call: `{shown}` in the loop body on line {where} "
                         "stays: computed before the loop it would run where the original may "
                         "never call it (a loop that runs no iteration, a branch not taken)")
        elif not statement_slot_ok(found.target.node):
            notes.append(f"hoist-invariant-call: `{shown}` on line {where} stays: the loop "
                         "it is invariant in is not directly inside a block")
        else:
            by_target.setdefault(found.target.index, (found.target.node, []))[1].append(found)
    changes: list[Change] = []
    for _index, (loop, calls) in sorted(by_target.items()):
        by_text: dict[str, list[Node]] = {}
        for found in calls:
            by_text.setdefault(" ".join(code(found.call, 10_000).split()), []).append(found.call)
        edits: list[Edit] = []
        names: list[str] = []
        for k, (text, nodes) in enumerate(by_text.items()):
            name = fresh_name(taken, "_".join(identifiers_in_order(nodes[0])))
            taken.add(name)
            names.append(name)
            fn = callee(nodes[0])
            kind = "auto" if inp.language == "cpp" else \
                ("float" if fn.endswith("f") and fn[:-1] in _MATH_CALLS else "double")
            edits.append(insertion_before(inp, loop, f"const {kind} {name} = {text};",
                                          "hoist-invariant-call", order=-5 + k))
            edits.extend(Edit(c.start_byte, c.end_byte, name, "hoist-invariant-call")
                         for c in nodes)
        lines = sorted({inp.line_of(c) for found in calls for c in [found.call]})
        changes.append(Change(
            "hoist-invariant-call", tuple(edits),
            f"{', '.join(f'`{t}`' for t in by_text)} on line(s) "
            f"{', '.join(str(n) for n in lines)} gave the same value on every iteration of "
            f"the loop at line {inp.line_of(loop)}; it is now computed once before the loop "
            f"(as {', '.join(names)}): the same call on the same values, so the same result.",
            tuple(lines)))
    return changes, notes


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
