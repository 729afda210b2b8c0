"""Three-way comparators of ``qsort``: which order over plain values one defines, if any.

A comparator ``int cmp(const void* p, const void* q)`` reads one element through each pointer
(``*(const T*)p``, ``static_cast<const T*>(p)[0]``, a local pointer or value bound to them) and
returns a sign. It is proved to sort ascending (or descending) when its body is built only from
comparisons between the two elements, integer literals, ``+``/``-`` of those, ``?:``, ``!``,
``&&``, ``||``, ``if``/``else`` and ``return``, or returns exactly the difference of the two
elements. Such a body's result depends only on whether the first element is less than, equal
to or greater than the second, so running it once for each of the three cases decides the
order it defines.
"""

from __future__ import annotations

from dataclasses import dataclass

from perfpilot.code.syntax import (
    Node,
    int_literal,
    node_text,
    operator,
    statements,
)

# elements whose difference fits an int (they promote to int): `return a - b` is exact for them
# (and for int itself whenever the original does not overflow, which would be undefined)
SUBTRACTABLE = frozenset({"int", "signed", "signed int", "short", "short int", "signed short",
                          "unsigned short", "unsigned short int", "char", "signed char",
                          "unsigned char", "bool"})


@dataclass(frozen=True)
class Comparator:
    """The order a comparator defines over elements of type ``element`` (normalised text)."""

    element: str
    descending: bool
    subtracts: bool  # it returns the difference of the elements


class _Refused(Exception):
    pass


def type_words(t: str) -> str:
    """A type's text without ``const``/``volatile`` and with single spaces."""
    return " ".join(w for w in t.replace("*", " * ").split() if w not in ("const", "volatile"))


