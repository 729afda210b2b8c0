"""Standard algorithm calls that scan all of a container a sort left in order.

``std::count(v.begin(), v.end(), q)`` and ``std::find`` (any spelling of the whole range:
``cbegin``/``cend``, ``std::begin(v)``/``std::end(v)``), and ``std::count_if``/``std::find_if``
with a lambda that only compares its element with a fixed value (``[q](int x) { return x < q;
}``, ``<``, ``<=``, ``>``, ``>=``, ``==``; ``!=`` counts too), walk every element. When the
range is proved sorted at the call (``code/sorted_scan.py``'s proof: a whole-range sort before
it in an enclosing block, natural order, ``std::less`` or ``std::greater``, and nothing on the
way or in an enclosing loop able to change the container), the matching elements form one run
of it, so a binary search gives the same count, or the same first match.

Elements may be integers (the value must not turn signed elements unsigned) or ``std::string``
(looked up with a string or a string literal: ``==`` and ``<`` agree on them); floating
elements are refused, since a NaN is ordered with nothing. A ``find`` result may be kept: as an
iterator that is only compared and read through, returned, or anything at all when no loop
runs the call again after the sort. Each call is analysed up to the end of its full-expression
(the operands around it are unsequenced with it).

``std::find_if_not`` with such a lambda finds the first element passing the negated comparison,
so it is ``find_if`` of the negation. ``std::ranges::count(v, q)`` and ``std::ranges::find(v,
q)`` (no projection) are ``count``/``find`` over ``v.begin(), v.end()``: the same positions of
the same iterator type, so the binary search is written in the classic form, which compiles
under any standard; ``std::ranges::sort(v)`` counts as the sort (``sorted_ranges.sort_call``).
"""

from __future__ import annotations

from dataclasses import dataclass

from perfpilot.code.facts import FunctionFacts
from perfpilot.code.sorted_ranges import (
    ESCAPE,
    SortCall,
    ends_of,
    flat,
    jumps_in,
    ranges_name,
    reads_only,
    result_read_only,
    sorts_anything,
    std_name,
    whole_container,
    whole_range,
)
from perfpilot.code.sorted_scan import SortedAnalysis, match_test, type_words
from perfpilot.code.syntax import (
    Node,
    arguments,
    declarator_name,
    node_text,
    operator,
    statements,
    unparenthesized,
)

_COUNTS = frozenset({"count", "count_if"})
_FINDS = frozenset({"find", "find_if", "find_if_not"})
_PREDICATED = frozenset({"count_if", "find_if", "find_if_not"})
# ``std::ranges`` forms taken, over a whole container: ``name(v, q)``.
_RANGES = frozenset({"count", "find"})
# The test an element fails exactly when it passes ``op`` (``find_if_not`` finds the first
# element passing the negation of its predicate).
_NEGATED = {"<": ">=", "<=": ">", ">": "<=", ">=": "<", "==": "!=", "!=": "=="}
# Searches whose position, kept only for reading, leaves the container alone.
_SEARCHES = frozenset({"find", "find_if", "find_if_not", "lower_bound", "upper_bound"})
# Parents through which a call is still part of the same full-expression.
_EXPRESSIONS = frozenset({
    "binary_expression", "unary_expression", "parenthesized_expression", "call_expression",
    "argument_list", "conditional_expression", "assignment_expression", "cast_expression",
    "comma_expression", "field_expression", "subscript_expression", "subscript_argument_list",
    "pointer_expression", "update_expression", "initializer_list", "compound_literal_expression",
})


@dataclass(frozen=True)
class SortedCall:
    """A whole-range ``count``/``find`` (or ``_if``) call over a sorted container.

    ``op`` is the test with the element on the left that the counted or found elements pass
    (``==`` for ``count``/``find``, the predicate's negation for ``find_if_not``), ``query``
    the value compared with; ``first``/``last`` span the range as written (``v.begin()`` and
    ``v.end()`` for ``std::ranges::count(v, q)``). A ``find`` may sit in ``compared``
    (``find(...) != v.end()``: ``found_when`` is True; ``== v.end()``: False) or initialise
    the only variable of ``declared`` (``auto it = find(...);`` in a block, not const or
    static). ``element`` is the predicate's parameter ('' for ``count``/``find``).
    """

    call: Node
    sort: SortCall
    var: str
    algo: str
    op: str
    query: Node
    first: str
    last: str
    compared: Node | None = None
    found_when: bool = True
    declared: Node | None = None
    element: str = ""

    @property
    def form(self) -> str:
        """``count`` or ``first`` (the first match's position)."""
        return "count" if self.algo in _COUNTS else "first"


@dataclass(frozen=True)
class CallRefusal:
    """A call over a sorted container that stays linear, and why."""

    call: Node
    var: str
    why: str


