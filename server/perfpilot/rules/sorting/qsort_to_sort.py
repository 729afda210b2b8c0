"""The qsort-to-sort rule: ``qsort`` over integers with a plain three-way comparator.

``qsort`` calls its comparator through a function pointer for every comparison and moves
elements byte by byte through ``void*``; ``std::sort`` over the same pointers inlines ``<`` and
moves typed values, typically two to three times faster. The rewrite needs proof that both sort
into the same sequence: the comparator orders two elements by value only
(``comparator.py``), with the element type the call sorts (``sizeof`` and the array agree),
and that type is an integer, whose equal elements cannot be told apart, so that neither sort's
instability shows. Floating elements stay (``-0.0`` and ``0.0`` compare equal but differ).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from perfpilot.code.declarations import VarType
from perfpilot.code.facts import FunctionFacts
from perfpilot.code.syntax import (
    Node,
    arguments,
    callee,
    line,
    node_text,
    operator,
    receiver,
)
from perfpilot.rules.base import Example, RuleSpec
from perfpilot.rules.detect.common import code, cpp, rng
from perfpilot.rules.edits import Edit
from perfpilot.rules.emit import ADDITIVE, precedence
from perfpilot.rules.finding import Finding, Proof, make_finding
from perfpilot.rules.rewrite_input import Left, Planned, RuleInput
from perfpilot.rules.sorting.comparator import SUBTRACTABLE, Comparator, comparator, type_words

RULE_ID = "qsort-to-sort"


@dataclass(frozen=True)
class QsortCall(Proof):
    """A ``qsort`` call proved to sort integers by value: the call, its base pointer and
    count, the comparator's order and name."""

    call: Node
    base: str  # the first element's pointer, as written (evaluated twice by std::sort)
    count: Node
    order: Comparator
    name: str  # the comparator's name, or "a lambda"

    def replacement(self) -> str:
        n = node_text(self.count)
        # the count is the right operand of `+`: a product or call binds tighter
        n = n if precedence(self.count) > ADDITIVE else f"({n})"
        extra = f", std::greater<{self.order.element}>()" if self.order.descending else ""
        return f"std::sort({self.base}, {self.base} + {n}{extra})"


def _definition(name: str, unit: Node) -> tuple[Node | None, Node] | None:
    """Parameters and body of the one top-level function ``name`` of the unit."""
    found: list[tuple[Node | None, Node]] = []
    for n in unit.named_children:
        if n.type != "function_definition":
            continue
        decl = n.child_by_field_name("declarator")
        body = n.child_by_field_name("body")
        if decl is None or decl.type != "function_declarator" or body is None:
            continue
        if node_text(decl.child_by_field_name("declarator")) == name:
            found.append((decl.child_by_field_name("parameters"), body))
    return found[0] if len(found) == 1 else None


def _comparator_of(arg: Node, unit: Node) -> tuple[Comparator, str] | None:
    while arg.type == "pointer_expression" and operator(arg) == "&":
        arg = arg.child_by_field_name("argument") or arg
    if arg.type == "lambda_expression":
        capture = arg.child_by_field_name("captures")
        decl = arg.child_by_field_name("declarator")
        body = arg.child_by_field_name("body")
        if (capture is not None and capture.named_children) or decl is None or body is None:
            return None
        order = comparator(decl.child_by_field_name("parameters"), body)
        return (order, "a lambda") if order is not None else None
    if arg.type != "identifier":
        return None
    found = _definition(node_text(arg), unit)
    if found is None:
        return None
    order = comparator(*found)
    return (order, f"`{node_text(arg)}`") if order is not None else None


