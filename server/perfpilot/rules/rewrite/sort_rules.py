"""A hand-written quadratic sort becomes ``std::sort``.

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

from perfpilot.code.parse import node_text, statements, unwrap, walk_all
from perfpilot.rules.edits import Edit
from perfpilot.rules.rewrite_input import Change, Node, RuleInput, RuleOutput

RULE = "manual-sort"
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
            notes.append(f"{RULE}: the {kind} sort at line {line} stays: '{a}' is not known "
                         "to hold integers (std::sort needs a strict weak order)")
            continue
        if not re.fullmatch(rf"\w+|{re.escape(a)}\.(size|length)\(\)", n) or n == a:
            notes.append(f"{RULE}: the {kind} sort at line {line} stays: its length '{n}' "
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
            RULE, (Edit(loop.start_byte, loop.end_byte, text, RULE),),
            f"The loops at line {line} sort '{a}' by {kind} sort, which takes time "
            f"proportional to the square of its length; std::sort leaves the same "
            f"{order} order in n log n time.", (line,), includes))
    return changes, notes

