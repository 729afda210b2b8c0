"""Simple mutants of a function, all compiled at once as mutant schemata.

Inputs are good enough to judge a candidate only if they tell the original apart from slightly
wrong versions of it. This module writes the original function once with every mutation in it,
each guarded by ``perfpilot_mutant == K`` (one compile for all mutants; the runner switches
mutant K on through that exported variable). Mutations, by how rarely they are equivalent to
the original:

strong (a survivor means the inputs miss a behaviour):
  ``return-default``   a ``return E;`` returns the type's default value instead
  ``negate-condition`` an ``if`` or ``?:`` condition is negated
  ``delete-statement`` an assignment or increment statement is skipped
  ``drop-operation``   ``x % c``, ``x & c`` or ``x >> c`` (``c`` a constant) becomes ``x``
  ``change-constant``  a modulus, mask or shift amount becomes one more, one less or twice it
weak (survivors are reported; some are equivalent, e.g. ``>`` for ``>=`` in a maximum scan):
  ``flip-comparison``  ``<`` for ``<=``, ``==`` for ``!=`` and so on
  ``off-by-one``       a loop bound ``i < n`` becomes ``i < n - 1``
  ``swap-arithmetic``  ``+`` for ``-`` and back
  ``swap-logic``       ``&&`` for ``||`` and back
  ``change-constant``  any other constant (not 0 or 1) becomes one more, one less, twice it or 0
                       (a cut-off between two equivalent algorithms is a constant too)

A surviving constant mutant says that the inputs never made that constant matter: a modulus
larger than every value reduced, a mask wider than every value masked. A rewrite that changes
such a constant passes every comparison, so those mutants are strong.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

import tree_sitter

from perfpilot.code.parse import parse
from perfpilot.code.site import FunctionSite
from perfpilot.code.syntax import (
    node_text,
    unwrap,
    walk,
)
from perfpilot.runner.constants import (
    Constant,
    Number,
    constants_in,
    format_number,
    unit_constants,
)

SELECTOR = "perfpilot_mutant"
STRONG = frozenset({"return-default", "negate-condition", "delete-statement",
                    "drop-operation"})
CONSTANT_KINDS = frozenset({"change-constant", "drop-operation"})
# Roles of a constant whose mutants are strong: the value a rewrite must keep exactly.
SIGNIFICANT_ROLES = frozenset({"modulus", "mask", "shift"})
# Kinds tried together; when the schemata do not compile, the next smaller set is tried.
LEVELS: tuple[frozenset[str], ...] = (
    frozenset({"return-default", "negate-condition", "delete-statement", "flip-comparison",
               "off-by-one", "swap-arithmetic", "swap-logic", *CONSTANT_KINDS}),
    frozenset({"return-default", "negate-condition", "delete-statement", "flip-comparison",
               "off-by-one", "swap-arithmetic", "swap-logic"}),
    frozenset({"return-default", "negate-condition", "delete-statement", "flip-comparison",
               "swap-logic"}),
    frozenset({"return-default", "negate-condition", "delete-statement"}),
    frozenset({"negate-condition", "delete-statement"}),
)
# Constant mutants kept at most (strong, weak): a function full of constants (a hash, a
# table) would otherwise crowd out every other mutant and lengthen the run.
CONSTANT_LIMITS = (16, 8)
_DROPPED = {"%": "modulus", "&": "mask", ">>": "shift"}
# Return values equal to the type's default: returning the default instead changes nothing.
_DEFAULT_VALUE = re.compile(r"^\(*\s*(0+[uUlL]*|0*\.0*[fFlL]?|false|nullptr|NULL|\{\s*\}|'\\0'|"
                            r"[\w:<>]+\s*\{\s*\}|[\w:<>]+\(\s*\))\s*\)*$")
_FLIP = {"<": "<=", "<=": "<", ">": ">=", ">=": ">", "==": "!=", "!=": "=="}
_ARITH = {"+": "-", "-": "+"}
_LOGIC = {"&&": "||", "||": "&&"}
_C_SCALAR_WORDS = {"char", "short", "int", "long", "unsigned", "signed", "float", "double",
                   "size_t", "ssize_t", "ptrdiff_t", "bool", "_Bool", "const", "static",
                   "inline"}


@dataclass(frozen=True)
class Mutant:
    """One mutation: its id in the schemata, kind, 1-based line and a short description."""

    id: int
    kind: str
    line: int
    description: str
    # Constant mutants: what the constant is (``the modulus 1000000007``), its role and
    # its value as C spells it (to match the same constant in a candidate).
    subject: str = ""
    role: str = ""
    value: str = ""

    @property
    def strong(self) -> bool:
        """Whether a surviving mutant of this kind points at untested behaviour."""
        if self.kind == "change-constant":
            return self.role in SIGNIFICANT_ROLES
        return self.kind in STRONG


@dataclass(frozen=True)
class Schemata:
    """The unit with the mutated function, and the mutants it holds."""

    unit_text: str
    mutants: tuple[Mutant, ...]


@dataclass(frozen=True)
class _Point:
    node: tree_sitter.Node
    kind: str
    # Builds the mutated text of the node from the rendered texts of its parts.
    render: Callable[[str, int], str]
    description: str
    new_op: str = ""  # binary points: the operator that replaces the node's own
    constant: Constant | None = None  # constant points: the constant changed or dropped
    keep: str = ""  # drop points: the operand kept ("left" or "right")


def _short(text: str, limit: int = 40) -> str:
    one = " ".join(text.split())
    return one if len(one) <= limit else one[: limit - 3] + "..."


def _default_return(site: FunctionSite) -> str | None:
    """``return {};`` or ``return 0;`` where that compiles for the return type, else None."""
    ret = site.return_type.strip()
    if not ret or ret == "void" or "auto" in ret.split() or "&" in ret or "decltype" in ret:
        return None
    if site.language == "cpp":
        return "return {};"
    words = set(ret.replace("*", " * ").split())
    if "*" in words or words <= _C_SCALAR_WORDS or ret.endswith("_t"):
        return "return 0;"
    return None


def _guarded_return(default: str) -> Callable[[str, int], str]:
    def render(whole: str, k: int) -> str:
        return f"{{ if ({SELECTOR} == {k}) {default} {whole} }}"

    return render


def _points(body: tree_sitter.Node, site: FunctionSite, kinds: frozenset[str]) -> list[_Point]:
    out: list[_Point] = []
    default = _default_return(site)
    for n in walk(body):
        t = n.type
        if t == "return_statement" and "return-default" in kinds and default is not None:
            value = n.named_children[0] if n.named_child_count else None
            if value is None or _DEFAULT_VALUE.match(node_text(value)):
                continue  # already returns the default: the mutant would be the original
            text = node_text(n)
            out.append(_Point(n, "return-default", _guarded_return(default),
                              f"`{_short(text)}` returns a default value"))
        elif t == "if_statement" and "negate-condition" in kinds:
            cond = n.child_by_field_name("condition")
            value = _condition_value(cond)
            if value is not None:
                out.append(_Point(value, "negate-condition",
                                  lambda whole, k: f"({SELECTOR} == {k} ? !({whole}) : "
                                                   f"({whole}))",
                                  f"condition `{_short(node_text(value))}` negated"))
        elif t == "conditional_expression" and "negate-condition" in kinds:
            value = n.child_by_field_name("condition")
            if value is not None:
                out.append(_Point(value, "negate-condition",
                                  lambda whole, k: f"({SELECTOR} == {k} ? !({whole}) : "
                                                   f"({whole}))",
                                  f"condition `{_short(node_text(value))}` negated"))
        elif t == "expression_statement" and "delete-statement" in kinds:
            expr = n.named_children[0] if n.named_child_count else None
            if expr is not None and expr.type in ("assignment_expression",
                                                  "update_expression"):
                out.append(_Point(n, "delete-statement",
                                  lambda whole, k: f"{{ if ({SELECTOR} != {k}) {whole} }}",
                                  f"`{_short(node_text(n))}` skipped"))
        elif t == "binary_expression":
            op_node = n.child_by_field_name("operator")
            op = node_text(op_node) if op_node is not None else ""
            for table, kind in ((_FLIP, "flip-comparison"), (_ARITH, "swap-arithmetic"),
                                (_LOGIC, "swap-logic")):
                if op in table and kind in kinds:
                    out.append(_binary_point(n, op, table[op], kind))
            if op in ("<", "<=") and "off-by-one" in kinds and _is_loop_condition(n):
                right = n.child_by_field_name("right")
                if right is not None:
                    out.append(_Point(right, "off-by-one",
                                      lambda whole, k: f"(({whole}) - ({SELECTOR} == {k} ? "
                                                       "1 : 0))",
                                      f"loop bound `{_short(node_text(n))}` one less"))
    if kinds & CONSTANT_KINDS:
        out += _constant_points(body, site, kinds)
    return out


def _constant_points(body: tree_sitter.Node, site: FunctionSite,
                     kinds: frozenset[str]) -> list[_Point]:
    """Mutants of the constants the body uses (see ``runner.constants``)."""
    func = body.parent
    if func is None:
        return []
    tree_root = func
    while tree_root.parent is not None:
        tree_root = tree_root.parent
    found = constants_in(func, unit_constants(tree_root, site.language))
    out: list[_Point] = []
    by_span = {(c.start_byte, c.end_byte): c for _, c in found}
    for node, c in found:
        if not c.rewritable or "change-constant" not in kinds:
            continue
        if c.trivial and c.role not in ("mask", "shift"):
            continue
        for variant in _variants(c):
            out.append(_Point(node, "change-constant", _constant_render(c.text, variant),
                              f"{c.describe()} changed to {format_number(variant)}",
                              constant=c))
    if "drop-operation" not in kinds:
        return out
    for n in walk(body):
        if n.type != "binary_expression":
            continue
        op_node = n.child_by_field_name("operator")
        op = node_text(op_node) if op_node is not None else ""
        left, right = n.child_by_field_name("left"), n.child_by_field_name("right")
        if op not in _DROPPED or left is None or right is None:
            continue
        for const_side, keep in ((right, "left"), (left, "right")):
            bare = unwrap(const_side)
            operand = by_span.get((bare.start_byte, bare.end_byte))
            if operand is None or operand.role != _DROPPED[op] or not operand.rewritable:
                continue
            kept = left if keep == "left" else right
            out.append(_Point(n, "drop-operation", lambda whole, k: whole,
                              f"`{_short(node_text(n))}` computed as "
                              f"`{_short(node_text(kept))}`", new_op="drop", constant=operand,
                              keep=keep))
            break
    return out


def _variants(c: Constant) -> list[Number]:
    """One more, one less, twice (and 0 for a plain constant), skipping values that would be
    undefined (a zero modulus, a shift past 63 bits) or the constant itself."""
    v = c.value
    if c.role == "modulus":
        cands: list[Number] = [v + 1, v - 1, v * 2]
        cands = [x for x in cands if x != 0]
    elif c.role == "shift":
        cands = [x for x in (v + 1, v - 1, v * 2) if 0 <= x < 64]
    elif c.role == "mask":
        cands = [v + 1, v - 1, v * 2]
    else:
        cands = [v + 1, v - 1, v * 2, 0]
    out: list[Number] = []
    for x in cands:
        if isinstance(x, float):
            x = float(x)
        if x != v and x not in out and abs(x) < (1 << 63):
            out.append(x)
    return out


def _constant_render(text: str, variant: Number) -> Callable[[str, int], str]:
    # The variant keeps the constant's own type: a wider type would change overload
    # resolution or template deduction around it, and the schemata would not compile.
    spelled = format_number(variant)

    def render(whole: str, k: int) -> str:
        return f"({SELECTOR} == {k} ? (__typeof__({text}))({spelled}) : {whole})"

    return render


def _binary_point(n: tree_sitter.Node, op: str, new_op: str, kind: str) -> _Point:
    def render(whole: str, k: int) -> str:  # binary points are rendered from their operands
        return whole

    return _Point(n, kind, render, f"`{_short(node_text(n))}` with `{new_op}` for `{op}`",
                  new_op)


def _condition_value(cond: tree_sitter.Node | None) -> tree_sitter.Node | None:
    """The plain expression of an if condition (none when it declares a variable)."""
    if cond is None:
        return None
    node = cond
    while node.type in ("condition_clause", "parenthesized_expression"):
        named = [c for c in node.named_children if c.type != "comment"]
        if len(named) != 1 or named[0].type in ("declaration", "init_statement"):
            return None
        node = named[0]
    if node.type in ("declaration", "init_statement", "comma_expression"):
        return None
    return node


def _is_loop_condition(n: tree_sitter.Node) -> bool:
    parent = n.parent
    return parent is not None and parent.type == "for_statement" and \
        parent.child_by_field_name("condition") == n


def _render(node: tree_sitter.Node, data: bytes, by_node: dict[tuple[int, int, str],
            list[tuple[_Point, int]]]) -> str:
    """The node's text with every mutation point inside it rendered."""
    pieces: list[str] = []
    pos = node.start_byte
    for child in node.children:
        pieces.append(data[pos:child.start_byte].decode("utf-8", "replace"))
        pieces.append(_render(child, data, by_node))
        pos = child.end_byte
    pieces.append(data[pos:node.end_byte].decode("utf-8", "replace"))
    text = "".join(pieces) if node.children else data[node.start_byte:node.end_byte].decode(
        "utf-8", "replace")
    for point, k in by_node.get((node.start_byte, node.end_byte, node.type), []):
        if point.new_op:
            text = _render_binary(point, k, node, data, by_node, text)
        else:
            text = point.render(text, k)
    return text


