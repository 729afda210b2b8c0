"""The invariant-inner-loop rule: a reduction loop inside an outer loop that computes the same
value on every outer iteration (a sum or mean over a container the outer loop never writes).

The hoisted unit is a *block*: consecutive statements of the outer body that start with the
declaration of the accumulator(s), contain one or more loops folding into them, and may go on
with statements that only combine them with invariant values (``mean /= n;``,
``double sd = std::sqrt(var);``). The block moves before the outer loop when it reads nothing
the outer loop changes, writes only the variables it declares, has no effects, and its
variables are written nowhere else in the outer loop and used nowhere outside it.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass

from perfpilot.code.declarations import VarType
from perfpilot.code.effects import NEVER_WRITES_MEMORY, READ_ONLY_METHODS, SIZE_METHODS
from perfpilot.code.facts import FunctionFacts, Loop
from perfpilot.code.loop_header import read_header
from perfpilot.code.syntax import (
    Node,
    callee,
    declarator_name,
    line,
    node_text,
    operator,
    receiver,
    walk,
)
from perfpilot.rules.base import Example, RuleSpec
from perfpilot.rules.detect.common import code, loop_phrase
from perfpilot.rules.edits import Edit
from perfpilot.rules.emit import indent_unit
from perfpilot.rules.finding import Finding, Proof, make_finding
from perfpilot.rules.rewrite_input import Left, Planned, RuleInput, newline_of

RULE_ID = "invariant-inner-loop"
_REDUCE_OPS = frozenset({"+=", "-=", "*=", "|=", "&=", "^="})
_LOOPS = ("for_statement", "for_range_loop")
_FORBIDDEN = frozenset({"return_statement", "break_statement", "goto_statement",
                        "throw_statement", "lambda_expression", "new_expression",
                        "delete_expression", "this", "co_await_expression",
                        "co_yield_statement", "co_return_statement", "gnu_asm_expression"})
_OUTPUT = frozenset({"printf", "fprintf", "puts", "putchar"})
_STORAGE = frozenset({"static", "extern", "thread_local", "register", "volatile"})
_FLOAT_CASTS = ("double", "float")
_RESTRICT = re.compile(r"\b(?:restrict|__restrict|__restrict__)\b")


@dataclass(frozen=True)
class _Site:
    """Statements ``stmts`` of ``outer``'s body computing ``names`` the same way each time."""

    outer: Loop
    stmts: tuple[Node, ...]
    names: tuple[str, ...]

    @property
    def loops(self) -> list[Node]:
        return [s for s in self.stmts if s.type in _LOOPS]


def _sites(facts: FunctionFacts) -> Iterator[_Site]:
    for outer in facts.loops:
        body = outer.body
        if body is None or body.type != "compound_statement":
            continue
        stmts = [s for s in body.named_children if s.type != "comment"]
        for k, s in enumerate(stmts):
            if s.type != "declaration":
                continue
            site = _block(facts, outer, stmts, k)
            if site is not None:
                yield site
                break


def _block(facts: FunctionFacts, outer: Loop, stmts: list[Node], start: int) -> _Site | None:
    """The longest run of statements from ``stmts[start]`` that is a provably invariant block."""
    changed = facts.modified_in(outer.node) | facts.declared_in(outer.node)
    if outer.var is not None:
        changed |= {outer.var}
    own: list[str] = []
    taken: list[Node] = []
    for s in stmts[start:]:
        added = _accepts(facts, s, own, changed)
        if added is None:
            break
        taken.append(s)
        own.extend(added)
    # the longest prefix ending in a loop or after it that passes the whole-block checks
    for end in range(len(taken), 0, -1):
        block = taken[:end]
        if not any(s.type in _LOOPS for s in block):
            break
        names = [n for s in block if s.type == "declaration" for n in _decl_names(facts, s)]
        if _block_ok(facts, outer, stmts, block, names):
            return _Site(outer, tuple(block), tuple(names))
    return None


def _decl_names(facts: FunctionFacts, decl: Node) -> list[str]:
    return [v.name for v in facts.local_vars(decl)]


