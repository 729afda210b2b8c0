"""Standard algorithm calls in a loop that compute the same value on every iteration.

``std::accumulate(v.begin(), v.end(), 0.0)`` (or ``count``, ``count_if``, ``find``,
``max_element``, ... : ``PURE_RANGE_SCANS``) inside a loop whose iterations never change ``v``
nor the other arguments rescans ``v`` each time. Computed once before the loop into a
``const auto`` local, the loop reads the same value: the call is the same call, so even a
floating sum is bit-identical.

What is proved, for the loop the call moves out of (and each loop around it it moves out of):

- the ranges are whole standard containers (``x.begin(), x.end()``) of arithmetic elements that
  the loop changes neither by name nor through another object of their type
  (``container_changes``), and that are no local references;
- the loop writes only locals held by value of arithmetic type or standard containers of
  arithmetic elements (so no pointer, reference, global or member it writes can be a range),
  and calls only functions known to write no memory, read-only methods, methods of those
  locals, and these algorithms with pure lambdas;
- the other arguments (initial values, values searched for, names a lambda reads) are not
  written in the loop, declared in it, nor local references or pointers.

Moving a call before a loop evaluates it where the original may not (a loop of no iterations,
a call under a condition). That is allowed outright only when the call cannot misbehave: whole
ranges are always valid, comparisons of arithmetic values never fail, a floating sum of integers
or of floating values no wider than the sum cannot overflow into undefined behaviour, and a
lambda that only compares its parameters cannot either. The iterator results of ``find`` or
``max_element`` are computed before the loop; any dereference stays where it was. Otherwise (an
integer sum, which may overflow; ``inner_product``, whose second range may be too short; a
lambda that indexes, calls or does integer arithmetic) the call must be one the first iteration
of its own loop always evaluates (at the top of the body before any jump, or in a ``for`` or
``while`` condition outside ``&&``, ``||`` and ``?:``), and it is computed only under the
loop's entry condition (``guard``), so it runs exactly when the original runs it first.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

from perfpilot.code.container_changes import changes_in_loop
from perfpilot.code.declarations import VarType
from perfpilot.code.effects import (
    NEVER_WRITES_MEMORY,
    NO_SIDE_EFFECTS,
    PURE_RANGE_SCANS,
    READ_ONLY_METHODS,
    SIZE_METHODS,
)
from perfpilot.code.facts import FunctionFacts, Loop
from perfpilot.code.purity import pure_lambda
from perfpilot.code.std_calls import whole_range
from perfpilot.code.syntax import (
    Node,
    arguments,
    callee,
    declarator_name,
    identifiers_of,
    node_text,
    number,
    operator,
    receiver,
    root_name,
    unwrap,
    walk,
)

# argument positions: (range arguments, the start of a second range, scalar values, functions)
_SHAPES: dict[str, dict[int, tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...]]]] = {
    "accumulate": {3: ((), (2,), ()), 4: ((), (2,), (3,))},
    "reduce": {2: ((), (), ()), 3: ((), (2,), ()), 4: ((), (2,), (3,))},
    "inner_product": {4: ((2,), (3,), ()), 6: ((2,), (3,), (4, 5))},
    "count": {3: ((), (2,), ())},
    "find": {3: ((), (2,), ())},
    "count_if": {3: ((), (), (2,))},
    "find_if": {3: ((), (), (2,))},
    "find_if_not": {3: ((), (), (2,))},
    "all_of": {3: ((), (), (2,))},
    "any_of": {3: ((), (), (2,))},
    "none_of": {3: ((), (), (2,))},
    "min_element": {2: ((), (), ()), 3: ((), (), (2,))},
    "max_element": {2: ((), (), ()), 3: ((), (), (2,))},
}
_SUMS = frozenset({"accumulate", "reduce"})
_CONTAINER = re.compile(r"^(?:std::)?(?:vector|deque|array)\s*<")
_STRING = re.compile(r"^(?:std::)?(?:string|basic_string\s*<\s*char\s*>)$")
_FLOAT_RANK = {"float": 0, "double": 1, "long double": 2}
_COMPARE = frozenset({"==", "!=", "<", "<=", ">", ">=", "&&", "||", "&", "|", "^"})
_UNEVALUATED = frozenset({"sizeof_expression", "decltype", "alignof_expression"})
_JUMPS = frozenset({"break_statement", "continue_statement", "return_statement",
                    "goto_statement", "throw_expression", "throw_statement",
                    "labeled_statement", "co_return_statement", "co_yield_statement"})


@dataclass(frozen=True)
class InvariantScan:
    """An algorithm call ``call`` (kind ``kind``, first range over ``container``) that ``target``
    and every loop inside it around the call leave unchanged. ``guard``: "" to compute it
    before ``target`` unconditionally, else the condition under which ``target`` runs its
    first iteration (the call is computed only then); ``fallback`` is then a value of the
    call's own type, cheap and harmless, for when it is not (the loop never reads it)."""

    call: Node
    kind: str
    container: str
    target: Loop
    guard: str
    fallback: str = ""


