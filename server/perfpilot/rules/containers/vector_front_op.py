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

from perfpilot.code.effects import BACK_METHODS
from perfpilot.code.facts import FunctionFacts
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
    consume_text,
    find_helper_text,
    front_consumed,
    offset_text,
    restore_text,
)
from perfpilot.rules.containers.front_inserts import FrontBuilt, front_built
from perfpilot.rules.detect.common import code, loop_phrase, rng
from perfpilot.rules.edits import Edit, overlaps
from perfpilot.rules.emit import ADDITIVE, EQUALITY, POSTFIX, fitted_edit
from perfpilot.rules.finding import Finding, depth_bonus, make_finding
from perfpilot.rules.rewrite_input import (
    Change,
    RuleInput,
    RuleOutput,
    insertion_before,
    newline_of,
    statement_slot_ok,
)

RULE_ID = "vector-front-op"
_VECTOR = re.compile(r"^(std::)?vector\s*<.+>$")


def _squash(node: Node | None) -> str:
    return "".join(node_text(node).split()) if node is not None else ""


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


def queue_rule(inp: RuleInput) -> RuleOutput:
    """Rewrite ``while (!q.empty())`` loops that erase ``q``'s front into head-index loops."""
    changes: list[Change] = []
    notes: list[str] = []
    for loop in walk(inp.function):
        if loop.type != "while_statement":
            continue
        cond = _squash(loop.child_by_field_name("condition"))
        m = re.fullmatch(r"\(!([A-Za-z_]\w*)\.empty\(\)\)", cond)
        body = loop.child_by_field_name("body")
        if m is None or body is None or body.type != "compound_statement":
            continue
        q = m.group(1)
        vt = inp.types.get(q)
        if vt is None or vt.pointer or vt.array or not _VECTOR.match(
                " ".join(vt.base.replace("const", "").split())):
            continue
        erase = next((s for s in statements(body)[:2]
                      if _squash(s) == f"{q}.erase({q}.begin());"), None)
        if erase is None:
            continue
        line = inp.line_of(loop)
        if not statement_slot_ok(loop):
            continue
        head = inp.fresh_name(f"{q}_head")
        edits = _rewrites(body, q, head, erase)
        if edits is None:
            notes.append(f"{RULE_ID}: the loop at line {line} stays: it uses '{q}' in a way "
                         "that a head index cannot follow (iterators, other erasures, ...)")
            continue
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
        changes.append(Change(
            RULE_ID, tuple(edits),
            f"The loop at line {line} removes the first element of '{q}' with erase(begin()) "
            f"on every iteration, which moves all the remaining elements, so draining it is "
            f"quadratic; counting the consumed elements in '{head}' and erasing them once "
            "after the loop makes each step constant time.", (line,)))
    return changes, notes


def front_insert_rule(inp: RuleInput) -> RuleOutput:
    """Loops that only add to the front of a local vector or string build a reversed scratch
    container and put it in front once after the loop."""
    changes: list[Change] = []
    notes: list[str] = []
    for fb in front_built(inp.facts):
        line = inp.line_of(fb.loop.node)
        if not statement_slot_ok(fb.loop.node):
            notes.append(f"{RULE_ID}: the loop at line {line} stays: it is not directly inside "
                         "a block, so nothing can follow it")
            continue
        changes.append(_front_change(inp, fb, line))
    return changes, notes


def _front_change(inp: RuleInput, fb: FrontBuilt, line: int) -> Change:
    r = fb.name
    tmp = inp.fresh_name(f"{r}_front")
    edits = [insertion_before(inp, fb.loop.node, f"{fb.type_text} {tmp};", RULE_ID, order=-10)]
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
    line_start = data.rfind(b"\n", 0, fb.loop.node.start_byte) + 1
    indent = data[line_start:fb.loop.node.start_byte].decode("utf-8")
    indent = indent if not indent.strip() else ""
    # The pieces go in front once, last added first, as the front inserts left them.
    edits.append(Edit(fb.loop.node.end_byte, fb.loop.node.end_byte,
                      f"{nl}{indent}{r}.insert({r}.begin(), {tmp}.rbegin(), {tmp}.rend());",
                      RULE_ID))
    what = "string" if fb.string else "vector"
    return Change(
        RULE_ID, tuple(edits),
        f"The loop at line {line} adds to the front of the {what} '{r}', moving everything "
        f"already in it each time, which is quadratic; it now appends to '{tmp}' and puts its "
        f"contents, reversed, in front of '{r}' once after the loop.", (line,))