def _accepts(facts: FunctionFacts, s: Node, own: Sequence[str],
             changed: frozenset[str]) -> list[str] | None:
    """The names ``s`` adds to the block when it may join it (after the ``own`` names were
    declared by earlier statements of the block), or None."""
    if not _effect_free(s):
        return None
    local = facts.declared_in(s)
    reads = _reads(s) - local - set(own)
    if reads & changed:
        return None
    writes = facts.modified_in(s)
    if s.type == "declaration":
        vars_ = facts.local_vars(s)
        if not vars_ or any(not v.is_arithmetic or v.reference for v in vars_):
            return None
        if any(node_text(c) in _STORAGE for c in s.children
               if c.type in ("storage_class_specifier", "type_qualifier")):
            return None
        inits = s.children_by_field_name("declarator")
        if len(inits) != len(vars_) or any(d.type != "init_declarator" for d in inits):
            return None
        if writes or not all(_safe_value(facts, d.child_by_field_name("value"))
                             for d in inits):
            return None
        return [v.name for v in vars_]
    if s.type in _LOOPS:
        if not own or not writes <= set(own) | local or not writes & set(own):
            return None
        if not _folds(s, set(own)) or not _divisions_safe(facts, s):
            return None
        return []
    if s.type == "expression_statement" and len(s.named_children) == 1:
        e = s.named_children[0]
        if e.type in ("assignment_expression", "compound_assignment_expression"):
            target, value = e.child_by_field_name("left"), e.child_by_field_name("right")
        elif e.type == "update_expression":
            target, value = e.child_by_field_name("argument"), None
        else:
            return None
        if target is None or target.type != "identifier" or node_text(target) not in own or \
                writes != {node_text(target)}:
            return None
        if value is not None and not _safe_value(facts, value):
            return None
        if operator(e) in ("/=", "%=") and not _divides_safely(facts, e):
            return None
        return []
    return None


def _effect_free(s: Node) -> bool:
    """No jumps out, no allocation, no output and only calls that never write memory."""
    for n in walk(s):
        if n.type in _FORBIDDEN:
            return False
        if n.type == "call_expression":
            name = callee(n)
            ok = READ_ONLY_METHODS if receiver(n) is not None else NEVER_WRITES_MEMORY
            if name not in ok or name in _OUTPUT:
                return False
    return True


def _reads(s: Node) -> set[str]:
    """Identifiers read in ``s``, without the names of called functions."""
    out: set[str] = set()
    for n in walk(s):
        if n.type != "identifier":
            continue
        p = n.parent
        if p is not None and p.type == "qualified_identifier":
            p = p.parent if p.child_by_field_name("name") == n else None
            if p is None:
                continue
            fn = p.child_by_field_name("function") if p.type == "call_expression" else None
            if fn is not None and fn.end_byte == n.end_byte:
                continue
        elif p is not None and p.type == "call_expression" and \
                p.child_by_field_name("function") == n:
            continue
        out.add(node_text(n))
    return out


def _folds(loop: Node, own: set[str]) -> bool:
    """Every write to a block variable in ``loop`` folds its old value into the new one
    (``s += x``, ``++c``, ``m = std::max(m, x)``, ``if (x < m) m = x;``)."""
    for n in walk(loop):
        if n.type == "update_expression":
            continue
        if n.type not in ("assignment_expression", "compound_assignment_expression"):
            continue
        target = node_text(n.child_by_field_name("left"))
        if target not in own:
            continue
        op = operator(n)
        if op == "=":
            right = n.child_by_field_name("right")
            if right is not None and target in _reads(right):
                continue
            if _guarded_by(n, target, loop):
                continue
            return False
        if op not in _REDUCE_OPS:
            return False
    return True


def _guarded_by(n: Node, var: str, stop: Node) -> bool:
    """``n`` runs under an ``if`` whose condition reads ``var`` (a min/max update)."""
    p = n.parent
    while p is not None and p != stop:
        if p.type == "if_statement":
            cond = p.child_by_field_name("condition")
            if cond is not None and var in _reads(cond):
                return True
        p = p.parent
    return False


