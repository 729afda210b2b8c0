"""Whether ``#pragma omp simd`` keeps an elementwise loop's meaning.

A vector step runs a statement for several consecutive iterations before the next statement:
every load of the statement happens before its stores. So iteration ``i`` may read element
``i + c`` (``c > 0``) of an array the loop writes at ``[i]`` as long as the read comes in the
statement that writes it or an earlier one (the later iteration's store is then still to come,
as in the serial loop); a read at ``i - c`` needs a value an earlier lane has not stored yet,
and a read after the write sees a later lane's store too early. Any other way to the written
storage (an alias, ``*p``, a call) is refused, as for threads (``aliases.touch_blocker``).
"""

from __future__ import annotations

import re
from collections.abc import Mapping

import tree_sitter

from perfpilot.code.aliases import at_reads, storage, touch_blocker
from perfpilot.code.declarations import VarType
from perfpilot.code.loop_body import collect_body
from perfpilot.code.syntax import (
    enclosing_function,
    root_name_of,
    statements,
)

Node = tree_sitter.Node


def _offset(index: str, var: str) -> int | None:
    """``c`` for ``var``, ``var + c``, ``var - c`` or ``c + var`` (a literal ``c``)."""
    s = "".join(index.split())
    v = re.escape(var)
    if s == var:
        return 0
    m = re.fullmatch(rf"{v}([+-])(\d+)", s)
    if m is not None:
        return int(m.group(2)) * (1 if m.group(1) == "+" else -1)
    m = re.fullmatch(rf"(\d+)\+{v}", s)
    return int(m.group(1)) if m is not None else None


def simd_blocker(loop: Node, body: Node, var: str, direction: int,
                 types: Mapping[str, VarType | None]) -> str:
    """Why vectorizing ``loop`` (stepping ``var`` by ``direction``, 1 or -1) could change
    what it computes, or "" when it cannot: see the module docstring (for a loop counting
    down, "later" elements are those below ``i``)."""
    f = collect_body(loop, body)
    private = f.locals - f.local_refs
    roots = {r for a, b in f.element if a.write and (r := root_name_of(b))} - private
    why = touch_blocker(body, roots, private, storage(enclosing_function(loop), types),
                        dict(types))
    if why:
        return why
    stmts = statements(body)

    def position(n: Node) -> int:
        return next((k for k, s in enumerate(stmts) if s.start_byte <= n.start_byte < s.end_byte),
                    len(stmts))

    first_write: dict[str, int] = {}
    for a, b in f.element:
        if a.write:
            k = position(b)
            first_write[a.base] = min(k, first_write.get(a.base, k))
    for a, b in [*f.element, *at_reads(body)]:
        if a.write or a.base not in first_write:
            continue
        offsets = [_offset(ix, var) for ix in a.indices]
        ahead = offsets[0] * direction if len(offsets) == 1 and offsets[0] is not None else -1
        if ahead < 0:
            return (f"'{a.base}[{']['.join(a.indices)}]' may read an element another "
                    "iteration writes")
        if ahead > 0 and position(b) > first_write[a.base]:
            return f"'{a.base}[{a.indices[0]}]' is read after the loop writes '{a.base}'"
    return ""