def invariant_scans(facts: FunctionFacts) -> tuple[list[InvariantScan], list[tuple[Node, str]]]:
    """The calls proved invariant, and the calls left alone with the reason in words."""
    found: list[InvariantScan] = []
    refused: list[tuple[Node, str]] = []
    blockers: dict[int, str] = {}
    for call in facts.in_loops("call_expression"):
        fn = call.child_by_field_name("function")
        kind = callee(call)
        if fn is None or receiver(call) is not None or kind not in PURE_RANGE_SCANS or \
                not "".join(node_text(fn).split()).startswith("std::"):
            continue
        loop = facts.loop_of(call)
        if loop is None or _excluded_position(call, loop.node):
            continue
        site = _site(facts, call, kind, loop, blockers)
        if isinstance(site, str):
            refused.append((call, site))
        else:
            found.append(site)
    return found, refused


def _site(facts: FunctionFacts, call: Node, kind: str, loop: Loop,
          blockers: dict[int, str]) -> InvariantScan | str:
    args = arguments(call)
    shape = _SHAPES[kind].get(len(args))
    if shape is None:
        return "its arguments are not a range and the values the algorithm takes"
    starts, scalars, functors = shape
    container = whole_range(args[0], args[1])
    if container is None:
        return "its range is not a whole container (`x.begin(), x.end()`)"
    roots = [container]
    for k in starts:
        other = _begin_of(args[k])
        if other is None:
            return "its second range does not start at a container's `begin()`"
        roots.append(other)
    types = facts.loop_types
    elements: list[str] = []
    for r in roots:
        vt = types.get(r)
        elem = _element(vt)
        if vt is None or elem is None:
            return f"`{r}` is not a standard container of arithmetic elements"
        if vt.scope == "local" and vt.reference:
            return f"`{r}` is a local reference, which may name what the loop writes"
        elements.append(elem)
    spec = _speculation(facts, kind, [args[k] for k in scalars],
                        [args[k] for k in functors], elements[0])
    names: set[str] = set()
    for k in scalars:
        names |= identifiers_of(args[k])
    for k in functors:
        f = unwrap(args[k])
        if f.type != "lambda_expression" or not pure_lambda(f, facts.unit):
            return f"`{node_text(f)[:40]}` is not a lambda known to have no side effects"
        names |= _lambda_free_names(f)
    # the loops it is invariant in, innermost first
    chain: list[Loop] = []
    lp: Loop | None = loop
    while lp is not None:
        why = _changes(facts, lp, roots, names, blockers)
        if why:
            if not chain:
                return why
            break
        chain.append(lp)
        lp = facts.loops[lp.parent] if lp.parent is not None else None
    if spec:
        slots = [c for c in chain if _slot_ok(c.node)]
        if not slots:
            return "no enclosing loop it is invariant in sits directly in a block"
        return InvariantScan(call, kind, container, slots[-1], "")
    # computed only when its own loop's first iteration would compute it
    first = _evaluated_first(call, loop)
    if first:
        return f"{spec_reason(kind)}, and {first}"
    guard = "" if _in_condition(call, loop) else _entry_guard(facts, loop)
    if guard is None:
        return (f"{spec_reason(kind)}, and the loop's entry condition cannot be tested once "
                "before it")
    if not _slot_ok(loop.node):
        return "the loop does not sit directly in a block"
    return InvariantScan(call, kind, container, loop, guard, _fallback(kind, args))