def _safe_value(facts: FunctionFacts, value: Node | None) -> bool:
    """An expression that computes from values only: no element, member or pointer access, no
    method but ``size``/``length``/``empty`` on a variable, no trapping division."""
    if value is None:
        return False
    for n in walk(value):
        if n.type in ("subscript_expression", "field_expression", "pointer_expression",
                      "assignment_expression", "compound_assignment_expression",
                      "update_expression", "comma_expression", "initializer_list"):
            if n.type == "field_expression" and n.parent is not None and \
                    n.parent.type == "call_expression" and \
                    n.parent.child_by_field_name("function") == n:
                continue
            return False
        if n.type == "call_expression":
            r = receiver(n)
            # Outside the bounded inner loops a hoisted statement runs even when the outer loop
            # would not run at all: it may only compute with values, never touch memory that
            # might not exist.
            if r is not None and (callee(n) not in SIZE_METHODS or r.type != "identifier"):
                return False
    return _divisions_safe(facts, value)


def _divisions_safe(facts: FunctionFacts, node: Node) -> bool:
    """Integer ``/`` and ``%`` trap on zero: hoisted, they might run where the original did not
    (an outer loop of no iterations), so only floating division or a nonzero literal divisor."""
    for n in walk(node):
        if n.type == "binary_expression" and operator(n) in ("/", "%"):
            right = n.child_by_field_name("right")
            if _nonzero_literal(right):
                continue
            if operator(n) == "%" or not (_floating(facts, n.child_by_field_name("left"))
                                          or _floating(facts, right)):
                return False
        if n.type == "compound_assignment_expression" and operator(n) in ("/=", "%=") and \
                not _divides_safely(facts, n):
            return False
    return True


def _divides_safely(facts: FunctionFacts, e: Node) -> bool:
    right = e.child_by_field_name("right")
    if _nonzero_literal(right):
        return True
    return operator(e) == "/=" and _floating(facts, e.child_by_field_name("left"))


def _nonzero_literal(n: Node | None) -> bool:
    if n is None or n.type != "number_literal":
        return False
    try:
        return float(node_text(n).rstrip("uUlLfF")) != 0.0
    except ValueError:
        return node_text(n).lower().startswith("0x") and int(node_text(n).rstrip("uUlL"), 16) != 0


def _floating(facts: FunctionFacts, n: Node | None) -> bool:
    """Whether the expression is certainly of a floating type."""
    while n is not None and n.type == "parenthesized_expression" and n.named_children:
        n = n.named_children[0]
    if n is None:
        return False
    if n.type == "number_literal":
        t = node_text(n).lower()
        return not t.startswith("0x") and any(c in t for c in ".e")
    if n.type == "identifier":
        v = facts.var(node_text(n))
        return v is not None and v.is_floating and not v.reference
    if n.type == "cast_expression":
        t = node_text(n.child_by_field_name("type"))
        return t in _FLOAT_CASTS
    if n.type == "call_expression" and callee(n) == "static_cast":
        return any(t in node_text(n.child_by_field_name("function"))
                   for t in ("<double>", "<float>"))
    if n.type == "binary_expression" and operator(n) in ("+", "-", "*", "/"):
        return _floating(facts, n.child_by_field_name("left")) or \
            _floating(facts, n.child_by_field_name("right"))
    return False


def _visible_before(facts: FunctionFacts, node: Node) -> set[str]:
    """Names declared in scopes enclosing ``node`` before it, parameters and globals."""
    names = {p.name for p in facts.site.params} | set(facts.global_vars)
    child, p = node, node.parent
    while p is not None and child != facts.fn:
        if p.type == "compound_statement":
            for c in p.named_children:
                if c.start_byte >= child.start_byte:
                    break
                if c.type == "declaration":
                    names.update(_decl_names(facts, c))
        elif p.type == "for_statement":
            init = read_header(p).initializer
            if init is not None and init.type == "declaration" and init != child:
                names.update(_decl_names(facts, init))
        elif p.type == "for_range_loop":
            n = declarator_name(p.child_by_field_name("declarator"))
            if n:
                names.add(n)
        child, p = p, p.parent
    return names