def _tight(node: Node) -> str:
    return " ".join(node_text(node).split())


def full_expression(node: Node) -> Node:
    """The outermost expression holding ``node`` (up to a statement or a declarator)."""
    while node.parent is not None and node.parent.type in _EXPRESSIONS:
        node = node.parent
    return node


def _predicate(lam: Node, element: str) -> tuple[str, Node, str] | str:
    """``(op, q, parameter)`` of a lambda whose body is only ``return x OP q;`` (or ``q OP
    x``), or why it is not one."""
    parts = predicate_lambda(lam, element)
    if isinstance(parts, str):
        return parts
    name, value = parts
    test = match_test(value, lambda n: n.type == "identifier" and node_text(n) == name, {name})
    if test is None:
        return ("the predicate is not one comparison of the element with a fixed value, so "
                "its matches need not form one run of the sorted order")
    return test[0], test[1], name


def predicate_lambda(lam: Node, element: str) -> tuple[str, Node] | str:
    """``(parameter, returned expression)`` of a lambda taking one element (by value or
    reference, declared ``auto`` or exactly ``element``: no conversion) whose body is only
    ``return e;``, capturing plain names only; or why it is not one."""
    if lam.type != "lambda_expression":
        return "the predicate is not a lambda the analysis can read"
    caps = lam.child_by_field_name("captures")
    if caps is not None and any(c.type not in ("lambda_default_capture", "identifier")
                                for c in caps.named_children):
        return "the lambda captures something other than plain names"
    decl = lam.child_by_field_name("declarator")
    params = decl.child_by_field_name("parameters") if decl is not None else None
    if decl is None or params is None or params.named_child_count != 1 or any(
            c.type not in ("parameter_list", "trailing_return_type")
            for c in decl.named_children):
        return "the lambda is not a plain one-parameter predicate"
    ret = next((c for c in decl.named_children if c.type == "trailing_return_type"), None)
    if ret is not None and type_words(node_text(ret).removeprefix("->")) != "bool":
        return "the lambda converts its result"
    param = params.named_children[0]
    inner = param.child_by_field_name("declarator")
    while inner is not None and inner.type == "reference_declarator":
        inner = inner.named_children[0] if inner.named_child_count else None
    name = declarator_name(inner) if inner is not None and inner.type == "identifier" else None
    if param.type != "parameter_declaration" or name is None:
        return "the lambda is not a plain one-parameter predicate"
    declared = type_words(node_text(param.child_by_field_name("type")))
    if declared not in ("auto", type_words(element)):
        return f"the lambda converts the elements to '{declared}'"
    body = statements(lam.child_by_field_name("body"))
    value = body[0].named_children[0] if len(body) == 1 and \
        body[0].type == "return_statement" and body[0].named_child_count == 1 else None
    if value is None:
        return ("the predicate is not one comparison of the element with a fixed value, so "
                "its matches need not form one run of the sorted order")
    return name, value


def _benign_escapes(an: SortedAnalysis, var: str) -> frozenset[int]:
    """Mentions of ``var`` that escape only into whole-range searches whose position is kept
    for reading (see ``result_read_only``): the container stays as it is."""
    out = set()
    for u in an.uses(var):
        if u.kind != ESCAPE:
            continue
        if u.access.type == "call_expression" and whole_container(u.access) == var and \
                ranges_name(u.access) in _SEARCHES and len(arguments(u.access)) == 2:
            search = u.access  # ``std::ranges::find(v, q)``
        else:
            arglist = u.access.parent
            outer = arglist.parent if arglist is not None and \
                arglist.type == "argument_list" else None
            if outer is None or outer.type != "call_expression" or \
                    std_name(outer, an.own) not in _SEARCHES:
                continue
            search = outer
            args = arguments(search)
            if len(args) < 3 or whole_range(args[0], args[1]) != var:
                continue
        if result_read_only(an.facts, search, an.own):
            out.add(u.ident.start_byte)
    return frozenset(out)


def _find_context(call: Node, var: str) -> tuple[Node | None, bool, Node | None]:
    """``(compared, found_when, declared)`` for a ``find`` call (see ``SortedCall``)."""
    node = unparenthesized(call)
    p = node.parent
    if p is None:
        return None, True, None
    if p.type == "binary_expression" and operator(p) in ("==", "!="):
        other = p.child_by_field_name("right" if p.child_by_field_name("left") == node
                                      else "left")
        if other is not None and flat(other) in ends_of(var):
            return p, operator(p) == "!=", None
        return None, True, None
    d = p.parent
    name = p.child_by_field_name("declarator") if p.type == "init_declarator" else None
    if name is None or name.type != "identifier" or p.child_by_field_name("value") != node or \
            d is None or d.type != "declaration" or d.parent is None or \
            d.parent.type != "compound_statement" or \
            len(d.children_by_field_name("declarator")) != 1 or \
            any(c.type in ("storage_class_specifier", "type_qualifier") for c in d.children):
        return None, True, None
    return None, True, d


