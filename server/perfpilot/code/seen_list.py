"""Append-only local vectors used as a "seen" list: searched from end to end before each append.

``std::vector<int> seen; for (int x : v) if (std::find(seen.begin(), seen.end(), x) ==
seen.end()) seen.push_back(x);`` does O(n·m) comparisons to keep the distinct values in their
first-seen order. A hash set kept beside the vector, holding exactly its values, answers each
membership question in O(1): ``if (seen_set.insert(x).second) seen.push_back(x);`` inserts
``x`` and says whether it was new, and the vector keeps its contents and order. This module
proves when that is exact:

- the vector is a local ``std::vector<T>`` declared alone and empty (no initializer or ``{}``),
  without ``static`` or qualifiers, in a block, once in the function; ``T`` is an integer type
  (``char`` included) or ``std::string``, for which hash equality is ``operator==`` (floating
  point has NaN and ``-0.0``; a user type's hash and ``==`` are unknown);
- the search covers the whole vector: ``std::find(v.begin(), v.end(), x)`` compared with
  ``v.end()``, ``std::count(v.begin(), v.end(), x)`` compared with 0 (or used as a truth
  value), as the whole condition of an ``if`` (through ``!`` and parentheses); or a scan loop
  (a range-for over ``v`` or an index from 0 to ``v.size()``) whose body is only
  ``if (e == x) { found = true; break; }`` (``break`` optional), right after ``bool found =
  false;`` (or ``found = false;``) and right before ``if (!found)`` / ``if (found)``;
- on the path where ``x`` is absent the very next statement is ``v.push_back(x)`` (or
  ``emplace_back``) of the same expression: the first statement of the branch taken, or, when
  there is no such branch, the statement after the ``if``. Nothing runs between the search and
  the append, so the value cannot change; it is a variable or an element ``a[i]`` of another
  array or container (no side effects), of exactly the type ``T`` (``find`` compares in the
  value's type, the vector stores it converted);
- that append is the only change of ``v`` in the function (``reserve`` aside), and every other
  mention (``code/sorted_ranges.py`` classifies each) only reads it: size, elements, all of it,
  or ``return v;`` by value. No erase, clear, resize, element store, swap, sort, reference,
  pointer, kept iterator, lambda capture or call that could change it;
- the search runs in a loop that starts after the declaration (a vector declared in that loop
  is empty at each search), and the function has no ``goto``, label or ``try`` (no path that
  could insert into the set and then skip the append).

Then the set holds exactly the values of the vector at every search, so ``insert(x).second``
is true exactly when the search found nothing.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from perfpilot.code.declarations import VarType
from perfpilot.code.effects import APPEND_METHODS, CAPACITY_CHANGES
from perfpilot.code.facts import FunctionFacts
from perfpilot.code.loop_header import read_header
from perfpilot.code.sorted_ranges import (
    DECL,
    ESCAPE,
    ITERATE,
    READ,
    RESIZE,
    SIZE,
    WRITE,
    Mentions,
    Use,
    ends_of,
    flat,
    is_size_of,
    jumps_in,
    later_in_block,
    std_name,
    whole_range,
)
from perfpilot.code.syntax import (
    Node,
    arguments,
    callee,
    identifiers,
    line,
    node_text,
    operator,
    receiver,
    statements,
    unwrap,
    walk,
)

_VECTOR = re.compile(r"^(?:std::)?vector\s*<(.+)>$", re.S)
_SYNONYMS = {
    "unsigned int": "unsigned", "signed int": "int", "signed": "int", "long int": "long",
    "signed long": "long", "long long int": "long long", "signed long long": "long long",
    "unsigned long int": "unsigned long", "unsigned long long int": "unsigned long long",
    "short int": "short", "signed short": "short", "unsigned short int": "unsigned short",
}


@dataclass(frozen=True)
class SeenList:
    """A search-then-append the proof accepts.

    ``test``: the condition expression the rewrite replaces (``find``/``count`` forms) or the
    scan loop (``loop`` form); ``absent``: whether ``test`` is true when the value is absent
    (``find``/``count``); ``flag``: the found flag of a scan loop; ``search``: the call or
    loop that searches (what a linear-search finding points at)."""

    var: str
    element: str  # T as written
    decl: Node
    form: str  # "find", "count" or "loop"
    test: Node
    value: Node
    absent: bool
    flag: str
    push: Node
    search: Node


@dataclass(frozen=True)
class Refused:
    """A search-then-append of a local vector left alone, and why."""

    var: str
    node: Node
    why: str


@dataclass(frozen=True)
class _Site:
    var: str
    form: str
    test: Node
    value: Node
    absent: bool
    flag: str
    branch_if: Node  # the ``if`` whose absent path appends
    search: Node


def normal_type(t: str) -> str:
    """A type's spelling without ``const``, references, ``std::`` and whitespace variants."""
    words = re.sub(r"\bconst\b|&", " ", t).split()
    s = " ".join(words).replace("< ", "<").replace(" >", ">").removeprefix("std::")
    return _SYNONYMS.get(s, s)


