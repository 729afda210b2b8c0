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
from dataclasses import dataclass

from perfpilot.code.facts import FunctionFacts, Loop
from perfpilot.code.loop_header import read_header
from perfpilot.code.syntax import (
    Node,
    arguments,
    callee,
    line,
    node_text,
    operator,
    receiver,
    root_name,
    statements,
    unwrap,
    walk,
)
from perfpilot.rules.base import Example, RuleSpec
from perfpilot.rules.detect.common import code, cpp, rng
from perfpilot.rules.edits import Edit
from perfpilot.rules.emit import guarded, indent_at, indent_unit
from perfpilot.rules.finding import Finding, Proof, make_finding
from perfpilot.rules.rewrite_input import Left, Planned, RuleInput

RULE_ID = "manual-sort"
_TIGHT = re.compile(r"\s*([=\[\](){};,<>+\-*/%!&|])\s*")


def _norm(node: Node | None) -> str:
    """Text with spaces removed around operators and brackets (kept between words)."""
    return _TIGHT.sub(r"\1", " ".join(node_text(node).split())) if node is not None else ""


def _counted(node: Node) -> tuple[str, str, str, Node] | None:
    """``(var, start, condition, body)`` of ``for (T var = start; condition; ++var)``."""
    if node.type != "for_statement":
        return None
    h = read_header(node)
    body = node.child_by_field_name("body")
    if h.condition is None or h.update is None or body is None or h.var is None or \
            h.init is None or not h.plain_init or h.step != 1:
        return None
    return h.var, _norm(h.init), _norm(h.condition), body


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


# Assignments that set a flag, in the normalized text: ``F=true;``, ``F=false;``.
_FLAG_SET = re.compile(r"(\w+)=(true|false|1|0);")


def _truth(word: str) -> bool:
    return word in ("true", "1")


def _pass_loop(node: Node, flag: str, swapped: bool, gap: str) -> tuple[str, str, int, int,
                                                                          bool] | None:
    """``(a, N, start, step, ascending)`` of one compare-exchange pass: ``for (T j = S; j +
    GAP < N; j += STEP) if (a[j] > a[j + GAP]) { swap(a[j], a[j + GAP]); F = swapped; }``
    (the bound also as ``j < N - GAP``; the test turned round; the flag set before or after
    the swap)."""
    if node.type != "for_statement":
        return None
    h = read_header(node)
    cond, body = h.condition, node.child_by_field_name("body")
    if cond is None or h.update is None or body is None or h.var is None or \
            h.init is None or not h.plain_init or not re.fullmatch(r"\d+", _norm(h.init)) or \
            h.step not in (1, 2):
        return None
    j, start, step = h.var, int(_norm(h.init)), h.step
    other = f"{j}+{gap}"
    c = _norm(cond)
    n = None
    for prefix in (f"{j}+{gap}<", f"{other}<"):
        if c.startswith(prefix):
            n = c[len(prefix):]
    if n is None and c.startswith(f"{j}<") and c.endswith(f"-{gap}"):
        n = c[len(j) + 1:-len(gap) - 1]
    ifs = statements(body)
    if n is None or len(ifs) != 1 or ifs[0].type != "if_statement" or \
            ifs[0].child_by_field_name("alternative") is not None:
        return None
    found = _compare(ifs[0], j, other)
    if found is None:
        return None
    a, bigger_first = found
    inner = statements(ifs[0].child_by_field_name("consequence"))
    sets = [k for k, st in enumerate(inner) if (fm := _FLAG_SET.fullmatch(_norm(st)))
            and fm.group(1) == flag and _truth(fm.group(2)) == swapped]
    if len(sets) != 1 or sets[0] not in (0, len(inner) - 1):
        return None
    rest = inner[1:] if sets[0] == 0 else inner[:-1]
    if not _swap(rest, a, j, other):
        return None
    return a, n, start, step, bigger_first