def _block_ok(facts: FunctionFacts, outer: Loop, stmts: list[Node], block: list[Node],
              names: list[str]) -> bool:
    """Whole-block conditions: no clash of names, no other write to the block's variables, and
    nothing the outer loop writes through a pointer, reference or global reaches its reads."""
    first, last = block[0], block[-1]
    declared = set(names)
    for s in block:
        declared |= facts.declared_in(s)
    if declared & _visible_before(facts, first):
        return False
    own = set(names)
    # the names are used nowhere outside the outer loop, nor in it before the block
    for n in facts.nodes("identifier"):
        if node_text(n) in own and not first.start_byte <= n.start_byte < last.end_byte and \
                (n.start_byte < first.start_byte or n.start_byte >= outer.node.end_byte):
            return False
    # ... and no later statement of the outer loop writes them
    after = [s for s in stmts if s.start_byte >= last.end_byte]
    if any(facts.modified_in(s) & own for s in after):
        return False
    reads = set()
    for s in block:
        reads |= _reads(s)
    reads -= declared

    def indirect(name: str) -> bool:
        v = facts.var(name)
        return v is None or bool(v.pointer or v.reference or v.array) or v.scope == "global"
    # a restrict pointer parameter's objects are reached through no other name
    outer_writes = {w for w in facts.modified_in(outer.node) - facts.declared_in(outer.node)
                    if not _restrict_param(facts, w)}
    if any(indirect(w) for w in outer_writes) and any(indirect(r) for r in reads):
        return False
    return not (any((v := facts.var(r)) is not None and v.scope == "global" for r in reads)
                and facts.calls_unknown(outer))


def _restrict_param(facts: FunctionFacts, name: str) -> bool:
    v = facts.var(name)
    return v is not None and v.scope == "param" and v.pointer == 1 and \
        _RESTRICT.search(v.type_text.split("*", 1)[-1]) is not None


def _span_text(site: _Site) -> str:
    first, last = site.stmts[0], site.stmts[-1]
    return f"lines {line(first)}-{last.end_point[0] + 1}" if line(first) != \
        last.end_point[0] + 1 else f"line {line(first)}"


def _what(site: _Site) -> str:
    names = ", ".join(f"`{n}`" for n in site.names)
    loops = site.loops
    tail = [s for s in site.stmts if s.start_byte >= loops[-1].end_byte]
    lead = (f"The loop on line {line(loops[0])}" if len(loops) == 1 else
            f"The loops on lines {', '.join(str(line(lp)) for lp in loops)}")
    then = f" and `{code(tail[0])}` after it" if len(tail) == 1 else \
        (f" and the {len(tail)} statements after it" if tail else "")
    return f"{lead}{then} ({_span_text(site)}) compute {names}"


@dataclass(frozen=True)
class InnerBlock(Proof):
    """The invariant block of statements and its outer loop (``site``), and the blocks found
    before it in the function (moving one whose outer loop overlaps this one's leaves this one
    to a later pass)."""

    site: _Site
    earlier: tuple[_Site, ...]


def invariant_inner_loop(facts: FunctionFacts) -> Iterator[Finding]:
    """A reduction loop nested in another loop whose result never depends on it."""
    found: list[_Site] = []
    for s in _sites(facts):
        earlier = tuple(found)
        found.append(s)
        yield make_finding(
            RULE_ID,
            f"{_what(s)} from values that {loop_phrase(s.outer)} never changes (they read "
            f"neither its counter nor anything it writes), yet rerun on every outer "
            f"iteration: compute them once before the outer loop, which turns O(outer x "
            f"inner) work into O(outer + inner), e.g. O(n^2) into O(n).",
            [line(s.loops[0]), s.outer.line, line(s.stmts[0])],
            loop_range=s.outer.byte_range,
            node_range=(s.stmts[0].start_byte, s.stmts[-1].end_byte),
            names=list(s.names), proof=InnerBlock(s, earlier),
        )


def _dedent(moved: str, old: str, new: str, nl: str) -> str:
    """Continuation lines of ``moved`` shifted from indentation ``old`` to ``new``."""
    lines = moved.split(nl)
    return nl.join([lines[0]] + [new + ln[len(old):] if ln.startswith(old) else ln
                                 for ln in lines[1:]])


_SIMPLE = re.compile(r"^[\w\s+\-*/%().]*$")
_CALL = re.compile(r"\b(?!size\b|length\b)\w+\s*\(")


# Standard containers whose ``empty()`` says whether a range-for over them runs at all.
_STD_RANGE = re.compile(r"^(?:const\s+)?(?:std::)?(?:vector|deque|list|forward_list|array|"
                        r"basic_string|string|wstring|set|multiset|map|multimap|unordered_set|"
                        r"unordered_multiset|unordered_map|unordered_multimap)\b")