def hashable_element(t: str) -> bool:
    """Whether a hash set of ``t`` finds exactly what ``==`` finds: integers and strings."""
    n = normal_type(t)
    return n == "string" or (n not in ("bool", "wchar_t") and VarType(n).is_integral)


def seen_lists(facts: FunctionFacts, unit: Node
               ) -> tuple[tuple[SeenList, ...], tuple[Refused, ...]]:
    """The function's proved search-then-append sites, and the candidates refused (a search
    of a local vector the function also appends to), each with why."""
    if facts.language != "cpp" or facts.body is None:
        return (), ()
    m = Mentions(facts, unit)
    sites: list[_Site | Refused] = []
    for call in facts.in_loops("call_expression"):
        found = _call_site(facts, m, call)
        if found is not None:
            sites.append(found)
    for lp in facts.loops:
        scan = _scan_site(facts, m, lp.node)
        if scan is not None:
            sites.append(scan)
    if not sites:
        return (), ()
    function_problem = ""
    if jumps_in(facts):
        function_problem = "the function has goto or labels"
    elif any(n.type == "try_statement" for n in walk(facts.body, named=True)):
        function_problem = "the function catches exceptions (one could fall between the " \
                           "set's insert and the append)"
    proved: list[SeenList] = []
    refused: list[Refused] = []
    for s in sites:
        if isinstance(s, Refused):
            refused.append(s)
            continue
        if function_problem:
            refused.append(Refused(s.var, s.search, function_problem))
            continue
        result = _prove(facts, m, s)
        if isinstance(result, SeenList):
            proved.append(result)
        else:
            refused.append(result)
    return tuple(proved), tuple(refused)


def _appended(m: Mentions, var: str) -> bool:
    """Whether ``var`` is a local vector the function appends to (a candidate)."""
    vt = m.facts.var(var)
    if vt is None or vt.scope != "local" or vt.pointer or vt.array or \
            not _VECTOR.match(" ".join(vt.base.split())):
        return False
    return any(u.kind == RESIZE and u.access.type == "call_expression" and
               callee(u.access) in APPEND_METHODS for u in m.of(var))