def _flagged(loop: Node) -> tuple[str, str, str, bool] | None:
    """``(a, N, kind, ascending)`` of an exchange sort run until a pass swaps nothing: bubble
    sort with a flag, odd-even sort, comb sort.

    The proof: the loop ends only after an iteration in which no pass swapped (and, for comb
    sort, with the gap at 1: it is clamped to at least 1 before the passes and the loop runs
    while it exceeds 1). That iteration changed nothing, so every pair its passes compared is
    in order; they compare every adjacent pair of ``a[0..N)`` (one pass over all of them, or
    two over the odd and the even ones), so the range is sorted. Only swaps touch ``a``, so
    it holds the elements it held."""
    if loop.type not in ("do_statement", "while_statement"):
        return None
    body = loop.child_by_field_name("body")
    cond = _norm(unwrap(loop.child_by_field_name("condition")))
    stmts = statements(body)
    if not stmts:
        return None
    reset = _FLAG_SET.fullmatch(_norm(stmts[0]))
    gap_stmts: list[Node] = []
    k = 0
    # comb sort: the gap shrinks, then is clamped to at least 1, before the flag is reset
    while reset is None and k + 1 < len(stmts):
        gap_stmts.append(stmts[k])
        k += 1
        reset = _FLAG_SET.fullmatch(_norm(stmts[k]))
    if reset is None:
        return None
    flag, clean = reset.group(1), _truth(reset.group(2))
    gap = "1"
    if gap_stmts:
        first = re.fullmatch(r"(\w+)=\(?(\w+)\*10\)?/13;|(\w+)=\(?(\w+)/1\.3\)?;|"
                             r"(\w+)=\(?(\w+)\*(\d+)\)?/(\d+);", _norm(gap_stmts[0]))
        names = [g for g in (first.groups() if first else ()) if g]
        if first is None or len(gap_stmts) != 2 or names[0] != names[1]:
            return None
        gap = names[0]
        if _norm(gap_stmts[1]) not in (f"if({gap}<1){gap}=1;", f"if({gap}<1){{{gap}=1;}}",
                                       f"if({gap}==0){gap}=1;", f"if({gap}<=0){gap}=1;"):
            return None
    passes = [_pass_loop(st, flag, not clean, gap) for st in stmts[k + 1:]]
    if not passes or any(p is None for p in passes):
        return None
    found = [p for p in passes if p is not None]
    arrays = {(a, n, asc) for a, n, _s, _t, asc in found}
    if len(arrays) != 1:
        return None
    a, n, ascending = arrays.pop()
    covered = {(start % step, step) for _a, _n, start, step, _asc in found}
    if not (any(step == 1 and start == 0 for _a, _n, start, step, _asc in found) or
            {(0, 2), (1, 2)} <= covered) or any(start > 1 for _a, _n, start, _t, _c in found):
        return None
    going = f"!{flag}" if clean else flag
    wanted = {going} if gap == "1" else {f"{gap}>1||{going}", f"{going}||{gap}>1",
                                         f"{gap}!=1||{going}", f"{going}||{gap}!=1"}
    if cond not in wanted:
        return None
    if loop.type == "while_statement" and not _enters(loop, flag, clean, gap):
        return None
    kind = "comb" if gap != "1" else "odd-even" if len(found) == 2 else "bubble"
    return a, n, kind, ascending


def _enters(loop: Node, flag: str, clean: bool, gap: str) -> bool:
    """Whether the statements right before a ``while`` loop set its flag (and gap) so that it
    runs at least once: ``bool F = <swapped>;`` (for comb sort the gap may stand in)."""
    prev = loop.prev_sibling
    seen: list[str] = []
    while prev is not None and prev.type in ("declaration", "expression_statement") and \
            len(seen) < 3:
        seen.append(_norm(prev))
        prev = prev.prev_sibling
    dirty = "false" if clean else "true"
    return any(re.fullmatch(rf"(?:bool )?{flag}={dirty};", t) for t in seen)


