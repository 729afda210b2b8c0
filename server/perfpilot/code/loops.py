"""Loop analysis over tree-sitter nodes of a function body.

Finds the loops of a function with their nesting, recognizes canonical counted ``for`` loops
(induction variable, bounds, step), collects what each loop reads and writes, and decides,
conservatively, whether its iterations are independent (so an OpenMP ``parallel for`` keeps the
behaviour). A false "independent" would let a rewrite change results, so every construct the
analysis does not understand makes a loop dependent, with the reason in words.

Assumption, stated once: distinct pointer parameters are taken not to overlap (as compilers'
auto-parallelizers with ``restrict`` and the usual C++ parallel idioms assume); the benchmark
runner still validates every rewrite against the original.

All byte offsets and rows are those of the tree the nodes come from; ``line`` values are 1-based
and shifted by the ``line_base`` given to the analysis (pass a site's ``start_line`` when the tree
is the function's own text, so lines are the unit's).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field

import tree_sitter

from perfpilot.code.declarations import VarType, declared_types, unit_types, walk_declarator
from perfpilot.code.effects import APPEND_METHODS, DOES_IO, NO_SIDE_EFFECTS, PARALLEL_SAFE_METHODS
from perfpilot.code.nul_stores import stores_no_nul
from perfpilot.code.parse import (
    LOOP_TYPES,
    int_literal,
    mutations,
    node_text,
    parse,
    unparen,
    walk_all,
)
from perfpilot.code.site import FunctionSite

Node = tree_sitter.Node

_KIND = {"for_statement": "for", "while_statement": "while", "do_statement": "do",
         "for_range_loop": "range-for"}

_REDUCTION_CALLS = {"max": "max", "min": "min", "fmax": "max", "fmin": "min"}


@dataclass(frozen=True)
class ElementAccess:
    """A subscripted access ``base[i][j]``: base text, index texts outermost first."""

    base: str
    indices: tuple[str, ...]
    write: bool
    line: int


@dataclass(frozen=True)
class CallSite:
    """A call inside a loop: callee text, object and method for ``obj.m()``, byte range."""

    text: str
    callee: str
    obj: str | None
    method: str | None
    args: tuple[str, ...]
    start_byte: int
    end_byte: int


@dataclass(frozen=True)
class LoopFacts:
    """What the analysis knows about one loop.

    ``independent`` is true only for canonical counted ``for`` loops whose iterations provably
    do not interfere; ``reason`` says why not otherwise. ``reductions`` are ``(op, var)`` with op
    in ``+ * min max``; ``private_vars`` are variables declared outside the loop that each
    iteration assigns before use (they need a ``private`` clause); ``locals`` are declared in the
    body. ``invariant_calls`` are calls in the condition whose object or argument the body does
    not change (``strlen(s)``, ``v.size()``). ``appends`` name containers that get exactly one
    unconditional ``push_back``/``emplace_back`` per iteration.
    """

    kind: str
    start_byte: int
    end_byte: int
    body_start_byte: int
    line: int
    end_line: int
    depth: int
    induction: str | None
    lower: str | None
    upper: str | None
    cond_op: str | None
    step: int | None
    induction_declared: bool
    bounds: str
    counted: bool
    independent: bool
    reason: str
    reductions: tuple[tuple[str, str], ...]
    private_vars: tuple[str, ...]
    locals: tuple[str, ...]
    reads: frozenset[str]
    writes: frozenset[str]
    element_accesses: tuple[ElementAccess, ...]
    calls: tuple[CallSite, ...]
    invariant_calls: tuple[CallSite, ...]
    appends: tuple[str, ...]
    has_io: bool
    children: tuple[LoopFacts, ...]


# ---------------------------------------------------------------------------------------------
# small node helpers


def _identifiers(node: Node) -> set[str]:
    """Variable names referenced in an expression (not field names, not callee names)."""
    out: set[str] = set()
    for n in walk_all(node):
        if n.type == "identifier":
            parent = n.parent
            if parent is not None and parent.type == "call_expression" and \
                    parent.child_by_field_name("function") == n:
                continue
            if parent is not None and parent.type == "qualified_identifier":
                continue
            out.add(node_text(n))
    return out


def _subscript_parts(node: Node) -> tuple[Node, list[str]]:
    """For ``a[i][j]`` the base node ``a`` and the index texts ``["i", "j"]``."""
    indices: list[str] = []
    while node.type == "subscript_expression":
        idx = node.child_by_field_name("index")
        if idx is None:
            lst = node.child_by_field_name("indices")
            idx_text = ",".join(node_text(c) for c in lst.named_children) if lst else ""
        else:
            idx_text = node_text(idx)
        indices.append(" ".join(idx_text.split()))
        arg = node.child_by_field_name("argument")
        if arg is None:
            break
        node = unparen(arg)
    return node, list(reversed(indices))


def _root_name(node: Node) -> str | None:
    """The variable at the root of an lvalue: ``x`` for ``x``, ``x.y``, ``x[i]``, ``*x``."""
    node = unparen(node)
    while True:
        if node.type == "identifier":
            return node_text(node)
        if node.type == "this":
            return "this"
        if node.type in ("subscript_expression", "field_expression", "pointer_expression"):
            arg = node.child_by_field_name("argument")
            if arg is None:
                return None
            node = unparen(arg)
            continue
        return None


def _callee_name(call: Node) -> tuple[str, str | None, str | None]:
    """(callee text, object text, method name) of a call expression."""
    fn = call.child_by_field_name("function")
    if fn is None:
        return "", None, None
    text = node_text(fn)
    if fn.type == "field_expression":
        obj = fn.child_by_field_name("argument")
        field = fn.child_by_field_name("field")
        return text, node_text(obj) if obj else None, node_text(field) if field else None
    if fn.type == "template_function":
        name = fn.child_by_field_name("name")
        return node_text(name) if name else text, None, None
    return text, None, None


def _plain_callee(callee: str) -> str:
    return callee.removeprefix("std::").removeprefix("::")


def _enclosing_function(node: Node) -> Node:
    top = node
    while top.parent is not None:
        top = top.parent
        if top.type in ("function_definition", "lambda_expression"):
            return top
    return top


def _nearest_target(node: Node) -> Node | None:
    """The loop or switch that a ``break`` inside ``node``'s subtree binds to."""
    parent = node.parent
    while parent is not None:
        if parent.type in LOOP_TYPES or parent.type == "switch_statement":
            return parent
        parent = parent.parent
    return None


