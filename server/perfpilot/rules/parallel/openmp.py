"""The openmp rule: the outermost loops whose iterations provably do not interfere."""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Mapping, Sequence, Set
from dataclasses import dataclass, replace

from perfpilot.code.aliases import UNKNOWN
from perfpilot.code.declarations import VarType
from perfpilot.code.facts import FunctionFacts, Loop
from perfpilot.code.first_match import FirstMatch, first_match
from perfpilot.code.loops import LoopFacts, all_loops
from perfpilot.code.purity import pure_helper
from perfpilot.code.site import Param
from perfpilot.code.std_calls import AlgorithmCall, algorithm_calls
from perfpilot.code.storage_type import (
    Extent,
    element_test,
    extent_of,
    overlap,
    reachable,
    restrict_excludes,
)
from perfpilot.code.syntax import (
    Node,
    identifiers_of,
    node_text,
    statements,
    walk,
)
from perfpilot.rules.base import Example, RuleSpec
from perfpilot.rules.edits import Edit
from perfpilot.rules.emit import hoist_above
from perfpilot.rules.finding import Finding, Proof, make_finding
from perfpilot.rules.parallel.enclosing_tests import compact, enclosing_tests
from perfpilot.rules.parallel.histogram import HistogramLoop, histograms
from perfpilot.rules.parallel.loop_shape import Balance, loop_balance
from perfpilot.rules.parallel.openmp_patterns import algorithms, histogram, search
from perfpilot.rules.parallel.openmp_patterns import scan as scan_rewrite
from perfpilot.rules.parallel.openmp_patterns.alias_check import (
    SpanNames,
    nest_no_overlap_condition,
    no_overlap_condition,
)
from perfpilot.rules.parallel.openmp_patterns.work import (
    braced_loop,
    gate_of,
    gated_loop,
    gated_slot_ok,
    needs_gate,
)
from perfpilot.rules.parallel.scan import Scan, scan
from perfpilot.rules.rewrite_input import (
    Change,
    Left,
    Planned,
    RuleInput,
    RuleOutput,
    insertion_before,
    left_note,
    line_indent,
    loop_node,
    newline_of,
    statement_slot_ok,
)

# detection


# The dependence test walks each loop body once per nesting level and the whole function once
# per loop, so its cost grows with loops x function size; past these budgets the remaining loops
# are left out (with a note) so planning stays fast on huge functions.
MAX_LOOPS = 64


MAX_LOOP_BYTES = 48_000


WALK_BUDGET_BYTES = 160_000


@dataclass(frozen=True)
class ParallelLoop(Proof):
    """A counted loop whose iterations the analysis proves independent, with the pragma the
    finding proposes (its clauses: reductions, private copies, schedule, gate)."""

    loop: Loop
    analysis: LoopFacts
    pragma: str


@dataclass(frozen=True)
class PatternLoop(Proof):
    """A counted outermost loop whose iterations depend on each other through a parallel
    pattern: a histogram, a first-match search or a prefix sum."""

    loop: Loop
    pattern: Pattern


@dataclass(frozen=True)
class ParallelCall(Proof):
    """A whole-container algorithm call that runs as a parallel loop."""

    call: AlgorithmCall


def _pragma_before(facts: FunctionFacts, start: int) -> bool:
    """Whether an ``omp`` pragma sits right before the loop starting at byte ``start``."""
    data = facts.site.unit_text.encode("utf-8")
    before = data[max(0, start - 300):start].decode("utf-8", "replace").rstrip()
    last = before.splitlines()[-1] if before else ""
    return last.lstrip().startswith("#") and "omp" in last


def openmp(facts: FunctionFacts) -> Iterator[Finding]:
    """The outermost loops whose iterations provably do not interfere."""
    types = facts.loop_types
    if facts.site.language == "cpp" and not facts.site.has_openmp:
        for call in algorithm_calls(facts.fn, types, facts.unit):
            yield make_finding(algorithms.rule_of(call), algorithms.describe(call), [call.line],
                               node_range=call.call, names=[call.source],
                               proof=ParallelCall(call))
    if not facts.loops:
        return
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
        forest.append(facts.loop_facts(loop))
    yield from _loop_findings(facts, all_loops(tuple(forest)))


