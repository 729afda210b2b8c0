"""Whether loop iterations are independent: reductions, private scalars, row-major writes,
and the legality of swapping two nested loops."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping

import tree_sitter

from perfpilot.code.aliases import UNKNOWN, Storage, at_reads, storage, touch_blocker
from perfpilot.code.declarations import VarType, declared_types, walk_declarator
from perfpilot.code.effects import NO_SIDE_EFFECTS, PARALLEL_SAFE_METHODS
from perfpilot.code.loop_body import (
    ElementAccess,
    collect_body,
    direct_loops,
)
from perfpilot.code.loop_header import counted_header, read_header
from perfpilot.code.minmax import guarded_op, ternary_op
from perfpilot.code.row_ownership import rows_apart
from perfpilot.code.syntax import (
    callee_parts,
    enclosing_function,
    identifiers_of,
    mutations,
    node_text,
    plain_callee,
    root_name_of,
    unwrap,
    walk,
)

Node = tree_sitter.Node


REDUCTION_CALLS = {"max": "max", "min": "min", "fmax": "max", "fmin": "min"}

def _reduction_op(stmt: Node, var: str) -> str | None:
    """The reduction operator if ``stmt`` (an expression) is a reduction update of ``var``."""
    stmt = unwrap(stmt)
    if stmt.type == "update_expression":
        arg = stmt.child_by_field_name("argument")
        return "+" if arg is not None and node_text(arg) == var else None
    if stmt.type != "assignment_expression":
        return None
    left = stmt.child_by_field_name("left")
    right = stmt.child_by_field_name("right")
    op_node = stmt.child_by_field_name("operator")
    if left is None or right is None or op_node is None or node_text(unwrap(left)) != var:
        return None
    op = node_text(op_node)
    if op in ("+=", "-=", "*="):
        return None if var in identifiers_of(right) else ("*" if op == "*=" else "+")
    if op != "=":
        return None
    r = unwrap(right)
    ternary = ternary_op(r, var)
    if ternary is not None:
        return ternary
    if r.type == "binary_expression":
        bl, br = r.child_by_field_name("left"), r.child_by_field_name("right")
        bo = r.child_by_field_name("operator")
        if bl is None or br is None or bo is None:
            return None
        o = node_text(bo)
        if o not in ("+", "*", "-"):
            return None
        if node_text(unwrap(bl)) == var and var not in identifiers_of(br):
            return "*" if o == "*" else "+"
        if o != "-" and node_text(unwrap(br)) == var and var not in identifiers_of(bl):
            return "*" if o == "*" else "+"
        return None
    if r.type == "call_expression":
        callee, obj, _ = callee_parts(r)
        kind = REDUCTION_CALLS.get(plain_callee(callee))
        args = r.child_by_field_name("arguments")
        if kind is None or obj is not None or args is None or args.named_child_count != 2:
            return None
        a, b = args.named_children
        if node_text(unwrap(a)) == var and var not in identifiers_of(b):
            return kind
        if node_text(unwrap(b)) == var and var not in identifiers_of(a):
            return kind
    return None


def occurrences(node: Node, var: str) -> list[Node]:
    return [n for n in walk(node) if n.type == "identifier" and node_text(n) == var]


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
                    and var not in identifiers_of(right))
    return False


def _stream_shift(body: Node, types: dict[str, VarType | None]) -> str:
    """The left operand of a ``<<``/``>>`` that is not a known integer (maybe a stream)."""
    for n in walk(body):
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
        left = unwrap(left)
        if left.type == "number_literal":
            continue
        base, levels = left, 0
        while base.type == "subscript_expression":
            arg = base.child_by_field_name("argument")
            if arg is None:
                break
            base, levels = unwrap(arg), levels + 1
        if base.type in ("binary_expression", "parenthesized_expression", "unary_expression",
                         "cast_expression") and _integer_expression(base, types):
            continue  # (a + b) >> 1 on integers: arithmetic, not a stream
        vt = types.get(node_text(base)) if base.type == "identifier" else None
        for _ in range(levels):
            vt = vt.element if vt is not None else None
        if vt is None or not vt.is_integral:
            return node_text(left)
    return ""


def _integer_expression(node: Node, types: dict[str, VarType | None]) -> bool:
    """An expression of integer literals and integer variables (or their elements) only: no
    call, no member, nothing that could be a stream object."""
    for n in walk(node):
        if n.type in ("call_expression", "field_expression", "pointer_expression",
                      "string_literal", "char_literal"):
            return False
        if n.type == "identifier":
            vt = types.get(node_text(n))
            while vt is not None and not vt.is_integral and vt.element is not None:
                vt = vt.element
            if vt is None or not vt.is_integral:
                return False
    return True


def used_after(loop: Node, var: str) -> bool:
    """Whether ``var`` may be read after the loop: it appears later in the function, or it is
    not declared in the function at all (a global or member other code can read)."""
    fn = enclosing_function(loop)
    if fn.type == "function_definition" and var not in declared_types(fn):
        return True
    return any(n.start_byte >= loop.end_byte for n in occurrences(fn, var))


def affine_position(index: str, var: str, invariant_ok: set[str]) -> bool:
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
    for n in walk(body):
        if n.type != "for_statement":
            continue
        h = counted_header(n, types)
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
    return any(node_text(unwrap(target)) == var for _, target in mutations(node))


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


def _reference_initializers(body: Node, refs: set[str]) -> list[tuple[str, Node]]:
    """The locals of ``refs`` (pointers, references, arrays declared in ``body``) with the
    initializer each is declared with."""
    out: list[tuple[str, Node]] = []
    for n in walk(body):
        if n.type != "init_declarator":
            continue
        d = walk_declarator(n)
        value = n.child_by_field_name("value")
        if d.name in refs and value is not None:
            out.append((d.name, value))
    return out


def _private_object(root: str, own_values: set[str], store: Storage) -> bool:
    """``root`` names an object each iteration holds on its own: a value declared in the body,
    or a local pointer, reference or iterator that can reach only such values (one that may
    reach anything else, ``std::vector<int>& r = v;``, changes what ``r`` is bound to)."""
    if root in store.origins:
        reach = store.origins[root]
        return bool(reach) and reach <= own_values
    return root in own_values


def check_independent(loop: Node, body: Node, required: tuple[str, ...],
                      types: dict[str, VarType | None], bound_vars: set[str],
                      size_vars: frozenset[str] = frozenset(),
                      exempt: frozenset[str] = frozenset(),
                      pure: Callable[[str], bool] | None = None,
                      exempt_elements: frozenset[str] = frozenset(),
                      store: Storage | None = None,
                      ) -> tuple[bool, str, tuple[tuple[str, str], ...], tuple[str, ...],
                                 tuple[str, ...]]:
    """Decide whether the iterations over ``required`` induction variables are independent.

    Returns ``(independent, reason, reductions, private_vars, locals)``. Each element written
    must be indexed by every variable of ``required`` (exactly, or shifted by an invariant) in a
    subscript, the same way at every access of that base. ``bound_vars`` are the variables of
    the loop bound; ``size_vars`` those of them used there only as ``x.size()``/``x.length()``.
    ``exempt`` are scalars the caller handles itself (the variables of an arg-min update, which
    each thread keeps apart and combines after the loop). ``pure`` answers whether a callee
    outside the standard table is a pure helper (see ``purity``). ``exempt_elements`` are
    arrays the caller handles itself (a histogram each thread counts into its own copy of).
    ``store``: the storage facts of the enclosing function, when the caller has them.
    """
    f = collect_body(loop, body)
    locals_ = tuple(sorted(f.locals))
    no: tuple[tuple[str, str], ...] = ()

    def fail(reason: str) -> tuple[bool, str, tuple[tuple[str, str], ...], tuple[str, ...],
                                   tuple[str, ...]]:
        return False, reason, no, (), locals_

    if f.jumps:
        return fail(f"the body contains '{f.jumps[0]}', which leaves the loop early")
    hidden = sorted(set(required) & f.locals)
    if hidden:
        return fail(f"the body declares another '{hidden[0]}', which hides the loop's own")
    if f.has_io:
        return fail("the body does input/output, whose order matters")
    if f.static_locals:
        return fail("the body declares a static variable")
    if f.other:
        return fail(f"the body {f.other[0]}")
    if store is None:
        store = storage(enclosing_function(loop), types)
    own_values = f.locals - f.local_refs
    for call, _node in f.calls:
        plain = plain_callee(call.callee)
        if call.method is not None:
            obj_root = call.obj.split(".")[0].split("->")[0].split("[")[0] if call.obj else ""
            if call.method in PARALLEL_SAFE_METHODS or _private_object(obj_root, own_values,
                                                                       store):
                continue
            via = sorted(store.of(obj_root) - {UNKNOWN} - {obj_root}) \
                if obj_root in store.origins else []
            return fail(f"the body calls '{call.obj}.{call.method}()', which changes a shared "
                        "object" + (f" ('{via[0]}', which '{obj_root}' may reach)" if via
                                    else ""))
        if plain not in NO_SIDE_EFFECTS and not (pure is not None and pure(plain)):
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
                a.write and root_name_of(b) == name for a, b in f.element) or any(
                re.match(rf"\*?\(?\s*{re.escape(name)}\b", d) for d in f.deref_writes) or any(
                re.match(rf"{re.escape(name)}\b", m) for m in f.member_writes):
            return fail(f"the body writes through the local reference or pointer '{name}'")
    # a local pointer or reference into an array the loop writes may see another
    # iteration's elements (``double* r = a + (i + 1) * n;``): nothing bounds where it reads
    written_roots = {root_name_of(b) for a, b in f.element if a.write}
    for name, value in _reference_initializers(body, f.local_refs):
        hit = sorted(n for n in identifiers_of(value) & written_roots if n)
        if hit:
            return fail(f"the local pointer or reference '{name}' points into '{hit[0]}', "
                        "which the loop writes")
    # any other way to the written storage: an alias declared outside the body, a method,
    # a dereference, a call; ``a.at(e)`` alone reads a known element, ``a[e]``
    blocker = touch_blocker(body, {r for r in written_roots if r} - own_values, own_values,
                            store, types)
    if blocker:
        return fail(blocker)
    accesses = [*f.element, *at_reads(body)]
    # a container whose bound use is only ``.size()`` may have its elements written
    bound_hit = {v for v in bound_vars if v in written_scalars or
                 (v in written_all and v not in size_vars)}
    if bound_hit:
        return fail(f"the body changes '{sorted(bound_hit)[0]}', used in the loop bound")
    # element accesses
    by_base: dict[str, list[ElementAccess]] = {}
    nodes_of: dict[str, list[Node]] = {}
    for acc, base_node in accesses:
        root = root_name_of(base_node)
        if (root in f.locals and root not in f.local_refs) or acc.base in exempt_elements:
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
        # A row each iteration owns (a row update under a carried loop): its own proof.
        if len(required) == 1 and rows_apart(
                loop, required[0], list(zip(accs, nodes_of[base], strict=True)),
                frozenset(changing), frozenset(set(f.scalar_writes) | f.locals), types):
            continue
        if len(shapes) != 1:
            texts = sorted("][".join(s) for s in shapes)
            return fail(f"'{base}' is accessed at different indices ([{texts[0]}] and "
                        f"[{texts[1]}]) in one iteration")
        (shape,) = shapes
        for var in required:
            if any(affine_position(ix, var, changing) for ix in shape):
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
    for var in sorted(written_scalars - exempt):
        if var in required:
            return fail(f"the body changes the induction variable '{var}'")
        occ = occurrences(body, var)
        # an inner loop's induction variable assigned in its own initializer
        inner = next((n for n in walk(body) if n.type == "for_statement" and
                      (ini := n.child_by_field_name("initializer")) is not None and
                      ini.type == "assignment_expression" and
                      node_text(ini.child_by_field_name("left") or ini) == var), None)
        if inner is not None and all(inner.start_byte <= o.start_byte < inner.end_byte
                                     for o in occ):
            if used_after(loop, var):
                return fail(f"'{var}' is used after the loop")
            private.append(var)
            continue
        if _assigned_first(body, var, occ):
            if used_after(loop, var):
                return fail(f"'{var}' is used after the loop")
            private.append(var)
            continue
        ops = set()
        for o in occ:
            stmt = _statement_of(o, loop)
            op = _reduction_op(stmt, var) if stmt is not None else None
            if op is None:
                op = guarded_op(o, loop, var)  # if (x < m) m = x;
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
    oh, ih = counted_header(outer, types), counted_header(inner, types)
    if isinstance(oh, str) or isinstance(ih, str):
        return oh if isinstance(oh, str) else str(ih)
    if not (oh.declared and ih.declared):
        return "an induction variable is declared outside its loop"
    if re.search(rf"\b{re.escape(oh.var)}\b", f"{ih.lower} {ih.upper}"):
        return f"the inner bounds depend on '{oh.var}' (a triangular nest)"
    inner_body = inner.child_by_field_name("body")
    if inner_body is None:
        return "the inner loop has no body"
    if any(True for _ in direct_loops(inner_body)):
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


def counter_type(loop: Node, var: str, declared: bool,
                 types: Mapping[str, VarType | None]) -> tuple[str, str]:
    """The type of a counted loop's counter ``var`` and why the loop cannot hand it to
    threads ('' when it can): declared in the header, or a plain integer not used after."""
    header = read_header(loop)
    if declared and header.declared:
        var_type = node_text(header.type_node) if header.type_node is not None else ""
    else:
        vt = types.get(var)
        var_type = vt.base if vt is not None else ""
        if used_after(loop, var):
            return var_type, f"'{var}' is used after the loop"
    if not VarType(base=var_type).is_integral:
        return var_type, f"'{var}' is not of a plain integer type"
    return var_type, ""
