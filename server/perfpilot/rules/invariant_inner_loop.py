"""The invariant-inner-loop rule: a reduction loop inside an outer loop that computes the same
value on every outer iteration (a sum or mean over a container the outer loop never writes)."""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from dataclasses import dataclass

from perfpilot.code.effects import NEVER_WRITES_MEMORY, READ_ONLY_METHODS
from perfpilot.code.facts import FunctionFacts, Loop
from perfpilot.code.parse import walk_all
from perfpilot.code.syntax import (
    Node,
    callee,
    line,
    operator,
    receiver,
    text,
)
from perfpilot.rules.base import Example, RuleSpec
from perfpilot.rules.detect.common import loop_phrase
from perfpilot.rules.edits import Edit
from perfpilot.rules.finding import Finding, make_finding
from perfpilot.rules.rewrite_input import Change, RuleInput, RuleOutput, newline_of

RULE_ID = "invariant-inner-loop"
_REDUCE_OPS = frozenset({"+=", "-=", "*=", "|=", "&=", "^="})


@dataclass(frozen=True)
class _Site:
    """``T acc = init;`` then a loop folding into ``acc``, both directly in ``outer``'s body."""

    outer: Loop
    decl: Node
    inner: Node
    acc: str


def _sites(facts: FunctionFacts) -> Iterator[_Site]:
    fn_idents = list(facts.nodes("identifier"))
    for outer in facts.loops:
        body = outer.body
        if body is None or body.type != "compound_statement":
            continue
        stmts = [s for s in body.named_children if s.type != "comment"]
        for decl, inner in itertools.pairwise(stmts):
            if decl.type != "declaration" or inner.type not in ("for_statement",
                                                                 "for_range_loop"):
                continue
            vars_ = facts.local_vars(decl)
            if len(vars_) != 1 or not vars_[0].is_arithmetic:
                continue
            acc = vars_[0].name
            if _proved(facts, outer, decl, inner, acc, fn_idents):
                yield _Site(outer, decl, inner, acc)


def _proved(facts: FunctionFacts, outer: Loop, decl: Node, inner: Node, acc: str,
            fn_idents: list[Node]) -> bool:
    """The declaration and the inner loop compute a value that no outer iteration changes."""
    # every write in the inner loop goes to acc (or its own locals); a reduction into acc
    inner_locals = facts.declared_in(inner)
    written = facts.modified_in(inner)
    if not written <= {acc} | inner_locals or acc not in written:
        return False
    folds = False
    for n in walk_all(inner):
        if n.type in ("assignment_expression", "compound_assignment_expression"):
            left = text(n.child_by_field_name("left"))
            if left == acc:
                if operator(n) not in _REDUCE_OPS:
                    return False
                folds = True
        if n.type in ("return_statement", "break_statement", "goto_statement",
                      "throw_statement", "lambda_expression", "new_expression",
                      "delete_expression", "this"):
            return False
        if n.type == "call_expression":
            name = callee(n)
            ok = READ_ONLY_METHODS if receiver(n) is not None else NEVER_WRITES_MEMORY
            if name not in ok or name in ("printf", "fprintf", "puts", "putchar"):
                return False
    if not folds:
        return False
    # what it reads: nothing the outer loop changes or declares per iteration
    reads = {text(n) for region in (decl, inner) for n in walk_all(region)
             if n.type == "identifier"} - inner_locals - {acc}
    changed = facts.modified_in(outer.node) | facts.declared_in(outer.node)
    if outer.var is not None:
        changed |= {outer.var}
    if reads & changed:
        return False
    if any((v := facts.var(r)) is not None and v.scope == "global" for r in reads) and \
            facts.calls_unknown(outer):
        return False
    # a write through a pointer or reference may reach what the inner loop reads through one
    def indirect(name: str) -> bool:
        v = facts.var(name)
        return v is None or bool(v.pointer or v.reference or v.array) or v.scope == "global"
    outer_writes = facts.modified_in(outer.node) - facts.declared_in(outer.node)
    if any(indirect(w) for w in outer_writes) and any(indirect(r) for r in reads):
        return False
    # acc is written only here in the outer loop, and the name is used nowhere else
    inside = (decl.start_byte, inner.end_byte)
    for n in fn_idents:
        if text(n) == acc and not inside[0] <= n.start_byte < inside[1] and \
                not outer.node.start_byte <= n.start_byte < outer.node.end_byte:
            return False
    for n in walk_all(outer.node):
        if n.type in ("assignment_expression", "compound_assignment_expression",
                      "update_expression") and not inside[0] <= n.start_byte < inside[1]:
            target = n.child_by_field_name("left") or n.child_by_field_name("argument")
            if text(target) == acc:
                return False
        if n.type == "pointer_expression" and operator(n) == "&" and \
                text(n.child_by_field_name("argument")) == acc:
            return False
    return True


