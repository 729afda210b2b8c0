"""Numerical Computation and Instruction-Level: pow, division, power-of-two modulo."""

from __future__ import annotations

from collections.abc import Iterator

from perfpilot.code.facts import FunctionFacts
from perfpilot.code.parse import unwrap
from perfpilot.code.syntax import (
    Node,
    identifiers,
    line,
    number,
    operator,
    root_name,
    text,
)
from perfpilot.rules.detect.common import code, loop_phrase, rng
from perfpilot.rules.finding import Finding, depth_bonus, make_finding

_SIGNED = frozenset({"int", "long", "long long", "short", "int32_t", "int64_t", "std::int32_t",
                     "std::int64_t", "signed", "long int", "signed char"})


def _simple(node: Node) -> str:
    s = code(node, 60)
    inner = unwrap(node)
    simple = inner is not None and inner.type in (
        "identifier", "subscript_expression", "field_expression", "number_literal")
    return s if simple else f"({s})"


def div_by_invariant(facts: FunctionFacts) -> Iterator[Finding]:
    """Floating-point division by a value the loop never changes."""
    seen: set[tuple[int, str]] = set()
    for b in facts.in_loops("binary_expression") + facts.in_loops("assignment_expression"):
        op = operator(b)
        if op not in ("/", "/="):
            continue
        loop = facts.loop_of(b)
        if loop is None:
            continue
        divisor = b.child_by_field_name("right")
        if divisor is None or number(divisor) is not None:
            continue
        if not identifiers(divisor) or not facts.invariant_in(divisor, loop):
            continue
        left = b.child_by_field_name("left")
        floats = [facts.var(n) for n in identifiers(divisor) | identifiers(left)]
        if not any(v is not None and v.is_float and not v.pointer for v in floats) and \
                not any(v is not None and v.is_float and v.pointer and
                        root_name(left) == v.name for v in floats):
            continue
        key = (loop.index, text(divisor))
        if key in seen:
            continue
        seen.add(key)
        d = code(divisor)
        yield make_finding(
            "div-by-invariant",
            f"`{code(b)}` on line {line(b)} divides by `{d}` on every iteration of "
            f"{loop_phrase(loop)}, but `{d}` does not change in the loop: compute "
            f"`1.0 / {_simple(divisor)}` once before the loop and multiply (a division costs "
            f"several multiplications' latency; the result may differ in the last bit).",
            [line(b), loop.line],
            loop_range=loop.byte_range, node_range=rng(b),
            names=sorted(identifiers(divisor)),
            data={"divisor": text(divisor)},
            bonus=depth_bonus(loop.depth),
        )


def pow2_divmod(facts: FunctionFacts) -> Iterator[Finding]:
    """``x % 8`` / ``x / 8`` on a signed integer in a loop."""
    for b in facts.in_loops("binary_expression"):
        op = operator(b)
        if op not in ("%", "/"):
            continue
        k = number(b.child_by_field_name("right"))
        if k is None or k < 2 or k != int(k) or int(k) & (int(k) - 1):
            continue
        loop = facts.loop_of(b)
        left = b.child_by_field_name("left")
        name = root_name(left) if left is not None and left.type == "identifier" else None
        v = facts.var(name)
        if loop is None or name is None or v is None or v.pointer or v.base not in _SIGNED:
            continue
        kk = int(k)
        fast = f"{name} & {kk - 1}" if op == "%" else f"{name} >> {kk.bit_length() - 1}"
        yield make_finding(
            "pow2-divmod",
            f"`{code(b)}` on line {line(b)} in {loop_phrase(loop)}: `{name}` is a signed "
            f"`{v.base}`, so the compiler must add fix-up instructions for negative values; if "
            f"`{name}` is never negative, write `{fast}` (or make it unsigned).",
            [line(b), loop.line],
            loop_range=loop.byte_range, node_range=rng(b), names=[name],
            data={"replacement": fast},
            bonus=depth_bonus(loop.depth),
        )


def mod_wrap(facts: FunctionFacts) -> Iterator[Finding]:
    """A cyclic counter ``k = (k + 1) % n`` in a loop: an integer division per iteration."""
    for a in facts.in_loops("assignment_expression"):
        if operator(a) != "=":
            continue
        left, right = a.child_by_field_name("left"), unwrap(a.child_by_field_name("right"))
        if left is None or left.type != "identifier" or right is None or \
                right.type != "binary_expression" or operator(right) != "%":
            continue
        k = text(left)
        inc = unwrap(right.child_by_field_name("left"))
        n = right.child_by_field_name("right")
        if inc is None or n is None or number(n) is not None or inc.type != "binary_expression" \
                or operator(inc) != "+" or text(inc.child_by_field_name("left")) != k \
                or number(inc.child_by_field_name("right")) != 1.0:
            continue
        loop = facts.loop_of(a)
        if loop is None or not facts.invariant_in(n, loop):
            continue
        bound = code(n)
        yield make_finding(
            "mod-wrap",
            f"`{code(a)}` on line {line(a)} wraps the counter `{k}` with an integer division "
            f"on every iteration of {loop_phrase(loop)} (tens of cycles each); since `{k}` only "
            f"steps by one, compare and reset instead: `if (++{k} == {bound}) {k} = 0;`.",
            [line(a), loop.line],
            loop_range=loop.byte_range, node_range=rng(a), names=[k, *sorted(identifiers(n))],
            data={"var": k, "bound": text(n),
                  "replacement": f"if (++{k} == {bound}) {k} = 0;"},
            bonus=depth_bonus(loop.depth),
        )
