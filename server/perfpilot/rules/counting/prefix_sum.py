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

from perfpilot.code.facts import FunctionFacts
from perfpilot.code.syntax import (
    identifiers,
    line,
    node_text,
    operator,
    root_name,
    statements,
    unwrap,
)
from perfpilot.rules.base import Example, RuleSpec
from perfpilot.rules.counting.range_sum import RangeSum, element_read, multiplies, range_sums
from perfpilot.rules.detect.common import loop_phrase, rng
from perfpilot.rules.edits import Edit
from perfpilot.rules.emit import hoist_above, indent_unit, replace_statement
from perfpilot.rules.finding import Finding, make_finding
from perfpilot.rules.rewrite_input import (
    Change,
    RuleInput,
    RuleOutput,
    fresh_name,
)

RULE_ID = "prefix-sum"


def prefix_sum(facts: FunctionFacts) -> Iterator[Finding]:
    """A loop summing a range of an unchanged array, re-run for every outer iteration."""
    for inner in facts.loops:
        if inner.parent is None or not inner.counted or inner.var is None or \
                not inner.innermost:
            continue
        stmts = statements(inner.body)
        if len(stmts) != 1 or stmts[0].type != "expression_statement" or \
                not stmts[0].named_children:
            continue
        e = stmts[0].named_children[0]
        if e.type != "assignment_expression" or operator(e) != "+=":
            continue
        value = unwrap(e.child_by_field_name("right"))
        read = element_read(value, inner.var)
        if read is None and value is not None and value.type == "subscript_expression":
            # a member array (`p.v[k]`) is advised too, by its root name
            idx = value.child_by_field_name("indices") or value.child_by_field_name("index")
            root = root_name(value)
            read = (root, None, "+") if root and node_text(idx).strip("[] ") == inner.var else None
        if read is None:
            continue
        array, shift, _sign = read
        if shift is not None and multiplies(shift):
            continue
        outer = facts.loops[inner.parent]
        if array in facts.modified_in(outer.node):
            continue
        # bounds the outer loop never changes sum the same range every time: that is a
        # loop-invariant computation (invariant-inner-loop), not a range query
        changed = facts.modified_in(outer.node) | facts.declared_in(outer.node)
        header = identifiers(inner.init) | identifiers(inner.condition)
        if shift is not None:
            header |= identifiers(shift)
        if not (header - {inner.var}) & (changed | {outer.var} if outer.var else changed):
            continue
        acc = node_text(e.child_by_field_name("left"))
        yield make_finding(
            "prefix-sum",
            f"{loop_phrase(inner)} adds up `{node_text(value)}` over a range again on every "
            f"iteration of {loop_phrase(outer)}, O(n) per query; `{array}` does not change, so "
            f"build prefix sums once (`p[k + 1] = p[k] + {array}[k]`) and get each range sum "
            f"as `p[hi + 1] - p[lo]` in O(1).",
            [line(e), inner.line, outer.line],
            loop_range=outer.byte_range, node_range=rng(inner.node), names=[array, acc],
            data={"array": array, "acc": acc},
            bonus=-0.02,
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


def rewrite(inp: RuleInput) -> RuleOutput:
    """Replace each proved range-summing loop with a difference of prefix sums built once."""
    changes: list[Change] = []
    notes: list[str] = []
    taken = set(inp.taken)
    unit = indent_unit(inp.text)
    built: dict[tuple[int, str], str] = {}  # (loop start, array) -> prefix sums name
    # the loops detection reports: each ends in a rewrite or in a note
    reported = {f.node_range for f in prefix_sum(inp.facts)}
    for lp, found in range_sums(inp.facts):
        if isinstance(found, str):
            if (lp.node.start_byte, lp.node.end_byte) in reported:
                notes.append(f"{RULE_ID}: the loop at line {inp.line_of(lp.node)} stays: "
                             f"{found}")
            continue
        if inp.language != "cpp":
            notes.append(f"{RULE_ID}: the loop at line {inp.line_of(found.inner)} stays: the "
                         "prefix sums would need a buffer C cannot size here without malloc")
            continue
        edits: list[Edit] = []
        key = (found.top.start_byte, found.array)
        p = built.get(key)
        if p is None:
            p = fresh_name(taken, f"prefix_{found.array}")
            j = fresh_name(taken | {p}, "i")
            taken.update((p, j))
            built[key] = p
            edits.append(hoist_above(inp, found.top, _build(found, p, j, unit), RULE_ID,
                                     order=-25))
        made = replace_statement(inp, found.inner, _replacement(inp, found, p, unit), RULE_ID)
        if made is None:
            notes.append(f"{RULE_ID}: the loop at line {inp.line_of(found.inner)} stays: it "
                         "cannot be replaced by statements here")
            continue
        edits.append(made)
        changes.append(Change(
            RULE_ID, tuple(edits),
            f"The loop at line {inp.line_of(found.inner)} summed '{found.array}' from "
            f"{found.lo} to {found.hi} on every iteration; prefix sums of '{found.array}' "
            f"built once before line {inp.line_of(found.top)} give each sum as one "
            "difference, O(1) instead of O(n).",
            (inp.line_of(found.inner), inp.line_of(found.top)), ("<type_traits>", "<vector>")))
    return changes, notes


RULE = RuleSpec(
    id=RULE_ID,
    detect=prefix_sum,
    rewrite=rewrite,
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
