"""Loops that consume a local string or vector from the front, one element per iteration.

``while (!s.empty()) { use(s[0]); s.erase(0, 1); }`` moves every remaining element on each
erase (``s = s.substr(1)`` copies them), so consuming ``n`` elements costs O(n²). The same loop
reading the unchanged container through an offset ``off`` (the number of elements consumed so
far) does O(1) per step: ``s[k]`` is ``s[off + (k)]``, ``s.front()`` is ``s[off]``,
``s.size()`` is ``s.size() - off``, ``s.empty()`` is ``off == s.size()``, and the consuming
statement becomes ``++off``. After the loop the consumed prefix is erased once, so the container
ends as the original loop left it (left out when nothing can observe it any more).

The proof asked of a loop:

- the container is a local or a parameter taken by value, a ``std::string`` or
  ``std::vector`` (no pointer, reference, array, ``static``), declared once in the function;
- the loop is a ``while`` (or ``for``) whose condition is, or has as a conjunct of a top-level
  ``&&`` chain, a non-empty test: ``!s.empty()``, ``s.size() > 0``, ``s.size() != 0``
  (``length()`` too);
- the body is a block holding, directly, exactly one consuming statement: ``s.erase(0, 1);``
  or ``s = s.substr(1);`` (strings), ``s.erase(s.begin());`` (both). Nothing else changes the
  size or the front of ``s`` in the loop, so ``s`` is non-empty at the consume and each form
  removes exactly the first element (``substr(1)`` cannot throw there);
- every other mention of ``s`` in the loop (the condition included) is ``s[k]`` (read or
  written), ``s.front()``, ``s.back()``, ``s.size()``, ``s.length()``, ``s.empty()``,
  ``s.push_back(x)`` or ``s.emplace_back(...)``, where ``k`` and the arguments do not
  mention ``s``;
- nothing can reach ``s`` under another name while the loop runs: no mention outside the loop
  that keeps a reference, pointer, iterator or lambda capture of it before the loop (or
  anywhere, when the loop sits in another loop); no ``goto``, label or ``try`` in the function
  (a ``catch`` could observe ``s`` half consumed; otherwise an exception or a ``return``
  leaving the loop destroys ``s`` with the function).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from perfpilot.code.facts import FunctionFacts
from perfpilot.code.parse import statements, unparen
from perfpilot.code.sorted_ranges import ESCAPE, Mentions, flat, jumps_in
from perfpilot.code.syntax import Node, is_within, operator, text, walk

_VECTOR = re.compile(r"^(?:std::)?vector\s*<.+>$", re.S)
_STRING = re.compile(r"^(?:std::)?(?:string|basic_string\s*<\s*char\s*>)$")
_LOOPS = ("while_statement", "for_statement")
_KEPT = frozenset({"back", "push_back", "emplace_back"})


@dataclass(frozen=True)
class Read:
    """One mention of the container the offset rewrite changes: the node to replace and its
    kind (``index`` with the index text, ``front``, ``size``, ``empty``)."""

    node: Node
    kind: str
    index: str = ""


@dataclass(frozen=True)
class FrontConsumed:
    """A loop proved to consume ``name`` from the front (``form``: ``erase``, ``erase-begin``
    or ``substr``); ``restore``: whether the container's final state can be observed after the
    loop, so the consumed prefix must be erased there."""

    loop: Node
    name: str
    string: bool
    consume: Node
    form: str
    reads: tuple[Read, ...]
    restore: bool


@dataclass(frozen=True)
class Refused:
    """A loop consuming ``name`` from the front that stays, and why."""

    loop: Node
    name: str
    consume: Node
    why: str


def front_consumed(facts: FunctionFacts, unit: Node
                   ) -> tuple[tuple[FrontConsumed, ...], tuple[Refused, ...]]:
    """Every loop proved to consume a local container from the front, and the candidates
    refused with why."""
    if facts.language != "cpp" or facts.body is None:
        return (), ()
    candidates: list[tuple[Node, str, Node, str]] = []
    for loop in (n for n in walk(facts.body) if n.type in _LOOPS):
        found = _candidate(loop)
        if found is not None:
            candidates.append((loop, *found))
    if not candidates:
        return (), ()
    m = Mentions(facts, unit)
    function_problem = ""
    if jumps_in(facts):
        function_problem = "the function has goto or labels"
    elif any(n.type == "try_statement" for n in walk(facts.body)):
        function_problem = "the function catches exceptions (a handler could see the " \
                           "container half consumed)"
    proved: list[FrontConsumed] = []
    refused: list[Refused] = []
    for loop, name, consume, form in candidates:
        why = function_problem or _container_problem(facts, m, name, form)
        result = Refused(loop, name, consume, why) if why else \
            _prove(facts, m, loop, name, consume, form)
        if isinstance(result, Refused):
            refused.append(result)
        else:
            proved.append(result)
    return tuple(proved), tuple(refused)


def _candidate(loop: Node) -> tuple[str, Node, str] | None:
    """``(name, consuming statement, form)`` for a loop guarded by a non-empty test of
    ``name`` whose body directly holds a front consume of it."""
    cond = loop.child_by_field_name("condition")
    body = loop.child_by_field_name("body")
    if cond is None or body is None or body.type != "compound_statement":
        return None
    if cond.type == "condition_clause":
        value = cond.child_by_field_name("value")
        if value is None:
            return None
        cond = value
    names = {n for n in (_nonempty_of(c) for c in _conjuncts(cond)) if n}
    for stmt in statements(body):
        for name in names:
            form = _consume_form(stmt, name)
            if form:
                return name, stmt, form
    return None


def _conjuncts(cond: Node) -> list[Node]:
    cond = unparen(cond)
    if cond.type == "binary_expression" and operator(cond) == "&&":
        left, right = cond.child_by_field_name("left"), cond.child_by_field_name("right")
        if left is not None and right is not None:
            return _conjuncts(left) + _conjuncts(right)
    return [cond]


def _nonempty_of(c: Node) -> str:
    """The container a condition tests non-empty ('' for none)."""
    m = re.fullmatch(r"!([A-Za-z_]\w*)\.empty\(\)", flat(c)) or \
        re.fullmatch(r"([A-Za-z_]\w*)\.(?:size|length)\(\)(?:>0|!=0)", flat(c)) or \
        re.fullmatch(r"0(?:<|!=)([A-Za-z_]\w*)\.(?:size|length)\(\)", flat(c))
    return m.group(1) if m else ""


def _consume_form(stmt: Node, name: str) -> str:
    """``erase``, ``erase-begin`` or ``substr`` when ``stmt`` removes the first element of
    ``name`` ('' otherwise)."""
    s = flat(stmt)
    if s == f"{name}.erase(0,1);":
        return "erase"
    if s in (f"{name}.erase({name}.begin());", f"{name}.erase({name}.cbegin());"):
        return "erase-begin"
    if s == f"{name}={name}.substr(1);":
        return "substr"
    return ""


def _container_problem(facts: FunctionFacts, m: Mentions, name: str, form: str) -> str:
    vt = facts.var(name)
    if vt is None or vt.scope not in ("local", "param") or vt.pointer or vt.array or \
            vt.reference or "static" in vt.type_text.split() or not m.declared_once(name):
        return f"'{name}' is not a local or a parameter taken by value, declared once"
    base = " ".join(vt.base.replace("const", " ").split())
    string = bool(_STRING.match(base))
    if not string and not _VECTOR.match(base):
        return f"'{name}' is not a std::string or std::vector"
    if form != "erase-begin" and not string:
        return f"'{name}' is not a std::string"
    return ""


def _prove(facts: FunctionFacts, m: Mentions, loop: Node, name: str, consume: Node,
           form: str) -> FrontConsumed | Refused:
    def refuse(why: str) -> Refused:
        return Refused(loop, name, consume, why)

    nested = any(lp.byte_range != (loop.start_byte, loop.end_byte)
                 for lp in facts.enclosing_loops(loop))
    reads: list[Read] = []
    after = False
    for u in m.of(name):
        n = u.ident
        if is_within(n, consume):
            continue
        if not is_within(n, loop):
            if n.start_byte >= loop.end_byte:
                after = True
            if u.kind == ESCAPE and (nested or n.start_byte < loop.start_byte):
                return refuse(f"'{name}' may be reached under another name while the loop "
                              f"runs (line {n.start_point[0] + 1})")
            continue
        read = _read(n, name)
        if read is None:
            return refuse(f"the loop uses '{name}' on line {n.start_point[0] + 1} in a way "
                          "an offset cannot follow (only indexing, front, back, size, empty "
                          "and appends can)")
        if read.kind:
            reads.append(read)
    for n in walk(loop):
        if n.type in ("declaration", "parameter_declaration") and \
                name in {text(i) for i in walk(n) if i.type == "identifier"}:
            return refuse(f"the loop declares a name '{name}'")
    vt = facts.var(name)
    string = vt is not None and bool(_STRING.match(" ".join(vt.base.replace(
        "const", " ").split())))
    return FrontConsumed(loop, name, string, consume, form, tuple(reads), after or nested)


def _read(n: Node, name: str) -> Read | None:
    """How the offset rewrite reads the mention ``n`` of ``name`` inside the loop: a Read with
    an empty kind when it stays as written; None when it cannot."""
    p = n.parent
    if p is None:
        return None
    if p.type == "subscript_expression" and p.child_by_field_name("argument") == n:
        idx = p.child_by_field_name("indices") or p.child_by_field_name("index")
        parts = [c for c in idx.named_children if c.type != "comment"] if idx is not None \
            else []
        if len(parts) != 1 or _mentions(parts[0], name):
            return None
        return Read(p, "index", text(parts[0]))
    if p.type != "field_expression" or p.child_by_field_name("argument") != n or \
            operator(p) != ".":
        return None
    call = p.parent
    if call is None or call.type != "call_expression" or call.child_by_field_name("function") != p:
        return None
    method = text(p.child_by_field_name("field"))
    args = call.child_by_field_name("arguments")
    if args is None or _mentions(args, name):
        return None
    if method in _KEPT:
        return Read(call, "")
    if args.named_child_count:
        return None
    kind = {"front": "front", "size": "size", "length": "size", "empty": "empty"}.get(method)
    return Read(call, kind) if kind else None


def _mentions(node: Node, name: str) -> bool:
    return any(i.type == "identifier" and text(i) == name for i in walk(node))


def offset_text(read: Read, name: str, off: str) -> str:
    """The replacement of one read of ``name`` with ``off`` elements consumed."""
    if read.kind == "index":
        return f"{name}[{off} + ({read.index})]"
    if read.kind == "front":
        return f"{name}[{off}]"
    if read.kind == "size":
        return f"({name}.size() - {off})"
    return f"({off} == {name}.size())"


def restore_text(fc: FrontConsumed, off: str) -> str:
    """The statement that erases the consumed prefix once after the loop."""
    if fc.string:
        return f"{fc.name}.erase(0, {off});"
    return (f"{fc.name}.erase({fc.name}.begin(), {fc.name}.begin() + "
            f"static_cast<std::ptrdiff_t>({off}));")