def _fallback(kind: str, args: list[Node]) -> str:
    """A value of exactly the type ``kind`` returns for ``args``, computed without touching
    the range: the initial value of a sum, the distance type, ``false``, the end iterator."""
    if kind in ("accumulate", "inner_product") or (kind == "reduce" and len(args) > 2):
        return f"({node_text(args[3 if kind == 'inner_product' else 2])})"
    if kind == "reduce":
        return f"std::decay_t<decltype(*{node_text(args[0])})>{{}}"
    if kind in ("count", "count_if"):
        return f"({node_text(args[1])} - {node_text(args[0])})"
    if kind in ("all_of", "any_of", "none_of"):
        return "false"
    return node_text(args[1])


def spec_reason(kind: str) -> str:
    """Why a call of ``kind`` may not be computed where the original might not compute it."""
    if kind == "inner_product":
        return "`inner_product` reads a second range that may be too short"
    if kind in _SUMS:
        return "the sum may overflow an integer (or run a function) where the original did not"
    return "its function or value may misbehave where the original did not evaluate it"


def _slot_ok(node: Node) -> bool:
    parent = node.parent
    prev = node.prev_sibling
    return parent is not None and parent.type == "compound_statement" and \
        (prev is None or not prev.type.startswith("preproc"))


def _excluded_position(call: Node, stop: Node) -> bool:
    """Inside a lambda or an unevaluated operand (``decltype``, ``sizeof``), or used as an
    object that is changed or whose address is taken (``++std::find(...)``, where a named
    ``const`` copy would not behave alike)."""
    p: Node | None = call.parent
    child: Node = call
    while p is not None and p != stop:
        if p.type == "lambda_expression" or p.type in _UNEVALUATED or \
                p.type == "update_expression" or \
                (p.type == "pointer_expression" and operator(p) == "&"):
            return True
        if p.type in ("assignment_expression", "compound_assignment_expression") and \
                p.child_by_field_name("left") == child:
            return True
        child = p
        p = p.parent
    return False


def _begin_of(arg: Node) -> str | None:
    arg = unwrap(arg)
    fn = arg.child_by_field_name("function") if arg.type == "call_expression" else None
    if fn is None or fn.type != "field_expression" or arguments(arg):
        return None
    obj, field = fn.child_by_field_name("argument"), fn.child_by_field_name("field")
    if obj is None or obj.type != "identifier" or node_text(field) not in ("begin", "cbegin") or \
            node_text(fn.child_by_field_name("operator")) != ".":
        return None
    return node_text(obj)


def _element(vt: VarType | None) -> str | None:
    """The arithmetic element type of a standard container variable, else None."""
    if vt is None or vt.pointer or vt.array:
        return None
    base = " ".join(vt.base.replace("const", "").split())
    if _STRING.match(base):
        return "char"
    if not _CONTAINER.match(base):
        return None
    elem = vt.element
    if elem is None:
        return None
    e = " ".join(elem.base.replace("const", "").split())
    return e if (VarType(e).is_integral and e != "bool") or e in _FLOAT_RANK else None


def _floating(facts: FunctionFacts, node: Node) -> str | None:
    """The floating type of an initial value (a literal, variable or cast), else None."""
    node = unwrap(node)
    if node.type == "number_literal":
        t = node_text(node).lower().replace("'", "")
        if t.startswith("0x") or not any(c in t for c in ".e"):
            return None
        return "float" if t.endswith("f") else "long double" if t.endswith("l") else "double"
    if node.type == "identifier":
        vt = facts.loop_types.get(node_text(node))
        if vt is None or vt.pointer or vt.array:
            return None
        base = " ".join(vt.base.replace("const", "").split())
        return base if base in _FLOAT_RANK else None
    if node.type == "cast_expression":
        t = " ".join(node_text(node.child_by_field_name("type")).split())
        return t if t in _FLOAT_RANK else None
    if node.type == "call_expression":
        m = re.fullmatch(r"static_cast<\s*(float|double|long\s+double)\s*>",
                         node_text(node.child_by_field_name("function")))
        return " ".join(m.group(1).split()) if m else None
    return None


