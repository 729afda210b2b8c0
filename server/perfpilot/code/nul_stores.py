"""Does a loop over a C string store a NUL into it? A small interval proof.

``for (i = 0; i < strlen(s); ++i)`` may compute the length once when the body writes ``s``
only as ``s[i] = v`` with ``v`` never a NUL: the terminator then stays where it was. ``v`` is
proved non-NUL by evaluating it over intervals, with ``s[i]`` narrowed by the ``if`` conditions
around the store (``if (s[i] >= 'a' && s[i] <= 'z') s[i] = s[i] - 'a' + 'A';``), or as
``toupper``/``tolower`` of the non-NUL ``s[i]``.
"""

from __future__ import annotations

from tree_sitter import Node

from perfpilot.code.syntax import (
    LOOP_TYPES,
    char_value,
    mutations,
    node_text,
    unwrap,
)

Interval = tuple[int, int]

_CHAR = (-128, 255)  # whatever a char holds, signed or not
_CASE_MAPS = {"toupper", "tolower", "std::toupper", "std::tolower"}
_CLASSES = {"islower": (ord("a"), ord("z")), "isupper": (ord("A"), ord("Z")),
            "isdigit": (ord("0"), ord("9"))}


def _squash(text: str) -> str:
    return "".join(text.split())


def _is_elem(node: Node, elem: str) -> bool:
    node = unwrap(node)
    while node.type == "cast_expression":
        value = node.child_by_field_name("value")
        if value is None:
            return False
        node = unwrap(value)
    return _squash(node_text(node)) == elem


def _interval(node: Node, elem: str, elem_range: Interval | None) -> Interval | None:
    """The values ``node`` can take (``elem`` within ``elem_range``), or None when unknown."""
    node = unwrap(node)
    if node.type in ("number_literal", "char_literal"):
        v = char_value(node)
        return (v, v) if v is not None else None
    if _squash(node_text(node)) == elem:
        return elem_range
    if node.type == "cast_expression":
        # A cast to a char type wraps modulo 256, which the final check allows for.
        value = node.child_by_field_name("value")
        return _interval(value, elem, elem_range) if value is not None else None
    if node.type == "call_expression":
        fn = node.child_by_field_name("function")
        args = node.child_by_field_name("arguments")
        if fn is not None and args is not None and node_text(fn) in _CASE_MAPS and \
                args.named_child_count == 1 and args.named_children[0] is not None and \
                _is_elem(args.named_children[0], elem):
            # s[i] is not NUL while i < strlen(s), and the case mappings keep it so.
            return (1, 255)
        return None
    if node.type == "conditional_expression":
        a = node.child_by_field_name("consequence")
        b = node.child_by_field_name("alternative")
        ia = _interval(a, elem, elem_range) if a is not None else None
        ib = _interval(b, elem, elem_range) if b is not None else None
        if ia is None or ib is None:
            return None
        return (min(ia[0], ib[0]), max(ia[1], ib[1]))
    if node.type == "binary_expression":
        op = node.child_by_field_name("operator")
        left = node.child_by_field_name("left")
        right = node.child_by_field_name("right")
        if op is None or left is None or right is None:
            return None
        il, ir = _interval(left, elem, elem_range), _interval(right, elem, elem_range)
        if il is None or ir is None:
            return None
        return _arith(node_text(op), il, ir)
    return None


def _arith(op: str, a: Interval, b: Interval) -> Interval | None:
    """``a op b`` over intervals, for + and -; None for anything else."""
    if op == "+":
        return (a[0] + b[0], a[1] + b[1])
    if op == "-":
        return (a[0] - b[1], a[1] - b[0])
    return None


