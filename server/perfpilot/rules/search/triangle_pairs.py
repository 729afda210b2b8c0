"""Existence tests over the pairs ``i < j`` of one integer sequence that leave at the first hit:

    for (i = 0; i < n; ++i) for (j = i + 1; j < n; ++j) if (a[i] == a[j]) return C;
    for (i = 0; i < n; ++i) for (j = i + 1; j < n; ++j) if (a[i] + a[j] == t) return C;

The loops only read, so they either return the constant ``C`` (some pair matches) or fall
through. Equal pairs: one pass inserting into an ``std::unordered_set`` returns at the first
value seen before, which exists exactly when two elements are equal; it stops no later than
the original (whose first hit ``i`` precedes that repeat), so inputs full of repeats, where the
original returns at once, stay fast (a sorted copy would sort the whole input first). Sums:
two pointers from both ends of a sorted copy find two distinct positions whose sum is ``t``
exactly when such a pair exists, in O(n log n).

Overflow: the original adds only the pairs it reaches before the first hit, the two-pointer
walk adds others, so the candidate must not overflow where the original did not. It adds in
``long long``, which holds the sum of any two values of a type no wider than ``int``; wider
elements (``long``) and ``unsigned int`` (whose sums wrap, so the sorted order says nothing
about them) are refused, and ``t`` must be a signed type no wider than ``long long`` so the
original's comparison is one of exact values whenever its own sum did not overflow.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from perfpilot.code.declarations import VarType
from perfpilot.code.sequence_scan import (
    SequenceScan,
    index_head,
    norm_type,
    sequence_element,
    single_statement,
)
from perfpilot.code.syntax import (
    Node,
    node_text,
    unwrap,
)

# element types whose pair sums fit in long long and compare as exact values
SUM_ELEMENTS = frozenset({"int", "signed", "signed int", "short", "short int", "signed short",
                          "unsigned short", "char", "signed char", "unsigned char"})
# types of the target whose conversion in the comparison keeps its value
SUM_TARGETS = frozenset({"int", "long", "long long", "short", "signed char", "long int",
                         "long long int"})
_RETURN = re.compile(r"return (true|false|-?\d+) ?;")


@dataclass(frozen=True)
class TrianglePairs(SequenceScan):
    """A proved pair-existence loop: the sequence, its element type and how to copy it."""

    target: str  # "" for the duplicate test, else the sum looked for
    returned: str  # the constant returned on a hit


def _element_at(node: Node | None, var: str) -> str:
    """``a`` when ``node`` is ``a[var]``."""
    m = re.fullmatch(rf"([A-Za-z_]\w*)\[{var}\]", "".join(node_text(node).split())) \
        if node is not None else None
    return m.group(1) if m else ""


def _is_triangle(i: str, start: str, bound: str, jstart: str, jbound: str) -> bool:
    """``i`` from 0 and ``j`` from ``i + 1``, both to the same bound: every pair once."""
    return start == "0" and jbound == bound and "".join(jstart.split()) in (f"{i}+1", f"1+{i}")


def _target_ok(node: Node, i: str, j: str) -> bool:
    """The sum looked for is a literal or a variable that is not an index (the loops write
    nothing, so it is the same for every pair)."""
    return node.type in ("identifier", "number_literal") and node_text(node) not in (i, j)


def triangle_pairs(loop: Node, types: dict[str, VarType | None]) -> tuple[TrianglePairs | None,
                                                                          str]:
    """The proved pair test ``loop`` is, else why not ("" when it has no such shape)."""
    outer = index_head(loop)
    inner_loop = single_statement(loop.child_by_field_name("body"))
    inner = index_head(inner_loop) if inner_loop is not None else None
    if outer is None or inner is None or inner_loop is None:
        return None, ""
    i, start, bound = outer
    j, jstart, jbound = inner
    if not _is_triangle(i, start, bound, jstart, jbound):
        return None, ""
    test = single_statement(inner_loop.child_by_field_name("body"))
    if test is None or test.type != "if_statement" or \
            test.child_by_field_name("alternative") is not None:
        return None, ""
    then = single_statement(test.child_by_field_name("consequence"))
    cond = unwrap(test.child_by_field_name("condition"))
    if then is None or cond is None or cond.type != "binary_expression" or \
            node_text(cond.child_by_field_name("operator") or cond) != "==":
        return None, ""
    ret = _RETURN.fullmatch(" ".join(node_text(then).split()))
    left, right = cond.child_by_field_name("left"), cond.child_by_field_name("right")
    seq, target = "", ""
    li, lj = _element_at(left, i), _element_at(left, j)
    ri, rj = _element_at(right, i), _element_at(right, j)
    if (li and li == rj) or (lj and lj == ri):
        seq = li or lj
    else:
        for s, other in ((left, right), (right, left)):
            if s is None or other is None or s.type != "binary_expression" or \
                    node_text(s.child_by_field_name("operator") or s) != "+":
                continue
            x, y = s.child_by_field_name("left"), s.child_by_field_name("right")
            pairs = ((_element_at(x, i), _element_at(y, j)), (_element_at(x, j),
                                                              _element_at(y, i)))
            names = [p for p, q in pairs if p and p == q]
            if names and _target_ok(other, i, j):
                seq, target = names[0], node_text(other)
                break
    if not seq:
        return None, ""
    if ret is None:
        return None, "the loop returns something other than a constant on a hit"
    if "".join(bound.split()) == f"{seq}.size()":
        elem, count = sequence_element(types.get(seq), pointer_ok=False), ""
    elif re.fullmatch(r"[A-Za-z_]\w*", bound) and (bt := types.get(bound)) is not None and \
            bt.is_integral:
        elem, count = sequence_element(types.get(seq), pointer_ok=True), bound
        vt = types.get(seq)
        if vt is None or not (vt.pointer or vt.array):
            elem = ""
    else:
        return None, "the loops do not cover the whole sequence"
    if not elem:
        return None, f"'{seq}' is not a sequence of integers"
    if target:
        tt = "int" if re.fullmatch(r"-?\d+", target) else \
            (norm_type(t.base) if (t := types.get(target)) is not None and not t.pointer and
             not t.array else "")
        if elem not in SUM_ELEMENTS:
            return None, (f"the sum of two '{elem}' values could overflow on pairs the "
                          "original never adds, or wraps")
        if tt not in SUM_TARGETS:
            return None, f"the sum is compared with '{target}', not a signed integer"
    return TrianglePairs(loop, seq, elem, count, target, ret.group(1)), ""


def replacement(p: TrianglePairs, fresh: dict[str, str]) -> str:
    """The block replacing the loop; ``fresh`` maps ``s``, ``lo``, ``hi``, ``sum``, ``v`` to
    unused names."""
    s, lo, hi, total, v = (fresh[k] for k in ("s", "lo", "hi", "sum", "v"))
    if not p.target:
        # one pass that stops at the first repeat: never later than the original's answer
        walk = f"for (const auto& {v} : {p.seq})" if not p.bound else \
            f"for (auto {v} = {p.seq}; {v} < {p.seq} + {p.clamped_count()}; ++{v})"
        value = v if not p.bound else f"*{v}"
        return (f"{{ std::unordered_set<{p.elem}> {s}; {walk} "
                f"if (!{s}.insert({value}).second) return {p.returned}; }}")
    copy = f"std::vector<{p.elem}> {s}({p.seq}.begin(), {p.seq}.end());" if not p.bound else \
        f"std::vector<{p.elem}> {s}({p.seq}, {p.seq} + {p.clamped_count()});"
    return (
        f"{{ {copy} std::sort({s}.begin(), {s}.end()); "
        f"std::size_t {lo} = 0, {hi} = {s}.size(); "
        f"while ({lo} + 1 < {hi}) {{ long long {total} = (long long){s}[{lo}] + {s}[{hi} - 1]; "
        f"if ({total} == {p.target}) return {p.returned}; "
        f"if ({total} < {p.target}) ++{lo}; else --{hi}; }} }}")