def _speculation(facts: FunctionFacts, kind: str, scalars: list[Node], functors: list[Node],
                 element: str) -> bool:
    """Whether the call can be evaluated where the original would not evaluate it: no
    undefined behaviour and no effect whatever the values (ranges are whole containers)."""
    if kind == "inner_product":
        return False
    if not all(_plain_value(s) for s in scalars):
        return False
    if kind in _SUMS:
        if functors:
            return False
        init = _floating(facts, scalars[0]) if scalars else \
            (element if element in _FLOAT_RANK else None)
        if init is None:
            return False
        return element not in _FLOAT_RANK or _FLOAT_RANK[element] <= _FLOAT_RANK[init]
    return all(_comparing_lambda(facts, unwrap(f)) for f in functors)


def _plain_value(node: Node) -> bool:
    """A value read without touching memory that might not exist: literals, variables,
    ``size()``, arithmetic without division."""
    for n in walk(node):
        if n.type in ("subscript_expression", "pointer_expression", "cast_expression",
                      "assignment_expression", "compound_assignment_expression",
                      "update_expression", "lambda_expression", "comma_expression"):
            return False
        if n.type == "field_expression":
            p = n.parent
            if p is None or p.type != "call_expression" or \
                    node_text(n.child_by_field_name("field")) not in SIZE_METHODS:
                return False
        if n.type == "call_expression" and receiver(n) is None:
            return False
        if n.type == "binary_expression" and operator(n) in ("/", "%", "<<", ">>"):
            return False
    return True


def _comparing_lambda(facts: FunctionFacts, lam: Node) -> bool:
    """A lambda that only compares (``x > t``, ``x % 2 == 0``): no memory touched, no call,
    and arithmetic that can overflow only on floating values."""
    body = lam.child_by_field_name("body")
    decl = lam.child_by_field_name("declarator")
    params = decl.child_by_field_name("parameters") if decl is not None else None
    if body is None:
        return False
    floats = set()
    all_float = True
    for p in params.named_children if params is not None else []:
        name = declarator_name(p.child_by_field_name("declarator"))
        t = " ".join(node_text(p.child_by_field_name("type")).replace("const", "").split())
        if name and t in ("float", "double"):
            floats.add(name)
        else:
            all_float = False
    for n in walk(body):
        if n.type in ("subscript_expression", "pointer_expression", "field_expression",
                      "call_expression", "cast_expression", "new_expression"):
            return False
        if n.type == "unary_expression" and operator(n) not in ("!", "~"):
            return False
        if n.type == "binary_expression":
            op = operator(n)
            if op in _COMPARE:
                continue
            right = n.child_by_field_name("right")
            if op in ("%", "/") and right is not None and \
                    unwrap(right).type == "number_literal" and (number(right) or 0) > 0:
                continue
            if op in ("+", "-", "*") and all_float and all(
                    t in floats or ((vt := facts.loop_types.get(t)) is not None
                                    and vt.is_floating)
                    for t in {node_text(i) for i in walk(n) if i.type == "identifier"}):
                continue
            return False
    return True


def _lambda_free_names(lam: Node) -> set[str]:
    """The names a lambda reads from around it: all but its parameters and own locals."""
    own: set[str] = set()
    for n in walk(lam):
        if n.type in ("parameter_declaration", "init_declarator", "declaration"):
            name = declarator_name(n.child_by_field_name("declarator"))
            if name:
                own.add(name)
    body = lam.child_by_field_name("body")
    return (identifiers_of(body) - own) if body is not None else set()


def _changes(facts: FunctionFacts, loop: Loop, roots: list[str], names: set[str],
             blockers: dict[int, str]) -> str:
    """Why the call's inputs may change while ``loop`` runs ("" when they cannot)."""
    if loop.index not in blockers:
        blockers[loop.index] = _loop_blocker(facts, loop)
    if blockers[loop.index]:
        return blockers[loop.index]
    changed = facts.modified_in(loop.node) | facts.declared_in(loop.node)
    if loop.var is not None:
        changed |= {loop.var}
    types = facts.loop_types
    for r in roots:
        vt = types.get(r)
        if r in changed or vt is None:
            return f"the loop changes `{r}`"
        scans = frozenset(
            n.start_byte for n in facts.nodes("for_range_loop", loop.node)
            if node_text(n.child_by_field_name("right")) == r and
            "&" not in node_text(n.child_by_field_name("declarator")))
        why = changes_in_loop(loop.node, r, vt, types, scans)
        if why:
            return why
    for n in sorted(names - set(roots)):  # the same reason on every run
        vt = types.get(n)
        if n in changed:
            return f"the loop changes `{n}`"
        if vt is None:
            return f"`{n}` is not a variable of the function"
        if vt.scope == "local" and (vt.reference or vt.pointer):
            return f"`{n}` is a local reference or pointer, which may name what the loop writes"
        if _element(vt) is not None:
            why = changes_in_loop(loop.node, n, vt, types)
            if why:
                return why
    return ""


