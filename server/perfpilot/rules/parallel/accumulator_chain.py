"""The accumulator-chain rule: one floating-point accumulator in an innermost loop, a serial
chain of dependent adds; rewritten into four partial sums where the plan accepts that the
result may change in its last bits (floating-point addition is not associative).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

from perfpilot.code.facts import FunctionFacts, Loop
from perfpilot.code.loop_header import read_header
from perfpilot.code.syntax import (
    callee,
    declarator_name,
    node_text,
    receiver,
    walk,
)
from perfpilot.rules.base import Example, RuleSpec
from perfpilot.rules.by_finding import by_finding
from perfpilot.rules.detect.common import loop_phrase
from perfpilot.rules.detect.floating import MATH_CALLS, fp_accumulator
from perfpilot.rules.emit import in_statement_list, indent_unit, replace_statement
from perfpilot.rules.finding import Finding, Proof, depth_bonus, make_finding
from perfpilot.rules.rewrite_input import Left, Node, Planned, RuleInput

RULE_ID = "accumulator-chain"
LANES = 4  # partial sums: enough to cover an add's latency on current cores
# A bound may call size() or length(); any other call could change between iterations.
_OTHER_CALL = re.compile(r"\b(?!size\b|length\b)\w+\s*\(")


@dataclass(frozen=True)
class SerialSum(Proof):
    """The innermost counted loop that adds into one floating-point accumulator ``var`` with
    ``op`` (``+``; ``*`` for a product, which the split leaves)."""

    loop: Loop
    var: str
    op: str


def accumulator_chain(facts: FunctionFacts) -> Iterator[Finding]:
    """One floating-point accumulator in an innermost loop: a serial chain of dependent adds."""
    for loop in facts.loops:
        acc = fp_accumulator(facts, loop)
        if acc is None:
            continue
        var, op = acc
        yield make_finding(
            RULE_ID,
            f"Every iteration of {loop_phrase(loop)} adds into the single accumulator `{var}`, "
            f"so each addition waits for the previous one (a dependency chain of 3-4 cycles per "
            f"element): keep 4 independent partial sums (`{var}0`..`{var}3`, unrolling by 4) "
            f"and combine them after the loop, so the additions overlap in the pipeline. "
            f"Floating-point addition is not associative, so the sum may change in its last "
            f"bits: it is rewritten only when the plan accepts that.",
            [loop.line],
            loop_range=loop.byte_range, node_range=loop.byte_range, names=[var],
            proof=SerialSum(loop, var, op),
            bonus=depth_bonus(loop.depth),
        )


def _single_update(body: Node) -> Node | None:
    """The ``acc += e;`` / ``acc -= e;`` a loop body consists of, or None."""
    stmt = body
    if body.type == "compound_statement":
        inner = [c for c in body.named_children if c.type != "comment"]
        if len(inner) != 1:
            return None
        stmt = inner[0]
    if stmt.type != "expression_statement" or stmt.named_child_count != 1:
        return None
    expr = stmt.named_children[0]
    op = expr.child_by_field_name("operator")
    left = expr.child_by_field_name("left")
    if expr.type != "assignment_expression" or op is None or left is None or \
            node_text(op) not in ("+=", "-=") or left.type != "identifier":
        return None
    return expr


def _pure_term(term: Node, acc: str) -> bool:
    """Whether ``term`` reads values only: no assignment, no increment, no call other than the
    pure math functions, and not the accumulator itself."""
    for n in walk(term):
        if n.type in ("assignment_expression", "update_expression", "comma_expression",
                      "new_expression", "delete_expression", "lambda_expression"):
            return False
        if n.type == "call_expression" and (callee(n) not in MATH_CALLS
                                            or receiver(n) is not None):
            return False
        if n.type == "identifier" and node_text(n) == acc:
            return False
    return True


def _shifted(term: Node, var: str, k: int) -> str:
    """``term``'s text with the induction variable ``var`` read as ``(var + k)``."""
    data = term.text or b""
    base = term.start_byte
    out = data
    for n in sorted((n for n in walk(term)
                     if n.type == "identifier" and node_text(n) == var),
                    key=lambda n: n.start_byte, reverse=True):
        s, e = n.start_byte - base, n.end_byte - base
        parent = n.parent
        bare = parent is not None and (parent.type == "subscript_argument_list" or (
            parent.type == "subscript_expression" and parent.child_by_field_name("index") == n))
        out = out[:s] + (f"{var} + {k}" if bare else f"({var} + {k})").encode() + out[e:]
    return " ".join(out.decode("utf-8").split())