# ---------------------------------------------------------------------------------------------
# counted-loop header


@dataclass(frozen=True)
class _Header:
    var: str
    lower: str
    upper: str
    op: str
    step: int
    declared: bool
    var_type: VarType | None


def _header(node: Node, types: dict[str, VarType | None]) -> _Header | str:
    """Parse a canonical counted ``for`` header, or return why it is not one."""
    init = node.child_by_field_name("initializer")
    cond = node.child_by_field_name("condition")
    update = node.child_by_field_name("update")
    if init is None or cond is None or update is None:
        return "the loop header is not a counted loop (missing init, condition or update)"
    var: str | None = None
    lower: str | None = None
    declared = False
    var_type: VarType | None = None
    if init.type == "declaration":
        decls = [c for i, c in enumerate(init.children)
                 if init.field_name_for_child(i) == "declarator"]
        type_node = init.child_by_field_name("type")
        if len(decls) == 1 and decls[0].type == "init_declarator":
            name = decls[0].child_by_field_name("declarator")
            value = decls[0].child_by_field_name("value")
            if name is not None and name.type == "identifier" and value is not None:
                var, lower, declared = node_text(name), node_text(value), True
                base = node_text(type_node) if type_node is not None else ""
                if base == "auto" and value.type == "number_literal" and \
                        int_literal(value) is not None:
                    base = "int"
                var_type = VarType(base)
    elif init.type == "assignment_expression":
        left = init.child_by_field_name("left")
        right = init.child_by_field_name("right")
        op = init.child_by_field_name("operator")
        if left is not None and left.type == "identifier" and right is not None and \
                op is not None and node_text(op) == "=":
            var, lower = node_text(left), node_text(right)
            var_type = types.get(var)
    if var is None or lower is None:
        return "the loop initializer is not 'i = start'"
    if var_type is None or not var_type.is_integral:
        return f"the induction variable '{var}' is not of a known integer type"
    cond = unparen(cond)
    if cond.type != "binary_expression":
        return "the loop condition is not a comparison"
    left = cond.child_by_field_name("left")
    right = cond.child_by_field_name("right")
    op_node = cond.child_by_field_name("operator")
    if left is None or right is None or op_node is None:
        return "the loop condition is not a comparison"
    cmp = node_text(op_node)
    flip = {"<": ">", "<=": ">=", ">": "<", ">=": "<=", "!=": "!="}
    if cmp not in flip:
        return "the loop condition is not a comparison"
    if node_text(unparen(left)) == var:
        upper_node = right
    elif node_text(unparen(right)) == var:
        upper_node, cmp = left, flip[cmp]
    else:
        return f"the loop condition does not compare '{var}'"
    if var in _identifiers(upper_node):
        return "the loop bound depends on the induction variable"
    step: int | None = None
    update = unparen(update)
    if update.type == "update_expression":
        arg = update.child_by_field_name("argument")
        uop = update.child_by_field_name("operator")
        if arg is not None and node_text(arg) == var and uop is not None:
            step = 1 if node_text(uop) == "++" else -1
    elif update.type == "assignment_expression":
        uleft = update.child_by_field_name("left")
        uright = update.child_by_field_name("right")
        uop = update.child_by_field_name("operator")
        if uleft is not None and node_text(uleft) == var and uright is not None and \
                uop is not None:
            o = node_text(uop)
            if o in ("+=", "-=") and uright.type == "number_literal":
                k = int_literal(uright)
                if k is not None and k > 0:
                    step = k if o == "+=" else -k
            elif o == "=" and unparen(uright).type == "binary_expression":
                b = unparen(uright)
                bl, br = b.child_by_field_name("left"), b.child_by_field_name("right")
                bo = b.child_by_field_name("operator")
                if bl is not None and br is not None and bo is not None and \
                        node_text(bl) == var and br.type == "number_literal":
                    k = int_literal(br)
                    if k is not None and k > 0 and node_text(bo) in ("+", "-"):
                        step = k if node_text(bo) == "+" else -k
    if step is None:
        return f"the loop update is not a constant step of '{var}'"
    if (step > 0 and cmp not in ("<", "<=", "!=")) or \
            (step < 0 and cmp not in (">", ">=", "!=")):
        return "the loop condition does not match the direction of the step"
    if cmp == "!=" and abs(step) != 1:
        return "a '!=' condition with a step other than 1"
    return _Header(var, " ".join(lower.split()), " ".join(node_text(upper_node).split()), cmp,
                   step, declared, var_type)