def _insertion(loop: Node) -> tuple[str, str, str, bool] | None:
    """``(a, N, kind, ascending)`` of an insertion sort: ``for (i = 1; i < N; ++i) { T key =
    a[i]; int j = i - 1; while (j >= 0 && a[j] > key) { a[j + 1] = a[j]; --j; } a[j + 1] =
    key; }``, or by swaps: ``for (i = 1; i < N; ++i) for (j = i; j > 0 && a[j - 1] > a[j];
    --j) swap(a[j - 1], a[j]);``. Each step inserts ``a[i]`` into the sorted ``a[0..i)``."""
    outer = _counted(loop)
    if outer is None or outer[1] not in ("0", "1"):
        return None
    i, _start, cond, body = outer
    bounds = [b for b in _bounds(cond, i) if not b.endswith("-1") and cond == f"{i}<{b}"]
    if not bounds:
        return None
    n = bounds[0]
    stmts = statements(body)
    if len(stmts) == 1 and stmts[0].type == "for_statement":
        inner = stmts[0]
        h = read_header(inner)
        if h.var is None or not h.plain_init or _norm(h.init) != i or h.step != -1:
            return None
        j = h.var
        test = _norm(h.condition)
        t = re.fullmatch(rf"{j}>0&&(\w+)\[({j}-1|{j})\]([<>])\1\[({j}-1|{j})\]", test)
        if t is None or {t.group(2), t.group(4)} != {f"{j}-1", j}:
            return None
        a = t.group(1)
        if not _swap(statements(inner.child_by_field_name("body")), a, f"{j}-1", j):
            return None
        # swapped while the left one is greater: ascending
        return a, n, "insertion", (t.group(3) == ">") == (t.group(2) == f"{j}-1")
    if len(stmts) != 4:
        return None
    texts = [_norm(st) for st in stmts]
    key = re.fullmatch(rf"(?:[\w:<> ]+ )(\w+)=(\w+)\[{i}\];", texts[0])
    jdecl = re.fullmatch(rf"(?:(?:int|long|long long|std::ptrdiff_t|ptrdiff_t) )(\w+)="
                         rf"(?:\(\w+\))?{i}-1;", texts[1])
    if key is None or jdecl is None or stmts[2].type != "while_statement":
        return None
    k, a, j = key.group(1), key.group(2), jdecl.group(1)
    test = _norm(unwrap(stmts[2].child_by_field_name("condition")))
    t = re.fullmatch(rf"{j}>=0&&{a}\[{j}\]([<>]){k}", test)
    shift = [_norm(st) for st in statements(stmts[2].child_by_field_name("body"))]
    if t is None or len(shift) != 2 or shift[0] != f"{a}[{j}+1]={a}[{j}];" or \
            shift[1] not in (f"--{j};", f"{j}--;", f"{j}-=1;", f"{j}={j}-1;") or \
            texts[3] != f"{a}[{j}+1]={k};":
        return None
    return a, n, "insertion", t.group(1) == ">"


# Sorts that never reorder equal elements (only strict comparisons move anything).
_STABLE = frozenset({"bubble", "odd-even", "insertion"})


def _element_kind(inp: RuleInput, a: str) -> str:
    """``identical`` for elements that compare equal only when they are the same value
    (integers, strings: any sort gives one result), ``ordered`` for other class types
    (their ``operator<`` orders them; a stable sort keeps equal ones as the loops did), else
    ``unordered`` (floating values: NaN has no place in any order)."""
    vt = inp.types.get(a)
    elem = vt.element if vt is not None else None
    if elem is None:
        return "unordered"
    base = elem.base.replace("const", "").strip()
    if elem.is_integral or base in ("std::string", "string"):
        return "identical"
    if elem.is_arithmetic or base in ("float", "double", "long double") or \
            elem.pointer or base in ("bool", "char"):
        return "unordered" if not elem.is_integral else "identical"
    return "ordered" if re.fullmatch(r"[A-Za-z_][\w:<>, ]*", base) else "unordered"


def _recognised(loop: Node) -> tuple[str, str, str, str] | None:
    """``(a, N, order, kind)`` of a loop nest that is a whole-range sort in one of the
    recognised shapes (bubble, selection, insertion, odd-even, comb)."""
    if loop.type not in ("for_statement", "while_statement", "do_statement"):
        return None
    shaped = _bubble(loop) if loop.type == "for_statement" else None
    if shaped is not None:
        return (*shaped, "bubble")
    shaped = _selection(loop) if loop.type == "for_statement" else None
    if shaped is not None:
        return (*shaped, "selection")
    other = _flagged(loop) or (_insertion(loop) if loop.type == "for_statement" else None)
    if other is None:
        return None
    a, n, kind, ascending = other
    return a, n, "ascending" if ascending else "descending", kind


def manual_sort_fix(inp: RuleInput, finding: Finding) -> Planned | Left:
    """The proved sort replaced with ``std::sort`` (``std::stable_sort`` for a stable one
    over elements that may be equal and distinct), or why it stays."""
    proof = finding.proof
    if isinstance(proof, SortLikeLoops):
        return Left("the loops", proof.loop, "they are not a recognised sort of a whole range "
                    "(bubble, selection, insertion, odd-even or comb sort, comparing and "
                    "swapping nothing else)", "stay")
    assert isinstance(proof, HandSort)
    loop, a, order, kind = proof.loop, proof.array, proof.order, proof.kind
    made = _replacement(inp, loop, a, proof.count, order, kind)
    if isinstance(made, str):
        return Left(f"the {kind} sort", loop, made)
    text, includes, call = made
    edits = [Edit(loop.start_byte, loop.end_byte, text, RULE_ID)]
    flag_decl = _flag_declaration(loop) if loop.type == "while_statement" or \
        loop.type == "do_statement" else []
    edits += [Edit(*_whole_line(inp, d), "", RULE_ID) for d in flag_decl]
    return Planned(
        tuple(edits),
        f"The loops at line {inp.line_of(loop)} sort '{a}' by {kind} sort, which takes time "
        f"proportional to the square of its length; {call} leaves the same "
        f"{order} order in n log n time.", (loop,), includes)