def split_fix(inp: RuleInput, finding: Finding) -> Planned | Left:
    """Four partial sums for the loop the finding proved, when its whole body is ``acc +=
    term`` (a local floating accumulator, a pure term) and its header ``for (T i = lo; i <
    hi; ++i)``; else why it stays."""
    proof = finding.proof
    assert isinstance(proof, SerialSum)
    node = proof.loop.node
    what = f"the sum into `{proof.var}`"
    lp = inp.facts.loop_facts(proof.loop)
    header = read_header(node)
    if lp.children or not lp.counted or lp.step != 1 or lp.cond_op != "<" or \
            lp.upper is None or lp.induction is None or lp.lower is None:
        return Left(what, node, "its header is not `for (T i = start; i < bound; ++i)`")
    if not lp.induction_declared or not header.declared or header.type_node is None:
        return Left(what, node, f"its counter `{lp.induction}` is declared outside the loop")
    prev = node.prev_sibling
    if prev is not None and prev.type.startswith("preproc"):
        # an OpenMP rewrite made it parallel
        return Left(what, node, "a pragma binds to the loop")
    body = node.child_by_field_name("body")
    update = _single_update(body) if body is not None else None
    if update is None:
        return Left(what, node, "its body is more than one `+=` or `-=` into a variable")
    acc_node = update.child_by_field_name("left")
    term = update.child_by_field_name("right")
    assert acc_node is not None
    acc = node_text(acc_node)
    vt = inp.facts.var(acc)
    if term is None or vt is None or vt.scope == "global" or not vt.is_floating or \
            vt.reference or "volatile" in vt.type_text:
        return Left(what, node, f"`{acc}` is not a local float or double (a global, a "
                    "reference or volatile)")
    if not _pure_term(term, acc) or lp.writes - {acc}:
        return Left(what, node, "the added term reads the sum, calls a function or writes")
    if _OTHER_CALL.search(lp.upper) or \
            any(re.search(rf"\b{re.escape(w)}\b", lp.upper) for w in lp.writes):
        return Left(what, node, "its bound may change between iterations")
    index_type = node_text(header.type_node)
    i, hi, lo = lp.induction, lp.upper, lp.lower
    rest = hi if re.fullmatch(r"[\w.]+(?:\(\))?", hi) else f"({hi})"
    elem = vt.base.replace("const", "").strip()
    parts = [inp.fresh_name(f"{acc}{k}") for k in range(LANES)]
    if len(set(parts)) < LANES:
        return Left(what, node, "no fresh names for the partial sums")
    op = node_text(update.child_by_field_name("operator") or acc_node)
    unit = indent_unit(inp.text)
    terms = [_shifted(term, i, k) if k else " ".join(node_text(term).split())
             for k in range(LANES)]
    lines = [f"{elem} {', '.join(f'{p} = 0' for p in parts)};",
             f"{index_type} {i} = {lo};",
             f"for (; {i} < {hi} && {rest} - {i} > {LANES - 1}; {i} += {LANES}) {{\n"
             + "".join(f"{unit}{p} += {t};\n" for p, t in zip(parts, terms, strict=True))
             + "}",
             f"for (; {i} < {hi}; ++{i})\n{unit}{parts[0]} += {terms[0]};",
             f"{acc} {op} ({parts[0]} + {parts[1]}) + ({parts[2]} + {parts[3]});"]
    if in_statement_list(node) and not _declared_after(inp, node, {i, *parts}):
        # the counter and the partial sums may live in the enclosing block
        edit = replace_statement(inp, node, lines, RULE_ID)
    else:
        edit = replace_statement(inp, node, ["{\n" + "\n".join(
            unit + ln if ln.strip() else ln for entry in lines for ln in entry.split("\n"))
            + "\n}"], RULE_ID) if in_statement_list(node) else \
            replace_statement(inp, node, lines, RULE_ID)
    if edit is None:
        return Left(what, node, "the loop cannot be replaced by several statements here")
    return Planned(
        (edit,),
        f"The loop over '{i}' at line {inp.line_of(node)} added every term into '{acc}', each "
        f"addition waiting for the one before: it now keeps {LANES} partial sums "
        f"({', '.join(parts)}) that advance together, four terms per iteration, and adds them "
        f"into '{acc}' after the loop. This changes results: floating-point addition is not "
        "associative, so the sum may differ in its last bits; it was made because the plan "
        "accepts last-bit changes.",
        (node,), includes=())


def _declared_after(inp: RuleInput, node: Node, names: set[str]) -> bool:
    """Whether a name of ``names`` is declared anywhere in the function after ``node`` (a
    counter moved into the enclosing block would clash with it, or be shadowed by it)."""
    for n in walk(inp.function):
        if n.start_byte < node.end_byte:
            continue
        if n.type in ("init_declarator", "declaration", "parameter_declaration"):
            for d in n.children_by_field_name("declarator"):
                if declarator_name(d) in names:
                    return True
        if n.type == "init_declarator" and declarator_name(n) in names:
            return True
    return False


# Innermost counted loops whose whole body is ``acc += term`` become four partial sums. Runs
# only where the plan accepts last-bit changes, after the OpenMP phase (a loop an OpenMP pragma
# took is left as it is): a last-bit phase of the rewriter, not the rule's default rewrite.
split_rewrite = by_finding(accumulator_chain, split_fix)


RULE = RuleSpec(
    id=RULE_ID,
    detect=accumulator_chain,
    examples=(
        Example("c", """
double dot(const double *a, const double *b, int n) {
    double s = 0.0;
    for (int i = 0; i < n; i++)
        s += a[i] * b[i];
    return s;
}
""", "dot"),
    ),
)
