"""The numeric constants a function's behaviour hangs on, and what role each plays.

A rewrite that is right for every value the inputs happen to hold can still be wrong where a
constant starts to matter: a modulus larger than every intermediate result, a packing base
larger than every packed value, a threshold no input reaches. Two checks use the constants
found here: mutants that change them (``runner.mutants``) show whether the inputs ever made a
constant matter, and input generation mixes them (and values around them) into the values it
draws, so that inputs reach them at all.

A constant is a number literal in the function's body, or a name the body uses that the unit
defines as one (``#define MOD 1000000007``, ``const long long MOD = 1e9 + 7;`` at file scope).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Literal

import tree_sitter

from perfpilot.code.parse import parse
from perfpilot.code.site import Language
from perfpilot.code.syntax import (
    node_text,
    unwrap,
    walk,
)

Role = Literal["modulus", "mask", "shift", "factor", "constant"]
Number = int | float

# Contexts where the language wants a constant expression: a literal there cannot become a
# run-time choice between values.
_CONSTANT_CONTEXTS = frozenset({
    "case_statement", "template_argument_list", "array_declarator", "enumerator",
    "bitfield_clause", "static_assert_declaration", "alignas_qualifier", "preproc_if",
    "preproc_elif", "preproc_def", "preproc_function_def", "attribute_specifier",
    "template_parameter_list", "requires_clause", "new_declarator",
})
_ROLE_OF_OPERATOR: dict[str, Role] = {"%": "modulus", "%=": "modulus", "&": "mask",
                                      "&=": "mask", ">>": "shift", ">>=": "shift",
                                      "<<": "shift", "<<=": "shift", "*": "factor",
                                      "*=": "factor"}
_INT_SUFFIX = re.compile(r"[uUlLzZ]+$")
_FLOAT_SUFFIX = re.compile(r"[fFlL]$|(?i:f16|f32|f64|f128|bf16)$")
_LIMIT = 1 << 63
# Literals that are everywhere (indices, increments, flags) and that every value profile
# already produces: as inputs they add nothing, as mutants they are mostly equivalent.
_TRIVIAL = frozenset({0, 1, -1})


@dataclass(frozen=True)
class Constant:
    """One use of a constant in a function: its value, the text it is written as (a literal
    or a name), its role, 1-based line and byte span in the unit, and whether the use may be
    rewritten as a run-time choice (no constant expression required there)."""

    value: Number
    text: str
    role: Role
    line: int
    start_byte: int
    end_byte: int
    rewritable: bool

    @property
    def trivial(self) -> bool:
        """Whether the value is 0, 1 or -1 (every profile produces those already)."""
        return self.value in _TRIVIAL

    def describe(self) -> str:
        """``the modulus 1000000007`` / ``the constant MOD (1000000007)``."""
        shown = self.text if _same_number(self.text, self.value) else \
            f"{self.text} ({format_number(self.value)})"
        return f"the {self.role} {shown}"


def format_number(value: Number) -> str:
    """A value as C spells it (floats keep a decimal point or an exponent)."""
    if isinstance(value, int):
        return str(value)
    text = repr(float(value))
    return text if any(c in text for c in ".eEn") else text + ".0"


def _same_number(text: str, value: Number) -> bool:
    return literal_value(text) == value


def literal_value(text: str) -> Number | None:
    """The value of a C or C++ number literal (``42``, ``0x2Au``, ``1'000``, ``1e9``, ``.5f``),
    or None when ``text`` is not one."""
    t = text.strip().replace("'", "")
    if not t or not (t[0].isdigit() or (t[0] == "." and len(t) > 1 and t[1].isdigit())):
        return None
    lower = t.lower()
    is_hex = lower.startswith("0x")
    if (not is_hex and any(c in lower for c in ".e")) or (is_hex and "p" in lower):
        body = _FLOAT_SUFFIX.sub("", t)
        try:
            return float.fromhex(body) if is_hex else float(body)
        except ValueError:
            return None
    body = _INT_SUFFIX.sub("", t)
    try:
        if lower.startswith("0b"):
            return int(body[2:], 2)
        if len(body) > 1 and body[0] == "0" and body[1].isdigit():
            return int(body, 8)
        return int(body, 0)
    except ValueError:
        return None


def _evaluate(node: tree_sitter.Node, names: dict[str, Number]) -> Number | None:
    """The value of a constant expression made of literals, known names, parentheses, unary
    minus and ``+ - * << |``; None for anything else."""
    node = unwrap(node)
    if node.type == "number_literal":
        return literal_value(node_text(node))
    if node.type == "identifier":
        return names.get(node_text(node))
    if node.type == "unary_expression":
        op = node.child_by_field_name("operator")
        arg = node.child_by_field_name("argument")
        value = _evaluate(arg, names) if arg is not None else None
        if value is None or op is None:
            return None
        return -value if node_text(op) == "-" else (value if node_text(op) == "+" else None)
    if node.type == "cast_expression":
        value_node = node.child_by_field_name("value")
        return _evaluate(value_node, names) if value_node is not None else None
    if node.type == "binary_expression":
        left = node.child_by_field_name("left")
        right = node.child_by_field_name("right")
        op_node = node.child_by_field_name("operator")
        if left is None or right is None or op_node is None:
            return None
        a, b = _evaluate(left, names), _evaluate(right, names)
        if a is None or b is None:
            return None
        return _apply(node_text(op_node), a, b)
    return None


def _apply(op: str, a: Number, b: Number) -> Number | None:
    if op == "+":
        out: Number = a + b
    elif op == "-":
        out = a - b
    elif op == "*":
        out = a * b
    elif op in ("<<", "|") and isinstance(a, int) and isinstance(b, int) and 0 <= b < 64:
        out = a << b if op == "<<" else a | b
    else:
        return None
    if isinstance(out, float) and not math.isfinite(out):
        return None
    return out if abs(out) < _LIMIT else None


def unit_constants(root: tree_sitter.Node, language: Language) -> dict[str, Number]:
    """Names the unit defines at file scope as numbers: object-like macros and ``const`` /
    ``constexpr`` variables initialised with a constant expression."""
    names: dict[str, Number] = {}
    for n in walk(root):
        if n.type == "function_definition":
            continue
        if n.type == "preproc_def":
            name = n.child_by_field_name("name")
            value = n.child_by_field_name("value")
            if name is None or value is None:
                continue
            expr = _expression_of(node_text(value), language)
            number = _evaluate(expr, names) if expr is not None else None
            if number is not None:
                names[node_text(name)] = number
        elif n.type == "declaration" and _inside_no_function(n) and _is_const(n):
            for init in n.named_children:
                if init.type != "init_declarator":
                    continue
                target = init.child_by_field_name("declarator")
                value = init.child_by_field_name("value")
                if target is None or value is None or target.type != "identifier":
                    continue
                number = _evaluate(value, names)
                if number is not None:
                    names[node_text(target)] = number
    return names


def _inside_no_function(node: tree_sitter.Node) -> bool:
    parent = node.parent
    while parent is not None:
        if parent.type in ("function_definition", "lambda_expression", "class_specifier",
                           "struct_specifier"):
            return False
        parent = parent.parent
    return True


def _is_const(decl: tree_sitter.Node) -> bool:
    words = {node_text(c) for c in decl.children
             if c.type in ("type_qualifier", "storage_class_specifier")}
    return bool(words & {"const", "constexpr"})


def _expression_of(text: str, language: Language) -> tree_sitter.Node | None:
    tree = parse(f"int perfpilot_x = ({text});\n", language)
    for n in walk(tree.root_node):
        if n.type == "init_declarator":
            return n.child_by_field_name("value")
    return None


def _role(node: tree_sitter.Node) -> Role:
    """What the constant at ``node`` does to the value it is applied to."""
    child = node
    parent = node.parent
    while parent is not None and parent.type == "parenthesized_expression":
        child, parent = parent, parent.parent
    if parent is None:
        return "constant"
    op_node = parent.child_by_field_name("operator")
    op = node_text(op_node) if op_node is not None else ""
    role = _ROLE_OF_OPERATOR.get(op)
    if role is None or parent.type not in ("binary_expression", "assignment_expression"):
        return "constant"
    right = parent.child_by_field_name("right")
    on_right = right is not None and right.start_byte == child.start_byte
    # ``1 << k`` shifts a constant, ``k % m`` reduces one: only the right side is the role.
    return "constant" if role in ("modulus", "shift") and not on_right else role


def _rewritable(node: tree_sitter.Node, body: tree_sitter.Node) -> bool:
    """Whether the use may become a run-time expression (no constant expression required)."""
    child = node
    parent = node.parent
    while parent is not None and parent.start_byte >= body.start_byte and parent != body:
        if parent.type in _CONSTANT_CONTEXTS or parent.type == "sizeof_expression":
            return False
        if parent.type == "declaration" and _needs_constant(parent, child):
            return False
        child, parent = parent, parent.parent
    return True


def _needs_constant(decl: tree_sitter.Node, part: tree_sitter.Node) -> bool:
    """Whether the initialiser ``part`` of a local declaration must stay a constant
    expression: a static's must in C, and a const one made of numbers may size an array
    or be a template argument (``const int n = 10; int a[n];``)."""
    words = {node_text(c) for c in decl.children
             if c.type in ("type_qualifier", "storage_class_specifier")}
    if words & {"constexpr", "static", "constinit"}:
        return True
    if "const" not in words:
        return False
    value = part.child_by_field_name("value") if part.type == "init_declarator" else None
    return value is None or _evaluate(value, {}) is not None


def _locals(body: tree_sitter.Node) -> set[str]:
    """Names declared inside the body (they shadow file-scope constants)."""
    out: set[str] = set()
    for n in walk(body):
        if n.type in ("init_declarator", "parameter_declaration", "declaration"):
            target = n.child_by_field_name("declarator")
            while target is not None and target.type not in ("identifier",):
                target = target.child_by_field_name("declarator")
            if target is not None:
                out.add(node_text(target))
    return out


def function_constants(unit_text: str, language: Language, start_byte: int,
                       end_byte: int) -> tuple[Constant, ...]:
    """Every constant the function defined at ``start_byte``..``end_byte`` of the unit uses,
    in source order."""
    tree = parse(unit_text, language)
    func = tree.root_node.descendant_for_byte_range(start_byte, max(start_byte, end_byte - 1))
    while func is not None and func.type != "function_definition":
        func = func.parent
    if func is None:
        return ()
    return tuple(c for _, c in constants_in(func, unit_constants(tree.root_node, language)))


def constants_in(func: tree_sitter.Node,
                 names: dict[str, Number]) -> list[tuple[tree_sitter.Node, Constant]]:
    """Each constant in the body of the function definition ``func`` with its node; ``names``
    are the unit's named constants (``unit_constants``)."""
    body = func.child_by_field_name("body")
    if body is None:
        return []
    shadowed = _locals(func)
    out: list[tuple[tree_sitter.Node, Constant]] = []
    for n in walk(body):
        value: Number | None = None
        if n.type == "number_literal":
            value = literal_value(node_text(n))
        elif n.type == "identifier" and node_text(n) in names and \
                node_text(n) not in shadowed and _is_value_use(n):
            value = names[node_text(n)]
        if value is None or (isinstance(value, int) and abs(value) >= _LIMIT):
            continue
        out.append((n, Constant(value, node_text(n), _role(n), n.start_point[0] + 1,
                                n.start_byte, n.end_byte, _rewritable(n, body))))
    return out


def _is_value_use(n: tree_sitter.Node) -> bool:
    parent = n.parent
    if parent is None:
        return False
    if parent.type in ("call_expression",) and parent.child_by_field_name("function") == n:
        return False
    return parent.type not in ("field_expression", "qualified_identifier", "init_declarator",
                               "declaration", "parameter_declaration")


def unit_literals(unit_text: str, language: Language) -> tuple[Number, ...]:
    """Every number in a unit: literals anywhere and the values of file-scope constants."""
    tree = parse(unit_text, language)
    found: list[Number] = []
    for n in walk(tree.root_node):
        if n.type in ("number_literal", "preproc_arg"):
            text = node_text(n)
            value = literal_value(text) if n.type == "number_literal" else None
            if n.type == "preproc_arg":
                expr = _expression_of(text, language)
                value = _evaluate(expr, {}) if expr is not None else None
            if value is not None:
                found.append(value)
    found += list(unit_constants(tree.root_node, language).values())
    return tuple(found)


def input_pool(values: list[Number] | tuple[Number, ...], limit: int = 24) -> tuple[Number, ...]:
    """The distinct values worth feeding back as inputs: not 0 or +-1 (every profile has
    those), integers within 64 bits and finite floats, by first appearance, at most
    ``limit``."""
    seen: list[Number] = []
    for v in values:
        if isinstance(v, float):
            if not math.isfinite(v) or abs(v) >= _LIMIT:
                continue
            if v.is_integer():
                v = int(v)  # 1e9 + 7 written as a double is the integer 1000000007 too
        if isinstance(v, bool) or v in _TRIVIAL or abs(v) >= _LIMIT:
            continue
        if v not in seen:
            seen.append(v)
        if len(seen) >= limit:
            break
    return tuple(seen)


def pool_arg(pool: tuple[Number, ...]) -> str:
    """The driver's spelling of a pool: comma-separated numbers (floats with a point)."""
    return ",".join(format_number(v) for v in pool)
