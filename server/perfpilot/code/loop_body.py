"""What one loop body declares, reads, writes, calls and jumps to, collected in one walk."""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field

import tree_sitter

from perfpilot.code.declarations import walk_declarator
from perfpilot.code.effects import APPEND_METHODS, DOES_IO
from perfpilot.code.syntax import (
    LOOP_TYPES,
    callee_parts,
    nearest_target,
    node_text,
    plain_callee,
    root_name_of,
    subscript_parts,
    unwrap,
    walk,
)

Node = tree_sitter.Node


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




@dataclass
class BodyFacts:
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


def collect_body(loop: Node, body: Node) -> BodyFacts:
    facts = BodyFacts()
    write_targets: set[tuple[int, int]] = set()

    def target(t: Node) -> None:
        t = unwrap(t)
        write_targets.add((t.start_byte, t.end_byte))
        if t.type == "identifier":
            facts.scalar_writes.setdefault(node_text(t), []).append(t)
        elif t.type == "subscript_expression":
            base, idx = subscript_parts(t)
            facts.element.append((ElementAccess(
                " ".join(node_text(base).split()), tuple(idx), True, t.start_point[0]), base))
        elif t.type == "field_expression":
            # a[i].x (through '.' only) writes a member of element a[i]: an element write
            inner = t
            while inner.type == "field_expression" and \
                    node_text(inner.child_by_field_name("operator") or inner) == ".":
                inner = unwrap(inner.child_by_field_name("argument") or inner)
            if inner.type == "subscript_expression" and inner is not t:
                target(inner)
            else:
                facts.member_writes.add(node_text(t))
        elif t.type == "pointer_expression":
            facts.deref_writes.add(node_text(t))
        else:
            facts.other.append(f"writes through '{node_text(t)}'")

    for n in walk(body):
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
                root = root_name_of(arg)
                facts.escapes.add(root or node_text(arg))
        elif t == "call_expression":
            callee, obj, method = callee_parts(n)
            args_node = n.child_by_field_name("arguments")
            args = tuple(node_text(a) for a in args_node.named_children) if args_node else ()
            facts.calls.append((CallSite(node_text(n), callee, obj, method, args, n.start_byte,
                                         n.end_byte), n))
            if plain_callee(callee) in DOES_IO:
                facts.has_io = True
        elif t == "identifier" and node_text(n) in ("cout", "cin", "cerr", "clog"):
            facts.has_io = True
        elif t in _JUMPS:
            facts.jumps.append(_JUMPS[t])
        elif t == "break_statement" and nearest_target(n) == loop:
            facts.jumps.append("break")
        elif t in ("new_expression", "delete_expression"):
            facts.other.append("allocates or frees memory")
        elif t.startswith("preproc") or t == "gnu_asm_expression":
            facts.other.append("contains preprocessor directives or inline assembly")
        elif t == "lambda_expression":
            facts.other.append("contains a lambda")
    # element reads: subscripts that are not write targets (outermost of each chain)
    for n in walk(body):
        if n.type != "subscript_expression":
            continue
        parent = n.parent
        if parent is not None and parent.type == "subscript_expression" and \
                parent.child_by_field_name("argument") == n:
            continue
        base, idx = subscript_parts(n)
        if (n.start_byte, n.end_byte) in write_targets:
            # a compound assignment or ++ also reads the element: the write record covers it
            continue
        facts.element.append((ElementAccess(" ".join(node_text(base).split()), tuple(idx),
                                            False, n.start_point[0]), base))
    return facts



def appends(body: Node) -> tuple[str, ...]:
    """Containers with exactly one unconditional push_back/emplace_back at the body's top level."""
    stmts = body.named_children if body.type == "compound_statement" else [body]
    counts: dict[str, int] = {}
    top: set[str] = set()
    for n in walk(body):
        if n.type == "call_expression":
            _, obj, method = callee_parts(n)
            if obj is not None and method in APPEND_METHODS:
                counts[obj] = counts.get(obj, 0) + 1
    for s in stmts:
        if s.type == "expression_statement" and s.named_child_count == 1 and \
                s.named_children[0].type == "call_expression":
            _, obj, method = callee_parts(s.named_children[0])
            if obj is not None and method in APPEND_METHODS:
                top.add(obj)
    return tuple(sorted(o for o in top if counts.get(o) == 1 and
                        re.fullmatch(r"[A-Za-z_]\w*", o)))


def direct_loops(node: Node) -> Iterator[Node]:
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
