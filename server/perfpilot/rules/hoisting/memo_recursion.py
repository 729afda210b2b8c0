"""The memo-recursion rule: a value-returning function calling itself 2+ times on overlapping
arguments (smaller or larger by small steps).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from perfpilot.code.declarations import top_level_types
from perfpilot.code.effects import DOES_IO
from perfpilot.code.facts import FunctionFacts
from perfpilot.code.syntax import (
    Node,
    arguments,
    callee,
    identifiers,
    int_literal,
    line,
    node_text,
    operator,
    receiver,
    statements,
    unwrap,
    walk,
)
from perfpilot.rules.base import Example, RuleSpec
from perfpilot.rules.detect.common import code
from perfpilot.rules.edits import Edit
from perfpilot.rules.emit import indent_at, indent_unit, replace_statement
from perfpilot.rules.finding import Finding, Proof, make_finding
from perfpilot.rules.hoisting.self_recursion import (
    SelfRecursion,
    integral,
    self_recursion,
    signed_integral,
    value_type,
)
from perfpilot.rules.rewrite_input import Left, Planned, RuleInput, newline_of


@dataclass(frozen=True)
class Recursion(Proof):
    """The function's self-calls, and its proof of purity (``self_recursion``; None when that
    proof fails: the memo would not compute what the original does)."""

    calls: tuple[Node, ...]
    pure: SelfRecursion | None


def memo_recursion(facts: FunctionFacts) -> Iterator[Finding]:
    """A value-returning function calling itself 2+ times on overlapping arguments: smaller
    ones, or ones its proved-pure recursion steps by offsets (what the memo rewrite takes)."""
    site = facts.site
    if site.return_type.strip() in ("void", "") or facts.body is None or \
            site.text.count(site.name) < 3:
        return
    params = {p.name for p in site.params}
    calls = [c for c in facts.nodes("call_expression")
             if callee(c) == site.name and receiver(c) is None
             and len(arguments(c)) == len(site.params) and site.params]
    if len(calls) < 2:
        return
    pure = self_recursion(facts.fn, site.name, top_level_types(facts.unit), site.unit_text)
    shrinking = all(_shrinks(c, params) or _shrinks(c, params, "+") for c in calls) and \
        not _has_memo(facts) and not _has_effects(facts)
    if not shrinking and (pure is None or not _memo_shape(pure)):
        return
    shown = ", ".join(f"`{code(c, 30)}`" for c in calls[:3])
    lines = sorted({line(c) for c in calls})
    where = ", ".join(str(n) for n in lines)
    yield make_finding(
        "memo-recursion",
        f"`{site.name}` calls itself "
        f"{'twice' if len(calls) == 2 else f'{len(calls)} times'} ({shown}, "
        f"line{'s' if len(lines) > 1 else ''} {where}) on overlapping"
        f"{', smaller' if shrinking else ''} arguments, "
        f"so the same subproblems are solved an "
        f"exponential number of times: memoize results in a table indexed by "
        f"{', '.join(f'`{p.name}`' for p in site.params)}, or compute them bottom-up in a loop.",
        lines,
        node_range=(site.start_byte, site.end_byte),
        names=[site.name, *(p.name for p in site.params)],
        proof=Recursion(tuple(calls), pure),
    )


def _memo_shape(rec: SelfRecursion) -> bool:
    """Whether the proved-pure recursion has a shape the rewrite turns into a rolling window
    or a memo table: one or two signed integers (or one integer) shrinking, or calls that
    step their key arguments by offsets."""
    params = {p for p, _ in rec.params}
    small = rec.small and any(_shrinks(c, params) for c in rec.calls)
    one = len(rec.params) == 1 and integral(rec.params[0][1]) and \
        any(_shrinks(c, params) for c in rec.calls)
    return small or one or all(_steps(c, rec) for c in rec.calls)


def _shrinks(call: Node, params: set[str], op: str = "-") -> bool:
    """Every argument is a parameter or ``param - something``; at least one is decreased (with
    ``op`` "+": ``param + something``, increased)."""
    decreased = False
    for arg in arguments(call):
        a = unwrap(arg)
        if a is None:
            return False
        if a.type == "identifier" and node_text(a) in params:
            continue
        if a.type == "binary_expression" and operator(a) == op:
            left = a.child_by_field_name("left")
            if left is not None and left.type == "identifier" and node_text(left) in params:
                decreased = True
                continue
        if a.type in ("number_literal", "subscript_expression", "field_expression"):
            # constants and data values (weights, costs) do not change the subproblem shape
            if a.type == "number_literal":
                continue
            return False
        return False
    return decreased


def _has_effects(facts: FunctionFacts) -> bool:
    """Input/output, or a write to a global: the calls are not interchangeable subproblems."""
    if any(callee(c) in DOES_IO for c in facts.nodes("call_expression")):
        return True
    for kind in ("assignment_expression", "update_expression"):
        for n in facts.nodes(kind):
            target = n.child_by_field_name("left") or n.child_by_field_name("argument")
            v = facts.var(node_text(target)) if target is not None and \
                target.type == "identifier" else None
            if v is not None and v.scope == "global":
                return True
    return False


def _has_memo(facts: FunctionFacts) -> bool:
    for p in facts.site.params:
        if (p.reference or p.pointer or p.array) and not p.const and p.reference != "&&":
            return True
    for name in identifiers(facts.body):
        v = facts.var(name)
        if v is None:
            continue
        if v.scope == "global" and (v.array or v.pointer or "map" in v.base or "vector" in v.base):
            return True
        if "static" in v.type_text:
            return True
    return any(callee(c) in ("count", "find", "contains") and receiver(c) is not None
               for c in facts.nodes("call_expression"))


# rewrite

# The widest rolling window (calls at n - 1 .. n - K) the bottom-up form writes out.
_MAX_WINDOW = 8


def memo_fix(inp: RuleInput, finding: Finding) -> Planned | Left:
    """A pure recursion over one or two signed integers, calling itself 2+ times on smaller
    arguments, becomes a bottom-up loop over a rolling window (one argument, calls at
    ``n - 1 .. n - K``, base cases as leading ``if (...) return ...;``), else, in C++, a
    recursion through a local memo table. Other pure recursions (up to three integer keys,
    read-only data passed on unchanged) whose calls step their keys by offsets become, in
    C++, a recursion through a memo that each top-level call creates, keyed on the key
    arguments. All compute exactly the values the original does."""
    proof = finding.proof
    assert isinstance(proof, Recursion)
    site = inp.site
    what = f"'{site.name}'"
    body = inp.function.child_by_field_name("body")
    if body is None or site.is_method or site.is_template:
        return Left(what, inp.function, "a member function or template has no local memo "
                    "written for it", stays="is left")
    rec = proof.pure
    if rec is None:
        return Left(what, inp.function, "it is not proved pure (one to three integer "
                    "parameters by value, other parameters read-only data passed on unchanged, "
                    "an arithmetic result, no globals, pointers, I/O or calls other than itself "
                    "and pure math)", stays="is left")
    # one or two signed integers shrinking: the rolling window or a memo table
    small = rec.small and any(_shrinks(c, {p for p, _ in rec.params}) for c in rec.calls)
    one = len(rec.params) == 1 and integral(rec.params[0][1]) and \
        any(_shrinks(c, {rec.params[0][0]}) for c in rec.calls)
    includes: tuple[str, ...] = ()
    window = _window(inp, rec, body) if small or one else None
    if window is not None:
        new_body, how = window, "a bottom-up loop over a rolling window of the last values"
    elif not small and not all(_steps(c, rec) for c in rec.calls):
        return Left(what, inp.function, "its calls do not step their integer arguments by "
                    "offsets (as `i - 1` or `w - wt[i]`), so they may not overlap",
                    stays="is left")
    elif inp.language == "cpp":
        new_body = _keyed(inp, rec, body)
        keys = ", ".join(p for p, _ in rec.key_params)
        data = ", ".join(sorted(rec.invariant))
        how = (f"a memo table keyed on ({keys}) that each top-level call creates for itself"
               + (f" (the read-only {data} are the same in every recursive call)" if data
                  else ""))
        includes = ("<map>", "<tuple>") if len(rec.keys) > 1 else ("<map>",)
    else:
        return Left(what, inp.function, "its recursion is not a fixed window over one "
                    "argument, and C has no local helper for a memo table", stays="is left")
    return Planned(
        (Edit(body.start_byte, body.end_byte, new_body, "memo-recursion"),),
        f"'{site.name}' recomputed the same subproblems an exponential number of times; it is "
        f"now {how}, so each value is computed once. The function is pure (it reads only its "
        "arguments and constants), so every result, base cases included, is unchanged.",
        tuple(sorted(rec.calls, key=lambda c: c.start_byte)), includes)


def _guard(stmt: Node, name: str) -> tuple[Node, Node] | None:
    """``(condition, value)`` of ``if (cond) return value;`` free of self-calls."""
    if stmt.type != "if_statement" or stmt.child_by_field_name("alternative") is not None:
        return None
    cond = stmt.child_by_field_name("condition")
    inner = unwrap(cond)
    then = statements(stmt.child_by_field_name("consequence"))
    if cond is None or inner is None or inner.type in ("declaration", "init_statement") or \
            len(then) != 1 or then[0].type != "return_statement":
        return None
    value = next((c for c in then[0].named_children if c.type != "comment"), None)
    if value is None or _calls(inner, name) or _calls(value, name):
        return None
    return inner, value


def _calls(node: Node, name: str) -> bool:
    return any(n.type == "call_expression" and callee(n) == name for n in walk(node))


def _window(inp: RuleInput, rec: SelfRecursion, body: Node) -> str | None:
    """The bottom-up rolling-window body, when the recursion has that shape: leading
    ``if (...) return ...;`` base cases, then ``return`` of an expression calling itself at
    ``n - 1 .. n - k``."""
    if len(rec.params) != 1:
        return None
    n, ptype = rec.params[0]
    stmts = statements(body)
    if not stmts or stmts[-1].type != "return_statement":
        return None
    guards = [_guard(st, inp.site.name) for st in stmts[:-1]]
    final = next((c for c in stmts[-1].named_children if c.type != "comment"), None)
    if final is None or not guards or any(g is None for g in guards):
        return None
    offsets: dict[tuple[int, int], int] = {}
    for call in rec.calls:
        if not (final.start_byte <= call.start_byte < final.end_byte):
            return None
        arg = unwrap(arguments(call)[0])
        if arg is None or arg.type != "binary_expression" or operator(arg) != "-":
            return None
        left, right = arg.child_by_field_name("left"), arg.child_by_field_name("right")
        c = int_literal(right) if right is not None and right.type == "number_literal" else None
        if left is None or node_text(left) != n or c is None:
            return None
        offsets[(call.start_byte, call.end_byte)] = c
    k = max(offsets.values())
    # every m in [need, n] is then reached by the original: no value it never computes is
    # computed here (one it never computes might not terminate)
    if set(offsets.values()) != set(range(1, k + 1)) or not 2 <= k <= _MAX_WINDOW:
        return None
    checks = [g for g in guards if g is not None]
    simple = _seeded_loop(inp, rec, stmts, checks, final, offsets, k)
    if simple is not None:
        return simple
    if not signed_integral(ptype):
        return None  # the scan below steps under the smallest base case
    return _scanned_loop(inp, rec, checks, final, offsets, k)


def _window_step(inp: RuleInput, final: Node, offsets: dict[tuple[int, int], int],
                 names: Sequence[str], n: str, at: str) -> str:
    """The recursive expression with each ``f(n - j)`` read as ``names[j - 1]`` and ``n`` as
    ``at``."""
    data = inp.data
    out: list[str] = []
    pos = final.start_byte
    for (s, e), c in sorted(offsets.items()):
        out.append(_renamed(data, pos, s, final, n, at))
        out.append(names[c - 1])
        pos = e
    out.append(_renamed(data, pos, final.end_byte, final, n, at))
    return " ".join("".join(out).split())


def _renamed(data: bytes, start: int, end: int, within: Node, old: str, new: str) -> str:
    """The text of ``[start, end)`` (inside ``within``) with the identifier ``old`` as ``new``."""
    hits = [x for x in walk(within) if x.type == "identifier" and node_text(x) == old and
            start <= x.start_byte and x.end_byte <= end]
    out = bytearray(data[start:end])
    for x in sorted(hits, key=lambda x: x.start_byte, reverse=True):
        out[x.start_byte - start:x.end_byte - start] = new.encode("utf-8")
    return out.decode("utf-8")


def _seeded_loop(inp: RuleInput, rec: SelfRecursion, stmts: list[Node],
                 checks: list[tuple[Node, Node]], final: Node,
                 offsets: dict[tuple[int, int], int], k: int) -> str | None:
    """The loop an engineer writes, when the base cases are comparisons of the argument with
    constants that catch every argument up to some ``L`` and none above: the base cases as
    written, the ``k`` values below ``L + 1`` as constants, and a loop from ``L + 1`` up."""
    n, ptype = rec.params[0]
    literals: list[int] = []
    for cond, value in checks:
        if _cases(cond, n, literals) is None or _value(value, n, 0) is None:
            return None
    if not literals:
        return None
    low, high = min(literals) - 1, max(literals) + 1
    unsigned = not signed_integral(ptype)
    start = 0 if unsigned else low
    if not unsigned and not _caught(checks, n, low):
        return None  # arguments below the base cases would recurse without end
    top = start - 1
    while top + 1 <= high and _caught(checks, n, top + 1):
        top += 1
    if top < start or any(_caught(checks, n, m) for m in range(top + 1, high + 1)):
        return None
    if top - k + 1 < start and unsigned:
        return None
    seeds: list[int] = []
    for m in range(top - k + 1, top + 1):
        value = next(v for c, v in checks if _cases(c, n, [], m))
        got = _value(value, n, m)
        if got is None:
            return None
        seeds.append(got)
    ret = value_type(rec.return_type)
    names = [inp.fresh_name(f"prev{j}") for j in range(1, k + 1)]
    at, cur = inp.fresh_name("i"), inp.fresh_name("cur")
    step = _window_step(inp, final, offsets, names, n, at)
    unit = indent_unit(inp.text)
    guards = [_dedent(inp, st) for st in stmts[:-1]]
    seed_lines = [f"{ret} {names[j]} = {seeds[k - 1 - j]};" for j in range(k - 1, -1, -1)]
    shift = [f"{names[j]} = {names[j - 1]};" for j in range(k - 1, 0, -1)]
    loop_body = [f"const {ret} {cur} = {step};", *shift, f"{names[0]} = {cur};"]
    loop = (f"for ({value_type(ptype)} {at} = {top + 1}; {at} <= {n}; ++{at}) {{\n"
            + "\n".join(unit + line for line in loop_body) + "\n}")
    return _block(inp, [*guards, *seed_lines, loop, f"return {names[0]};"])


def _scanned_loop(inp: RuleInput, rec: SelfRecursion, checks: list[tuple[Node, Node]],
                  final: Node, offsets: dict[tuple[int, int], int], k: int) -> str:
    """The general rolling window, for base cases of any shape: find the lowest argument the
    recursion reaches from ``n``, then compute every value from there up, each once."""
    n, ptype = rec.params[0]
    ret = value_type(rec.return_type)
    at, low, win, val = (inp.fresh_name(x) for x in ("m", "low", "window", "value"))
    unit = indent_unit(inp.text)
    conds = [_renamed(inp.data, c.start_byte, c.end_byte, c, n, at) for c, _ in checks]
    values = [_renamed(inp.data, v.start_byte, v.end_byte, v, n, at) for _, v in checks]
    base = " || ".join(f"({c})" if len(conds) > 1 else c for c in conds)
    step = _window_step(inp, final, offsets, [f"{win}[{j}]" for j in range(k)], n, at)
    pick = [f"if ({c})\n{unit}{val} = {v};" if j == 0 else f"else if ({c})\n{unit}{val} = {v};"
            for j, (c, v) in enumerate(zip(conds, values, strict=True))]
    pick.append(f"else\n{unit}{val} = {step};")
    shift = [f"{win}[{j}] = {win}[{j - 1}];" for j in range(k - 1, 0, -1)]
    first = (f"for ({ptype} {at} = {n}; {at} >= {low}; --{at})\n"
             f"{unit}if (!({base}) && {at} - {k} < {low})\n{unit}{unit}{low} = {at} - {k};")
    body = [f"{ret} {val};", *pick, *shift, f"{win}[0] = {val};",
            f"if ({at} == {n})\n{unit}break;"]
    second = (f"for ({ptype} {at} = {low};; ++{at}) {{\n"
              + "\n".join(unit + line for entry in body for line in entry.split("\n"))
              + "\n}")
    zero = "{0}" if inp.language == "c" else "{}"
    return _block(inp, [
        f"/* the lowest argument the recursion reaches from {n}: each value from there",
        f"   up to {n} is computed once, from the {k} before it */",
        f"{ptype} {low} = {n};", first, f"{ret} {win}[{k}] = {zero};", second,
        f"return {win}[0];"])


def _block(inp: RuleInput, lines: Sequence[str]) -> str:
    """A function body holding ``lines`` (each relative to the body's indentation)."""
    unit = indent_unit(inp.text)
    nl = newline_of(inp.text)
    body = nl.join(unit + line if line.strip() else "" for entry in lines
                   for line in entry.split("\n"))
    return "{" + nl + body + nl + "}"


def _dedent(inp: RuleInput, node: Node) -> str:
    """A statement's text with its later lines relative to its first."""
    indent = indent_at(inp.data, node.start_byte)
    parts = node_text(node).split("\n")
    return "\n".join([parts[0]] + [p[len(indent):] if p.startswith(indent) else p.lstrip()
                                   for p in parts[1:]])


_COMPARE = {"<": lambda a, b: a < b, "<=": lambda a, b: a <= b, ">": lambda a, b: a > b,
            ">=": lambda a, b: a >= b, "==": lambda a, b: a == b, "!=": lambda a, b: a != b}


def _cases(cond: Node, n: str, literals: list[int], at: int = 0) -> bool | None:
    """Whether ``cond`` holds at ``n == at``, for a condition made of ``||``, ``&&`` and
    comparisons of ``n`` with integer literals (collected into ``literals``); None for any
    other condition."""
    node = unwrap(cond)
    if node is None:
        return None
    if node.type == "parenthesized_expression" and node.named_child_count == 1:
        return _cases(node.named_children[0], n, literals, at)
    if node.type != "binary_expression":
        return None
    op = operator(node)
    left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
    if left is None or right is None:
        return None
    if op in ("||", "&&"):
        a, b = _cases(left, n, literals, at), _cases(right, n, literals, at)
        if a is None or b is None:
            return None
        return (a or b) if op == "||" else (a and b)
    if op not in _COMPARE:
        return None
    sides = [_value(x, n, at) if not (x.type == "identifier" and node_text(x) == n) else at
             for x in (left, right)]
    named = [x.type == "identifier" and node_text(x) == n for x in (left, right)]
    if sides[0] is None or sides[1] is None or sum(named) != 1:
        return None
    literal = sides[1] if named[0] else sides[0]
    literals.append(literal)
    return bool(_COMPARE[op](sides[0], sides[1]))


def _caught(checks: list[tuple[Node, Node]], n: str, at: int) -> bool:
    """Whether some base case returns at ``n == at``."""
    return any(_cases(c, n, [], at) for c, _ in checks)


def _value(node: Node | None, n: str, at: int) -> int | None:
    """The integer value of an expression of ``n`` and integer literals (``+``, ``-``, ``*``)
    at ``n == at``; None for any other expression."""
    node = unwrap(node)
    if node is None:
        return None
    if node.type == "parenthesized_expression" and node.named_child_count == 1:
        return _value(node.named_children[0], n, at)
    if node.type == "identifier":
        return at if node_text(node) == n else None
    if node.type == "number_literal":
        return int_literal(node)
    if node.type == "unary_expression" and operator(node) in ("-", "+"):
        inner = _value(node.child_by_field_name("argument"), n, at)
        return None if inner is None else (-inner if operator(node) == "-" else inner)
    if node.type == "binary_expression" and operator(node) in ("+", "-", "*"):
        a = _value(node.child_by_field_name("left"), n, at)
        b = _value(node.child_by_field_name("right"), n, at)
        if a is None or b is None:
            return None
        return a + b if operator(node) == "+" else a - b if operator(node) == "-" else a * b
    return None


def _offset(node: Node | None, rec: SelfRecursion) -> bool:
    """An amount a call steps a key argument by that names no key parameter or local except
    as an index into the read-only data: a literal, an invariant scalar or constant, an
    element or size of the data, or sums and products of those (``wt[i]``, ``2``, ``k``)."""
    n = unwrap(node)
    if n is None:
        return False
    if n.type in ("number_literal", "char_literal"):
        return True
    if n.type == "identifier":
        word = node_text(n)
        keys = {p for p, _ in rec.key_params}
        return word not in keys and word not in rec.locals
    if n.type == "subscript_expression":
        while n is not None and n.type == "subscript_expression":
            n = n.child_by_field_name("argument")
        return n is not None and n.type == "identifier" and node_text(n) in rec.invariant
    if n.type == "call_expression":
        obj = receiver(n)
        while obj is not None and obj.type == "subscript_expression":
            obj = obj.child_by_field_name("argument")
        return obj is not None and obj.type == "identifier" and node_text(obj) in rec.invariant
    if n.type == "cast_expression":
        return _offset(n.child_by_field_name("value"), rec)
    if n.type == "binary_expression" and operator(n) in ("+", "-", "*"):
        return _offset(n.child_by_field_name("left"), rec) and \
            _offset(n.child_by_field_name("right"), rec)
    return False


def _steps(call: Node, rec: SelfRecursion) -> bool:
    """Every key argument is a key parameter, a literal, or a key parameter plus or minus an
    offset, and one differs from the call's own: calls that step by small amounts reach the
    same arguments by many paths (halving, as divide and conquer does, never overlaps)."""
    args = arguments(call)
    keys = {p for p, _ in rec.key_params}
    moved = False
    for i in rec.keys:
        a = unwrap(args[i])
        own = rec.params[i][0]
        if a is None:
            return False
        if a.type == "identifier" and node_text(a) in keys:
            moved = moved or node_text(a) != own
            continue
        if a.type == "number_literal":
            moved = True
            continue
        if a.type != "binary_expression" or operator(a) not in ("+", "-"):
            return False
        left, right = a.child_by_field_name("left"), a.child_by_field_name("right")
        if left is not None and left.type == "identifier" and node_text(left) in keys and \
                _offset(right, rec):
            moved = True
            continue
        if operator(a) == "+" and right is not None and right.type == "identifier" and \
                node_text(right) in keys and _offset(left, rec):
            moved = True
            continue
        return False
    return moved


def _keyed(inp: RuleInput, rec: SelfRecursion, body: Node) -> str:
    """The memo body (C++): a local struct whose ``solve`` is the original body, with the
    self-calls calling ``solve`` on the key arguments (read-only data are the struct's
    references to the enclosing call's), each recursive result stored in a ``std::map``
    keyed on the key arguments (a tuple: no packing to overflow) before it is returned."""
    ret = value_type(rec.return_type)
    memo, solve, seen, found, key, result = (inp.fresh_name(x) for x in (
        "Memo", "solve", "seen", "found", "key", "result"))
    keys = rec.key_params
    types = [value_type(t) for _, t in keys]
    key_type = types[0] if len(keys) == 1 else f"std::tuple<{', '.join(types)}>"
    names = ", ".join(p for p, _ in keys)
    written = _written(body) & {p for p, _ in keys}
    key_text = keys[0][0] if len(keys) == 1 and not written else key
    unit = indent_unit(inp.text)
    calls = sorted(rec.calls, key=lambda c: c.start_byte)
    edits: list[Edit] = []
    for st in walk(body):
        if st.type != "return_statement" or not any(
                st.start_byte <= c.start_byte and c.end_byte <= st.end_byte for c in calls):
            continue
        value = next((c for c in st.named_children if c.type != "comment"), None)
        if value is None:
            continue
        expr = _render(inp.data, value.start_byte, value.end_byte, calls, rec, solve)
        made = replace_statement(inp, st, [f"const {ret} {result} = {expr};",
                                           f"{seen}.emplace({key_text}, {result});",
                                           f"return {result};"], "memo-recursion")
        if made is not None:
            edits.append(made)
    rendered = _apply_within(inp, body, edits, calls, rec, solve)
    inner = rendered.strip()[1:-1].strip("\n")
    # the original body's lines, one level deeper than the function's (they go two deeper:
    # into the struct and its member function)
    lines = [ln[len(unit):] if ln.startswith(unit) else ln.lstrip() for ln in inner.split("\n")]
    members = [f"{_member_type(t)} {p};" for i, (p, t) in enumerate(rec.params)
               if i not in rec.keys]
    params = ", ".join(f"{t} {p}" for p, t in keys)
    lookup = ([f"const {key_type} {key}({names});"] if key_text == key else []) + [
        f"const auto {found} = {seen}.find({key_text});",
        f"if ({found} != {seen}.end())", f"{unit}return {found}->second;"]
    solve_body = [*lookup, *lines]
    own_line = "\n{" if "\n{" in inp.text[:inp.text.find("{") + 1] else " {"
    struct = [f"struct {memo} {{", *(unit + m for m in members),
              f"{unit}std::map<{key_type}, {ret}> {seen};", "",
              f"{unit}{ret} {solve}({params}){own_line.replace(chr(10), chr(10) + unit)}",
              *(unit * 2 + ln if ln.strip() else "" for ln in solve_body),
              f"{unit}}}", "};"]
    args = ", ".join(p for i, (p, _) in enumerate(rec.params) if i not in rec.keys)
    made_memo = f"{memo}{{{args}, {{}}}}" if args else f"{memo}{{}}"
    return _block(inp, [f"// A memo for this call: each ({names}) is computed once.",
                        "\n".join(struct), f"return {made_memo}.{solve}({names});"])


def _member_type(type_text: str) -> str:
    """How the struct holds a read-only parameter: references and pointers as written, class
    types by const reference, scalars by value."""
    if "&" in type_text or "*" in type_text:
        return type_text
    words = type_text.replace("const", " ").split()
    if any("::" in w or "<" in w for w in words):
        return f"const {' '.join(words)} &"
    return " ".join(words)


def _written(body: Node) -> set[str]:
    """Names the body assigns or steps."""
    out: set[str] = set()
    for n in walk(body):
        target = None
        if n.type in ("assignment_expression", "compound_assignment_expression"):
            target = n.child_by_field_name("left")
        elif n.type == "update_expression":
            target = n.child_by_field_name("argument")
        if target is not None and target.type == "identifier":
            out.add(node_text(target))
    return out


def _apply_within(inp: RuleInput, body: Node, edits: list[Edit], calls: list[Node],
                  rec: SelfRecursion, solve: str) -> str:
    """The body's text with ``edits`` made and the self-calls outside them calling
    ``solve``."""
    data = inp.data
    out: list[str] = []
    pos = body.start_byte
    for e in sorted(edits, key=lambda e: e.start):
        out.append(_render(data, pos, e.start, calls, rec, solve))
        out.append(e.text)
        pos = e.end
    out.append(_render(data, pos, body.end_byte, calls, rec, solve))
    return "".join(out)


def _render(data: bytes, start: int, end: int, calls: list[Node], rec: SelfRecursion,
            solve: str) -> str:
    """The text of ``[start, end)`` with each self-call in it calling ``solve(keys...)``
    (invariant arguments dropped: the struct holds them)."""
    out: list[str] = []
    at = start
    for c in calls:
        if c.start_byte < at or c.end_byte > end:
            continue  # outside, or inside a call already rendered
        args = arguments(c)
        keys = ", ".join(_render(data, args[i].start_byte, args[i].end_byte, calls, rec, solve)
                         for i in rec.keys)
        out.append(data[at:c.start_byte].decode())
        out.append(f"{solve}({keys})")
        at = c.end_byte
    out.append(data[at:end].decode())
    return "".join(out)


RULE = RuleSpec(
    id="memo-recursion",
    detect=memo_recursion,
    fix=memo_fix,
    rewrites_as=frozenset({"memo-recursion"}),
    phase=0,
    order=5,
    examples=(
        Example("c", """
int fib(int n) {
    if (n < 2) return n;
    return fib(n - 1) + fib(n - 2);
}
""", "fib"),
        Example("cpp", """
long long choose(int n, int k) {
    if (k < 0 || k > n) return 0;
    if (k == 0 || k == n) return 1;
    return choose(n - 1, k - 1) + choose(n - 1, k);
}
""", "choose"),
    ),
)
