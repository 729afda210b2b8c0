"""The loop-interchange rule: nested loops whose inner variable indexes the outer (slow) dimension
of 2-D data, where the dependence test the rewriter applies allows the swap (a perfect nest,
iterations independent): an imperfect nest with carried dependences is never offered one.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from perfpilot.code.declarations import VarType
from perfpilot.code.dependence import interchange_blocker
from perfpilot.code.facts import FunctionFacts, Loop
from perfpilot.code.nest_order import Nest, header_moves, order_blocker, perfect_nest
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
from perfpilot.rules.by_finding import by_finding
from perfpilot.rules.detect.common import code, loop_phrase, rng
from perfpilot.rules.edits import Edit
from perfpilot.rules.finding import Finding, Proof, depth_bonus, make_finding
from perfpilot.rules.parallel.openmp import overlaps
from perfpilot.rules.parallel.openmp_patterns.reorder_guard import (
    ReorderGuard,
    reorder_guard,
    reordered,
)
from perfpilot.rules.parallel.openmp_patterns.work import gated_slot_ok
from perfpilot.rules.rewrite_input import Left, Planned, RuleInput, RuleOutput

# detection



@dataclass(frozen=True)
class Interchange(Proof):
    """The nest to swap: the ``outer`` loop and the ``inner`` one nested in it, whose variable
    indexes the slow dimension of ``arrays``; ``perfect`` when the inner loop is all the outer
    one's body. Detection proved the swap independent of accumulations' order allowed."""

    outer: Loop
    inner: Loop
    arrays: tuple[str, ...]
    perfect: bool


def _element_order_blocker(outer: Node, types: dict[str, VarType | None]) -> str:
    """Why swapping the two loops of the perfect nest at ``outer`` would change the order in
    which some element is updated (``s[i + j]`` is written by many iterations, whose order the
    swap reverses), or "". Independent iterations are not enough: the swap runs the same
    iterations in another order, so every element's updates must keep theirs (``nest_order``).
    An accumulation into a scalar is left to ``interchange_blocker``'s own rule."""
    nest = perfect_nest(outer, types)
    if not isinstance(nest, Nest) or len(nest.vars) != 2:
        return ""
    return order_blocker(nest, nest.vars[::-1], types, allow_reductions=True)

@dataclass(frozen=True)
class _Nest:
    """Two nested loops that walk 2-D data against its storage order (``examples`` are the
    accesses that do), and why swapping them could change a result ("" when it cannot)."""

    outer: Loop
    inner: Loop
    examples: tuple[Node, ...]
    blocker: str


def _against_storage_order(facts: FunctionFacts) -> Iterator[_Nest]:
    """Every pair of nested loops whose inner variable indexes the outer (slow) dimension of
    2-D data more often than the fast one, with why a swap could change a result."""
    for inner in facts.loops:
        if inner.parent is None or not inner.counted or inner.var is None:
            continue
        outer = facts.loops[inner.parent]
        if outer.var is None or outer.var == inner.var:
            continue
        column, row, examples = _access_order(facts, inner, outer.var, inner.var)
        if column == 0 or column < row:
            continue
        blocker = interchange_blocker(outer.node, facts.loop_types, allow_reductions=True) or \
            _element_order_blocker(outer.node, facts.loop_types)
        yield _Nest(outer, inner, tuple(examples), blocker)


def loop_interchange(facts: FunctionFacts) -> Iterator[Finding]:
    """Nested loops whose inner variable indexes the outer (slow) dimension of 2-D data, where
    the dependence test the rewriter applies allows the swap (a perfect nest, iterations
    independent): an imperfect nest with carried dependences is never offered one."""
    return _findings(facts, _against_storage_order(facts))


