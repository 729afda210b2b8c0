"""The vector-front-op rule: ``v.erase(v.begin())`` or ``v.insert(v.begin(), x)`` on a vector inside
a loop.

Rewrite: A vector drained from the front keeps a head index instead of erasing.

``while (!q.empty()) { T x = q.front(); q.erase(q.begin()); ... }`` moves every remaining
element on each erase, so draining ``n`` elements costs O(n²). Counting the consumed prefix in
``q_head`` instead makes each step O(1):

- ``!q.empty()`` becomes ``q_head < q.size()``, ``q.erase(q.begin())`` becomes ``++q_head``;
- inside the loop ``q.size()``, ``q.empty()``, ``q.front()`` and ``q[k]`` are read relative to
  ``q_head``; ``q.back()``, ``q.push_back(...)`` and ``q.emplace_back(...)`` need no change;
- after the loop the consumed prefix is erased once, so ``q`` ends as the original left it
  (also after a ``break``).

Any other use of ``q`` in the loop (iterators, other erasures, passing it on) leaves the loop
as it is.

A loop that only adds to the front (``v.insert(v.begin(), x)``, ``r = c + r`` on a string:
``front_inserts.py`` has the proof) pushes onto the back of a scratch container instead,
and one insert of it, reversed, after the loop puts the same elements in the same order.

A loop consuming a local or by-value string or vector from the front (``s.erase(0, 1)``,
``s.erase(s.begin())``, ``s = s.substr(1)``: ``front_consume.py`` has the proof) reads
the unchanged container through an offset instead, and erases the consumed prefix once after
the loop when the container is still observed there.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

from perfpilot.code.effects import BACK_METHODS
from perfpilot.code.facts import FunctionFacts, Loop
from perfpilot.code.syntax import (
    Node,
    arguments,
    callee,
    is_within,
    line,
    node_text,
    receiver,
    root_name,
    statements,
    walk,
)
from perfpilot.rules.base import Example, RuleSpec
from perfpilot.rules.containers.front_consume import (
    FrontConsumed,
    Refused,
    consume_text,
    find_helper_text,
    front_consumed,
    offset_text,
    restore_text,
)
from perfpilot.rules.containers.front_inserts import FrontBuilt, front_built
from perfpilot.rules.detect.common import code, loop_phrase, rng, squashed
from perfpilot.rules.edits import Edit
from perfpilot.rules.emit import ADDITIVE, EQUALITY, POSTFIX, fitted_edit
from perfpilot.rules.finding import Finding, Proof, depth_bonus, make_finding
from perfpilot.rules.rewrite_input import (
    Left,
    Planned,
    RuleInput,
    insertion_before,
    newline_of,
    statement_slot_ok,
)

RULE_ID = "vector-front-op"
_VECTOR = re.compile(r"^(std::)?vector\s*<.+>$")


def _rewrites(body: Node, q: str, head: str, erase: Node) -> list[Edit] | None:
    """Edits that read ``q`` relative to ``head`` inside ``body``; None for a use that
    cannot be rewritten."""
    edits: list[Edit] = []
    for n in walk(body):
        if n.type != "identifier" or node_text(n) != q or \
                erase.start_byte <= n.start_byte < erase.end_byte:
            continue
        parent = n.parent
        if parent is not None and parent.type == "subscript_expression":
            index = parent.child_by_field_name("index") or \
                parent.child_by_field_name("indices")
            if index is None:
                return None
            inner = node_text(index).strip("[]").strip()
            at = head if inner == "0" else f"{head} + {inner}" if \
                re.fullmatch(r"[\w.]+(?:\(\))?|\w+\[[^\]]*\]", inner) else \
                f"{head} + ({inner})"
            edits.append(Edit(parent.start_byte, parent.end_byte, f"{q}[{at}]", RULE_ID))
            continue
        call = parent.parent if parent is not None else None
        field = parent.child_by_field_name("field") \
            if parent is not None and parent.type == "field_expression" else None
        if field is None or call is None or call.type != "call_expression":
            return None
        method = node_text(field)
        if method in BACK_METHODS:
            continue
        replacement = {"size": (f"{q}.size() - {head}", ADDITIVE),
                       "empty": (f"{head} == {q}.size()", EQUALITY),
                       "front": (f"{q}[{head}]", POSTFIX)}.get(method)
        args = call.child_by_field_name("arguments")
        if replacement is None or args is None or args.named_child_count:
            return None
        edits.append(fitted_edit(call, replacement[0], replacement[1], RULE_ID))
    return edits


@dataclass(frozen=True)
class Drain:
    """``while (!q.empty()) { ... q.erase(q.begin()); ... }`` on a vector ``queue``, the erase
    among the first two statements of the loop's block."""

    loop: Node
    queue: str
    erase: Node  # the erase statement


