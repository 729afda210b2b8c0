"""The hoist-invariant-call rule: a call whose arguments the loop never changes, evaluated on every
iteration.

Its second finding, invariant-algorithm-call, is the complexity case: a standard algorithm that
scans a whole container (``std::accumulate``, ``std::count_if``, ``std::max_element``, ...)
with arguments the loop never changes, proved by ``code/invariant_scans.py``. The call moves
before the outermost loop it is invariant in, into a ``const auto`` local the loop reads (under
the loop's entry condition when the call could misbehave where the original never made it).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from perfpilot.code.facts import FunctionFacts, Loop
from perfpilot.code.invariant_scans import invariant_scans, iter_targets
from perfpilot.code.loops import all_loops
from perfpilot.code.parse import node_text
from perfpilot.code.syntax import (
    Node,
    callee,
    identifiers,
    line,
    receiver,
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


_SIZE_METHODS = frozenset({"size", "length"})


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
                        or (method and name in _SIZE_METHODS)):
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
    """Evaluate ``strlen(s)`` / ``v.size()`` in a loop condition once, before the loop."""
    taken = set(inp.taken)
    changes, notes = _algorithm_hoists(inp, taken) if inp.language == "cpp" else ([], [])
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
        edits: list[Edit] = []
        names: list[str] = []
        for k, (text, spans) in enumerate(by_text.items()):
            call = next(c for c in lp.invariant_calls if c.text == text)
            stem = f"{call.obj}_size" if call.obj else f"{call.args[0]}_len"
            name = fresh_name(taken, stem)
            taken.add(name)
            names.append(name)
            if inp.language == "c":
                decl = f"const size_t {name} = {text};"
            else:
                decl = f"const auto {name} = {text};"
            edits.append(insertion_before(inp, node, decl, "hoist-invariant-call", order=k))
            edits.extend(Edit(s, e, name, "hoist-invariant-call") for s, e in spans)
        calls = ", ".join(f"'{t}'" for t in by_text)
        explanation = (f"The condition of the loop at line {lp.line} calls {calls} on every "
                       "iteration although the loop body never changes what it measures; "
                       f"computing it once before the loop (as {', '.join(names)}) removes "
                       "the repeated work" +
                       (" (strlen is linear in the string's length, so the loop was "
                        "quadratic)." if any("strlen" in t for t in by_text) else "."))
        changes.append(Change("hoist-invariant-call", tuple(edits), explanation, (lp.line,)))
    handled = {(c.start_byte, c.end_byte) for lp in all_loops(inp.loops)
               for c in lp.invariant_calls}
    body, more = _body_hoists(inp, taken, handled)
    return changes + body, notes + more


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