def _replacement(inp: RuleInput, loop: Node, a: str, n: str, order: str, kind: str
                 ) -> tuple[str, tuple[str, ...], str] | str:
    """``(text, headers, the call's name)`` standing for the sort, or why there is none."""
    if inp.language != "cpp":
        return "C has no std::sort, and qsort needs a comparison function beside this one"
    vt = inp.types.get(a)
    elem = vt.element if vt is not None else None
    what = _element_kind(inp, a)
    if vt is None or elem is None or what == "unordered":
        return (f"'{a}' is not known to hold integers, strings or a class type with an order "
                "(std::sort needs a strict weak order; floating values may hold NaN)")
    if what == "ordered" and kind not in _STABLE:
        return (f"a {kind} sort leaves equal elements of '{a}' in an order of its own, which "
                "no library sort reproduces")
    if what == "ordered" and order == "descending":
        return "a descending order of a class type would need its operator> as the comparison"
    call = "std::stable_sort" if what == "ordered" else "std::sort"
    # ``(int)v.size()``: the loops compare with the size as an int; it sorts the same range
    n = re.sub(rf"^\((?:int|long|long long|unsigned)\)(?={re.escape(a)}\.(?:size|length)\(\)$)",
               "", n)
    if not re.fullmatch(rf"\w+|{re.escape(a)}\.(size|length)\(\)", n) or n == a:
        return f"its length '{n}' is not a plain variable or the container's size()"
    if _uses_after(inp, loop, n) is None:
        return "its length is changed while it sorts"
    cmp = f", std::greater<{elem.base}>()" if order == "descending" else ""
    includes = ("<algorithm>", "<functional>") if cmp else ("<algorithm>",)
    if n in (f"{a}.size()", f"{a}.length()") and not vt.pointer and not vt.array:
        return f"{call}({a}.begin(), {a}.end(){cmp});", includes, call
    if (vt.pointer == 1 or vt.array) and "." not in n:
        # A count that is zero or negative sorts nothing, as the loops did.
        return guarded(f"{n} > 1", [f"{call}({a}, {a} + {n}{cmp});"],
                       indent_unit(inp.text)).replace(
            "\n", "\n" + indent_at(inp.data, loop.start_byte)), includes, call
    return f"'{a}' is neither a pointer nor an array with its count in '{n}'"


def _uses_after(inp: RuleInput, loop: Node, n: str) -> bool | None:
    """None when the loop writes ``n`` (a length that changes while it sorts)."""
    name = n.split(".")[0]
    for x in walk(loop):
        target = None
        if x.type in ("assignment_expression", "compound_assignment_expression"):
            target = x.child_by_field_name("left")
        elif x.type == "update_expression":
            target = x.child_by_field_name("argument")
        if target is not None and node_text(target) == name:
            return None
    return True


def _flag_declaration(loop: Node) -> list[Node]:
    """The declarations of the sort's flag and gap right before its loop, when nothing after
    the loop reads them (they go with the loop)."""
    stmts = statements(loop.child_by_field_name("body"))
    names: set[str] = set()
    for st in stmts[:3]:
        m = re.fullmatch(r"(\w+)=.*;", _norm(st))
        if m:
            names.add(m.group(1))
    block = loop.parent
    used = {node_text(x) for x in walk(block) if x.type == "identifier" and
            x.start_byte >= loop.end_byte} if block is not None else set()
    out: list[Node] = []
    prev = loop.prev_sibling
    while prev is not None and prev.type == "declaration":
        m = re.fullmatch(r"(?:bool|int|long|std::size_t|size_t|unsigned|double) (\w+)"
                         r"(?:=[^,;]+)?;", _norm(prev))
        if m is None or m.group(1) not in names or m.group(1) in used:
            break
        out.append(prev)
        prev = prev.prev_sibling
    return out