@dataclass(frozen=True)
class FrontOp(Proof):
    """What detection proved of one front operation: a loop draining a vector (``drain``), a
    loop consuming a container through an offset (``consumed``), a loop only building at the
    front (``built``), or none of them (``why`` it stays); ``node`` names the operation."""

    node: Node
    drain: Drain | None = None
    consumed: FrontConsumed | None = None
    built: FrontBuilt | None = None
    why: str = ""


def _drain(facts: FunctionFacts, call: Node) -> Drain | None:
    """The draining loop whose erase statement is ``call``'s (see ``Drain``)."""
    stmt = call.parent
    body = stmt.parent if stmt is not None else None
    loop = body.parent if body is not None else None
    if stmt is None or body is None or loop is None or loop.type != "while_statement" or \
            body.type != "compound_statement" or loop.child_by_field_name("body") != body:
        return None
    m = re.fullmatch(r"\(!([A-Za-z_]\w*)\.empty\(\)\)",
                     squashed(loop.child_by_field_name("condition")))
    if m is None:
        return None
    q = m.group(1)
    vt = facts.var(q)
    if vt is None or vt.pointer or vt.array or not _VECTOR.match(
            " ".join(vt.base.replace("const", "").split())):
        return None
    if stmt not in statements(body)[:2] or squashed(stmt) != f"{q}.erase({q}.begin());":
        return None
    return Drain(loop, q, stmt)


def fix(inp: RuleInput, finding: Finding) -> Planned | Left:
    """The loop the finding proved: drained through a head index, consumed through an
    offset, or built at the back of a scratch container; else why it stays."""
    proof = finding.proof
    assert isinstance(proof, FrontOp)
    if proof.drain is not None:
        drained = _drain_change(inp, proof.drain)
        if isinstance(drained, Planned) or proof.consumed is None:
            return drained
    if proof.consumed is not None:
        return _consume_change(inp, proof.consumed)
    if proof.built is not None:
        return _front_change(inp, proof.built)
    return Left("", proof.node, proof.why)


def _drain_change(inp: RuleInput, d: Drain) -> Planned | Left:
    loop, q, erase = d.loop, d.queue, d.erase
    if not statement_slot_ok(loop):
        return Left("the loop", loop, "it is not directly inside a block, so nothing can be "
                    "declared before it")
    body = loop.child_by_field_name("body")
    assert body is not None
    head = inp.fresh_name(f"{q}_head")
    edits = _rewrites(body, q, head, erase)
    if edits is None:
        return Left("the loop", loop, f"it uses '{q}' in a way that a head index cannot "
                    "follow (iterators, other erasures, ...)")
    nl = newline_of(inp.text)
    data = inp.data
    line_start = data.rfind(b"\n", 0, loop.start_byte) + 1
    indent = data[line_start:loop.start_byte].decode("utf-8")
    indent = indent if not indent.strip() else ""
    cond_node = loop.child_by_field_name("condition")
    assert cond_node is not None
    edits += [
        insertion_before(inp, loop, f"std::size_t {head} = 0;", RULE_ID, order=-10),
        Edit(cond_node.start_byte, cond_node.end_byte, f"({head} < {q}.size())", RULE_ID),
        Edit(erase.start_byte, erase.end_byte, f"++{head};", RULE_ID),
        # The consumed prefix goes once, so q ends as the original loop left it.
        Edit(loop.end_byte, loop.end_byte,
             f"{nl}{indent}{q}.erase({q}.begin(), {q}.begin() + "
             f"static_cast<std::ptrdiff_t>({head}));", RULE_ID),
    ]
    return Planned(
        tuple(edits),
        f"The loop at line {inp.line_of(loop)} removes the first element of '{q}' with "
        f"erase(begin()) on every iteration, which moves all the remaining elements, so "
        f"draining it is quadratic; counting the consumed elements in '{head}' and erasing "
        "them once after the loop makes each step constant time.", (loop,), includes=())


