"""The pow-strength rule: ``pow(x, 2)``, ``pow(x, 3)``, ``pow(x, 0.5)``, ``pow(x, -1)`` and kin."""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

from perfpilot.code.declarations import VarType
from perfpilot.code.facts import FunctionFacts
from perfpilot.code.syntax import (
    Node,
    arguments,
    callee,
    declarator_name,
    identifiers,
    line,
    node_text,
    number,
    receiver,
    walk,
)
from perfpilot.rules.base import Example, RuleSpec
from perfpilot.rules.detect.common import code, loop_phrase, operand_text, rng
from perfpilot.rules.edits import Edit
from perfpilot.rules.emit import MULTIPLICATIVE, declare_before, fit, holding_statement, operand
from perfpilot.rules.finding import Finding, Proof, depth_bonus, make_finding
from perfpilot.rules.rewrite_input import Left, Planned, RuleInput

# detection


_POW = frozenset({"pow", "powf", "powl"})

# Small integer exponents the rewrite expands (beyond this the product chain stops paying).
_MAX_EXPONENT = 8


@dataclass(frozen=True)
class PowCall(Proof):
    """One ``pow``/``powf``/``powl`` call by a fixed exponent, and every such call the
    detection found in the function (``peers``, in text order, the call among them): calls in
    one statement are rewritten together, and a call inside another's base goes with it."""

    call: Node
    peers: tuple[Node, ...]


def pow_strength(facts: FunctionFacts) -> Iterator[Finding]:
    """``pow(x, 2)``, ``pow(x, 3)``, ``pow(x, 0.5)``, ``pow(x, -1)`` and friends."""
    if "pow" not in facts.site.text:
        return
    hits: list[tuple[Node, list[Node], float | None, str]] = []
    for call in facts.nodes("call_expression"):
        if callee(call) not in _POW or receiver(call) is not None:
            continue
        args = arguments(call)
        if len(args) != 2:
            continue
        e = number(args[1])
        x = operand_text(args[0])
        if e is not None and e == int(e) and 2 <= e <= _MAX_EXPONENT:
            replacement: str | None = _product(x, int(e))
        else:
            replacement = {0.5: f"sqrt({code(args[0], 60)})", 1.0: code(args[0], 60),
                           -1.0: f"1.0 / {x}"}.get(e if e is not None else 99.0)
        if replacement is not None:
            hits.append((call, args, e, replacement))
    peers = tuple(sorted((c for c, _a, _e, _r in hits), key=lambda c: c.start_byte))
    for call, args, e, replacement in hits:
        loop = facts.loop_of(call)
        where = f" inside {loop_phrase(loop)}" if loop else ""
        yield make_finding(
            "pow-strength",
            f"`{code(call)}` on line {line(call)}{where} goes through the general `pow` "
            f"routine for a fixed exponent {node_text(args[1])}: write `{replacement}`, which is "
            f"{'one' if e == 0.5 else 'a'} "
            f"{'square root' if e == 0.5 else 'few multiplications'} instead of a libm call.",
            [line(call), *([loop.line] if loop else [])],
            loop_range=loop.byte_range if loop else None, node_range=rng(call),
            names=[callee(call), *sorted(identifiers(args[0]))],
            bonus=(0.05 + depth_bonus(loop.depth)) if loop else -0.1,
            proof=PowCall(call, peers),
        )


# rewrite

RULE_ID = "pow-strength"

_POW_NAMES = {"pow", "std::pow", "::pow"}
_POWF_NAMES = {"powf", "std::powf", "::powf"}


_SIMPLE_EXPR_NODES = {
    "identifier", "number_literal", "subscript_expression", "subscript_argument_list",
    "parenthesized_expression", "binary_expression", "unary_expression",
}


_ARITH_OPS = {"+", "-", "*", "/"}