def _loop_findings(facts: FunctionFacts, loops: Iterable[LoopFacts]) -> Iterator[Finding]:
    """The findings of ``loops`` (analysed loops, outer ones before the loops inside them): a
    loop that follows a parallel pattern, or the outermost independent loop of each nest."""
    types = facts.loop_types
    covered: list[LoopFacts] = []
    for lp in loops:
        if not lp.independent and lp.counted and lp.depth == 0 and \
                not facts.site.has_openmp and not _pragma_before(facts, lp.start_byte):
            own_loop = facts.loop_at(lp.start_byte)
            pattern = pattern_of(own_loop.node, lp, types, facts.unit) if own_loop else None
            shared = overlaps(facts.site.params, types, lp)
            if pattern is not None and not shared.pointers and \
                    not (isinstance(pattern, Scan) and shared.references) and \
                    not refused(lp, own_loop.node if own_loop else None, facts.site.unit_text):
                assert own_loop is not None
                yield _pattern_finding(facts, lp, own_loop, pattern)
            continue
        own = facts.loop_at(lp.start_byte)
        if not (lp.independent and lp.counted) or \
                refused(lp, own.node if own else None, facts.site.unit_text):
            continue  # the rewrite would leave it serial: no finding promises otherwise
        if any(o.start_byte <= lp.start_byte and lp.end_byte <= o.end_byte for o in covered):
            continue  # an enclosing loop is already parallel
        if _pragma_before(facts, lp.start_byte) or facts.site.has_openmp:
            continue
        covered.append(lp)
        ov = overlaps(facts.site.params, types, lp)
        alias = ov.condition(lp)
        if alias is None:
            # Pointers a caller may pass overlapping, at offsets no run-time test here can
            # bound: parallel iterations could then compute something else (the restrict-alias
            # finding says what would allow it). The loops inside stay serial too: a parallel
            # region per outer iteration costs more.
            continue
        if own is not None:
            yield _finding(facts, lp, own, ov.pointers if alias else [])


def inner_findings(facts: FunctionFacts, finding: Finding) -> Iterator[Finding]:
    """The findings of the loops inside the loop of ``finding`` (an independent loop), as if
    it were not parallel: what detection proposes once the rewrite leaves that loop serial."""
    proof = finding.proof
    if isinstance(proof, ParallelLoop):
        yield from _loop_findings(facts, all_loops(proof.analysis.children))


def _ancestors(loop: Loop) -> list[Node]:
    out: list[Node] = []
    p = loop.node.parent
    while p is not None and p.type != "function_definition":
        out.append(p)
        p = p.parent
    return out


Pattern = HistogramLoop | FirstMatch | Scan


def pattern_of(node: Node, lp: LoopFacts, types: Mapping[str, VarType | None],
               unit: Node | None) -> Pattern | None:
    """The parallel pattern a counted loop the plain analysis finds dependent follows: a
    histogram (``histogram.py``), a first-match search (``code/first_match.py``) or an
    integer prefix sum (``scan.py``); None when it follows none."""
    body = node.child_by_field_name("body")
    cond = node.child_by_field_name("condition")
    if body is None or lp.induction is None:
        return None
    bound_vars = identifiers_of(cond) - {lp.induction} if cond is not None else set()
    def pure(name: str) -> bool:
        return pure_helper(name, node, unit)

    hl = histograms(node, body, lp.induction, dict(types), bound_vars, pure)
    if isinstance(hl, HistogramLoop):
        return hl
    fm = first_match(node, lp.induction, lp.step, lp.cond_op, lp.induction_declared, types,
                     pure)
    if isinstance(fm, FirstMatch):
        return fm
    sc = scan(node, lp.induction, lp.step, lp.cond_op, lp.lower, lp.upper,
              lp.induction_declared, types)
    return sc if isinstance(sc, Scan) else None


def _pattern_finding(facts: FunctionFacts, lp: LoopFacts, own: Loop, pattern: Pattern
                     ) -> Finding:
    what = (histogram.describe(pattern) if isinstance(pattern, HistogramLoop)
            else search.describe(pattern) if isinstance(pattern, FirstMatch)
            else scan_rewrite.describe(pattern))
    text = (f"the `for` loop on line {lp.line} (over `{lp.induction}`, {lp.lower} to "
            f"{lp.upper}) is {what}: run it on all cores with `#pragma omp parallel` around a "
            f"`#pragma omp for` (build with `-fopenmp`).")
    names = ([h.array for h in pattern.histograms] if isinstance(pattern, HistogramLoop)
             else [])
    return make_finding(
        "openmp-reduction", text, [lp.line],
        loop_range=(lp.start_byte, lp.end_byte), node_range=(lp.start_byte, lp.end_byte),
        names=[lp.induction or "?", *names],
        proof=PatternLoop(own, pattern),
        bonus=_weight(facts, lp))


def _finding(facts: FunctionFacts, lp: LoopFacts, own: Loop, checked: Sequence[str] = ()
             ) -> Finding:
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
    schedule, uneven = schedule_clause(loop_balance(own.node, var))
    clauses += [schedule] if schedule else []
    gate = gate_of(lp, own.node, facts.loop_types)
    clauses += [f"if({gate})"] if gate else []
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
    uneven_text = f"; {uneven}, so `{schedule}` shares the work out" if schedule else ""
    if gate:
        uneven_text += ("; it is an inner loop under a loop whose iterations depend on each "
                        "other, so a cost model (trip count times the work of an iteration, "
                        "the trip counts of the loops inside included) keeps it serial when a "
                        "parallel region would not pay for itself")
    if checked:
        uneven_text += ("; a caller may pass " + ", ".join(f"`{p}`" for p in checked)
                        + " overlapping, so a run-time test that the elements the loop touches "
                        "do not overlap decides (the loop runs serially when they do)")
    text = (f"the `for` loop on line {lp.line} (over `{var}`, {lp.lower} to {lp.upper}) — "
            f"{what}{nested}{private}{uneven_text}: run it on all cores with `{pragma}` "
            "(build with `-fopenmp`).")
    return make_finding(
        rule, text[0].upper() + text[1:], [lp.line],
        loop_range=(lp.start_byte, lp.end_byte), node_range=(lp.start_byte, lp.end_byte),
        names=[var, *(v for _, v in lp.reductions), *lp.private_vars, *writes],
        proof=ParallelLoop(own, lp, pragma),
        bonus=_weight(facts, lp),
    )


