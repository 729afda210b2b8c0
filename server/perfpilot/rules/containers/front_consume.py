"""Loops that consume a local string or vector from the front.

``while (!s.empty()) { use(s[0]); s.erase(0, 1); }`` moves every remaining element on each
erase (``s = s.substr(1)`` copies them), so consuming ``n`` elements costs O(n²). The same loop
reading the unchanged container through an offset ``off`` (the number of elements consumed so
far) does O(1) per step: ``s[k]`` is ``s[off + (k)]``, ``s.front()`` is ``s[off]``,
``s.size()`` is ``s.size() - off``, ``s.empty()`` is ``off == s.size()``, and the consuming
statement becomes ``++off``. After the loop the consumed prefix is erased once, so the container
ends as the original loop left it (left out when nothing can observe it any more).

A string may also lose a prefix of any length per iteration, ``s.erase(0, k)`` or
``s = s.substr(k)`` (tokenizers, record parsers). ``erase(0, k)`` removes
``min(k, size)`` characters and never throws, so it becomes
``off += std::min<std::size_t>(k, s.size() - off)`` in any state of the loop; ``substr(k)``
throws ``std::out_of_range`` exactly when ``k`` exceeds the size, so its offset form tests
that first and, when it would throw, erases the consumed prefix and runs the original
statement (the same exception, same message). Neither needs a non-empty guard. Such loops may
also read ``s.find(x)`` (the position relative to the offset, ``npos`` kept),
``s.substr(0, n)`` and ``s.substr()`` (taken from the offset), and pass ``s`` whole to
``push_back``/``emplace_back`` of a ``std::vector<std::string>`` (``s.substr(off)``, the same
copy).

The proof asked of a loop:

- the container is a local or a parameter taken by value, a ``std::string`` or
  ``std::vector`` (no pointer, reference, array, ``static``), declared once in the function;
- the loop is a ``while`` (or ``for``) whose condition is, or has as a conjunct of a top-level
  ``&&`` chain, a non-empty test: ``!s.empty()``, ``s.size() > 0``, ``s.size() != 0``
  (``length()`` too);
- the body is a block holding, directly, exactly one consuming statement: ``s.erase(0, 1);``
  or ``s = s.substr(1);`` (strings), ``s.erase(s.begin());`` (both). Nothing else changes the
  size or the front of ``s`` in the loop, so ``s`` is non-empty at the consume and each form
  removes exactly the first element (``substr(1)`` cannot throw there). Without the guard, or
  with a count ``k`` other than 1 (not mentioning ``s``), a string's ``s.erase(0, k);`` or
  ``s = s.substr(k);`` is taken in its general form above;
- every other mention of ``s`` in the loop (the condition included) is ``s[k]`` (read or
  written), ``s.front()``, ``s.back()``, ``s.size()``, ``s.length()``, ``s.empty()``,
  ``s.push_back(x)`` or ``s.emplace_back(...)``, and for a string ``s.find(x)``,
  ``s.substr(0, n)``, ``s.substr()`` and ``v.push_back(s)`` into a ``std::vector<std::string>``,
  where ``k`` and the arguments do not mention ``s``;
- nothing can reach ``s`` under another name while the loop runs: no mention outside the loop
  that keeps a reference, pointer, iterator or lambda capture of it before the loop (or
  anywhere, when the loop sits in another loop); no ``goto``, label or ``try`` in the function
  (a ``catch`` could observe ``s`` half consumed; otherwise an exception or a ``return``
  leaving the loop destroys ``s`` with the function).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from perfpilot.code.effects import BACK_METHODS
from perfpilot.code.facts import FunctionFacts
from perfpilot.code.sorted_ranges import ESCAPE, Mentions, flat, jumps_in
from perfpilot.code.syntax import (
    Node,
    arguments,
    callee,
    is_within,
    node_text,
    operator,
    receiver,
    statements,
    unwrap,
    walk,
)

_VECTOR = re.compile(r"^(?:std::)?vector\s*<.+>$", re.S)
_STRING = re.compile(r"^(?:std::)?(?:string|basic_string\s*<\s*char\s*>)$")
_LOOPS = ("while_statement", "for_statement")
_STRING_VECTOR = re.compile(r"^(?:std::)?vector\s*<\s*(?:std::)?string\s*>$")


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
    or ``substr`` for one element, ``erase-n`` or ``substr-n`` for ``count`` characters);
    ``restore``: whether the container's final state can be observed after the
    loop, so the consumed prefix must be erased there."""

    loop: Node
    name: str
    string: bool
    consume: Node
    form: str
    reads: tuple[Read, ...]
    restore: bool
    count: Node | None = None  # the prefix length of ``erase-n`` and ``substr-n``


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
    candidates: list[tuple[Node, str, Node, str, Node | None]] = []
    for loop in (n for n in walk(facts.body, named=True) if n.type in _LOOPS):
        found = _candidate(loop)
        if found is not None:
            candidates.append((loop, *found))
    if not candidates:
        return (), ()
    m = Mentions(facts, unit)
    function_problem = ""
    if jumps_in(facts):
        function_problem = "the function has goto or labels"
    elif any(n.type == "try_statement" for n in walk(facts.body, named=True)):
        function_problem = "the function catches exceptions (a handler could see the " \
                           "container half consumed)"
    proved: list[FrontConsumed] = []
    refused: list[Refused] = []
    for loop, name, consume, form, count in candidates:
        why = function_problem or _container_problem(facts, m, name, form)
        result = Refused(loop, name, consume, why) if why else \
            _prove(facts, m, loop, name, consume, form, count)
        if isinstance(result, Refused):
            refused.append(result)
        else:
            proved.append(result)
    return tuple(proved), tuple(refused)