def _call_site(facts: FunctionFacts, m: Mentions, call: Node) -> _Site | Refused | None:
    """A ``find``/``count`` over all of a local vector the function appends to, as the
    condition of an ``if`` (None: no such call; Refused: the call is not in that shape)."""
    name = std_name(call, m.own)
    args = arguments(call)
    if name not in ("find", "count") or len(args) != 3:
        return None
    var = whole_range(args[0], args[1])
    if var is None or not _appended(m, var):
        return None
    node, present = call, name == "count"
    p = call.parent
    while p is not None and p.type == "parenthesized_expression":
        node, p = p, p.parent
    if p is not None and p.type == "binary_expression":
        op = operator(p)
        left, right = p.child_by_field_name("left"), p.child_by_field_name("right")
        other = unwrap(right if left == node else left) if left is not None and \
            right is not None else None
        if name == "find":
            ends = ends_of(var) | {flat(args[1])}
            if other is None or op not in ("==", "!=") or flat(other) not in ends:
                return Refused(var, call, "the std::find result is not compared with the end")
        elif other is None or flat(other) != "0" or op not in ("==", "!=", ">") or (
                op == ">" and left != node):
            return Refused(var, call, "the std::count result is not compared with 0")
        present = op != "=="
        node = p
    elif name == "find":
        return Refused(var, call, "the std::find result is not compared with the end")
    found = _condition_of(node, present)
    if found is None:
        return Refused(var, call, "the search is not the whole condition of an if")
    cond, if_stmt, present = found
    return _Site(var, name, cond, unwrap(args[2]), not present, "", if_stmt, call)


def _condition_of(node: Node, true_when: bool) -> tuple[Node, Node, bool] | None:
    """The outermost expression of an ``if`` condition built from ``node`` by ``!`` and
    parentheses, the ``if``, and whether the condition is true when ``node`` is (None: not a
    whole condition)."""
    p = node.parent
    while p is not None and (p.type == "parenthesized_expression" or (
            p.type == "unary_expression" and operator(p) == "!")):
        if p.type == "unary_expression":
            true_when = not true_when
        node, p = p, p.parent
    if p is None or p.type != "condition_clause" or p.child_by_field_name("value") != node or \
            p.parent is None or \
            p.parent.type != "if_statement":
        return None
    return node, p.parent, true_when


def _scan_site(facts: FunctionFacts, m: Mentions, loop: Node) -> _Site | None:
    """A hand-written scan loop over all of a local vector setting a found flag, between the
    flag's reset and the ``if`` on it (None: not that shape)."""
    scanned = _scan_header(loop)
    if scanned is None:
        return None
    var, elem, index = scanned
    if not _appended(m, var):
        return None
    body = statements(loop.child_by_field_name("body"))
    if len(body) != 1 or body[0].type != "if_statement" or \
            body[0].child_by_field_name("alternative") is not None:
        return None
    test = unwrap(body[0].child_by_field_name("condition"))
    if test is None or test.type != "binary_expression" or operator(test) != "==":
        return None
    left, right = test.child_by_field_name("left"), test.child_by_field_name("right")
    if left is None or right is None:
        return None
    value = right if flat(left) == elem else left if flat(right) == elem else None
    then = statements(body[0].child_by_field_name("consequence"))
    if value is None or not 1 <= len(then) <= 2 or \
            (len(then) == 2 and then[1].type != "break_statement"):
        return None
    flag = _assigned(then[0], "true")
    if flag is None or identifiers(value) & {flag, index} or not _reset_before(loop, flag):
        return None
    after = _next_statement(loop)
    if after is None or after.type != "if_statement":
        return None
    cond = unwrap(after.child_by_field_name("condition"))
    absent = False  # ``if (found)`` runs its branch when the value is present
    while cond is not None and cond.type == "unary_expression" and operator(cond) == "!":
        absent = not absent
        cond = unwrap(cond.child_by_field_name("argument") or cond)
    if cond is None or cond.type != "identifier" or node_text(cond) != flag:
        return None
    vt = facts.var(flag)
    if vt is None or normal_type(vt.base) != "bool" or vt.scope != "local" or vt.reference:
        return None
    return _Site(var, "loop", loop, unwrap(value), absent, flag, after, loop)


def _scan_header(loop: Node) -> tuple[str, str, str] | None:
    """``(v, e, k)`` for a loop visiting every element of ``v`` as ``e`` (its text) with the
    loop's own variable ``k``: a range-for over ``v``, or ``for (... j = 0; j < v.size();
    ++j)`` with ``e`` = ``v[j]``."""
    if loop.type == "for_range_loop":
        rng, decl = loop.child_by_field_name("right"), loop.child_by_field_name("declarator")
        if rng is None or rng.type != "identifier" or decl is None:
            return None
        name = flat(decl).lstrip("&")
        return (node_text(rng), name, name) if re.fullmatch(r"[A-Za-z_]\w*", name) else None
    got = whole_index_loop(loop)
    return (got[0], f"{got[0]}[{got[1]}]", got[1]) if got is not None else None