def _expr_type(node: Node, types: dict[str, VarType | None]) -> str | None:
    """``double``, ``float`` or ``int`` for a side-effect-free arithmetic expression, else None."""
    t = node.type
    if t == "parenthesized_expression" and node.named_child_count == 1:
        return _expr_type(node.named_children[0], types)
    if t == "identifier":
        return _scalar_kind(types.get(node_text(node)))
    if t == "number_literal":
        text = node_text(node).lower()
        if text.startswith("0x"):
            return "int"
        if text.endswith("f"):
            return "float"
        if "." in text or "e" in text:
            return None if text.endswith("l") else "double"
        return "int"
    if t == "subscript_expression":
        levels = 0
        base = node
        while base.type == "subscript_expression":
            levels += 1
            arg = base.child_by_field_name("argument")
            if arg is None:
                return None
            base = arg
        if base.type != "identifier":
            return None
        vt = types.get(node_text(base))
        for _ in range(levels):
            vt = vt.element if vt is not None else None
        return _scalar_kind(vt)
    if t == "unary_expression":
        op = node.child_by_field_name("operator")
        arg = node.child_by_field_name("argument")
        if op is None or arg is None or node_text(op) not in ("-", "+"):
            return None
        return _expr_type(arg, types)
    if t == "binary_expression":
        op = node.child_by_field_name("operator")
        left = node.child_by_field_name("left")
        right = node.child_by_field_name("right")
        if op is None or left is None or right is None or node_text(op) not in _ARITH_OPS:
            return None
        kinds = {_expr_type(left, types), _expr_type(right, types)}
        if None in kinds:
            return None
        return "double" if "double" in kinds else ("float" if "float" in kinds else "int")
    return None


def _scalar_kind(vt: VarType | None) -> str | None:
    if vt is None or vt.reference == "&&":
        return None
    if vt.is_floating:
        return vt.base.replace("const", "").strip()
    if vt.is_integral:
        return "int"
    return None


def _side_effect_free(node: Node) -> bool:
    return all(n.type in _SIMPLE_EXPR_NODES or not n.is_named for n in walk(node))


def _exponent(exp: Node, single: bool) -> int | None:
    """The small integer an exponent literal spells (``3``, ``3.0``; ``3.0f`` only for powf,
    where the float overload is meant anyway), else None."""
    m = re.fullmatch(r"(\d+)(?:\.0*)?([fF]?)", node_text(exp).strip())
    if m is None or (m.group(2) and not single):
        return None
    k = int(m.group(1))
    return k if 2 <= k <= _MAX_EXPONENT else None


