"""The hoist-container rule: a container or string constructed (and destroyed) on every iteration of
a loop.

Rewrite: A container or string stream built on every iteration is declared once and reused.

``std::vector<int> w(first, last);`` at the top of a loop body allocates and frees a buffer on
every iteration. Declared once before the loop and refilled with ``w.assign(first, last)``, it
keeps its capacity and holds the same elements: ``assign`` mirrors every constructor overload
(counts, iterator pairs, ``(const char*, n)``, initializer lists), and a copy becomes a copy
assignment. A ``std::ostringstream`` declared without arguments is emptied with
``os.str(""); os.clear();`` instead, which resets its text and error state but not its
formatting flags, so the rule requires that the loop only inserts plain values into it.

The variable must be declared directly in the loop's body, under a name that neither the rest
of the function nor any namespace-scope declaration uses (hoisting must not shadow or be
shadowed), and must not be captured by a lambda.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

from perfpilot.code.facts import FunctionFacts
from perfpilot.code.syntax import (
    Node,
    line,
    node_text,
    walk,
)
from perfpilot.rules.base import Example, RuleSpec
from perfpilot.rules.detect.common import (
    CONTAINER_TYPE,
    cpp,
    loop_phrase,
    rng,
)
from perfpilot.rules.edits import Edit
from perfpilot.rules.finding import Finding, Proof, depth_bonus, make_finding
from perfpilot.rules.rewrite_input import (
    Left,
    Planned,
    RuleInput,
    insertion_before,
    statement_slot_ok,
)

RULE_ID = "hoist-container"
_CONTAINER = re.compile(r"^(std::)?(vector\s*<.+>|string|wstring)$")
_STREAM = re.compile(r"^(std::)?ostringstream$")
# Stream manipulators change formatting state that outlives the statement (or may: setw).
_MANIPULATORS = {
    "hex", "dec", "oct", "fixed", "scientific", "hexfloat", "defaultfloat", "boolalpha",
    "noboolalpha", "showbase", "noshowbase", "showpoint", "noshowpoint", "showpos",
    "noshowpos", "uppercase", "nouppercase", "left", "right", "internal", "setw",
    "setprecision", "setfill", "setbase", "setiosflags", "resetiosflags", "put_money",
    "put_time", "unitbuf", "nounitbuf",
}


def _uses(node: Node, name: str, skip: tuple[int, int] = (0, 0)) -> int:
    """Identifiers spelled ``name`` under ``node``, except inside the byte range ``skip``."""
    return sum(1 for n in walk(node)
               if n.type in ("identifier", "type_identifier") and node_text(n) == name
               and not skip[0] <= n.start_byte < skip[1])


def _global_uses(unit: Node, name: str) -> int:
    """Identifiers spelled ``name`` outside every function definition of the unit (globals
    and other namespace-scope names, which a hoisted local could hide)."""
    bodies = [(n.start_byte, n.end_byte) for n in walk(unit)
              if n.type == "function_definition"]
    return sum(1 for n in walk(unit)
               if n.type in ("identifier", "type_identifier") and node_text(n) == name
               and not any(a <= n.start_byte < b for a, b in bodies))


def _refill(name: str, decl: Node) -> str | None:
    """The statement that gives an existing container the value the declaration would."""
    d = decl.child_by_field_name("declarator")
    if d is None:
        return None
    if d.type == "identifier":
        return f"{name}.clear();"
    if d.type == "init_declarator":
        value = d.child_by_field_name("value")
        if value is None:
            return None
        if value.type == "argument_list":
            args = [node_text(a) for a in value.named_children if a is not None]
            if not args:
                return f"{name}.clear();"
            if len(args) == 1:
                return None  # a count or a copy: the types decide, and are not known here
            return f"{name}.assign({', '.join(args)});"
        if value.type == "initializer_list":
            return f"{name} = {node_text(value)};"
        return f"{name} = {node_text(value)};"  # T name = expr;
    if d.type == "function_declarator":
        # T name(a, b) parses like a function declaration; plain names are arguments.
        params = d.child_by_field_name("parameters")
        args = [node_text(p) for p in params.named_children if p is not None] if params else []
        if len(args) >= 2 and all(re.fullmatch(r"[A-Za-z_]\w*", a) for a in args):
            return f"{name}.assign({', '.join(args)});"
    return None


def _declared_name(decl: Node) -> str | None:
    d = decl.child_by_field_name("declarator")
    if d is None:
        return None
    if d.type == "identifier":
        return node_text(d)
    inner = d.child_by_field_name("declarator")
    return node_text(inner) if inner is not None and inner.type == "identifier" else None


def _only_inserts_values(body: Node, name: str) -> bool:
    """Every use of the stream ``name`` in ``body`` inserts values or reads ``str()``."""
    for n in walk(body):
        if n.type != "identifier" or node_text(n) != name:
            continue
        parent = n.parent
        if parent is None:
            return False
        if parent.type == "field_expression":
            field = parent.child_by_field_name("field")
            call = parent.parent
            args = call.child_by_field_name("arguments") if call is not None else None
            if field is None or node_text(field) != "str" or call is None or \
                    call.type != "call_expression" or args is None or args.named_child_count:
                return False
            continue
        if parent.type == "declaration":
            continue
        # os << a << b: the stream is the leftmost operand of a chain of insertions
        if parent.type != "binary_expression" or parent.child_by_field_name("left") != n:
            return False
        chain: Node | None = parent
        while chain is not None and chain.type == "binary_expression":
            op = chain.child_by_field_name("operator")
            right = chain.child_by_field_name("right")
            if op is None or right is None or node_text(op) != "<<":
                break
            if any(m.type in ("identifier", "namespace_identifier") and
                   node_text(m) in _MANIPULATORS for m in walk(right)):
                return False
            chain = chain.parent
    return True


# detection


@dataclass(frozen=True)
class PerIteration(Proof):
    """A local container ``name`` declared by ``decl`` inside ``loop`` (its innermost loop)."""

    decl: Node
    loop: Node
    name: str


def hoist_container(facts: FunctionFacts) -> Iterator[Finding]:
    """A container or string constructed (and destroyed) on every iteration of a loop."""
    if not cpp(facts):
        return
    # A copy the const-ref-copy rule proves claims its declaration (ranking drops this one).
    for decl in facts.in_loops("declaration"):
        loop = facts.loop_of(decl)
        if loop is None or decl.parent is None or decl.parent.type in (
                "for_statement", "for_range_loop"):
            continue
        if any(c.type == "storage_class_specifier" and node_text(c) == "static"
               for c in decl.children):
            continue
        for v in facts.local_vars(decl):
            if v.reference or v.pointer or not CONTAINER_TYPE.match(v.base):
                continue
            yield make_finding(
                "hoist-container",
                f"`{v.name}` (`{v.base}`) is constructed on line {line(decl)} and destroyed on "
                f"every iteration of {loop_phrase(loop)}, allocating and freeing its buffer "
                f"each time: declare `{v.name}` once before the loop and `clear()`/`assign()` it "
                f"inside, so its capacity is reused.",
                [line(decl), loop.line],
                loop_range=loop.byte_range, node_range=rng(decl), names=[v.name],
                bonus=depth_bonus(loop.depth),
                proof=PerIteration(decl, loop.node, v.name),
            )


# rewrite

_STAYS = "stays in the loop"


def hoist_container_fix(inp: RuleInput, finding: Finding) -> Planned | Left:
    """Declare a per-iteration vector, string or string stream once, before its loop, and
    refill it in place where it was declared."""
    proof = finding.proof
    assert isinstance(proof, PerIteration)
    decl, loop, name = proof.decl, proof.loop, proof.name
    what = f"'{name}'"
    body = decl.parent
    if body is None or body.type != "compound_statement" or \
            loop.child_by_field_name("body") != body:
        return Left(what, decl, "it is not declared directly in the loop's body", _STAYS)
    type_node = decl.child_by_field_name("type")
    if type_node is None or _declared_name(decl) != name or \
            len(decl.children_by_field_name("declarator")) != 1:
        return Left(what, decl, "its declaration declares more than one variable", _STAYS)
    type_text = " ".join(node_text(type_node).split())
    is_stream = bool(_STREAM.match(type_text))
    if not (is_stream or _CONTAINER.match(type_text)):
        return Left(what, decl, f"a `{type_text}` has no refill written here (only vectors, "
                    "strings and string streams are refilled in place)", _STAYS)
    if any(c.type in ("type_qualifier", "storage_class_specifier") for c in decl.children):
        return Left(what, decl, "it is const, so a hoisted one could not be refilled", _STAYS)
    if _global_uses(inp.unit, name) or \
            _uses(inp.function, name, (body.start_byte, body.end_byte)):
        return Left(what, decl, "the name is used elsewhere too", _STAYS)
    if any(n.type == "lambda_expression" and _uses(n, name) for n in walk(body)):
        return Left(what, decl, "a lambda in the loop names it", _STAYS)
    if is_stream:
        d = decl.child_by_field_name("declarator")
        if d is None or d.type != "identifier" or not _only_inserts_values(body, name):
            return Left(f"the stream {what}", decl, "it is constructed with arguments or its "
                        "formatting changes", _STAYS)
        refill = f'{name}.str(""); {name}.clear();'
    else:
        refill = _refill(name, decl) or ""
        if not refill:
            return Left(what, decl, "its one constructor argument may be a count or a copy, "
                        "which only the types tell apart", _STAYS)
    if not statement_slot_ok(loop):
        return Left(what, decl, "its loop is not a plain statement of a block", _STAYS)
    return Planned(
        (insertion_before(inp, loop, f"{type_text} {name};", RULE_ID, order=-30),
         Edit(decl.start_byte, decl.end_byte, refill, RULE_ID)),
        f"'{name}' ({type_text}) is built and destroyed on every iteration of the loop at "
        f"line {inp.line_of(loop)}, allocating its buffer each time; declared once before "
        "the loop and refilled in place, it keeps its capacity.",
        (decl, loop), includes=())


RULE = RuleSpec(
    id=RULE_ID,
    detect=hoist_container,
    fix=hoist_container_fix,
    rewrites_as=frozenset({"hoist-container"}),
    phase=2,
    order=3,
    examples=(
        Example("cpp", """
#include <algorithm>
#include <string>
#include <vector>
long peaks(const std::vector<int>& v) {
    long total = 0;
    for (std::size_t i = 0; i + 4 <= v.size(); ++i) {
        std::vector<int> w(v.begin() + i, v.begin() + i + 4);
        std::sort(w.begin(), w.end());
        total += w.back() + w.front();
    }
    return total;
}
""", "peaks"),
    ),
)