def invariant_inner_loop(facts: FunctionFacts) -> Iterator[Finding]:
    """A reduction loop nested in another loop whose result never depends on it."""
    for s in _sites(facts):
        yield make_finding(
            RULE_ID,
            f"The loop on line {line(s.inner)} computes `{s.acc}` from values that "
            f"{loop_phrase(s.outer)} never changes (it reads neither its counter nor anything "
            f"it writes), yet reruns it on every outer iteration: compute `{s.acc}` once "
            f"before the outer loop, which turns O(outer x inner) work into O(outer + inner), "
            f"e.g. O(n^2) into O(n).",
            [line(s.inner), s.outer.line, line(s.decl)],
            loop_range=s.outer.byte_range, node_range=(s.decl.start_byte, s.inner.end_byte),
            names=[s.acc], data={"var": s.acc},
        )


def invariant_inner_loop_rule(inp: RuleInput) -> RuleOutput:
    """Move the declaration and the inner loop above the outer loop."""
    changes: list[Change] = []
    notes: list[str] = []
    facts = FunctionFacts(inp.site, inp.function, inp.tree.root_node)
    data = inp.data
    nl = newline_of(inp.text)
    for s in _sites(facts):
        outer = s.outer.node
        parent = outer.parent
        if parent is None or parent.type != "compound_statement" or \
                (outer.prev_sibling is not None and outer.prev_sibling.type.startswith("preproc")):
            notes.append(f"{RULE_ID}: the loop at line {inp.line_of(outer)} is not a plain "
                         "statement of a block; the inner loop is left in place")
            continue
        start = data.rfind(b"\n", 0, s.decl.start_byte) + 1
        end = s.inner.end_byte
        after = data.find(b"\n", end)
        if after != -1 and data[end:after].strip() == b"":
            end = after + 1
        moved = data[s.decl.start_byte:s.inner.end_byte].decode("utf-8")
        line_start = data.rfind(b"\n", 0, outer.start_byte) + 1
        indent = data[line_start:outer.start_byte].decode("utf-8")
        if indent.strip():
            indent = ""
        block = f"{moved}{nl}{indent}" if not indent else f"{indent}{moved}{nl}"
        at = line_start if indent else outer.start_byte
        removal_start = start if data[start:s.decl.start_byte].strip() == b"" and \
            end != s.inner.end_byte else s.decl.start_byte
        changes.append(Change(
            RULE_ID,
            (Edit(at, at, block, RULE_ID, -40), Edit(removal_start, end, "", RULE_ID)),
            f"The loop at line {inp.line_of(s.inner)} computes '{s.acc}' from values the "
            f"loop at line {inp.line_of(outer)} never changes; it now runs once before that "
            "loop, so the work goes from O(outer x inner) to O(outer + inner) (O(n^2) to "
            "O(n) when both run over n).",
            (inp.line_of(s.inner), inp.line_of(outer))))
    return changes, notes


RULE = RuleSpec(
    id=RULE_ID,
    detect=invariant_inner_loop,
    rewrite=invariant_inner_loop_rule,
    rewrites_as=frozenset({RULE_ID}),
    phase=0,
    order=5,
    examples=(
        Example("cpp", """
#include <vector>
std::vector<double> centered(const std::vector<double>& x) {
    std::vector<double> out(x.size());
    for (std::size_t i = 0; i < x.size(); ++i) {
        double sum = 0;
        for (std::size_t j = 0; j < x.size(); ++j) sum += x[j];
        out[i] = x[i] - sum / x.size();
    }
    return out;
}
""", "centered"),
    ),
)
