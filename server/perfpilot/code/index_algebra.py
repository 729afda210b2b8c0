"""Index expressions as integer polynomials, the ranges counted loops give their counters, and a
test that an expression is never negative.

An index such as ``i * n + j - 1`` becomes a polynomial over atoms (variables, and ``x.size()``
/ ``x.length()`` calls); anything else (a subscript, another call, division) has no form and
the questions asked of it answer no. Inside the body of a counted ``for`` loop whose counter and
bound variables the body never writes, the counter lies between its bounds (``k + 1 <= i <=
n - 1``); ``ranges_at`` collects those facts for the loops around a node, and ``nonnegative``
proves ``e >= 0`` by replacing atoms with the bound that makes ``e`` smallest, a few steps
deep. Index arithmetic is taken not to overflow, as the compiler takes it for signed counters.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass

import tree_sitter

from perfpilot.code.declarations import VarType
from perfpilot.code.effects import ELEMENT_COUNT_METHODS, NO_SIDE_EFFECTS
from perfpilot.code.loop_header import counted_header
from perfpilot.code.syntax import (
    mutations,
    node_text,
    unwrap,
    walk,
)

Node = tree_sitter.Node

Monomial = tuple[str, ...]  # sorted atom names; () is the constant term


@dataclass(frozen=True)
class Poly:
    """A polynomial with integer coefficients: sorted ``(monomial, coefficient)`` pairs, none
    zero."""

    terms: tuple[tuple[Monomial, int], ...] = ()

    @staticmethod
    def of(terms: Mapping[Monomial, int]) -> Poly:
        return Poly(tuple(sorted((m, c) for m, c in terms.items() if c)))

    @staticmethod
    def const(value: int) -> Poly:
        return Poly.of({(): value})

    @staticmethod
    def atom(name: str) -> Poly:
        return Poly.of({(name,): 1})

    def mapping(self) -> dict[Monomial, int]:
        return dict(self.terms)

    def __add__(self, other: Poly) -> Poly:
        out = self.mapping()
        for m, c in other.terms:
            out[m] = out.get(m, 0) + c
        return Poly.of(out)

    def __sub__(self, other: Poly) -> Poly:
        return self + other.scale(-1)

    def __mul__(self, other: Poly) -> Poly:
        out: dict[Monomial, int] = {}
        for m1, c1 in self.terms:
            for m2, c2 in other.terms:
                m = tuple(sorted(m1 + m2))
                out[m] = out.get(m, 0) + c1 * c2
        return Poly.of(out)

    def scale(self, k: int) -> Poly:
        return Poly.of({m: c * k for m, c in self.terms})

    def atoms(self) -> frozenset[str]:
        return frozenset(a for m, _ in self.terms for a in m)

    def constant(self) -> int | None:
        """The value when the polynomial has no atom, else None."""
        if all(not m for m, _ in self.terms):
            return sum(c for _, c in self.terms)
        return None

    def coefficient(self, name: str) -> int:
        """The coefficient of ``name`` alone (degree one)."""
        return self.mapping().get((name,), 0)

    def without(self, name: str) -> Poly:
        """The terms that do not mention ``name``."""
        return Poly.of({m: c for m, c in self.terms if name not in m})

    def substitute(self, name: str, value: Poly) -> Poly:
        """``name`` replaced by ``value`` (only where it occurs to the first degree)."""
        out = Poly()
        for m, c in self.terms:
            if name in m:
                rest = tuple(a for a in m if a != name)
                out = out + Poly.of({rest: c}) * value
            else:
                out = out + Poly.of({m: c})
        return out


# ---------------------------------------------------------------------------------------------
# parsing

_INT_TYPES = frozenset({"int", "long", "short", "unsigned", "signed", "size_t", "std::size_t",
                        "ptrdiff_t", "std::ptrdiff_t", "int64_t", "std::int64_t", "int32_t",
                        "std::int32_t", "uint64_t", "std::uint64_t", "uint32_t",
                        "std::uint32_t", "ssize_t"})
_TOKEN = re.compile(r"\s*(?:(?P<num>0[xX][0-9a-fA-F]+|\d+)[uUlL]*(?![\w.])"
                    r"|(?P<id>[A-Za-z_]\w*(?:::[A-Za-z_]\w*)*)|(?P<op>->|[-+*()<>.]))")


def _tokens(text: str) -> list[str] | None:
    out: list[str] = []
    pos = 0
    text = text.rstrip()
    while pos < len(text):
        m = _TOKEN.match(text, pos)
        if m is None or m.end() == pos:
            return None
        out.append(m.group("num") or m.group("id") or m.group("op") or "")
        pos = m.end()
    return out


class _Parser:
    """Recursive descent over ``+ - *``, parentheses, integer casts, literals and atoms."""

    def __init__(self, tokens: list[str]) -> None:
        self.t = tokens
        self.i = 0

    def peek(self, k: int = 0) -> str:
        return self.t[self.i + k] if self.i + k < len(self.t) else ""

    def take(self, tok: str) -> bool:
        if self.peek() == tok:
            self.i += 1
            return True
        return False

    def expr(self) -> Poly | None:
        p = self.term()
        while p is not None and self.peek() in ("+", "-"):
            sign = 1 if self.t[self.i] == "+" else -1
            self.i += 1
            q = self.term()
            p = None if q is None else p + q.scale(sign)
        return p

    def term(self) -> Poly | None:
        p = self.unary()
        while p is not None and self.take("*"):
            q = self.unary()
            p = None if q is None else p * q
        return p

    def _cast_end(self) -> int:
        """The index past ``(T)`` when an integer type in parentheses starts here, else 0."""
        j = self.i + 1
        while j < len(self.t) and self.t[j] in _INT_TYPES:
            j += 1
        return j + 1 if j > self.i + 1 and j < len(self.t) and self.t[j] == ")" else 0

    def unary(self) -> Poly | None:
        if self.take("-"):
            p = self.unary()
            return None if p is None else p.scale(-1)
        if self.take("+"):
            return self.unary()
        if self.peek() == "(":
            end = self._cast_end()
            if end:
                self.i = end
                return self.unary()
            self.i += 1
            p = self.expr()
            return p if self.take(")") else None
        if self.peek() in ("static_cast", "std::static_cast") and self.peek(1) == "<":
            self.i += 2
            while self.peek() in _INT_TYPES:
                self.i += 1
            if not (self.take(">") and self.take("(")):
                return None
            p = self.expr()
            return p if self.take(")") else None
        return self.primary()

    def primary(self) -> Poly | None:
        tok = self.peek()
        if not tok:
            return None
        if tok[0].isdigit():
            self.i += 1
            return Poly.const(int(tok, 0))
        if not (tok[0].isalpha() or tok[0] == "_") or tok in _INT_TYPES:
            return None
        self.i += 1
        if self.peek() in (".", "->"):
            if self.peek(1) in ELEMENT_COUNT_METHODS and self.peek(2) == "(" and \
                    self.peek(3) == ")":
                name = f"{tok}{self.peek()}{self.peek(1)}()"
                self.i += 4
                return Poly.atom(name)
            return None
        if self.peek() == "(":
            return None  # a call
        return Poly.atom(tok)


def poly_of(text: str) -> Poly | None:
    """The polynomial an index or bound expression denotes, or None when it has none."""
    toks = _tokens(text)
    if not toks:
        return None
    parser = _Parser(toks)
    p = parser.expr()
    return p if p is not None and parser.i == len(toks) else None


def atom_root(atom: str) -> str:
    """The variable an atom reads: ``v`` for ``v.size()``."""
    return re.split(r"\.|->", atom, maxsplit=1)[0]


# ---------------------------------------------------------------------------------------------
# ranges


@dataclass(frozen=True)
class Range:
    """``low <= counter <= high`` (both inclusive)."""

    low: Poly
    high: Poly


def header_range(lower: str, upper: str, op: str, step: int) -> Range | None:
    """The values a counted loop's counter takes inside its body, from its header texts."""
    lo, up = poly_of(lower), poly_of(upper)
    if lo is None or up is None:
        return None
    one = Poly.const(1)
    if step > 0 and op in ("<", "<="):
        return Range(lo, up - one if op == "<" else up)
    if step < 0 and op in (">", ">="):
        return Range(up + one if op == ">" else up, lo)
    return None