# ---------------------------------------------------------------------------------------------
# body facts


@dataclass
class _Body:
    """Mutable scratch collected while walking one loop body (local to one analysis call)."""

    locals: set[str] = field(default_factory=set)
    local_refs: set[str] = field(default_factory=set)
    static_locals: bool = False
    scalar_writes: dict[str, list[Node]] = field(default_factory=dict)
    element: list[tuple[ElementAccess, Node]] = field(default_factory=list)
    member_writes: set[str] = field(default_factory=set)
    deref_writes: set[str] = field(default_factory=set)
    calls: list[tuple[CallSite, Node]] = field(default_factory=list)
    escapes: set[str] = field(default_factory=set)
    has_io: bool = False
    jumps: list[str] = field(default_factory=list)
    other: list[str] = field(default_factory=list)


_JUMPS = {"return_statement": "return", "goto_statement": "goto", "throw_statement": "throw",
          "co_return_statement": "co_return"}


def _collect(loop: Node, body: Node) -> _Body:
    facts = _Body()
    write_targets: set[tuple[int, int]] = set()

    def target(t: Node) -> None:
        t = unparen(t)
        write_targets.add((t.start_byte, t.end_byte))
        if t.type == "identifier":
            facts.scalar_writes.setdefault(node_text(t), []).append(t)
        elif t.type == "subscript_expression":
            base, idx = _subscript_parts(t)
            facts.element.append((ElementAccess(
                " ".join(node_text(base).split()), tuple(idx), True, t.start_point[0]), base))
        elif t.type == "field_expression":
            # a[i].x (through '.' only) writes a member of element a[i]: an element write
            inner = t
            while inner.type == "field_expression" and \
                    node_text(inner.child_by_field_name("operator") or inner) == ".":
                inner = unparen(inner.child_by_field_name("argument") or inner)
            if inner.type == "subscript_expression" and inner is not t:
                target(inner)
            else:
                facts.member_writes.add(node_text(t))
        elif t.type == "pointer_expression":
            facts.deref_writes.add(node_text(t))
        else:
            facts.other.append(f"writes through '{node_text(t)}'")

    for n in walk_all(body):
        t = n.type
        if t in ("declaration", "init_declarator"):
            if t == "declaration":
                if any(c.type == "storage_class_specifier" and node_text(c) == "static"
                       for c in n.children):
                    facts.static_locals = True
                for i, c in enumerate(n.children):
                    if n.field_name_for_child(i) == "declarator":
                        d = walk_declarator(c)
                        name = d.name if d.plain else None
                        if name:
                            facts.locals.add(name)
                            if d.pointer or d.reference or d.array:
                                # may point into shared data: writes through it are not private
                                facts.local_refs.add(name)
        elif t == "assignment_expression":
            left = n.child_by_field_name("left")
            if left is not None:
                target(left)
        elif t == "update_expression":
            arg = n.child_by_field_name("argument")
            if arg is not None:
                target(arg)
        elif t == "pointer_expression":
            op = n.child_by_field_name("operator")
            arg = n.child_by_field_name("argument")
            if op is not None and node_text(op) == "&" and arg is not None:
                root = _root_name(arg)
                facts.escapes.add(root or node_text(arg))
        elif t == "call_expression":
            callee, obj, method = _callee_name(n)
            args_node = n.child_by_field_name("arguments")
            args = tuple(node_text(a) for a in args_node.named_children) if args_node else ()
            facts.calls.append((CallSite(node_text(n), callee, obj, method, args, n.start_byte,
                                         n.end_byte), n))
            if _plain_callee(callee) in DOES_IO:
                facts.has_io = True
        elif t == "identifier" and node_text(n) in ("cout", "cin", "cerr", "clog"):
            facts.has_io = True
        elif t in _JUMPS:
            facts.jumps.append(_JUMPS[t])
        elif t == "break_statement" and _nearest_target(n) == loop:
            facts.jumps.append("break")
        elif t in ("new_expression", "delete_expression"):
            facts.other.append("allocates or frees memory")
        elif t.startswith("preproc") or t == "gnu_asm_expression":
            facts.other.append("contains preprocessor directives or inline assembly")
        elif t == "lambda_expression":
            facts.other.append("contains a lambda")
    # element reads: subscripts that are not write targets (outermost of each chain)
    for n in walk_all(body):
        if n.type != "subscript_expression":
            continue
        parent = n.parent
        if parent is not None and parent.type == "subscript_expression" and \
                parent.child_by_field_name("argument") == n:
            continue
        base, idx = _subscript_parts(n)
        if (n.start_byte, n.end_byte) in write_targets:
            # a compound assignment or ++ also reads the element: the write record covers it
            continue
        facts.element.append((ElementAccess(" ".join(node_text(base).split()), tuple(idx),
                                            False, n.start_point[0]), base))
    return facts