def _weight(facts: FunctionFacts, lp: LoopFacts) -> float:
    """Nested work pays for a thread team; a lone copy-like statement, or a parallel region
    opened on every iteration of an enclosing loop, usually does not."""
    if lp.children:
        bonus = 0.05
    else:
        own = facts.loop_at(lp.start_byte)
        trivial = own is not None and len(statements(own.body)) <= 1 and \
            not facts.nodes("call_expression", own.node)
        bonus = -0.2 if trivial else 0.0
    if lp.depth > 0:
        bonus -= 0.15
    return bonus


# rewrite


# Iterations handed out at a time under a dynamic schedule: small enough to even out uneven
# iterations, large enough that taking the next chunk (an atomic increment) stays cheap.
SCHEDULE_CHUNK = 16


def schedule_clause(balance: Balance) -> tuple[str, str]:
    """The ``schedule`` clause for a loop of this balance ("" keeps the default static one),
    and why, in words. Work that grows with the induction variable suits ``guided`` (its large
    first chunks take the cheap iterations); work that shrinks with it, or follows data, needs
    ``dynamic`` chunks, since any static split gives one thread the heavy part."""
    if balance == "triangular-growing":
        return "schedule(guided)", "the inner loop runs longer as the outer index grows"
    if balance == "triangular":
        return (f"schedule(dynamic, {SCHEDULE_CHUNK})",
                "the inner loop's trip count follows the outer index")
    if balance == "irregular":
        return (f"schedule(dynamic, {SCHEDULE_CHUNK})",
                "the inner trip count depends on data and differs between iterations")
    return "", ""


def _address_test(tests: frozenset[str], a: str, b: str) -> bool:
    return compact(f"&{a} != &{b}") in tests or compact(f"&{b} != &{a}") in tests


# Parallelizing a loop whose trip count is a small constant costs more than it gains.
_MIN_LITERAL_TRIPS = 64


def _small_constant_trip(lp: LoopFacts) -> bool:
    try:
        lo = int(lp.lower or "", 0)
        hi = int(lp.upper or "", 0)
    except ValueError:
        return False
    return abs(hi - lo) < _MIN_LITERAL_TRIPS


def _constant_int(word: str, unit: str) -> int | None:
    """``word`` as an integer constant: a literal, an object-like macro defined to one, or a
    ``const``/``constexpr`` integer initialised with one in the unit."""
    try:
        return int(word.rstrip("uUlL"), 0)
    except ValueError:
        pass
    if not re.fullmatch(r"[A-Za-z_]\w*", word):
        return None
    m = (re.search(rf"^[ \t]*#[ \t]*define[ \t]+{word}[ \t]+\(?(\d+)[uUlL]*\)?[ \t]*$",
                   unit, re.M)
         or re.search(rf"\b(?:const|constexpr)\b[\w\s:]*?\b{word}\s*(?:=\s*|\{{\s*)(\d+)[uUlL]*"
                      r"\s*\}?\s*;", unit))
    return int(m.group(1)) if m else None


def _few_trips_under_test(lp: LoopFacts, node: Node | None, unit: str) -> bool:
    """Whether a test the loop runs under bounds its trip count by a small constant:
    ``if (hi - lo < K)`` around ``for (i = lo; i <= hi; ...)``, or ``if (n < K)`` around
    ``for (i = 0; i < n; ...)``."""
    if node is None or not lp.lower or not lp.upper:
        return False
    lo, hi = compact(lp.lower), compact(lp.upper)
    for test in enclosing_tests(node).held:
        m = re.fullmatch(r"(.+?)(<=|<|>=|>)(.+)", test)
        if m is None:
            continue
        left, op, right = m.groups()
        if op in (">", ">="):
            left, right, op = right, left, "<" if op == ">" else "<="
        bound = _constant_int(right, unit)
        if bound is None:
            continue
        span = left in (f"{hi}-{lo}", f"({hi})-({lo})") or (left == hi and lo == "0")
        if span and bound + (op == "<=") <= _MIN_LITERAL_TRIPS:
            return True
    return False


def refused(lp: LoopFacts, node: Node | None = None, unit: str = "") -> str:
    """Why an independent loop stays serial whatever its context ("" when it need not):
    detection and rewrite both ask, so no finding proposes what the rewrite refuses."""
    if not lp.children and _small_constant_trip(lp):
        return "its trip count is a small constant"
    if not lp.children and _few_trips_under_test(lp, node, unit):
        return "a test it runs under bounds its trip count by a small constant"
    if any(c.method == "at" for c in lp.calls):
        return "'.at()' may throw, and an exception must not leave a parallel loop"
    return ""