def _element(facts: FunctionFacts, base: Node) -> tuple[VarType, str] | None:
    """The element type and the array's root name of the base pointer argument."""
    if base.type == "identifier":
        v = facts.var(node_text(base))
        if v is None or not (v.pointer == 1 or (v.array and not v.pointer)):
            return None
        el = v.element
        return (el, node_text(base)) if el is not None else None
    if base.type == "call_expression" and callee(base) == "data" and not arguments(base):
        r = receiver(base)
        v = facts.var(node_text(r)) if r is not None and r.type == "identifier" else None
        el = v.element if v is not None and not v.pointer else None
        return (el, node_text(r)) if el is not None and r is not None else None
    return None


def _size_matches(size: Node, element: str, array: str, base: Node) -> bool:
    if size.type != "sizeof_expression":
        return False
    t = size.child_by_field_name("type")
    if t is not None:
        return type_words(node_text(t)) == element
    value = size.child_by_field_name("value")
    while value is not None and value.type == "parenthesized_expression" and \
            value.named_children:
        value = value.named_children[0]
    if value is None:
        return False
    flat = "".join(node_text(value).split())
    return flat in (f"*{array}", f"{array}[0]", f"*{node_text(base)}", f"{node_text(base)}[0]")


def _sites(facts: FunctionFacts, unit: Node) -> Iterator[QsortCall]:
    if not cpp(facts):
        return  # C has no std::sort
    for call in facts.nodes("call_expression"):
        if callee(call) != "qsort" or receiver(call) is not None or \
                node_text(call.child_by_field_name("function")) not in ("qsort", "std::qsort",
                                                                    "::qsort"):
            continue
        args = arguments(call)
        if len(args) != 4 or call.parent is None or call.parent.type != "expression_statement":
            continue
        base, count, size, cmp = args
        el = _element(facts, base)
        found = _comparator_of(cmp, unit)
        if el is None or found is None:
            continue
        (vt, array), (order, name) = el, found
        element = type_words(vt.base)
        if not vt.is_integral or vt.pointer or element != order.element or \
                (order.subtracts and element not in SUBTRACTABLE) or \
                not _size_matches(size, element, array, base):
            continue
        yield QsortCall(call, node_text(base), count, order, name)


def qsort_to_sort(facts: FunctionFacts) -> Iterator[Finding]:
    """``qsort`` with a comparator that orders integers by value."""
    for s in _sites(facts, facts.unit):
        yield make_finding(
            RULE_ID,
            f"`{code(s.call)}` on line {line(s.call)} calls {s.name} through a function "
            f"pointer for every comparison and moves elements as untyped bytes; "
            f"{s.name} only orders the `{s.order.element}` values "
            f"{'descending' if s.order.descending else 'ascending'}, so `{s.replacement()}` "
            "gives the same array with the comparison inlined, typically 2-3x faster.",
            [line(s.call)], node_range=rng(s.call), names=[s.base],
            proof=s,
        )


def qsort_to_sort_fix(inp: RuleInput, finding: Finding) -> Planned | Left:
    """The proved ``qsort`` call replaced with ``std::sort``."""
    s = finding.proof
    assert isinstance(s, QsortCall)
    includes = ("<algorithm>", "<functional>") if s.order.descending else ("<algorithm>",)
    return Planned(
        (Edit(s.call.start_byte, s.call.end_byte, s.replacement(), RULE_ID),),
        f"The qsort at line {inp.line_of(s.call)} compares {s.order.element} values by "
        f"value only, so std::sort sorts them into the same order with the comparison "
        "inlined instead of called through a pointer.",
        (s.call,), includes)


RULE = RuleSpec(
    id=RULE_ID,
    detect=qsort_to_sort,
    fix=qsort_to_sort_fix,
    rewrites_as=frozenset({RULE_ID}),
    phase=1,
    order=9,
    examples=(
        Example("cpp", """
#include <cstdlib>
#include <vector>
static int by_value(const void* a, const void* b) {
    int x = *(const int*)a, y = *(const int*)b;
    return (x > y) - (x < y);
}
int median(std::vector<int> v) {
    std::qsort(v.data(), v.size(), sizeof(int), by_value);
    return v.empty() ? 0 : v[v.size() / 2];
}
""", "median"),
    ),
)