def _reduction_op(stmt: Node, var: str) -> str | None:
    """The reduction operator if ``stmt`` (an expression) is a reduction update of ``var``."""
    stmt = unparen(stmt)
    if stmt.type == "update_expression":
        arg = stmt.child_by_field_name("argument")
        return "+" if arg is not None and node_text(arg) == var else None
    if stmt.type != "assignment_expression":
        return None
    left = stmt.child_by_field_name("left")
    right = stmt.child_by_field_name("right")
    op_node = stmt.child_by_field_name("operator")
    if left is None or right is None or op_node is None or node_text(unparen(left)) != var:
        return None
    op = node_text(op_node)
    if op in ("+=", "-=", "*="):
        return None if var in _identifiers(right) else ("*" if op == "*=" else "+")
    if op != "=":
        return None
    r = unparen(right)
    if r.type == "binary_expression":
        bl, br = r.child_by_field_name("left"), r.child_by_field_name("right")
        bo = r.child_by_field_name("operator")
        if bl is None or br is None or bo is None:
            return None
        o = node_text(bo)
        if o not in ("+", "*", "-"):
            return None
        if node_text(unparen(bl)) == var and var not in _identifiers(br):
            return "*" if o == "*" else "+"
        if o != "-" and node_text(unparen(br)) == var and var not in _identifiers(bl):
            return "*" if o == "*" else "+"
        return None
    if r.type == "call_expression":
        callee, obj, _ = _callee_name(r)
        kind = _REDUCTION_CALLS.get(_plain_callee(callee))
        args = r.child_by_field_name("arguments")
        if kind is None or obj is not None or args is None or args.named_child_count != 2:
            return None
        a, b = args.named_children
        if node_text(unparen(a)) == var and var not in _identifiers(b):
            return kind
        if node_text(unparen(b)) == var and var not in _identifiers(a):
            return kind
    return None


def _occurrences(node: Node, var: str) -> list[Node]:
    return [n for n in walk_all(node) if n.type == "identifier" and node_text(n) == var]


def _statement_of(node: Node, stop: Node) -> Node | None:
    """The expression of the expression statement containing ``node`` (below ``stop``)."""
    cur: Node | None = node
    while cur is not None and cur != stop:
        if cur.type == "expression_statement":
            return cur.named_children[0] if cur.named_child_count else None
        if cur.type in ("comma_expression", "condition_clause", "for_statement"):
            return None
        cur = cur.parent
    return None


def _assigned_first(body: Node, var: str, occ: list[Node]) -> bool:
    """``var`` is first met as ``var = e`` (``e`` without ``var``) at the body's top level."""
    if body.type != "compound_statement" or not occ:
        return False
    first = min(occ, key=lambda n: n.start_byte)
    for stmt in body.named_children:
        if stmt.start_byte <= first.start_byte < stmt.end_byte:
            if stmt.type != "expression_statement" or stmt.named_child_count != 1:
                return False
            e = stmt.named_children[0]
            if e.type != "assignment_expression":
                return False
            left = e.child_by_field_name("left")
            op = e.child_by_field_name("operator")
            right = e.child_by_field_name("right")
            return (left is not None and left == first and op is not None
                    and node_text(op) == "=" and right is not None
                    and var not in _identifiers(right))
    return False


def _stream_shift(body: Node, types: dict[str, VarType | None]) -> str:
    """The left operand of a ``<<``/``>>`` that is not a known integer (maybe a stream)."""
    for n in walk_all(body):
        if n.type != "binary_expression":
            continue
        op = n.child_by_field_name("operator")
        if op is None or node_text(op) not in ("<<", ">>"):
            continue
        left = n.child_by_field_name("left")
        while left is not None and left.type == "binary_expression" and \
                node_text(left.child_by_field_name("operator") or left) in ("<<", ">>"):
            left = left.child_by_field_name("left")
        if left is None:
            return "?"
        left = unparen(left)
        if left.type == "number_literal":
            continue
        base, levels = left, 0
        while base.type == "subscript_expression":
            arg = base.child_by_field_name("argument")
            if arg is None:
                break
            base, levels = unparen(arg), levels + 1
        vt = types.get(node_text(base)) if base.type == "identifier" else None
        for _ in range(levels):
            vt = vt.element if vt is not None else None
        if vt is None or not vt.is_integral:
            return node_text(left)
    return ""


def _used_after(loop: Node, var: str) -> bool:
    """Whether ``var`` may be read after the loop: it appears later in the function, or it is
    not declared in the function at all (a global or member other code can read)."""
    fn = _enclosing_function(loop)
    if fn.type == "function_definition" and var not in declared_types(fn):
        return True
    return any(n.start_byte >= loop.end_byte for n in _occurrences(fn, var))


def _affine_position(index: str, var: str, invariant_ok: set[str]) -> bool:
    """``index`` is ``var`` or ``var ± e`` / ``e + var`` with ``e`` using no written variable."""
    if index == var:
        return True
    m = re.fullmatch(rf"{re.escape(var)}\s*[-+]\s*(.+)|(.+?)\s*\+\s*{re.escape(var)}", index)
    if not m:
        return False
    rest = m.group(1) or m.group(2) or ""
    names = set(re.findall(r"[A-Za-z_]\w*", rest))
    return var not in names and not (names & invariant_ok) and "(" not in rest and \
        "++" not in rest and "--" not in rest and "=" not in rest