@dataclass(frozen=True)
class _Parallel:
    """How an independent loop runs in parallel: its gate, the pairs of references that must
    be distinct objects, the run-time test that its arrays do not overlap, and the names that
    test keeps apart."""

    gate: str
    refs: list[tuple[str, str]]
    apart: str
    pointers: tuple[str, ...]


def _independent_plan(inp: RuleInput, lp: LoopFacts, node: Node) -> _Parallel | str:
    """How a loop the analysis proves independent runs in parallel, or why it stays serial."""
    why_not = ""
    gate = gate_of(lp, node, inp.types)
    ov = _overlaps(inp, lp)
    # Under `if (&a != &b)` (a guarded loop interchange, say) that test is proved; in its
    # `else` the two are one object and the iterations depend on each other.
    tests = enclosing_tests(node)
    refs = [p for p in ov.references if not _address_test(tests.held, *p)]
    same = [p for p in ov.references if _address_test(tests.refuted, *p)]
    # The same for a test of address ranges, if the loop runs right after it.
    apart = ov.condition(lp)
    if apart and compact(apart) in tests.held_now:
        apart = ""
    if same:
        why_not = (f"it runs only where `{same[0][0]}` and `{same[0][1]}` are one "
                   "object, and then its iterations depend on each other")
    elif apart and compact(apart) in tests.refuted:
        why_not = ("it runs only where its arrays overlap, and then its iterations "
                   "depend on each other")
    elif refused(lp, node, inp.site.unit_text):
        why_not = refused(lp, node, inp.site.unit_text)
    elif needs_gate(lp) and (not gate or lp.arg_reductions):
        why_not = ("it is an inner loop: a parallel region per outer iteration costs "
                   "more than it saves")
    elif not (statement_slot_ok(node) or (
            gated_slot_ok(node) and not lp.arg_reductions and not ov.pointers)):
        why_not = "it is not directly inside a block, or a pragma already precedes it"
    elif ov.pointers and (lp.arg_reductions or apart is None):
        why_not = overlap_note(ov)
    if not why_not and lp.arg_reductions and refs:
        why_not = "an arg-min/arg-max update cannot be made conditional on distinct objects"
    return why_not or _Parallel(gate, refs, apart or "", ov.pointers)


def _independent_change(inp: RuleInput, lp: LoopFacts, node: Node) -> Change | Left:
    """The pragma (or the arg-min/arg-max region) for a loop the analysis proves independent,
    or why it stays serial."""
    plan = _independent_plan(inp, lp, node)
    if isinstance(plan, str):
        return Left("the loop", node, plan, "is independent but not parallelized")
    if lp.arg_reductions:
        return _arg_change(inp, lp, node)
    return _pragma_change(inp, lp, node, plan.refs, plan.gate, plan.apart, plan.pointers)


def _pattern_change(inp: RuleInput, lp: LoopFacts, node: Node, pattern: Pattern
                    ) -> Change | Left:
    """The parallel form of a loop that follows a parallel pattern, or why it stays serial."""
    why = refused(lp, node, inp.site.unit_text)
    if why:
        return Left("the loop", node, why, "stays serial")
    if not statement_slot_ok(node):
        return Left("the loop", node, "it is not directly inside a block, or a pragma already "
                    "precedes it", "stays serial")
    ov = _overlaps(inp, lp)
    if ov.pointers:
        return Left("the loop", node, overlap_note(ov), "stays serial")
    if isinstance(pattern, HistogramLoop) and histogram.by_section(pattern):
        schedule, _why = schedule_clause(loop_balance(node, lp.induction or ""))
        return histogram.section_change(inp, lp, node, pattern, schedule)
    if inp.language != "cpp":
        return Left("the loop", node, "its rewrite is written for C++ only",
                    "is a parallel pattern, but stays serial")
    if isinstance(pattern, FirstMatch):
        return search.search_change(inp, lp, node, pattern)
    if isinstance(pattern, Scan):
        if ov.references:
            return Left("the scan", node, "its arrays may be one object read at other indices",
                        "stays serial")
        return scan_rewrite.scan_change(inp, lp, node, pattern)
    schedule, _why = schedule_clause(loop_balance(node, lp.induction or ""))
    return histogram.histogram_change(inp, lp, node, pattern, schedule)


def _analysis(inp: RuleInput, node: Node) -> LoopFacts | None:
    """The rewrite input's analysis of the loop ``node`` (its lines are the unit's)."""
    return next((lp for lp in all_loops(inp.loops) if lp.start_byte == node.start_byte and
                 lp.end_byte == node.end_byte), None)


