"""A character looked up in a string literal by a library call: a set membership test.

``std::string("aeiou").find(c) != std::string::npos`` builds a string (and scans it) on every
call, ``strchr(" \\t\\n", c)`` scans the literal; both only ask whether ``c`` is one of a fixed
set of characters. ``find`` of a ``char`` compares it with each character of the string;
``strchr`` converts its argument to ``char`` and also finds the terminating NUL, so its set
includes 0. Only plain literals (no prefix) whose characters are all below 128 are read, so
membership is the same whatever the signedness of ``char``. Whether the subject is a character
at all, and free of effects, is for the caller to prove.

The same questions about a named string (``set.find(c) != std::string::npos``,
``set.find(c) < set.size()``, ``strchr(set.c_str(), c)``) are read when the caller says the name
is a ``std::string`` (``named``); the set is then the string's bytes at run time (for
``strchr``, those before its first NUL, and the NUL), ``source`` names it, and whether the
string stays unchanged where the answer is reused is again for the caller to prove.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass

from perfpilot.code.syntax import (
    Node,
    arguments,
    callee,
    node_text,
    operator,
    receiver,
    unparenthesized,
    unwrap,
)

_SIMPLE_ESCAPES = {"n": 10, "t": 9, "r": 13, "\\": 92, "'": 39, '"': 34, "a": 7, "b": 8,
                   "f": 12, "v": 11, "?": 63}
_STRING_TYPES = frozenset({"std::string", "string", "std::string_view", "string_view"})
_NPOS = frozenset(f"{t}::npos" for t in _STRING_TYPES)
_NULLS = frozenset({"NULL", "nullptr", "0"})
STRCHR_ALSO_FINDS = frozenset({0})  # the terminating NUL
_BOOLEAN_PARENTS = frozenset({"condition_clause", "&&", "||", "!", "and", "or", "not"})


@dataclass(frozen=True)
class Membership:
    """``node`` answers whether ``subject`` is one of ``values`` (``negated``: whether it is
    not); ``form`` is ``find`` or ``strchr``; ``source`` the named string whose bytes are the
    set (``values`` is then empty)."""

    node: Node
    subject: Node
    values: frozenset[int]
    negated: bool
    form: str
    source: str = ""


def literal_chars(lit: Node) -> frozenset[int] | None:
    """The characters of a plain string literal, or None when it has a prefix, a character
    of 128 or above, or an escape not read here."""
    body = node_text(lit)
    if lit.type != "string_literal" or len(body) < 2 or body[0] != '"' or body[-1] != '"':
        return None
    inner, out, k = body[1:-1], set(), 0
    while k < len(inner):
        ch = inner[k]
        if ch != "\\":
            if ord(ch) >= 128:
                return None
            out.add(ord(ch))
            k += 1
            continue
        value, k = _escape(inner, k + 1)
        if value is None or value >= 128:
            return None
        out.add(value)
    return frozenset(out)


def _escape(s: str, k: int) -> tuple[int | None, int]:
    if k >= len(s):
        return None, k
    if s[k] in _SIMPLE_ESCAPES:
        return _SIMPLE_ESCAPES[s[k]], k + 1
    if s[k] == "x":  # as many hex digits as follow
        end = k + 1
        while end < len(s) and s[end] in "0123456789abcdefABCDEF":
            end += 1
        return (int(s[k + 1:end], 16), end) if end > k + 1 else (None, k)
    end = k
    while end < len(s) and end < k + 3 and s[end] in "01234567":
        end += 1
    return (int(s[k:end], 8), end) if end > k else (None, k)


def memberships(calls: Iterable[Node], named: Callable[[str], bool] | None = None
                ) -> Iterator[Membership]:
    """The membership tests among ``calls`` (see the module); with ``named``, also those in
    the variables it accepts as ``std::string``."""
    for call in calls:
        found = _find_form(call) or _strchr_form(call)
        if found is None and named is not None:
            found = _named_find(call, named) or _named_strchr(call, named)
        if found is not None:
            yield found


def _named_find(call: Node, named: Callable[[str], bool]) -> Membership | None:
    """``set.find(c) != npos`` (``== npos``), ``set.find(c) < set.size()`` (``>=``), with
    ``set`` a named string and the call on the left."""
    args = arguments(call)
    recv = receiver(call)
    if callee(call) != "find" or len(args) != 1 or recv is None or \
            recv.type != "identifier" or not named(node_text(recv)):
        return None
    name = node_text(recv)
    top = unparenthesized(call)
    cmp = top.parent
    if cmp is None or cmp.type != "binary_expression":
        return None
    left, right = cmp.child_by_field_name("left"), cmp.child_by_field_name("right")
    other = right if left is not None and left.start_byte == top.start_byte else left
    spelled = "".join(node_text(other).split()) if other is not None else ""
    op = operator(cmp)
    if op in ("==", "!=") and (spelled in _NPOS or spelled == f"{name}.npos"):
        return Membership(cmp, unwrap(args[0]), frozenset(), op == "==", "find", name)
    if other is right and op in ("<", ">=") and spelled in (f"{name}.size()",
                                                            f"{name}.length()"):
        return Membership(cmp, unwrap(args[0]), frozenset(), op == ">=", "find", name)
    return None


def _named_strchr(call: Node, named: Callable[[str], bool]) -> Membership | None:
    """``strchr(set.c_str(), c)`` used as a test, as ``_strchr_form``."""
    fn = call.child_by_field_name("function")
    args = arguments(call)
    if fn is None or \
            "".join(node_text(fn).split()) not in ("strchr", "std::strchr", "::strchr") or \
            len(args) != 2 or args[0].type != "call_expression" or \
            callee(args[0]) != "c_str" or arguments(args[0]):
        return None
    recv = receiver(args[0])
    if recv is None or recv.type != "identifier" or not named(node_text(recv)):
        return None
    found = _strchr_test(call, frozenset())
    return Membership(found.node, found.subject, frozenset(), found.negated, "strchr",
                      node_text(recv)) if found is not None else None


def _find_form(call: Node) -> Membership | None:
    """``std::string("lit").find(c) != npos`` (``== npos``: not a member)."""
    args = arguments(call)
    recv = receiver(call)
    if callee(call) != "find" or len(args) != 1 or recv is None:
        return None
    values = _constructed_literal(unwrap(recv))
    cmp = unparenthesized(call).parent
    if values is None or len(values) < 2 or cmp is None or cmp.type != "binary_expression" \
            or operator(cmp) not in ("==", "!="):
        return None
    left, right = cmp.child_by_field_name("left"), cmp.child_by_field_name("right")
    other = right if left is not None and left.start_byte == unparenthesized(call).start_byte \
        else left
    if other is None or "".join(node_text(other).split()) not in _NPOS:
        return None
    return Membership(cmp, unwrap(args[0]), values, operator(cmp) == "==", "find")


def _constructed_literal(node: Node) -> frozenset[int] | None:
    """The characters of ``std::string("lit")``, ``std::string{"lit"}`` or the view forms."""
    if node.type == "call_expression":
        fn = node.child_by_field_name("function")
        args = arguments(node)
    elif node.type == "compound_literal_expression":
        fn = node.child_by_field_name("type")
        value = node.child_by_field_name("value")
        args = list(value.named_children) if value is not None else []
    else:
        return None
    if fn is None or "".join(node_text(fn).split()) not in _STRING_TYPES or len(args) != 1:
        return None
    return literal_chars(args[0])


def _strchr_form(call: Node) -> Membership | None:
    """``strchr("lit", c)`` in a condition, negated, or compared with a null pointer."""
    fn = call.child_by_field_name("function")
    args = arguments(call)
    if fn is None or \
            "".join(node_text(fn).split()) not in ("strchr", "std::strchr", "::strchr") or \
            len(args) != 2:
        return None
    values = literal_chars(args[0])
    if values is None or len(values) < 2:
        return None
    return _strchr_test(call, values | STRCHR_ALSO_FINDS)


def _strchr_test(call: Node, values: frozenset[int]) -> Membership | None:
    """The membership test a ``strchr`` call makes: in a condition, negated, or compared with
    a null pointer."""
    args = arguments(call)
    top = unparenthesized(call)
    parent = top.parent
    if parent is None:
        return None
    kind = operator(parent) if parent.type in ("binary_expression", "unary_expression") \
        else parent.type
    if kind in _BOOLEAN_PARENTS:
        return Membership(call, unwrap(args[1]), values, False, "strchr")
    if parent.type == "binary_expression" and kind in ("==", "!="):
        left, right = parent.child_by_field_name("left"), parent.child_by_field_name("right")
        other = right if left is not None and left.start_byte == top.start_byte else left
        if other is not None and node_text(other).strip() in _NULLS:
            return Membership(parent, unwrap(args[1]), values, kind == "==", "strchr")
    return None
