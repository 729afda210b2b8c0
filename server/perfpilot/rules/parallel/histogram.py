"""Histograms: a counted loop whose only dependence is adding into elements of a local integer
array or vector at computed positions (``h[key(x)] += c``, ``++h[...]``).

Every thread can count into its own zeroed copy and the copies be added into the original after
the loop: integer addition is associative and commutative (wrapping alike in any order), so the
result is exactly the serial one. Floating sums are left out: their order changes the result.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

import tree_sitter

from perfpilot.code.declarations import VarType
from perfpilot.code.dependence import check_independent, occurrences
from perfpilot.code.syntax import (
    node_text,
    unwrap,
    walk,
)

Node = tree_sitter.Node

_VECTOR = re.compile(r"^(?:std::)?vector\s*<\s*([^<>,]+?)\s*>$")
_STD_ARRAY = re.compile(r"^(?:std::)?array\s*<\s*([^<>,]+?)\s*,\s*[^<>,]+>$")
_ADDS = frozenset({"+=", "-=", "++", "--"})


@dataclass(frozen=True)
class HistogramLoop:
    """A loop's histograms, with the scalar reductions and private variables the rest of its
    body needs (as for any independent loop)."""

    histograms: tuple[Histogram, ...]
    reductions: tuple[tuple[str, str], ...]
    private_vars: tuple[str, ...]


@dataclass(frozen=True)
class Histogram:
    """One array a loop counts into: its name, element type, whether it is a C array (else a
    ``std::vector``/``std::array``), and the byte ranges of its names in the loop."""

    array: str
    element: str
    c_array: bool
    uses: tuple[tuple[int, int], ...]
    length: int | None = None  # a C array's declared length, when it is a literal


def element_type(vt: VarType | None) -> tuple[str, bool] | None:
    """The integer element type of a local, non-reference one-dimensional array or vector
    (and whether it is a C array), else None."""
    if vt is None or vt.reference or vt.pointer or vt.scope != "local":
        return None
    base = re.sub(r"\s+", " ", vt.base.replace("const", "")).strip()
    if vt.array:
        if "][" in vt.type_text.replace(" ", ""):
            return None
        elem, c_array = base, True
    else:
        m = _VECTOR.match(base) or _STD_ARRAY.match(base)
        if m is None:
            return None
        elem, c_array = m.group(1).strip(), False
    if not VarType(base=elem).is_integral or elem in ("char", "signed char"):
        return None
    return elem, c_array


def declared_length(loop: Node, name: str) -> int | None:
    """The literal length of the C array ``name`` declared in the function around ``loop``."""
    fn = loop.parent
    while fn is not None and fn.type != "function_definition":
        fn = fn.parent
    lengths = set()
    for n in walk(fn if fn is not None else loop):
        if n.type != "array_declarator":
            continue
        inner, size = n.child_by_field_name("declarator"), n.child_by_field_name("size")
        if inner is not None and inner.type == "identifier" and node_text(inner) == name:
            text = node_text(size) if size is not None else ""
            lengths.add(int(text) if text.isdigit() else -1)
    return lengths.pop() if len(lengths) == 1 and -1 not in lengths else None


def _update_of(name_node: Node) -> Node | None:
    """The statement-level ``name[i] += c`` / ``++name[i]`` whose array is ``name_node``."""
    sub = name_node.parent
    if sub is None or sub.type != "subscript_expression" or \
            sub.child_by_field_name("argument") != name_node:
        return None
    up = sub.parent
    while up is not None and up.type == "parenthesized_expression":
        up = up.parent
    if up is None:
        return None
    if up.type == "assignment_expression":
        left = up.child_by_field_name("left")
        op = up.child_by_field_name("operator")
        if left is None or unwrap(left) != sub or op is None or node_text(op) not in _ADDS:
            return None
    elif up.type == "update_expression":
        ops = [node_text(c) for c in up.children if not c.is_named]
        if not ops or ops[0] not in _ADDS:
            return None
    else:
        return None
    stmt = up.parent
    return up if stmt is not None and stmt.type == "expression_statement" else None


def histograms(loop: Node, body: Node, var: str, types: dict[str, VarType | None],
               bound_vars: set[str], pure: Callable[[str], bool] | None
               ) -> HistogramLoop | str:
    """The histograms of a counted loop over ``var`` that is independent once each of them is
    counted per thread, or why not."""
    candidates: dict[str, tuple[str, bool]] = {}
    for n in walk(body):
        if n.type == "identifier" and _update_of(n) is not None:
            name = node_text(n)
            typed = element_type(types.get(name))
            if typed is not None and name not in bound_vars:
                candidates[name] = typed
    if not candidates:
        return "no integer array local to the function is counted into"
    found: list[Histogram] = []
    for name, (elem, c_array) in sorted(candidates.items()):
        occ = occurrences(body, name)
        if not occ or any(_update_of(o) is None for o in occ):
            return f"'{name}' is also read or used otherwise in the loop"
        found.append(Histogram(name, elem, c_array,
                               tuple((o.start_byte, o.end_byte) for o in occ),
                               declared_length(loop, name) if c_array else None))
    ok, reason, reductions, private, _locals = check_independent(
        loop, body, (var,), types, bound_vars, frozenset(), frozenset(), pure,
        frozenset(h.array for h in found))
    if not ok:
        return reason
    return HistogramLoop(tuple(found), reductions, private)
