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
from collections.abc import Iterator, Mapping
from dataclasses import dataclass

from perfpilot.code.declarations import VarType
from perfpilot.code.facts import FunctionFacts
from perfpilot.code.loop_header import read_header
from perfpilot.code.seen_list import normal_type
from perfpilot.code.syntax import (
    Node,
    node_text,
    statements,
    unwrap,
    walk,
)
from perfpilot.rules.finding import Proof

_CONTAINER = re.compile(r"^(?:std::)?(?:vector|array)\s*<\s*([^,<>]+?)\s*(?:,[^<>]*)?>$")
_SIGNED = frozenset({"short", "int", "long", "long long", "signed char", "int8_t", "int16_t",
                     "int32_t", "int64_t", "ptrdiff_t", "intptr_t", "ssize_t", "short int",
                     "signed short int", "long long int", "signed long int"})
_FLIP = {"<": ">", "<=": ">=", ">": "<", ">=": "<="}
_SIZE = re.compile(r"(?:\((?P<c1>[\w:]+)\)|static_cast<(?P<c2>[\w:]+)>)?"
                   r"(?P<open>\()?(?P<seq>\w+)\.size\(\)(?(open)\))")
_DECIMAL = re.compile(r"^\d+[lL]{0,2}$")


@dataclass(frozen=True)
class PairCount(Proof):
    """A proved pair count (the proof of a pair-count-sort finding): the outer loop, the
    sequence and its element type, whether it is a container object (``begin()``) or a
    pointer/array, the bound ``N``, the comparison as ``sum op limit`` (``==`` for equal
    elements, with no limit), the limit's text, the counter, and the ``if`` that counts."""

    loop: Node
    seq: str
    element: str
    container: bool
    bound: str
    op: str
    limit: str
    counter: str
    test: Node
    square: bool  # every ordered pair (j from 0, i == j left out): twice the triangle's count


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
    h = read_header(loop)
    init = h.initializer
    if init is None or not h.declared or h.condition is None or h.update is None:
        return "the loop does not declare its counter in its header"
    decls = [c for c in init.named_children if c.type == "init_declarator"]
    if len(decls) != 1 or len(init.named_children) != 2:
        return "the loop declares more than one counter"
    name, value = decls[0].child_by_field_name("declarator"), decls[0].child_by_field_name("value")
    type_node = init.child_by_field_name("type")
    if name is None or name.type != "identifier" or value is None or type_node is None or \
            not VarType(node_text(type_node)).is_integral:
        return "the counter is not a plain integer"
    var = node_text(name)
    if h.compare != "<" or h.flipped or h.bound is None:
        return "the loop's condition is not 'counter < bound'"
    if h.step_text != "++":
        return "the loop does not step its counter by one"
    return var, unwrap(value), " ".join(node_text(h.bound).split())


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
    if expr.type == "update_expression" and "++" in node_text(expr):
        target = expr.child_by_field_name("argument")
    elif expr.type == "assignment_expression":
        op, right = expr.child_by_field_name("operator"), expr.child_by_field_name("right")
        if op is not None and node_text(op) == "+=" and right is not None and \
                node_text(right) == "1":
            target = expr.child_by_field_name("left")
    if target is None or target.type != "identifier":
        return None
    return node_text(target)


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
    if len(inner) != 1 or inner[0].type != "identifier" or node_text(inner[0]) != index:
        return None
    return node_text(arg)


def _pair_sum(node: Node, i: str, j: str) -> str | None:
    """``S`` when ``node`` is ``S[i] + S[j]`` or ``S[j] + S[i]``."""
    node = unwrap(node) or node
    op = node.child_by_field_name("operator")
    if node.type != "binary_expression" or op is None or node_text(op) != "+":
        return None
    left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
    for a, b in ((i, j), (j, i)):
        s, t = _element_at(left, a), _element_at(right, b)
        if s is not None and s == t:
            return s
    return None


def _limit_ok(node: Node, types: Mapping[str, VarType | None]) -> bool:
    node = unwrap(node) or node
    if node.type == "unary_expression" and node_text(node).startswith("-"):
        arg = node.child_by_field_name("argument")
        return arg is not None and _limit_ok(arg, types)
    if node.type == "number_literal":
        return bool(_DECIMAL.match(node_text(node)))
    if node.type != "identifier":
        return False
    vt = types.get(node_text(node))
    return vt is not None and not vt.pointer and not vt.array and not vt.reference and \
        "volatile" not in vt.type_text.split() and signed_integer(vt.base)


def pair_counts(facts: FunctionFacts) -> Iterator[tuple[int, PairCount | str]]:
    """Each outer loop of a two-deep nest (its index in ``facts.loops``) with its proof as a
    pair count, or why it is not one."""
    if facts.language != "cpp" or facts.body is None:
        return
    for lp in facts.loops:
        kids = facts.children_of(lp)
        if lp.node.type != "for_statement" or len(kids) != 1 or facts.children_of(kids[0]):
            continue
        yield lp.index, pair_count(lp.node, facts.body, facts.loop_types)