class _Eval:
    """Runs a comparator body for one case of (first, second) element values."""

    def __init__(self, params: tuple[str, str]) -> None:
        self.params = params
        self.types: set[str] = set()
        self.subtracts = False

    def run(self, body: Node, a: int, b: int) -> int:
        self.values = {"A": a, "B": b}
        self.env: dict[str, tuple[str, str]] = {}  # name -> ("val" | "ptr", "A" | "B")
        out = self._block(statements(body))
        if out is None:
            raise _Refused
        return out

    def _block(self, stmts: list[Node]) -> int | None:
        for s in stmts:
            if s.type == "declaration":
                self._declare(s)
            elif s.type == "return_statement":
                value = s.named_children[0] if s.named_children else None
                if value is None:
                    raise _Refused
                return self._returned(value)
            elif s.type == "if_statement":
                cond = s.child_by_field_name("condition")
                taken = s.child_by_field_name("consequence")
                if self._expr(cond) == 0:
                    alt = s.child_by_field_name("alternative")
                    taken = alt.named_children[0] if alt is not None and \
                        alt.type == "else_clause" and alt.named_children else alt
                if taken is not None:
                    out = self._block(statements(taken))
                    if out is not None:
                        return out
            elif s.type == "compound_statement":
                out = self._block(statements(s))
                if out is not None:
                    return out
            else:
                raise _Refused
        return None

    def _declare(self, d: Node) -> None:
        t = type_words(node_text(d.child_by_field_name("type")))
        for init in d.children_by_field_name("declarator"):
            if init.type != "init_declarator":
                raise _Refused
            decl, value = init.child_by_field_name("declarator"), init.child_by_field_name("value")
            if decl is None or value is None:
                raise _Refused
            if decl.type == "pointer_declarator" and decl.named_children and \
                    decl.named_children[-1].type == "identifier":
                side = self._pointer(value)
                if side is None or (t != "auto" and t not in self.types):
                    raise _Refused
                self.env[node_text(decl.named_children[-1])] = ("ptr", side)
            elif decl.type == "identifier":
                side = self._key(value)
                if side is not None and (t == "auto" or t in self.types):
                    self.env[node_text(decl)] = ("val", side)
                elif side is None and t == "auto" and self._pointer(value) is not None:
                    self.env[node_text(decl)] = ("ptr", self._pointer(value) or "")
                else:
                    raise _Refused
            else:
                raise _Refused

    def _pointer(self, n: Node | None) -> str | None:
        """'A' or 'B' when ``n`` is a typed pointer to the first or second element."""
        while n is not None and n.type == "parenthesized_expression" and n.named_children:
            n = n.named_children[0]
        if n is None:
            return None
        if n.type == "identifier":
            bound = self.env.get(node_text(n))
            return bound[1] if bound is not None and bound[0] == "ptr" else None
        target: Node | None = None
        type_text = ""
        if n.type == "cast_expression":
            type_text = node_text(n.child_by_field_name("type"))
            target = n.child_by_field_name("value")
        elif n.type == "call_expression":
            fn = n.child_by_field_name("function")
            args = n.child_by_field_name("arguments")
            if fn is None or fn.type != "template_function" or \
                    node_text(fn.child_by_field_name("name")) not in ("static_cast",
                                                                   "reinterpret_cast") or \
                    args is None or len(args.named_children) != 1:
                return None
            type_text = node_text(fn.child_by_field_name("arguments")).strip("<> ")
            target = args.named_children[0]
        if target is None or target.type != "identifier" or node_text(target) not in self.params:
            return None
        words = type_words(type_text)
        if not words.endswith(" *") or words.count("*") != 1:
            return None
        self.types.add(words[:-2])
        if len(self.types) != 1:
            raise _Refused
        return "A" if node_text(target) == self.params[0] else "B"

    def _key(self, n: Node | None) -> str | None:
        """'A' or 'B' when ``n`` reads the first or second element."""
        while n is not None and n.type == "parenthesized_expression" and n.named_children:
            n = n.named_children[0]
        if n is None:
            return None
        if n.type == "identifier":
            bound = self.env.get(node_text(n))
            return bound[1] if bound is not None and bound[0] == "val" else None
        if n.type == "pointer_expression" and operator(n) == "*":
            return self._pointer(n.child_by_field_name("argument"))
        if n.type == "subscript_expression":
            idx = n.child_by_field_name("indices") or n.child_by_field_name("index")
            inner = idx.named_children[0] if idx is not None and idx.named_children else idx
            if inner is not None and int_literal(inner) == 0:
                return self._pointer(n.child_by_field_name("argument"))
        return None

    def _returned(self, value: Node) -> int:
        while value.type == "parenthesized_expression" and value.named_children:
            value = value.named_children[0]
        if value.type == "binary_expression" and operator(value) == "-":
            left = self._key(value.child_by_field_name("left"))
            right = self._key(value.child_by_field_name("right"))
            if left is not None and right is not None and left != right:
                self.subtracts = True
                return self.values[left] - self.values[right]
        return self._expr(value)

    def _expr(self, n: Node | None) -> int:
        while n is not None and n.type in ("parenthesized_expression", "condition_clause") \
                and n.named_children:
            n = n.named_children[-1] if n.type == "condition_clause" else n.named_children[0]
        if n is None:
            raise _Refused
        if n.type == "number_literal":
            v = int_literal(n)
            if v is None:
                raise _Refused
            return v
        if n.type in ("true", "false"):
            return int(n.type == "true")
        if n.type == "unary_expression":
            op, arg = operator(n), self._expr(n.child_by_field_name("argument"))
            if op == "-":
                return -arg
            if op == "!":
                return int(not arg)
            raise _Refused
        if n.type == "conditional_expression":
            cond = self._expr(n.child_by_field_name("condition"))
            return self._expr(n.child_by_field_name("consequence") if cond else
                              n.child_by_field_name("alternative"))
        if n.type == "binary_expression":
            op = operator(n)
            left, right = n.child_by_field_name("left"), n.child_by_field_name("right")
            if op in ("<", "<=", ">", ">=", "==", "!="):
                ka, kb = self._key(left), self._key(right)
                if ka is None or kb is None or ka == kb:
                    raise _Refused
                x, y = self.values[ka], self.values[kb]
                return int({"<": x < y, "<=": x <= y, ">": x > y, ">=": x >= y,
                            "==": x == y, "!=": x != y}[op])
            if op in ("+", "-", "&&", "||"):
                x, y = self._expr(left), self._expr(right)
                return {"+": x + y, "-": x - y, "&&": int(bool(x and y)),
                        "||": int(bool(x or y))}[op]
        raise _Refused


def _params(params: Node | None) -> tuple[str, str] | None:
    if params is None:
        return None
    decls = [p for p in params.named_children if p.type == "parameter_declaration"]
    if len(decls) != 2 or len(params.named_children) != 2:
        return None
    names: list[str] = []
    for p in decls:
        d = p.child_by_field_name("declarator")
        if type_words(node_text(p.child_by_field_name("type"))) != "void" or d is None or \
                d.type != "pointer_declarator" or not d.named_children or \
                d.named_children[-1].type != "identifier":
            return None
        names.append(node_text(d.named_children[-1]))
    return (names[0], names[1]) if names[0] != names[1] else None


def comparator(params: Node | None, body: Node) -> Comparator | None:
    """The order the comparator with ``params`` and ``body`` defines, or None when it is not
    provably a strict three-way comparison of the two elements by value."""
    names = _params(params)
    if names is None:
        return None
    ev = _Eval(names)
    try:
        signs = [ev.run(body, a, b) for a, b in ((1, 2), (2, 2), (3, 2))]
    except (_Refused, KeyError):
        return None
    if len(ev.types) != 1 or signs[1] != 0:
        return None
    if signs[0] < 0 < signs[2]:
        return Comparator(next(iter(ev.types)), False, ev.subtracts)
    if signs[0] > 0 > signs[2]:
        return Comparator(next(iter(ev.types)), True, ev.subtracts)
    return None