def _range_guard(outer: Loop, types: Mapping[str, VarType | None]) -> str | None:
    """A range-for over a named standard container runs its body iff ``!c.empty()``; over a
    C array always (""); None for anything else (a call, a user type whose begin() could do
    something)."""
    right = outer.node.child_by_field_name("right")
    if right is None or right.type != "identifier":
        return None
    vt = types.get(node_text(right))
    if vt is None or vt.pointer:
        return None
    if vt.array:
        return ""
    return f"!{node_text(right)}.empty()" if _STD_RANGE.match(" ".join(vt.base.split())) else None


def entry_guard(outer: Loop, types: Mapping[str, VarType | None] | None = None) -> str | None:
    """The condition under which ``outer`` runs its body at least once, to guard the hoisted
    loops (which read memory the caller may not have when the outer loop runs zero times):
    ``do`` loops need none (""); a counted ``for`` gives its condition at the first value
    (``0 < n``); a range-for over a named standard container ``!c.empty()``; None when it
    cannot be written without evaluating something twice."""
    if outer.kind == "do":
        return ""
    if outer.kind == "range-for":
        return _range_guard(outer, types or {})
    if outer.kind != "for" or outer.init is None or outer.bound is None or \
            outer.compare not in ("<", "<=", ">", ">=", "!="):
        return None
    first, bound = node_text(outer.init), node_text(outer.bound)
    if not all(_SIMPLE.match(t) and not _CALL.search(t) for t in (first, bound)):
        return None
    def wrap(t: str) -> str:
        return t if re.fullmatch(r"[\w.]+(?:\(\))?", t) else f"({t})"

    if first.strip() == "0" and outer.compare == "<":
        # from zero up to a size: the container is not empty; up to a count: it is positive
        size = re.fullmatch(r"([A-Za-z_]\w*)\.(?:size|length)\(\)", bound.strip())
        return f"!{size.group(1)}.empty()" if size else f"{wrap(bound)} > 0"
    flipped = {"<": ">", "<=": ">=", ">": "<", ">=": "<=", "!=": "!="}[outer.compare]
    if re.fullmatch(r"-?\d+", first.strip()):
        # the constant on the right, as one writes a test
        return f"{wrap(bound)} {flipped} {first.strip()}"
    return f"{wrap(first)} {outer.compare} {wrap(bound)}"


def _guarded(data: bytes, base: int, end: int, stmts: list[Node], work: list[Node],
             guard: str, unit: str, nl: str) -> str:
    """The text ``data[base:end]`` with each run of consecutive statements of ``work`` (among
    ``stmts``, in order) under one ``if (guard)``: braced when the run holds several."""
    runs: list[list[Node]] = []
    for st in stmts:
        if st in work and runs and runs[-1] and runs[-1][-1] in work and \
                stmts.index(runs[-1][-1]) == stmts.index(st) - 1:
            runs[-1].append(st)
        elif st in work:
            runs.append([st])
    out = data[base:end]
    for run in reversed(runs):
        first, last = run[0], run[-1]
        line_start = data.rfind(b"\n", 0, first.start_byte) + 1
        lead = data[line_start:first.start_byte].decode("utf-8")
        indent = lead if lead.strip() == "" else ""
        body = data[first.start_byte:last.end_byte].decode("utf-8")
        deeper = body.replace(nl + indent, nl + indent + unit) if indent else body
        if len(run) == 1:
            text = f"if ({guard}){nl}{indent}{unit}{deeper}" if indent else \
                f"if ({guard}) {body}"
        else:
            text = f"if ({guard}) {{{nl}{indent}{unit}{deeper}{nl}{indent}}}" if indent else \
                f"if ({guard}) {{ {body} }}"
        a, b = first.start_byte - base, last.end_byte - base
        out = out[:a] + text.encode("utf-8") + out[b:]
    return out.decode("utf-8")


def _refusal(site: _Site, types: Mapping[str, VarType | None]) -> str | None:
    """Why the block of ``site`` cannot move before its outer loop, or None."""
    outer = site.outer.node
    parent = outer.parent
    if parent is None or parent.type != "compound_statement" or \
            (outer.prev_sibling is not None and outer.prev_sibling.type.startswith("preproc")):
        return "it is not a plain statement of a block"
    if entry_guard(site.outer, types) is None:
        return "it has no entry condition that can be checked once"
    return None


