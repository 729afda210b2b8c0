"""Pair counts: a triangle of loops over one integer sequence that counts the pairs whose sum
compares with a fixed limit.

``for (i = 0; i < n; ++i) for (j = i + 1; j < n; ++j) if (v[i] + v[j] < limit) ++c;`` tests
all n·(n-1)/2 pairs of positions. The count depends only on the multiset of values, so it can
be taken over a sorted copy, where for each lower position the partners that pass form a run
next to it (``<``, ``<=``) or at the top (``>``, ``>=``): two pointers walk the copy once, in
O(n log n) for the sort. This module proves the loop is such a count:

- the outer loop is ``for (T i = 0; i < N; ++i)`` and the inner ``for (U j = i + 1; j < N;
  ++j)`` (``i++``, ``i += 1`` too), both counters declared in their headers with integer types,
  the one bound ``N`` being ``v.size()`` or an integer variable (no reference);
- the outer body is the inner loop alone, the inner body one ``if`` without ``else`` whose
  branch only adds one to the counter (``++c``, ``c++``, ``c += 1``);
- the condition is ``v[i] + v[j] OP limit`` (or ``v[j] + v[i]``, or mirrored, ``limit OP
  ...``) with ``OP`` one of ``<``, ``<=``, ``>``, ``>=``: nothing in it can have an effect;
- ``v`` is a pointer, array, ``std::vector`` or ``std::array`` of a signed integer type: a
  sorted order of floating values is broken by NaN, and an unsigned sum wraps, which breaks
  the monotonicity the two pointers rely on (so does comparing a signed sum with an unsigned
  limit); ``limit`` is a literal or a signed integer variable that is no reference;
- the counter is a plain local integer (no reference, pointer, ``volatile``, address taken)
  mentioned nowhere else in the loops, so the only write of the loops is to storage nothing
  else in them reads: ``v``, ``N`` and ``limit`` keep their values throughout.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass

from perfpilot.code.declarations import VarType
from perfpilot.code.parse import statements, unparen, unwrap, walk_all
from perfpilot.code.seen_list import normal_type
from perfpilot.code.syntax import Node, text

_CONTAINER = re.compile(r"^(?:std::)?(?:vector|array)\s*<\s*([^,<>]+?)\s*(?:,[^<>]*)?>$")
_SIGNED = frozenset({"short", "int", "long", "long long", "signed char", "int8_t", "int16_t",
                     "int32_t", "int64_t", "ptrdiff_t", "intptr_t", "ssize_t", "short int",
                     "signed short int", "long long int", "signed long int"})
_FLIP = {"<": ">", "<=": ">=", ">": "<", ">=": "<="}
_DECIMAL = re.compile(r"^\d+[lL]{0,2}$")


@dataclass(frozen=True)
class PairCount:
    """A proved pair count: the outer loop, the sequence and its element type, whether it is
    a container object (``begin()``) or a pointer/array, the bound ``N``, the comparison as
    ``sum op limit``, the limit's text, the counter, and the ``if`` that counts."""

    loop: Node
    seq: str
    element: str
    container: bool
    bound: str
    op: str
    limit: str
    counter: str
    test: Node


def signed_integer(t: str) -> bool:
    """Whether a type spelling names a signed integer type (``char`` is excluded: its
    signedness is the platform's choice)."""
    return normal_type(t) in _SIGNED


def _element(vt: VarType | None) -> tuple[str, bool] | None:
    """The element type of a sequence variable and whether it is a container object."""
    if vt is None or "volatile" in vt.type_text.split():
        return None
    if (vt.pointer == 1 and not vt.array) or (vt.array and not vt.pointer):
        return normal_type(vt.base), False
    m = _CONTAINER.match(vt.base.strip())
    if m and not vt.pointer and not vt.array:
        return normal_type(m.group(1)), True
    return None


