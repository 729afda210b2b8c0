"""Rules over loops: OpenMP parallel for, hoisting invariant calls, reserve, loop interchange."""

from __future__ import annotations

import re

from perfpilot.code.dependence import interchange_blocker
from perfpilot.code.loops import LoopFacts, all_loops
from perfpilot.code.parse import LOOP_TYPES, node_text, walk_all
from perfpilot.rules.edits import Edit
from perfpilot.rules.rewrite_input import (
    Change,
    Node,
    RuleInput,
    RuleOutput,
    fresh_name,
    insertion_before,
    loop_node,
    statement_slot_ok,
)

# Parallelizing a loop whose trip count is a small constant costs more than it gains.
_MIN_LITERAL_TRIPS = 64


def _small_constant_trip(lp: LoopFacts) -> bool:
    try:
        lo = int(lp.lower or "", 0)
        hi = int(lp.upper or "", 0)
    except ValueError:
        return False
    return abs(hi - lo) < _MIN_LITERAL_TRIPS


def openmp_rule(inp: RuleInput) -> RuleOutput:
    """``#pragma omp parallel for`` (with reduction/private clauses) on the outermost loop of
    each nest that the analysis proves independent."""
    changes: list[Change] = []
    notes: list[str] = []
    if re.search(r"#\s*pragma\s+omp\b", inp.text):
        return changes, ["openmp: the function already uses OpenMP; left as it is"]

    def visit(lp: LoopFacts) -> None:
        node = loop_node(inp, lp)
        if lp.independent and node is not None:
            why_not = ""
            if not lp.children and _small_constant_trip(lp):
                why_not = "its trip count is a small constant"
            elif lp.depth > 1 or (lp.depth == 1 and not lp.children):
                why_not = ("it is an inner loop: a parallel region per outer iteration costs "
                           "more than it saves")
            elif any(c.method == "at" for c in lp.calls):
                why_not = "'.at()' may throw, and an exception must not leave a parallel loop"
            elif not statement_slot_ok(node):
                why_not = "it is not directly inside a block, or a pragma already precedes it"
            if not why_not:
                changes.append(_pragma_change(inp, lp, node))
                return
            notes.append(f"openmp: the loop at line {lp.line} is independent but not "
                         f"parallelized: {why_not}")
        elif lp.kind == "for" and lp.depth == 0 and lp.reason:
            notes.append(f"openmp: the loop at line {lp.line} stays serial: {lp.reason}")
        for child in lp.children:
            visit(child)

    for top in inp.loops:
        visit(top)
    return changes, notes


def _pragma_change(inp: RuleInput, lp: LoopFacts, node: Node) -> Change:
    clauses = ""
    by_op: dict[str, list[str]] = {}
    for op, var in lp.reductions:
        by_op.setdefault(op, []).append(var)
    for op, names in by_op.items():
        clauses += f" reduction({op}:{','.join(names)})"
    if lp.private_vars:
        clauses += f" private({','.join(lp.private_vars)})"
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
    overlap = _unproven_overlap(inp, lp)
    if overlap:
        parts.append(f"(assuming {', '.join(overlap)} do not overlap in memory; the benchmark "
                     "validation checks the result)")
    explanation = (" ".join(parts) + f"; '{pragma}' runs the iterations on all cores.")
    edit = insertion_before(inp, node, pragma, rule, order=9)
    return Change(rule, (edit,), explanation[0].upper() + explanation[1:], (lp.line,))


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


def hoist_rule(inp: RuleInput) -> RuleOutput:
    """Evaluate ``strlen(s)`` / ``v.size()`` in a loop condition once, before the loop."""
    changes: list[Change] = []
    notes: list[str] = []
    taken = set(inp.taken)
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
    return changes, notes


_VECTOR = re.compile(r"^(std::)?(vector\s*<|string$|basic_string\s*<)")


def _leaves_early(loop: Node) -> bool:
    body = loop.child_by_field_name("body")
    if body is None:
        return True
    for n in walk_all(body):
        if n.type in ("return_statement", "goto_statement", "throw_statement"):
            return True
        if n.type in ("break_statement", "continue_statement"):
            parent = n.parent
            while parent is not None and parent.type not in LOOP_TYPES and \
                    parent.type != "switch_statement":
                parent = parent.parent
            if parent == loop or (n.type == "continue_statement" and parent is not None and
                                  parent.type == "switch_statement"):
                return True
    return False


def _pure_bound(text: str) -> bool:
    """A bound expression that is cheap and safe to evaluate once more."""
    if re.search(r"\+\+|--|(?<![<>=!])=(?!=)", text):
        return False
    calls = re.findall(r"([\w.:>\-]+)\s*\(", text)
    return all(re.search(r"(\.|->)(size|length)$|^(std::)?strlen$", c) for c in calls)


def _balanced(text: str) -> bool:
    depth = 0
    for ch in text:
        depth += {"(": 1, ")": -1}.get(ch, 0)
        if depth < 0:
            return False
    return depth == 0


def _paren(text: str) -> str:
    return text if re.fullmatch(r"[\w.]+(\(\))?", text) else f"({text})"


