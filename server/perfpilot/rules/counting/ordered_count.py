"""Counts, repeated in a loop, of the elements of an unchanged integer sequence that compare
with a value (``y < x``: pairs across two sequences) or lie between two (``lo <= y && y <=
hi``: range-count queries).

The shapes, anywhere inside an outer loop (``b`` a ``std::vector``/``deque``/``array`` of
integers walked whole, or a pointer or array of integers walked up to a count ``m``):

    for (auto y : b) if (x < y) ++c;                                 (any of < <= > >=, either side)
    for (I j = 0; j < b.size(); ++j) if (b[j] >= lo && b[j] <= hi) ++c;       (the two bounds)
    for (I j = 0; j < m; ++j) c += (b[j] > x);                        (pointer b, ``m`` elements)
    ... std::count_if(b.begin(), b.end(), [&](int y) { return y >= q.first && y <= q.second; })

With ``s`` a sorted copy of ``b``, the elements passing ``y OP x`` form one run at one end of
``s`` (``lower_bound``/``upper_bound`` find where it starts), and those between two bounds one
run in the middle (empty when the bounds cross, as the loop finds). This holds when every
comparison orders the elements as ``s`` is sorted: integer elements (a NaN is ordered with
nothing) compared with an integer value whose conversion does not make signed elements
unsigned (``signed_after_promotion``); the value, converted the same way in the rewrite's
``lower_bound`` as in the loop, may be of any integer type.

Proof obligations (besides the shapes): ``b`` is not declared in the outer loop, which writes
neither ``b`` nor its count nor anything that may alias them (``outer_writes_ok`` and the
same-type test ``changes_in_loop`` of the nested-membership form); the values compared are
plain (names, literals, ``.`` fields, subscripts and ``+ - *`` of them), never mention the
counter, and name no local reference or pointer other than a range-for element. A value is
evaluated by the rewrite only where the loop evaluated it at least once: the first test's when
``b`` is not empty, the second's (after ``&&``) when some element passed the first, so a read
that would fault or an overflow is never added. The counter is a local integer (not ``bool``,
reference, ``volatile``) never passed, bound, captured or pointed to, so the scan's only write
is to storage nothing else reads. The counter gains the count in its own type, through its unsigned
type (``c = C(U(c) + U(n))``): the value of ``n`` increments wherever they did not overflow.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

from perfpilot.code.container_changes import changes_in_loop
from perfpilot.code.declarations import VarType
from perfpilot.code.effects import COPIES_ITS_ARGUMENTS, NEVER_WRITES_MEMORY, NO_SIDE_EFFECTS
from perfpilot.code.facts import FunctionFacts, Loop
from perfpilot.code.nested_membership import (
    NestedScan,
    outer_writes_ok,
    scan_head,
)
from perfpilot.code.sequence_scan import sequence_element
from perfpilot.code.sorted_calls import predicate_lambda, sorted_calls
from perfpilot.code.sorted_scan import (
    count_statement,
    literal_type,
    match_test,
    signed_after_promotion,
    sorted_scans,
    type_words,
    value_var,
)
from perfpilot.code.storage_type import template_args
from perfpilot.code.syntax import (
    Node,
    arguments,
    declarator_name,
    node_text,
    operator,
    statements,
    unwrap,
    walk,
)

_LOWER, _UPPER = frozenset({">", ">="}), frozenset({"<", "<="})
_AT_LEAST_INT = frozenset({"int", "long", "long long", "unsigned", "unsigned int",
                           "unsigned long", "unsigned long long", "long int", "long long int"})


@dataclass(frozen=True)
class OrderedCount:
    """A proved count: the scan loop or ``count_if`` call, the outer loop the sorted copy is
    made before, the sequence (its element type; ``bound`` the count of a pointer's elements,
    "" for a whole container), the bounds as ``(op, value)`` with the element on the left
    (``>``/``>=`` below, ``<``/``<=`` above; None when absent), the counter and its sign
    (loop form; "" for the call form)."""

    site: Node
    outer: Loop
    seq: str
    elem: str
    bound: str
    lower: tuple[str, Node] | None
    upper: tuple[str, Node] | None
    counter: str = ""
    sign: str = "+"

    @property
    def ranged(self) -> bool:
        """Whether both bounds are tested (a range-count query)."""
        return self.lower is not None and self.upper is not None

    @property
    def call(self) -> bool:
        """Whether the count is a ``std::count_if`` call (an expression)."""
        return self.site.type == "call_expression"


def _value_type(node: Node, facts: FunctionFacts) -> str | None:
    """The integer type of a compared value, when known."""
    node = unwrap(node)
    if node.type == "identifier":
        vt = value_var(facts, node_text(node))
        ok = vt is not None and vt.is_integral and type_words(vt.base) != "bool"
        return type_words(vt.base) if ok and vt is not None else None
    if node.type in ("number_literal", "char_literal"):
        return literal_type(node)
    if node.type == "unary_expression" and operator(node) == "-":
        arg = node.child_by_field_name("argument")
        inner = _value_type(arg, facts) if arg is not None else None
        return inner if inner in _AT_LEAST_INT else ("int" if inner else None)
    if node.type == "field_expression" and operator(node) == ".":
        obj, field = node.child_by_field_name("argument"), node.child_by_field_name("field")
        vt = value_var(facts, node_text(obj)) if obj is not None and obj.type == "identifier" \
            else None
        m = re.fullmatch(r"(?:std::)?pair\s*<(.+)>", type_words(vt.base)) \
            if vt is not None and not vt.pointer and not vt.array else None
        args = template_args(m.group(1)) if m else []
        pick = {"first": 0, "second": 1}.get(node_text(field))
        if len(args) != 2 or pick is None:
            return None
        t = type_words(args[pick])
        return t if VarType(t).is_integral and t != "bool" else None
    if node.type == "subscript_expression":
        arg = node.child_by_field_name("argument")
        vt = value_var(facts, node_text(arg)) if arg is not None and arg.type == "identifier" \
            else None
        el = vt.element if vt is not None else None
        ok = el is not None and el.is_integral and type_words(el.base) != "bool"
        return type_words(el.base) if ok and el is not None else None
    if node.type == "binary_expression" and operator(node) in ("+", "-", "*"):
        left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
        lt = _value_type(left, facts) if left is not None else None
        rt = _value_type(right, facts) if right is not None else None
        # same-type arithmetic at int rank or above keeps its type
        return lt if lt is not None and lt == rt and lt in _AT_LEAST_INT else None
    return None


def _plain_value(node: Node) -> bool:
    """Names, literals, ``.`` fields, subscripts and ``+ - *`` of them: evaluating it has no
    effect (it may fault or overflow, but only where the loop evaluates it too)."""
    node = unwrap(node)
    if node.type in ("identifier", "number_literal", "char_literal"):
        return True
    if node.type == "unary_expression" and operator(node) == "-":
        arg = node.child_by_field_name("argument")
        return arg is not None and unwrap(arg).type == "number_literal"
    if node.type == "field_expression":
        obj = node.child_by_field_name("argument")
        return operator(node) == "." and obj is not None and obj.type == "identifier"
    if node.type == "subscript_expression":
        arg = node.child_by_field_name("argument")
        idx = node.child_by_field_name("indices")
        inner = [c for c in idx.named_children if c.type != "comment"] \
            if idx is not None and idx.type == "subscript_argument_list" else [idx]
        return arg is not None and arg.type == "identifier" and len(inner) == 1 and \
            inner[0] is not None and _plain_value(inner[0])
    if node.type == "binary_expression" and operator(node) in ("+", "-", "*"):
        return all(c is not None and _plain_value(c) for c in
                   (node.child_by_field_name("left"), node.child_by_field_name("right")))
    return False


def _value_problem(value: Node, elem: str, facts: FunctionFacts, counter: str) -> str:
    """Why a compared value breaks the proof ('' when it does not)."""
    if not _plain_value(value):
        return f"the value '{node_text(value)}' is not a plain value"
    ranged = {declarator_name(r.child_by_field_name("declarator"))
              for r in facts.nodes("for_range_loop")}
    for n in walk(value):
        if n.type != "identifier":
            continue
        if node_text(n) == counter:
            return f"the value '{node_text(value)}' reads the counter"
        vt = facts.var(node_text(n))
        if vt is not None and vt.scope == "local" and (vt.reference or vt.pointer) and \
                node_text(n) not in ranged:
            return f"'{node_text(n)}' may refer to the counter"
    vtype = _value_type(value, facts)
    if vtype is None:
        return f"the value '{node_text(value)}' is not known to be an integer"
    el_signed, v_signed = signed_after_promotion(elem), signed_after_promotion(vtype)
    if el_signed is None or v_signed is None:
        return f"the types '{elem}' and '{vtype}' are not plain integer types"
    if el_signed and not v_signed:
        return (f"comparing with the unsigned '{node_text(value)}' converts the signed elements to "
                "unsigned, which breaks their order")
    return ""


def _bounds(cond: Node, is_elem: object, names: set[str]
            ) -> tuple[tuple[str, Node] | None, tuple[str, Node] | None, Node] | None:
    """``(lower, upper, first value)`` of ``y OP v`` or ``y OP1 v1 && y OP2 v2`` (one bound
    each way), the element on the left."""
    cond = unwrap(cond)
    pred = is_elem if callable(is_elem) else (lambda n: False)
    if cond.type == "binary_expression" and operator(cond) == "&&":
        left, right = cond.child_by_field_name("left"), cond.child_by_field_name("right")
        a = match_test(left, pred, names) if left is not None else None
        b = match_test(right, pred, names) if right is not None else None
        if a is None or b is None or a[0] not in _LOWER | _UPPER or \
                b[0] not in _LOWER | _UPPER or (a[0] in _LOWER) == (b[0] in _LOWER):
            return None
        lower, upper = (a, b) if a[0] in _LOWER else (b, a)
        return lower, upper, a[1]
    one = match_test(cond, pred, names)
    if one is None or one[0] not in _LOWER | _UPPER:
        return None
    return (one, None, one[1]) if one[0] in _LOWER else (None, one, one[1])


def _counter_problem(name: str, facts: FunctionFacts) -> str:
    """Why the counter might be read or written another way during the scan ('' when not)."""
    vt = facts.var(name)
    if vt is None or vt.scope != "local" or not vt.is_integral or vt.reference or \
            "volatile" in vt.type_text.split() or type_words(vt.base) == "bool":
        return f"'{name}' is not a plain local integer"
    for n in facts.nodes("identifier"):
        p = n.parent
        if node_text(n) != name or p is None:
            continue
        passed = p.type == "argument_list" and not _keeps_copy(p.parent)
        pointed = p.type == "pointer_expression" and node_text(p).lstrip().startswith("&")
        bound = p.type == "init_declarator" and p.child_by_field_name("value") == n and \
            any(c.type == "reference_declarator" for c in p.named_children)
        captured = any(a.type == "lambda_expression" for a in _ancestors(n))
        if passed or pointed or bound or captured:
            return f"the counter '{name}' may be reached another way"
    return ""


def _keeps_copy(call: Node | None) -> bool:
    """Whether a call takes its arguments as values (or const references it only copies):
    a standard container method that copies them, or a known free function of values."""
    fn = call.child_by_field_name("function") if call is not None and \
        call.type == "call_expression" else None
    if fn is None:
        return False
    if fn.type == "field_expression":
        return node_text(fn.child_by_field_name("field")) in COPIES_ITS_ARGUMENTS
    name = node_text(fn).removeprefix("std::")
    return name in NO_SIDE_EFFECTS or name in NEVER_WRITES_MEMORY


def _ancestors(n: Node) -> Iterator[Node]:
    p = n.parent
    while p is not None:
        yield p
        p = p.parent


def _scan(loop: Loop, outer: Loop, facts: FunctionFacts) -> OrderedCount | str | None:
    """The loop as a proved count (None when it has no such shape at all)."""
    types = facts.loop_types
    head = scan_head(loop.node, dict(types))
    if head is None:
        return None
    var, b, elem, bound = head
    body = statements(loop.node.child_by_field_name("body"))
    counted = None
    if len(body) == 1:
        counted = count_statement(body[0])
    if counted is None:
        return None
    target, sign, cond = counted
    if target.type != "identifier":
        return None
    seq = b

    def is_elem(n: Node) -> bool:
        nonlocal seq
        if loop.node.type == "for_range_loop":
            return n.type == "identifier" and node_text(n) == var
        m = re.fullmatch(rf"([A-Za-z_]\w*)\[{var}\]", "".join(node_text(n).split()))
        if m is None or (seq and m.group(1) != seq):
            return False
        seq = m.group(1)
        return True

    found = _bounds(cond, is_elem, {var})
    if found is None:
        return None
    if bound:
        vt = types.get(seq)
        elem = sequence_element(vt, pointer_ok=True, strings=True)
        if vt is None or not (vt.pointer or vt.array) or not elem:
            return f"'{seq}' is not a pointer or array of integers walked up to '{bound}'"
    if not VarType(elem).is_integral or type_words(elem) == "bool":
        return f"the elements of '{seq}' are not integers"
    lower, upper, _ = found
    counter = node_text(target)
    if counter in (seq, bound):
        return "the scan counts into what it reads"
    why = _counter_problem(counter, facts)
    if why:
        return why
    return _finish(OrderedCount(loop.node, outer, seq, elem, bound, lower, upper, counter,
                                sign), facts)


def _call(call: Node, outer: Loop, facts: FunctionFacts) -> OrderedCount | str | None:
    """``std::count_if(b.begin(), b.end(), lambda)`` as a proved count."""
    if node_text(call.child_by_field_name("function")).replace(" ", "") != "std::count_if":
        return None
    args = arguments(call)
    if len(args) != 3:
        return None
    m1 = re.fullmatch(r"([A-Za-z_]\w*)\.c?begin\(\)", "".join(node_text(args[0]).split()))
    m2 = re.fullmatch(r"([A-Za-z_]\w*)\.c?end\(\)", "".join(node_text(args[1]).split()))
    if m1 is None or m2 is None or m1.group(1) != m2.group(1):
        return None
    seq = m1.group(1)
    vt = facts.loop_types.get(seq)
    elem = sequence_element(vt, pointer_ok=False, strings=True) or None
    if elem is None or not VarType(elem).is_integral or type_words(elem) == "bool":
        return f"the elements of '{seq}' are not integers"
    parts = predicate_lambda(args[2], elem)
    if isinstance(parts, str):
        return parts
    name, value = parts
    found = _bounds(value, lambda n: n.type == "identifier" and node_text(n) == name, {name})
    if found is None:
        return None
    return _finish(OrderedCount(call, outer, seq, elem, "", found[0], found[1]), facts)


def _finish(c: OrderedCount, facts: FunctionFacts) -> OrderedCount | str:
    """The checks of the compared values and of the outer loop."""
    values = [b for b in (c.lower, c.upper) if b is not None]
    for op_value in values:
        why = _value_problem(op_value[1], c.elem, facts, c.counter)
        if why:
            return why
    outer = c.outer.node
    if c.seq in facts.declared_in(outer) or (c.bound and c.bound in facts.declared_in(outer)):
        return f"'{c.seq}' is made inside the loop"
    key = values[0][1]
    scan = NestedScan(c.site, c.seq, c.elem, c.bound, key, (), c.counter)
    why = outer_writes_ok(outer, scan, dict(facts.loop_types))
    if not why and not c.bound:
        vt = facts.loop_types.get(c.seq)
        reading = frozenset({c.site.start_byte}) if c.site.type == "for_range_loop" \
            else frozenset()
        why = changes_in_loop(outer, c.seq, vt, dict(facts.loop_types), reading) \
            if vt is not None else "the type of the sequence is unknown"
    return why or c


def ordered_counts(facts: FunctionFacts) -> tuple[list[OrderedCount], list[tuple[Node, str]]]:
    """The proved counts of the function, and the candidates left alone (with why)."""
    if facts.language != "cpp" or facts.body is None:
        return [], []
    found: list[OrderedCount] = []
    refused: list[tuple[Node, str]] = []
    claimed: set[int] | None = None
    for outer in facts.loops:
        if outer.parent is not None:
            continue
        results: list[tuple[Node, OrderedCount | str | None]] = []
        for inner in facts.loops_within(outer)[1:]:
            results.append((inner.node, _scan(inner, outer, facts)))
        for call in facts.nodes("call_expression", outer.node):
            if facts.loop_of(call) is not None:
                results.append((call, _call(call, outer, facts)))
        for node, res in results:
            if res is None:
                continue
            if claimed is None:
                # a count over data already sorted is the sorted-linear-scan rule's
                claimed = {s.loop.node.start_byte for s in sorted_scans(facts, facts.unit)[0]} \
                    | {c.call.start_byte for c in sorted_calls(facts, facts.unit)[0]}
            if node.start_byte in claimed:
                continue
            if isinstance(res, str):
                refused.append((node, res))
            else:
                found.append(res)
    return found, refused


def _always_safe(value: Node) -> bool:
    """A value whose evaluation can neither fail nor have an effect: a name, a literal, a
    member of a name (``q.first``). One may be evaluated where the loop would not have."""
    node = unwrap(value)
    while node.type == "field_expression":
        inner = node.child_by_field_name("argument")
        if inner is None or node_text(node.child_by_field_name("operator")) == "->":
            return False
        node = unwrap(inner)
    return node.type in ("identifier", "number_literal", "char_literal", "true", "false")


def count_text(c: OrderedCount, s: str) -> str:
    """The count, a ``std::ptrdiff_t``, over the sorted copy ``s``. A value is evaluated only
    where the loop evaluates it at least once (the first test's when ``s`` is not empty, the
    second's, after ``&&``, when some element passes the first), unless it is a name, a
    literal or a member of a name, which may be evaluated anywhere."""
    def pos(op: str, value: Node) -> str:
        fn = "lower_bound" if op in (">=", "<") else "upper_bound"
        return f"std::{fn}({s}.begin(), {s}.end(), {node_text(value)})"

    safe = all(_always_safe(b[1]) for b in (c.lower, c.upper) if b is not None)
    if c.lower is not None and c.upper is not None:
        start, stop = pos(*c.lower), pos(*c.upper)
        # bounds that cross count nothing, as the loop did
        count = f"std::max<std::ptrdiff_t>(0, {stop} - {start})"
        if safe:
            return count
        # no element passes the first test: the empty run of its side
        none = f"{start} == {s}.end()" if c.lower[1].start_byte < c.upper[1].start_byte \
            else f"{stop} == {s}.begin()"
        return f"{none} ? 0 : {count}"
    if c.upper is not None:
        count = f"{pos(*c.upper)} - {s}.begin()"
    else:
        assert c.lower is not None
        count = f"{s}.end() - {pos(*c.lower)}"
    return count if safe else f"{s}.empty() ? 0 : {count}"


def copy_text(c: OrderedCount) -> tuple[str, str]:
    """The first and last element of the copied range."""
    if not c.bound:
        return f"{c.seq}.begin()", f"{c.seq}.end()"
    return c.seq, f"{c.seq} + ({c.bound} > 0 ? {c.bound} : 0)"


def replacement(c: OrderedCount, s: str, made: str, unit: str = "    ") -> list[str]:
    """The statements replacing the scan (for a call: one line, the count expression);
    ``made`` names the flag of a copy built on first use ('' when it is built before the
    loop)."""
    count = count_text(c, s)
    if c.call:
        return [f"static_cast<std::ptrdiff_t>({count})" if "?" in count else count]
    lines: list[str] = []
    if made:
        first, last = copy_text(c)
        lines.append(f"if (!{made}) {{\n{unit}{s}.assign({first}, {last});\n"
                     f"{unit}std::sort({s}.begin(), {s}.end());\n{unit}{made} = true;\n}}")
    # the counter wraps as the loop's steps would (the same value modulo 2^w)
    lines.append(f"{c.counter} {c.sign}= {count};")
    return lines