def _own_storage(vt: VarType | None) -> bool:
    """A local held by value that no pointer, reference or range of the call can reach."""
    if vt is None or vt.scope != "local" or vt.reference or vt.pointer or \
            "static" in vt.type_text.split():
        return False
    if vt.array:
        return VarType(vt.base).is_arithmetic
    return vt.is_arithmetic or _element(vt) is not None


def _loop_blocker(facts: FunctionFacts, loop: Loop) -> str:
    """Why the loop might change a container or value it does not name (writes through
    pointers, references, globals or members; unknown calls), "" when it cannot."""
    types = facts.loop_types
    for name in sorted(facts.modified_in(loop.node)):
        if not _own_storage(types.get(name)):
            return (f"the loop writes `{name}`, which is not a local value of its own (it may "
                    "reach the data read)")
    for kind in ("assignment_expression", "compound_assignment_expression"):
        for a in facts.nodes(kind, loop.node):
            if root_name(a.child_by_field_name("left")) is None:
                return f"the loop writes through `{node_text(a.child_by_field_name('left'))[:40]}`"
    for u in facts.nodes("update_expression", loop.node):
        if root_name(u.child_by_field_name("argument")) is None:
            return f"the loop writes through `{node_text(u)[:40]}`"
    for c in facts.nodes("call_expression", loop.node):
        name = callee(c)
        rcv = receiver(c)
        if rcv is not None:
            if name in READ_ONLY_METHODS or _own_storage(types.get(root_name(rcv) or "")):
                continue
            return f"the loop calls `{node_text(c.child_by_field_name('function'))}`"
        qualified = "".join(node_text(c.child_by_field_name("function")).split())
        if name in NO_SIDE_EFFECTS or name in NEVER_WRITES_MEMORY or \
                (name in PURE_RANGE_SCANS and qualified.startswith("std::")):
            continue
        return f"the loop calls `{qualified}`, which may change what the call reads"
    for lam in facts.nodes("lambda_expression", loop.node):
        if not pure_lambda(lam, facts.unit):
            return "the loop holds a lambda that may have side effects"
    for n in walk(loop.node):
        if n.type in ("delete_expression", "gnu_asm_expression"):
            return "the loop deletes storage or runs assembly"
    return ""


def _in_condition(call: Node, loop: Loop) -> bool:
    cond = loop.condition
    return cond is not None and cond.start_byte <= call.start_byte < cond.end_byte


def _evaluated_first(call: Node, loop: Loop) -> str:
    """"" when the first iteration of ``loop`` surely evaluates ``call`` (no jump, branch or
    short-circuit before it), else why not."""
    if _in_condition(call, loop):
        if loop.kind not in ("for", "while"):
            return "it is in the condition of a `do` loop"
        stop = loop.condition
    else:
        stop = loop.body
    if stop is None:
        return "the loop has no body"
    p: Node | None = call
    stmt = call
    while p is not None and p != stop:
        parent = p.parent
        if parent is None:
            return "it is not in the loop"
        if parent.type == "conditional_expression" or (
                parent.type == "binary_expression" and operator(parent) in ("&&", "||")):
            return "it is under a condition (`?:`, `&&` or `||`)"
        if parent.type in ("if_statement", "switch_statement", "case_statement",
                           "lambda_expression") or parent.type in _JUMPS:
            return "it is under a branch"
        stmt = p
        p = parent
    if stop == loop.body and stop.type == "compound_statement":
        for s in stop.named_children:
            if s.start_byte >= stmt.start_byte:
                break
            if _may_skip(s):
                return f"a statement before it (`{node_text(s)[:40]}`) may jump or throw"
        if _may_skip(stmt, before=call.start_byte):
            return "the statement may throw before reaching it"
    return ""