def _front_change(inp: RuleInput, fb: FrontBuilt) -> Planned | Left:
    loop = fb.loop.node
    if not statement_slot_ok(loop):
        return Left("the loop", loop, "it is not directly inside a block, so nothing can "
                    "follow it")
    r = fb.name
    tmp = inp.fresh_name(f"{r}_front")
    edits = [insertion_before(inp, loop, f"{fb.type_text} {tmp};", RULE_ID, order=-10)]
    for ins in fb.inserts:
        if ins.whole:
            piece = inp.fresh_name(f"{r}_piece")
            new = (f"{{ const std::string& {piece} = {ins.piece}; "
                   f"{tmp}.append({piece}.rbegin(), {piece}.rend()); }}")
        else:
            new = f"{tmp}.push_back({ins.piece});"
        edits.append(Edit(ins.statement.start_byte, ins.statement.end_byte, new, RULE_ID))
    nl = newline_of(inp.text)
    data = inp.data
    line_start = data.rfind(b"\n", 0, loop.start_byte) + 1
    indent = data[line_start:loop.start_byte].decode("utf-8")
    indent = indent if not indent.strip() else ""
    # The pieces go in front once, last added first, as the front inserts left them.
    edits.append(Edit(loop.end_byte, loop.end_byte,
                      f"{nl}{indent}{r}.insert({r}.begin(), {tmp}.rbegin(), {tmp}.rend());",
                      RULE_ID))
    what = "string" if fb.string else "vector"
    return Planned(
        tuple(edits),
        f"The loop at line {inp.line_of(loop)} adds to the front of the {what} '{r}', moving "
        f"everything already in it each time, which is quadratic; it now appends to '{tmp}' "
        f"and puts its contents, reversed, in front of '{r}' once after the loop.", (loop,),
        includes=())


def _consume_change(inp: RuleInput, fc: FrontConsumed) -> Planned | Left:
    if not statement_slot_ok(fc.loop):
        return Left("the loop", fc.loop, "it is not directly inside a block, so nothing can "
                    "be declared before it")
    line = inp.line_of(fc.loop)
    off = inp.fresh_name(f"{fc.name}_head")
    count = inp.fresh_name(f"{fc.name}_cut")
    finder = inp.fresh_name(f"{fc.name}_find") if any(r.kind == "find" for r in fc.reads) \
        else ""
    edits = [insertion_before(inp, fc.loop, f"std::size_t {off} = 0;", RULE_ID, order=-10),
             Edit(fc.consume.start_byte, fc.consume.end_byte,
                  consume_text(fc, off, count, finder), RULE_ID)]
    if finder:
        helper = find_helper_text(fc.name, off, finder, inp.fresh_name("what"),
                                  inp.fresh_name("at"))
        edits.append(insertion_before(inp, fc.loop, helper, RULE_ID, order=-9))
    # Reads in the consume's count are followed inside its replacement.
    binds = {"size": ADDITIVE, "empty": EQUALITY}
    edits += [fitted_edit(r.node, offset_text(r, fc.name, off, finder)[1:-1], binds[r.kind],
                          RULE_ID) if r.kind in binds else
              Edit(r.node.start_byte, r.node.end_byte, offset_text(r, fc.name, off, finder),
                   RULE_ID) for r in fc.reads if not is_within(r.node, fc.consume)]
    if fc.restore:
        nl = newline_of(inp.text)
        line_start = inp.data.rfind(b"\n", 0, fc.loop.start_byte) + 1
        indent = inp.data[line_start:fc.loop.start_byte].decode("utf-8")
        indent = indent if not indent.strip() else ""
        # The consumed prefix goes once, so the container ends as the original loop left it.
        edits.append(Edit(fc.loop.end_byte, fc.loop.end_byte,
                          f"{nl}{indent}{restore_text(fc, off)}", RULE_ID))
    how = {"erase": f"{fc.name}.erase(0, 1)", "erase-begin": f"{fc.name}.erase(begin())",
           "substr": f"{fc.name} = {fc.name}.substr(1)",
           "erase-n": f"{fc.name}.erase(0, {node_text(fc.count)})",
           "substr-n": f"{fc.name} = {fc.name}.substr({node_text(fc.count)})"}[fc.form]
    what = "a prefix" if fc.form in ("erase-n", "substr-n") else "the first element"
    after = " and erases the consumed prefix once after the loop" if fc.restore else ""
    includes = ("<cstddef>", "<algorithm>") if fc.form == "erase-n" else ("<cstddef>",)
    return Planned(
        tuple(edits),
        f"The loop at line {line} removes {what} of '{fc.name}' with '{how}' on "
        f"every iteration, moving all the remaining elements, so consuming it is quadratic; "
        f"it now reads '{fc.name}' unchanged through the offset '{off}'{after}, constant "
        "time per step.", (fc.loop,), includes)