def _whole_line(inp: RuleInput, node: Node) -> tuple[int, int]:
    """The bytes of ``node``'s line, its line break included, when the node is all of it;
    else the node's own bytes."""
    data = inp.data
    start = data.rfind(b"\n", 0, node.start_byte) + 1
    end = data.find(b"\n", node.end_byte)
    if end < 0 or data[node.end_byte:end].strip() or data[start:node.start_byte].strip():
        return node.start_byte, node.end_byte
    return start, end + 1


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


@dataclass(frozen=True)
class HandSort(Proof):
    """A loop nest proved to sort ``array[0..count)`` by hand in one of the recognised shapes:
    the loop, the array, its length as written, the order and the kind of sort."""

    loop: Node
    array: str
    count: str
    order: str  # "ascending" or "descending"
    kind: str  # bubble, selection, insertion, odd-even, comb


@dataclass(frozen=True)
class SortLikeLoops(Proof):
    """Nested loops that compare and swap elements of one array, in no recognised shape."""

    loop: Node


def _hand_sorts(fn: Node) -> list[HandSort]:
    """The recognised sorts of the function, outermost first (none inside another)."""
    found: list[HandSort] = []
    for loop in walk(fn):
        if any(d.loop.start_byte <= loop.start_byte < d.loop.end_byte for d in found):
            continue
        got = _recognised(loop)
        if got is not None:
            found.append(HandSort(loop, *got))
    return found


def _library_sort(facts: FunctionFacts, array: str) -> str:
    """The library call a plan names for sorting ``array``."""
    if not cpp(facts):
        return f"`qsort({array}, n, sizeof *{array}, cmp)`"
    v = facts.var(array)
    if v is not None and not v.pointer and not v.array:
        return f"`std::sort({array}.begin(), {array}.end())`"
    return f"`std::sort({array}, {array} + n)`"


def _compare_and_swap(facts: FunctionFacts, outer: Node) -> tuple[str, Node, Node] | None:
    """``(array, first comparison, first swap)`` of an outermost loop that compares elements
    of one array and swaps them."""
    swaps = _swaps(facts, outer)
    if not swaps:
        return None
    first, array = swaps[0]
    compares = [b for b in facts.nodes("binary_expression", outer)
                if operator(b) in ("<", ">", "<=", ">=")
                and sum(1 for s in (b.child_by_field_name("left"),
                                    b.child_by_field_name("right"))
                        if s is not None and s.type == "subscript_expression"
                        and root_name(s) == array) >= 1]
    return (array, compares[0], first) if compares else None


def manual_sort(facts: FunctionFacts) -> Iterator[Finding]:
    """Loops that sort an array by hand in O(n²): each recognised sort (proved, rewritten),
    then each other outermost nest that compares and swaps elements of one array."""
    sorts = _hand_sorts(facts.fn)
    evidence = {lp.node.start_byte: (lp, e) for lp in facts.loops
                if lp.parent is None and not lp.innermost
                and (e := _compare_and_swap(facts, lp.node)) is not None}
    for hs in sorts:
        seen = evidence.get(hs.loop.start_byte)
        if seen is not None and seen[0].node == hs.loop:
            yield _finding(facts, seen[0], *seen[1], hs)
            continue
        yield make_finding(
            RULE_ID,
            f"The loops starting on line {line(hs.loop)} sort `{hs.array}` by {hs.kind} sort, "
            f"O(n²) comparisons and moves; the library sort "
            f"{_library_sort(facts, hs.array)} is O(n log n) and heavily tuned.",
            [line(hs.loop)], loop_range=rng(hs.loop), names=[hs.array], proof=hs,
        )
    for lp, (array, compare, swap) in evidence.values():
        if not any(lp.node.start_byte <= hs.loop.start_byte < lp.node.end_byte for hs in sorts):
            yield _finding(facts, lp, array, compare, swap, SortLikeLoops(lp.node))


def _finding(facts: FunctionFacts, outer: Loop, array: str, compare: Node, swap: Node,
             proof: HandSort | SortLikeLoops) -> Finding:
    return make_finding(
        RULE_ID,
        f"The nested loops starting on line {outer.line} sort `{array}` by hand: they compare "
        f"`{code(compare)}` (line {line(compare)}) and swap elements (line {line(swap)}), "
        f"O(n²) comparisons and moves; the library sort {_library_sort(facts, array)} is "
        f"O(n log n) and heavily tuned.",
        [outer.line, line(compare), line(swap)],
        loop_range=outer.byte_range, names=[array], proof=proof,
    )


RULE = RuleSpec(
    id=RULE_ID,
    detect=manual_sort,
    fix=manual_sort_fix,
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