def _findings(facts: FunctionFacts, nests: Iterable[_Nest]) -> Iterator[Finding]:
    """The findings of the ``nests`` no blocker keeps in their order."""
    for nest in nests:
        if nest.blocker:
            continue
        outer, inner, examples = nest.outer, nest.inner, nest.examples
        arrays = sorted({root_name(e) or "" for e in examples} - {""})
        perfect = len(statements(outer.body)) == 1
        ex = examples[0]
        ov = overlaps(facts.site.params, facts.loop_types, facts.loop_facts(outer))
        shared = sorted({*ov.pointers, *(n for pair in ov.references for n in pair)})
        caveat = (f" A caller may pass {', '.join(f'`{n}`' for n in shared)} as overlapping "
                  "storage, where the order matters: swap them only behind a run-time test "
                  "that they do not overlap, or when callers never do." if shared else "")
        yield make_finding(
            "loop-interchange",
            f"{loop_phrase(inner)} is nested in {loop_phrase(outer)} but accesses "
            f"`{code(ex)}` (line {line(ex)}): consecutive iterations of `{inner.var}` touch "
            f"elements a whole row apart, so nearly every access misses cache. Interchange the "
            f"loops on lines {outer.line} and {inner.line} so `{inner.var}` is the outer loop "
            f"(or transpose {', '.join(f'`{a}`' for a in arrays)}) to walk memory in storage "
            f"order.{caveat}",
            [line(ex), outer.line, inner.line],
            loop_range=outer.byte_range, node_range=rng(inner.node),
            names=[outer.var or "", inner.var or "", *arrays],
            proof=Interchange(outer, inner, tuple(arrays), perfect),
            bonus=depth_bonus(inner.depth),
        )


def _access_order(facts: FunctionFacts, loop: Loop, outer_var: str, inner_var: str
                  ) -> tuple[int, int, list[Node]]:
    column = row = 0
    examples: list[Node] = []
    if loop.body is None:
        return 0, 0, []
    for sub in facts.nodes("subscript_expression", loop.body):
        base = sub.child_by_field_name("argument")
        if base is not None and base.type == "subscript_expression":
            first = identifiers(_index(base))
            second = identifiers(_index(sub))
            if inner_var in first and outer_var in second and inner_var not in second:
                column += 1
                examples.append(sub)
            elif inner_var in second:
                row += 1
        elif sub.parent is None or sub.parent.type != "subscript_expression":
            order = _flat_order(_index(sub), outer_var, inner_var)
            if order == "column":
                column += 1
                examples.append(sub)
            elif order == "row":
                row += 1
    return column, row, examples


def _index(sub: Node) -> Node | None:
    return sub.child_by_field_name("indices") or sub.child_by_field_name("index")


def _flat_order(idx: Node | None, outer_var: str, inner_var: str) -> str | None:
    """``a[j * n + i]`` (inner variable scaled) is column order; ``a[i * n + j]`` is row order."""
    if idx is None:
        return None
    expr = unwrap(idx.named_children[0]) if idx.named_children and \
        idx.type == "subscript_argument_list" else unwrap(idx)
    if expr is None or expr.type != "binary_expression" or operator(expr) != "+":
        return None
    parts = [expr.child_by_field_name("left"), expr.child_by_field_name("right")]
    for scaled, plain in (parts, parts[::-1]):
        if scaled is None or plain is None:
            continue
        if scaled.type == "binary_expression" and operator(scaled) == "*":
            if inner_var in identifiers(scaled) and node_text(plain) == outer_var:
                return "column"
            if outer_var in identifiers(scaled) and node_text(plain) == inner_var:
                return "row"
    return None


# rewrite