_DECLARING = frozenset({"init_declarator", "declaration", "pointer_declarator",
                        "reference_declarator", "array_declarator", "parameter_declaration",
                        "optional_parameter_declaration", "for_range_loop"})


def _by_value_call(args: Node) -> bool:
    """Whether the call owning ``args`` is a standard function with no side effects (it takes
    its arguments by value)."""
    call = args.parent
    fn = call.child_by_field_name("function") if call is not None else None
    name = node_text(fn).rsplit("::", 1)[-1] if fn is not None else ""
    return call is not None and call.type == "call_expression" and name in NO_SIDE_EFFECTS


def _stable(body: Node, names: frozenset[str]) -> bool:
    """No name is assigned, incremented, has its address taken, is passed to a function that
    might take it by reference or is declared again in ``body``; a container whose size is read
    is used there only for elements and sizes."""
    roots = {atom_root(a) for a in names}
    for _, target in mutations(body):
        t = unwrap(target)
        if node_text(t) in roots:
            return False
    for n in walk(body):
        if n.type != "identifier" or node_text(n) not in roots:
            continue
        p = n.parent
        if p is not None and p.type == "argument_list" and not _by_value_call(p):
            return False  # a callee may take it by reference
        if p is not None and p.type in _DECLARING and (
                p.child_by_field_name("declarator") == n or p.type == "reference_declarator"):
            return False
        sized = any(atom_root(a) != a and atom_root(a) == node_text(n) for a in names)
        if sized and (p is None or not (
                (p.type == "subscript_expression" and p.child_by_field_name("argument") == n)
                or (p.type == "field_expression"
                    and node_text(p.child_by_field_name("field") or p) in ELEMENT_COUNT_METHODS))):
            return False
    return True