def _product(term: str, k: int) -> str:
    """``term`` to the power ``k`` as multiplications, by squaring (``(t * t) * (t * t)``)."""
    if k == 1:
        return term
    half = _product(term, k // 2)
    h = half if k // 2 == 1 else f"({half})"
    return f"{h} * {h}" if k % 2 == 0 else f"{h} * {h} * {term}"


def _leaf(node: Node) -> bool:
    """A base cheap enough to repeat in place: a name, number or element read."""
    if node.type == "parenthesized_expression" and node.named_child_count == 1:
        return _leaf(node.named_children[0])
    if node.type == "unary_expression":
        arg = node.child_by_field_name("argument")
        return arg is not None and _leaf(arg)
    return node.type in ("identifier", "number_literal", "subscript_expression") and \
        _side_effect_free(node)


def defines_pow(unit: Node) -> bool:
    """Whether the unit defines a function or macro named ``pow``/``powf``/``powl`` itself
    (read from the syntax tree: a comment or string that mentions ``pow()`` is no definition)."""
    for n in walk(unit):
        if n.type in ("preproc_def", "preproc_function_def"):
            name = n.child_by_field_name("name")
            if name is not None and node_text(name) in _POW:
                return True
        elif n.type == "function_definition":
            decl = n.child_by_field_name("declarator")
            while decl is not None and decl.type != "function_declarator":
                decl = decl.child_by_field_name("declarator")
            name = decl.child_by_field_name("declarator") if decl is not None else None
            if name is not None and node_text(name).split("::")[-1].strip() in _POW:
                return True
    return False


# Names for the local that holds a base, by its outermost operator.
_LOCAL_NAMES = {"-": "diff", "+": "sum", "*": "scaled", "/": "ratio"}


def _local_name(inp: RuleInput, base: Node) -> str:
    inner = base
    while inner.type == "parenthesized_expression" and inner.named_child_count == 1:
        inner = inner.named_children[0]
    op = inner.child_by_field_name("operator") if inner.type == "binary_expression" else None
    return inp.fresh_name(_LOCAL_NAMES.get(node_text(op) if op is not None else "", "base"))


def _effects_elsewhere(stmt: Node, base: Node) -> bool:
    """Whether ``stmt`` has side effects outside ``base`` besides its own outermost store: then
    a base with side effects of its own may not move above it (their order would change)."""
    top = stmt.named_children[0] if stmt.type == "expression_statement" and \
        stmt.named_children else None
    for n in walk(stmt):
        if base.start_byte <= n.start_byte and n.end_byte <= base.end_byte:
            continue
        if n.type in ("update_expression", "assignment_expression") and n != top:
            return True
        if n.type == "call_expression" and callee(n) not in _POW and \
                node_text(n.child_by_field_name("function") or n) not in _POW_NAMES:
            return True
    return False


@dataclass(frozen=True)
class _InPlace:
    """A call rewritten where it stands: its product text."""

    text: str
    k: int


@dataclass(frozen=True)
class _Held:
    """A call whose base goes into a local declared above ``statement``."""

    statement: Node
    base: Node
    want: str  # the local's type
    k: int


def _plan(inp: RuleInput, call: Node) -> _InPlace | _Held | str:
    """How one pow call is rewritten, or why it is not (no name is handed out here)."""
    fn = call.child_by_field_name("function")
    args = call.child_by_field_name("arguments")
    if fn is None or args is None or args.named_child_count != 2:
        return "only a call with two arguments and no comment among them is rewritten"
    name = node_text(fn)
    single = name in _POWF_NAMES
    if name not in _POW_NAMES and not single:
        return f"only the standard `pow` and `powf` are expanded, not `{name}`"
    base, exp = args.named_children
    exp_text = node_text(exp).strip()
    if exp_text in ("0.5", ".5", "0.5f"):
        return "it is not turned into sqrt: they differ for -0 and -infinity"
    k = _exponent(exp, single)
    if k is None:
        return (f"only a whole exponent from 2 to {_MAX_EXPONENT} (written `k` or `k.0`, or "
                "`k.0f` for powf) becomes multiplications")
    kind = _expr_type(base, dict(inp.types))
    if kind is None:
        return "the base's type is unknown"
    want = "float" if single else "double"
    text = " ".join(node_text(base).split())
    if _leaf(base) and (kind == want or k <= 3):
        term = operand(base)
        if kind == want:
            product = _product(term, k)
        else:
            # one converted factor converts the product: (double)x * x * x
            cast = f"static_cast<{want}>({text})" if inp.language == "cpp" else \
                f"({want}){term}"
            product = " * ".join([cast] + [term] * (k - 1))
        return _InPlace(fit(call, product, MULTIPLICATIVE), k)
    stmt = holding_statement(call, inp.function)
    declared = _declared_in(stmt) if stmt is not None else set()
    if stmt is not None and not (identifiers(base) & declared) and (
            _side_effect_free(base) or not _effects_elsewhere(stmt, base)):
        return _Held(stmt, base, want, k)
    if k == 2 and _side_effect_free(base) and kind == want:
        term = operand(base)
        return _InPlace(fit(call, f"{term} * {term}", MULTIPLICATIVE), k)
    return ("its base is costly or has side effects and no local can hold it here (it is "
            "evaluated conditionally or repeatedly)")


def _within(inner: Node, outer: Node) -> bool:
    return outer.start_byte <= inner.start_byte and inner.end_byte <= outer.end_byte


def _explained(inp: RuleInput, calls: list[Node], top: int) -> str:
    where = ", ".join(str(x) for x in sorted({inp.line_of(c) for c in calls}))
    exact = ("x * x gives the identical, correctly rounded result with one multiplication"
             if top == 2 else
             "a few multiplications (squaring: x * x, then products of those) replace "
             "it; a square is exact, but for higher powers each multiplication rounds, "
             "so a floating result may differ from pow in the last bit (it is identical "
             "while the partial products are exactly representable, e.g. small integers)")
    return (f"pow(x, k) with a small integer k at line(s) {where} is a general library call; "
            f"{exact}.")


def pow_fix(inp: RuleInput, finding: Finding) -> Planned | Left:
    """``pow(x, k)`` for a small integer ``k`` becomes multiplications (``x * x`` for 2,
    exact; for larger ``k`` each multiplication rounds, so the last bit may differ). A base
    that is more than a name or an element read is computed once into a local declared right
    above the statement (as the call evaluated its argument once); the calls of one such
    statement are rewritten together, by the fix of the first whose base needs a local."""
    proof = finding.proof
    assert isinstance(proof, PowCall)
    call = proof.call
    if defines_pow(inp.unit):
        return Left("", call, "the unit defines its own pow")
    plans = {p: _plan(inp, p) for p in proof.peers}
    mine = plans[call]
    if isinstance(mine, str):
        return Left("", call, mine)
    # the calls rewritten, in text order (none lies in another's base: a base holding a
    # call has no known type)
    made = [p for p in proof.peers if not isinstance(plans[p], str)]
    held = [p for p in made if isinstance(plans[p], _Held)]
    statements = list(dict.fromkeys(plan.statement for p in held
                                    if isinstance(plan := plans[p], _Held)))

    def group_of(p: Node) -> Node | None:
        plan = plans[p]
        if isinstance(plan, _Held):
            return plan.statement
        return next((s for s in statements if _within(p, s)), None)

    stmt = group_of(call)
    if stmt is None:
        assert isinstance(mine, _InPlace)
        return Planned((Edit(call.start_byte, call.end_byte, mine.text, RULE_ID),),
                       _explained(inp, [call], mine.k), (call,), includes=())
    members = [p for p in made if group_of(p) == stmt]
    leader = next(p for p in members if isinstance(plans[p], _Held))
    inner_in_place = [Edit(p.start_byte, p.end_byte, plan.text, RULE_ID)
                      for p in members if isinstance(plan := plans[p], _InPlace)]
    if call != leader:
        if declare_before(inp, stmt, ["0;"], inner_in_place, RULE_ID) is None:
            return Left("", call, "no local may be declared before its statement")
        return Left("", call, "one rewrite declares the locals of a statement and rewrites "
                    "all its pow calls",
                    stays=f"is rewritten with the pow call on line {inp.line_of(leader)}")
    declarations: list[str] = []
    inner: list[Edit] = []
    for p in members:
        plan = plans[p]
        if isinstance(plan, _Held):
            local = _local_name(inp, plan.base)
            declarations.append(f"const {plan.want} {local} = "
                                f"{' '.join(node_text(plan.base).split())};")
            inner.append(Edit(p.start_byte, p.end_byte,
                              fit(p, _product(local, plan.k), MULTIPLICATIVE), RULE_ID))
    edits = declare_before(inp, stmt, declarations, [*inner, *inner_in_place], RULE_ID)
    if edits is None:
        return Left("", call, "no local may be declared before its statement")
    top = max(plan.k for p in members if not isinstance(plan := plans[p], str))
    return Planned(edits, _explained(inp, members, top), tuple(members), includes=())


def _declared_in(stmt: Node) -> set[str]:
    """The names a declaration statement declares (none for other statements)."""
    if stmt.type != "declaration":
        return set()
    out: set[str] = set()
    for d in stmt.children_by_field_name("declarator"):
        name = declarator_name(d)
        if name:
            out.add(name)
    return out


RULE = RuleSpec(
    id="pow-strength",
    detect=pow_strength,
    fix=pow_fix,
    rewrites_as=frozenset({"pow-strength"}),
    phase=1,
    order=0,
    examples=(
        Example("cpp", """
#include <cmath>
double norm2(const double *x, int n) {
    double s = 0;
    for (int i = 0; i < n; ++i) s += pow(x[i], 2);
    return sqrt(s);
}
""", "norm2"),
    ),
)
