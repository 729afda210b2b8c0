"""Loops that walk a whole sequence of integers (or strings) by an integer index: the parts the
nested-membership and triangle-pair proofs share.

A sequence is a ``std::vector`` walked up to ``size()``, or a pointer or array walked up to a
count; the count may be negative in the source, so copies clamp it at zero.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from perfpilot.code.declarations import VarType
from perfpilot.code.loop_header import read_header
from perfpilot.code.syntax import (
    Node,
    node_text,
)

# ``int j = start;`` (runs of spaces made one): an integer index declared by the loop
INDEX_DECLARATION = re.compile(r"(?:int|long|long long|unsigned|unsigned int|unsigned long|"
                               r"std::size_t|size_t) ([A-Za-z_]\w*) ?= ?(.+?) ?;")
_STRING = frozenset({"std::string", "string"})


@dataclass(frozen=True)
class SequenceScan:
    """A loop over the whole of one sequence: what it walks and how to copy it."""

    loop: Node
    seq: str  # the sequence's name
    elem: str  # its element type
    bound: str  # "" for a vector's ``size()``, else the element count of a pointer or array

    def clamped_count(self) -> str:
        """The pointer's element count, never negative (a negative count walks nothing)."""
        return f"({self.bound} > 0 ? {self.bound} : 0)"


def norm_type(text: str) -> str:
    """A type as written with ``const`` and ``&`` dropped and spaces made one."""
    text = re.sub(r"\bconst\b|&", "", text)
    return " ".join(text.split()).replace("< ", "<").replace(" >", ">")


def sequence_element(vt: VarType | None, pointer_ok: bool, strings: bool = False) -> str:
    """The element type of a vector of integers (or, with ``strings``, of strings) or, when
    ``pointer_ok``, of a pointer or array of integers; "" for anything else."""
    if vt is None:
        return ""
    base = norm_type(vt.base)
    if vt.pointer or vt.array:
        ok = pointer_ok and vt.pointer + int(vt.array) == 1 and VarType(base).is_integral
        return base if ok else ""
    m = re.fullmatch(r"(?:std::)?vector<(.+)>", base)
    elem = norm_type(m.group(1)) if m else ""
    return elem if elem and (VarType(elem).is_integral or (strings and elem in _STRING)) else ""


def single_statement(body: Node | None) -> Node | None:
    """The one statement of a body (a block of one statement, or a bare statement)."""
    if body is None:
        return None
    if body.type == "compound_statement":
        kids = [c for c in body.named_children if c is not None and c.type != "comment"]
        return kids[0] if len(kids) == 1 else None
    return body


def index_head(loop: Node) -> tuple[str, str, str] | None:
    """``(var, start, bound)`` of ``for (T var = start; var < bound; ++var)`` with ``T`` an
    integer type, spaces in ``start`` and ``bound`` made one."""
    if loop.type != "for_statement":
        return None
    h = read_header(loop)
    if h.initializer is None or not h.declared or h.bound is None:
        return None
    m = INDEX_DECLARATION.fullmatch(" ".join(node_text(h.initializer).split()))
    if m is None or m.group(1) != h.var or h.step_text != "++" or h.compare != "<" or \
            h.flipped:
        return None
    return str(m.group(1)), m.group(2), " ".join(node_text(h.bound).split())
