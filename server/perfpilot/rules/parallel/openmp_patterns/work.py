"""The cost model for a parallel loop nested in a loop whose iterations depend on each other.

Such a loop opens a parallel region on every outer iteration, which costs a few microseconds
(waking the team, the barrier at its end). It runs in parallel only when the work of the region
is well above that: its trip count times the work of one iteration, where a loop inside counts
its own trip count times its body (so a row update inside a factorization's ``k`` loop counts
rows times columns, and the small trailing regions at the end run serially). Sizes are syntax
nodes; trip counts are written from the counted headers and evaluated at run time, just before
the loop, as a branch (``gated_loop``).
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from perfpilot.code.declarations import VarType
from perfpilot.code.loop_body import direct_loops
from perfpilot.code.loop_header import counted_header
from perfpilot.code.loops import LoopFacts
from perfpilot.code.syntax import (
    Node,
    declarator_name,
    mutations,
    node_text,
    unwrap,
    walk,
)
from perfpilot.rules.edits import Edit
from perfpilot.rules.emit import relative_text, replace_statement
from perfpilot.rules.rewrite_input import RuleInput, line_indent, newline_of

# Work (syntax nodes executed) a parallel region must exceed to pay for itself.
MIN_REGION_WORK = 40_000

_PLAIN = re.compile(r"^(?:[\w\s+\-*/%.>\[\]]|\.(?:size|length)\(\)|->|\(|\))*$")
_CALL = re.compile(r"\w\s*\((?!\))")


def _trips(lower: str, upper: str, op: str, step: int) -> str:
    """The trip count of a counted loop of step one, as a C expression ('' when the bounds
    call functions other than ``size()``/``length()``)."""
    if step not in (1, -1) or not (_PLAIN.match(lower) and _PLAIN.match(upper)) or \
            _CALL.search(lower + " " + upper):
        return ""
    hi, lo = (upper, lower) if step == 1 else (lower, upper)
    inclusive = " + 1" if op in ("<=", ">=") else ""
    if lo.strip() == "0" and not inclusive:
        return _operand(hi)
    # in long long: the difference of two ints may not fit in one
    return f"(long long){_operand(hi)}" + \
        ("" if lo.strip() == "0" else f" - {_operand(lo)}") + inclusive


def _operand(expr: str) -> str:
    """``expr`` as the operand of a cast or of ``-``: bare when a name, number or call."""
    e = expr.strip()
    plain = re.fullmatch(r"[A-Za-z_]\w*(?:(?:\.|->)[A-Za-z_]\w*)*(?:\(\))?|\d+", e)
    return e if plain else f"({e})"


def _size(node: Node | None) -> int:
    return sum(1 for n in walk(node) if n.is_named) if node is not None else 0


def _per_iteration(body: Node) -> set[str]:
    """Names the gated loop's body declares or writes: their values at the gate are not those
    an inner loop's header sees."""
    names = {node_text(unwrap(t)) for _, t in mutations(body)}
    for n in walk(body):
        if n.type in ("declaration", "for_range_loop"):
            for d in n.children_by_field_name("declarator"):
                name = declarator_name(d)
                if name:
                    names.add(name)
    return names


def _work(body: Node, fixed: Mapping[str, str], varying: set[str],
          types: Mapping[str, VarType | None]) -> tuple[str, bool]:
    """The work of one run of ``body`` as a C expression, and whether every loop inside got
    its trip count (a loop whose count cannot be written is counted once). ``fixed`` maps a
    counter to the value standing for it (the gated loop's midpoint); names in ``varying`` make
    a count unwritable."""
    inner = list(direct_loops(body))  # the body itself when it is a loop
    own = _size(body) - sum(_size(n.child_by_field_name("body")) for n in inner)
    terms: list[str] = []
    exact = True
    for n in inner:
        nbody = n.child_by_field_name("body")
        h = counted_header(n, dict(types)) if n.type == "for_statement" else "not counted"
        trips = "" if isinstance(h, str) else _trips(h.lower, h.upper, h.op, h.step)
        names = set(re.findall(r"[A-Za-z_]\w*", trips)) - {"long"}
        if trips and not names & varying and nbody is not None:
            for name, value in fixed.items():
                trips = re.sub(rf"\b{re.escape(name)}\b", value, trips)
            sub, ok = _work(nbody, fixed, varying, types)
            exact = exact and ok
            terms.append(f"(double)({trips}) * " + (f"({sub})" if " + " in sub else sub))
        else:
            own += _size(nbody)
            exact = False
    return " + ".join([str(max(1, own)), *terms]), exact