def _never_nul(r: Interval | None) -> bool:
    """No value of ``r`` is a multiple of 256 (so none is a NUL once stored in a char)."""
    if r is None or r[1] - r[0] >= 256:
        return False
    first = -(-r[0] // 256) * 256  # the smallest multiple of 256 not below r[0]
    return first > r[1]


def _narrow(cond: Node, elem: str, r: Interval | None) -> Interval | None:
    """``r`` narrowed by what ``cond`` (a conjunction) says of ``elem`` when it holds."""
    cond = unwrap(cond)
    if cond.type == "call_expression":
        fn = cond.child_by_field_name("function")
        args = cond.child_by_field_name("arguments")
        name = node_text(fn).removeprefix("std::") if fn is not None else ""
        if name in _CLASSES and args is not None and args.named_child_count == 1 and \
                args.named_children[0] is not None and _is_elem(args.named_children[0], elem):
            lo, hi = r or _CHAR
            return (max(lo, _CLASSES[name][0]), min(hi, _CLASSES[name][1]))
        return r
    if cond.type != "binary_expression":
        return r
    op = cond.child_by_field_name("operator")
    left = cond.child_by_field_name("left")
    right = cond.child_by_field_name("right")
    if op is None or left is None or right is None:
        return r
    o = node_text(op)
    if o == "&&":
        return _narrow(right, elem, _narrow(left, elem, r))
    flip = {"<": ">", "<=": ">=", ">": "<", ">=": "<=", "==": "=="}
    if o not in flip:
        return r
    if _is_elem(left, elem):
        bound = _interval(right, "", None)
    elif _is_elem(right, elem):
        bound, o = _interval(left, "", None), flip[o]
    else:
        return r
    if bound is None or bound[0] != bound[1]:
        return r
    k = bound[0]
    lo, hi = r or _CHAR
    if o in ("<", "<="):
        hi = min(hi, k - 1 if o == "<" else k)
    if o in (">", ">="):
        lo = max(lo, k + 1 if o == ">" else k)
    if o == "==":
        lo, hi = max(lo, k), min(hi, k)
    return (lo, hi)


def _guards(store: Node, stop: Node) -> list[Node]:
    """Conditions of the ``if`` statements from ``store`` up to ``stop`` (included) whose
    true branch holds ``store``, outermost first. Only those checked each time just before
    the store runs: a loop in between ends the search."""
    out: list[Node] = []
    child, node = store, store.parent
    while node is not None and node.type not in LOOP_TYPES:
        if node.type == "if_statement" and node.child_by_field_name("consequence") == child:
            # C++ wraps the condition in a condition_clause, C in parentheses.
            cond = unwrap(node.child_by_field_name("condition"))
            if cond is not None:
                out.append(cond)
        if node == stop:
            break
        child, node = node, node.parent
    return list(reversed(out))


def _stored(op: str, right: Node, elem: str, r: Interval | None) -> Interval | None:
    """The values ``elem op right`` leaves in ``elem`` (None when unknown)."""
    rv = _interval(right, elem, r)
    if op == "=":
        return rv
    if op == "|=":
        # OR-ing in a constant with a low bit set can never leave a NUL.
        return (1, 255) if rv is not None and rv[0] == rv[1] and rv[0] & 0xFF else None
    if op in ("+=", "-=") and r is not None and rv is not None:
        return _arith(op[0], r, rv)
    return None


def stores_no_nul(body: Node, name: str, var: str) -> bool:
    """Whether ``body`` (of a loop running while ``var < strlen(name)``) changes ``name`` only
    by storing non-NUL characters at ``name[var]``, and lets nothing else change it."""
    elem = f"{name}[{var}]"
    stores = [(n, _squash(node_text(left))) for n, left in mutations(body)]
    stores = [(n, t) for n, t in stores
              if t == name or t.startswith((f"{name}[", f"*{name}", f"*({name}"))]
    # A guard speaks of s[i] as it was when checked: with a second store it may be stale.
    use_guards = len(stores) == 1
    for n, target in stores:
        if n.type != "assignment_expression" or target != elem:
            return False  # s[i]++ may wrap to NUL; &s[k] lets it change; s[k] is elsewhere
        right = n.child_by_field_name("right")
        op = n.child_by_field_name("operator")
        if right is None or op is None:
            return False
        r: Interval | None = None
        for cond in _guards(n, body) if use_guards else ():
            r = _narrow(cond, elem, r)
        if not _never_nul(_stored(node_text(op), right, elem, r)):
            return False
    return True