def _row_ranges(body: Node, types: dict[str, VarType | None]) -> dict[str, tuple[str, Node]]:
    """Inner loops ``for (T w = 0; w < S; ++w)`` of ``body`` whose ``w`` nothing else writes:
    ``w`` -> (``S``, the loop node). Inside such a loop ``0 <= w < S`` holds."""
    out: dict[str, tuple[str, Node]] = {}
    seen: set[str] = set()
    for n in walk_all(body):
        if n.type != "for_statement":
            continue
        h = _header(n, types)
        if isinstance(h, str):
            continue
        if h.var in seen:
            out.pop(h.var, None)  # two loops over one name: no single range
            continue
        seen.add(h.var)
        inner = n.child_by_field_name("body")
        if (h.declared and h.lower == "0" and h.op == "<" and h.step == 1
                and re.fullmatch(r"[A-Za-z_]\w*", h.upper) and inner is not None
                and not _writes(inner, h.var)):
            out[h.var] = (h.upper, n)
    return out


def _writes(node: Node, var: str) -> bool:
    """Whether ``node`` assigns, increments or takes the address of ``var``."""
    return any(node_text(unparen(target)) == var for _, target in mutations(node))


def _row_major_position(index: str, var: str, invariant_ok: set[str],
                        rows: dict[str, tuple[str, Node]]) -> Node | None:
    """For ``index`` = ``var * S + w`` (any order) with ``0 <= w < S`` from an inner loop of
    ``rows``, that loop: distinct ``var`` then give disjoint rows ``[var*S, var*S + S)``, as
    long as every access of the array stays inside it. None when the form does not match."""
    text = index.replace(" ", "")
    v = re.escape(var)
    for m in (re.fullmatch(rf"(?:{v}\*(?P<s1>\w+)|(?P<s2>\w+)\*{v})\+(?P<w>\w+)", text),
              re.fullmatch(rf"(?P<w>\w+)\+(?:{v}\*(?P<s1>\w+)|(?P<s2>\w+)\*{v})", text)):
        if m is None:
            continue
        size = m.group("s1") or m.group("s2")
        row = rows.get(m.group("w"))
        if row is not None and row[0] == size and size != var and size not in invariant_ok:
            return row[1]
    return None