def whole_index_loop(loop: Node) -> tuple[str, str, Node] | None:
    """``(v, j, init)`` of ``for (T j = 0; j < v.size(); ++j)`` (also ``!=``, ``j++`` and
    ``j += 1``): a counted loop over every index of ``v`` from the front, ``init`` its
    declaration."""
    if loop.type != "for_statement":
        return None
    h = read_header(loop)
    j, init, size = h.var, h.initializer, h.bound
    if j is None or init is None or not h.declared or not h.plain_init or \
            flat(h.init) != "0" or h.compare not in ("<", "!=") or h.flipped or \
            h.step_text != "++":
        return None
    var = next((n for n in re.findall(r"(\w+)\.size\(\)", flat(size))), None)
    if var is None or size is None or not is_size_of(size, var):
        return None
    return var, j, init


def _assigned(stmt: Node, value: str) -> str | None:
    """``f`` when the statement is ``f = value;``."""
    e = stmt.named_children[0] if stmt.type == "expression_statement" and \
        stmt.named_child_count == 1 else None
    if e is None or e.type != "assignment_expression" or operator(e) != "=":
        return None
    left, right = e.child_by_field_name("left"), e.child_by_field_name("right")
    if left is None or left.type != "identifier" or flat(right) != value:
        return None
    return node_text(left)


def _reset_before(loop: Node, flag: str) -> bool:
    """Whether the statement just before the loop is ``bool flag = false;`` or
    ``flag = false;``."""
    prev = loop.prev_named_sibling
    while prev is not None and prev.type == "comment":
        prev = prev.prev_named_sibling
    if prev is None or loop.parent is None or loop.parent.type != "compound_statement":
        return False
    if prev.type == "declaration":
        ds = prev.children_by_field_name("declarator")
        return len(ds) == 1 and ds[0].type == "init_declarator" and \
            node_text(ds[0].child_by_field_name("declarator")) == flag and \
            flat(ds[0].child_by_field_name("value")) == "false"
    return _assigned(prev, "false") == flag


def _next_statement(stmt: Node) -> Node | None:
    """The statement after ``stmt`` in its block (comments skipped)."""
    if stmt.parent is None or stmt.parent.type != "compound_statement":
        return None
    nxt = stmt.next_named_sibling
    while nxt is not None and nxt.type == "comment":
        nxt = nxt.next_named_sibling
    return nxt


def _absent_path_push(s: _Site) -> Node | None:
    """The ``v.push_back(x)`` call that runs right after the search when ``x`` is absent."""
    branch = s.branch_if.child_by_field_name("consequence") if s.absent else None
    if not s.absent:
        alt = s.branch_if.child_by_field_name("alternative")
        if alt is not None:
            branch = next((c for c in alt.named_children if c.type != "comment"), None) \
                if alt.type == "else_clause" else alt
            if branch is None:
                return None
    if branch is not None:
        first = statements(branch)
        stmt = first[0] if first else None
    else:
        stmt = _next_statement(s.branch_if)
    if stmt is None or stmt.type != "expression_statement" or stmt.named_child_count != 1:
        return None
    call = stmt.named_children[0]
    if call is None or call.type != "call_expression" or callee(call) not in APPEND_METHODS:
        return None
    rcv = receiver(call)
    args = arguments(call)
    if rcv is None or rcv.type != "identifier" or node_text(rcv) != s.var or len(args) != 1 or \
            flat(args[0]) != flat(s.value):
        return None
    return call