def _candidate(loop: Node) -> tuple[str, Node, str, Node | None] | None:
    """``(name, consuming statement, form, count)`` for a loop guarded by a non-empty test of
    ``name`` whose body directly holds a front consume of it, or any loop whose body directly
    holds a string's prefix consume (its count text)."""
    cond = loop.child_by_field_name("condition")
    body = loop.child_by_field_name("body")
    if body is None or body.type != "compound_statement":
        return None
    if cond is not None and cond.type == "condition_clause":
        cond = cond.child_by_field_name("value")
    names = {n for n in (_nonempty_of(c) for c in _conjuncts(cond)) if n} \
        if cond is not None else set()
    for stmt in statements(body):
        for name in names:
            form = _consume_form(stmt, name)
            if form:
                return name, stmt, form, None
    for stmt in statements(body):
        general = _prefix_consume(stmt)
        if general is not None:
            return general[0], stmt, general[1], general[2]
    return None


def _prefix_consume(stmt: Node) -> tuple[str, str, Node] | None:
    """``(name, form, count)`` when ``stmt`` is ``s.erase(0, k);`` (``erase-n``) or
    ``s = s.substr(k);`` (``substr-n``); mentions of ``s`` in ``k`` are reads the offset
    must follow like any other."""
    if stmt.type != "expression_statement" or stmt.named_child_count != 1:
        return None
    e = unwrap(stmt.named_children[0])
    form = ""
    call: Node | None = e
    if e.type == "assignment_expression" and operator(e) == "=":
        call = e.child_by_field_name("right")
        form = "substr-n"
    if call is None or call.type != "call_expression":
        return None
    rcv, args = receiver(call), arguments(call)
    if rcv is None or rcv.type != "identifier":
        return None
    name = node_text(rcv)
    if form:
        left = e.child_by_field_name("left")
        if left is None or left.type != "identifier" or node_text(left) != name or \
                callee(call) != "substr" or len(args) != 1:
            return None
        count = args[0]
    else:
        if callee(call) != "erase" or len(args) != 2 or flat(args[0]) != "0":
            return None
        form, count = "erase-n", args[1]
    if count.type == "initializer_list":
        return None
    return name, form, count