def consume_rule(inp: RuleInput) -> RuleOutput:
    """Loops consuming a local container from the front read it through an offset."""
    found, refused = front_consumed(inp.facts, inp.unit)
    notes = [f"{RULE_ID}: the loop at line {inp.line_of(r.loop)} keeps consuming '{r.name}' "
             f"from the front: {r.why}" for r in refused]
    changes: list[Change] = []
    for fc in found:
        line = inp.line_of(fc.loop)
        if not statement_slot_ok(fc.loop):
            notes.append(f"{RULE_ID}: the loop at line {line} stays: it is not directly inside "
                         "a block, so nothing can be declared before it")
            continue
        changes.append(_consume_change(inp, fc, line))
    return changes, notes


def _consume_change(inp: RuleInput, fc: FrontConsumed, line: int) -> Change:
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
    return Change(
        RULE_ID, tuple(edits),
        f"The loop at line {line} removes {what} of '{fc.name}' with '{how}' on "
        f"every iteration, moving all the remaining elements, so consuming it is quadratic; "
        f"it now reads '{fc.name}' unchanged through the offset '{off}'{after}, constant "
        "time per step.", (line,), includes)


def front_op_rule(inp: RuleInput) -> RuleOutput:
    """The rewrites: draining from the front, building at the front, consuming from the
    front (where the drain rewrite already took a loop, it keeps it)."""
    drained, notes = queue_rule(inp)
    built, more = front_insert_rule(inp)
    consumed, rest = consume_rule(inp)
    taken = [e for c in drained for e in c.edits]
    consumed = [c for c in consumed
                if not any(overlaps(e, t) for e in c.edits for t in taken)]
    return drained + built + consumed, notes + more + rest


# detection


_VECTORISH = re.compile(r"^(?:std::)?(vector|string|basic_string)\b")


def vector_front_op(facts: FunctionFacts) -> Iterator[Finding]:
    """``v.erase(v.begin())`` or ``v.insert(v.begin(), x)`` on a vector inside a loop, or
    ``r = c + r`` on a string, or a proved front-consuming loop (``s.erase(0, 1)``,
    ``s = s.substr(1)``)."""
    consumed, _refused = front_consumed(facts, facts.unit)
    for fc in consumed:
        lp = facts.loop_of(fc.consume)
        if fc.form == "erase-begin" or lp is None:
            continue  # erase(begin()) is reported below
        what = "a prefix" if fc.form in ("erase-n", "substr-n") else "the first element"
        yield make_finding(
            "vector-front-op",
            f"`{code(fc.consume)}` on line {line(fc.consume)} removes {what} of "
            f"`{fc.name}` on every iteration of {loop_phrase(lp)}, moving (or copying) all "
            f"the remaining elements each time (O(n²)): read `{fc.name}` through a moving "
            "start offset instead and erase the consumed prefix once after the loop.",
            [line(fc.consume), lp.line],
            loop_range=lp.byte_range, node_range=rng(fc.consume), names=[fc.name],
            data={"var": fc.name, "op": "erase"},
            bonus=depth_bonus(lp.depth),
        )
    for fb in front_built(facts):
        for ins in fb.inserts:
            e = ins.statement.named_children[0]
            if e.type != "assignment_expression":
                continue  # an insert call: reported below
            yield make_finding(
                "vector-front-op",
                f"`{code(e)}` on line {line(e)} builds a new string with `{fb.name}` copied "
                f"after the new characters on every iteration of {loop_phrase(fb.loop)} (O(n²) "
                f"copies): append them to a scratch string and put it, reversed, in front of "
                f"`{fb.name}` once after the loop.",
                [line(e), fb.loop.line],
                loop_range=fb.loop.byte_range, node_range=rng(e), names=[fb.name],
                data={"var": fb.name, "op": "prepend"},
                bonus=depth_bonus(fb.loop.depth),
            )
            break
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
        if not (first.type == "call_expression" and callee(first) == "begin"
                and receiver(first) is not None and root_name(receiver(first)) == vname):
            continue
        loop = facts.loop_of(call)
        if loop is None:
            continue
        op = "removes the first element" if name == "erase" else "inserts at the front"
        yield make_finding(
            "vector-front-op",
            f"`{code(call)}` on line {line(call)} {op} of `{vname}` on every iteration of "
            f"{loop_phrase(loop)}, shifting all remaining elements each time (O(n²) moves): use "
            f"`std::deque` (`pop_front`/`push_front` are O(1)), or keep a moving start index.",
            [line(call), loop.line],
            loop_range=loop.byte_range, node_range=rng(call), names=[vname],
            data={"var": vname, "op": name},
            bonus=depth_bonus(loop.depth),
        )


RULE = RuleSpec(
    id=RULE_ID,
    detect=vector_front_op,
    rewrite=front_op_rule,
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