_ERASE_BEGIN = re.compile(r"\.erase\(\w+\.c?begin\(\)\)")


def refused(inp: RuleInput) -> list[str]:
    """Why each loop consuming a container from the front by a form the detection does not
    report (``erase(0, 1)``, ``substr(1)``, a prefix) stays as it is."""
    _found, refusals = front_consumed(inp.facts, inp.unit)
    return [f"{RULE_ID}: the loop at line {inp.line_of(r.loop)} keeps consuming '{r.name}' "
            f"from the front: {r.why}" for r in refusals
            if not _ERASE_BEGIN.search(squashed(r.consume))]


# detection


_VECTORISH = re.compile(r"^(?:std::)?(vector|string|basic_string)\b")


def vector_front_op(facts: FunctionFacts) -> Iterator[Finding]:
    """``v.erase(v.begin())`` or ``v.insert(v.begin(), x)`` on a vector inside a loop, or
    ``r = c + r`` on a string, or a proved front-consuming loop (``s.erase(0, 1)``,
    ``s = s.substr(1)``)."""
    consumed, refusals = front_consumed(facts, facts.unit)
    drains = {d.loop.start_byte: d for d in (
        _drain(facts, c) for c in facts.in_loops("call_expression")) if d is not None}
    for fc in consumed:
        lp = facts.loop_of(fc.consume)
        if fc.form == "erase-begin" or lp is None:
            continue  # erase(begin()) is reported below
        what = "a prefix" if fc.form in ("erase-n", "substr-n") else "the first element"
        drain = drains.get(fc.loop.start_byte)
        yield make_finding(
            "vector-front-op",
            f"`{code(fc.consume)}` on line {line(fc.consume)} removes {what} of "
            f"`{fc.name}` on every iteration of {loop_phrase(lp)}, moving (or copying) all "
            f"the remaining elements each time (O(n²)): read `{fc.name}` through a moving "
            "start offset instead and erase the consumed prefix once after the loop.",
            [line(fc.consume), lp.line],
            loop_range=lp.byte_range, node_range=rng(fc.consume), names=[fc.name],
            bonus=depth_bonus(lp.depth),
            proof=FrontOp(fc.consume, consumed=fc) if drain is None else FrontOp(
                fc.consume, why=f"the loop drains '{drain.queue}' through a head index, "
                "one rewrite of the loop at a time"),
        )
    built_at: set[int] = set()
    for fb in front_built(facts):
        built_at |= {i.statement.start_byte for i in fb.inserts}
        e = min((i.statement for i in fb.inserts), key=lambda n: n.start_byte).named_children[0]
        if e.type == "assignment_expression":
            text = (f"`{code(e)}` on line {line(e)} builds a new string with `{fb.name}` "
                    f"copied after the new characters on every iteration of "
                    f"{loop_phrase(fb.loop)} (O(n²) copies): append them to a scratch string "
                    f"and put it, reversed, in front of `{fb.name}` once after the loop.")
        else:
            text = _front_phrase(e, "inserts at the front", fb.name, fb.loop)
        yield make_finding(
            "vector-front-op", text, [line(e), fb.loop.line],
            loop_range=fb.loop.byte_range, node_range=rng(e), names=[fb.name],
            bonus=depth_bonus(fb.loop.depth),
            proof=FrontOp(e, built=fb),
        )
    for call in facts.in_loops("call_expression"):
        name = callee(call)
        if name not in ("erase", "insert", "emplace"):
            continue
        rcv = receiver(call)
        args = arguments(call)
        if rcv is None or not args:
            continue
        vname = root_name(rcv)
        v = facts.var(vname)
        if vname is None or (v is not None and not _VECTORISH.match(v.base)):
            continue
        first: Node = args[0]
        if not (first.type == "call_expression" and callee(first) in ("begin", "cbegin")
                and receiver(first) is not None and root_name(receiver(first)) == vname):
            continue
        loop = facts.loop_of(call)
        if loop is None:
            continue
        if call.parent is not None and call.parent.start_byte in built_at:
            continue  # its loop only builds at the front: reported above
        op = "removes the first element" if name == "erase" else "inserts at the front"
        yield make_finding(
            "vector-front-op", _front_phrase(call, op, vname, loop),
            [line(call), loop.line],
            loop_range=loop.byte_range, node_range=rng(call), names=[vname],
            bonus=depth_bonus(loop.depth),
            proof=_call_proof(call, name, drains, consumed, refusals),
        )