def interchange_fix(inp: RuleInput, finding: Finding) -> Planned | Left:
    """Swap the two loops the finding proved when they form a perfect nest of two counted
    loops whose body walks ``a[j][i]`` (``j`` the inner variable) and never ``a[i][j]``, and
    swapping keeps every result (a run-time test guards arrays a caller may pass overlapping);
    else why the nest stays."""
    proof = finding.proof
    assert isinstance(proof, Interchange)
    outer_node, inner_node = proof.outer.node, proof.inner.node
    what = f"the nest over `{proof.outer.var}` and `{proof.inner.var}`"
    lp = inp.facts.loop_facts(proof.outer)
    line = inp.line_of(outer_node)
    if len(lp.children) != 1 or lp.children[0].children:
        return Left(what, outer_node, "it is not a nest of exactly two loops")
    inner = lp.children[0]
    if not (lp.counted and lp.induction_declared and inner.counted and
            inner.induction_declared):
        return Left(what, outer_node, "a loop of it is not counted over a counter its header "
                    "declares")
    body = outer_node.child_by_field_name("body")
    stmts = ([c for c in body.named_children if c.type != "comment"]
             if body.type == "compound_statement" else [body]) if body is not None else []
    if stmts != [inner_node]:
        return Left(what, outer_node, "the outer loop holds more than the inner one")
    i, j = lp.induction or "", inner.induction or ""
    bad = good = 0
    for acc in inner.element_accesses:
        pos_i = acc.indices.index(i) if i in acc.indices else -1
        pos_j = acc.indices.index(j) if j in acc.indices else -1
        if pos_i >= 0 and pos_j >= 0:
            if pos_j < pos_i:
                bad += 1
            else:
                good += 1
    if bad == 0:
        return Left(what, outer_node, f"it indexes no array `[{j}][{i}]` by its two counters")
    if good > 0:
        return Left(what, outer_node, f"it indexes arrays `[{i}][{j}]` too, which the swap "
                    "would walk against their storage order")
    types = dict(inp.types)
    blocker = interchange_blocker(outer_node, types) or \
        _element_order_blocker(outer_node, types)
    if blocker:
        return Left(what, outer_node, f"it walks memory against its storage order but "
                    f"cannot be swapped safely: {blocker}")
    guard = reorder_guard(inp, lp)
    if not guard.refused and guard.condition and not gated_slot_ok(outer_node):
        guard = ReorderGuard(refused="its arrays need a run-time test, and a pragma or "
                             "other preprocessor line binds to the nest")
    if guard.refused:
        return Left(what, outer_node, f"it walks memory against its storage order but keeps "
                    f"it: {guard.refused}")
    if guard.condition:
        start = outer_node.start_byte
        edits: tuple[Edit, ...] = (Edit(
            start, outer_node.end_byte,
            reordered(inp, [outer_node, inner_node], [1, 0], start, guard.condition),
            "loop-interchange"),)
    else:
        edits = tuple(Edit(s, e, moved, "loop-interchange") for s, e, moved in
                      header_moves(inp.data, [outer_node, inner_node], [1, 0]))
    example = next(a for a in inner.element_accesses
                   if i in a.indices and j in a.indices)
    gated = (f" A caller may pass arrays the nest writes and reads as overlapping storage, "
             f"where the order would matter: the swapped nest runs only when "
             f"{guard.condition} (a run-time test), the original otherwise."
             if guard.condition else "")
    return Planned(
        edits,
        f"The nest at line {line} indexes '{example.base}[{']['.join(example.indices)}]' "
        f"with the inner loop variable '{j}' on the outer dimension, so consecutive "
        f"iterations stride across rows; swapping the loops ('{j}' outer, '{i}' inner) "
        "walks memory in storage order. Iterations are independent, so the order does "
        f"not change the result.{gated}", (outer_node,), includes=())


def interchange_rewrite(inp: RuleInput) -> RuleOutput:
    """Each finding fixed by ``interchange_fix``, and a note for each nest that walks memory
    against its storage order where a swap could change a result (detection offers none)."""
    nests = list(_against_storage_order(inp.facts))
    changes, notes = by_finding(lambda facts: _findings(facts, nests), interchange_fix)(inp)
    notes += [f"loop-interchange: the nest at line {inp.line_of(n.outer.node)} walks memory "
              f"against its storage order but cannot be swapped safely: {n.blocker}"
              for n in nests if n.blocker]
    return changes, notes


RULE = RuleSpec(
    id="loop-interchange",
    detect=loop_interchange,
    fix=interchange_fix,
    rewrite=interchange_rewrite,
    rewrites_as=frozenset({"loop-interchange"}),
    phase=0,
    order=0,
    examples=(
        Example("cpp", """
#include <vector>
void colscale(std::vector<std::vector<double>>& a, const std::vector<std::vector<double>>& b,
              int n, int m) {
    for (int i = 0; i < n; ++i) {
        for (int j = 0; j < m; ++j) {
            a[j][i] = b[j][i] * 2.0 + 1.0;
        }
    }
}
""", "colscale"),
    ),
)
