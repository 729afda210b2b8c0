"""The memo-recursion rule: a value-returning function calling itself 2+ times on overlapping
arguments (smaller or larger by small steps).
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from perfpilot.code.effects import DOES_IO
from perfpilot.code.facts import FunctionFacts
from perfpilot.code.parse import int_literal, node_text, statements, unwrap, walk_all
from perfpilot.code.self_recursion import SelfRecursion, self_recursion, value_type
from perfpilot.code.syntax import (
    Node,
    arguments,
    callee,
    identifiers,
    line,
    operator,
    receiver,
    text,
)
from perfpilot.rules.base import Example, RuleSpec
from perfpilot.rules.detect.common import code
from perfpilot.rules.edits import Edit
from perfpilot.rules.finding import Finding, make_finding
from perfpilot.rules.rewrite_input import Change, RuleInput, RuleOutput


def memo_recursion(facts: FunctionFacts) -> Iterator[Finding]:
    """A value-returning function calling itself 2+ times on overlapping smaller arguments."""
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
    if not all(_shrinks(c, params) or _shrinks(c, params, "+") for c in calls):
        return
    if _has_memo(facts) or _has_effects(facts):
        return
    shown = ", ".join(f"`{code(c, 30)}`" for c in calls[:3])
    lines = sorted({line(c) for c in calls})
    where = ", ".join(str(n) for n in lines)
    yield make_finding(
        "memo-recursion",
        f"`{site.name}` calls itself "
        f"{'twice' if len(calls) == 2 else f'{len(calls)} times'} ({shown}, "
        f"line{'s' if len(lines) > 1 else ''} {where}) on overlapping, smaller arguments, "
        f"so the same subproblems are solved an "
        f"exponential number of times: memoize results in a table indexed by "
        f"{', '.join(f'`{p.name}`' for p in site.params)}, or compute them bottom-up in a loop.",
        lines,
        node_range=(site.start_byte, site.end_byte),
        names=[site.name, *(p.name for p in site.params)],
        data={"function": site.name},
    )


def _shrinks(call: Node, params: set[str], op: str = "-") -> bool:
    """Every argument is a parameter or ``param - something``; at least one is decreased (with
    ``op`` "+": ``param + something``, increased)."""
    decreased = False
    for arg in arguments(call):
        a = unwrap(arg)
        if a is None:
            return False
        if a.type == "identifier" and text(a) in params:
            continue
        if a.type == "binary_expression" and operator(a) == op:
            left = a.child_by_field_name("left")
            if left is not None and left.type == "identifier" and text(left) in params:
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
            v = facts.var(text(target)) if target is not None and \
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

# Cells the memo table may hold (values and flags); beyond this the call runs uncached.
_TABLE_LIMIT = 1 << 22
# The widest rolling window (calls at n - 1 .. n - K) the bottom-up form writes out.
_MAX_WINDOW = 8


def memo_rewrite(inp: RuleInput) -> RuleOutput:
    """A pure recursion over one or two signed integers, calling itself 2+ times on smaller
    arguments, becomes a bottom-up loop over a rolling window (one argument, calls at
    ``n - 1 .. n - K``, base cases as leading ``if (...) return ...;``), else, in C++, a
    recursion through a local memo table. Other pure recursions (up to three integer keys,
    read-only data passed on unchanged) whose calls step their keys by offsets become, in
    C++, a recursion through a memo that each top-level call creates, keyed on the key
    arguments. All compute exactly the values the original does."""
    site = inp.site
    body = inp.function.child_by_field_name("body")
    if body is None or site.is_method or site.is_template or \
            len(re.findall(rf"\b{re.escape(site.name)}\s*\(", inp.text)) < 3:
        return [], []
    rec = self_recursion(inp.function, site.name, dict(inp.unit_globals), site.unit_text)
    if rec is None:
        return [], [f"memo-recursion: '{site.name}' is left: it is not proved pure (one to three "
                    "integer parameters by value, other parameters read-only data passed on "
                    "unchanged, an arithmetic result, no globals, pointers, I/O or calls other "
                    "than itself and pure math)"]
    # one or two signed integers shrinking: the rolling window or the dense table
    small = rec.small and any(_shrinks(c, {p for p, _ in rec.params}) for c in rec.calls)
    includes: tuple[str, ...] = ()
    window = _window(inp, rec, body) if small else None
    if window is not None:
        new_body, how = window, "a bottom-up loop over a rolling window of the last values"
    elif small and inp.language == "cpp":
        new_body, how = _table(inp, rec, body), "a local memo table (std::vector)"
        includes = ("<vector>",)
    elif not all(_steps(c, rec) for c in rec.calls):
        return [], [f"memo-recursion: '{site.name}' is left: its calls do not step their integer "
                    "arguments by offsets (as `i - 1` or `w - wt[i]`), so they may not overlap"]
    elif inp.language == "cpp":
        new_body = _keyed(inp, rec, body)
        keys = ", ".join(p for p, _ in rec.key_params)
        data = ", ".join(sorted(rec.invariant))
        how = (f"a memo keyed on ({keys}) that each top-level call creates for itself"
               + (f" (the read-only {data} are the same in every recursive call)" if data
                  else ""))
        includes = ("<map>", "<tuple>") if len(rec.keys) > 1 else ("<map>",)
    else:
        return [], [f"memo-recursion: '{site.name}' is left: its recursion is not a fixed "
                    "window over one argument, and C has no local helper for a memo table"]
    lines = tuple(sorted({inp.line_of(c) for c in rec.calls}))
    return [Change(
        "memo-recursion", (Edit(body.start_byte, body.end_byte, new_body, "memo-recursion"),),
        f"'{site.name}' recomputed the same subproblems an exponential number of times; it is "
        f"now {how}, so each value is computed once. The function is pure (it reads only its "
        "arguments and constants), so every result, base cases included, is unchanged.",
        lines, includes)], []


def _guard(stmt: Node, name: str) -> tuple[str, str] | None:
    """``(condition text, value text)`` of ``if (cond) return value;`` free of self-calls."""
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
    return node_text(inner), node_text(value)


def _calls(node: Node, name: str) -> bool:
    return any(n.type == "call_expression" and callee(n) == name for n in walk_all(node))


def _window(inp: RuleInput, rec: SelfRecursion, body: Node) -> str | None:
    """The bottom-up rolling-window body, when the recursion has that shape."""
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
        if left is None or text(left) != n or c is None:
            return None
        offsets[(call.start_byte, call.end_byte)] = c
    k = max(offsets.values())
    # every m in [need, n] is then reached by the original: no value it never computes is
    # computed here (one it never computes might not terminate)
    if set(offsets.values()) != set(range(1, k + 1)) or not 2 <= k <= _MAX_WINDOW:
        return None
    ret = rec.return_type
    at, top, need, win, val = (inp.fresh_name(x) for x in ("at", "top", "need", "win", "value"))
    data = inp.data
    expr = bytearray(data[final.start_byte:final.end_byte])
    for (s, e), c in sorted(offsets.items(), reverse=True):
        expr[s - final.start_byte:e - final.start_byte] = f"{win}[{c - 1}]".encode()
    checks = [(cond, value) for cond, value in (g for g in guards if g is not None)]
    scan = " ".join(f"if ({cond}) continue;" for cond, _ in checks)
    pick = "\n        else ".join(f"if ({cond}) {val} = {value};" for cond, value in checks)
    shift = " ".join(f"{win}[{j}] = {win}[{j - 1}];" for j in range(k - 1, 0, -1))
    return (
        "{\n"
        f"    /* the lowest argument the recursion reaches from {n}: every value in\n"
        f"       [{need}, {n}] is computed once, from the {k} before it */\n"
        f"    const {ptype} {top} = {n};\n"
        f"    {ptype} {need} = {n};\n"
        f"    for ({ptype} {at} = {n}; {at} >= {need}; --{at}) {{\n"
        f"        const {ptype} {n} = {at};\n"
        f"        {scan}\n"
        f"        if ({n} - {k} < {need}) {need} = {n} - {k};\n"
        "    }\n"
        f"    {ret} {win}[{k}] = {{0}};\n"
        f"    for ({ptype} {at} = {need};; ++{at}) {{\n"
        f"        const {ptype} {n} = {at};\n"
        f"        {ret} {val};\n"
        f"        {pick}\n"
        f"        else {val} = {expr.decode()};\n"
        f"        {shift}\n"
        f"        {win}[0] = {val};\n"
        f"        if ({at} == {top}) break;\n"
        "    }\n"
        f"    return {win}[0];\n"
        "}")


def _table(inp: RuleInput, rec: SelfRecursion, body: Node) -> str:
    """The memo-table body (C++): the original body in a helper lambda that caches results
    for arguments in ``[0, first call's]`` (others are computed as before, uncached)."""
    ret = rec.return_type
    rows, cols, fits, vals, have, go, me, hit, slot, res = (inp.fresh_name(x) for x in (
        "memo_rows", "memo_cols", "memo_fits", "memo_vals", "memo_have", "memo_go", "memo_self",
        "memo_hit", "memo_slot", "memo_result"))
    a = rec.params[0][0]
    b = rec.params[1][0] if len(rec.params) == 2 else None
    data = inp.data
    inner = bytearray(data[body.start_byte:body.end_byte])
    for call in sorted(rec.calls, key=lambda c: c.start_byte, reverse=True):
        fn = call.child_by_field_name("function")
        args = call.child_by_field_name("arguments")
        assert fn is not None and args is not None
        at = args.start_byte + 1 - body.start_byte
        inner[at:at] = f"{me}, ".encode()
        inner[fn.start_byte - body.start_byte:fn.end_byte - body.start_byte] = me.encode()
    limit = f"{_TABLE_LIMIT}LL"
    col_def = f"{b} >= 0 && {b} < {limit} ? (long long){b} + 1 : 0" if b else "1"
    in_range = f"{a} >= 0 && {a} < {rows}" + (f" && {b} >= 0 && {b} < {cols}" if b else "")
    index = f"(long long){a} * {cols}" + (f" + {b}" if b else "")
    params = ", ".join(f"{t} {p}" for p, t in rec.params)
    names = ", ".join(p for p, _ in rec.params)
    body_text = inner.decode().replace("\n", "\n        ")
    return (
        "{\n"
        f"    /* each argument {'pair' if b else 'value'} from 0 up to the first call's is "
        "computed once; others as before */\n"
        f"    const long long {rows} = {a} >= 0 && {a} < {limit} ? (long long){a} + 1 : 0;\n"
        f"    const long long {cols} = {col_def};\n"
        f"    const bool {fits} = {rows} * {cols} <= {limit};\n"
        f"    std::vector<{ret}> {vals}({fits} ? (std::size_t)({rows} * {cols}) : 0);\n"
        f"    std::vector<unsigned char> {have}({vals}.size());\n"
        f"    auto {go} = [&](auto &{me}, {params}) -> {ret} {{\n"
        f"        const bool {hit} = {fits} && {in_range};\n"
        f"        const std::size_t {slot} = {hit} ? (std::size_t)({index}) : 0;\n"
        f"        if ({hit} && {have}[{slot}]) return {vals}[{slot}];\n"
        f"        const {ret} {res} = [&]() -> {ret} {body_text}();\n"
        f"        if ({hit}) {{ {vals}[{slot}] = {res}; {have}[{slot}] = 1; }}\n"
        f"        return {res};\n"
        "    };\n"
        f"    return {go}({go}, {names});\n"
        "}")



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
        word = text(n)
        keys = {p for p, _ in rec.key_params}
        return word not in keys and word not in rec.locals
    if n.type == "subscript_expression":
        while n is not None and n.type == "subscript_expression":
            n = n.child_by_field_name("argument")
        return n is not None and n.type == "identifier" and text(n) in rec.invariant
    if n.type == "call_expression":
        obj = receiver(n)
        while obj is not None and obj.type == "subscript_expression":
            obj = obj.child_by_field_name("argument")
        return obj is not None and obj.type == "identifier" and text(obj) in rec.invariant
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
        if a.type == "identifier" and text(a) in keys:
            moved = moved or text(a) != own
            continue
        if a.type == "number_literal":
            moved = True
            continue
        if a.type != "binary_expression" or operator(a) not in ("+", "-"):
            return False
        left, right = a.child_by_field_name("left"), a.child_by_field_name("right")
        if left is not None and left.type == "identifier" and text(left) in keys and \
                _offset(right, rec):
            moved = True
            continue
        if operator(a) == "+" and right is not None and right.type == "identifier" and \
                text(right) in keys and _offset(left, rec):
            moved = True
            continue
        return False
    return moved


def _render(data: bytes, start: int, end: int, calls: list[Node], rec: SelfRecursion,
            me: str) -> str:
    """The text of ``[start, end)`` with each self-call in it calling ``me(me, keys...)``
    (invariant arguments dropped: the helper sees them from the enclosing call)."""
    out: list[str] = []
    at = start
    for c in calls:
        if c.start_byte < at or c.end_byte > end:
            continue  # outside, or inside a call already rendered
        args = arguments(c)
        keys = ", ".join(_render(data, args[i].start_byte, args[i].end_byte, calls, rec, me)
                         for i in rec.keys)
        out.append(data[at:c.start_byte].decode())
        out.append(f"{me}({me}, {keys})")
        at = c.end_byte
    out.append(data[at:end].decode())
    return "".join(out)


def _keyed(inp: RuleInput, rec: SelfRecursion, body: Node) -> str:
    """The memo body (C++): a memo local to the call, keyed on the key arguments (a tuple in
    a ``std::map``: no packing to overflow), and the original body in a helper lambda that
    reads the read-only parameters from the enclosing call."""
    ret = value_type(rec.return_type)
    memo, go, me, key, found, res = (inp.fresh_name(x) for x in (
        "memo", "memo_go", "memo_self", "memo_key", "memo_found", "memo_result"))
    keys = rec.key_params
    types = [value_type(t) for _, t in keys]
    key_type = types[0] if len(keys) == 1 else f"std::tuple<{', '.join(types)}>"
    names = ", ".join(p for p, _ in keys)
    calls = sorted(rec.calls, key=lambda c: c.start_byte)
    inner = _render(inp.data, body.start_byte, body.end_byte, calls, rec, me)
    body_text = inner.replace("\n", "\n        ")
    params = ", ".join(f"{t} {p}" for p, t in keys)
    return (
        "{\n"
        f"    /* one memo per call: each ({names}) is computed once */\n"
        f"    std::map<{key_type}, {ret}> {memo};\n"
        f"    auto {go} = [&](auto &{me}, {params}) -> {ret} {{\n"
        f"        const {key_type} {key}({names});\n"
        f"        const auto {found} = {memo}.find({key});\n"
        f"        if ({found} != {memo}.end()) return {found}->second;\n"
        f"        const {ret} {res} = [&]() -> {ret} {body_text}();\n"
        f"        {memo}.emplace({key}, {res});\n"
        f"        return {res};\n"
        "    };\n"
        f"    return {go}({go}, {names});\n"
        "}")


RULE = RuleSpec(
    id="memo-recursion",
    detect=memo_recursion,
    rewrite=memo_rewrite,
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