def _header(loop: Node, types: Mapping[str, VarType | None]) -> tuple[str, Node, str] | str:
    """``(counter, start expression, bound text)`` of ``for (T i = start; i < N; step)``."""
    init, cond, update = (loop.child_by_field_name(f)
                          for f in ("initializer", "condition", "update"))
    if init is None or init.type != "declaration" or cond is None or update is None:
        return "the loop does not declare its counter in its header"
    decls = [c for c in init.named_children if c.type == "init_declarator"]
    if len(decls) != 1 or len(init.named_children) != 2:
        return "the loop declares more than one counter"
    name, value = decls[0].child_by_field_name("declarator"), decls[0].child_by_field_name("value")
    type_node = init.child_by_field_name("type")
    if name is None or name.type != "identifier" or value is None or type_node is None or \
            not VarType(text(type_node)).is_integral:
        return "the counter is not a plain integer"
    var = text(name)
    cond = unparen(cond)
    left, right = cond.child_by_field_name("left"), cond.child_by_field_name("right")
    op = cond.child_by_field_name("operator")
    if cond.type != "binary_expression" or op is None or text(op) != "<" or left is None or \
            right is None or text(left) != var:
        return "the loop's condition is not 'counter < bound'"
    if not _steps_by_one(update, var):
        return "the loop does not step its counter by one"
    return var, unwrap(value) or value, " ".join(text(right).split())


def _steps_by_one(update: Node, var: str) -> bool:
    if update.type == "update_expression":
        arg = update.child_by_field_name("argument")
        return arg is not None and text(arg) == var and "++" in text(update)
    if update.type == "assignment_expression":
        left, right = update.child_by_field_name("left"), update.child_by_field_name("right")
        op = update.child_by_field_name("operator")
        return left is not None and text(left) == var and op is not None and \
            text(op) == "+=" and right is not None and text(right) == "1"
    return False


def _increments(stmt: Node, counter_of: Mapping[str, VarType | None]) -> str | None:
    """The variable a statement adds one to (``++c;``, ``c++;``, ``c += 1;``), if that is
    all it does."""
    body = statements(stmt)
    if len(body) != 1 or body[0].type != "expression_statement" or \
            len(body[0].named_children) != 1:
        return None
    expr = unwrap(body[0].named_children[0])
    if expr is None:
        return None
    target: Node | None = None
    if expr.type == "update_expression" and "++" in text(expr):
        target = expr.child_by_field_name("argument")
    elif expr.type == "assignment_expression":
        op, right = expr.child_by_field_name("operator"), expr.child_by_field_name("right")
        if op is not None and text(op) == "+=" and right is not None and text(right) == "1":
            target = expr.child_by_field_name("left")
    if target is None or target.type != "identifier":
        return None
    return text(target)


def _element_at(node: Node | None, index: str) -> str | None:
    """``S`` when ``node`` is ``S[index]`` with ``S`` a plain name."""
    node = unwrap(node) if node is not None else None
    if node is None or node.type != "subscript_expression":
        return None
    arg, idx = node.child_by_field_name("argument"), node.child_by_field_name("indices")
    if arg is None or arg.type != "identifier" or idx is None:
        return None
    inner = [c for c in idx.named_children if c.type != "comment"] \
        if idx.type == "subscript_argument_list" else [idx]
    if len(inner) != 1 or inner[0].type != "identifier" or text(inner[0]) != index:
        return None
    return text(arg)


def _pair_sum(node: Node, i: str, j: str) -> str | None:
    """``S`` when ``node`` is ``S[i] + S[j]`` or ``S[j] + S[i]``."""
    node = unwrap(node) or node
    op = node.child_by_field_name("operator")
    if node.type != "binary_expression" or op is None or text(op) != "+":
        return None
    left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
    for a, b in ((i, j), (j, i)):
        s, t = _element_at(left, a), _element_at(right, b)
        if s is not None and s == t:
            return s
    return None


def _limit_ok(node: Node, types: Mapping[str, VarType | None]) -> bool:
    node = unwrap(node) or node
    if node.type == "unary_expression" and text(node).startswith("-"):
        arg = node.child_by_field_name("argument")
        return arg is not None and _limit_ok(arg, types)
    if node.type == "number_literal":
        return bool(_DECIMAL.match(text(node)))
    if node.type != "identifier":
        return False
    vt = types.get(text(node))
    return vt is not None and not vt.pointer and not vt.array and not vt.reference and \
        "volatile" not in vt.type_text.split() and signed_integer(vt.base)