class _Calls:
    """The calls of one function over sorted containers."""

    def __init__(self, facts: FunctionFacts, unit: Node) -> None:
        self.an = SortedAnalysis(facts, unit)
        self._benign: dict[str, frozenset[int]] = {}

    def benign(self, var: str) -> frozenset[int]:
        if var not in self._benign:
            self._benign[var] = _benign_escapes(self.an, var)
        return self._benign[var]

    def changed(self, full: Node, call: Node) -> frozenset[str]:
        """Names the full-expression may change around the call: the call itself only reads
        (its value is taken by reference to const, its predicate only compares), and the
        target of an assignment is written after its right side is evaluated."""
        f = self.an.facts
        right = full.child_by_field_name("right")
        if full.type == "assignment_expression" and right is not None and \
                right.start_byte <= call.start_byte:
            full = right
        quiet = sorted((c.start_byte, c.end_byte) for c in f.nodes("call_expression", full)
                       if c == call or reads_only(f, c))
        out: frozenset[str] = frozenset()
        at = full.start_byte
        for a, b in quiet:
            if a > at:
                out |= f.modified_between(at, a)
            at = max(at, b)
        return out | f.modified_between(at, full.end_byte)

    def match(self, call: Node, algo: str, span: tuple[str, str], arg: Node, var: str,
              s: SortCall) -> SortedCall | str:
        """The call as a search of the sorted container, or why it stays: ``span`` is the
        range as two positions (whitespace dropped), ``arg`` the value or predicate."""
        an = self.an
        element = an.element_of(var) or ""
        names: set[str] = set()
        param = ""
        if algo in _PREDICATED:
            got = _predicate(arg, element)
            if isinstance(got, str):
                return got
            op, query, param = got
            if algo == "find_if_not":
                op = _NEGATED[op]
            names.add(param)
        else:
            op, query = "==", arg
        if algo in _FINDS and op == "!=":
            return "the first element that differs is not a single binary search"
        full = full_expression(call)
        tolerated = self.benign(var)
        # the range arguments escape when the position found is kept
        own = frozenset(u.ident.start_byte for u in an.uses(var)
                        if u.kind == ESCAPE and (u.access == call or (
                            u.access.parent is not None and u.access.parent.parent == call))
                        and u.ident.start_byte not in tolerated)
        if own:
            again = len(an.zone(s, call)) > 1
            if again:
                return ("the position it finds is kept in a way the analysis does not follow, "
                        "and a loop runs the call again")
            tolerated |= own
        why = an.container_problem(s, strings=True, tolerated=tolerated) or \
            an.query_problem(query, self.changed(full, call), s, names,
                             where="the statement") or \
            an.zone_problem(s, call, end=full.end_byte, tolerated=tolerated)
        if why:
            return why
        compared, found_when, declared = _find_context(call, var) if algo in _FINDS else \
            (None, True, None)
        return SortedCall(call, s, var, algo, op, query, span[0], span[1], compared,
                          found_when, declared, param)


def sorted_calls(facts: FunctionFacts, unit: Node) -> tuple[list[SortedCall], list[CallRefusal]]:
    """The whole-range ``count``/``find`` calls over sorted containers that a binary search can
    replace, and those that must stay (with why)."""
    if facts.body is None or facts.language != "cpp" or not sorts_anything(facts) or \
            jumps_in(facts):
        return [], []
    calls: _Calls | None = None
    found: list[SortedCall] = []
    refused: list[CallRefusal] = []
    for call in facts.nodes("call_expression"):
        fn = call.child_by_field_name("function")
        if fn is None or node_text(fn).split("::")[-1] not in _COUNTS | _FINDS:
            continue
        if calls is None:
            calls = _Calls(facts, unit)
        algo = std_name(call, calls.an.own)
        args = arguments(call)
        var = whole_range(args[0], args[1]) if len(args) == 3 else None
        span = (_tight(args[0]), _tight(args[1])) if var is not None else ("", "")
        if var is None and algo is None and ranges_name(call) in _RANGES and len(args) == 2:
            # ``std::ranges::count(v, q)``: searched as ``v.begin(), v.end()``, the same
            # positions of the same iterator type, which any standard can name
            algo, var = ranges_name(call), whole_container(call)
            span = (f"{var}.begin()", f"{var}.end()")
        if algo not in _COUNTS | _FINDS or var is None or calls.an.element_of(var) is None:
            continue
        s = calls.an.sort_before(call, var)
        if s is None:
            continue
        got = calls.match(call, algo, span, args[-1], var, s)
        if isinstance(got, SortedCall):
            found.append(got)
        else:
            refused.append(CallRefusal(call, var, got))
    return found, refused