def _front_phrase(call: Node, op: str, vname: str, loop: Loop) -> str:
    return (f"`{code(call)}` on line {line(call)} {op} of `{vname}` on every iteration of "
            f"{loop_phrase(loop)}, shifting all remaining elements each time (O(n²) moves): "
            f"use `std::deque` (`pop_front`/`push_front` are O(1)), or keep a moving start "
            f"index.")


def _call_proof(call: Node, name: str, drains: dict[int, Drain],
                consumed: tuple[FrontConsumed, ...], refusals: tuple[Refused, ...]) -> FrontOp:
    """What a front erase or insert call is part of: a drain, a proved consuming loop (both
    for an erase, the drain first), or why it stays."""
    stmt = call.parent
    drain = next((d for d in drains.values() if d.erase == stmt), None)
    fc = next((c for c in consumed if c.consume == stmt), None)
    if drain is not None or fc is not None:
        return FrontOp(call, drain=drain, consumed=fc)
    refusal = next((r for r in refusals if r.consume == stmt), None)
    if refusal is not None:
        return FrontOp(call, why=refusal.why)
    if name == "erase":
        why = "no drain or consuming loop is proved around it: a `while (!v.empty())` loop " \
              "(or one testing the size) whose block erases the front once and otherwise " \
              "only reads it"
    else:
        why = "the loop does more with the container than add to its front one element " \
              "at a time, or may leave it half built"
    return FrontOp(call, why=why)


RULE = RuleSpec(
    id=RULE_ID,
    detect=vector_front_op,
    fix=fix,
    refused=refused,
    rewrites_as=frozenset({"vector-front-op"}),
    phase=1,
    order=6,
    examples=(
        Example("cpp", """
#include <vector>
long drain(std::vector<int> &q) {
    long s = 0;
    while (!q.empty()) {
        s += q.front();
        q.erase(q.begin());
    }
    return s;
}
""", "drain"),
        Example("cpp", """
#include <string>
long consume(std::string s) {
    long total = 0;
    while (!s.empty()) {
        total += s[0];
        s.erase(0, 1);
    }
    return total;
}
""", "consume"),
    ),
)
