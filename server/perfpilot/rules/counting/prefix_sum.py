"""The prefix-sum rule: a loop summing a range of an unchanged array, re-run for every outer
iteration.

Rewrite (C++): prefix sums of the whole container built once, just before the outermost loop
that leaves the container alone, and the summing loop replaced by one subtraction.
``range_sum.py`` proves the replacement exact (integers only, computed modulo 2^w in the
accumulator's unsigned type; see there for every condition).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

from perfpilot.code.facts import FunctionFacts, Loop
from perfpilot.code.syntax import (
    Node,
    identifiers,
    line,
    node_text,
    operator,
    root_name,
    statements,
    unwrap,
)
from perfpilot.rules.base import Example, RuleSpec
from perfpilot.rules.counting.range_sum import RangeSum, element_read, multiplies, range_sum_at
from perfpilot.rules.detect.common import loop_phrase, rng
from perfpilot.rules.emit import hoist_above, indent_unit, replace_statement
from perfpilot.rules.finding import Finding, Proof, make_finding
from perfpilot.rules.rewrite_input import Left, Planned, RuleInput

RULE_ID = "prefix-sum"


@dataclass(frozen=True)
class PrefixSums(Proof):
    """The proved range sums over ``array`` nested in the loop ``top`` (the outermost one that
    leaves ``array`` alone): one array of prefix sums, built just before ``top``, answers
    them all."""

    top: Node
    array: str
    sums: tuple[RangeSum, ...]


@dataclass(frozen=True)
class NotARangeSum(Proof):
    """A loop that sums a range again on every outer iteration (the advice stands) but whose
    replacement is not proved exact, and why."""

    loop: Node
    why: str


@dataclass(frozen=True)
class _Advice:
    """What the plan says of a summing loop: the element added and the accumulator."""

    value: Node
    array: str
    acc: str


def _advice(facts: FunctionFacts, inner: Loop) -> _Advice | None:
    """The summing loop's element and accumulator when it adds up a range of an array the
    loop around it does not change, a range that moves with that loop."""
    if inner.parent is None or not inner.counted or inner.var is None or not inner.innermost:
        return None
    stmts = statements(inner.body)
    if len(stmts) != 1 or stmts[0].type != "expression_statement" or \
            not stmts[0].named_children:
        return None
    e = stmts[0].named_children[0]
    if e.type != "assignment_expression" or operator(e) != "+=":
        return None
    value = unwrap(e.child_by_field_name("right"))
    read = element_read(value, inner.var)
    if read is None and value is not None and value.type == "subscript_expression":
        # a member array (`p.v[k]`) is advised too, by its root name
        idx = value.child_by_field_name("indices") or value.child_by_field_name("index")
        root = root_name(value)
        read = (root, None, "+") if root and node_text(idx).strip("[] ") == inner.var else None
    if read is None or value is None:
        return None
    array, shift, _sign = read
    if shift is not None and multiplies(shift):
        return None
    outer = facts.loops[inner.parent]
    if array in facts.modified_in(outer.node):
        return None
    header = identifiers(inner.init) | identifiers(inner.condition) | identifiers(shift)
    if not _moves(facts, inner, header):
        return None
    return _Advice(value, array, node_text(e.child_by_field_name("left")))


def _moves(facts: FunctionFacts, inner: Loop, header: set[str]) -> bool:
    """Whether the range the loop sums (the names its header and index shift read) changes
    with the loop around it: bounds the outer loop never changes sum the same range every
    time, a loop-invariant computation (invariant-inner-loop), not a range query."""
    if inner.parent is None:
        return False
    outer = facts.loops[inner.parent]
    changed = facts.modified_in(outer.node) | facts.declared_in(outer.node)
    return bool((header - {inner.var}) & (changed | {outer.var} if outer.var else changed))


def _summed(inner: Loop) -> Node | None:
    """The value a proved range sum adds (``a[k]`` of ``s += a[k]`` or ``s = s + a[k]``)."""
    stmts = statements(inner.body)
    e = unwrap(stmts[0].named_children[0]) if stmts and stmts[0].named_children else None
    right = unwrap(e.child_by_field_name("right")) if e is not None else None
    if right is not None and e is not None and operator(e) == "=":
        right = right.child_by_field_name("right")
    return right


def prefix_sum(facts: FunctionFacts) -> Iterator[Finding]:
    """A loop summing a range of an unchanged array, re-run for every outer iteration: one
    finding per array of prefix sums (the proved sums over one array under one loop), and
    one for each loop advised whose replacement is not proved."""
    groups: dict[tuple[int, str], list[tuple[Loop, RangeSum]]] = {}
    for inner in facts.loops:
        if inner.parent is None or not inner.innermost:
            continue
        advice = _advice(facts, inner)
        proved = range_sum_at(facts, inner) if inner.kind == "for" else "not a counted for loop"
        if isinstance(proved, RangeSum):
            reads = identifiers(inner.init) | identifiers(inner.condition)
            if advice is not None or _moves(facts, inner, reads | _shift_names(proved)):
                groups.setdefault((proved.top.start_byte, proved.array), []).append(
                    (inner, proved))
        elif advice is not None:
            yield _finding(facts, inner, advice.value, advice.array, advice.acc,
                           NotARangeSum(inner.node, proved))
    for found in groups.values():
        inner, first = found[0]
        value = _summed(inner)
        yield _finding(facts, inner, value, first.array, first.acc,
                       PrefixSums(first.top, first.array, tuple(s for _, s in found)),
                       [lp for lp, _ in found[1:]])


def _shift_names(found: RangeSum) -> set[str]:
    return set(re.findall(r"[A-Za-z_]\w*", found.shift))


def _finding(facts: FunctionFacts, inner: Loop, value: Node | None, array: str, acc: str,
             proof: Proof, more: list[Loop] | None = None) -> Finding:
    assert inner.parent is not None
    outer = facts.loops[inner.parent]
    summed = f"`{node_text(value)}`" if value is not None else f"elements of `{array}`"
    others = more or []
    also = f" (and {len(others)} more loop{'s' if len(others) > 1 else ''} summing it)" \
        if others else ""
    return make_finding(
        RULE_ID,
        f"{loop_phrase(inner)}{also} adds up {summed} over a range again on every "
        f"iteration of {loop_phrase(outer)}, O(n) per query; `{array}` does not change, so "
        f"build prefix sums once (`p[k + 1] = p[k] + {array}[k]`) and get each range sum "
        f"as `p[hi + 1] - p[lo]` in O(1).",
        [line(value) if value is not None else inner.line, inner.line, outer.line,
         *(lp.line for lp in others)],
        loop_range=outer.byte_range, node_range=rng(inner.node), names=[array, acc],
        bonus=-0.02, proof=proof,
    )


def _paren(expr: str) -> str:
    """``expr`` as an operand: bare when it is a name, number, element, member or call (what
    brackets and parentheses hold binds inside them), else parenthesized."""
    outside = expr.strip()
    while True:
        inner = re.sub(r"\[[^\[\]]*\]|\([^()]*\)", "", outside)
        if inner == outside:
            break
        outside = inner
    return expr.strip() if re.fullmatch(r"(?:[\w.]|->)*", outside) else f"({expr})"


def _index(expr: str, found: RangeSum, plus_one: bool) -> str:
    """The element index at counter value ``expr`` (shifted as the loop's index is), plus one
    when asked, parenthesised when it is not a plain name."""
    inner = _paren(expr)
    if found.shift and inner == "0":
        inner = _paren(found.shift) if found.sign == "+" else f"-{_paren(found.shift)}"
    elif found.shift:
        inner = f"{inner} {found.sign} {_paren(found.shift)}"
    return f"{inner} + 1" if plus_one else inner


_UNSIGNED = {"int": "unsigned", "long": "unsigned long", "long long": "unsigned long long",
             "short": "unsigned short", "long int": "unsigned long",
             "long long int": "unsigned long long"}


def _unsigned(acc_type: str) -> str:
    """The unsigned type of the accumulator's width (``unsigned long long`` for ``long
    long``; ``std::make_unsigned_t<T>`` for a type named otherwise)."""
    words = " ".join(acc_type.replace("signed", "").split())
    if acc_type.startswith("unsigned"):
        return acc_type
    return _UNSIGNED.get(words, f"std::make_unsigned_t<{acc_type}>")


def _build(found: RangeSum, p: str, j: str, unit: str) -> list[str]:
    """The statements building the prefix sums ``p`` over the whole container."""
    u = _unsigned(found.acc_type)
    a = found.array
    # unsigned sums wrap, so differences are exact modulo 2^w (an element converts to the
    # unsigned type as it would to the accumulator's, then modulo 2^w)
    return [f"std::vector<{u}> {p}({a}.size() + 1);",
            f"for (std::size_t {j} = 0; {j} < {a}.size(); ++{j})\n"
            f"{unit}{p}[{j} + 1] = {p}[{j}] + static_cast<{u}>({a}[{j}]);"]


def _replacement(inp: RuleInput, found: RangeSum, p: str, unit: str) -> list[str]:
    """The O(1) range sum standing for the summing loop (a block when the counter needs a
    name of its own: a lower bound that is more than a name or number)."""
    k, s = found.counter, found.acc
    op = "<=" if found.inclusive else "<"
    lo = found.lo.strip()
    vt = inp.types.get(lo) if re.fullmatch(r"[A-Za-z_]\w*", lo) else None
    # a lower bound of the counter's own type may stand for it (no conversion between them)
    simple = vt is not None and not vt.pointer and not vt.array and \
        vt.base.replace("const", "").strip() == found.counter_type.replace("const", "").strip()
    # a small literal converts to any integer counter unchanged (a signed one: no test of an
    # unsigned value against 0 that is always true)
    literal = re.fullmatch(r"\d{1,9}", lo) is not None and \
        "unsigned" not in found.counter_type and "size_t" not in found.counter_type
    simple = simple or literal
    at = lo if simple else k
    # the counter keeps its type and the loop's test, so an empty range adds nothing
    add = (f"{s} += static_cast<{found.acc_type}>({p}[{_index(found.hi, found, found.inclusive)}]"
           f" - {p}[{_index(at, found, False)}]);")
    test = f"{found.hi} {'>' if op == '<' else '>='} 0" if at == "0" else \
        f"{at} {op} {found.hi}"
    guard = f"if ({test})\n{unit}{add}"
    if simple:
        return [guard]
    return ["{\n" + f"{unit}const {found.counter_type} {k} = {found.lo};\n"
            + "\n".join(unit + line for line in guard.split("\n")) + "\n}"]


def fix(inp: RuleInput, finding: Finding) -> Planned | Left:
    """Prefix sums of the array built once before the loop the finding proved, and each of
    its summing loops replaced by one difference."""
    proof = finding.proof
    if isinstance(proof, NotARangeSum):
        return Left("the loop", proof.loop, proof.why)
    assert isinstance(proof, PrefixSums)
    first = proof.sums[0]
    if inp.language != "cpp":
        return Left("the loop", first.inner, "the prefix sums would need a buffer C cannot "
                    "size here without malloc")
    unit = indent_unit(inp.text)
    p = inp.fresh_name(f"prefix_{proof.array}")
    j = inp.fresh_name("i")
    edits = [hoist_above(inp, proof.top, _build(first, p, j, unit), RULE_ID, order=-25)]
    for found in proof.sums:
        made = replace_statement(inp, found.inner, _replacement(inp, found, p, unit), RULE_ID)
        if made is None:
            return Left("the loop", found.inner, "it cannot be replaced by statements here")
        edits.append(made)
    return Planned(
        tuple(edits),
        f"The loop at line {inp.line_of(first.inner)} summed '{first.array}' from "
        f"{first.lo} to {first.hi} on every iteration; prefix sums of '{first.array}' "
        f"built once before line {inp.line_of(proof.top)} give each sum as one "
        "difference, O(1) instead of O(n).",
        (*(s.inner for s in proof.sums), proof.top), ("<type_traits>", "<vector>"))


RULE = RuleSpec(
    id=RULE_ID,
    detect=prefix_sum,
    fix=fix,
    rewrites_as=frozenset({RULE_ID}),
    phase=0,  # the loop it replaces must not be parallelised or unrolled first
    order=7,
    examples=(
        Example("cpp", """
#include <vector>
long long total(const std::vector<int>& a, const int *lo, const int *hi, int q) {
    long long all = 0;
    for (int k = 0; k < q; k++) {
        long long s = 0;
        for (int i = lo[k]; i <= hi[k]; i++)
            s += a[i];
        all += s;
    }
    return all;
}
""", "total"),
        Example("cpp", """
#include <vector>
long best_range(const std::vector<long>& a) {
    long best = a.empty() ? 0 : a[0];
    for (std::size_t i = 0; i < a.size(); ++i)
        for (std::size_t j = i; j < a.size(); ++j) {
            long s = 0;
            for (std::size_t k = i; k <= j; ++k) s += a[k];
            if (s > best) best = s;
        }
    return best;
}
""", "best_range"),
    ),
)