def plain_empty_vector(m: Mentions, var: str) -> tuple[Node, str] | str:
    """The declaration statement and element type (as written) of a vector declared once, alone
    and empty, as a plain local in a block, or why it is not."""
    return _declaration(m, var, hashable=False)


def searched_value_type(m: Mentions, value: Node, var: str) -> str | None:
    """The normalised type of a value searched for in ``var`` when it is a variable or an
    element ``a[i]`` of another array or container (no side effects); None otherwise."""
    return _value_type(m.facts, m, value, var)


def _declaration(m: Mentions, var: str, hashable: bool = True) -> tuple[Node, str] | str:
    """The vector's declaration statement and element type, or why it is not a fresh, empty,
    plain local vector (of hashable elements, with ``hashable``)."""
    facts = m.facts
    vt = facts.var(var)
    if vt is None or vt.scope != "local" or vt.reference or vt.pointer or vt.array or \
            not m.declared_once(var):
        return f"'{var}' is not declared once as a plain local"
    decl_use = next(u for u in m.of(var) if u.kind == DECL)
    decl = decl_use.ident.parent
    while decl is not None and decl.type != "declaration":
        decl = decl.parent
    if decl is None or decl.parent is None or decl.parent.type != "compound_statement":
        return f"'{var}' is not declared in a block"
    if any(c.type in ("storage_class_specifier", "type_qualifier", "attribute_declaration")
           for c in decl.children):
        return f"'{var}' is declared static or with qualifiers"
    ds = decl.children_by_field_name("declarator")
    if len(ds) != 1:
        return f"'{var}' is declared together with other variables"
    d = ds[0]
    if d.type == "init_declarator":
        value = d.child_by_field_name("value")
        if value is None or value.type != "initializer_list" or value.named_child_count:
            return f"'{var}' does not start empty"
    elif d.type != "identifier":
        return f"'{var}' does not start empty"
    tm = _VECTOR.match(" ".join(node_text(decl.child_by_field_name("type")).split()))
    element = tm.group(1).strip() if tm is not None else ""
    if not element or "," in re.sub(r"<[^<>]*>", "", re.sub(r"<[^<>]*>", "", element)):
        return f"'{var}' is not a std::vector with the default allocator"
    if hashable and not hashable_element(element):
        return (f"the elements of '{var}' ({element}) are not integers or strings, whose hash "
                "equality is ==")
    return decl, element


def _value_type(facts: FunctionFacts, m: Mentions, value: Node, var: str) -> str | None:
    """The type of the searched value when it is a variable or an element ``a[i]`` of another
    array or container (no side effects), normalised; None when unknown or not such."""
    if value.type == "identifier":
        return _variable_type(facts, m, node_text(value), var, value)
    if value.type == "subscript_expression":
        arr = value.child_by_field_name("argument")
        inds = value.child_by_field_name("indices")
        idx = [c for c in inds.named_children if c.type != "comment"] if inds is not None else []
        if arr is None or arr.type != "identifier" or node_text(arr) == var or len(idx) != 1 or \
                idx[0].type not in ("identifier", "number_literal") or \
                _variable_type(facts, m, node_text(arr), var) is None:
            return None
        return _element_of(facts.var(node_text(arr)))
    return None


def _element_of(vt: VarType | None) -> str | None:
    """The element type of an array, pointer, vector, deque, std::array or string variable."""
    if vt is None:
        return None
    if normal_type(vt.base) == "string" and not vt.pointer and not vt.array:
        return "char"
    el = vt.element
    return normal_type(el.base) if el is not None and not el.pointer and not el.array else None


