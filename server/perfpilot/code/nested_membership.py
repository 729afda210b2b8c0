"""Hand-written membership scans nested in a loop, proved replaceable by a lookup in a sorted copy.

The shapes, inside an outer loop (the searched ``b`` is a ``std::vector`` of integers or strings
scanned from ``0`` to ``b.size()``, a pointer or array of integers scanned from ``0`` to a bound
``m`` that the loop does not write, or ``b`` walked by a range-for):

    for (j = 0; j < b.size(); ++j) if (b[j] == key) { s1; ...; break; }   -> lookup, then s1...
    for (auto y : b) if (key == y) found = true;                           -> same, no break
    for (j = 0; j < b.size(); ++j) if (b[j] == key) ++c;                   -> c += equal count

The statements before ``break`` run once on the first match and never otherwise, so
``if (member) { s1; ... }`` has the same effect; without ``break`` the action must be one that
repeating is the same as doing once (storing a literal) or a counter step, which becomes
``c += upper_bound - lower_bound`` on the sorted copy. ``key`` is pure and never mentions the
scan's variable, so one evaluation stands for all of them; when it reads an element (``a[i]``)
the lookup is guarded by ``!copy.empty()`` so an empty ``b`` evaluates it as rarely as before.

A sorted copy with ``std::binary_search`` rather than an ``std::unordered_set``: the call-form
rewrite of the same rule already uses it, it needs no hash for the element type, and with equal
ranges it also answers the counting form.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from perfpilot.code.declarations import VarType
from perfpilot.code.effects import PARALLEL_SAFE_METHODS
from perfpilot.code.sequence_scan import (
    SequenceScan,
    index_head,
    norm_type,
    sequence_element,
    single_statement,
)
from perfpilot.code.syntax import (
    Node,
    node_text,
    unwrap,
    walk,
)

_COUNTER = {"int", "long", "long long", "unsigned", "unsigned int", "unsigned long",
            "unsigned long long", "std::size_t", "size_t", "std::ptrdiff_t", "ptrdiff_t"}
# free functions a loop may call without any chance of writing the searched data
_SAFE_CALLS = re.compile(r"(std::\w+|printf|puts|abs|labs|llabs)")


@dataclass(frozen=True)
class NestedScan(SequenceScan):
    """One inner scan to replace: the loop node, what it searches (``seq``) and how to rewrite
    it."""

    key: Node
    action: tuple[str, ...]  # statements run on a match (counting: empty)
    counter: str  # the counter stepped once per match, in the counting form ("" otherwise)


def pure_key(node: Node) -> bool:
    """Whether evaluating ``node`` reads only (names, literals, subscripts, arithmetic)."""
    if node.type in ("identifier", "number_literal", "field_identifier"):
        return True
    if node.type == "parenthesized_expression":
        return all(pure_key(c) for c in node.named_children if c is not None)
    if node.type == "subscript_expression":
        arg = node.child_by_field_name("argument")
        idx = node.child_by_field_name("indices") or node.child_by_field_name("index")
        parts = [arg] + ([c for c in idx.named_children if c is not None]
                         if idx is not None and idx.type == "subscript_argument_list"
                         else [idx])
        return all(p is not None and pure_key(p) for p in parts)
    if node.type == "binary_expression":
        op = node.child_by_field_name("operator")
        left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
        return op is not None and node_text(op) in ("+", "-", "*") and left is not None and \
            right is not None and pure_key(left) and pure_key(right)
    return False


def _names(node: Node) -> set[str]:
    return {node_text(n) for n in walk(node) if n.type == "identifier"}


def _counter_step(stmt: Node) -> str:
    """``c`` for ``++c;``, ``c++;``, ``c += 1;``."""
    if stmt.type != "expression_statement" or stmt.named_child_count != 1:
        return ""
    e = stmt.named_children[0]
    if e is None:
        return ""
    flat = "".join(node_text(e).split())
    m = re.fullmatch(r"\+\+([A-Za-z_]\w*)|([A-Za-z_]\w*)\+\+|([A-Za-z_]\w*)\+=1", flat)
    return next((g for g in m.groups() if g), "") if m else ""


def _literal_store(stmt: Node) -> bool:
    """``x = true;`` / ``x = 1;``: doing it many times is doing it once."""
    if stmt.type != "expression_statement" or stmt.named_child_count != 1:
        return False
    e = stmt.named_children[0]
    if e is None or e.type != "assignment_expression" or node_text(e.child_by_field_name(
            "operator") or e) != "=":
        return False
    left, right = e.child_by_field_name("left"), e.child_by_field_name("right")
    return left is not None and left.type == "identifier" and right is not None and \
        (right.type in ("true", "false", "number_literal") or
         bool(re.fullmatch(r"-?\d+", node_text(right))))


def _plain(stmt: Node, var: str) -> bool:
    """An expression statement that cannot leave or restart the scan and ignores its variable."""
    return stmt.type == "expression_statement" and var not in _names(stmt) and not any(
        n.type in ("lambda_expression", "comma_expression") for n in walk(stmt))


def _from_first(start: str) -> bool:
    """Whether the scan starts at the first element."""
    return start == "0"


def scan_head(loop: Node, types: dict[str, VarType | None]
               ) -> tuple[str, str, str, str] | None:
    """``(var, b, elem, bound)`` of a scan over the whole of ``b``; var is the index or the
    range-for element, bound "" for ``b.size()`` or a range-for."""
    if loop.type == "for_range_loop":
        type_node = loop.child_by_field_name("type")
        decl = loop.child_by_field_name("declarator")
        rng = loop.child_by_field_name("right")
        if type_node is None or decl is None or rng is None or rng.type != "identifier":
            return None
        b = node_text(rng)
        elem = sequence_element(types.get(b), pointer_ok=False, strings=True)
        var = node_text(decl).lstrip("&* ").strip()
        declared = norm_type(node_text(type_node))
        if not elem or not re.fullmatch(r"[A-Za-z_]\w*", var) or \
                declared not in ("auto", elem) or "&&" in node_text(decl):
            return None
        return var, b, elem, ""
    head = index_head(loop)
    if head is None or not _from_first(head[1]):
        return None
    var = head[0]
    c = re.fullmatch(r"([A-Za-z_]\w*)(\.size\(\))?", "".join(head[2].split()))
    if c is None:
        return None
    if c.group(2):
        b = c.group(1)
        elem = sequence_element(types.get(b), pointer_ok=False, strings=True)
        return (var, b, elem, "") if elem else None
    bound = c.group(1)
    bt = types.get(bound)
    if bt is None or not bt.is_integral:
        return None
    return var, "", "", bound  # b is learned from the comparison


def nested_scan(loop: Node, types: dict[str, VarType | None]) -> tuple[NestedScan | None, str]:
    """The inner scan ``loop`` when it has one of the module's shapes, else why not ("" when
    it is no membership scan at all)."""
    head = scan_head(loop, types)
    if head is None:
        return None, ""
    var, b, elem, bound = head
    stmt = single_statement(loop.child_by_field_name("body"))
    if stmt is None or stmt.type != "if_statement" or \
            stmt.child_by_field_name("alternative") is not None:
        return None, "the scan's body does more than one test without else"
    cond = unwrap(stmt.child_by_field_name("condition"))
    if cond is None or cond.type != "binary_expression" or \
            node_text(cond.child_by_field_name("operator") or cond) != "==":
        return None, ""
    left, right = cond.child_by_field_name("left"), cond.child_by_field_name("right")
    if left is None or right is None:
        return None, ""
    found: tuple[Node, str] | None = None
    for side, other in ((left, right), (right, left)):
        flat = "".join(node_text(side).split())
        if loop.type == "for_range_loop" and flat == var:
            found = other, b
        elif loop.type == "for_statement":
            m = re.fullmatch(rf"([A-Za-z_]\w*)\[{var}\]", flat)
            if m is not None and (not b or m.group(1) == b):
                found = other, m.group(1)
        if found is not None:
            break
    if found is None:
        return None, ""
    key, b = found
    if bound:
        elem = sequence_element(types.get(b), pointer_ok=True, strings=True)
        bt = types.get(b)
        if not elem or bt is None or not (bt.pointer or bt.array):
            return None, f"'{b}' is not a pointer or array of integers scanned up to '{bound}'"
    if var in _names(key) or not pure_key(key):
        return None, "the value compared is not a pure expression of the outer loop"
    then = stmt.child_by_field_name("consequence")
    if then is None:
        return None, ""
    parts = [c for c in then.named_children if c is not None and c.type != "comment"] \
        if then.type == "compound_statement" else [then]
    if parts and parts[-1].type == "break_statement":
        if not all(_plain(p, var) for p in parts[:-1]):
            return None, "the statements before 'break' are not plain statements"
        return NestedScan(loop, b, elem, bound, key,
                          tuple(node_text(p) for p in parts[:-1]), ""), ""
    action = parts[0] if len(parts) == 1 else None
    if action is not None and _literal_store(action) and _plain(action, var):
        return NestedScan(loop, b, elem, bound, key, (node_text(action),), ""), ""
    counter = _counter_step(action) if action is not None else ""
    ct = types.get(counter) if counter else None
    if counter and ct is not None and not ct.pointer and not ct.array and \
            norm_type(ct.base) in _COUNTER and counter not in _names(key):
        return NestedScan(loop, b, elem, bound, key, (), counter), ""
    return None, "the scan's action on a match is neither 'break', a flag nor a counter step"


def outer_writes_ok(outer: Node, scan: NestedScan, types: dict[str, VarType | None]) -> str:
    """Why the outer loop might change what the scan reads ("" when it cannot): writes to
    ``b``, its bound or through any pointer, unknown calls, and (pointer ``b``) any method that
    may write. The caller adds the call form's same-type checks for a vector ``b``."""
    key_names = _names(scan.key)
    for n in walk(outer):
        if n.type in ("assignment_expression", "update_expression"):
            target = n.child_by_field_name("left") or n.child_by_field_name("argument")
            if target is None:
                return "the loop writes through an unknown target"
            root = re.split(r"[.\[\-]", "".join(node_text(target).split()))[0]
            if root in (scan.seq, scan.bound):
                return f"the loop writes '{node_text(target)}'"
            if n.start_byte >= scan.loop.start_byte and n.end_byte <= scan.loop.end_byte and \
                    (root in key_names):
                return "the scan writes what it compares"
            vt = types.get(root)
            if target.type != "identifier" and (vt is None or vt.pointer or vt.array):
                return f"the loop writes '{node_text(target)}', which may point into the data"
        elif n.type == "call_expression":
            fn = n.child_by_field_name("function")
            if fn is not None and fn.type != "field_expression" and \
                    not _SAFE_CALLS.fullmatch(node_text(fn)):
                return f"the loop calls '{node_text(fn)}', which may change the data"
            method = fn.child_by_field_name("field") if fn is not None and \
                fn.type == "field_expression" else None
            if scan.bound and fn is not None and method is not None and \
                    node_text(method) not in PARALLEL_SAFE_METHODS:
                # a pointer may point into any container a method resizes or writes
                return f"the loop calls '{node_text(fn)}', which may change the data"
    return ""


def replacement(scan: NestedScan, copy: str) -> str:
    """The statement that replaces the scan, given the sorted copy's name."""
    key = node_text(scan.key)
    guard = f"!{copy}.empty() && " if any(
        n.type == "subscript_expression" for n in walk(scan.key)) else ""
    if scan.counter:
        span = f"{copy}.begin(), {copy}.end(), {key}"
        step = f"{scan.counter} += std::upper_bound({span}) - std::lower_bound({span});"
        return f"if ({guard.removesuffix(' && ')}) {step}" if guard else step
    test = f"{guard}std::binary_search({copy}.begin(), {copy}.end(), {key})"
    return f"if ({test}) {{ {' '.join(scan.action)} }}"


def copy_declaration(scan: NestedScan, copy: str) -> str:
    """The declaration of the sorted copy (unsorted yet)."""
    if not scan.bound:
        return f"auto {copy} = {scan.seq};"
    return f"std::vector<{scan.elem}> {copy}({scan.seq}, {scan.seq} + {scan.clamped_count()});"