def _fixed(inp: RuleInput, finding: Finding) -> tuple[Change | Left, Node]:
    """The change for what the finding proved (see ``openmp_fix``), or why it stays, and the
    node it is about."""
    proof = finding.proof
    if isinstance(proof, ParallelCall):
        node = inp.node_at(*proof.call.call) or inp.function
        return algorithms.algorithm_change(inp, proof.call), node
    assert isinstance(proof, ParallelLoop | PatternLoop)
    node = proof.loop.node
    lp = _analysis(inp, node)
    if lp is None:
        return Left("the loop", node, "the rewrite's analysis does not see it",
                    "stays serial"), node
    if isinstance(proof, PatternLoop):
        return _pattern_change(inp, lp, node, proof.pattern), node
    if not lp.independent:
        return Left("the loop", node, lp.reason or "its iterations may depend on each other",
                    "stays serial"), node
    return _independent_change(inp, lp, node), node


def openmp_fix(inp: RuleInput, finding: Finding) -> Planned | Left:
    """The parallel form of what the finding proved: a whole-container algorithm call, a loop
    following a parallel pattern, or a loop whose iterations are independent; else why it
    stays serial."""
    out, node = _fixed(inp, finding)
    if isinstance(out, Left):
        return out
    return Planned(out.edits, out.explanation, (node,), out.includes)


def openmp_rule(inp: RuleInput) -> RuleOutput:
    """Each finding of ``openmp`` fixed by ``openmp_fix``, outermost loops first (a loop left
    serial lets the loops inside it be tried), with a note for each outermost loop detection
    leaves serial and why."""
    changes: list[Change] = []
    notes: list[str] = []
    if re.search(r"#\s*pragma\s+omp\b", inp.text):
        return changes, ["openmp: the function already uses OpenMP; left as it is"]
    found: dict[int, Finding] = {}
    for finding in openmp(inp.facts):
        proof = finding.proof
        if isinstance(proof, ParallelCall):
            out, _node = _fixed(inp, finding)
            if isinstance(out, Left):
                notes.append(left_note(inp, finding.rule, out))
            else:
                changes.append(out)
        elif isinstance(proof, ParallelLoop | PatternLoop):
            found[proof.loop.node.start_byte] = finding

    def visit(lp: LoopFacts) -> None:
        finding = found.get(lp.start_byte)
        if finding is not None:
            out, _node = _fixed(inp, finding)
            if not isinstance(out, Left):
                changes.append(out)  # its own rule id: an arg-min/max loop is a reduction
                return
            notes.append(left_note(inp, finding.rule, out))
            if isinstance(finding.proof, PatternLoop):
                return
            for inner in inner_findings(inp.facts, finding):
                assert isinstance(inner.proof, ParallelLoop | PatternLoop)
                found.setdefault(inner.proof.loop.node.start_byte, inner)
        elif lp.independent and (node := loop_node(inp, lp)) is not None:
            plan = _independent_plan(inp, lp, node)
            # detection proposes no loop inside one whose arrays no run-time test can keep
            # apart (a region per outer iteration costs more), nor past its budget
            why = plan if isinstance(plan, str) else \
                "detection proposes no parallel loop here (a loop around it stays serial)"
            notes.append(f"openmp: the loop at line {lp.line} is independent but not "
                         f"parallelized: {why}")
        elif lp.kind == "for" and lp.depth == 0 and lp.reason:
            notes.append(f"openmp: the loop at line {lp.line} stays serial: {lp.reason}")
        for child in lp.children:
            visit(child)

    for top in inp.loops:
        visit(top)
    return changes, notes


def overlap_note(ov: Overlaps) -> str:
    """Why a loop over arrays that may overlap stays serial."""
    names = ", ".join(f"'{n}'" for n in ov.pointers)
    if ov.untestable:
        return (f"it writes and reads through {names}, which a caller may pass overlapping "
                "(a pointer or view into a container, nested or non-contiguous storage, or "
                "storage of a type the analysis cannot see into), and no run-time test here "
                "can tell where (declare the pointers restrict if callers never pass them "
                "overlapping)")
    return (f"it writes and reads through {names}, which a caller may pass overlapping, and no "
            "run-time test here can bound where (declare the pointers restrict if callers "
            "never pass them overlapping)")