def check_independent(loop: Node, body: Node, required: tuple[str, ...],
                      types: dict[str, VarType | None], bound_vars: set[str],
                      size_vars: frozenset[str] = frozenset(),
                      ) -> tuple[bool, str, tuple[tuple[str, str], ...], tuple[str, ...],
                                 tuple[str, ...]]:
    """Decide whether the iterations over ``required`` induction variables are independent.

    Returns ``(independent, reason, reductions, private_vars, locals)``. Each element written
    must be indexed by every variable of ``required`` (exactly, or shifted by an invariant) in a
    subscript, the same way at every access of that base. ``bound_vars`` are the variables of
    the loop bound; ``size_vars`` those of them used there only as ``x.size()``/``x.length()``.
    """
    f = _collect(loop, body)
    locals_ = tuple(sorted(f.locals))
    no: tuple[tuple[str, str], ...] = ()

    def fail(reason: str) -> tuple[bool, str, tuple[tuple[str, str], ...], tuple[str, ...],
                                   tuple[str, ...]]:
        return False, reason, no, (), locals_

    if f.jumps:
        return fail(f"the body contains '{f.jumps[0]}', which leaves the loop early")
    if f.has_io:
        return fail("the body does input/output, whose order matters")
    if f.static_locals:
        return fail("the body declares a static variable")
    if f.other:
        return fail(f"the body {f.other[0]}")
    for call, _node in f.calls:
        plain = _plain_callee(call.callee)
        if call.method is not None:
            obj_root = call.obj.split(".")[0].split("->")[0].split("[")[0] if call.obj else ""
            if call.method in PARALLEL_SAFE_METHODS or obj_root in f.locals:
                continue
            return fail(f"the body calls '{call.obj}.{call.method}()', which changes a shared "
                        "object")
        if plain not in NO_SIDE_EFFECTS:
            return fail(f"the body calls '{call.callee}()', which may have side effects")
    if f.escapes - f.locals:
        name = sorted(f.escapes - f.locals)[0]
        return fail(f"the body takes the address of '{name}'")
    for m in sorted(f.member_writes):
        root = re.split(r"[.\-\[]", m)[0]
        if root not in f.locals or root in (f.local_refs or set()):
            return fail(f"the body writes the shared member '{m}'")
    for d in sorted(f.deref_writes):
        root = re.sub(r"^[*(\s]+", "", d).split(")")[0].split("[")[0].strip()
        if root not in f.locals or root in (f.local_refs or set()):
            return fail(f"the body writes through the pointer '{d}'")

    shift = _stream_shift(body, types)
    if shift:
        return fail(f"the body applies '<<'/'>>' to '{shift}', which may be stream input/output")
    written_scalars = set(f.scalar_writes) - f.locals
    written_all = written_scalars | {a.base for a, _ in f.element if a.write}
    changing = written_all | set(f.scalar_writes) | f.locals
    for name in sorted(f.local_refs):
        if name in f.scalar_writes or any(
                a.write and _root_name(b) == name for a, b in f.element) or any(
                re.match(rf"\*?\(?\s*{re.escape(name)}\b", d) for d in f.deref_writes) or any(
                re.match(rf"{re.escape(name)}\b", m) for m in f.member_writes):
            return fail(f"the body writes through the local reference or pointer '{name}'")
    # a container whose bound use is only ``.size()`` may have its elements written
    bound_hit = {v for v in bound_vars if v in written_scalars or
                 (v in written_all and v not in size_vars)}
    if bound_hit:
        return fail(f"the body changes '{sorted(bound_hit)[0]}', used in the loop bound")
    # element accesses
    by_base: dict[str, list[ElementAccess]] = {}
    nodes_of: dict[str, list[Node]] = {}
    for acc, base_node in f.element:
        root = _root_name(base_node)
        if root in f.locals and root not in f.local_refs:
            continue
        by_base.setdefault(acc.base, []).append(acc)
        nodes_of.setdefault(acc.base, []).append(base_node)
    rows: dict[str, tuple[str, Node]] | None = None
    for base, accs in by_base.items():
        writes = [a for a in accs if a.write]
        if not writes:
            continue
        root_type = types.get(base)
        if root_type is None or not root_type.is_indexable:
            return fail(f"cannot tell that '{base}' has distinct elements for distinct indices")
        shapes = {a.indices for a in accs}
        if len(shapes) != 1:
            texts = sorted("][".join(s) for s in shapes)
            return fail(f"'{base}' is accessed at different indices ([{texts[0]}] and "
                        f"[{texts[1]}]) in one iteration")
        (shape,) = shapes
        for var in required:
            if any(_affine_position(ix, var, changing) for ix in shape):
                continue
            # A flattened matrix, a[i * n + j]: rows of distinct i are disjoint when j stays
            # in [0, n), which holds inside the inner loop that counts j up to n.
            rows = _row_ranges(body, types) if rows is None else rows
            row_loops = [_row_major_position(ix, var, changing, rows) for ix in shape]
            if not any(loop_node is not None and all(
                    loop_node.start_byte <= n.start_byte < loop_node.end_byte
                    for n in nodes_of[base]) for loop_node in row_loops):
                return fail(f"'{base}[{']['.join(shape)}]' is written at the same place by "
                            f"different iterations of '{var}'")
    # scalars
    reductions: dict[str, str] = {}
    private: list[str] = []
    for var in sorted(written_scalars):
        if var in required:
            return fail(f"the body changes the induction variable '{var}'")
        occ = _occurrences(body, var)
        # an inner loop's induction variable assigned in its own initializer
        inner = next((n for n in walk_all(body) if n.type == "for_statement" and
                      (ini := n.child_by_field_name("initializer")) is not None and
                      ini.type == "assignment_expression" and
                      node_text(ini.child_by_field_name("left") or ini) == var), None)
        if inner is not None and all(inner.start_byte <= o.start_byte < inner.end_byte
                                     for o in occ):
            if _used_after(loop, var):
                return fail(f"'{var}' is used after the loop")
            private.append(var)
            continue
        if _assigned_first(body, var, occ):
            if _used_after(loop, var):
                return fail(f"'{var}' is used after the loop")
            private.append(var)
            continue
        ops = set()
        for o in occ:
            stmt = _statement_of(o, loop)
            op = _reduction_op(stmt, var) if stmt is not None else None
            if op is None:
                return fail(f"the body writes the shared variable '{var}'")
            ops.add(op)
        vt = types.get(var)
        if vt is None or not vt.is_arithmetic or vt.reference:
            return fail(f"'{var}' is accumulated but is not a plain arithmetic variable")
        if len(ops) != 1:
            return fail(f"'{var}' is combined with different operators")
        reductions[var] = ops.pop()
    red = tuple((op, var) for var, op in sorted(reductions.items()))
    return True, "", red, tuple(private), locals_


# ---------------------------------------------------------------------------------------------
# invariant calls and appends


def _invariant_calls(node: Node, body: Node, types: dict[str, VarType | None],
                     f: _Body, own_names: frozenset[str]) -> tuple[CallSite, ...]:
    cond = node.child_by_field_name("condition")
    if cond is None:
        return ()
    out: list[CallSite] = []
    body_calls = [c for c, _ in f.calls]
    unknown_free = [c for c in body_calls if c.method is None and
                    _plain_callee(c.callee) not in NO_SIDE_EFFECTS]
    for n in walk_all(cond):
        if n.type != "call_expression":
            continue
        callee, obj, method = _callee_name(n)
        args_node = n.child_by_field_name("arguments")
        args = tuple(node_text(a) for a in args_node.named_children) if args_node else ()
        site = CallSite(node_text(n), callee, obj, method, args, n.start_byte, n.end_byte)
        if method in ("size", "length") and obj is not None and not args and \
                re.fullmatch(r"[A-Za-z_]\w*", obj):
            name = obj
        elif _plain_callee(callee) == "strlen" and len(args) == 1 and \
                re.fullmatch(r"[A-Za-z_]\w*", args[0]):
            name = args[0]
        else:
            continue
        vt = types.get(name)
        if vt is None or name in f.locals:
            continue
        if name in f.scalar_writes or name in f.escapes:
            continue
        changed = False
        for c in body_calls:
            if c.obj == name and c.method not in PARALLEL_SAFE_METHODS:
                changed = True
            if any(re.search(rf"\b{re.escape(name)}\b", a) for a in c.args) and \
                    _plain_callee(c.callee) not in NO_SIDE_EFFECTS:
                changed = True
            other = types.get(c.obj) if c.obj else None
            if c.method is not None and c.method not in PARALLEL_SAFE_METHODS and \
                    (other is None or other.base.replace("const", "").strip()
                     == vt.base.replace("const", "").strip()):
                changed = True  # unknown or same type: might be the same object via a reference
        if method is None and (f.deref_writes or any(a.write for a, _ in f.element)) and \
                not _stores_keep_terminator(node, body, types, f, name, site.text):
            # strlen: an element write or a write through a pointer may move the terminator
            changed = True
        if unknown_free and (vt.reference or vt.pointer):
            changed = True
        if name not in own_names and (unknown_free or any(
                c.method is not None and c.method not in PARALLEL_SAFE_METHODS
                for c in body_calls)):
            changed = True  # a global: any call the loop makes could change it
        if not changed:
            out.append(site)
    return tuple(out)