def _render_binary(point: _Point, k: int, node: tree_sitter.Node, data: bytes,
                   by_node: dict[tuple[int, int, str], list[tuple[_Point, int]]],
                   whole: str) -> str:
    """A mutated binary expression, built from its rendered operands."""
    left = node.child_by_field_name("left")
    right = node.child_by_field_name("right")
    if left is None or right is None:
        return whole
    new = point.new_op
    lhs = _render(left, data, by_node)
    rhs = _render(right, data, by_node)
    if new == "drop":
        kept = lhs if point.keep == "left" else rhs
        return f"({SELECTOR} == {k} ? ({kept}) : ({whole}))"
    return f"({SELECTOR} == {k} ? (({lhs}) {new} ({rhs})) : ({whole}))"


def _strong(p: _Point) -> bool:
    if p.kind == "change-constant":
        return p.constant is not None and p.constant.role in SIGNIFICANT_ROLES
    return p.kind in STRONG


def _spread(points: list[_Point], room: int) -> list[_Point]:
    """At most ``room`` of ``points``, spread evenly over the function rather than its first
    lines only."""
    if len(points) <= room:
        return points
    step = len(points) / room if room else 0.0
    return [points[int(i * step)] for i in range(room)]


def schemata(site: FunctionSite, kinds: frozenset[str], limit: int = 48) -> Schemata:
    """The unit with ``site`` replaced by its mutant schemata (at most ``limit`` mutants,
    strong kinds first)."""
    data = site.unit_text.encode("utf-8")
    tree = parse(data, site.language)
    func = tree.root_node.descendant_for_byte_range(site.start_byte, site.end_byte)
    while func is not None and func.type != "function_definition":
        func = func.parent
    body = func.child_by_field_name("body") if func is not None else None
    if func is None or body is None:
        return Schemata(site.unit_text, ())
    points = _points(body, site, kinds)
    strong = [p for p in points if _strong(p)]
    weak = [p for p in points if not _strong(p)]
    strong = [p for p in strong if p.constant is None] + \
        _spread([p for p in strong if p.constant is not None], CONSTANT_LIMITS[0])
    weak = [p for p in weak if p.constant is None] + \
        _spread([p for p in weak if p.constant is not None], CONSTANT_LIMITS[1])
    weak = _spread(weak, max(0, limit - len(strong)))
    chosen = (strong + weak)[:limit]
    chosen.sort(key=lambda p: (p.node.start_byte, -p.node.end_byte))
    by_node: dict[tuple[int, int, str], list[tuple[_Point, int]]] = {}
    mutants: list[Mutant] = []
    for k, p in enumerate(chosen, start=1):
        by_node.setdefault((p.node.start_byte, p.node.end_byte, p.node.type), []).append((p, k))
        c = p.constant
        mutants.append(Mutant(k, p.kind, p.node.start_point[0] + 1, p.description,
                              subject=c.describe() if c else "", role=c.role if c else "",
                              value=format_number(c.value) if c else ""))
    new_body = _render(body, data, by_node)
    decl = (f'\n#ifdef __cplusplus\nextern "C" {{\n#endif\nint {SELECTOR} = 0;\n'
            "#ifdef __cplusplus\n}\n#endif\n")
    head = data[:body.start_byte].decode("utf-8", "replace")
    tail = data[body.end_byte:].decode("utf-8", "replace")
    # The selector is declared at the top (line numbers of the rest shift; mutants keep the
    # original's numbers in their descriptions).
    return Schemata(decl + head + new_body + tail, tuple(mutants))