def _arg_change(inp: RuleInput, lp: LoopFacts, node: Node) -> Change:
    """A parallel region in which each thread keeps its own copies of the arg-min/arg-max
    variables over its share of the iterations (in order), then combines them one thread at a
    time: the better value wins and, among equal values, the first position in iteration order
    for a strict comparison (``<``), the last for ``<=``, as in the serial loop."""
    data, nl = inp.data, newline_of(inp.text)
    line_start, indent = line_indent(data, node)
    rule = "openmp-reduction"
    var = lp.induction or ""
    earlier = "<" if (lp.step or 1) > 0 else ">"
    later = ">" if earlier == "<" else "<"
    before = ["{"]
    after = ["#pragma omp critical", "{"]
    edits: list[Edit] = []
    inner = ["#pragma omp parallel", "{"]
    for arg in lp.arg_reductions:
        names = [arg.var, *(p for p, _ in arg.payload)]
        local = {n: inp.fresh_name(f"{n}_local") for n in names}
        taken = set(local.values())
        found, at = inp.fresh_name(f"{arg.var}_found"), inp.fresh_name(f"{arg.var}_at")
        have, pos = inp.fresh_name(f"{arg.var}_have"), inp.fresh_name(f"{arg.var}_pos")
        taken |= {found, at, have, pos}
        inp = replace(inp, taken=inp.taken | taken)
        # Each thread starts from the values before the loop, copied first: another thread
        # may already be combining into the originals when a late one starts.
        start = {n: inp.fresh_name(f"{n}_start") for n in names}
        inp = replace(inp, taken=inp.taken | set(start.values()))
        before += [f"const auto {start[n]} = {n};" for n in names]
        before += [f"bool {have} = false;", f"long long {pos} = 0;"]
        inner += [f"    auto {local[n]} = {start[n]};" for n in names]
        inner += [f"    bool {found} = false;", f"    long long {at} = 0;"]
        better = "<" if arg.op == "min" else ">"
        tie = earlier if arg.strict else later
        v, lv = arg.var, local[arg.var]
        after += [f"    if ({found} && (!{have} || {lv} {better} {v} || "
                  f"(!({v} {better} {lv}) && {at} {tie} {pos}))) {{",
                  *[f"        {n} = {local[n]};" for n in names],
                  f"        {pos} = {at};", f"        {have} = true;", "    }"]
        stmt = inp.node_at(arg.start_byte, arg.end_byte, {"if_statement"})
        cons = stmt.child_by_field_name("consequence") if stmt is not None else None
        assert stmt is not None and cons is not None and cons.type == "compound_statement"
        for n in walk(stmt):
            if n.type == "identifier" and node_text(n) in local:
                edits.append(Edit(n.start_byte, n.end_byte, local[node_text(n)], rule))
        close = cons.end_byte - 1
        edits.append(Edit(close, close, f" {found} = true; {at} = {var}; ", rule))
    clauses = "".join(f" reduction({op}:{v})" for op, v in lp.reductions)
    if lp.private_vars:
        clauses += f" private({','.join(lp.private_vars)})"
    schedule, _why = schedule_clause(loop_balance(node, var))
    clauses += f" {schedule}" if schedule else ""
    inner.append(f"    #pragma omp for nowait{clauses}")
    after += ["}", "}", "}"]
    head = before + inner
    edits.append(Edit(line_start, line_start,
                      "".join(f"{indent}{t}{nl}" for t in head) + indent, rule, order=9))
    edits.append(Edit(node.start_byte, node.start_byte, "", rule))
    edits = [e for e in edits if e.text or e.start != e.end]
    tail = "".join(f"{nl}{indent}{t}" for t in after)
    edits.append(Edit(node.end_byte, node.end_byte, tail, rule, order=9))
    pairs = ", ".join(f"'{a.var}' with {', '.join(repr(p) for p, _ in a.payload)}"
                      for a in lp.arg_reductions)
    ties = "first" if all(a.strict for a in lp.arg_reductions) else "serial"
    explanation = (f"The loop over '{var}' at line {lp.line} has independent iterations but "
                   f"for the arg-{lp.arg_reductions[0].op} update of {pairs}: each thread keeps "
                   "its own copies over its share of the iterations, and the copies are combined "
                   f"after the loop in a critical section that keeps the {ties} position among "
                   "equal values, as the serial loop does.")
    return Change(rule, tuple(edits), explanation, (lp.line,))


