"""The reserve rule: ``v.push_back`` once per iteration of a counted loop, with no ``v.reserve``."""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

from perfpilot.code.declarations import VarType
from perfpilot.code.effects import APPEND_METHODS, NO_SIDE_EFFECTS, READ_ONLY_METHODS
from perfpilot.code.facts import FunctionFacts, Loop
from perfpilot.code.loops import LoopFacts
from perfpilot.code.syntax import (
    LOOP_TYPES,
    Node,
    ancestors,
    callee,
    line,
    node_text,
    plain_callee,
    receiver,
    root_name,
    walk,
)
from perfpilot.rules.base import Example, RuleSpec
from perfpilot.rules.detect.common import (
    code,
    cpp,
    loop_phrase,
    rng,
    trip_count,
)
from perfpilot.rules.edits import Edit
from perfpilot.rules.emit import guarded, hoist_above, indent_unit
from perfpilot.rules.finding import Finding, Proof, depth_bonus, make_finding
from perfpilot.rules.rewrite_input import (
    Left,
    Planned,
    RuleInput,
    statement_slot_ok,
)

# detection


@dataclass(frozen=True)
class Appends(Proof):
    """A vector appended to by ``call`` once per iteration of ``loop`` (its trip count
    ``count`` known before it starts), never reserved."""

    loop: Node
    call: Node
    var: str
    count: str


# Vectors, and strings grown one character at a time (the rewrite's; see ``_reported``).
_VECTOR_TYPE = re.compile(r"^(?:std::)?(?:vector\s*<|string$|basic_string\s*<)")
_VECTOR_ONLY = re.compile(r"^(?:std::)?vector\s*<")


def reserve(facts: FunctionFacts) -> Iterator[Finding]:
    """``v.push_back`` once per iteration of a counted loop, with no ``v.reserve``."""
    if not cpp(facts):
        return
    reserved = {root_name(receiver(c)) for c in facts.nodes("call_expression")
                if callee(c) in ("reserve", "resize") and receiver(c) is not None}
    seen: set[tuple[str, int]] = set()
    for call in facts.in_loops("call_expression"):
        method = callee(call)
        if method not in ("push_back", "emplace_back"):
            continue
        rcv = receiver(call)
        vname = root_name(rcv) if rcv is not None else None
        v = facts.var(vname)
        if vname is None or v is None or vname in reserved or not _reported(v):
            continue
        loop = facts.loop_of(call)
        declared = _declared_at(facts, vname)
        if loop is None or declared >= loop.node.start_byte or (vname, loop.index) in seen:
            continue
        count = trip_count(loop) or _down_count(loop)
        if count is None or _conditional(call, loop.node):
            continue
        # Only the loop right around the call may lie after the declaration, else the count is
        # a product we do not know.
        outer = facts.loops[loop.parent] if loop.parent is not None else None
        if outer is not None and outer.node.start_byte > declared:
            continue
        seen.add((vname, loop.index))
        yield make_finding(
            "reserve",
            f"`{vname}.{method}(...)` on line {line(call)} runs on each of the `{count}` "
            f"iterations of {loop_phrase(loop)}, but `{vname}` (declared line {v.line}) "
            f"is never reserved, so it reallocates and copies its elements about log2(n) times: "
            f"call `{vname}.reserve({count});` before the loop.",
            [line(call), loop.line, v.line],
            loop_range=loop.byte_range, node_range=rng(call), names=[vname],
            bonus=depth_bonus(loop.depth),
            proof=Appends(loop.node, call, vname, count),
        )


def _reported(v: VarType) -> bool:
    """A vector that is not a global (a parameter's is reported, its rewrite says why it
    stays), or a local string, which the rewrite reserves like a vector."""
    if v.scope == "global" or v.pointer:
        return False
    base = v.base.replace("const", "").strip()
    if _VECTOR_ONLY.match(base):
        return True
    return v.scope == "local" and not v.reference and not v.array and \
        bool(_VECTOR_TYPE.match(base))


def _down_count(loop: Loop) -> str | None:
    """The number of iterations of ``for (i = a; i > b; --i)`` (``>=``: one more)."""
    if not loop.counted or loop.bound is None or loop.init is None or loop.step != "--" or \
            loop.compare not in (">", ">=", "!="):
        return None
    start, bound = code(loop.init, 80), code(loop.bound, 80)
    extra = " + 1" if loop.compare == ">=" else ""
    return f"{start}{extra}" if bound == "0" else f"({start}) - ({bound}){extra}"


def _declared_at(facts: FunctionFacts, name: str) -> int:
    """Where the function's first declaration of ``name`` starts (-1 for a parameter, which
    comes before every statement)."""
    starts = [d.start_byte for d in facts.nodes("declaration")
              if any(v.name == name for v in facts.local_vars(d))]
    return min(starts, default=-1)


def _conditional(node: Node, stop: Node) -> bool:
    return any(a.type in ("if_statement", "conditional_expression", "switch_statement",
                          "while_statement", "do_statement", "for_statement", "for_range_loop")
               for a in ancestors(node, stop))