def _variable_type(facts: FunctionFacts, m: Mentions, name: str, var: str,
                   at: Node | None = None) -> str | None:
    """The declared type of a variable, as seen at ``at``: the nearest range-for around it
    declaring the name (``auto`` resolved through a range that is not ``var``), else the one
    declaration of the name in the function (a parameter or local) or none (a global); None
    when unknown, ambiguous, a pointer or an array."""
    if sum(1 for u in m.of(name) if u.kind == DECL) > 1:
        return None
    loops = [n for n in facts.nodes("for_range_loop")
             if flat(n.child_by_field_name("declarator")).lstrip("&") == name]
    around = [n for n in loops if at is not None and n.start_byte < at.start_byte < n.end_byte]
    if not around:
        vt = facts.var(name)
        if loops or vt is None or vt.pointer or vt.array:
            return None
        t = normal_type(vt.base)
        return None if t == "auto" else t
    if any(u.kind == DECL for u in m.of(name)):
        return None  # a local of that name may hide the loop's variable
    loop = max(around, key=lambda n: n.start_byte)
    declared = normal_type(node_text(loop.child_by_field_name("type")))
    if declared != "auto":
        return declared
    rng = loop.child_by_field_name("right")
    if rng is None or rng.type != "identifier" or node_text(rng) == var:
        return None
    return _element_of(facts.var(node_text(rng)))


def _prove(facts: FunctionFacts, m: Mentions, s: _Site) -> SeenList | Refused:
    var = s.var

    def refuse(why: str) -> Refused:
        return Refused(var, s.search, why)

    declared = _declaration(m, var)
    if isinstance(declared, str):
        return refuse(declared)
    decl, element = declared
    push = _absent_path_push(s)
    if push is None:
        return refuse(f"when the value is absent, the next statement is not '{var}.push_back' "
                      "of the same expression")
    if s.value.type not in ("identifier", "subscript_expression"):
        return refuse("the searched value is not a variable or an element (it could change "
                      "or have side effects)")
    value_type = _value_type(facts, m, s.value, var)
    if value_type is None or value_type != normal_type(element):
        return refuse(f"the searched value is not known to have the element type {element} "
                      "(the search would compare in another type)")
    if s.form == "loop":
        elem = s.search.child_by_field_name("type")
        if s.search.type == "for_range_loop" and elem is not None and \
                normal_type(node_text(elem)) not in ("auto", normal_type(element)):
            return refuse("the scan loop converts the elements to another type")
    why = _other_uses(m, var, decl, push)
    if why:
        return refuse(why)
    lp = facts.loop_of(s.search)
    if lp is None or lp.node.start_byte < decl.end_byte:
        return refuse(f"'{var}' is declared inside the loop that searches it: it starts empty "
                      "there each time")
    return SeenList(var, element, decl, s.form, s.test, s.value, s.absent, s.flag, push,
                    s.search)


def _other_uses(m: Mentions, var: str, decl: Node, push: Node) -> str:
    """Why some mention of ``var`` other than the append may change it or let it escape."""
    for u in m.of(var):
        if u.kind == DECL:
            continue
        where = f"line {line(u.ident)}"
        if not later_in_block(decl, u.ident):
            return f"'{var}' is named before its declaration ({where})"
        if u.kind in (SIZE, READ, ITERATE):
            continue
        if u.kind == RESIZE and u.access.start_byte == push.start_byte and \
                u.access.end_byte == push.end_byte:
            continue
        if u.kind == WRITE and u.access.type == "call_expression" and \
                callee(u.access) in CAPACITY_CHANGES:
            continue
        if u.kind == ESCAPE and _returned_by_value(u):
            continue
        return f"'{var}' {_what(u)} on {where}"
    return ""


def _what(u: Use) -> str:
    if u.kind in (RESIZE, WRITE):
        return f"is changed by `{' '.join(node_text(u.access).split())[:48]}`"
    return "escapes (a reference, pointer, iterator, capture or call may change it)"


def _returned_by_value(u: Use) -> bool:
    """``return v;`` from a function that returns by value (not through a lambda)."""
    ret = u.ident.parent
    if ret is None or ret.type != "return_statement":
        return False
    fn = ret.parent
    while fn is not None and fn.type not in ("function_definition", "lambda_expression"):
        fn = fn.parent
    decl = fn.child_by_field_name("declarator") if fn is not None and \
        fn.type == "function_definition" else None
    return decl is not None and decl.type == "function_declarator"