def _pragma_change(inp: RuleInput, lp: LoopFacts, node: Node,
                   shared: list[tuple[str, str]], gate: str = "", alias: str = "",
                   pointers: Sequence[str] = ()) -> Change:
    clauses = ""
    by_op: dict[str, list[str]] = {}
    for op, var in lp.reductions:
        by_op.setdefault(op, []).append(var)
    for op, names in by_op.items():
        clauses += f" reduction({op}:{','.join(names)})"
    if lp.private_vars:
        clauses += f" private({','.join(lp.private_vars)})"
    schedule, uneven = schedule_clause(loop_balance(node, lp.induction or ""))
    if schedule:
        clauses += f" {schedule}"
    conditions = [f"&{w} != &{r}" for w, r in shared]
    edits: list[Edit] = []
    if alias:
        # Pointers that may overlap: a run-time test, computed once before the loop, decides:
        # the ends of each array's span on lines of their own, then the test over them.
        apart = inp.fresh_name("apart")
        conditions.append(apart)
        spans = SpanNames(inp.fresh_name)
        test = _overlaps(inp, lp).condition(lp, names=spans) or alias
        flag = "bool" if inp.language == "cpp" else "int"
        edits.append(hoist_above(inp, node, [
            *spans.declarations, f"const {flag} {apart} = {_unwrapped(test)};"], "", 8))
    if conditions:
        # The same container passed twice, or overlapping arrays: the iterations then depend
        # on each other, and the if clause runs them on one thread.
        clauses += " if(" + " && ".join(conditions) + ")"
    pragma = f"#pragma omp parallel for{clauses}"
    rule = "openmp-reduction" if lp.reductions else "openmp-for"
    what = f"the loop over '{lp.induction}' ({lp.lower} to {lp.upper})"
    parts = [f"{what} at line {lp.line} has independent iterations: each one writes only "
             f"its own elements"]
    if lp.reductions:
        accs = ", ".join(f"'{v}' ({op})" for op, v in lp.reductions)
        parts.append(f"and the accumulation into {accs} becomes a per-thread reduction "
                     "(floating-point sums may differ in the last digits)")
    if lp.private_vars:
        parts.append(f"with {', '.join(lp.private_vars)} private to each thread")
    if schedule:
        parts.append(f"({uneven}, so '{schedule}' shares the work out evenly)")
    if gate:
        parts.append("(an inner loop under a loop whose iterations depend on each other: it "
                     f"runs in parallel only when {gate}, that is when its work, trip count "
                     "times body size, pays for a parallel region; otherwise a serial copy "
                     "runs, which never enters the OpenMP runtime)")
    if shared:
        pairs = ", ".join(f"'{w}' and '{r}'" for w, r in shared)
        parts.append(f"(serial when {pairs} are the same object, which a caller may pass)")
    if alias:
        parts.append("(serial when the elements it touches through "
                     + ", ".join(f"'{p}'" for p in pointers)
                     + " overlap, which a caller may pass: a run-time test decides)")
    overlap = _unproven_overlap(inp, lp)
    if overlap:
        parts.append(f"(assuming {', '.join(overlap)} do not overlap in memory; the benchmark "
                     "validation checks the result)")
    explanation = (" ".join(parts) + f"; '{pragma}' runs the iterations on all cores.")
    edit = gated_loop(inp, node, pragma, gate, rule) if gate else \
        insertion_before(inp, node, pragma, rule, order=9) if statement_slot_ok(node) else \
        braced_loop(inp, node, pragma, rule)
    edits = [replace(e, rule=rule) for e in edits]
    return Change(rule, (*edits, edit), explanation[0].upper() + explanation[1:], (lp.line,))


def _unwrapped(test: str) -> str:
    """A test without the parentheses around the whole of it (``(a || b)`` -> ``a || b``)."""
    if test.startswith("(") and test.endswith(")"):
        depth = 0
        for pos, ch in enumerate(test):
            depth += {"(": 1, ")": -1}.get(ch, 0)
            if depth == 0 and pos < len(test) - 1:
                return test
        return test[1:-1]
    return test


def _unproven_overlap(inp: RuleInput, lp: LoopFacts) -> list[str]:
    """Pointer or reference arrays the loop writes and others it reads: the analysis takes
    them to be distinct objects, which it cannot prove."""
    def shared(base: str) -> bool:
        vt = inp.types.get(base)
        return vt is not None and bool(vt.pointer or vt.reference) and base not in lp.locals

    written = sorted({a.base for a in lp.element_accesses if a.write and shared(a.base)})
    read = sorted({a.base for a in lp.element_accesses if not a.write and shared(a.base)} -
                  set(written))
    return [*written, *read] if written and read else []


def _overlaps(inp: RuleInput, lp: LoopFacts) -> Overlaps:
    return overlaps(inp.site.params, inp.types, lp, inp.global_names)


@dataclass(frozen=True)
class Overlaps:
    """Arrays a loop writes and others it touches that a caller may pass overlapping (see
    ``overlaps``): ``checked`` names a run-time test of address ranges keeps apart, in the
    (written, other) ``pairs`` it tests, with the whole ``extents`` of the containers and views
    among them; ``elements`` are tests that a reference is not an element of another
    container (a row of a vector of vectors), with the names they involve; ``references`` are
    (written, other) references that can only be one object (``&a != &b`` rules that out);
    ``untestable`` names may overlap where no test here can tell (nested storage, a deque,
    storage of a type the analysis cannot see into)."""

    checked: tuple[str, ...] = ()
    pairs: tuple[tuple[str, str], ...] = ()
    references: tuple[tuple[str, str], ...] = ()
    untestable: tuple[str, ...] = ()
    extents: tuple[tuple[str, Extent], ...] = ()
    elements: tuple[tuple[str, str, str], ...] = ()  # (test, name, name)

    @property
    def pointers(self) -> tuple[str, ...]:
        """Every name that may overlap another other than as one object: the names a run-time
        test (or nothing) must keep apart."""
        return tuple(sorted({*self.checked, *self.untestable,
                             *(n for _t, a, b in self.elements for n in (a, b))}))

    def condition(self, lp: LoopFacts, inner: Sequence[LoopFacts] = (),
                  names: SpanNames | None = None) -> str | None:
        """The run-time test that the loop's arrays do not overlap ("" when none is needed),
        or None when no test here can tell. ``inner``: the loops of a perfect nest inside
        ``lp``, outermost first, whose counters the subscripts may use too. With ``names``,
        the address spans it compares are declared there and the test reads their names."""
        if self.untestable:
            return None
        tests = [t for t, _a, _b in self.elements]
        if self.checked:
            ranges = nest_no_overlap_condition((lp, *inner), self.checked, dict(self.extents),
                                               self.pairs, names) if inner else \
                no_overlap_condition(lp, self.checked, dict(self.extents), self.pairs, names)
            if ranges is None:
                return None
            tests.append(ranges)
        return " && ".join(tests)