# rewrite




def _leaves_early(loop: Node) -> bool:
    body = loop.child_by_field_name("body")
    if body is None:
        return True
    for n in walk(body):
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


def _unsigned(inp: RuleInput, text: str) -> bool:
    """Whether a bound is an unsigned count: a container's ``size()``/``length()`` or a
    variable of an unsigned type."""
    if re.fullmatch(r"[A-Za-z_]\w*(?:\.|->)(?:size|length)\(\)", text):
        return True
    vt = inp.types.get(text) if re.fullmatch(r"[A-Za-z_]\w*", text) else None
    if vt is None or vt.pointer or vt.array:
        return False
    base = vt.base.replace("const", "").strip()
    return base in ("size_t", "std::size_t") or base.startswith("unsigned")


def _paren(text: str) -> str:
    return text if re.fullmatch(r"[\w.]+(\(\))?", text) else f"({text})"


def fix(inp: RuleInput, finding: Finding) -> Planned | Left:
    """The vector the finding proved appended to once per iteration is sized once before the
    loop and filled by index when that is provably the same (``_sized``), else reserved; the
    loop must be an outermost counted one (step 1 or -1, bounds that are plain values) with
    no early way out, since the reserve states its trip count."""
    proof = finding.proof
    assert isinstance(proof, Appends)
    node, v = proof.loop, proof.var
    # Only an outermost loop: inside another loop an exact reserve per pass would make the
    # growth quadratic.
    lp = next((x for x in inp.loops
               if (x.start_byte, x.end_byte) == (node.start_byte, node.end_byte)), None)
    if lp is None:
        return Left("", proof.call, "the loop is inside another loop, where an exact "
                    "reserve on every pass would make the growth quadratic")
    if v not in lp.appends:
        return Left("", proof.call, f"the loop does not append to '{v}' exactly once per "
                    "iteration at the top of its body")
    if not lp.counted or lp.step not in (1, -1):
        return Left("", proof.call, "the loop is not a counted for loop stepping by one")
    if not statement_slot_ok(node):
        return Left("", proof.call, "the loop is not directly in a block, so nothing can be "
                    "placed before it")
    if _leaves_early(node):
        return Left("", proof.call, "the loop may leave early, so its trip count is only "
                    "an upper bound")
    lo, hi, op = lp.lower or "", lp.upper or "", lp.cond_op or ""
    if not (_pure_bound(lo) and _pure_bound(hi)):
        return Left("", proof.call, "its bounds are not plain values that can be evaluated "
                    "once more before the loop")
    vt = inp.types.get(v)
    if v in {p.name for p in inp.site.params}:
        return Left("", proof.call, f"'{v}' is the caller's, whose capacity the caller "
                    "would see changed")
    if vt is None or vt.pointer or vt.reference or vt.array or \
            not _VECTOR_TYPE.match(vt.base.replace("const", "").strip()):
        return Left("", proof.call, f"'{v}' is not a local vector or string")
    if re.search(rf"\b{re.escape(v)}\b", lo + " " + hi):
        return Left("", proof.call, f"the loop's bounds read '{v}'")
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
    sized = _sized(inp, lp, node, v)
    if isinstance(sized, Planned):
        if last == "0" and strict and _unsigned(inp, first):
            # a count that cannot be negative needs neither a test nor a cast
            stmt = f"{v}.resize({first});"
        else:
            stmt = guarded(f"{f_txt} {cmp} {l_txt}",
                           [f"{v}.resize(static_cast<std::size_t>({count}){extra});"],
                           indent_unit(inp.text))
        edit = hoist_above(inp, node, stmt, "reserve", order=5)
        return Planned((edit, *sized.edits), sized.explanation, sized.about, includes=())
    if last == "0" and strict and _unsigned(inp, first):
        stmt = f"{v}.reserve({v}.size() + {first});"
    else:
        stmt = guarded(f"{f_txt} {cmp} {l_txt}",
                       [f"{v}.reserve({v}.size() + "
                        f"static_cast<std::size_t>({count}){extra});"],
                       indent_unit(inp.text))
    edit = hoist_above(inp, node, stmt, "reserve", order=5)
    return Planned(
        (edit,),
        f"The loop at line {lp.line} appends to '{v}' once per iteration and its trip "
        f"count is known before it starts; reserving that capacity up front avoids "
        f"repeated reallocation and copying as the vector grows. It is reserved, not sized "
        f"once: {sized}.", (node,), includes=())


