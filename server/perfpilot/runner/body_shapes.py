"""What a function's body says about the shape of its parameters, for the generated bench.

A signature alone does not say how long a buffer must be: ``a[i * n + k]`` needs n*n elements,
``for (i = 0; i < count; ++i) v[i]`` needs ``count <= v.size()``, ``a[hi]`` an inclusive range.
These readings are syntactic (tree-sitter) and conservative: each answers only what the body
shows, and the bench falls back to its defaults otherwise.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import tree_sitter

from perfpilot.code.parse import parse
from perfpilot.code.site import Language
from perfpilot.code.syntax import (
    node_text,
    walk,
)

_LESS = {"<", "<=", "!="}
_GREATER = {">", ">="}
# Names of an index pair into one buffer, lower bound first (compared case-insensitively).
RANGE_PAIRS = (("l", "r"), ("lo", "hi"), ("low", "high"), ("left", "right"), ("first", "last"),
               ("start", "end"), ("begin", "end"), ("beg", "end"), ("from", "to"),
               ("lower", "upper"))


@dataclass(frozen=True)
class Bound:
    """A scalar parameter that bounds a loop whose variable indexes ``target``."""

    target: str
    inclusive: bool  # ``i <= k``: k is the last index, not the count


def _tree(text: str, language: Language) -> tree_sitter.Node:
    return parse(text, language).root_node


def _index_of(sub: tree_sitter.Node) -> tree_sitter.Node | None:
    """The (first) index expression of a subscript."""
    index = sub.child_by_field_name("indices") or sub.child_by_field_name("index")
    if index is not None and index.type == "subscript_argument_list":
        return index.named_children[0] if index.named_children else None
    return index


def _comparisons(cond: tree_sitter.Node) -> list[tuple[str, str, bool]]:
    """(loop variable, bound, inclusive) for ``i < k``, ``i <= k``, ``k > i``, ``i != k``
    in a condition, through ``&&``."""
    out: list[tuple[str, str, bool]] = []
    stack = [cond]
    while stack:
        node = stack.pop()
        if node.type in ("condition_clause", "parenthesized_expression"):
            stack.extend(node.named_children)
            continue
        if node.type != "binary_expression":
            continue
        op_node = node.child_by_field_name("operator")
        op = node_text(op_node) if op_node is not None else ""
        left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
        if op == "&&":
            stack += [c for c in (left, right) if c is not None]
            continue
        if left is None or right is None:
            continue
        if left.type == "identifier" and right.type == "identifier":
            if op in _LESS:
                out.append((node_text(left), node_text(right), op == "<="))
            elif op in _GREATER:
                out.append((node_text(right), node_text(left), op == ">="))
    return out


def loop_bounds(text: str, language: Language, scalars: set[str],
                targets: set[str]) -> dict[str, Bound]:
    """For each parameter in ``scalars`` that bounds a loop (``for (i = ...; i < k; ...)``,
    ``while (i <= k)``) whose variable indexes a parameter in ``targets`` directly
    (``v[i]``, ``v[i][j]``, ``v.at(i)``): that parameter, and whether the bound is inclusive.
    The first such loop decides."""
    out: dict[str, Bound] = {}
    for node in walk(_tree(text, language)):
        if node.type not in ("for_statement", "while_statement", "do_statement"):
            continue
        cond = node.child_by_field_name("condition")
        body = node.child_by_field_name("body")
        if cond is None or body is None:
            continue
        for var, bound, inclusive in _comparisons(cond):
            if bound not in scalars or bound in out or var in scalars:
                continue
            target = _indexed_by(body, var, targets)
            if target is not None:
                out[bound] = Bound(target, inclusive)
    return out


def _indexed_by(body: tree_sitter.Node, var: str, targets: set[str]) -> str | None:
    for inner in walk(body):
        if inner.type == "subscript_expression":
            arg = inner.child_by_field_name("argument")
            index = _index_of(inner)
            if arg is not None and index is not None and arg.type == "identifier" \
                    and node_text(arg) in targets and node_text(index) == var:
                return node_text(arg)
        elif inner.type == "call_expression":
            fn = inner.child_by_field_name("function")
            args = inner.child_by_field_name("arguments")
            if fn is None or args is None or fn.type != "field_expression":
                continue
            obj, field = fn.child_by_field_name("argument"), fn.child_by_field_name("field")
            if obj is not None and field is not None and node_text(field) == "at" \
                    and node_text(obj) in targets and len(args.named_children) == 1 \
                    and node_text(args.named_children[0]) == var:
                return node_text(obj)
    return None


def range_pair(text: str, language: Language,
               ints: list[str]) -> tuple[str, str, bool] | None:
    """An index pair among the integer parameters ``ints`` (``l, r``; ``lo, hi``; ``first,
    last``, ...; the lower one first in the signature): (lower, upper, inclusive).

    Only a pair the body indexes with (directly or through locals computed from it) counts:
    ``x >= lo && x <= hi`` bounds values, not positions. Inclusive when the body indexes with
    the upper bound (``a[hi]``), compares a variable to it with ``<=``, or counts
    ``r - l + 1``; half-open when it only compares with ``<``; an unclear body counts as
    inclusive, which keeps every index inside the buffer either way.
    """
    lowered = {p.lower(): p for p in ints}
    pair = None
    for lo, hi in RANGE_PAIRS:
        if lo in lowered and hi in lowered and ints.index(lowered[lo]) < ints.index(lowered[hi]):
            pair = (lowered[lo], lowered[hi])
            break
    if pair is None:
        return None
    lo, hi = pair
    root = _tree(text, language)
    if not _indexes_with(root, {lo, hi}):
        return None  # value bounds (``x >= lo && x <= hi``), not positions in a buffer
    inclusive = half_open = False
    if re.search(rf"\b{re.escape(hi)}\s*-\s*{re.escape(lo)}\s*\+\s*1\b", text):
        inclusive = True
    for node in walk(root):
        if node.type == "subscript_expression":
            index = _index_of(node)
            if index is not None and node_text(index) == hi:
                inclusive = True
        elif node.type in ("for_statement", "while_statement", "do_statement"):
            cond = node.child_by_field_name("condition")
            for var, bound, incl in _comparisons(cond) if cond is not None else []:
                if bound != hi or var == lo:
                    continue
                if incl:
                    inclusive = True
                else:
                    half_open = True
    return lo, hi, inclusive or not half_open


def _indexes_with(root: tree_sitter.Node, names: set[str]) -> bool:
    """Whether the body indexes something with ``names`` or with locals computed from them
    (``i = l; a[i]``, ``m = l + (r - l) / 2; a[m]``, ``a.begin() + l``)."""
    nodes = list(walk(root))
    derived = set(names)

    def mentions(node: tree_sitter.Node | None) -> bool:
        return node is not None and any(
            n.type == "identifier" and node_text(n) in derived for n in walk(node))

    changed = True
    while changed:
        changed = False
        for node in nodes:
            if node.type == "init_declarator":
                name, value = node.child_by_field_name("declarator"), \
                    node.child_by_field_name("value")
            elif node.type == "assignment_expression":
                name, value = node.child_by_field_name("left"), node.child_by_field_name("right")
            else:
                continue
            if name is not None and name.type == "identifier" \
                    and node_text(name) not in derived and mentions(value):
                derived.add(node_text(name))
                changed = True
    for node in nodes:
        if node.type == "subscript_expression" and mentions(_index_of(node)):
            return True
        if node.type == "binary_expression":
            op = node.child_by_field_name("operator")
            left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
            if op is not None and node_text(op) == "+" and left is not None \
                    and left.type == "call_expression" \
                    and node_text(left).replace(" ", "").endswith(".begin()") and mentions(right):
                return True
    return False


def flattened(text: str, language: Language, buffers: list[str], sizes: list[str]) -> set[str]:
    """The buffers the body indexes with a product involving a size parameter (``a[i * n +
    k]``), directly or through locals computed from one (``at = i * n + k; a[at]``, ``row = i
    * n; a[row + k]``), or offsets that way (``a + i * n``, ``a.data() + i * n``): each then
    holds rows of that size, n*n elements for n rows."""
    if not sizes or not buffers:
        return set()
    nodes = list(walk(_tree(text, language)))
    size_set = set(sizes)

    def scaled(expr: tree_sitter.Node, rows: set[str]) -> bool:
        for inner in walk(expr):
            if inner.type == "identifier" and node_text(inner) in rows:
                return True
            if inner.type != "binary_expression":
                continue
            op = inner.child_by_field_name("operator")
            if op is None or node_text(op) != "*":
                continue
            operands = [inner.child_by_field_name("left"), inner.child_by_field_name("right")]
            if any(o is not None and node_text(o) in size_set for o in operands):
                return True
        return False

    # Locals that hold a row offset: assigned or initialised from a scaled expression, to a
    # fixed point (an offset built from another offset is one too).
    rows: set[str] = set()
    changed = True
    while changed:
        changed = False
        for node in nodes:
            if node.type == "init_declarator":
                name, value = node.child_by_field_name("declarator"), \
                    node.child_by_field_name("value")
            elif node.type == "assignment_expression":
                name, value = node.child_by_field_name("left"), \
                    node.child_by_field_name("right")
            else:
                continue
            if name is None or value is None or name.type != "identifier":
                continue
            if node_text(name) not in rows and scaled(value, rows):
                rows.add(node_text(name))
                changed = True
    found: set[str] = set()
    for node in nodes:
        if node.type == "subscript_expression":
            target = node.child_by_field_name("argument")
            index = node.child_by_field_name("indices") or node.child_by_field_name("index")
            if target is not None and node_text(target) in buffers \
                    and scaled(index if index is not None else node, rows):
                found.add(node_text(target))
        elif node.type == "binary_expression":
            op = node.child_by_field_name("operator")
            if op is None or node_text(op) != "+":
                continue
            left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
            for base, offset in ((left, right), (right, left)):
                buffer = _buffer_name(base)
                if buffer in buffers and offset is not None and scaled(offset, rows):
                    found.add(buffer)
    return found


def _buffer_name(node: tree_sitter.Node | None) -> str:
    """``a`` for ``a`` and ``a.data()``."""
    if node is None:
        return ""
    if node.type == "identifier":
        return node_text(node)
    if node.type == "call_expression":
        fn = node.child_by_field_name("function")
        if fn is not None and fn.type == "field_expression":
            obj, field = fn.child_by_field_name("argument"), fn.child_by_field_name("field")
            if obj is not None and field is not None and node_text(field) == "data" \
                    and obj.type == "identifier":
                return node_text(obj)
    return ""


def subscripted(text: str, language: Language, name: str) -> bool:
    """Whether the body indexes ``name`` (``p[i]``) or moves it (``p + k``, ``++p``): a pointer
    used so points into an array, not at one object."""
    for node in walk(_tree(text, language)):
        if node.type == "subscript_expression" or node.type == "update_expression":
            arg = node.child_by_field_name("argument")
            if arg is not None and node_text(arg) == name:
                return True
        elif node.type == "binary_expression":
            op = node.child_by_field_name("operator")
            if op is not None and node_text(op) in ("+", "-") and any(
                    c is not None and c.type == "identifier" and node_text(c) == name
                    for c in (node.child_by_field_name("left"),
                              node.child_by_field_name("right"))):
                return True
    return False