def pair_count(loop: Node, fn: Node, types: Mapping[str, VarType | None]) -> PairCount | str:
    """The loop as a proved pair count, or why it is not one."""
    if loop.type != "for_statement":
        return "not a counted for loop"
    outer = _header(loop, types)
    if isinstance(outer, str):
        return outer
    i, start, bound = outer
    if node_text(start) != "0":
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
    if node_text(jstart) == "0":
        square = True  # every ordered pair: the condition must leave out i == j
    elif _is_next(jstart, i):
        square = False
    else:
        return "the inner loop starts neither right after the outer counter (i + 1) nor at 0"
    inner_body = statements(inner_loop.child_by_field_name("body"))
    if len(inner_body) != 1 or inner_body[0].type != "if_statement" or \
            inner_body[0].child_by_field_name("alternative") is not None:
        return "the inner body is not a single 'if' without 'else'"
    test = inner_body[0]
    counter = _increments(test.child_by_field_name("consequence") or test, types)
    if counter is None:
        return "the branch does more than add one to a counter"
    cond = unwrap(test.child_by_field_name("condition"))
    if cond is None:
        return "the 'if' has no plain condition"
    if square:
        cond = _without_same_position(cond, i, j)
        if cond is None:
            return "the inner loop starts at 0 and the condition does not leave out i == j"
    op_node = cond.child_by_field_name("operator")
    left, right = cond.child_by_field_name("left"), cond.child_by_field_name("right")
    if cond.type != "binary_expression" or op_node is None or left is None or right is None:
        return "the condition is not a comparison"
    op = node_text(op_node)
    if op == "==":
        seq = _element_at(left, i)
        if seq is None or _element_at(right, j) != seq:
            seq = _element_at(left, j)
            if seq is None or _element_at(right, i) != seq:
                return "the condition does not compare the two elements"
        found = _element(types.get(seq))
        if found is None or not VarType(found[0]).is_integral:
            return f"'{seq}' is not a sequence of an integer type"
        return _finish(loop, fn, types, seq, found, bound, op, "", counter, test,
                       square, {i, j, seq, bound})
    if op not in _FLIP:
        return "the condition is not an ordering comparison or an equality"
    seq = _pair_sum(left, i, j)
    limit = right
    if seq is None:
        seq, limit, op = _pair_sum(right, i, j), left, _FLIP[op]
    if seq is None:
        return "the condition does not compare the sum of the two elements"
    if node_text(unwrap(limit) or limit) in (i, j):
        return "the limit is a loop counter, not loop-invariant"
    if not _limit_ok(limit, types):
        return "the limit is not a literal or a signed integer variable held by value"
    found = _element(types.get(seq))
    if found is None or not signed_integer(found[0]):
        return f"'{seq}' is not a sequence of a signed integer type"
    limit_text = " ".join(node_text(limit).split())
    return _finish(loop, fn, types, seq, found, bound, op, limit_text, counter, test,
                   square, {i, j, seq, bound, limit_text})


def _finish(loop: Node, fn: Node, types: Mapping[str, VarType | None], seq: str,
            found: tuple[str, bool], bound: str, op: str, limit: str, counter: str,
            test: Node, square: bool, read: set[str]) -> PairCount | str:
    """The checks of the bound and the counter, common to both forms."""
    element, container = found
    if not _size_of(bound, seq):
        bvt = types.get(bound)
        if bvt is None or not bvt.is_integral or bvt.reference or \
                "volatile" in bvt.type_text.split():
            return "the bound is neither the sequence's size() nor an integer variable"
    cvt = types.get(counter)
    if cvt is None or cvt.scope != "local" or not cvt.is_integral or cvt.reference or \
            "volatile" in cvt.type_text.split() or normal_type(cvt.base) == "bool":
        return f"'{counter}' is not a plain local integer"
    if counter in read:
        return f"the counter '{counter}' is read inside the loops"
    uses = [n for n in walk(loop) if n.type == "identifier" and node_text(n) == counter]
    if len(uses) != 1:
        return f"the counter '{counter}' is used elsewhere inside the loops"
    for n in walk(fn):
        if n.type == "pointer_expression" and node_text(n).replace(" ", "").startswith("&") and \
                node_text(n.child_by_field_name("argument") or n) == counter:
            return f"the address of '{counter}' is taken"
    return PairCount(loop, seq, element, container, bound, op, limit, counter, test, square)


def _size_of(bound: str, seq: str) -> bool:
    """Whether ``bound`` is ``seq.size()``, or that cast to an integer type."""
    m = _SIZE.fullmatch(bound.replace(" ", ""))
    if m is None or m.group("seq") != seq:
        return False
    cast = m.group("c1") or m.group("c2")
    return cast is None or VarType(cast.replace("long", " long ").strip()).is_integral


def _is_next(node: Node, i: str) -> bool:
    """Whether ``node`` is ``i + 1`` or ``1 + i``."""
    op = node.child_by_field_name("operator")
    parts = [node.child_by_field_name("left"), node.child_by_field_name("right")]
    return node.type == "binary_expression" and op is not None and node_text(op) == "+" and \
        sorted(node_text(c) for c in parts if c is not None) == sorted([i, "1"])


def _without_same_position(cond: Node, i: str, j: str) -> Node | None:
    """``rest`` when ``cond`` is ``i != j && rest`` (or ``j != i``): ``&&`` stops before
    ``rest`` exactly on the pairs of one position."""
    op = cond.child_by_field_name("operator")
    left, right = cond.child_by_field_name("left"), cond.child_by_field_name("right")
    if cond.type != "binary_expression" or op is None or node_text(op) != "&&" or left is None or \
            right is None:
        return None
    left = unwrap(left) or left
    lop = left.child_by_field_name("operator")
    ends = sorted(node_text(c) for c in (left.child_by_field_name("left"),
                                    left.child_by_field_name("right")) if c is not None)
    if left.type != "binary_expression" or lop is None or node_text(lop) != "!=" or \
            ends != sorted([i, j]):
        return None
    return unwrap(right)