def _conjuncts(cond: Node) -> list[Node]:
    cond = unwrap(cond)
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
           form: str, count: Node | None) -> FrontConsumed | Refused:
    def refuse(why: str) -> Refused:
        return Refused(loop, name, consume, why)

    nested = any(lp.byte_range != (loop.start_byte, loop.end_byte)
                 for lp in facts.enclosing_loops(loop))
    vt = facts.var(name)
    string = vt is not None and bool(_STRING.match(" ".join(vt.base.replace(
        "const", " ").split())))
    reads: list[Read] = []
    after = False
    for u in m.of(name):
        n = u.ident
        if is_within(n, consume) and (count is None or not is_within(n, count)):
            continue
        if not is_within(n, loop):
            if n.start_byte >= loop.end_byte:
                after = True
            if u.kind == ESCAPE and (nested or n.start_byte < loop.start_byte):
                return refuse(f"'{name}' may be reached under another name while the loop "
                              f"runs (line {n.start_point[0] + 1})")
            continue
        read = _read(facts, n, name, string)
        if read is None:
            return refuse(f"the loop uses '{name}' on line {n.start_point[0] + 1} in a way "
                          "an offset cannot follow (only indexing, front, back, size, empty, "
                          "appends, find, substr from 0 and copies into a vector can)")
        if read.kind:
            reads.append(read)
    if any(name in _declared(n) for n in walk(loop, named=True)):
        return refuse(f"the loop declares a name '{name}'")
    return FrontConsumed(loop, name, string, consume, form, tuple(reads), after or nested,
                         count)


def _declared(n: Node) -> set[str]:
    """The identifiers in the declarators of a declaration (initial values left out, so
    ``T x = s.size();`` does not declare ``s``); all of a parameter's."""
    if n.type == "parameter_declaration":
        return {node_text(i) for i in walk(n, named=True) if i.type == "identifier"}
    if n.type not in ("declaration", "for_range_loop"):
        return set()
    out: set[str] = set()
    for d in n.children_by_field_name("declarator"):
        if d.type == "init_declarator":
            d = d.child_by_field_name("declarator") or d
        out |= {node_text(i) for i in walk(d, named=True) if i.type == "identifier"}
    return out


def _read(facts: FunctionFacts, n: Node, name: str, string: bool) -> Read | None:
    """How the offset rewrite reads the mention ``n`` of ``name`` inside the loop: a Read with
    an empty kind when it stays as written; None when it cannot (``string``: members only a
    string has may be followed)."""
    p = n.parent
    if p is None:
        return None
    if string and p.type == "argument_list":
        return _whole(facts, n, name)
    if p.type == "subscript_expression" and p.child_by_field_name("argument") == n:
        idx = p.child_by_field_name("indices") or p.child_by_field_name("index")
        parts = [c for c in idx.named_children if c.type != "comment"] if idx is not None \
            else []
        if len(parts) != 1 or _mentions(parts[0], name):
            return None
        return Read(p, "index", node_text(parts[0]))
    if p.type != "field_expression" or p.child_by_field_name("argument") != n or \
            operator(p) != ".":
        return None
    call = p.parent
    if call is None or call.type != "call_expression" or call.child_by_field_name("function") != p:
        return None
    method = node_text(p.child_by_field_name("field"))
    args = call.child_by_field_name("arguments")
    if args is None or _mentions(args, name):
        return None
    if method in BACK_METHODS:
        return Read(call, "")
    parts = [a for a in args.named_children if a.type != "comment"]
    if string and method == "find" and len(parts) == 1 and \
            parts[0].type != "initializer_list":
        return Read(call, "find", node_text(parts[0]))
    if string and method == "substr" and len(parts) <= 2 and \
            (not parts or flat(parts[0]) == "0"):
        return Read(call, "substr", node_text(parts[1]) if len(parts) == 2 else "")
    if parts:
        return None
    kind = {"front": "front", "size": "size", "length": "size", "empty": "empty"}.get(method)
    return Read(call, kind) if kind else None


