"""The call-in-hot-loop rule: calls the compiler may not inline in an innermost loop: interposable
or indirect.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from perfpilot.code.facts import FunctionFacts
from perfpilot.code.locate import iter_function_nodes
from perfpilot.code.syntax import (
    Node,
    callee,
    declarator_name,
    line,
    node_text,
    receiver,
)
from perfpilot.rules.base import Example, RuleSpec
from perfpilot.rules.detect.common import code, loop_phrase, rng
from perfpilot.rules.finding import Finding, Proof, depth_bonus, make_finding


@dataclass(frozen=True)
class HotCall(Proof):
    """A call in an innermost loop that the compiler may not inline: through a function
    pointer or ``std::function`` (``indirect``, no definition), or to a small function of the
    unit with external linkage (``interposable``, its ``definition``)."""

    call: Node
    callee: str
    kind: str
    definition: Node | None


def call_in_hot_loop(facts: FunctionFacts) -> Iterator[Finding]:
    """Calls the compiler may not inline in an innermost loop: interposable or indirect."""
    indirect = {p.name for p in facts.site.params
                if "(*" in p.type_text or "function<" in p.base}
    indirect |= {v.name for v in facts.vars.values()
                 if v.scope == "local" and "function<" in v.base and not v.pointer}
    hot = [c for c in facts.in_loops("call_expression") if receiver(c) is None
           and (lp := facts.loop_of(c)) is not None and lp.innermost]
    if not hot:
        return
    defined: dict[str, Node] = {}
    wanted = {callee(c) for c in hot}
    for other in iter_function_nodes(facts.unit):
        decl = other.child_by_field_name("declarator")
        name = declarator_name(decl.child_by_field_name("declarator")) if decl is not None \
            and decl.type == "function_declarator" else None
        if name in wanted and other.start_byte != facts.fn.start_byte:
            defined.setdefault(name, other)
    reported: set[str] = set()
    for call in hot:
        loop = facts.loop_of(call)
        assert loop is not None
        name = callee(call)
        if name in reported:
            continue
        fn = defined.get(name)
        if name in indirect:
            reported.add(name)
            held = facts.var(name)
            local = held is not None and held.scope == "local"
            yield make_finding(
                "call-in-hot-loop",
                f"`{code(call)}` on line {line(call)} calls through `{name}` (a function pointer "
                f"or `std::function`) on every iteration of {loop_phrase(loop)}; an indirect "
                f"call cannot be inlined or vectorized: "
                + ("hold the lambda in an `auto` variable (its own type) so the call inlines."
                   if local else
                   f"make `{name}` a template parameter (a lambda or functor type) so the call "
                   f"inlines."),
                [line(call), loop.line],
                loop_range=loop.byte_range, node_range=rng(call), names=[name],
                bonus=depth_bonus(loop.depth),
                proof=HotCall(call, name, "indirect", None),
            )
            continue
        if fn is None:
            continue
        spec = {node_text(c) for c in fn.children
                if c.type in ("storage_class_specifier", "function_specifier")}
        spec |= {node_text(c) for c in fn.children if node_text(c) == "inline"}
        if "static" in spec or "inline" in spec or (fn.parent is not None and fn.parent.type in (
                "template_declaration", "field_declaration_list")):
            continue
        if fn.parent is not None and fn.parent.type == "declaration_list" and any(
                a.type == "namespace_definition" and a.child_by_field_name("name") is None
                for a in [fn.parent.parent] if a is not None):
            continue  # anonymous namespace: internal linkage
        size = fn.end_point[0] - fn.start_point[0] + 1
        if size > 15:
            continue
        reported.add(name)
        yield make_finding(
            "call-in-hot-loop",
            f"`{code(call)}` on line {line(call)} calls `{name}` (defined on line "
            f"{fn.start_point[0] + 1}, {size} line{'s' if size > 1 else ''}) on every "
            f"iteration of {loop_phrase(loop)}; "
            f"`{name}` has external linkage: where the file is built as position-independent "
            f"code (`-fPIC`, as for a shared library) GCC assumes it may be interposed and does "
            f"not inline it. Declared `static inline`, it inlines in every build (or build with "
            f"`-fno-semantic-interposition`).",
            [line(call), loop.line, fn.start_point[0] + 1],
            loop_range=loop.byte_range, node_range=rng(call), names=[name],
            bonus=depth_bonus(loop.depth),
            proof=HotCall(call, name, "interposable", fn),
        )


RULE = RuleSpec(
    id="call-in-hot-loop",
    detect=call_in_hot_loop,
    examples=(
        Example("cpp", """
#include <functional>
#include <vector>
double apply_all(const std::vector<double> &v, double scale) {
    std::function<double(double)> f = [scale](double x) { return x * scale; };
    double total = 0.0;
    for (double x : v)
        total += f(x);
    return total;
}
""", "apply_all"),
        Example("cpp", """
int twice(int x) { return 2 * x; }
int total(const int *a, int n) {
    int s = 0;
    for (int i = 0; i < n; ++i) s += twice(a[i]);
    return s;
}
""", "total"),
    ),
)
