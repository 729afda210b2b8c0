"""Range sums: an innermost loop that adds up ``a[lo..hi]`` into an integer accumulator, re-run
for every iteration of the loops around it, over a container nothing in the nest changes.

``for (T k = lo; k <= hi; ++k) s += a[k];`` costs O(hi - lo) each time. With prefix sums
``P[0] = 0, P[k + 1] = P[k] + a[k]`` built once before the nest, the same sum is
``P[hi + 1] - P[lo]`` (``P[hi] - P[lo]`` for ``k < hi``), O(1). This module proves the
replacement exact:

- integers only: floating sums round differently in another order. ``P`` holds the unsigned
  type of the accumulator's width and each element is first converted to the accumulator's
  type, as ``s + a[k]`` does modulo 2^w; unsigned arithmetic wraps, so ``P[hi + 1] - P[lo]``
  is the range sum modulo 2^w and ``s`` gets it added modulo 2^w and converted back. That is
  the original's value whenever the original did not overflow (signed overflow is undefined
  there; unsigned accumulators wrap identically). Accumulators narrower than ``int`` are
  refused (the original narrows on every step);
- the loop declares its counter ``k`` in its header (so nothing reads it after), tests
  ``k <= hi`` or ``k < hi`` and steps by one; its body is exactly ``s += a[k]`` or
  ``s = s + a[k]``, the index possibly shifted (``k + c``, ``c + k``, ``k - c``: a sliding
  window), ``c`` held to the bounds' rules and free of products (``a[r * w + k]`` mostly
  steps by whole rows, already summed once each). The sums' indices are shifted alike,
  in the loop's own index types: exact whenever the original's indices were valid and
  ``a.size() + 1`` fits those types;
- ``lo`` and ``hi`` are names, literals, element reads, + - * and ``x.size()``: no effects,
  and neither mentions ``k``, ``s`` nor anything the inner loop writes;
- ``a`` is a ``vector``, ``array``, ``string`` or ``deque`` object (its length is
  ``size()``; raw pointers and arrays are refused) of an integer type; ``P`` is built just
  before the outermost enclosing loop in which nothing writes ``a``, no unknown function is
  called (``out.push_back(x)`` and the like on a non-static local sequence of numbers held by
  value change only ``out``, which ``a`` cannot be), and every variable written is a plain
  non-reference, non-pointer object (so no write can reach ``a``'s elements through an
  alias);
- ``a``, ``s`` and every variable written have one type in all their declarations (a
  shadowing declaration of another type might be the one at the loop); no pragma is bound to
  the summing loop (it would bind to the block replacing it);
- the counter keeps its type: the replacement declares ``const T k = lo`` and compares as the
  loop did, so an empty range stays empty.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

from perfpilot.code.container_changes import changes_only_its_own
from perfpilot.code.declarations import VarType
from perfpilot.code.facts import FunctionFacts, Loop
from perfpilot.code.loop_header import read_header
from perfpilot.code.syntax import (
    Node,
    declarator_name,
    node_text,
    receiver,
    statements,
    unwrap,
    walk,
)

# accumulators at least as wide as int (narrower ones narrow on every step)
_WIDE = frozenset({"int", "signed", "signed int", "unsigned", "unsigned int", "long",
                   "long int", "signed long", "unsigned long", "unsigned long int", "long long",
                   "long long int", "unsigned long long", "unsigned long long int",
                   "int32_t", "int64_t", "uint32_t", "uint64_t", "size_t", "ptrdiff_t",
                   "intptr_t", "uintptr_t", "std::int32_t", "std::int64_t",
                   "std::uint32_t", "std::uint64_t", "std::size_t", "std::ptrdiff_t"})
_ELEMENTS = _WIDE | frozenset({"short", "short int", "unsigned short", "signed short",
                               "char", "signed char", "unsigned char", "int8_t", "int16_t",
                               "uint8_t", "uint16_t"})
_CONTAINER = re.compile(r"^(?:std::)?(?:vector|array|deque)\s*<\s*([^,<>]+?)\s*(?:,[^<>]*)?>$")
_STRING = re.compile(r"^(?:std::)?string$")
# the expression kinds a bound may be built from (besides x.size())
_PLAIN = frozenset({"identifier", "number_literal", "binary_expression",
                    "parenthesized_expression", "field_expression", "field_identifier",
                    "argument_list", "call_expression", "subscript_expression",
                    "subscript_argument_list"})


@dataclass(frozen=True)
class RangeSum:
    """A proved range sum: the inner loop, the loop before which the prefix sums go, the
    array, the accumulator and its type, the counter's declaration text (type and name),
    the bounds' texts, whether the upper bound is inclusive (``<=``), and the shift ``c`` of
    the index with its sign (``a[k + c]``: ``c``, ``+``; ``a[k]``: ``""``)."""

    inner: Node
    top: Node
    array: str
    acc: str
    acc_type: str
    counter_type: str
    counter: str
    lo: str
    hi: str
    inclusive: bool
    shift: str = ""
    sign: str = "+"


def _norm(t: str) -> str:
    return " ".join(re.sub(r"\bconst\b", " ", t).split())


def _header(loop: Loop) -> tuple[str, str, Node, Node, bool] | str:
    """``(type, counter, lo, hi, inclusive)`` of ``for (T k = lo; k <= hi; ++k)``."""
    node = loop.node
    if node.type != "for_statement":
        return "not a counted for loop"
    h = read_header(node)
    init = h.initializer
    if init is None or not h.declared or h.condition is None or h.update is None:
        return "the loop does not declare its counter in its header"
    decls = [c for c in init.named_children if c.type == "init_declarator"]
    type_node = init.child_by_field_name("type")
    if len(decls) != 1 or type_node is None:
        return "the loop declares more than one counter"
    name, value = decls[0].child_by_field_name("declarator"), decls[0].child_by_field_name("value")
    if name is None or name.type != "identifier" or value is None:
        return "the counter is not a plain variable"
    k = node_text(name)
    right = h.bound
    if h.compare not in ("<", "<=") or h.flipped or right is None:
        return "the condition is not 'k <= hi' or 'k < hi'"
    if h.step_text != "++":
        return "the counter does not step by one"
    quals = " ".join(node_text(c) for c in init.children if c.type == "type_qualifier")
    return (" ".join(f"{quals} {node_text(type_node)}".split()), k, value, right,
            h.compare == "<=")


def _index_node(node: Node) -> Node | None:
    """The index expression of a subscript, parentheses dropped."""
    idx = node.child_by_field_name("indices") or node.child_by_field_name("index")
    if idx is not None and idx.type == "subscript_argument_list":
        kids = [c for c in idx.named_children if c.type != "comment"]
        idx = kids[0] if len(kids) == 1 else None
    return unwrap(idx) if idx is not None else None


def element_read(node: Node | None, k: str) -> tuple[str, Node | None, str] | None:
    """``(a, c, sign)`` when ``node`` is ``a[k]`` (``c`` None), ``a[k + c]``, ``a[c + k]``
    (sign ``+``) or ``a[k - c]`` (sign ``-``) with ``a`` a plain name."""
    node = unwrap(node) if node is not None else None
    if node is None or node.type != "subscript_expression":
        return None
    arg = node.child_by_field_name("argument")
    idx = _index_node(node)
    if arg is None or arg.type != "identifier" or idx is None:
        return None
    if idx.type == "identifier" and node_text(idx) == k:
        return node_text(arg), None, "+"
    if idx.type != "binary_expression":
        return None
    op = node_text(idx.child_by_field_name("operator") or idx)
    left, right = idx.child_by_field_name("left"), idx.child_by_field_name("right")
    if left is None or right is None:
        return None
    left, right = unwrap(left), unwrap(right)
    if op in ("+", "-") and left.type == "identifier" and node_text(left) == k:
        return node_text(arg), right, op
    if op == "+" and right.type == "identifier" and node_text(right) == k:
        return node_text(arg), left, op
    return None


def multiplies(shift: Node) -> bool:
    """Whether an index shift has a product: ``a[r * w + k]`` mostly steps by whole windows
    (a matrix's rows), so every element is summed once already and prefix sums would only
    add a pass."""
    return any(n.type == "binary_expression" and
               node_text(n.child_by_field_name("operator") or n) == "*" for n in walk(shift))


def _summand(body: Node | None, k: str) -> tuple[str, tuple[str, Node | None, str]] | str:
    """``(s, (a, c, sign))`` when the body is exactly ``s += a[k];`` or ``s = s + a[k];``
    (the index possibly shifted: ``k + c``, ``c + k``, ``k - c``)."""
    stmts = statements(body)
    if len(stmts) != 1 or stmts[0].type != "expression_statement" or \
            len(stmts[0].named_children) != 1:
        return "the loop body is not a single statement"
    e = unwrap(stmts[0].named_children[0])
    if e is None or e.type != "assignment_expression":
        return "the loop body is not an addition to an accumulator"
    left, right = e.child_by_field_name("left"), unwrap(e.child_by_field_name("right"))
    op = e.child_by_field_name("operator")
    if left is None or left.type != "identifier" or op is None or right is None:
        return "the loop body is not an addition to a variable"
    s = node_text(left)
    if node_text(op) == "+=":
        a = element_read(right, k)
    elif node_text(op) == "=" and right.type == "binary_expression" and \
            node_text(right.child_by_field_name("operator") or right) == "+" and \
            node_text(right.child_by_field_name("left") or right) == s:
        a = element_read(right.child_by_field_name("right"), k)
    else:
        return "the loop body is not 's += a[k]'"
    if a is None:
        return "the loop body does not add the element at the counter"
    return s, a


def _plain_bound(node: Node) -> bool:
    """Whether a bound is built only from names, literals, + - * and ``x.size()``."""
    for n in walk(node):
        if n.type not in _PLAIN and n.is_named:
            return False
        if n.type == "binary_expression" and \
                node_text(n.child_by_field_name("operator") or n) not in ("+", "-", "*"):
            return False
        if n.type == "call_expression":
            fn = n.child_by_field_name("function")
            args = n.child_by_field_name("arguments")
            if fn is None or fn.type != "field_expression" or args is None or \
                    args.named_child_count or \
                    node_text(fn.child_by_field_name("field") or fn) != "size" or \
                    (fn.child_by_field_name("argument") or fn).type != "identifier" or \
                    node_text(fn).count("->"):
                return False
    return True


def _names(node: Node) -> frozenset[str]:
    return frozenset(node_text(n) for n in walk(node) if n.type == "identifier")


def _one_type(facts: FunctionFacts, name: str) -> VarType | None:
    """The type of ``name`` when every declaration of it the function can see (parameter,
    local in any block, range-for variable, global) agrees: a name declared again with
    another type in some block might be either one at the loop."""
    seen = [v for v in facts.site.params if v.name == name]
    found: list[VarType] = [VarType(p.base, p.pointer, p.array, p.reference, p.const)
                            for p in seen]
    for d in facts.nodes("declaration"):
        found.extend(v for v in facts.local_vars(d) if v.name == name)
    for r in facts.nodes("for_range_loop"):
        if declarator_name(r.child_by_field_name("declarator")) == name:
            return None
    if name in facts.global_vars:
        found.append(facts.global_vars[name])
    vt = facts.var(name)
    if vt is None or any(v != vt for v in found):
        return None
    return vt


def _array_ok(facts: FunctionFacts, a: str) -> str | None:
    """Why ``a`` is not an integer container object with ``size()``, or None."""
    vt = _one_type(facts, a)
    if vt is None:
        return f"the type of '{a}' is unknown"
    if vt.pointer or vt.array:
        return f"'{a}' is a raw pointer or array: its length is not known"
    if "volatile" in vt.type_text.split():
        return f"'{a}' is volatile"
    base = _norm(vt.base)
    if _STRING.match(base):
        return None
    m = _CONTAINER.match(base)
    if m is None:
        return f"'{a}' is not a vector, array, string or deque"
    if _norm(m.group(1)) not in _ELEMENTS:
        return f"the elements of '{a}' are not integers"
    return None


def _acc_type(facts: FunctionFacts, s: str) -> str | None:
    """The accumulator's type when it is a plain integer at least as wide as ``int``."""
    vt = _one_type(facts, s)
    if vt is None or vt.pointer or vt.array or vt.reference or vt.scope == "global" or \
            "volatile" in vt.type_text.split():
        return None
    t = _norm(vt.base)
    return t if t in _WIDE else None


def _nest_leaves_alone(facts: FunctionFacts, top: Loop, a: str) -> bool:
    """Whether nothing in ``top`` can change ``a``: ``a`` is not written, no unknown function
    is called (``out.push_back(x)`` on a local sequence of numbers that is not ``a`` only
    changes ``out``), and every variable written is a plain object (no reference, no pointer)
    that cannot alias ``a``'s elements."""
    if a in facts.declared_in(top.node):
        return False
    a_type = _one_type(facts, a)
    if a_type is None:
        return False
    for call in facts.unknown_calls(top):
        obj = receiver(call)
        name = node_text(obj) if obj is not None else ""
        if not changes_only_its_own(call, a, a_type, {name: _one_type(facts, name)}):
            return False
    written = facts.modified_in(top.node)
    if a in written:
        return False
    for name in written:
        vt = _one_type(facts, name)
        if vt is None or vt.reference or vt.pointer or vt.scope == "global":
            return False
    return True


def _placement(facts: FunctionFacts, inner: Loop, a: str) -> Loop | None:
    """The outermost loop around ``inner`` that leaves ``a`` alone and has a statement slot
    right above it (in a block, no pragma bound to it)."""
    chain = facts.enclosing_loops(inner.node)
    outer_first = sorted((lp for lp in chain if lp.index != inner.index),
                         key=lambda lp: lp.depth)
    for lp in outer_first:
        parent = lp.node.parent
        prev = lp.node.prev_sibling
        if parent is None or parent.type != "compound_statement" or \
                (prev is not None and prev.type.startswith("preproc")):
            continue
        if _nest_leaves_alone(facts, lp, a):
            return lp
    return None


def range_sum_at(facts: FunctionFacts, inner: Loop) -> RangeSum | str:
    """The proved range sum of an innermost loop, or why it is not one."""
    if inner.parent is None:
        return "the loop is not inside another loop"
    prev = inner.node.prev_sibling
    if prev is not None and prev.type.startswith("preproc"):
        return "a preprocessor line (a pragma) is bound to the loop"
    head = _header(inner)
    if isinstance(head, str):
        return head
    ctype, k, lo, hi, inclusive = head
    found = _summand(inner.body, k)
    if isinstance(found, str):
        return found
    s, (a, shift, sign) = found
    if s == a:
        return "the accumulator is the array"
    why = _array_ok(facts, a)
    if why:
        return why
    acc = _acc_type(facts, s)
    if acc is None:
        return f"'{s}' is not a local integer at least as wide as int"
    for b in (lo, hi) if shift is None else (lo, hi, shift):
        if not _plain_bound(b):
            return "a bound or the index shift is not a side-effect-free expression"
        for n in walk(b):
            # a map's operator[] inserts: only arrays, pointers and sequences are read plainly
            arg = n.child_by_field_name("argument") if n.type == "subscript_expression" \
                else None
            if arg is not None and (arg.type != "identifier" or
                                    (vt := facts.var(node_text(arg))) is None or
                                    not vt.is_indexable):
                return "a bound reads an element of something other than an array"
        used = _names(b)
        if used & {k, s}:
            return "a bound or the index shift depends on the counter or the accumulator"
        if used & (facts.modified_in(inner.node) | facts.declared_in(inner.node)):
            return "a bound or the index shift is written inside the loop"
    if shift is not None and multiplies(shift):
        return "the index shift is a product: the windows likely do not overlap"
    top = _placement(facts, inner, a)
    if top is None:
        return f"'{a}' may change in every loop around the sum, or no slot to build the sums"
    return RangeSum(inner.node, top.node, a, s, acc, ctype, k, " ".join(node_text(lo).split()),
                    " ".join(node_text(hi).split()), inclusive,
                    " ".join(node_text(shift).split()) if shift is not None else "", sign)


def range_sums(facts: FunctionFacts) -> Iterator[tuple[Loop, RangeSum | str]]:
    """Every innermost counted loop nested in another, with its proof or why it fails."""
    for lp in facts.loops:
        if lp.innermost and lp.parent is not None and lp.kind == "for":
            yield lp, range_sum_at(facts, lp)