def loop_range(loop: Node, types: Mapping[str, VarType | None]) -> tuple[str, Range] | None:
    """The counter of a counted ``for`` loop and the range it keeps in the loop's body: none
    when the body may change the counter or a variable of its bounds."""
    h = counted_header(loop, dict(types))
    body = loop.child_by_field_name("body")
    if isinstance(h, str) or body is None:
        return None
    r = header_range(h.lower, h.upper, h.op, h.step)
    if r is None or not _stable(body, frozenset({h.var}) | r.low.atoms() | r.high.atoms()):
        return None
    return h.var, r


def ranges_at(node: Node, types: Mapping[str, VarType | None]) -> dict[str, Range]:
    """The ranges of the counters of the counted loops whose bodies hold ``node``, innermost
    first (an inner counter of the same name hides an outer one)."""
    out: dict[str, Range] = {}
    child, cur = node, node.parent
    while cur is not None and cur.type not in ("function_definition", "lambda_expression"):
        if cur.type == "for_statement" and cur.child_by_field_name("body") == child:
            found = loop_range(cur, types)
            if found is not None and found[0] not in out:
                out[found[0]] = found[1]
        child, cur = cur, cur.parent
    return out


# ---------------------------------------------------------------------------------------------
# proofs

_DEPTH = 6


def nonnegative(p: Poly, ranges: Mapping[str, Range], depth: int = _DEPTH) -> bool:
    """Whether ``p >= 0`` follows from ``ranges``: each step replaces one atom that occurs
    only to the first degree by its lower bound (positive coefficient) or its upper bound
    (negative), which can only make ``p`` smaller."""
    value = p.constant()
    if value is not None:
        return value >= 0
    if depth == 0:
        return False
    linear = {a for a in p.atoms() if a in ranges and
              all(m == (a,) for m, _ in p.terms if a in m)}
    for a in sorted(linear):
        r = ranges[a]
        if a in r.low.atoms() | r.high.atoms():
            continue
        bound = r.low if p.coefficient(a) > 0 else r.high
        if nonnegative(p.substitute(a, bound), ranges, depth - 1):
            return True
    return False


def within(p: Poly, size: Poly, ranges: Mapping[str, Range]) -> bool:
    """Whether ``0 <= p <= size - 1`` follows from ``ranges``."""
    return nonnegative(p, ranges) and nonnegative(size - Poly.const(1) - p, ranges)
