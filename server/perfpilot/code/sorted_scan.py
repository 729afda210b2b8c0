"""Linear scans of a container that a sort left in order.

A loop over all of ``v`` (``for (x : v)``, or an index from 0 to ``v.size()``) whose whole body
counts the elements with ``x OP q`` (``OP`` one of ``< <= > >= == !=``, ``q`` unchanged by the
loop), or stops at the first element with ``x OP q``, answers a question a binary search
answers, when ``v`` is proved sorted by that point: a ``std::sort`` over all of ``v`` (natural
order, ``std::less`` or ``std::greater``) in the same function, in the same block as the loop or
an enclosing one and before it, with nothing on the way able to change ``v`` (``code/
sorted_ranges.py`` classifies every mention of ``v``; any loop around the scan that does not
also hold the sort must leave ``v`` alone too). Elements and ``q`` must be integers, and the
comparison must not convert signed elements to unsigned (which would break their order);
floating values are refused (a NaN is ordered with nothing).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, replace

from perfpilot.code.declarations import VarType
from perfpilot.code.dependence import used_after
from perfpilot.code.facts import FunctionFacts, Loop
from perfpilot.code.sorted_ranges import (
    ESCAPE,
    ITERATE,
    READ,
    SIZE,
    Mentions,
    SortCall,
    Use,
    container_type,
    element_type,
    flat,
    is_size_of,
    jumps_in,
    later_in_block,
    plain_local,
    small,
    sort_calls,
    sorts_anything,
)
from perfpilot.code.syntax import (
    LOOP_TYPES,
    Node,
    arguments,
    callee,
    declarator_name,
    node_text,
    operator,
    receiver,
    statements,
    unwrap,
    walk,
)

FLIP = {"<": ">", "<=": ">=", ">": "<", ">=": "<=", "==": "==", "!=": "!="}
_NARROW = frozenset({"char", "signed char", "unsigned char", "short", "short int",
                     "signed short", "unsigned short", "unsigned short int", "int8_t", "int16_t",
                     "uint8_t", "uint16_t"})
_SIGNED = frozenset({"int", "signed", "signed int", "long", "long int", "signed long",
                     "long long", "long long int", "signed long long", "int32_t", "int64_t",
                     "ptrdiff_t", "ssize_t", "intptr_t"})
_UNSIGNED = frozenset({"unsigned", "unsigned int", "unsigned long", "unsigned long int",
                       "long unsigned", "long unsigned int", "unsigned long long",
                       "unsigned long long int", "size_t", "uint32_t", "uint64_t",
                       "uintptr_t"})
_QUERY_NODES = frozenset({"identifier", "number_literal", "char_literal", "subscript_expression",
                          "subscript_argument_list", "parenthesized_expression",
                          "unary_expression", "cast_expression", "type_descriptor",
                          "primitive_type", "sized_type_specifier", "call_expression",
                          "template_function", "template_argument_list", "escape_sequence",
                          "character", "type_identifier", "string_literal",
                          "string_content"})


@dataclass(frozen=True)
class SortedScan:
    """A linear scan of a sorted container that a binary search can replace.

    ``op`` is the test with the element on the left (``x < q``); ``form`` is ``count`` (the
    body adds one to ``target`` for each match, or subtracts: ``sign``) or ``first`` (the body
    runs ``branch`` for the first match and leaves the loop). A counted loop names its
    ``index`` (its type, and whether the header declares it); a range-for its element
    declaration (``const auto& x``) and name.
    """

    loop: Loop
    sort: SortCall
    var: str
    op: str
    query: Node
    form: str
    target: Node | None = None
    sign: str = "+"
    index: str = ""
    index_type: str = ""
    index_declared: bool = True
    element_decl: str = ""
    element_name: str = ""
    branch: tuple[Node, ...] = ()
    exit: str = ""  # first: "break" or "return"


@dataclass(frozen=True)
class Refusal:
    """A scan of a sorted container that stays linear, and why."""

    loop: Loop
    var: str
    why: str


def is_string(t: str) -> bool:
    """Whether a type as written is ``std::string`` (qualifiers and references aside)."""
    return type_words(t) in ("string", "basic_string<char>")


def type_words(t: str) -> str:
    """A type without qualifiers, ``std::`` and extra spaces."""
    t = re.sub(r"\b(const|volatile|static|constexpr|register)\b|&|std::", " ", t)
    return " ".join(t.split())


def signed_after_promotion(t: str) -> bool | None:
    """Whether an integer type is signed once promoted (None: not a known integer type)."""
    w = type_words(t)
    if w in _NARROW:
        return True
    if w in _SIGNED:
        return True
    return False if w in _UNSIGNED else None


def value_var(facts: FunctionFacts, name: str) -> VarType | None:
    """The declared type of a variable; for ``auto`` declared by the one range-for over a
    standard container that declares the name, its element type."""
    vt = facts.var(name)
    if vt is None or type_words(vt.base) != "auto":
        return vt
    loops = [r for r in facts.nodes("for_range_loop")
             if declarator_name(r.child_by_field_name("declarator")) == name]
    right = loops[0].child_by_field_name("right") if len(loops) == 1 else None
    if right is None or right.type != "identifier" or \
            any(declarator_name(c) == name for d in facts.nodes("declaration")
                for c in d.children_by_field_name("declarator")):
        return None
    container = container_type(facts, node_text(right))
    return container.element if container is not None else None


def literal_type(node: Node) -> str | None:
    if node.type == "char_literal":
        return "char"
    raw = node_text(node).replace("'", "").lower()
    m = re.fullmatch(r"(0x[0-9a-f]+|0b[01]+|[0-9]+)(u?)(l{0,2})(u?)", raw)
    if m is None:
        return None
    unsigned = bool(m.group(2) or m.group(4))
    longs = len(m.group(3))
    value = int(m.group(1), 0)
    if not unsigned and longs == 0:
        return "int" if value <= 2**31 - 1 else None
    return ("unsigned " if unsigned else "") + ("long " * longs + "int" if longs else "int")


class SortedAnalysis:
    """What one function does with the containers it sorts: the facts a scan of a sorted
    container (a loop here, a standard algorithm call in ``code/sorted_calls.py``) needs."""

    def __init__(self, facts: FunctionFacts, unit: Node) -> None:
        self.facts = facts
        self.mentions = Mentions(facts, unit)
        self.own = self.mentions.own
        self._elements: dict[str, str | None] = {}
        self._sorts: list[SortCall] | None = None
        self._problems: dict[tuple[int, bool], str] = {}

    def uses(self, var: str) -> list[Use]:
        return self.mentions.of(var)

    def element_of(self, var: str) -> str | None:
        if var not in self._elements:
            vt = container_type(self.facts, var)
            self._elements[var] = element_type(vt) if vt is not None else None
        return self._elements[var]

    # --- the container -----------------------------------------------------------------
    def container_problem(self, s: SortCall, strings: bool = False,
                          tolerated: frozenset[int] = frozenset()) -> str:
        """Why the sorted container's contents cannot be followed ('' when they can).
        ``strings``: ``std::string`` elements are fine too; ``tolerated``: the start bytes of
        mentions whose escape the caller has proved harmless."""
        key = (s.statement.start_byte, strings)
        if key not in self._problems:
            self._problems[key] = self._container_problem(s, strings)
        why = self._problems[key]
        if why:
            return why
        if any(u.kind == ESCAPE and u.ident.start_byte not in tolerated
               for u in self.uses(s.var)):
            return (f"'{s.var}' may be reached through a pointer, reference, iterator or call "
                    "that the analysis does not follow")
        return ""

    def _container_problem(self, s: SortCall, strings: bool) -> str:
        vt = container_type(self.facts, s.var)
        if vt is None or vt.scope not in ("local", "param") or \
                re.search(r"\bstatic\b", vt.type_text) or \
                (vt.reference and vt.scope != "param"):
            return f"'{s.var}' is not a local container or a parameter"
        if not self.mentions.declared_once(s.var):
            return f"the name '{s.var}' is declared more than once"
        el = self.element_of(s.var) or ""
        if strings and is_string(el):
            return ""
        if not VarType(el).is_integral:
            return (f"the elements of '{s.var}' are not integers"
                    f"{' or strings' if strings else ''} (for floating values a NaN is "
                    "ordered with nothing, so a binary search may answer differently)")
        return ""

    # --- which container a loop walks, and the sort that orders it ------------------------
    def scanned(self, lp: Loop) -> str | None:
        """The container a loop walks from end to end, by element or by index."""
        if lp.kind == "range-for":
            right = lp.node.child_by_field_name("right")
            return node_text(right) if right is not None and right.type == "identifier" else None
        if lp.kind != "for" or lp.var is None or lp.bound is None or \
                lp.compare not in ("<", "!=") or lp.step != "++" or \
                lp.init is None or flat(lp.init) != "0":
            return None
        for call in walk(lp.bound, named=True):
            if call.type == "call_expression" and callee(call) == "size":
                r = receiver(call)
                if r is not None and r.type == "identifier" and is_size_of(lp.bound, node_text(r)):
                    return node_text(r)
        bound = unwrap(lp.bound)
        if bound.type == "identifier":
            # ``n`` declared as ``v.size()``: the container is the one whose element the body
            # reads with the index
            for sub in walk(lp.node, named=True):
                if sub.type == "subscript_expression":
                    arg = sub.child_by_field_name("argument")
                    if arg is not None and arg.type == "identifier" and \
                            self.size_alias_ok(node_text(bound), node_text(arg)):
                        return node_text(arg)
        return None

    def size_alias_ok(self, name: str, var: str) -> bool:
        return self.mentions.size_alias(name, var) is not None

    def sort_before(self, node: Node, var: str) -> SortCall | None:
        """The last sort of ``var`` that every path to ``node`` runs through."""
        if self._sorts is None:
            self._sorts = sort_calls(self.facts, self.own, self.element_of, ranges=True)
        found = [s for s in self._sorts
                 if s.var == var and later_in_block(s.statement, node)]
        return max(found, key=lambda s: s.statement.start_byte) if found else None

    # --- the path from the sort to the scan ------------------------------------------------
    def zone(self, s: SortCall, node: Node, end: int | None = None) -> list[tuple[int, int]]:
        """Byte spans that may run between the sort and the scan ``node``: the straight
        stretch (up to ``end`` when code after the scan may run before it, as in one
        full-expression), and every loop around the scan that the sort is not in (its later
        statements run again before the scan)."""
        spans = [(s.statement.end_byte, node.start_byte if end is None else end)]
        spans.extend(outer.byte_range for outer in self.facts.enclosing_loops(node)
                     if outer.node.start_byte >= s.statement.end_byte)
        return spans

    def zone_problem(self, s: SortCall, node: Node, end: int | None = None,
                     tolerated: frozenset[int] = frozenset()) -> str:
        """Why the container may change between the sort and the scan ``node`` ('' when it
        cannot); mentions inside ``node`` are the scan's own, those in ``tolerated`` proved
        harmless."""
        spans = self.zone(s, node, end)
        own = (node.start_byte, node.end_byte)
        for u in self.uses(s.var):
            at = u.ident.start_byte
            if u.kind not in (SIZE, READ, ITERATE) and at not in tolerated and \
                    not own[0] <= at < own[1] and any(a <= at < b for a, b in spans):
                return f"'{s.var}' may change between the sort and the "\
                    f"{'loop' if node.type in LOOP_TYPES else 'call'}"
        vt = self.facts.var(s.var)
        if vt is not None and vt.scope == "param":
            why = self.mentions.alias_problem(spans, strict=bool(vt.reference), exclude=own)
            if why:
                return f"'{s.var}' is a parameter and {why}"
        return ""

    def _plain_local(self, name: str | None) -> bool:
        return plain_local(self.facts, name)

    # --- the loop's shape ------------------------------------------------------------------
    def match(self, lp: Loop, s: SortCall) -> SortedScan | str | None:
        """The loop as a count or first-match scan of the sorted container, a reason it cannot
        be replaced, or None when it is not such a scan at all."""
        stmts = statements(lp.body)
        if len(stmts) != 1:
            return None
        v = s.var
        if lp.kind == "range-for":
            decl = lp.node.child_by_field_name("declarator")
            name = declarator_name(decl)
            if name is None:
                return None
            loop_names = {name}

            def element(n: Node) -> bool:
                return n.type == "identifier" and node_text(n) == name
        else:
            assert lp.var is not None
            index = lp.var
            loop_names = {index}

            def element(n: Node) -> bool:
                return n.type == "subscript_expression" and flat(n) == f"{v}[{index}]"

        stmt = stmts[0]
        count = count_statement(stmt)
        first = None if count is not None else _first_statement(stmt, lp.node)
        if count is None and first is None:
            return None
        cond = count[2] if count is not None else first[0] if first is not None else None
        test = match_test(cond, element, loop_names)
        if test is None:
            return None
        op, query = test
        why = self.container_problem(s) or self._element_problem(lp, s) or \
            self.query_problem(query, self.facts.modified_in(lp.node) |
                               self.facts.declared_in(lp.node), s, loop_names)
        if why:
            return why
        if count is not None:
            target, sign, _cond = count
            why = self._target_problem(target, lp, s, query) or \
                self._index_only_in_element(stmt, lp, v)
            if why:
                return why
            if lp.kind == "for" and not self._index_declared(lp) and \
                    used_after(lp.node, lp.var or ""):
                return f"the index '{lp.var}' is used after the loop"
            found = SortedScan(lp, s, v, op, query, "count", target=target, sign=sign)
        else:
            assert first is not None
            _cond, branch, exit_kind = first
            if not branch and (lp.kind == "range-for" or self._index_declared(lp)):
                return None  # a loop that finds and then forgets: no effect to keep
            if op == "!=":
                return "the first element that differs is not a single binary search"
            found = SortedScan(lp, s, v, op, query, "first", branch=branch, exit=exit_kind)
        if lp.kind == "range-for":
            decl = lp.node.child_by_field_name("declarator")
            type_node = lp.node.child_by_field_name("type")
            quals = " ".join(node_text(c) for c in lp.node.children if c.type == "type_qualifier")
            declared = " ".join(f"{quals} {node_text(type_node)} {node_text(decl)}".split())
            found = replace(found, element_decl=re.sub(r" (&&?) ", r"\1 ", declared),
                element_name=next(iter(loop_names)))
        else:
            index_type = self._index_type(lp)
            if index_type is None:
                return f"the index '{lp.var}' is not of a plain integer type"
            found = replace(found, index=lp.var or "", index_type=index_type,
                            index_declared=self._index_declared(lp))
        why = self.zone_problem(s, lp.node)
        return why or found

    def _element_problem(self, lp: Loop, s: SortCall) -> str:
        if lp.kind != "range-for":
            return ""
        type_node = lp.node.child_by_field_name("type")
        declared = type_words(node_text(type_node))
        if declared in ("auto", type_words(self.element_of(s.var) or "")):
            return ""
        return f"the loop converts the elements of '{s.var}' to '{declared}'"

    def query_problem(self, query: Node, writes: frozenset[str], s: SortCall,
                      names: set[str], where: str = "the loop") -> str:
        """Why ``query`` is not a plain value, unchanged by ``where`` (which may write the
        names ``writes``, and binds ``names``), and compared as the elements are compared (''
        when it is). A reference in it may be an alias of what is written, if anything is."""
        f = self.facts
        changed = writes | names
        if not small(query):
            return f"the value '{node_text(query)}' is not a plain value"
        for n in walk(query, named=True):
            if n.type not in _QUERY_NODES:
                return f"the value '{node_text(query)}' is not a plain value"
            if n.type == "call_expression" and \
                    not flat(n.child_by_field_name("function")).startswith("static_cast<"):
                return f"the value '{node_text(query)}' calls a function"
            if n.type == "unary_expression" and operator(n) not in ("-", "+"):
                return f"the value '{node_text(query)}' is not a plain value"
            if n.type == "identifier" and n.parent is not None and \
                    n.parent.type != "template_function":
                name = node_text(n)
                vt = f.var(name)
                if name in changed:
                    return f"{where} changes '{name}'"
                if vt is not None and vt.scope == "local" and (vt.reference or vt.pointer) \
                        and writes:
                    return f"'{name}' may refer to what {where} counts into"
        el = self.element_of(s.var) or ""
        if is_string(el):
            return "" if self._is_string_value(query) else \
                f"the value '{node_text(query)}' is not known to be a std::string or a literal"
        if any(n.type in ("string_literal", "string_content") for n in walk(query, named=True)):
            return f"the value '{node_text(query)}' is not a plain value"
        qt = self._type_of(query)
        if qt is None:
            return f"the value '{node_text(query)}' is not known to be an integer"
        el_signed, q_signed = signed_after_promotion(el), signed_after_promotion(qt)
        if el_signed is None or q_signed is None:
            return f"the types '{el}' and '{qt}' are not plain integer types"
        if el_signed and not q_signed:
            return (f"comparing with the unsigned '{node_text(query)}' converts the signed "
                    "elements to unsigned, which breaks their order")
        return ""

    def value_var(self, name: str) -> VarType | None:
        """The declared type of a variable (``auto`` range-for variables resolved)."""
        return value_var(self.facts, name)

    def _is_string_value(self, node: Node) -> bool:
        """A ``std::string`` variable or element, or a plain string literal: ``==`` and ``<``
        compare it with a ``std::string`` character by character, so they agree."""
        node = unwrap(node)
        if node.type == "string_literal":
            return node_text(node).startswith('"')
        vt: VarType | None = None
        if node.type == "identifier":
            vt = self.value_var(node_text(node))
        elif node.type == "subscript_expression":
            arg = node.child_by_field_name("argument")
            outer = self.facts.var(node_text(arg)) if arg is not None and \
                arg.type == "identifier" else None
            vt = outer.element if outer is not None else None
        return vt is not None and not vt.pointer and not vt.array and is_string(vt.base)

    def _type_of(self, node: Node) -> str | None:
        node = unwrap(node)
        f = self.facts
        if node.type == "identifier":
            vt = self.value_var(node_text(node))
            return type_words(vt.base) if vt is not None and vt.is_integral else None
        if node.type in ("number_literal", "char_literal"):
            return literal_type(node)
        if node.type == "unary_expression":
            arg = node.child_by_field_name("argument")
            inner = self._type_of(arg) if arg is not None else None
            return "int" if inner in _NARROW else inner
        if node.type == "cast_expression":
            t = type_words(node_text(node.child_by_field_name("type")))
            value = node.child_by_field_name("value")
            ok = value is not None and self._type_of(value) is not None
            return t if ok and VarType(t).is_integral else None
        if node.type == "call_expression":
            m = re.fullmatch(r"static_cast<(.+)>", flat(node.child_by_field_name("function")))
            args = arguments(node)
            t = type_words(m.group(1)) if m else ""
            ok = len(args) == 1 and self._type_of(args[0]) is not None
            return t if ok and VarType(t).is_integral else None
        if node.type == "subscript_expression":
            arg = node.child_by_field_name("argument")
            vt = f.var(node_text(arg)) if arg is not None and arg.type == "identifier" else None
            el = vt.element if vt is not None else None
            return type_words(el.base) if el is not None and el.is_integral else None
        return None

    def _target_problem(self, target: Node, lp: Loop, s: SortCall, query: Node) -> str:
        f = self.facts
        target = unwrap(target)
        in_query = {node_text(n) for n in walk(query, named=True) if n.type == "identifier"}
        changed = f.modified_in(lp.node) | f.declared_in(lp.node)
        root = target
        if target.type == "subscript_expression":
            arg = target.child_by_field_name("argument")
            index = target.child_by_field_name("indices") or \
                target.child_by_field_name("index")
            if arg is None or arg.type != "identifier" or index is None:
                return "the count goes to an element that is not a plain one"
            for n in walk(index, named=True):
                if n.type not in ("identifier", "number_literal", "subscript_argument_list",
                                  "binary_expression", "parenthesized_expression"):
                    return "the count's position is not a plain expression"
                if n.type == "identifier" and node_text(n) in changed:
                    return f"the loop changes '{node_text(n)}'"
            root = arg
        if root.type != "identifier":
            return "the count goes to something other than a variable or an element"
        name = node_text(root)
        vt = f.var(name)
        count_type = vt if target is root else (vt.element if vt is not None else None)
        if vt is None or not self._plain_local(name) or name == s.var or name in in_query or \
                name in f.declared_in(lp.node):
            return f"the count '{node_text(target)}' is not a local variable the loop alone changes"
        if count_type is None or not count_type.is_integral:
            return f"the count '{node_text(target)}' is not of an integer type"
        return ""

    def _index_only_in_element(self, stmt: Node, lp: Loop, v: str) -> str:
        if lp.kind != "for":
            return ""
        for n in walk(stmt, named=True):
            if n.type == "identifier" and node_text(n) == lp.var:
                sub = n.parent.parent if n.parent is not None else None
                if sub is None or sub.type != "subscript_expression" or flat(sub) != \
                        f"{v}[{lp.var}]":
                    return f"the body uses the index '{lp.var}' for more than the element"
        return ""

    def _index_declared(self, lp: Loop) -> bool:
        init = lp.node.child_by_field_name("initializer")
        return init is not None and init.type == "declaration"

    def _index_type(self, lp: Loop) -> str | None:
        init = lp.node.child_by_field_name("initializer")
        if init is not None and init.type == "declaration":
            t = node_text(init.child_by_field_name("type"))
        else:
            vt = self.facts.var(lp.var)
            t = vt.base if vt is not None and not vt.reference else ""
        words = type_words(t)
        return " ".join(t.replace("const", "").split()) \
            if VarType(words).is_integral and words != "auto" else None


def _increment(expr: Node) -> tuple[Node, str] | None:
    """``(t, '+')`` for ``++t``, ``t++``, ``t += 1``, ``t = t + 1`` (``'-'`` for the
    decrements)."""
    if expr.type == "update_expression":
        arg = expr.child_by_field_name("argument")
        return (arg, "+" if "++" in operator(expr) else "-") if arg is not None else None
    if expr.type != "assignment_expression":
        return None
    left, right = expr.child_by_field_name("left"), expr.child_by_field_name("right")
    if left is None or right is None:
        return None
    op = operator(expr)
    if op in ("+=", "-=") and flat(right) == "1":
        return left, op[0]
    if op == "=" and right.type == "binary_expression" and operator(right) in ("+", "-"):
        a, b = right.child_by_field_name("left"), right.child_by_field_name("right")
        if flat(a) == flat(left) and flat(b) == "1":
            return left, operator(right)
        if operator(right) == "+" and flat(b) == flat(left) and flat(a) == "1":
            return left, "+"
    return None


def count_statement(stmt: Node) -> tuple[Node, str, Node] | None:
    """``(target, sign, test)`` of ``if (test) ++t;`` or ``t += test;`` (or ``test ? 1 : 0``)."""
    if stmt.type == "if_statement":
        if stmt.child_by_field_name("alternative") is not None:
            return None
        inner = statements(stmt.child_by_field_name("consequence"))
        cond = unwrap(stmt.child_by_field_name("condition"))
        if len(inner) != 1 or inner[0].type != "expression_statement" or cond is None or \
                inner[0].named_child_count != 1:
            return None
        expr = inner[0].named_children[0]
        inc = _increment(expr) if expr is not None else None
        return (inc[0], inc[1], cond) if inc is not None else None
    if stmt.type != "expression_statement" or stmt.named_child_count != 1:
        return None
    expr = stmt.named_children[0]
    if expr is None or expr.type != "assignment_expression" or operator(expr) not in ("+=",
                                                                                     "-="):
        return None
    left, right = expr.child_by_field_name("left"), expr.child_by_field_name("right")
    if left is None or right is None:
        return None
    right = unwrap(right)
    if right.type == "conditional_expression":
        c = right.child_by_field_name("condition")
        if flat(right.child_by_field_name("consequence")) != "1" or \
                flat(right.child_by_field_name("alternative")) != "0" or c is None:
            return None
        right = unwrap(c)
    if right.type != "binary_expression" or operator(right) not in FLIP:
        return None
    return left, operator(expr)[0], right


def _loop_of_jump(n: Node) -> Node | None:
    """The loop (or, for ``break``, the switch) that a ``break``/``continue`` leaves."""
    p = n.parent
    while p is not None:
        if p.type in LOOP_TYPES or (p.type == "switch_statement" and
                                    n.type == "break_statement"):
            return p
        p = p.parent
    return None


def _first_statement(stmt: Node, loop: Node) -> tuple[Node, tuple[Node, ...], str] | None:
    """``(test, branch, exit)`` of ``if (test) { ...; break; }`` or ``... return ...; }``,
    with no other way out of the loop in the branch."""
    if stmt.type != "if_statement" or stmt.child_by_field_name("alternative") is not None:
        return None
    cond = unwrap(stmt.child_by_field_name("condition"))
    cons = stmt.child_by_field_name("consequence")
    branch = statements(cons)
    if cond is None or cons is None or not branch:
        return None
    last = branch[-1]
    if last.type == "return_statement":
        exit_kind = "return"
    elif last.type == "break_statement" and _loop_of_jump(last) == loop:
        exit_kind = "break"
    else:
        return None
    jumps = [n for n in walk(cons, named=True)
             if n.type in ("return_statement", "goto_statement", "co_return_statement") or
             (n.type in ("break_statement", "continue_statement") and _loop_of_jump(n) == loop)]
    if jumps != [last]:
        return None
    kept = tuple(branch if exit_kind == "return" else branch[:-1])
    return cond, kept, exit_kind


def match_test(cond: Node | None, element: Callable[[Node], bool],
          loop_names: set[str]) -> tuple[str, Node] | None:
    """``(op, q)`` when ``cond`` compares the element with a value ``q`` that does not depend
    on it: ``x < q`` gives ``<``, ``q < x`` gives ``>``."""
    cond = unwrap(cond) if cond is not None else None
    if cond is None or cond.type != "binary_expression" or operator(cond) not in FLIP:
        return None
    left, right = cond.child_by_field_name("left"), cond.child_by_field_name("right")
    if left is None or right is None:
        return None
    for side, other, op in ((left, right, operator(cond)), (right, left, FLIP[operator(cond)])):
        if element(unwrap(side)) and not any(
                n.type == "identifier" and node_text(n) in loop_names
                for n in walk(other, named=True)):
            return op, other
    return None


def sorted_scans(facts: FunctionFacts, unit: Node) -> tuple[list[SortedScan], list[Refusal]]:
    """The scans of sorted containers in the function that a binary search can replace, and
    those of the same shape that must stay (with why)."""
    if facts.body is None or facts.language != "cpp" or not sorts_anything(facts) or \
            jumps_in(facts):
        return [], []
    an = SortedAnalysis(facts, unit)
    found: list[SortedScan] = []
    refused: list[Refusal] = []
    for lp in facts.loops:
        var = an.scanned(lp)
        if var is None or an.element_of(var) is None:
            continue
        s = an.sort_before(lp.node, var)
        if s is None:
            continue
        got = an.match(lp, s)
        if isinstance(got, SortedScan):
            found.append(got)
        elif isinstance(got, str):
            refused.append(Refusal(lp, var, got))
    return found, refused