def work_gate(lp: LoopFacts, node: Node, types: Mapping[str, VarType | None] | None = None,
              ) -> tuple[str, bool]:
    """The condition that keeps the loop ``node`` serial when its region's estimated work is
    below ``MIN_REGION_WORK``, and whether it counts the trip count of every loop inside ("",
    False when the loop's own trip count cannot be written: a step other than one, or bounds
    that call functions other than ``size()``)."""
    if lp.step is None or lp.lower is None or lp.upper is None or lp.cond_op is None:
        return "", False
    trips = _trips(lp.lower, lp.upper, lp.cond_op, lp.step)
    body = node.child_by_field_name("body")
    if not trips or body is None:
        return "", False
    var = lp.induction or ""
    middle = f"(((long long)({lp.lower}) + (long long)({lp.upper})) / 2)"
    work, exact = _work(body, {var: middle} if var else {}, _per_iteration(body) - {var},
                        types or {})
    if " + " not in work:
        # no loop inside: trips x body size > MIN, with the division done here
        cost = max(1, int(work))
        return f"{trips} > {-(-MIN_REGION_WORK // cost)}", exact
    return f"{trips} > 1 && (double)({trips}) * ({work}) > {MIN_REGION_WORK}", exact


def needs_gate(lp: LoopFacts) -> bool:
    """An inner loop that runs in parallel only behind a gate: one nested in two or more loops,
    or with no loop inside (a loop at depth one with loops inside gets a gate when every trip
    count in it can be written, and runs ungated otherwise)."""
    return lp.depth > 1 or (lp.depth == 1 and not lp.children)


def gate_of(lp: LoopFacts, node: Node, types: Mapping[str, VarType | None]) -> str:
    """The gate a parallel loop gets ("" for none): see ``needs_gate``."""
    if lp.depth == 0:
        return ""
    gate, exact = work_gate(lp, node, types)
    return gate if needs_gate(lp) or exact else ""


def gated_slot_ok(node: Node) -> bool:
    """Whether ``node`` may be replaced by another statement (an ``if``/``else`` or a block):
    it sits in a block with no preprocessor line before it, or it is the whole body of a loop
    or branch."""
    parent = node.parent
    if parent is None:
        return False
    if parent.type == "compound_statement":
        prev = node.prev_sibling
        return prev is None or not prev.type.startswith("preproc")
    if parent.type == "else_clause":
        return True
    return any(parent.child_by_field_name(f) == node
               for f in ("body", "consequence", "alternative"))


def _indented(inp: RuleInput, node: Node) -> tuple[str, str, str]:
    """The line ending, the indentation of ``node``'s line, and the loop's text indented one
    level deeper."""
    data = inp.data
    nl = newline_of(inp.text)
    _start, indent = line_indent(data, node)
    if not indent:
        line_start = data.rfind(b"\n", 0, node.start_byte) + 1
        lead = data[line_start:node.start_byte]
        indent = lead[:len(lead) - len(lead.lstrip())].decode("utf-8")
    loop = data[node.start_byte:node.end_byte].decode("utf-8").replace(nl, nl + "    ")
    return nl, indent, loop


def gated_loop(inp: RuleInput, node: Node, pragma: str, gate: str, rule: str) -> Edit:
    """``node`` (a loop) replaced by ``if (gate) { pragma loop } else { loop }``.

    An ``if`` clause on the pragma would not do: a region whose clause is false still enters
    the OpenMP runtime (about a microsecond), which an inner loop of a few iterations pays on
    every outer iteration. The branch keeps small trips entirely serial.
    """
    nl, indent, loop = _indented(inp, node)
    inner = indent + "    "
    text = (f"if ({gate}) {{{nl}{inner}{pragma}{nl}{inner}{loop}{nl}"
            f"{indent}}} else {{{nl}{inner}{loop}{nl}{indent}}}")
    return Edit(node.start_byte, node.end_byte, text, rule)


def braced_loop(inp: RuleInput, node: Node, pragma: str, rule: str) -> Edit:
    """``node`` (a loop that is the whole body of a loop or branch) replaced by ``{ pragma
    loop }``: a pragma needs a line of its own inside a block."""
    made = replace_statement(inp, node, [pragma, relative_text(inp, node)], rule)
    if made is not None:
        return made
    nl, indent, loop = _indented(inp, node)
    inner = indent + "    "
    return Edit(node.start_byte, node.end_byte,
                f"{{{nl}{inner}{pragma}{nl}{inner}{loop}{nl}{indent}}}", rule)