def _sized(inp: RuleInput, lp: LoopFacts, loop: Node, v: str) -> Planned | str:
    """The appends to ``v`` as stores by index, when ``v`` is provably empty before the loop,
    holds plain numbers, is not otherwise touched in it, and the trip count cannot change
    while it runs (the caller inserts the ``resize``); else why not, in words."""
    vt = inp.types.get(v)
    element = _element_type(vt.base if vt is not None else "")
    if element is None or not VarType(element).is_arithmetic:
        return "its elements are not plain numbers"
    if lp.step != 1 or lp.cond_op not in ("<", "!=", "<=") or lp.induction is None:
        return "the loop does not count up by one"
    ivar = lp.induction
    if ivar in lp.writes:
        return f"the body changes '{ivar}'"
    if not _fresh_before(loop, v):
        return "it is not declared empty right before the loop"
    uses = [n for n in walk(loop) if n.type == "identifier" and node_text(n) == v]
    call = _append_call(uses[0]) if len(uses) == 1 else None
    if call is None:
        return "the loop reads it besides appending (size, back, an element)"
    args = call.child_by_field_name("arguments")
    if args is None or args.named_child_count != 1:
        return "the append does not take one value"
    unstable = _bound_changes(inp, lp, v)
    if unstable:
        return unstable
    lo = lp.lower or "0"
    index = ivar if lo == "0" else f"{ivar} - {_paren(lo)}"
    stmt = call.parent
    if stmt is None or stmt.type != "expression_statement":
        return "the append is not a statement of its own"
    value = node_text(args.named_children[0])
    edit = Edit(call.start_byte, call.end_byte, f"{v}[{index}] = {value}", "reserve")
    return Planned(
        (edit,),
        f"The loop at line {lp.line} appends exactly one value to the empty '{v}' on each "
        "of its iterations, whose number is known before it starts: sizing the vector once "
        "and storing by index replaces a capacity check and size update per append (and "
        "the reallocations as it grows) with plain stores.", (loop,), includes=())


def _element_type(base: str) -> str | None:
    m = re.fullmatch(r"(?:std::)?vector\s*<\s*([\w:\s]+?)\s*>", base.replace("const", "").strip())
    return m.group(1) if m else None


def _fresh_before(loop: Node, v: str) -> bool:
    """``std::vector<T> v;`` sits in the loop's block before it, and nothing between uses v."""
    block = loop.parent
    if block is None or block.type != "compound_statement":
        return False
    between: list[Node] | None = None  # statements since the declaration
    for stmt in block.named_children:
        if stmt == loop:
            break
        if stmt.type == "declaration" and any(
                c.type == "identifier" and node_text(c) == v for c in stmt.named_children):
            between = []  # declared without an initializer: empty from here
        elif between is not None:
            between.append(stmt)
    if between is None:
        return False
    return not any(n.type == "identifier" and node_text(n) == v
                   for s in between for n in walk(s))


def _append_call(use: Node) -> Node | None:
    """The ``v.push_back(x)`` call whose receiver is ``use``, else None."""
    field = use.parent
    if field is None or field.type != "field_expression" or \
            field.child_by_field_name("argument") != use or \
            node_text(field.child_by_field_name("field") or use) not in APPEND_METHODS:
        return None
    call = field.parent
    return call if call is not None and call.type == "call_expression" else None


# Names in a bound that are variables: not members, not called, not type words.
_VARIABLE = re.compile(r"(?<![\w.>])([A-Za-z_]\w*)\b(?!\s*[(<:])")
_TYPE_WORDS = frozenset({"int", "long", "short", "unsigned", "signed", "char", "size_t",
                         "double", "float", "const", "sizeof", "ptrdiff_t"})


def _bound_changes(inp: RuleInput, lp: LoopFacts, fresh: str) -> str:
    """Why the loop's bounds might change while it runs ("" when they cannot)."""
    names = set(_VARIABLE.findall(f"{lp.lower} {lp.upper}")) - _TYPE_WORDS - \
        {lp.induction or ""}
    for name in sorted(names):
        if name in lp.writes:
            return f"the body changes '{name}', which the trip count reads"
        bt = inp.types.get(name)
        for c in lp.calls:
            if c.obj == fresh:
                continue  # the fresh vector aliases nothing
            if c.method is not None and c.method not in READ_ONLY_METHODS:
                other = inp.types.get(c.obj or "")
                if c.obj == name or other is None or bt is None or \
                        ((bt.reference or bt.pointer) and other.base == bt.base):
                    return f"a call in the body ('{c.text}') may change '{name}'"
            if c.method is None and plain_callee(c.callee) not in NO_SIDE_EFFECTS and \
                    (any(re.search(rf"\b{re.escape(name)}\b", a) for a in c.args) or
                     bt is None or bt.scope == "global" or bt.reference or bt.pointer):
                return f"a call in the body ('{c.text}') may change '{name}'"
    return ""


RULE = RuleSpec(
    id="reserve",
    detect=reserve,
    fix=fix,
    rewrites_as=frozenset({"reserve"}),
    phase=2,
    order=1,
    examples=(
        Example("cpp", """
#include <vector>
std::vector<int> squares(int n) {
    std::vector<int> out;
    for (int i = 0; i < n; ++i) {
        out.push_back(i * i);
    }
    return out;
}
""", "squares"),
    ),
)