def overlaps(params_seq: Sequence[Param], types: Mapping[str, VarType | None],
             lp: LoopFacts, global_names: Set[str] | None = None) -> Overlaps:
    """Arrays the loop writes and others it touches that a caller may pass overlapping, when
    the overlap could change what parallel iterations compute (``code/storage_type.py`` says
    which pairs may): pointers and views, which may overlap each other or a container of a
    compatible element type at any offset (``f(v, v.data() + 1, n)``), so only ``restrict``
    rules it out; and pairs of references to one container type (which can only be the same
    object). A reference touched at the very indices it is written is harmless even when
    shared. Parameters, globals (``global_names``; by default those ``types`` marks global),
    names the function does not declare (members) and local pointers and references traced
    into a parameter or global, or not traced at all, take part."""
    params = {p.name: p for p in params_seq}
    restrict = re.compile(r"\b(restrict|__restrict__|__restrict)\b")
    if global_names is None:
        global_names = {n for n, vt in types.items() if vt is not None and vt.scope == "global"}
    globals_ = frozenset(global_names)
    # A local pointer or reference into a parameter (or into memory no one traced) may overlap
    # what the loop writes as much as a parameter: it takes part like one, never restrict.
    local = frozenset(name for name, origins in lp.pointer_origins
                      if UNKNOWN in origins or origins & (set(params) | globals_))
    storages = {a.base: reachable(a.base, types, frozenset(params), globals_, local,
                                  frozenset(lp.locals)) for a in lp.element_accesses}

    def restricted(name: str) -> bool:
        return name in params and bool(restrict.search(params[name].type_text))

    checked: set[str] = set()
    untestable: set[str] = set()
    pairs: list[tuple[str, str]] = []
    references: list[tuple[str, str]] = []
    elements: list[tuple[str, str, str]] = []
    seen: set[frozenset[str]] = set()
    for w in lp.element_accesses:
        sw = storages[w.base]
        if not w.write or sw is None:
            continue
        for r in lp.element_accesses:
            sr = storages[r.base]
            if r.base == w.base or sr is None:
                continue
            kind = overlap(sw, sr)
            if kind == "none":
                continue
            if kind == "same":
                if r.indices != w.indices and frozenset({w.base, r.base}) not in seen:
                    seen.add(frozenset({w.base, r.base}))
                    references.append((w.base, r.base))
            elif kind == "element":
                test = element_test(w.base, sw, r.base, sr)
                if test is None:
                    untestable |= {w.base, r.base}
                elif test not in (t for t, _a, _b in elements):
                    elements.append((test, w.base, r.base))
            elif not restrict_excludes(sw, restricted(w.base), sr, restricted(r.base)):
                if kind == "untestable":
                    untestable |= {w.base, r.base}
                elif (w.base, r.base) not in pairs:
                    checked |= {w.base, r.base}
                    pairs.append((w.base, r.base))
    extents = tuple((n, e) for n in sorted(checked)
                    if (st := storages[n]) is not None and st.kind != "pointer"
                    and (e := extent_of(n, st)) is not None)
    return Overlaps(tuple(sorted(checked)), tuple(pairs), tuple(references),
                    tuple(sorted(untestable)), extents, tuple(elements))


RULE = RuleSpec(
    id="openmp",
    detect=openmp,
    finds=frozenset({"openmp-for", "openmp-reduction"}),
    fix=openmp_fix,
    rewrite=openmp_rule,
    rewrites_as=frozenset({"openmp-for", "openmp-reduction"}),
    phase=3,
    order=0,
    examples=(
        Example("cpp", """
void saxpy(float *__restrict y, const float *__restrict x, float a, int n) {
    for (int i = 0; i < n; ++i) {
        y[i] = a * x[i] + y[i];
    }
}
""", "saxpy"),
        Example("cpp", """
long total(const int *a, int n) {
    long s = 0;
    for (int i = 0; i < n; ++i) {
        s += a[i];
    }
    return s;
}
""", "total"),
        Example("cpp", """
#include <vector>
std::vector<long> histogram(const int *a, int n) {
    std::vector<long> h(256);
    for (int i = 0; i < n; ++i) {
        ++h[a[i] & 255];
    }
    return h;
}
""", "histogram"),
        Example("cpp", """
#include <numeric>
#include <vector>
long long sum_all(const std::vector<int>& v) {
    long long s = std::accumulate(v.begin(), v.end(), 0LL);
    return s;
}
""", "sum_all"),
        Example("cpp", """
int first_negative(const int *a, int n) {
    for (int i = 0; i < n; ++i) {
        if (a[i] < 0) return i;
    }
    return -1;
}
""", "first_negative"),
        Example("cpp", """
long running_total(const int *__restrict a, long *__restrict out, int n) {
    long s = 0;
    for (int i = 0; i < n; ++i) {
        s += a[i];
        out[i] = s;
    }
    return s;
}
""", "running_total"),
    ),
)
