"""Copies in a loop that could be const references: ``T x = src;`` or ``for (T x : range)``.

A local copy of a container, string or plain struct made on every iteration and only read may
become ``const T&`` when the program cannot tell the difference. ``prove`` decides it:

- the copy is only read for its whole lifetime (``_copy_uses``): every mention is a read of it,
  of an element, or of a value a const member returns; no assignment, increment, non-const
  member, address, ``std::move``, return, throw, lambda, or call that may take it by
  non-const reference (an unknown callee refuses);
- the source cannot change while the copy lives (``source_unchanged``): nothing in the scope
  writes the source's variable or any variable that is not a local owning its own storage (a
  reference, pointer, parameter or global may alias the source), and no call may run unknown
  code;
- the source is an lvalue of exactly the declared type (``source_type``): a variable, an
  element ``a[i]``, ``a.at(i)``, ``a.front()``, ``a.back()``, or an element of a range; a
  conversion (``std::string s = cstr;``) is refused;
- the type is a class whose copy does nothing observable but copy (``costly_type``): a standard
  container or string of plain types, or a struct of such members with no constructor,
  destructor or assignment of its own.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from perfpilot.code.declarations import VarType
from perfpilot.code.effects import (
    CONST_METHODS,
    COPIES_ITS_ARGUMENTS,
    ELEMENT_METHODS,
    NEVER_WRITES_MEMORY,
    NO_SIDE_EFFECTS,
    OWN_CHANGES,
    POSITION_METHODS,
    READS_ITS_RANGES_ONLY,
)
from perfpilot.code.facts import FunctionFacts
from perfpilot.code.parse import parse
from perfpilot.code.syntax import (
    Node,
    callee,
    declarator_name,
    node_text,
    operator,
    receiver,
    root_name,
    walk,
)

_SEQUENCES = frozenset({"vector", "deque", "array", "valarray", "list", "forward_list"})
_SETS = frozenset({"set", "multiset", "unordered_set", "unordered_multiset"})
_MAPS = frozenset({"map", "multimap", "unordered_map", "unordered_multimap"})
_STRINGS = frozenset({"string", "wstring"})
_INDEXED = frozenset({"vector", "deque", "array", "valarray", "string", "wstring"})
_STD_CLASSES = _SEQUENCES | _SETS | _MAPS | _STRINGS | {"pair", "tuple", "less", "greater",
                                                         "hash", "equal_to"}
_SCALARS = frozenset({
    "char", "signed", "unsigned", "short", "int", "long", "float", "double", "bool", "size_t",
    "ptrdiff_t", "int8_t", "int16_t", "int32_t", "int64_t", "uint8_t", "uint16_t", "uint32_t",
    "uint64_t", "wchar_t",
})
# Algorithms that only read the ranges they are given (``copy`` and ``for_each`` may write
# through their output or function, so they are left out).
_READING_ALGORITHMS = READS_ITS_RANGES_ONLY - {"copy", "for_each"}
_VALUE_CALLS = NO_SIDE_EFFECTS | NEVER_WRITES_MEMORY | _READING_ALGORITHMS
# Reading algorithms whose result is a position in the range they are given.
_POSITION_ALGORITHMS = frozenset({
    "find", "find_if", "find_if_not", "min_element", "max_element", "minmax_element",
    "lower_bound", "upper_bound", "equal_range", "search", "mismatch",
})
# Of those, the ones that hand back a position or reference into an argument.
_INTO_ARGUMENT = frozenset({"begin", "end", "get", "data"})
_COMPARE = frozenset({"==", "!=", "<", ">", "<=", ">=", "-"})


@dataclass(frozen=True)
class UnitNames:
    """What the unit defines that the effect tables cannot speak for: its function names (a
    unit's own ``log`` is not the math one) and the operators it overloads."""

    functions: frozenset[str]
    operators: frozenset[str]


def unit_names(root: Node) -> UnitNames:
    """The function names the unit declares and the operator spellings it overloads."""
    functions: set[str] = set()
    operators: set[str] = set()
    for n in walk(root):
        if n.type == "operator_name":
            operators.add(re.sub(r"^operator\s*", "", node_text(n)).replace(" ", ""))
        elif n.type == "function_declarator":
            name = n.child_by_field_name("declarator")
            if name is not None:
                functions.add(re.sub(r"^.*::", "", node_text(name)))
    return UnitNames(frozenset(functions), frozenset(operators))


@dataclass(frozen=True)
class CopyProof:
    """A copy proved to be replaceable by a const reference: the name, its type as written,
    where ``const`` goes (before the type, when not const already) and where ``&`` goes
    (before the declared name)."""

    name: str
    type_text: str
    const_at: int | None
    amp_at: int
    node: Node  # the declaration or the range-based for loop


def normal(type_text: str) -> str:
    """A type's text with spaces, ``const`` and ``std::`` removed (for comparing types)."""
    t = re.sub(r"\bconst\b", "", type_text)
    t = re.sub(r"\bstd\s*::\s*", "", t)
    return re.sub(r"\s+", "", t)


def template_parts(type_text: str) -> tuple[str, list[str]]:
    """``vector<pair<int,int>>`` -> (``vector``, [``pair<int,int>``]), on normalized text."""
    t = normal(type_text)
    m = re.fullmatch(r"(\w+)<(.*)>", t)
    if m is None:
        return t, []
    args: list[str] = []
    depth, cur = 0, ""
    for ch in m.group(2):
        if ch == "," and depth == 0:
            args.append(cur)
            cur = ""
            continue
        depth += ch == "<"
        depth -= ch == ">"
        cur += ch
    args.append(cur)
    return m.group(1), args


def element_type(type_text: str, how: str) -> str | None:
    """The type of an element of a container type reached by ``how``: ``[]`` (subscript),
    ``at``, ``front``/``back`` or ``range`` (a range-based for); None when unknown."""
    head, args = template_parts(type_text)
    if head in _STRINGS:
        return "wchar_t" if head == "wstring" else "char"
    if not args:
        return None
    if how == "[]":
        return args[0] if head in _INDEXED else None
    if how == "at":
        return args[0] if head in _INDEXED else args[1] if head in ("map", "unordered_map") \
            else None
    if how in ("front", "back"):
        return args[0] if head in _SEQUENCES - {"valarray"} else None
    return args[0] if head in _SEQUENCES | _SETS else None


def source_type(facts: FunctionFacts, src: Node) -> tuple[str, str] | None:
    """The type of the lvalue ``src`` and its root variable, when ``src`` is a variable or a
    chain of subscripts, ``at``/``front``/``back`` calls on one; None otherwise."""
    while src.type == "parenthesized_expression" and src.named_child_count == 1:
        src = src.named_children[0]
    if src.type == "identifier":
        v = _known(facts, node_text(src))
        if v is None or v.pointer or v.array:
            return None
        return v.base, node_text(src)
    if src.type == "subscript_expression":
        arg = src.child_by_field_name("argument")
        if arg is None:
            return None
        if arg.type == "identifier":
            v = _known(facts, node_text(arg))
            if v is not None and (v.array or v.pointer == 1) and not (v.array and v.pointer):
                return v.base, node_text(arg)
        inner = source_type(facts, arg) if arg is not None else None
        if inner is None:
            return None
        el = element_type(inner[0], "[]")
        return (el, inner[1]) if el is not None else None
    if src.type == "call_expression":
        rcv = receiver(src)
        how = callee(src)
        if rcv is None or how not in ELEMENT_METHODS:
            return None
        fn = src.child_by_field_name("function")
        if fn is None or node_text(fn).find("->") >= 0:
            return None
        inner = source_type(facts, rcv)
        if inner is None:
            return None
        el = element_type(inner[0], how)
        return (el, inner[1]) if el is not None else None
    return None


def _known(facts: FunctionFacts, name: str) -> VarType | None:
    """The one declaration of ``name`` (None when declared twice with other types or never)."""
    if name not in facts.loop_types:
        return facts.global_vars.get(name)
    return facts.loop_types[name]


# --- the type ---------------------------------------------------------------------------------


def costly_type(facts: FunctionFacts, type_text: str) -> bool:
    """Whether ``type_text`` is a class whose copy allocates (a standard container or string,
    or a struct holding one) and does nothing observable but copy (every type named in it is
    standard or a plain struct of the unit)."""
    head, args = template_parts(type_text)
    if head in ("array", "valarray") and all(normal(a) in _SCALARS or a.isdigit() for a in args):
        return False  # a fixed block of numbers: cheap to copy, and a local copy may stay in
        # registers where a reference must be read through memory
    if head in _STD_CLASSES - {"pair", "tuple", "less", "greater", "hash", "equal_to"}:
        return _plain(facts, type_text, 0)
    struct = _struct(facts, head)
    return struct is not None and _plain(facts, head, 0) and any(
        template_parts(t)[0] in _STD_CLASSES - {"less", "greater", "hash", "equal_to"}
        for t in _fields(struct))


def _plain(facts: FunctionFacts, type_text: str, depth: int) -> bool:
    if depth > 4:
        return False
    for word in re.findall(r"[A-Za-z_]\w*", normal(type_text)):
        if word in _STD_CLASSES or word in _SCALARS:
            continue
        struct = _struct(facts, word)
        if struct is None or not all(_plain(facts, t, depth + 1) for t in _fields(struct)):
            return False
    return True


def _struct(facts: FunctionFacts, name: str) -> Node | None:
    """The unit's only definition of struct/class ``name`` when it holds data members only: no
    base, constructor, destructor, operator or other member function (whose effects on a
    copy would need proving)."""
    found = [n for n in walk(facts.unit)
             if n.type in ("struct_specifier", "class_specifier") and
             n.child_by_field_name("body") is not None and
             node_text(n.child_by_field_name("name")) == name]
    if len(found) != 1 or any(c.type == "base_class_clause" for c in found[0].children):
        return None
    body = found[0].child_by_field_name("body")
    assert body is not None
    if any(n.type in ("function_declarator", "operator_name", "destructor_name",
                      "function_definition", "template_declaration")
           for n in walk(body)):
        return None
    return found[0]


def _fields(struct: Node) -> list[str]:
    body = struct.child_by_field_name("body")
    out: list[str] = []
    for f in body.named_children if body is not None else []:
        if f.type == "field_declaration" and not any(
                c.type == "function_declarator" for c in f.named_children):
            ty = f.child_by_field_name("type")
            if ty is not None:
                out.append(node_text(ty))
    return out


# --- the copies -------------------------------------------------------------------------------


def loop_copies(facts: FunctionFacts) -> list[tuple[Node, CopyProof | str]]:
    """Every declaration in a loop and every range-based for loop that copies a class value,
    with its proof or, for a candidate refused, why in words."""
    out: list[tuple[Node, CopyProof | str]] = []
    unit = unit_names(facts.unit)
    for d in facts.in_loops("declaration"):
        if d.parent is not None and d.parent.type == "compound_statement":
            got = prove_declaration(facts, d, unit)
            if got is not None:
                out.append((d, got))
    for r in facts.nodes("for_range_loop"):
        got = prove_range_for(facts, r, unit)
        if got is not None:
            out.append((r, got))
    return out


def prove_declaration(facts: FunctionFacts, decl: Node, unit: UnitNames
                      ) -> CopyProof | str | None:
    """The proof for ``T x = src;`` (also ``T x(src);``, ``T x{src};``, ``auto x = src;``),
    why it is refused, or None when ``decl`` copies no class value."""
    type_node = decl.child_by_field_name("type")
    decls = [c for i, c in enumerate(decl.children)
             if decl.field_name_for_child(i) == "declarator"]
    if type_node is None or len(decls) != 1:
        return None
    d = decls[0]
    src: Node | None = None
    braces = False
    if d.type == "init_declarator":
        name_node = d.child_by_field_name("declarator")
        value = d.child_by_field_name("value")
        if value is None or name_node is None or name_node.type != "identifier":
            return None
        if value.type in ("initializer_list", "argument_list"):
            braces = value.type == "initializer_list"
            if value.named_child_count != 1:
                return None
            src = value.named_children[0]
        else:
            src = value
    elif d.type == "function_declarator":  # T x(src) parses like a function declaration
        name_node = d.child_by_field_name("declarator")
        params = d.child_by_field_name("parameters")
        if name_node is None or name_node.type != "identifier" or params is None:
            return None
        src = _expression(node_text(params)[1:-1])
    else:
        return None
    if src is None:
        return None
    auto = type_node.type == "placeholder_type_specifier"
    quals = [node_text(c) for c in decl.children if c.type in ("type_qualifier",
                                                          "storage_class_specifier")]
    got = source_type(facts, src)
    declared = node_text(type_node)
    if got is None:
        if not auto and costly_type(facts, declared):
            return "its initializer is not a variable or an element of one"
        return None
    src_type, root = got
    if not costly_type(facts, src_type if auto else declared):
        return None
    if any(q != "const" for q in quals):
        return "it is declared " + " ".join(q for q in quals if q != "const")
    if auto and (braces or node_text(type_node) != "auto"):
        return "an `auto` declaration other than `auto x = ...` or `auto x(...)`"
    if not auto and normal(declared) != normal(src_type):
        return f"its type `{declared}` is not the source's `{src_type}` (a conversion)"
    if braces and not _plain_braces(src_type):
        return "a braced initializer of a container of user types may pick another constructor"
    name = node_text(name_node)
    block = decl.parent
    assert block is not None
    why = _lifetime(facts, unit, name, root, decl.end_byte, block.end_byte - 1, block)
    if why:
        return why
    return CopyProof(name, declared, None if "const" in quals else decl.start_byte,
                     name_node.start_byte, decl)


def prove_range_for(facts: FunctionFacts, loop: Node, unit: UnitNames
                    ) -> CopyProof | str | None:
    """The proof for ``for (T x : range)`` with ``x`` a copy of each element, why it is
    refused, or None when the loop copies no class value."""
    type_node = loop.child_by_field_name("type")
    decl = loop.child_by_field_name("declarator")
    right = loop.child_by_field_name("right")
    body = loop.child_by_field_name("body")
    if type_node is None or decl is None or right is None or body is None or \
            decl.type != "identifier":
        return None
    auto = type_node.type == "placeholder_type_specifier"
    got = source_type(facts, right)
    if got is None:
        return None
    el = element_type(got[0], "range")
    if el is None:
        return None
    declared = node_text(type_node)
    if not costly_type(facts, el if auto else declared):
        return None
    quals = [node_text(c) for c in loop.children if c.type in ("type_qualifier",
                                                          "storage_class_specifier")]
    if any(q != "const" for q in quals):
        return "its variable is declared " + " ".join(q for q in quals if q != "const")
    if auto and declared != "auto":
        return "an `auto` loop variable other than `auto x`"
    if not auto and normal(declared) != normal(el):
        return f"its type `{declared}` is not the element's `{el}` (a conversion)"
    name = node_text(decl)
    why = _lifetime(facts, unit, name, got[1], body.start_byte, body.end_byte, body)
    if why:
        return why
    return CopyProof(name, declared, None if "const" in quals else type_node.start_byte,
                     decl.start_byte, loop)


def _plain_braces(type_text: str) -> bool:
    """Whether ``T x{src}`` with ``src`` of type ``T`` surely copies: no element type could be
    built from a ``T`` (standard containers of scalars and strings only)."""
    return all(w in _STD_CLASSES or w in _SCALARS
               for w in re.findall(r"[A-Za-z_]\w*", normal(type_text)))


def _expression(source: str) -> Node | None:
    """``source`` parsed as one expression (for ``T x(src)``, which parses as a declaration)."""
    tree = parse(f"void f() {{ ({source}); }}", "cpp")
    if tree.root_node.has_error:
        return None
    for n in walk(tree.root_node):
        if n.type == "parenthesized_expression":
            return n.named_children[0] if n.named_child_count == 1 else None
    return None


# --- the proof over the copy's lifetime -------------------------------------------------------


def _lifetime(facts: FunctionFacts, unit: UnitNames, name: str, root: str, start: int,
              end: int, scope: Node) -> str:
    """Why the copy ``name`` of an lvalue rooted at ``root`` cannot be a const reference over
    ``[start, end)``, or '' when it can."""
    if not any(lp.node.start_byte <= scope.start_byte and scope.end_byte <= lp.node.end_byte
               and lp.node.start_byte != scope.start_byte for lp in facts.loops):
        return "it is not inside a loop"
    for d in facts.nodes("declaration", scope):
        if d.start_byte >= start and any(v.name == name for v in facts.local_vars(d)):
            return f"`{name}` is declared again in its scope"
    for r in facts.nodes("for_range_loop", scope):
        if r.start_byte >= start and declarator_name(r.child_by_field_name("declarator")) == name:
            return f"`{name}` is declared again in its scope"
    return _copy_uses(unit, scope, name, start, end) or \
        source_unchanged(facts, unit, root, name, start, end, scope)


def _copy_uses(unit: UnitNames, scope: Node, name: str, start: int, end: int) -> str:
    for n in walk(scope):
        if n.type != "identifier" or node_text(n) != name or not start <= n.start_byte < end:
            continue
        why = _read_only(unit, n)
        if why:
            return why
    return ""


def _read_only(unit: UnitNames, ident: Node) -> str:
    """'' when this mention of the copy only reads it, else what it does."""
    for a in _ancestors(ident):
        if a.type == "lambda_expression":
            return "a lambda uses it"
        if a.type in ("function_definition",):
            break
    cur = ident
    kind = "object"  # "object": the copy or an element; "position": an iterator; "value"
    while True:
        p = cur.parent
        if p is None:
            return "it is used in a way not understood"
        if p.type == "parenthesized_expression":
            cur = p
            continue
        if kind != "value" and p.type == "subscript_expression" and \
                p.child_by_field_name("argument") == cur:
            cur, kind = p, "object"
            continue
        if p.type == "field_expression" and p.child_by_field_name("argument") == cur:
            call = p.parent
            field = node_text(p.child_by_field_name("field"))
            if kind == "value":
                return ""  # a member of a value a const member returned: not the copy
            if call is not None and call.type == "call_expression" and \
                    call.child_by_field_name("function") == p:
                if kind == "position":
                    return f"calls `{field}()` through a position in it"
                if field in ELEMENT_METHODS:
                    cur = call
                    continue
                if field not in CONST_METHODS:
                    return f"calls `{field}()` on it"
                cur, kind = call, "position" if field in POSITION_METHODS else "value"
                continue
            if kind == "position" and operator(p) != "->":
                return "it is used in a way not understood"
            cur, kind = p, "object"
            continue
        if p.type == "pointer_expression":
            if operator(p) == "*" and kind == "position":
                cur, kind = p, "object"
                continue
            if kind == "value":
                return ""
            return "takes its address" if operator(p) == "&" else "reads through it"
        if p.type == "conditional_expression" and p.child_by_field_name("condition") != cur:
            cur = p
            continue
        call = p.parent
        if p.type == "argument_list" and kind == "position" and call is not None and \
                call.type == "call_expression" and receiver(call) is None and \
                callee(call) in _POSITION_ALGORITHMS and callee(call) not in unit.functions:
            cur = call  # the result is a position in the copy too
            continue
        break
    return "" if kind == "value" else _context(unit, cur, p, kind)


def _context(unit: UnitNames, cur: Node, p: Node, kind: str) -> str:
    t = p.type
    if t in ("assignment_expression", "compound_assignment_expression"):
        return "assigns to it" if p.child_by_field_name("left") == cur else ""
    if t == "update_expression":
        return "increments or decrements it"
    if t in ("return_statement", "throw_statement"):
        return "returns or throws it"
    if t == "binary_expression":
        return "" if kind == "object" or operator(p) in _COMPARE else \
            "does arithmetic on a position in it"
    if t in ("unary_expression", "condition_clause", "conditional_expression",
             "expression_statement", "subscript_argument_list", "sizeof_expression"):
        return "" if kind == "object" else "keeps a position in it"
    if t == "cast_expression":
        return "casts it to a reference" if "&" in node_text(p.child_by_field_name("type")) or \
            kind != "object" else ""
    if t == "init_declarator":
        decl = p.parent
        target = p.child_by_field_name("declarator")
        if decl is None or target is None or p.child_by_field_name("value") != cur:
            return "it is used in a way not understood"
        if target.type == "identifier":
            ty = decl.child_by_field_name("type")
            if kind == "position" and (ty is None or ty.type == "placeholder_type_specifier" or
                                       "const_iterator" not in node_text(ty)):
                return "keeps a position in it"
            return ""
        return "binds a reference or pointer to it"
    if t == "argument_list":
        call = p.parent
        if call is None or call.type != "call_expression":
            return "it is used in a way not understood"
        name = callee(call)
        rcv = receiver(call)
        if rcv is None and name not in unit.functions and name in (
                _READING_ALGORITHMS if kind == "position" else _VALUE_CALLS - _INTO_ARGUMENT):
            return ""
        if rcv is not None and name in COPIES_ITS_ARGUMENTS:
            return ""
        return f"passes it to `{name}`, which may change it"
    if t == "for_range_loop" and p.child_by_field_name("right") == cur and kind == "object":
        decl = p.child_by_field_name("declarator")
        quals = " ".join(node_text(c) for c in p.children if c.type == "type_qualifier")
        if decl is not None and (decl.type == "identifier" or (
                decl.type == "reference_declarator" and "const" in quals and
                "&&" not in node_text(decl))):
            return ""
        return "a loop binds a modifiable reference to its elements"
    return "it is used in a way not understood"


def _ancestors(node: Node) -> list[Node]:
    out: list[Node] = []
    p = node.parent
    while p is not None:
        out.append(p)
        p = p.parent
    return out


def source_unchanged(facts: FunctionFacts, unit: UnitNames, root: str, name: str, start: int,
                     end: int, scope: Node, own: frozenset[str] = frozenset()) -> str:
    """'' when nothing over ``[start, end)`` may change what ``root`` holds (``own``: more
    names the caller has proved hold their own storage)."""
    for n in sorted(facts.modified_between(start, end) - {name} - (own - {root})):
        if n == root:
            return f"the source `{root}` changes while the copy lives"
        if not _owning_local(facts, n):
            return f"`{n}` changes while the copy lives and may share memory with `{root}`"
    for c in facts.nodes("call_expression", scope):
        if not start <= c.start_byte < end:
            continue
        name_c = callee(c)
        rcv = receiver(c)
        if rcv is None:
            if name_c not in _VALUE_CALLS or name_c in unit.functions:
                return f"it calls `{name_c}`, which may change the source"
            continue
        if rcv.type == "call_expression" and receiver(rcv) is not None and \
                callee(rcv) in CONST_METHODS - POSITION_METHODS - ELEMENT_METHODS:
            continue  # a method of a value a const member returned (``s.substr(1).size()``)
        owner = root_name(rcv)
        if owner == name:
            continue  # the copy's own uses are checked above
        if owner and name_c in OWN_CHANGES and _owning_local(facts, owner):
            continue  # a local that owns its storage holds nothing of the source
        ty = _declared_type(facts, owner) if owner else None
        if name_c in CONST_METHODS and ty is not None and (
                ty == "auto" or template_parts(ty)[0] in _STD_CLASSES):
            continue  # a standard const member (``auto``: a copy, reference or iterator)
        return f"it calls `{node_text(c.child_by_field_name('function'))}`, which may change " \
               "the source"
    for node in walk(scope):
        if not start <= node.start_byte < end:
            continue
        if node.type in ("new_expression", "delete_expression", "goto_statement"):
            return "it allocates, frees or jumps while the copy lives"
        if node.type in _OPERATOR_NODES and (operator(node) in unit.operators or (
                node.type == "subscript_expression" and "[]" in unit.operators)):
            return f"the unit overloads `{operator(node) or '[]'}`, which it uses while the " \
                   "copy lives"
    return ""


_OPERATOR_NODES = frozenset({
    "binary_expression", "unary_expression", "update_expression", "assignment_expression",
    "compound_assignment_expression", "subscript_expression",
})


def _declared_type(facts: FunctionFacts, name: str) -> str | None:
    """The base type ``name`` is declared with (a variable, or a range-based for variable
    declared once), None when unknown."""
    v = _known(facts, name)
    if v is not None:
        return normal(v.base)
    if any(v.name == name for d in facts.nodes("declaration") for v in facts.local_vars(d)):
        return None  # declared with two types
    types = {normal(node_text(r.child_by_field_name("type"))) for r in facts.nodes("for_range_loop")
             if declarator_name(r.child_by_field_name("declarator")) == name}
    return types.pop() if len(types) == 1 else None


def _owning_local(facts: FunctionFacts, name: str) -> bool:
    """A local that owns its storage: no reference, pointer or unknown type, so writing it
    changes no other variable."""
    v = _known(facts, name)
    if v is None or v.scope != "local" or v.pointer or v.reference:
        return False
    # the words of the type, kept apart (``unsigned long`` is two scalar words)
    words = re.findall(r"[A-Za-z_]\w*", re.sub(r"\bconst\b|\bstd\s*::", " ", v.base))
    return bool(words) and all(w in _SCALARS or w in _STD_CLASSES for w in words)