def _may_skip(node: Node, before: int | None = None) -> bool:
    """Whether evaluating ``node`` (up to byte ``before``) may leave the iteration."""
    for n in walk(node):
        if before is not None and n.start_byte >= before:
            continue
        if n.type in _JUMPS or n.type in ("for_statement", "while_statement", "do_statement",
                                          "for_range_loop"):
            return True
        if n.type == "call_expression":
            name = callee(n)
            if receiver(n) is not None:
                if name == "at" or name not in READ_ONLY_METHODS:
                    return True
            elif name not in NO_SIDE_EFFECTS:
                return True
    return False




def _simple(node: Node | None) -> bool:
    """Side-effect-free and cheap to evaluate twice: names, literals, arithmetic, and
    ``size()``/``length()``/``empty()`` of a named object."""
    if node is None:
        return False
    for n in walk(node):
        if n.type in ("assignment_expression", "compound_assignment_expression",
                      "update_expression", "comma_expression", "lambda_expression",
                      "subscript_expression", "pointer_expression"):
            return False
        if n.type == "call_expression":
            r = receiver(n)
            if r is None or r.type != "identifier" or callee(n) not in SIZE_METHODS or \
                    arguments(n):
                return False
        if n.type == "field_expression" and (n.parent is None or
                                             n.parent.type != "call_expression"):
            return False
    return True


def _entry_guard(facts: FunctionFacts, loop: Loop) -> str | None:
    """A condition, evaluated just before ``loop``, that is true exactly when the loop runs
    its first iteration ("" when it always does); None when it cannot be written."""
    node = loop.node
    if loop.kind == "do":
        return ""
    if loop.kind == "while":
        cond = loop.condition
        return node_text(cond) if _simple(cond) else None
    if loop.kind == "range-for":
        right = node.child_by_field_name("right")
        vt = facts.loop_types.get(node_text(right)) if right is not None and \
            right.type == "identifier" else None
        if vt is None or vt.pointer:
            return None
        if vt.array:
            return ""
        return f"!{node_text(right)}.empty()" if _element(vt) is not None else None
    init = node.child_by_field_name("initializer")
    cond = loop.condition
    if cond is None:
        return ""
    if init is None:
        return node_text(cond) if _simple(cond) else None
    if init.type != "declaration" or loop.var is None or loop.init is None or \
            loop.bound is None or not loop.compare:
        return None
    decls = [c for c in init.named_children if c.type == "init_declarator"]
    type_text = " ".join(node_text(init.child_by_field_name("type")).split())
    if len(decls) != 1 or node_text(decls[0].child_by_field_name("declarator")) != loop.var or \
            not VarType(type_text.replace("const", "").strip()).is_arithmetic:
        return None
    bound = "".join(node_text(loop.bound).split())
    if not (_simple(loop.init) and _simple(loop.bound)) or \
            loop.var in identifiers_of(loop.bound) or \
            "".join(node_text(cond).split()) not in (f"{loop.var}{loop.compare}{bound}",
                                                f"{bound}{_FLIP[loop.compare]}{loop.var}"):
        return None
    t = type_text.replace("const", "").strip()
    return f"static_cast<{t}>({node_text(loop.init)}) {loop.compare} ({node_text(loop.bound)})"


_FLIP = {"<": ">", "<=": ">=", ">": "<", ">=": "<=", "!=": "!="}


def scan_starts(facts: FunctionFacts) -> frozenset[int]:
    """The start bytes of the calls proved invariant (other rules step aside for them)."""
    return frozenset(s.call.start_byte for s in invariant_scans(facts)[0])


def iter_targets(scans: list[InvariantScan]) -> Iterator[tuple[Loop, list[InvariantScan]]]:
    """The scans grouped by the loop they move before, in order of the loops."""
    by: dict[int, list[InvariantScan]] = {}
    loops: dict[int, Loop] = {}
    for s in scans:
        by.setdefault(s.target.index, []).append(s)
        loops[s.target.index] = s.target
    for k in sorted(by):
        yield loops[k], by[k]