def _overlap(a: _Site, b: _Site) -> bool:
    """Whether the outer loops of two blocks overlap (one holds the other)."""
    x, y = a.outer.byte_range, b.outer.byte_range
    return x[0] < y[1] and y[0] < x[1]


def invariant_inner_loop_fix(inp: RuleInput, finding: Finding) -> Planned | Left:
    """Move the proved block above the outer loop."""
    proof = finding.proof
    assert isinstance(proof, InnerBlock)
    s = proof.site
    outer = s.outer.node
    types = inp.facts.loop_types
    moved: list[_Site] = []  # the earlier blocks their own fixes move (in this pass)
    for e in proof.earlier:
        if not any(_overlap(e, m) for m in moved) and _refusal(e, types) is None:
            moved.append(e)
    moved_first = next((m for m in moved if _overlap(s, m)), None)
    if moved_first is not None:
        return Left("the loop", outer, "the block of the loop at line "
                    f"{inp.line_of(moved_first.outer.node)} moves first; a later pass moves "
                    "this one", stays="keeps its inner loop for now")
    why = _refusal(s, types)
    guard = entry_guard(s.outer, types)
    if why is not None or guard is None:
        return Left("the loop", outer, why or "", stays="keeps its inner loop")
    data = inp.data
    nl = newline_of(inp.text)
    first, last = s.stmts[0], s.stmts[-1]
    start = data.rfind(b"\n", 0, first.start_byte) + 1
    end = last.end_byte
    after = data.find(b"\n", end)
    if after != -1 and data[end:after].strip() == b"":
        end = after + 1
    # Every statement but the declarations runs only when the outer loop would: a
    # finishing `s /= n` after an empty range is a division the original never made.
    work = [st for st in s.stmts if st.type != "declaration"]
    text = _guarded(data, first.start_byte, last.end_byte, list(s.stmts), work, guard,
                    indent_unit(inp.text), nl) if guard \
        else data[first.start_byte:last.end_byte].decode("utf-8")
    block_indent = data[start:first.start_byte].decode("utf-8")
    line_start = data.rfind(b"\n", 0, outer.start_byte) + 1
    indent = data[line_start:outer.start_byte].decode("utf-8")
    if indent.strip():
        indent = ""
    if block_indent.strip() == "" and indent:
        text = _dedent(text, block_indent, indent, nl)
    block = f"{text}{nl}{indent}" if not indent else f"{indent}{text}{nl}"
    at = line_start if indent else outer.start_byte
    removal_start = start if data[start:first.start_byte].strip() == b"" and \
        end != last.end_byte else first.start_byte
    names = ", ".join(f"'{n}'" for n in s.names)
    return Planned(
        (Edit(at, at, block, RULE_ID, -40), Edit(removal_start, end, "", RULE_ID)),
        f"The loop at line {inp.line_of(s.loops[0])} (with the statements up to line "
        f"{inp.line_of(last.end_byte)}) computes {names} from values the loop at line "
        f"{inp.line_of(outer)} never changes; it now runs once before that loop, so the "
        "work goes from O(outer x inner) to O(outer + inner) (O(n^2) to O(n) when both "
        "run over n)" + (f"; 'if ({guard})' keeps it from running when the outer loop "
                         "would not" if guard else "") + ".",
        (s.loops[0], outer), includes=())


RULE = RuleSpec(
    id=RULE_ID,
    detect=invariant_inner_loop,
    fix=invariant_inner_loop_fix,
    rewrites_as=frozenset({RULE_ID}),
    phase=0,
    order=5,
    examples=(
        Example("cpp", """
#include <vector>
std::vector<double> centered(const std::vector<double>& x) {
    std::vector<double> out(x.size());
    for (std::size_t i = 0; i < x.size(); ++i) {
        double sum = 0;
        for (std::size_t j = 0; j < x.size(); ++j) sum += x[j];
        out[i] = x[i] - sum / x.size();
    }
    return out;
}
""", "centered"),
        Example("cpp", """
#include <vector>
std::vector<double> spread(const std::vector<double>& v) {
    std::vector<double> out(v.size());
    for (std::size_t i = 0; i < v.size(); ++i) {
        double mean = 0;
        for (std::size_t j = 0; j < v.size(); ++j) mean += v[j];
        mean /= v.size();
        out[i] = (v[i] - mean) * (v[i] - mean);
    }
    return out;
}
""", "spread"),
    ),
)
