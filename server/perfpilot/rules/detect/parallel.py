"""Multithreading and Concurrency: loops whose iterations are independent or a reduction.

The independence test is the one the rewriter applies (``perfpilot.code.loops``), so the plan
never proposes a pragma the rewriter would refuse.
"""

from __future__ import annotations

from collections.abc import Iterator

from perfpilot.code.facts import FunctionFacts, Loop
from perfpilot.code.loops import LoopFacts, all_loops, analyze_loop
from perfpilot.code.parse import statements
from perfpilot.code.syntax import Node, declarator_name
from perfpilot.rules.detect.common import loop_types
from perfpilot.rules.finding import Finding, make_finding

# The dependence test walks each loop body once per nesting level and the whole function once
# per loop, so its cost grows with loops x function size; past these budgets the remaining loops
# are left out (with a note) so planning stays fast on huge functions.
MAX_LOOPS = 64
MAX_LOOP_BYTES = 48_000
WALK_BUDGET_BYTES = 160_000


def _pragma_before(facts: FunctionFacts, start: int) -> bool:
    """Whether an ``omp`` pragma sits right before the loop starting at byte ``start``."""
    data = facts.site.unit_text.encode("utf-8")
    before = data[max(0, start - 300):start].decode("utf-8", "replace").rstrip()
    last = before.splitlines()[-1] if before else ""
    return last.lstrip().startswith("#") and "omp" in last


def openmp(facts: FunctionFacts) -> Iterator[Finding]:
    """The outermost loops whose iterations provably do not interfere."""
    if not facts.loops:
        return
    types = loop_types(facts)
    # The function's own names (parameters and locals), for the loop analysis.
    own = frozenset({p.name for p in facts.site.params}
                    | {v.name for d in facts.nodes("declaration") for v in facts.local_vars(d)}
                    | {declarator_name(r.child_by_field_name("declarator")) or ""
                       for r in facts.nodes("for_range_loop")})
    forest: list[LoopFacts] = []
    analysed = 0
    analysed_bytes = 0
    fn_bytes = max(1, facts.fn.end_byte - facts.fn.start_byte)
    max_loops = min(MAX_LOOPS, WALK_BUDGET_BYTES // fn_bytes)
    for loop in facts.loops:
        if loop.parent is not None or any(a.type == "lambda_expression"
                                          for a in _ancestors(loop)):
            continue
        size = len(facts.loops_within(loop))
        nbytes = loop.node.end_byte - loop.node.start_byte
        if analysed + size > max_loops or analysed_bytes + nbytes > MAX_LOOP_BYTES:
            facts.notes.append(
                f"parallel-loop analysis covered {analysed} of {len(facts.loops)} loops "
                f"(the function is too large to check them all quickly)")
            break
        analysed += size
        analysed_bytes += nbytes
        forest.append(analyze_loop(loop.node, 0, 0, types, own))
    covered: list[LoopFacts] = []
    for lp in all_loops(tuple(forest)):
        if not (lp.independent and lp.counted):
            continue
        if any(o.start_byte <= lp.start_byte and lp.end_byte <= o.end_byte for o in covered):
            continue  # an enclosing loop is already parallel
        if _pragma_before(facts, lp.start_byte) or facts.site.has_openmp:
            continue
        covered.append(lp)
        yield _finding(facts, lp)


def _ancestors(loop: Loop) -> list[Node]:
    out: list[Node] = []
    p = loop.node.parent
    while p is not None and p.type != "function_definition":
        out.append(p)
        p = p.parent
    return out


def _finding(facts: FunctionFacts, lp: LoopFacts) -> Finding:
    var = lp.induction or "?"
    clauses: list[str] = []
    red = ", ".join(f"`{v}` ({op})" for op, v in lp.reductions)
    if lp.reductions:
        by_op: dict[str, list[str]] = {}
        for op, v in lp.reductions:
            by_op.setdefault(op, []).append(v)
        clauses += [f"reduction({op}:{','.join(vs)})" for op, vs in by_op.items()]
    if lp.private_vars:
        clauses.append(f"private({','.join(lp.private_vars)})")
    pragma = " ".join(["#pragma omp parallel for", *clauses])
    writes = sorted(lp.writes - set(lp.locals) - {v for _, v in lp.reductions}
                    - set(lp.private_vars) - {var})
    wrote = (f"each iteration writes only its own elements of "
             f"{', '.join(f'`{w}`' for w in writes)}" if writes else
             "no iteration writes anything another iteration reads")
    count = len(lp.children)
    nested = (f", and it contains {'a nested loop' if count == 1 else f'{count} nested loops'}"
              if count else "")
    rule = "openmp-reduction" if lp.reductions else "openmp-for"
    if lp.reductions:
        floats = [v for _, v in lp.reductions
                  if (t := facts.var(v)) is not None and t.is_float]
        fp = (" (floating-point sums may differ in the last digits)" if floats else "")
        what = (f"its iterations are independent except for accumulating into {red}, a "
                f"reduction{fp}")
    else:
        what = f"its iterations are independent: {wrote}"
    private = (f"; `{'`, `'.join(lp.private_vars)}` must be private to each thread"
               if lp.private_vars else "")
    text = (f"the `for` loop on line {lp.line} (over `{var}`, {lp.lower} to {lp.upper}) — "
            f"{what}{nested}{private}: run it on all cores with `{pragma}` (build with "
            f"`-fopenmp`).")
    return make_finding(
        rule, text[0].upper() + text[1:], [lp.line],
        loop_range=(lp.start_byte, lp.end_byte), node_range=(lp.start_byte, lp.end_byte),
        names=[var, *(v for _, v in lp.reductions), *lp.private_vars, *writes],
        data={"pragma": pragma, "var": var,
              "reductions": ",".join(f"{op}:{v}" for op, v in lp.reductions),
              "private": ",".join(lp.private_vars)},
        bonus=_weight(facts, lp),
    )


def _weight(facts: FunctionFacts, lp: LoopFacts) -> float:
    """Nested work pays for a thread team; a lone copy-like statement, or a parallel region
    opened on every iteration of an enclosing loop, usually does not."""
    if lp.children:
        bonus = 0.05
    else:
        own = next((x for x in facts.loops if x.node.start_byte == lp.start_byte), None)
        trivial = own is not None and len(statements(own.body)) <= 1 and \
            not facts.nodes("call_expression", own.node)
        bonus = -0.2 if trivial else 0.0
    if lp.depth > 0:
        bonus -= 0.15
    return bonus
