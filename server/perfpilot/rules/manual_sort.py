"""The manual-sort rule: nested loops that compare and swap elements of one array: an O(n²) sort by
hand.

Rewrite: A hand-written quadratic sort becomes ``std::sort``.

Recognised exactly, in their textbook forms over one array or vector of integers:
- bubble sort: ``for (i = 0; i < N; ++i) for (j = 0; j < N - i - 1; ++j) if (a[j] > a[j + 1])
  swap(a[j], a[j + 1]);`` (also ``i < N - 1``, ``j + 1 < N - i``, ``j < N - 1``, and the swap
  written with a temporary);
- selection sort: ``for (i = 0; i < N; ++i) { m = i; for (j = i + 1; j < N; ++j) if (a[j] <
  a[m]) m = j; swap(a[i], a[m]); }`` (the swap possibly under ``if (m != i)``).
Both leave ``a[0..N)`` in ascending order (descending with the comparison turned round), as
``std::sort`` does; for integers equal elements are indistinguishable, so stability does not
matter. Nothing else may happen in the loops, and ``N`` must not change in them.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from perfpilot.code.facts import FunctionFacts
from perfpilot.code.parse import node_text, statements, unwrap, walk_all
from perfpilot.code.syntax import (
    Node,
    arguments,
    callee,
    line,
    operator,
    receiver,
    root_name,
)
from perfpilot.rules.base import Example, RuleSpec
from perfpilot.rules.detect.common import code, cpp
from perfpilot.rules.edits import Edit
from perfpilot.rules.finding import Finding, make_finding
from perfpilot.rules.rewrite_input import Change, RuleInput, RuleOutput

RULE_ID = "manual-sort"
_TIGHT = re.compile(r"\s*([=\[\](){};,<>+\-*!&|])\s*")


def _norm(node: Node | None) -> str:
    """Text with spaces removed around operators and brackets (kept between words)."""
    return _TIGHT.sub(r"\1", " ".join(node_text(node).split())) if node is not None else ""


def _counted(node: Node) -> tuple[str, str, str, Node] | None:
    """``(var, start, condition, body)`` of ``for (T var = start; condition; ++var)``."""
    if node.type != "for_statement":
        return None
    init = node.child_by_field_name("initializer")
    cond = node.child_by_field_name("condition")
    update = node.child_by_field_name("update")
    body = node.child_by_field_name("body")
    if init is None or cond is None or update is None or body is None:
        return None
    m = re.fullmatch(r"(?:[\w:<> ]+ )?(\w+)=(.+?);?", _norm(init))
    if m is None:
        return None
    var = m.group(1)
    if _norm(update) not in (f"++{var}", f"{var}++", f"{var}+=1", f"{var}={var}+1"):
        return None
    return var, m.group(2), _norm(cond), body


def _bounds(cond: str, var: str) -> list[str]:
    """The values of ``N`` for which ``cond`` is ``var < N`` or ``var < N - 1``."""
    out: list[str] = []
    if cond.startswith(f"{var}<"):
        rest = cond[len(var) + 1:]
        out.append(rest)
        if rest.endswith("-1"):
            out.append(rest[:-2])
    if cond.startswith(f"{var}+1<"):
        out.append(cond[len(var) + 3:])
    return out


def _swap(stmts: list[Node], a: str, x: str, y: str) -> bool:
    """Whether ``stmts`` swap ``a[x]`` and ``a[y]`` (std::swap or through a temporary)."""
    texts = [_norm(s) for s in stmts]
    pair = {f"{a}[{x}],{a}[{y}]", f"{a}[{y}],{a}[{x}]"}
    if len(texts) == 1:
        m = re.fullmatch(r"(?:std::)?swap\((.+)\);", texts[0])
        return m is not None and m.group(1) in pair
    if len(texts) != 3:
        return False
    for p, q in ((x, y), (y, x)):
        m = re.fullmatch(rf"(?:[\w:<> ]+ )?(\w+)={re.escape(f'{a}[{p}]')};", texts[0])
        if m and texts[1] == f"{a}[{p}]={a}[{q}];" and texts[2] == f"{a}[{q}]={m.group(1)};":
            return True
    return False


def _compare(if_stmt: Node, x: str, y: str) -> tuple[str, bool] | None:
    """``(a, True)`` when the ``if`` tests ``a[x] > a[y]`` (or ``a[y] < a[x]``), ``(a, False)``
    for ``a[x] < a[y]`` (or ``a[y] > a[x]``)."""
    test = _norm(unwrap(if_stmt.child_by_field_name("condition")))
    m = re.fullmatch(r"(\w+)\[([^\]]+)\]([<>])(\w+)\[([^\]]+)\]", test)
    if m is None or m.group(1) != m.group(4):
        return None
    if (m.group(2), m.group(5)) == (x, y):
        return m.group(1), m.group(3) == ">"
    if (m.group(2), m.group(5)) == (y, x):
        return m.group(1), m.group(3) == "<"
    return None


def _bubble(loop: Node) -> tuple[str, str, str] | None:
    """``(a, N, order)`` of a bubble sort loop nest."""
    outer = _counted(loop)
    if outer is None or outer[1] != "0":
        return None
    i, _start, cond, body = outer
    stmts = statements(body)
    inner = _counted(stmts[0]) if len(stmts) == 1 else None
    if inner is None or inner[1] != "0":
        return None
    j, _start2, cond2, body2 = inner
    ifs = statements(body2)
    if len(ifs) != 1 or ifs[0].type != "if_statement" or \
            ifs[0].child_by_field_name("alternative") is not None:
        return None
    found = _compare(ifs[0], j, f"{j}+1")
    if found is None:
        return None
    a, bigger_first = found
    order = "ascending" if bigger_first else "descending"
    if not _swap(statements(ifs[0].child_by_field_name("consequence")), a, j, f"{j}+1"):
        return None
    for n in _bounds(cond, i):
        if cond2 in (f"{j}<{n}-{i}-1", f"{j}<{n}-1-{i}", f"{j}+1<{n}-{i}", f"{j}<{n}-1",
                     f"{j}+1<{n}"):
            return a, n, order
    return None


def _selection(loop: Node) -> tuple[str, str, str] | None:
    """``(a, N, order)`` of a selection sort loop nest."""
    outer = _counted(loop)
    if outer is None or outer[1] != "0":
        return None
    i, _start, cond, body = outer
    stmts = statements(body)
    if len(stmts) not in (3, 5) or stmts[0].type != "declaration":
        return None
    m0 = re.fullmatch(rf"(?:[\w:<> ]+ )(\w+)={i};", _norm(stmts[0]))
    inner = _counted(stmts[1])
    if m0 is None or inner is None or inner[1] != f"{i}+1":
        return None
    mi, (j, _start2, cond2, body2) = m0.group(1), inner
    pick = statements(body2)
    if len(pick) != 1 or pick[0].type != "if_statement" or \
            pick[0].child_by_field_name("alternative") is not None or \
            _norm(pick[0].child_by_field_name("consequence")).strip("{}") != f"{mi}={j};":
        return None
    found = _compare(pick[0], mi, j)
    if found is None:
        return None
    a, bigger_first = found
    order = "ascending" if bigger_first else "descending"
    swap = stmts[2:]
    if len(swap) == 1 and swap[0].type == "if_statement" and \
            swap[0].child_by_field_name("alternative") is None and \
            _norm(unwrap(swap[0].child_by_field_name("condition"))) in (
                f"{mi}!={i}", f"{i}!={mi}"):
        swap = statements(swap[0].child_by_field_name("consequence"))
    if not _swap(swap, a, i, mi):
        return None
    for n in _bounds(cond, i):
        if cond2 == f"{j}<{n}":
            return a, n, order
    return None


def manual_sort_rule(inp: RuleInput) -> RuleOutput:
    """Replace a recognised bubble or selection sort of integers with ``std::sort``."""
    changes: list[Change] = []
    notes: list[str] = []
    done: list[Node] = []
    if inp.language != "cpp":
        return changes, notes  # C has qsort, whose comparator would be a second function
    for loop in walk_all(inp.function):
        if loop.type != "for_statement" or \
                any(d.start_byte <= loop.start_byte < d.end_byte for d in done):
            continue
        kind, found = "bubble", _bubble(loop)
        if found is None:
            kind, found = "selection", _selection(loop)
        if found is None:
            continue
        a, n, order = found
        line = inp.line_of(loop)
        vt = inp.types.get(a)
        elem = vt.element if vt is not None else None
        if vt is None or elem is None or not elem.is_integral:
            notes.append(f"{RULE_ID}: the {kind} sort at line {line} stays: '{a}' is not known "
                         "to hold integers (std::sort needs a strict weak order)")
            continue
        if not re.fullmatch(rf"\w+|{re.escape(a)}\.(size|length)\(\)", n) or n == a:
            notes.append(f"{RULE_ID}: the {kind} sort at line {line} stays: its length '{n}' "
                         "is not a plain variable or the container's size()")
            continue
        cmp = f", std::greater<{elem.base}>()" if order == "descending" else ""
        if n in (f"{a}.size()", f"{a}.length()") and vt.element is not None:
            text = f"std::sort({a}.begin(), {a}.end(){cmp});"
        elif (vt.pointer == 1 or vt.array) and "." not in n:
            # A count that is zero or negative sorts nothing, as the loops did.
            text = f"if ({n} > 1) std::sort({a}, {a} + {n}{cmp});"
        else:
            continue
        done.append(loop)
        includes = ("<algorithm>", "<functional>") if cmp else ("<algorithm>",)
        changes.append(Change(
            RULE_ID, (Edit(loop.start_byte, loop.end_byte, text, RULE_ID),),
            f"The loops at line {line} sort '{a}' by {kind} sort, which takes time "
            f"proportional to the square of its length; std::sort leaves the same "
            f"{order} order in n log n time.", (line,), includes))
    return changes, notes


# detection


def _swaps(facts: FunctionFacts, region: Node) -> list[tuple[Node, str]]:
    """Element swaps in ``region``: ``std::swap(a[x], a[y])`` or ``t = a[x]; a[x] = a[y];
    a[y] = t;``; returns the first statement and the array."""
    out: list[tuple[Node, str]] = []
    for c in facts.nodes("call_expression", region):
        args = arguments(c)
        if callee(c) in ("swap", "iter_swap") and receiver(c) is None and len(args) == 2 \
                and all(a.type == "subscript_expression" for a in args):
            name = root_name(args[0])
            if name and name == root_name(args[1]):
                out.append((c, name))
    for block in [region, *facts.nodes("compound_statement", region)]:
        stmts = statements(block) if block.type == "compound_statement" else []
        for a, b, c in zip(stmts, stmts[1:], stmts[2:], strict=False):
            texts = [_assign_parts(s) for s in (a, b, c)]
            if any(t is None for t in texts):
                continue
            (t1, v1), (t2, v2), (t3, v3) = texts  # type: ignore[misc]
            if t1 == v3 and v1 == t2 and v2 == t3 and "[" in v1 and "[" in v2:
                out.append((a, v1.split("[")[0].strip()))
    return out


def _assign_parts(stmt: Node) -> tuple[str, str] | None:
    """``(target, value)`` texts of ``x = y;`` or ``T x = y;``."""
    if stmt.type == "expression_statement" and stmt.named_children:
        e = stmt.named_children[0]
        if e.type == "assignment_expression" and operator(e) == "=":
            return code(e.child_by_field_name("left"), 200), code(e.child_by_field_name("right"),
                                                                  200)
    if stmt.type == "declaration":
        for c in stmt.named_children:
            if c.type == "init_declarator":
                return code(c.child_by_field_name("declarator"), 200), \
                    code(c.child_by_field_name("value"), 200)
    return None


def manual_sort(facts: FunctionFacts) -> Iterator[Finding]:
    """Nested loops that compare and swap elements of one array: an O(n²) sort by hand."""
    for outer in facts.loops:
        if outer.parent is not None or outer.innermost:
            continue
        swaps = _swaps(facts, outer.node)
        if not swaps:
            continue
        first, array = swaps[0]
        compares = [b for b in facts.nodes("binary_expression", outer.node)
                    if operator(b) in ("<", ">", "<=", ">=")
                    and sum(1 for s in (b.child_by_field_name("left"),
                                        b.child_by_field_name("right"))
                            if s is not None and s.type == "subscript_expression"
                            and root_name(s) == array) >= 1]
        if not compares:
            continue
        fix = (f"`std::sort({array}.begin(), {array}.end())`"
               if (v := facts.var(array)) is not None and not v.pointer and not v.array
               and cpp(facts) else
               f"`std::sort({array}, {array} + n)`" if cpp(facts) else
               f"`qsort({array}, n, sizeof *{array}, cmp)`")
        yield make_finding(
            "manual-sort",
            f"The nested loops starting on line {outer.line} sort `{array}` by hand: they compare "
            f"`{code(compares[0])}` (line {line(compares[0])}) and swap elements (line "
            f"{line(first)}), O(n²) comparisons and moves; the library sort {fix} is "
            f"O(n log n) and heavily tuned.",
            [outer.line, line(compares[0]), line(first)],
            loop_range=outer.byte_range, names=[array],
            data={"var": array, "replacement": fix.strip("`")},
        )


RULE = RuleSpec(
    id=RULE_ID,
    detect=manual_sort,
    rewrite=manual_sort_rule,
    rewrites_as=frozenset({"manual-sort"}),
    phase=1,
    order=5,
    examples=(
        Example("cpp", """
#include <vector>
void sort_values(std::vector<int> &v) {
    for (std::size_t i = 0; i < v.size(); ++i)
        for (std::size_t j = 0; j + 1 < v.size() - i; ++j)
            if (v[j] > v[j + 1]) {
                int t = v[j];
                v[j] = v[j + 1];
                v[j + 1] = t;
            }
}
""", "sort_values"),
    ),
)