def _stores_keep_terminator(node: Node, body: Node, types: dict[str, VarType | None],
                            f: _Body, name: str, call: str) -> bool:
    """In ``for (i = ...; i < strlen(name); ++i)``, the body's element writes are all
    non-NUL stores at ``name[i]``, so the terminator stays put (see ``nul_stores``)."""
    h = _header(node, types)
    if isinstance(h, str) or h.op != "<" or h.step != 1 or \
            "".join(h.upper.split()) != "".join(call.split()):
        return False
    if f.deref_writes or any(a.write and a.base != name for a, _ in f.element):
        return False  # another pointer may point into the string
    return stores_no_nul(body, name, h.var)


def _appends(body: Node) -> tuple[str, ...]:
    """Containers with exactly one unconditional push_back/emplace_back at the body's top level."""
    stmts = body.named_children if body.type == "compound_statement" else [body]
    counts: dict[str, int] = {}
    top: set[str] = set()
    for n in walk_all(body):
        if n.type == "call_expression":
            _, obj, method = _callee_name(n)
            if obj is not None and method in APPEND_METHODS:
                counts[obj] = counts.get(obj, 0) + 1
    for s in stmts:
        if s.type == "expression_statement" and s.named_child_count == 1 and \
                s.named_children[0].type == "call_expression":
            _, obj, method = _callee_name(s.named_children[0])
            if obj is not None and method in APPEND_METHODS:
                top.add(obj)
    return tuple(sorted(o for o in top if counts.get(o) == 1 and
                        re.fullmatch(r"[A-Za-z_]\w*", o)))


def interchange_blocker(outer: Node, types: dict[str, VarType | None], *,
                        allow_reductions: bool = False) -> str:
    """Why the two loops ``outer`` and the loop it holds cannot swap places, or "" when the
    dependence test allows it.

    Allowed: a perfect nest (the outer body is exactly one inner loop, nothing before or after
    it) of canonical counted loops with declared induction variables, the inner bounds free of
    the outer variable, no deeper loop, and iterations independent over both variables. An
    accumulation into a scalar (``+ * min max``) is reordered by the swap, so it blocks unless
    ``allow_reductions`` (a plan may suggest it: the runner compares floating-point results
    with a tolerance). Anything else, an imperfect nest with statements between the loops above
    all, keeps its order.
    """
    if outer.type != "for_statement":
        return "the outer loop is not a counted for loop"
    body = outer.child_by_field_name("body")
    if body is None:
        return "the outer loop has no body"
    stmts = [c for c in body.named_children if c.type != "comment"] \
        if body.type == "compound_statement" else [body]
    if len(stmts) != 1 or stmts[0].type != "for_statement":
        return "the nest is not perfect: the outer loop runs other statements around the inner"
    inner = stmts[0]
    oh, ih = _header(outer, types), _header(inner, types)
    if isinstance(oh, str) or isinstance(ih, str):
        return oh if isinstance(oh, str) else str(ih)
    if not (oh.declared and ih.declared):
        return "an induction variable is declared outside its loop"
    if re.search(rf"\b{re.escape(oh.var)}\b", f"{ih.lower} {ih.upper}"):
        return f"the inner bounds depend on '{oh.var}' (a triangular nest)"
    inner_body = inner.child_by_field_name("body")
    if inner_body is None:
        return "the inner loop has no body"
    if any(True for _ in _direct_loops(inner_body)):
        return "the inner loop holds another loop"
    bound_vars = set(re.findall(r"[A-Za-z_]\w*", f"{oh.lower} {oh.upper} {ih.lower} "
                                                  f"{ih.upper}")) - {oh.var, ih.var}
    ok, reason, reductions, _private, _locals = check_independent(
        inner, inner_body, (oh.var, ih.var), types, bound_vars)
    if not ok:
        return reason or "an iteration depends on another"
    if reductions and not allow_reductions:
        return "it accumulates into a scalar, whose order the swap would change"
    return ""


# ---------------------------------------------------------------------------------------------
# entry points