def _whole(facts: FunctionFacts, n: Node, name: str) -> Read | None:
    """``v.push_back(s)`` or ``v.emplace_back(s)`` with ``v`` a ``std::vector<std::string>``:
    a copy of the string, which ``s.substr(off)`` makes of what is left."""
    call = n.parent.parent if n.parent is not None else None
    if call is None or call.type != "call_expression" or \
            callee(call) not in ("push_back", "emplace_back") or len(arguments(call)) != 1:
        return None
    rcv = receiver(call)
    if rcv is None or rcv.type != "identifier" or node_text(rcv) == name:
        return None
    vt = facts.var(node_text(rcv))
    if vt is None or vt.pointer or vt.array or \
            not _STRING_VECTOR.match(" ".join(vt.base.split())):
        return None
    return Read(n, "whole")


def _mentions(node: Node, name: str) -> bool:
    return any(i.type == "identifier" and node_text(i) == name for i in walk(node, named=True))


def offset_text(read: Read, name: str, off: str, finder: str = "") -> str:
    """The replacement of one read of ``name`` with ``off`` elements consumed (``finder``:
    the helper of ``find_helper_text``, for a ``find`` read)."""
    if read.kind == "find":
        return f"{finder}({read.index})"
    if read.kind == "substr":
        return f"{name}.substr({off}, {read.index})" if read.index else f"{name}.substr({off})"
    if read.kind == "whole":
        return f"{name}.substr({off})"
    if read.kind == "index":
        index = read.index.strip()
        if index == "0":
            return f"{name}[{off}]"
        plain = re.fullmatch(r"[\w.]+(?:\(\))?|\w+\[[^\]]*\]", index)
        return f"{name}[{off} + {index}]" if plain else f"{name}[{off} + ({index})]"
    if read.kind == "front":
        return f"{name}[{off}]"
    if read.kind == "size":
        return f"({name}.size() - {off})"
    return f"({off} == {name}.size())"


def find_helper_text(name: str, off: str, finder: str, arg: str, at: str) -> str:
    """A lambda ``finder(x)``: ``name.find(x)`` on what is left after ``off`` characters, as
    a position in it (``npos`` when absent)."""
    return (f"const auto {finder} = [&](const auto& {arg}) -> std::size_t {{ "
            f"const std::size_t {at} = {name}.find({arg}, {off}); "
            f"return {at} == std::string::npos ? {at} : {at} - {off}; }};")


def consume_text(fc: FrontConsumed, off: str, count: str, finder: str = "") -> str:
    """The statement replacing the consume (``count``: a fresh name, for ``substr-n``); the
    reads of the string in its count are followed through the offset here."""
    k = ""
    if fc.count is not None:
        start = fc.count.start_byte
        inner = sorted((r for r in fc.reads if is_within(r.node, fc.count)),
                       key=lambda r: r.node.start_byte, reverse=True)
        k = node_text(fc.count)
        raw = k.encode("utf-8")
        for r in inner:
            raw = raw[:r.node.start_byte - start] + \
                offset_text(r, fc.name, off, finder).encode("utf-8") + \
                raw[r.node.end_byte - start:]
        k = raw.decode("utf-8")
    if fc.form == "erase-n":
        # erase(0, k) removes min(k, size) characters and never throws.
        return f"{off} += std::min<std::size_t>({k}, {fc.name}.size() - {off});"
    if fc.form == "substr-n":
        # Where substr(k) would throw, the original statement runs on the original string.
        return (f"{{ const std::size_t {count} = {k}; "
                f"if ({count} > {fc.name}.size() - {off}) {{ {fc.name}.erase(0, {off}); "
                f"{fc.name} = {fc.name}.substr({count}); }} {off} += {count}; }}")
    return f"++{off};"


def restore_text(fc: FrontConsumed, off: str) -> str:
    """The statement that erases the consumed prefix once after the loop."""
    if fc.string:
        return f"{fc.name}.erase(0, {off});"
    return (f"{fc.name}.erase({fc.name}.begin(), {fc.name}.begin() + "
            f"static_cast<std::ptrdiff_t>({off}));")
