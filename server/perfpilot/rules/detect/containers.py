"""How a function uses its local containers, shared by the ordered-map-unneeded and
list-to-vector rules."""

from __future__ import annotations

import re
from collections.abc import Iterator

from perfpilot.code.declarations import VarType
from perfpilot.code.facts import FunctionFacts
from perfpilot.code.syntax import (
    callee,
    line,
    node_text,
)


class ContainerUse:
    """How a local variable is used: method names, whole-variable escapes, line numbers."""

    def __init__(self) -> None:
        self.methods: set[str] = set()
        self.lines: list[int] = []
        self.escapes = False
        self.iterated = False
        self.subscripted = False


def container_uses(facts: FunctionFacts, name: str) -> ContainerUse:
    use = ContainerUse()
    for ident in facts.nodes("identifier", facts.body):
        if node_text(ident) != name:
            continue
        parent = ident.parent
        if parent is None:
            continue
        if parent.type == "field_expression" and parent.child_by_field_name("argument") == ident:
            call = parent.parent
            if call is not None and call.type == "call_expression":
                use.methods.add(callee(call))
                use.lines.append(line(call))
            continue
        if parent.type == "subscript_expression":
            use.subscripted = True
            use.lines.append(line(parent))
            continue
        if parent.type == "for_range_loop":
            use.iterated = True
            continue
        if parent.type in ("declaration", "init_declarator") or "declarator" in parent.type:
            continue
        # passed whole to a call, returned, assigned, compared: its type leaks out
        use.escapes = True
    return use


def local_containers(facts: FunctionFacts, pattern: re.Pattern[str]) -> Iterator[VarType]:
    if facts.body is None:
        return
    for v in list(facts.vars.values()):
        if v.scope == "local" and not v.pointer and not v.reference and not v.array \
                and pattern.match(v.base):
            yield v