def analyze_loop(node: Node, line_base: int = 0, depth: int = 0,
                 types: dict[str, VarType | None] | None = None,
                 own_names: frozenset[str] | None = None) -> LoopFacts:
    """The facts of one loop node (any of ``LOOP_TYPES``), with its nested loops.

    ``own_names``: the names the enclosing function declares (computed when not given; pass
    them when analysing many loops of one function, since finding them walks all of it).
    """
    if own_names is None:
        own_names = frozenset(declared_types(_enclosing_function(node)))
    if types is None:
        types = declared_types(_enclosing_function(node))
    kind = _KIND.get(node.type, node.type)
    body = node.child_by_field_name("body")
    if body is None:
        body = node
    children = tuple(analyze_loop(c, line_base, depth + 1, types, own_names)
                     for c in _direct_loops(body)) if body is not node else ()
    f = _collect(node, body)
    reads = frozenset(_identifiers(body))
    writes = frozenset(set(f.scalar_writes) | {a.base for a, _ in f.element if a.write})
    calls = tuple(c for c, _ in f.calls)
    induction = lower = upper = op = None
    step: int | None = None
    declared = False
    counted = False
    independent = False
    reductions: tuple[tuple[str, str], ...] = ()
    private: tuple[str, ...] = ()
    locals_ = tuple(sorted(f.locals))
    bounds = ""
    if node.type == "for_statement":
        h = _header(node, types)
        if isinstance(h, str):
            reason = h
        else:
            induction, lower, upper, op, step, declared = (h.var, h.lower, h.upper, h.op,
                                                            h.step, h.declared)
            counted = True
            bounds = f"{h.var} from {h.lower} while {h.var} {h.op} {h.upper}, step {h.step}"
            cond = node.child_by_field_name("condition")
            bound_vars = _identifiers(cond) - {h.var} if cond is not None else set()
            independent, reason, reductions, private, locals_ = check_independent(
                node, body, (h.var,), types, bound_vars,
                _size_only(cond, bound_vars) if cond is not None else frozenset())
            if independent and not declared and _used_after(node, h.var):
                independent, reason = False, f"'{h.var}' is used after the loop"
    else:
        reason = f"a {kind} loop has no iteration count known in advance" \
            if kind in ("while", "do") else "a range-for loop (iterator form)"
    return LoopFacts(
        kind=kind, start_byte=node.start_byte, end_byte=node.end_byte,
        body_start_byte=body.start_byte, line=node.start_point[0] + line_base + 1,
        end_line=node.end_point[0] + line_base + 1, depth=depth, induction=induction,
        lower=lower, upper=upper, cond_op=op, step=step, induction_declared=declared,
        bounds=bounds, counted=counted, independent=independent, reason=reason,
        reductions=reductions if independent else (), private_vars=private if independent else (),
        locals=locals_, reads=reads, writes=writes,
        element_accesses=tuple(a for a, _ in f.element), calls=calls,
        invariant_calls=_invariant_calls(node, body, types, f, own_names)
        if node.type == "for_statement"
        else (),
        appends=_appends(body), has_io=f.has_io, children=children,
    )


def _size_only(cond: Node, names: set[str]) -> frozenset[str]:
    """Names used in ``cond`` only as the object of ``.size()`` or ``.length()`` calls."""
    out = set()
    for name in names:
        occ = _occurrences(cond, name)
        if occ and all(
                (p := o.parent) is not None and p.type == "field_expression"
                and p.child_by_field_name("argument") == o
                and node_text(p.child_by_field_name("field") or o) in ("size", "length")
                and p.parent is not None and p.parent.type == "call_expression"
                for o in occ):
            out.add(name)
    return frozenset(out)


def _direct_loops(node: Node) -> Iterator[Node]:
    """Loops under ``node`` not nested in another loop under it (lambdas are skipped)."""
    if node.type in LOOP_TYPES:
        yield node
        return
    stack = list(reversed(node.children))
    while stack:
        n = stack.pop()
        if n.type in LOOP_TYPES:
            yield n
            continue
        if n.type == "lambda_expression":
            continue
        stack.extend(reversed(n.children))


def find_loops(root: Node, line_base: int = 0,
               types: dict[str, VarType | None] | None = None) -> tuple[LoopFacts, ...]:
    """The outermost loops under ``root`` (a function or its body), each with nested loops.

    ``types`` maps variable names to declared types; by default those declared in the
    enclosing function.
    """
    fn = root if root.type == "function_definition" else _enclosing_function(root)
    own = declared_types(fn)
    if types is None:
        types = own
    return tuple(analyze_loop(n, line_base, 0, types, frozenset(own))
                 for n in _direct_loops(root))


def all_loops(loops: tuple[LoopFacts, ...]) -> Iterator[LoopFacts]:
    """Every loop of a forest, outer before inner, in source order."""
    for lp in loops:
        yield lp
        yield from all_loops(lp.children)


def function_loops(site: FunctionSite) -> tuple[LoopFacts, ...]:
    """Loops of a located function: offsets index ``site.text`` (UTF-8), lines are the unit's.

    Globals of the unit count as known variables (a local or parameter of the same name wins).
    """
    tree = parse(site.text, site.language)
    fn = parse_function_node(tree.root_node)
    types = {**unit_types(site.unit_text, site.language), **declared_types(fn)}
    return find_loops(fn, line_base=site.start_line, types=types)


def parse_function_node(root: Node) -> Node:
    """The first function definition under ``root`` (or ``root`` itself when there is none)."""
    for n in walk_all(root):
        if n.type == "function_definition":
            return n
    return root
