"""Local maps keyed by a one-byte type whose every use a plain array answers exactly.

A ``std::map`` or ``std::unordered_map`` keyed by ``char``, ``signed char``, ``unsigned char``,
``int8_t`` or ``uint8_t`` holds at most 256 keys (``bool``: 2), so an array indexed by the key
converted to ``unsigned char`` can stand for it. This module proves when that is exact:

- the map is a local declared alone, empty, without ``static`` or qualifiers, with exactly the
  two template arguments (a custom comparator or hash would change the order or meaning), an
  arithmetic value type (``operator[]`` value-initialises it to 0, as ``= {}`` does);
- every later mention of its name, in its block and outside any lambda, is ``m[k]`` (anywhere:
  read, written, incremented, bound to a reference), ``m.count(k)``, ``m.contains(k)``,
  ``m.find(k) == m.end()`` / ``!=`` (``cend`` too), ``m.size()``, ``m.empty()``, or a range-for
  over it whose element is ``auto`` (``const``, ``&``, ``&&`` or by value) bound to ``[k, v]``
  or to a name used only as ``p.first`` / ``p.second``; anything else (passed, returned,
  assigned, compared, address taken, an iterator kept, ``insert``, ``erase``, ``at``) leaves
  the map alone;
- a loop over it mentions the map nowhere in its body (no insertion while iterating), declares
  none of its bound names again, takes none of their addresses and holds no lambda;
- a ``std::map`` visits its keys in ascending order, which a loop over the key type's values
  from its minimum to its maximum reproduces; an ``std::unordered_map``'s order is
  unspecified and a program may show it, so a loop over one is accepted only when it is an
  order-free fold (``order_free.py``): integer accumulators combined commutatively.

``m[k]`` inserts a default entry even when it only reads, so the keys present are the keys
ever subscripted; the rewrite keeps a presence array only when something observes presence
(``count``, ``contains``, ``find``, ``size``, ``empty``, iteration).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass

from perfpilot.code.declarations import VarType, declared_types, top_level_types
from perfpilot.code.facts import FunctionFacts
from perfpilot.code.syntax import (
    Node,
    arguments,
    callee,
    declarator_name,
    line,
    node_text,
    operator,
    walk,
)
from perfpilot.rules.containers.order_free import order_free_fold

# Key types and the number of values they take.
SMALL_KEYS: Mapping[str, int] = {
    "char": 256, "signed char": 256, "unsigned char": 256, "int8_t": 256, "uint8_t": 256,
    "std::int8_t": 256, "std::uint8_t": 256, "bool": 2,
}
_MAP = re.compile(r"^(?:std::)?(map|unordered_map)\s*<(.*)>$", re.S)
_ARITH_WORDS = frozenset({"signed", "unsigned", "char", "short", "int", "long", "float",
                          "double", "bool"})
_ARITH_NAMES = re.compile(r"^(?:std::)?(?:u?int(?:8|16|32|64)_t|size_t|ptrdiff_t)$")
_INTEGRAL_LITERAL = re.compile(r"^-?(?:0[xX][0-9a-fA-F']+|0[bB][01']+|[0-9][0-9']*)[uUlL]*$")
_ARITH_OPS = frozenset({"+", "-", "*", "/", "%", "&", "|", "^", "<<", ">>"})
_BOOL_OPS = frozenset({"==", "!=", "<", ">", "<=", ">=", "&&", "||"})
_STRINGS = frozenset({"std::string", "string", "std::string_view", "string_view"})


@dataclass(frozen=True)
class Lookup:
    """One keyed use: ``node`` is the whole expression the rewrite replaces."""

    node: Node
    key: Node
    form: str  # "subscript", "count", "contains", "found" (!= end), "missing" (== end)


@dataclass(frozen=True)
class Iteration:
    """A range-for over the map and how it binds each element."""

    loop: Node
    key: str | None  # ``k`` of ``[k, v]``
    value: str | None  # ``v`` of ``[k, v]``
    pair: str | None  # ``p`` when the element is bound whole
    firsts: tuple[Node, ...]  # the ``p.first`` expressions of the body
    seconds: tuple[Node, ...]  # the ``p.second`` expressions
    reference: bool  # bound by reference: writes to the value reach the map
    const: bool


@dataclass(frozen=True)
class SmallKeyMap:
    """A map the proof accepts, with every use the rewrite replaces."""

    name: str
    kind: str  # "map" or "unordered_map"
    key: str  # the key type as written (whitespace collapsed)
    value: str
    entries: int  # 256, or 2 for bool
    decl: Node
    lookups: tuple[Lookup, ...]
    sizes: tuple[Node, ...]  # ``m.size()`` calls
    empties: tuple[Node, ...]  # ``m.empty()`` calls
    iterations: tuple[Iteration, ...]

    @property
    def presence(self) -> bool:
        """Whether anything observes which keys are present."""
        return bool(self.sizes or self.empties or self.iterations or
                    any(u.form != "subscript" for u in self.lookups))

    @property
    def counted(self) -> bool:
        """Whether the number of present keys is read."""
        return bool(self.sizes or self.empties)

    @property
    def lines(self) -> tuple[int, ...]:
        """Unit lines of the declaration and the uses, in order."""
        nodes = [*(u.node for u in self.lookups), *self.sizes, *self.empties,
                 *(it.loop for it in self.iterations)]
        return (line(self.decl), *sorted({line(n) for n in nodes}))


def function_types(facts: FunctionFacts) -> dict[str, VarType | None]:
    """The types a rewrite sees (``RuleInput.types``): the unit's globals, then the function's
    parameters and locals."""
    return {**top_level_types(facts.unit), **declared_types(facts.fn)}


def small_key_maps(facts: FunctionFacts, types: Mapping[str, VarType | None] | None = None,
                   ) -> tuple[tuple[SmallKeyMap, ...], tuple[str, ...]]:
    """The function's maps an array may replace exactly, and a note per small-key map refused.

    ``types``: the variable types the order-free check reads (``function_types`` when None).
    """
    if facts.language != "cpp" or facts.body is None:
        return (), ()
    known = function_types(facts) if types is None else types
    found: list[SmallKeyMap] = []
    notes: list[str] = []
    for decl in facts.nodes("declaration"):
        tnode = decl.child_by_field_name("type")
        m = _MAP.match(" ".join(node_text(tnode).split()))
        if m is None:
            continue
        args = template_args(m.group(2))
        if len(args) != 2 or args[0] not in SMALL_KEYS:
            continue
        names = [v.name for v in facts.local_vars(decl)]
        name = names[0] if len(names) == 1 else "the map"
        result = _analyse(facts, decl, m.group(1), args[0], args[1], known)
        if isinstance(result, str):
            notes.append(f"'{name}' (line {line(decl)}) stays a {m.group(1)}: {result}")
        else:
            found.append(result)
    return tuple(found), tuple(notes)


def template_args(args: str) -> list[str]:
    out: list[str] = []
    depth, start = 0, 0
    for i, ch in enumerate(args):
        if ch in "<([":
            depth += 1
        elif ch in ">)]":
            depth -= 1
        elif ch == "," and depth == 0:
            out.append(" ".join(args[start:i].split()))
            start = i + 1
    out.append(" ".join(args[start:].split()))
    return out


def arithmetic_type(t: str) -> bool:
    """A builtin arithmetic type name (``int``, ``unsigned long``, ``double``, ``uint64_t``)."""
    words = t.split()
    return bool(words) and (all(w in _ARITH_WORDS for w in words) or
                            (len(words) == 1 and bool(_ARITH_NAMES.match(words[0]))))


def _declared_name(decl: Node) -> Node | str:
    """The identifier node of a lone, empty declarator, or why the declaration is refused."""
    if any(c.type in ("storage_class_specifier", "type_qualifier", "attribute_specifier",
                      "attribute_declaration") for c in decl.children):
        return "it is static, const or qualified"
    if decl.parent is None or decl.parent.type != "compound_statement":
        return "it is not declared in a block"
    declarators = [c for i, c in enumerate(decl.children)
                   if decl.field_name_for_child(i) == "declarator"]
    if len(declarators) != 1:
        return "its declaration declares more than one name"
    d = declarators[0]
    if d.type == "identifier":
        return d
    if d.type == "init_declarator":
        name, value = d.child_by_field_name("declarator"), d.child_by_field_name("value")
        if name is not None and name.type == "identifier" and value is not None and \
                value.type == "initializer_list" and not value.named_children:
            return name
    return "it is initialised with elements or a value"


def _analyse(facts: FunctionFacts, decl: Node, kind: str, key: str, value: str,
             types: Mapping[str, VarType | None]) -> SmallKeyMap | str:
    """The accepted map, or the reason it is refused."""
    if not arithmetic_type(value):
        return f"its value type `{value}` is not arithmetic"
    ident = _declared_name(decl)
    if isinstance(ident, str):
        return ident
    name = node_text(ident)
    scope = decl.parent
    assert scope is not None
    lookups: list[Lookup] = []
    sizes: list[Node] = []
    empties: list[Node] = []
    iterations: list[Iteration] = []
    consumed: set[int] = set()  # the ``m`` of ``m.end()`` compared with a ``find``
    ends: list[Node] = []
    for use in facts.nodes("identifier", facts.body):
        if node_text(use) != name or use.start_byte == ident.start_byte:
            continue
        where = f"line {line(use)}"
        if use.start_byte < decl.end_byte or use.end_byte > scope.end_byte:
            return f"its name is used outside its block ({where})"
        if any(a.type == "lambda_expression" for a in _ancestors(use, scope)):
            return f"a lambda uses it ({where})"
        parent = use.parent
        if parent is None:
            return "odd syntax"
        if parent.type == "subscript_expression" and _same(parent.child_by_field_name(
                "argument"), use):
            k = _only_index(parent)
            if k is None:
                return f"`{node_text(parent)}` is not a one-key subscript"
            lookups.append(Lookup(parent, k, "subscript"))
            continue
        if parent.type == "field_expression" and _same(parent.child_by_field_name("argument"),
                                                       use):
            call = parent.parent
            if operator(parent) != "." or call is None or call.type != "call_expression" or \
                    not _same(call.child_by_field_name("function"), parent):
                return f"`{node_text(parent)}` is not a method call ({where})"
            method, args = callee(call), arguments(call)
            if method in ("count", "contains") and _one_key(args):
                lookups.append(Lookup(call, args[0], method))
            elif method in ("size", "empty") and not args:
                (sizes if method == "size" else empties).append(call)
            elif method == "find" and _one_key(args):
                test = _find_test(call, name)
                if test is None:
                    return f"`{node_text(call)}` is used as an iterator ({where})"
                cmp, end_ident = test
                consumed.add(end_ident.start_byte)
                lookups.append(Lookup(cmp, args[0], "found" if operator(cmp) == "!=" else
                                      "missing"))
            elif method in ("end", "cend") and not args:
                ends.append(use)
            else:
                return f"it calls `{method}` ({where})"
            continue
        if parent.type == "for_range_loop" and _same(parent.child_by_field_name("right"), use):
            it = _iteration(facts, parent, name)
            if isinstance(it, str):
                return f"the loop on {where} {it}"
            if kind == "unordered_map" and not order_free_fold(parent, name, types):
                return (f"the loop on {where} may show the hash table's unspecified order "
                        "(only integer sums, counts and max/min of its values are known not "
                        "to)")
            iterations.append(it)
            continue
        return f"it is used whole: passed, returned, assigned or its address taken ({where})"
    if any(e.start_byte not in consumed for e in ends):
        return "an iterator to it is kept"
    if not (lookups or sizes or empties or iterations):
        return "it is never used"
    return SmallKeyMap(name, kind, key, value, SMALL_KEYS[key], decl, tuple(lookups),
                       tuple(sizes), tuple(empties), tuple(iterations))


def _same(a: Node | None, b: Node) -> bool:
    return a is not None and a.start_byte == b.start_byte and a.end_byte == b.end_byte and \
        a.type == b.type


def _ancestors(node: Node, stop: Node) -> list[Node]:
    out: list[Node] = []
    cur = node.parent
    while cur is not None and not _same(cur, stop):
        out.append(cur)
        cur = cur.parent
    return out


def _one_key(args: list[Node]) -> bool:
    return len(args) == 1 and args[0].type != "initializer_list"


def _only_index(sub: Node) -> Node | None:
    idx = sub.child_by_field_name("indices") or sub.child_by_field_name("index")
    if idx is None:
        return None
    if idx.type == "subscript_argument_list":
        inner = [c for c in idx.named_children if c.type != "comment"]
        return inner[0] if len(inner) == 1 and inner[0].type != "initializer_list" else None
    return idx


def _find_test(find: Node, name: str) -> tuple[Node, Node] | None:
    """``m.find(k) != m.end()`` (either side, ``==`` too, ``cend``): the comparison and the
    ``m`` of the end call."""
    cmp = find.parent
    if cmp is None or cmp.type != "binary_expression" or operator(cmp) not in ("==", "!="):
        return None
    left, right = cmp.child_by_field_name("left"), cmp.child_by_field_name("right")
    other = right if _same(left, find) else left
    if other is None or other.type != "call_expression" or arguments(other) or \
            callee(other) not in ("end", "cend"):
        return None
    fn = other.child_by_field_name("function")
    if fn is None or fn.type != "field_expression" or operator(fn) != ".":
        return None
    obj = fn.child_by_field_name("argument")
    if obj is None or obj.type != "identifier" or node_text(obj) != name:
        return None
    return cmp, obj


def _iteration(facts: FunctionFacts, loop: Node, name: str) -> Iteration | str:
    """How the range-for binds each element, or why it is refused."""
    tnode, decl = loop.child_by_field_name("type"), loop.child_by_field_name("declarator")
    body = loop.child_by_field_name("body")
    if tnode is None or decl is None or body is None or \
            loop.child_by_field_name("initializer") is not None:
        return "has an unusual header"
    if tnode.type != "placeholder_type_specifier" or node_text(tnode) != "auto":
        return "names the element type instead of `auto`"
    quals = [node_text(c) for c in loop.children if c.type == "type_qualifier"]
    if any(q != "const" for q in quals):
        return "binds the element volatile"
    reference = decl.type == "reference_declarator"
    inner = next((c for c in decl.named_children), None) if reference else decl
    bound: list[str]
    key = value = pair = None
    if inner is not None and inner.type == "identifier":
        pair = node_text(inner)
        bound = [pair]
    elif inner is not None and inner.type == "structured_binding_declarator":
        parts = [c for c in inner.named_children if c.type != "comment"]
        if len(parts) != 2 or any(p.type != "identifier" for p in parts):
            return "binds the element oddly"
        key, value = node_text(parts[0]), node_text(parts[1])
        bound = [key, value]
    else:
        return "binds the element oddly"
    inside = list(walk(body))
    if any(n.type == "lambda_expression" for n in inside):
        return "holds a lambda"
    if any(n.type == "identifier" and node_text(n) == name for n in inside):
        return "uses the map inside (it may insert while iterating)"
    for n in inside:
        if n.type in ("declaration", "for_range_loop", "parameter_declaration") and any(
                declared in bound for declared in _declared_names(facts, n)):
            return "declares one of its bound names again"
        if n.type == "pointer_expression" and operator(n) == "&" and \
                node_text(n.child_by_field_name("argument")) in bound:
            return "takes the address of an element"
    firsts: list[Node] = []
    seconds: list[Node] = []
    if pair is not None:
        for n in inside:
            if n.type != "identifier" or node_text(n) != pair:
                continue
            f = n.parent
            field = f.child_by_field_name("field") if f is not None else None
            if f is None or f.type != "field_expression" or operator(f) != "." or \
                    not _same(f.child_by_field_name("argument"), n) or field is None or \
                    node_text(field) not in ("first", "second"):
                return f"uses `{pair}` other than as `{pair}.first` or `{pair}.second`"
            (firsts if node_text(field) == "first" else seconds).append(f)
    return Iteration(loop, key, value, pair, tuple(firsts), tuple(seconds), reference,
                     "const" in quals)


def _declared_names(facts: FunctionFacts, n: Node) -> list[str]:
    if n.type == "declaration":
        return [v.name for v in facts.local_vars(n)]
    if n.type == "for_range_loop":
        d = n.child_by_field_name("declarator")
        return [node_text(i) for i in walk(d) if i.type == "identifier"] if d is not None else []
    found = declarator_name(n.child_by_field_name("declarator"))
    return [found] if found else []


def integral_expression(e: Node, types: Mapping[str, VarType | None],
                        facts: FunctionFacts) -> bool:
    """Whether ``e`` has an integer (or ``bool``) type, by its syntax and declared types (a
    range-for variable by its loop): converting it to ``unsigned char`` is then the same as
    converting it to a one-byte key type first (both reduce it modulo 256)."""
    if e.type == "parenthesized_expression":
        inner = [c for c in e.named_children if c.type != "comment"]
        return len(inner) == 1 and integral_expression(inner[0], types, facts)
    if e.type == "number_literal":
        return bool(_INTEGRAL_LITERAL.match(node_text(e)))
    if e.type in ("char_literal", "true", "false"):
        return True
    if e.type == "identifier":
        vt = types.get(node_text(e))
        if vt is None and node_text(e) not in _declared_locals(facts):
            element = _range_for_element(e, types)
            return element is not None and integral_expression_type(element)
        return vt is not None and not vt.pointer and not vt.array and \
            integral_expression_type(vt.base)
    if e.type == "unary_expression":
        arg = e.child_by_field_name("argument")
        return operator(e) == "!" or (operator(e) in ("-", "+", "~") and arg is not None and
                                      integral_expression(arg, types, facts))
    if e.type == "binary_expression":
        if operator(e) in _BOOL_OPS:
            return True
        left, right = e.child_by_field_name("left"), e.child_by_field_name("right")
        return operator(e) in _ARITH_OPS and left is not None and right is not None and \
            integral_expression(left, types, facts) and integral_expression(right, types, facts)
    if e.type == "subscript_expression":
        base = e.child_by_field_name("argument")
        vt = types.get(node_text(base)) if base is not None and base.type == "identifier" else None
        if vt is None:
            return False
        if vt.pointer == 1 or (vt.array and not vt.pointer):
            return integral_expression_type(vt.base)
        el = vt.element
        return not vt.pointer and (" ".join(vt.base.replace("const", "").split()) in _STRINGS
                                   or (el is not None and integral_expression_type(el.base)))
    if e.type == "cast_expression":
        t = e.child_by_field_name("type")
        return t is not None and integral_expression_type(node_text(t))
    return False


def integral_expression_type(t: str) -> bool:
    """An integer type name (``bool`` and the character types included)."""
    plain = " ".join(t.replace("const", "").split())
    return arithmetic_type(plain) and not any(w in ("float", "double") for w in plain.split())


def _declared_locals(facts: FunctionFacts) -> frozenset[str]:
    """Names the function's parameters and declarations declare (range-for variables not)."""
    return frozenset({p.name for p in facts.site.params} | {
        v.name for d in facts.nodes("declaration") for v in facts.local_vars(d)})


def _range_for_element(e: Node, types: Mapping[str, VarType | None]) -> str | None:
    """The type of the range-for variable ``e`` names, from the loop around it: as written,
    or for ``auto`` the element type of a string or vector it runs over."""
    name = node_text(e)
    prev, cur = e, e.parent
    while cur is not None:
        if cur.type == "for_range_loop" and _same(cur.child_by_field_name("body"), prev) and \
                declarator_name(cur.child_by_field_name("declarator")) == name:
            written = node_text(cur.child_by_field_name("type"))
            if written != "auto":
                return written
            right = cur.child_by_field_name("right")
            vt = types.get(node_text(right)) if right is not None and right.type == "identifier" \
                else None
            if vt is None or vt.pointer or vt.array:
                return None
            if " ".join(vt.base.replace("const", "").split()) in _STRINGS:
                return "char"
            el = vt.element
            return el.base if el is not None else None
        prev, cur = cur, cur.parent
    return None
