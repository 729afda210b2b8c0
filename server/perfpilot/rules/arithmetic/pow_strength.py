"""The pow-strength rule: ``pow(x, 2)``, ``pow(x, 3)``, ``pow(x, 0.5)``, ``pow(x, -1)`` and kin."""

from __future__ import annotations

import re
from collections.abc import Iterator

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
from perfpilot.rules.finding import Finding, depth_bonus, make_finding
from perfpilot.rules.rewrite_input import (
    Change,
    RuleInput,
    RuleOutput,
)

# detection


_POW = frozenset({"pow", "powf", "powl"})

# Small integer exponents the rewrite expands (beyond this the product chain stops paying).
_MAX_EXPONENT = 8


def pow_strength(facts: FunctionFacts) -> Iterator[Finding]:
    """``pow(x, 2)``, ``pow(x, 3)``, ``pow(x, 0.5)``, ``pow(x, -1)`` and friends."""
    if "pow" not in facts.site.text:
        return
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
        if replacement is None:
            continue
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
            data={"replacement": replacement, "exponent": node_text(args[1])},
            bonus=(0.05 + depth_bonus(loop.depth)) if loop else -0.1,
        )


# rewrite


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


def pow_rule(inp: RuleInput) -> RuleOutput:
    """``pow(x, k)`` for a small integer ``k`` becomes multiplications (``x * x`` for 2,
    exact; for larger ``k`` each multiplication rounds, so the last bit may differ). A base
    that is more than a name or an element read is computed once into a local declared right
    above the statement (as the call evaluated its argument once)."""
    notes: list[str] = []
    if defines_pow(inp.unit):
        return [], ["pow-strength: the unit defines its own pow; left as it is"]
    types = dict(inp.types)
    in_place: list[Edit] = []
    # statement -> (declarations, edits inside it)
    held: dict[tuple[int, int], tuple[Node, list[str], list[Edit]]] = {}
    lines: list[int] = []
    top = 2
    for n in walk(inp.function):
        if n.type != "call_expression":
            continue
        fn = n.child_by_field_name("function")
        args = n.child_by_field_name("arguments")
        if fn is None or args is None or args.named_child_count != 2:
            continue
        name = node_text(fn)
        single = name in _POWF_NAMES
        if name not in _POW_NAMES and not single:
            continue
        done = in_place + [e for _s, _d, es in held.values() for e in es]
        if any(e.start <= n.start_byte and n.end_byte <= e.end for e in done):
            continue  # inside a base already rewritten
        base, exp = args.named_children
        exp_text = node_text(exp).strip()
        if exp_text in ("0.5", ".5", "0.5f"):
            notes.append(f"pow-strength: pow(..., 0.5) at line {inp.line_of(n)} is not turned "
                         "into sqrt: they differ for -0 and -infinity")
            continue
        k = _exponent(exp, single)
        if k is None:
            continue
        kind = _expr_type(base, types)
        if kind is None:
            notes.append(f"pow-strength: pow(..., {exp_text}) at line {inp.line_of(n)} is "
                         "left: the base's type is unknown")
            continue
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
            in_place.append(Edit(n.start_byte, n.end_byte, fit(n, product, MULTIPLICATIVE),
                                 "pow-strength"))
        else:
            stmt = holding_statement(n, inp.function)
            declared = _declared_in(stmt) if stmt is not None else set()
            movable = stmt is not None and not (identifiers(base) & declared) and (
                _side_effect_free(base) or not _effects_elsewhere(stmt, base))
            if stmt is not None and movable:
                local = _local_name(inp, base)
                key = (stmt.start_byte, stmt.end_byte)
                entry = held.setdefault(key, (stmt, [], []))
                entry[1].append(f"const {want} {local} = {text};")
                entry[2].append(Edit(n.start_byte, n.end_byte,
                                     fit(n, _product(local, k), MULTIPLICATIVE),
                                     "pow-strength"))
            elif k == 2 and _side_effect_free(base) and kind == want:
                term = operand(base)
                in_place.append(Edit(n.start_byte, n.end_byte,
                                     fit(n, f"{term} * {term}", MULTIPLICATIVE),
                                     "pow-strength"))
            else:
                notes.append(f"pow-strength: pow(..., {exp_text}) at line {inp.line_of(n)} is "
                             "left: its base is costly or has side effects and no local can "
                             "hold it here (it is evaluated conditionally or repeatedly)")
                continue
        lines.append(inp.line_of(n))
        top = max(top, k)
    edits: list[Edit] = []
    for stmt, declarations, inner in held.values():
        # calls rewritten in place in the same statement go with it
        mine = [e for e in in_place if stmt.start_byte <= e.start and e.end <= stmt.end_byte]
        in_place = [e for e in in_place if e not in mine]
        made = declare_before(inp, stmt, declarations, [*inner, *mine], "pow-strength")
        if made is None:
            notes.append(f"pow-strength: the pow call(s) at line {inp.line_of(stmt)} are left: "
                         "no local may be declared before that statement")
            continue
        edits.extend(made)
    edits.extend(in_place)
    if not edits:
        return [], notes
    where = ", ".join(str(x) for x in sorted(set(lines)))
    exact = ("x * x gives the identical, correctly rounded result with one multiplication"
             if top == 2 else
             "a few multiplications (squaring: x * x, then products of those) replace "
             "it; a square is exact, but for higher powers each multiplication rounds, "
             "so a floating result may differ from pow in the last bit (it is identical "
             "while the partial products are exactly representable, e.g. small integers)")
    return [Change(
        "pow-strength", tuple(edits),
        f"pow(x, k) with a small integer k at line(s) {where} is a general library call; "
        f"{exact}.",
        tuple(sorted(set(lines))))], notes


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
    rewrite=pow_rule,
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