def pair_count(loop: Node, fn: Node, types: Mapping[str, VarType | None]) -> PairCount | str:
    """The loop as a proved pair count, or why it is not one."""
    if loop.type != "for_statement":
        return "not a counted for loop"
    outer = _header(loop, types)
    if isinstance(outer, str):
        return outer
    i, start, bound = outer
    if text(start) != "0":
        return "the outer loop does not start at 0"
    body = statements(loop.child_by_field_name("body"))
    if len(body) != 1 or body[0].type != "for_statement":
        return "the outer loop's body is not one inner loop"
    inner_loop = body[0]
    inner = _header(inner_loop, types)
    if isinstance(inner, str):
        return inner
    j, jstart, jbound = inner
    if j == i or jbound != bound:
        return "the two loops do not share one bound"
    start_ok = jstart.type == "binary_expression" and \
        text(jstart.child_by_field_name("operator") or jstart) == "+" and \
        sorted(text(c) for c in (jstart.child_by_field_name("left"),
                                 jstart.child_by_field_name("right")) if c is not None) == \
        sorted([i, "1"])
    if not start_ok:
        return "the inner loop does not start right after the outer counter (i + 1)"
    inner_body = statements(inner_loop.child_by_field_name("body"))
    if len(inner_body) != 1 or inner_body[0].type != "if_statement" or \
            inner_body[0].child_by_field_name("alternative") is not None:
        return "the inner body is not a single 'if' without 'else'"
    test = inner_body[0]
    counter = _increments(test.child_by_field_name("consequence") or test, types)
    if counter is None:
        return "the branch does more than add one to a counter"
    cond = unwrap(test.child_by_field_name("condition"))
    op_node = cond.child_by_field_name("operator") if cond is not None else None
    if cond is None or cond.type != "binary_expression" or op_node is None or \
            text(op_node) not in _FLIP:
        return "the condition is not an ordering comparison"
    op = text(op_node)
    left, right = cond.child_by_field_name("left"), cond.child_by_field_name("right")
    if left is None or right is None:
        return "the condition is not an ordering comparison"
    seq = _pair_sum(left, i, j)
    limit = right
    if seq is None:
        seq, limit, op = _pair_sum(right, i, j), left, _FLIP[op]
    if seq is None:
        return "the condition does not compare the sum of the two elements"
    if not _limit_ok(limit, types):
        return "the limit is not a literal or a signed integer variable held by value"
    found = _element(types.get(seq))
    if found is None or not signed_integer(found[0]):
        return f"'{seq}' is not a sequence of a signed integer type"
    element, container = found
    if bound != f"{seq}.size()" and bound != f"{seq}.size ()":
        bvt = types.get(bound)
        if bvt is None or not bvt.is_integral or bvt.reference or \
                "volatile" in bvt.type_text.split():
            return "the bound is neither the sequence's size() nor an integer variable"
    cvt = types.get(counter)
    if cvt is None or cvt.scope != "local" or not cvt.is_integral or cvt.reference or \
            "volatile" in cvt.type_text.split() or normal_type(cvt.base) == "bool":
        return f"'{counter}' is not a plain local integer"
    names = {i, j, seq, bound, text(unwrap(limit) or limit)}
    if counter in names:
        return f"the counter '{counter}' is read inside the loops"
    uses = [n for n in walk_all(loop) if n.type == "identifier" and text(n) == counter]
    if len(uses) != 1:
        return f"the counter '{counter}' is used elsewhere inside the loops"
    for n in walk_all(fn):
        if n.type == "pointer_expression" and text(n).replace(" ", "").startswith("&") and \
                text(n.child_by_field_name("argument") or n) == counter:
            return f"the address of '{counter}' is taken"
    return PairCount(loop, seq, element, container, bound, op,
                     " ".join(text(limit).split()), counter, test)
