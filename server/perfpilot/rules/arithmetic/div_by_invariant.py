"""The div-by-invariant rule: floating-point division by a value the loop never changes."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from perfpilot.code.facts import FunctionFacts, Loop
from perfpilot.code.syntax import (
    LOOP_TYPES,
    identifiers,
    line,
    node_text,
    number,
    operator,
    root_name,
    walk,
)
from perfpilot.rules.base import Example, RuleSpec
from perfpilot.rules.by_finding import by_finding
from perfpilot.rules.detect.common import code, loop_phrase, operand_text, rng
from perfpilot.rules.edits import Edit
from perfpilot.rules.emit import hoist_above, hoist_slot_ok
from perfpilot.rules.finding import Finding, Proof, depth_bonus, make_finding
from perfpilot.rules.rewrite_input import Left, Node, Planned, RuleInput


@dataclass(frozen=True)
class Divisions(Proof):
    """The divisions (``/`` and ``/=``, in text order) by one divisor (``divisor``: its text)
    inside the outermost loop that never changes it."""

    divisions: tuple[Node, ...]
    divisor: str


def div_by_invariant(facts: FunctionFacts) -> Iterator[Finding]:
    """Floating-point division by a value the loop never changes: one finding per divisor and
    outermost loop that keeps it, holding every such division there."""
    groups: dict[tuple[int, str], list[tuple[Node, Loop]]] = {}
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
        top = loop
        while top.parent is not None and facts.invariant_in(divisor, facts.loops[top.parent]):
            top = facts.loops[top.parent]
        groups.setdefault((top.index, node_text(divisor)), []).append((b, loop))
    for (_top, divisor_text), hits in sorted(groups.items(),
                                                  key=lambda g: g[1][0][0].start_byte):
        hits.sort(key=lambda h: h[0].start_byte)
        b, loop = hits[0]
        divisor = b.child_by_field_name("right")
        assert divisor is not None
        d = code(divisor)
        yield make_finding(
            "div-by-invariant",
            f"`{code(b)}` on line {line(b)} divides by `{d}` on every iteration of "
            f"{loop_phrase(loop)}, but `{d}` does not change in the loop: compute "
            f"`1.0 / {operand_text(divisor)}` once before the loop and multiply (a division costs "
            f"several multiplications' latency). This changes results: the product may differ "
            f"from the quotient in the last bit, so it is rewritten only when the plan accepts "
            f"last-bit changes.",
            [line(b), loop.line],
            loop_range=loop.byte_range, node_range=rng(b),
            names=sorted(identifiers(divisor)),
            bonus=depth_bonus(loop.depth),
            proof=Divisions(tuple(h for h, _ in hits), divisor_text),
        )


# rewrite (only where the plan accepts a last-bit change: see ``registry.LAST_BIT``)

RULE_ID = "div-by-invariant"


def _written(fn: Node, name: str) -> list[Node]:
    """Nodes that write ``name`` (assignments, ``++``/``--``) or take its address."""
    out: list[Node] = []
    for n in walk(fn):
        target: Node | None = None
        if n.type == "assignment_expression":
            target = n.child_by_field_name("left")
        elif n.type == "update_expression" or \
                (n.type == "pointer_expression" and operator(n) == "&"):
            target = n.child_by_field_name("argument")
        if target is not None and root_name(target) == name:
            out.append(n)
    return out


def _inside(node: Node, outer: Node) -> bool:
    return outer.start_byte <= node.start_byte and node.end_byte <= outer.end_byte


def _hoist_loop(inp: RuleInput, div: Node, name: str, writes: list[Node]) -> Node | None:
    """The outermost loop around ``div`` that neither writes nor declares ``name`` and has a
    statement slot above it for the reciprocal."""
    best: Node | None = None
    cur = div.parent
    while cur is not None and cur != inp.function:
        if cur.type in LOOP_TYPES:
            declares = any(n.type in ("init_declarator", "declaration", "parameter_declaration")
                           and name in {node_text(c) for c in n.named_children
                                        if c.type == "identifier"}
                           for n in walk(cur))
            if declares or any(_inside(w, cur) for w in writes):
                break
            if hoist_slot_ok(cur):
                best = cur
        cur = cur.parent
    return best


def reciprocal_fix(inp: RuleInput, finding: Finding) -> Planned | Left:
    """``x / d`` and ``x /= d`` by a ``double`` the loop never changes become multiplications by
    ``1.0 / d`` computed once above the loop. The product may differ from the quotient in the
    last bit, so this runs only where the plan accepts that (never for integers)."""
    proof = finding.proof
    assert isinstance(proof, Divisions)
    first = proof.divisions[0]
    right = first.child_by_field_name("right")
    if right is None or right.type != "identifier":
        return Left("", first, "only a divisor that is one variable is turned into a "
                    "reciprocal")
    name = node_text(right)
    vt = inp.types.get(name)
    if vt is None or not vt.is_float:
        return Left("", first, f"the divisor '{name}' is not floating-point: a division by an "
                    "integer is exact, a product by its reciprocal is not")
    if vt.pointer or vt.array or vt.reference or name in inp.unit_globals or \
            vt.base.replace("const", "").strip() != "double":
        return Left("", first, "only a local or parameter 'double' divisor is turned into a "
                    "reciprocal")
    writes = _written(inp.function, name)
    if any(w.type == "pointer_expression" for w in writes):
        return Left("", first, f"'{name}' has its address taken")
    by_loop: dict[int, tuple[Node, list[Node]]] = {}
    refused = ""
    for div in proof.divisions:
        left = div.child_by_field_name("left")
        if any("long double" in (t.base if (t := inp.types.get(x)) is not None else "")
               for x in identifiers(left)):
            refused = refused or "a 'long double' operand would lose precision to a 'double' " \
                "reciprocal"
            continue
        loop = _hoist_loop(inp, div, name, writes)
        if loop is None:
            refused = refused or f"no loop around it keeps '{name}' unchanged and has a place " \
                "above it for the reciprocal"
            continue
        by_loop.setdefault(loop.start_byte, (loop, []))[1].append(div)
    if not by_loop:
        return Left("", first, refused)
    edits: list[Edit] = []
    for loop, divs in by_loop.values():
        inv = inp.fresh_name(f"inv_{name}")
        edits.append(hoist_above(inp, loop, f"const double {inv} = 1.0 / {name};",
                                 RULE_ID, 0))
        for d in divs:
            op = d.child_by_field_name("operator")
            r = d.child_by_field_name("right")
            assert op is not None and r is not None
            edits.append(Edit(op.start_byte, r.end_byte,
                              f"{'*=' if operator(d) == '/=' else '*'} {inv}", RULE_ID))
    done = [d for _, divs in by_loop.values() for d in divs]
    lines = tuple(dict.fromkeys(inp.line_of(d) for d in done))
    return Planned(
        tuple(edits),
        f"The division by '{name}' on line(s) {', '.join(map(str, lines))} repeats in a "
        f"loop where '{name}' never changes: it is now a multiplication by 1.0 / {name}, "
        "computed once before the loop. This changes results: a product by the reciprocal "
        "can differ from the quotient in the last bit (and by more when the reciprocal of "
        "a tiny divisor overflows); it was made because the plan accepts last-bit changes.",
        tuple(done), includes=())


# The last-bit phase's rewrite (``registry.last_bit_phases``): each finding fixed once.
reciprocal_rewrite = by_finding(div_by_invariant, reciprocal_fix)


RULE = RuleSpec(
    id="div-by-invariant",
    detect=div_by_invariant,
    examples=(
        Example("c", """
void normalize(double *a, int n, double total) {
    for (int i = 0; i < n; ++i) a[i] = a[i] / total;
}
""", "normalize"),
    ),
)