def reserve_rule(inp: RuleInput) -> RuleOutput:
    """``v.reserve(...)`` before a counted loop that appends to local ``v`` once per iteration."""
    changes: list[Change] = []
    notes: list[str] = []
    if inp.language != "cpp":
        return changes, notes
    params = {p.name for p in inp.site.params}
    for lp in inp.loops:  # outermost loops only: inside another loop, exact reserves go quadratic
        if not lp.appends or not lp.counted or lp.step not in (1, -1):
            continue
        node = loop_node(inp, lp)
        if node is None or not statement_slot_ok(node) or _leaves_early(node):
            continue
        lo, hi, op = lp.lower or "", lp.upper or "", lp.cond_op or ""
        if not (_pure_bound(lo) and _pure_bound(hi)):
            continue
        for v in lp.appends:
            vt = inp.types.get(v)
            if v in params or vt is None or vt.pointer or vt.reference or vt.array or \
                    not _VECTOR.match(vt.base.replace("const", "").strip()):
                continue
            if re.search(rf"\b{re.escape(v)}\b", lo + " " + hi):
                continue
            if lp.step == 1:
                first, last = hi, lo
                strict = op in ("<", "!=")
            else:
                first, last = lo, hi
                strict = op in (">", "!=")
            minus_one = re.fullmatch(r"\(?\s*(.+?)\s*-\s*1\s*\)?", first)
            if not strict and minus_one and _balanced(minus_one.group(1)):
                # `i = x.size() - 1; i >= 0`: the trip count is the plain bound `x.size()`.
                # Testing `(x.size() - 1) >= 0` is always true for an unsigned size.
                first, strict = minus_one.group(1), True
            cmp = ">" if strict else ">="
            extra = "" if strict else " + 1"
            f_txt, l_txt = _paren(first), _paren(last)
            count = f_txt if last == "0" else f"{f_txt} - {l_txt}"
            stmt = (f"if ({f_txt} {cmp} {l_txt}) {v}.reserve({v}.size() + "
                    f"static_cast<std::size_t>({count}){extra});")
            edit = insertion_before(inp, node, stmt, "reserve", order=5)
            changes.append(Change(
                "reserve", (edit,),
                f"The loop at line {lp.line} appends to '{v}' once per iteration and its trip "
                f"count is known before it starts; reserving that capacity up front avoids "
                "repeated reallocation and copying as the vector grows.", (lp.line,)))
    return changes, notes


def _header_end(loop: Node) -> int:
    body = loop.child_by_field_name("body")
    end = loop.start_byte
    for child in loop.children:
        if child == body:
            break
        end = child.end_byte
    return end


def interchange_rule(inp: RuleInput) -> RuleOutput:
    """Swap a perfect 2-loop nest whose body walks ``a[j][i]`` with ``j`` the inner variable."""
    changes: list[Change] = []
    notes: list[str] = []
    for lp in all_loops(inp.loops):
        if len(lp.children) != 1 or not lp.counted or not lp.induction_declared:
            continue
        inner = lp.children[0]
        if not inner.counted or not inner.induction_declared or inner.children:
            continue
        outer_node, inner_node = loop_node(inp, lp), loop_node(inp, inner)
        if outer_node is None or inner_node is None:
            continue
        body = outer_node.child_by_field_name("body")
        if body is None:
            continue
        stmts = [c for c in body.named_children if c.type != "comment"] \
            if body.type == "compound_statement" else [body]
        if stmts != [inner_node]:
            continue
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
        if bad == 0 or good > 0:
            continue
        blocker = interchange_blocker(outer_node, dict(inp.types))
        if blocker:
            notes.append(f"loop-interchange: the nest at line {lp.line} walks memory against "
                         f"its storage order but cannot be swapped safely: {blocker}")
            continue
        outer_head = (outer_node.start_byte, _header_end(outer_node))
        inner_head = (inner_node.start_byte, _header_end(inner_node))
        data = inp.data
        outer_text = data[outer_head[0]:outer_head[1]].decode("utf-8")
        inner_text = data[inner_head[0]:inner_head[1]].decode("utf-8")
        edits = (Edit(outer_head[0], outer_head[1], inner_text, "loop-interchange"),
                 Edit(inner_head[0], inner_head[1], outer_text, "loop-interchange"))
        example = next(a for a in inner.element_accesses
                       if i in a.indices and j in a.indices)
        changes.append(Change(
            "loop-interchange", edits,
            f"The nest at line {lp.line} indexes '{example.base}[{']['.join(example.indices)}]' "
            f"with the inner loop variable '{j}' on the outer dimension, so consecutive "
            f"iterations stride across rows; swapping the loops ('{j}' outer, '{i}' inner) "
            "walks memory in storage order. Iterations are independent, so the order does "
            "not change the result.", (lp.line,)))
    return changes, notes


def loop_text(inp: RuleInput, lp: LoopFacts) -> str:
    """The source text of a loop (for messages and tests)."""
    node = loop_node(inp, lp)
    return node_text(node) if node is not None else ""
