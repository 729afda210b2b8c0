"""The capability policy: what a candidate may use, checked on its syntax tree before any build.

A candidate may use what the original already uses, plus pure standard facilities. It may not
add process control, files or streams the original does not use, sockets, the environment,
dynamic loading, clocks, threads, inline assembly, load-time code (constructor attributes,
global initialisers), includes outside the standard headers (by exact name), pragmas other than
loop and OpenMP ones, macro definitions, volatile, or state that outlives a call (statics other
than constant tables). A name the candidate declares excuses a capability's name only within
the scope of its declaration (``runner/decl_scopes.py``). Names are allowed from lists (see
``capability_lists``), not only denied, so an unknown function is refused too.

Pure and fast: one tree-sitter parse of the candidate and one of the original.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

import tree_sitter

from perfpilot.code.callees import direct_callees
from perfpilot.code.parse import parse
from perfpilot.code.site import FunctionSite, Language
from perfpilot.code.syntax import (
    node_text,
    walk,
)
from perfpilot.runner import capability_lists as L
from perfpilot.runner.decl_scopes import Span, class_bodies, visibility
from perfpilot.runner.static_state import (
    STATIC_WORDS,
    constant_table,
    literal_types,
    qualifier_words,
)


@dataclass(frozen=True)
class Violation:
    """One construct the policy refuses: where (1-based line of the candidate) and why."""

    line: int
    construct: str
    reason: str

    def describe(self) -> str:
        """``line 3: `system` (process control) ...`` for messages."""
        return f"line {self.line}: `{self.construct}` — {self.reason}"


_STRINGS = frozenset({"string_literal", "raw_string_literal", "char_literal",
                      "system_lib_string", "concatenated_string", "comment"})
# A name, never the tail of a number (`0x7f`, `1.0f`, `2e5`) or a member after a dot.
_IDENT = re.compile(r"(?<![\w.])[A-Za-z_][A-Za-z0-9_]*")
_TRIGRAPH = re.compile(r"\?\?[=/'()!<>\-]")
_PATHISH = re.compile(r"(^|[^\w.])/(proc|sys|dev|etc|root|home|run|var|tmp|boot|usr)(/|$)|"
                      r"\.\./|^~|\.incbin|\.include|\.section|\.init_array")
# Where a node declares a name: the parent's type and the field that holds the name.
_DECLARING = {
    **dict.fromkeys(("declaration", "init_declarator", "pointer_declarator", "array_declarator",
                     "parameter_declaration", "optional_parameter_declaration",
                     "field_declaration", "type_definition", "for_range_loop",
                     "variadic_parameter_declaration"), "declarator"),
    **dict.fromkeys(("struct_specifier", "class_specifier", "union_specifier", "enum_specifier",
                     "enumerator", "namespace_definition", "alias_declaration",
                     "type_parameter_declaration", "optional_type_parameter_declaration",
                     "concept_definition"), "name"),
    "labeled_statement": "label",
}
_ASM = frozenset({"asm", "__asm__", "__asm"})
_LOAD_TIME = frozenset({"constructor", "destructor", "section", "alias", "ifunc", "weak",
                        "weakref", "visibility", "used", "naked", "cleanup", "init_priority",
                        "symver", "copy", "externally_visible", "no_instrument_function",
                        "__constructor__", "__destructor__", "__section__", "__alias__",
                        "__ifunc__", "__weak__", "__used__", "__cleanup__"})


@dataclass(frozen=True)
class _Code:
    """One piece of source: its tokens outside strings and comments, its tree, its lines."""

    text: str
    tree: tree_sitter.Tree
    nodes: tuple[tree_sitter.Node, ...]  # every node, in source order (one walk)
    blanked: str  # the text with strings, comments and directive arguments blanked

    @property
    def data(self) -> bytes:
        return self.text.encode("utf-8")

    def line_of(self, byte: int) -> int:
        return self.data.count(b"\n", 0, byte) + 1

    def tokens(self) -> frozenset[str]:
        return frozenset(_IDENT.findall(self.blanked))


def _walk(root: tree_sitter.Node) -> tuple[tree_sitter.Node, ...]:
    """Every node under ``root`` in pre-order, walked with a cursor (large units are walked
    once per check, so this is the policy's main cost)."""
    out: list[tree_sitter.Node] = []
    cursor = root.walk()
    while True:
        node = cursor.node
        if node is not None:
            out.append(node)
        if cursor.goto_first_child():
            continue
        while not cursor.goto_next_sibling():
            if not cursor.goto_parent():
                return tuple(out)


def _blank(data: bytes, nodes: tuple[tree_sitter.Node, ...]) -> str:
    """``data`` with string, comment, pragma/include argument and attribute bytes replaced by
    spaces (newlines kept, so byte offsets and lines still match)."""
    out = bytearray(data)
    for node in nodes:
        blank = node.type in _STRINGS or node.type in ("preproc_arg", "attribute_specifier",
                                                       "attribute_declaration")
        if node.type == "preproc_include":
            blank = True
        if blank:
            start, end = node.start_byte, node.end_byte
            out[start:end] = bytes(0x0A if b == 0x0A else 0x20 for b in out[start:end])
    return out.decode("utf-8", "replace")


def _code(text: str, language: Language) -> _Code:
    tree = parse(text, language)
    nodes = _walk(tree.root_node)
    return _Code(text, tree, nodes, _blank(text.encode("utf-8"), nodes))


@lru_cache(maxsize=64)
def _baseline(function_text: str, unit_text: str, language: Language) -> _Baseline:
    return _Baseline.of(function_text, unit_text, language)


@dataclass(frozen=True)
class _Baseline:
    """What the original already uses: its names, channels, directives and declarations."""

    function_tokens: frozenset[str]
    unit_tokens: frozenset[str]
    channels: frozenset[str]
    directives: frozenset[str]
    declarations: frozenset[str]
    has_asm: frozenset[str]
    literals: frozenset[str]
    fn_pointers: bool  # the original unit already declares or casts to function pointers
    globals_unused: frozenset[str]  # the unit's mutable globals the function does not use
    mutable_statics: bool
    has_errors: bool
    literal_types: frozenset[str]  # the unit's enumerations and plain structs of numbers
    constants: frozenset[str]  # names the unit declares const or constexpr, its enumerators

    @classmethod
    def of(cls, function_text: str, unit_text: str, language: Language) -> _Baseline:
        fn, unit = _code(function_text, language), _code(unit_text, language)
        ftoks = fn.tokens()
        channels = frozenset(L.CHANNEL_OF[t] for t in ftoks if t in L.CHANNEL_OF)
        directives = frozenset(_norm(node_text(n)) for n in unit.nodes
                               if n.type.startswith("preproc_") and n.type not in (
                                   "preproc_arg", "preproc_directive", "preproc_if",
                                   "preproc_ifdef", "preproc_else", "preproc_elif"))
        decls = frozenset(_norm(node_text(n)) for n in unit.nodes
                          if n.type in ("declaration", "linkage_specification",
                                        "field_declaration"))
        asm = frozenset(_norm(node_text(n)) for n in fn.nodes
                        if n.type == "gnu_asm_expression")
        literals = frozenset(node_text(n) for n in unit.nodes
                             if n.type in ("string_literal", "raw_string_literal"))
        fn_pointers = any(_function_pointer(n) for n in unit.nodes)
        globals_unused = _unit_globals(unit.nodes) - ftoks
        return cls(ftoks, unit.tokens(), channels, directives, decls, asm, literals,
                   fn_pointers, globals_unused,
                   any(_mutable_static(n) for n in fn.nodes
                       if n.type == "declaration"),
                   fn.tree.root_node.has_error, literal_types(unit.nodes),
                   _constant_names(unit.nodes))


_CASTS = frozenset({"static_cast", "const_cast", "reinterpret_cast", "dynamic_cast"})
_STATE_REASON = ("keeps state between calls, so it can remember an earlier call's answer: "
                 "only constant tables may be static or global (const or constexpr numbers, "
                 "characters, arrays or plain structs of them, with constant initialisers; "
                 "no pointers, containers, smart pointers or mutable members)")


def _function_pointer(node: tree_sitter.Node) -> bool:
    """Whether ``node`` spells a pointer-to-function type: ``int (*f)(int)``, the type of a
    cast ``(int (*)(int))``. ``std::function<int(int)>`` is not one."""
    if node.type not in ("function_declarator", "abstract_function_declarator"):
        return False
    inner = node.child_by_field_name("declarator")
    if inner is None:
        inner = next((c for c in node.named_children if c.type.endswith("declarator")), None)
    return inner is not None and inner.type in ("parenthesized_declarator",
                                                "abstract_parenthesized_declarator")


def _unit_globals(nodes: tuple[tree_sitter.Node, ...]) -> frozenset[str]:
    """Names of mutable variables the unit declares at file or namespace scope."""
    names: set[str] = set()
    for node in nodes:
        if node.type != "declaration" or node.parent is None \
                or node.parent.type not in ("translation_unit", "declaration_list"):
            continue
        words = {node_text(c) for c in node.children
                 if c.type in ("storage_class_specifier", "type_qualifier")}
        if words & {"const", "constexpr", "extern"}:
            continue
        for top in node.children_by_field_name("declarator"):
            decl: tree_sitter.Node | None = top
            while decl is not None and decl.type not in ("identifier", "function_declarator"):
                decl = decl.child_by_field_name("declarator")
            if decl is not None and decl.type == "identifier":
                names.add(node_text(decl))
    return frozenset(names)


def _constant_names(nodes: tuple[tree_sitter.Node, ...]) -> frozenset[str]:
    """Names declared ``const`` or ``constexpr`` (any scope), and enumerators: what a constant
    initialiser may refer to."""
    names: set[str] = set()
    for node in nodes:
        if node.type == "enumerator":
            name = node.child_by_field_name("name")
            if name is not None:
                names.add(node_text(name))
        elif node.type in ("declaration", "field_declaration") \
                and qualifier_words(node) & {"const", "constexpr"}:
            for top in node.children_by_field_name("declarator"):
                decl: tree_sitter.Node | None = top
                while decl is not None and decl.type not in ("identifier", "field_identifier"):
                    decl = decl.child_by_field_name("declarator")
                if decl is not None:
                    names.add(node_text(decl))
    return frozenset(names)


def _named_bodies(nodes: tuple[tree_sitter.Node, ...]) -> dict[str, list[Span]]:
    """The bodies of the named classes, enumerations and namespaces among ``nodes``."""
    out: dict[str, list[Span]] = {}
    for node in nodes:
        if node.type in ("struct_specifier", "class_specifier", "union_specifier",
                         "enum_specifier", "namespace_definition"):
            name, body = node.child_by_field_name("name"), node.child_by_field_name("body")
            if name is not None and body is not None:
                out.setdefault(node_text(name), []).append((body.start_byte, body.end_byte))
    return out


def _defined_functions(nodes: tuple[tree_sitter.Node, ...]) -> frozenset[str]:
    """Unqualified names of the free functions ``nodes`` define at namespace scope."""
    names: set[str] = set()
    for node in nodes:
        if node.type != "function_definition" or node.parent is None \
                or node.parent.type not in ("translation_unit", "declaration_list",
                                            "template_declaration"):
            continue
        decl = node.child_by_field_name("declarator")
        while decl is not None and decl.type != "function_declarator":
            decl = decl.child_by_field_name("declarator")
        name = decl.child_by_field_name("declarator") if decl is not None else None
        if name is not None and name.type == "identifier":
            names.add(node_text(name))
    return frozenset(names)


def _member_of_own_class(node: tree_sitter.Node) -> bool:
    """Whether a function definition sits in the body of a class the code defines (outside
    any reserved namespace): a member is reached only through its class, it replaces no
    library function."""
    parent = node.parent
    if parent is not None and parent.type == "template_declaration":
        parent = parent.parent
    if parent is None or parent.type != "field_declaration_list":
        return False
    while parent is not None:
        if parent.type == "namespace_definition":
            name = parent.child_by_field_name("name")
            if name is not None and (node_text(name) == "std" or node_text(name).startswith("_")):
                return False
        parent = parent.parent
    return True


def _member_declarator(declarator: tree_sitter.Node) -> bool:
    """Whether a function declarator declares a member function inside its class."""
    return declarator.parent is not None and declarator.parent.type == "field_declaration"


def _norm(text: str) -> str:
    return " ".join(text.split())


def _mutable_static(decl: tree_sitter.Node) -> bool:
    words = {node_text(c) for c in decl.children
             if c.type in ("storage_class_specifier", "type_qualifier")}
    return bool(words & {"static", "thread_local", "_Thread_local", "__thread"}) \
        and not words & {"const", "constexpr"}


def _category(name: str) -> str | None:
    for label, names in L.CATEGORIES:
        if name in names:
            return label
    if L.EXEC.match(name):
        return "process control"
    return None


class _Checker:
    """One check of one candidate against one baseline (collects violations)."""

    def __init__(self, cand: _Code, base: _Baseline, language: Language,
                 keep_from_unit: bool, program: bool) -> None:
        self.cand, self.base, self.language = cand, base, language
        # A whole program runs once per process: static state cannot carry answers across
        # calls of the measured function there.
        self.program = program
        # Names of capabilities the candidate may keep: the function's, or the unit's when
        # the candidate is a whole unit.
        self.keep = base.unit_tokens if keep_from_unit else base.function_tokens
        self.out: list[Violation] = []
        self.approved: set[int] = set()  # byte offsets of tokens a call check allowed
        # Where each name the candidate declares is visible: a declaration excuses a
        # capability's name only where it is in scope.
        self.visible: dict[str, list[Span]] = {}
        self.declared_at: dict[str, list[int]] = {}
        self.bodies = _named_bodies(cand.nodes)
        # Functions the candidate defines: its own declarations of them (a helper declared
        # before the code that calls it) reach nothing the check does not see.
        self.defined = _defined_functions(cand.nodes)
        self.declared = self._declared_variables()
        self.literal_types = base.literal_types | literal_types(cand.nodes)
        self.constants = base.constants | _constant_names(cand.nodes)
        # Variables that look like function declarations count as names the candidate
        # declares, but never excuse a capability's name.
        self.objects = self._vexing_names()

    def add(self, byte: int, construct: str, reason: str) -> None:
        self.out.append(Violation(self.cand.line_of(byte), construct[:80], reason))

    # -- the parts of the check --------------------------------------------------------
    def run(self) -> list[Violation]:
        self._text_tricks()
        root = self.cand.tree.root_node
        if root.has_error and not self.base.has_errors:
            err = next((n for n in self.cand.nodes if n.is_error or n.is_missing), root)
            self.add(err.start_byte, node_text(err)[:40] or "?",
                     "the candidate does not parse, so its capabilities cannot be checked")
        for node in self.cand.nodes:
            self._node(node)
        self._tokens()
        seen: set[tuple[int, str]] = set()
        unique = []
        for v in sorted(self.out, key=lambda v: v.line):
            if (v.line, v.construct) not in seen:
                seen.add((v.line, v.construct))
                unique.append(v)
        return unique

    def _text_tricks(self) -> None:
        text = self.cand.text
        for m in _TRIGRAPH.finditer(self.cand.blanked):
            self.add(m.start(), m.group(), "trigraphs can hide preprocessor directives")
        if "%:" in self.cand.blanked:
            pos = self.cand.blanked.index("%:")
            self.add(pos, "%:", "the digraph for `#` can hide preprocessor directives")
        for m in re.finditer(r"\\\r?\n", text):
            line_start = text.rfind("\n", 0, m.start()) + 1
            logical = text[line_start:m.start()]
            while line_start > 1 and text[line_start - 2:line_start] == "\\\n":
                line_start = text.rfind("\n", 0, line_start - 2) + 1
                logical = text[line_start:m.start()]
            if not logical.lstrip().startswith("#"):
                self.add(m.start(), "\\", "a line splice outside a directive can join names "
                                          "the check would see apart")

    def _declared_variables(self) -> frozenset[str]:
        """Variables, parameters, fields, types and labels the candidate declares itself
        (functions it only declares are not: that is how a library function is reached)."""
        names: set[str] = set()
        end = len(self.cand.data)
        methods = class_bodies(self.cand.nodes)
        for node in self.cand.nodes:
            parent = node.parent
            if node.type not in ("identifier", "field_identifier", "type_identifier",
                                 "statement_identifier", "namespace_identifier") \
                    or parent is None:
                continue
            field = _DECLARING.get(parent.type)
            if parent.type in ("structured_binding_declarator", "reference_declarator") or (
                    field is not None
                    and any(node == c for c in parent.children_by_field_name(field))) or (
                    parent.type == "function_declarator"
                    and (self._defines(parent) or _member_declarator(parent)
                         or node_text(node) in self.defined)
                    and parent.child_by_field_name("declarator") == node):
                name = node_text(node)
                names.add(name)
                self.declared_at.setdefault(name, []).append(node.start_byte)
                span = visibility(node, end)
                self.visible.setdefault(name, []).extend([span, *methods.get(span, [])])
        return frozenset(names)

    def _own(self, name: str, pos: int, scope: list[str] | None) -> bool:
        """Whether the name at ``pos`` is one the candidate declares: unqualified, in the
        scope of its declaration; qualified (``Memo::last``), declared inside the body of the
        candidate's own type or namespace of that name. ``std::`` and ``::`` names never are."""
        if scope is not None:
            return scope[0] not in ("", "std") and any(
                start <= at < stop for at in self.declared_at.get(name, ())
                for start, stop in self.bodies.get(scope[-1], ()))
        return any(start <= pos < stop for start, stop in self.visible.get(name, ()))

    def _vexing(self, fdecl: tree_sitter.Node) -> bool:
        """Whether a block-scope ``T name(arg, ...)`` is a variable built from arguments that
        tree-sitter read as a function declaration (each "parameter" a bare known name)."""
        if fdecl.parent is None or fdecl.parent.type != "declaration" \
                or fdecl.parent.parent is None \
                or fdecl.parent.parent.type in ("translation_unit", "declaration_list"):
            return False
        params = fdecl.child_by_field_name("parameters")
        items = [p for p in (params.named_children if params is not None else [])
                 if p.type != "comment"]
        known = self.declared | self.base.unit_tokens
        return bool(items) and all(
            p.type == "parameter_declaration" and (
                (p.named_child_count == 1 and p.named_children[0].type == "type_identifier"
                 and node_text(p.named_children[0]) in known)
                or self._expression_argument(p)) for p in items)

    def _expression_argument(self, param: tree_sitter.Node) -> bool:
        """Whether a "parameter" can only be an expression, as C++ reads it: it spells a cast
        (``static_cast<T>(x)``: no type is named like that) or names a variable the candidate
        declares where a type would stand (``xs(n)`` with ``n`` a variable)."""
        stack = [param]
        while stack:
            node = stack.pop()
            if node.type == "template_type":
                name = node.child_by_field_name("name")
                if name is not None and node_text(name) in _CASTS:
                    return True
            if node.type == "type_identifier" and node_text(node) in self.declared:
                return True
            stack.extend(node.named_children)
        return False

    def _vexing_names(self) -> frozenset[str]:
        out = set()
        for n in self.cand.nodes:
            if n.type == "function_declarator" and self._vexing(n):
                name = n.child_by_field_name("declarator")
                if name is not None:
                    out.add(node_text(name))
        return frozenset(out)

    def _declares_own(self, node: tree_sitter.Node) -> bool:
        """Whether a declaration declares only functions the candidate itself defines."""
        names = [node_text(inner) for d in node.named_children
                 if d.type.endswith("declarator") for c in walk(d)
                 if c.type == "function_declarator"
                 and (inner := c.child_by_field_name("declarator")) is not None]
        return bool(names) and all(n in self.defined for n in names)

    @staticmethod
    def _defines(declarator: tree_sitter.Node) -> bool:
        """Whether a function declarator belongs to a definition (it has a body)."""
        node: tree_sitter.Node | None = declarator.parent
        while node is not None and node.type.endswith("declarator"):
            node = node.parent
        return node is not None and node.type == "function_definition"

    def _node(self, node: tree_sitter.Node) -> None:
        t = node.type
        if t == "preproc_include":
            self._include(node)
        elif t in ("preproc_def", "preproc_function_def", "preproc_undef"):
            if _norm(node_text(node)) not in self.base.directives:
                self.add(node.start_byte, node_text(node).split("\n")[0].strip(),
                         "macro definitions can rename anything the check looks for")
        elif t == "preproc_call":
            self._directive(node)
        elif t == "gnu_asm_expression" or (t in _ASM and node.child_count == 0):
            kept = t == "gnu_asm_expression" and _norm(node_text(node)) in self.base.has_asm
            inner = t != "gnu_asm_expression" and node.parent is not None \
                and node.parent.type == "gnu_asm_expression"
            if not kept and not inner:
                self.add(node.start_byte, node_text(node).split("(")[0].strip() or t,
                         "inline assembly can do anything, read files with .incbin")
        elif t in ("attribute_specifier", "attribute_declaration", "ms_declspec_modifier"):
            self._attributes(node)
        elif t in ("string_literal", "raw_string_literal", "char_literal"):
            self._literal(node)
        elif t == "call_expression":
            self._call(node)
        elif t == "declaration":
            self._declaration(node)
        elif t == "linkage_specification":
            if _norm(node_text(node)) not in self.base.declarations:
                self.add(node.start_byte, "extern \"C\"", "declaring external symbols reaches "
                         "functions the check cannot see")
        elif t == "function_definition":
            self._definition(node)
        elif _function_pointer(node) and not self.base.fn_pointers:
            self.add(node.start_byte, node_text(node)[:60], "a function pointer type can call "
                     "any address, past every name this check looks at")
        elif t == "field_declaration" and qualifier_words(node) & STATIC_WORDS \
                and not self.program and not any(
                    d.type == "function_declarator"
                    for d in node.children_by_field_name("declarator")) \
                and _norm(node_text(node)) not in self.base.declarations:
            self._static_state(node, _norm(node_text(node)))
        elif t == "type_qualifier" and node_text(node) == "volatile" \
                and "volatile" not in self.keep:
            self.add(node.start_byte, "volatile", "volatile accesses are not a speed-up the "
                     "original asked for, and defeat the comparison")

    def _include(self, node: tree_sitter.Node) -> None:
        path_node = node.child_by_field_name("path")
        spelled = _norm(node_text(path_node)) if path_node is not None else ""
        if path_node is None or path_node.type not in ("system_lib_string", "string_literal"):
            self.add(node.start_byte, node_text(node).strip(),
                     "only `#include <standard-header>` is allowed")
            return
        name = spelled[1:-1].strip()
        if name.startswith("/") or ".." in name.split("/") or "\\" in name:
            self.add(node.start_byte, f"#include {spelled}",
                     "an include by absolute or parent path can read any file")
            return
        if _norm(node_text(node)) in self.base.directives:
            return
        if path_node.type == "system_lib_string" and name in L.STANDARD_HEADERS:
            return
        self.add(node.start_byte, f"#include {spelled}",
                 "not a standard header, and the original does not include it")

    def _directive(self, node: tree_sitter.Node) -> None:
        directive = next((node_text(c) for c in node.children if c.type == "preproc_directive"),
                         "#")
        arg = next((node_text(c) for c in node.children if c.type == "preproc_arg"), "").strip()
        if _norm(node_text(node)) in self.base.directives:
            return
        if directive.replace(" ", "") == "#pragma":
            if not L.PRAGMAS.match(arg):
                self.add(node.start_byte, f"#pragma {arg}"[:60],
                         "only OpenMP and loop pragmas (unroll, ivdep) are allowed")
            return
        self.add(node.start_byte, directive, "this directive is not allowed in a candidate")

    def _attributes(self, node: tree_sitter.Node) -> None:
        if node.type == "ms_declspec_modifier":
            self.add(node.start_byte, "__declspec", "not an allowed attribute")
            return
        for n in walk(node):
            if n.type != "identifier" or n.parent is None:
                continue
            # The attribute's own name: first identifier of an argument_list item or attribute.
            parent = n.parent
            if parent.type == "attribute" and parent.child_by_field_name("name") not in (n, None):
                continue
            if parent.type == "attribute" and parent.child_by_field_name("prefix") == n:
                continue
            if parent.type not in ("attribute", "argument_list", "call_expression"):
                continue
            if parent.type == "call_expression" and parent.child_by_field_name("function") != n:
                continue
            if parent.type == "argument_list" and parent.parent is not None \
                    and parent.parent.type == "call_expression":
                continue
            name = node_text(n)
            if name in _LOAD_TIME or (name not in L.ATTRIBUTES and name not in self.keep):
                self.add(n.start_byte, f"__attribute__(({name}))" if node.type ==
                         "attribute_specifier" else f"[[{name}]]",
                         "this attribute runs code at load time or changes linkage"
                         if name in _LOAD_TIME else "not an allowed attribute")

    def _literal(self, node: tree_sitter.Node) -> None:
        text = node_text(node)
        if node.type == "char_literal" and (len(text) > 12 or "\n" in text):
            self.add(node.start_byte, text[:20], "not a character literal the compiler reads")
        if node.type == "string_literal" and "\n" in text:
            self.add(node.start_byte, text[:20], "a string literal cannot span lines")
        if node.type != "char_literal" and _PATHISH.search(text) \
                and text not in self.base.literals:
            self.add(node.start_byte, text[:60], "names a system path or assembler directive")

    def _callee(self, node: tree_sitter.Node) -> tuple[str, list[str], tree_sitter.Node] | None:
        fn = node.child_by_field_name("function")
        if fn is None:
            return None
        if fn.type == "template_function":
            fn = fn.child_by_field_name("name") or fn
        if fn.type == "identifier":
            return node_text(fn), [], fn
        if fn.type == "qualified_identifier":
            parts = re.split(r"\s*::\s*", re.sub(r"<[^<>]*>", "", node_text(fn)))
            return parts[-1], parts[:-1], fn
        return None

    def _call(self, node: tree_sitter.Node) -> None:
        callee = self._callee(node)
        if callee is None:
            return
        name, _scope, fn = callee
        args = node.child_by_field_name("arguments")
        arg_nodes = [a for a in (args.named_children if args is not None else [])
                     if a.type != "comment"]
        if name == "_Pragma" or name == "__pragma":
            lit = node_text(arg_nodes[0]).strip('"') if arg_nodes else ""
            if not L.PRAGMAS.match(lit) and f'"{lit}"' not in self.base.literals:
                self.add(node.start_byte, f"_Pragma({lit})"[:60],
                         "only OpenMP and loop pragmas (unroll, ivdep) are allowed")
            self.approved.add(fn.end_byte - len(name))
            return
        if name == "remove" and len(arg_nodes) >= 3:
            self.approved.add(fn.end_byte - len(name))  # std::remove, the algorithm
            return
        if name in L.STREAM_FUNCTIONS and name not in self.keep:
            handles = {node_text(a) for a in arg_nodes}
            used = [L.STREAM_HANDLES[h] for h in handles if h in L.STREAM_HANDLES]
            if used and all(c in self.base.channels for c in used):
                self.approved.add(fn.end_byte - len(name))
                return
            self.add(fn.start_byte, name, "writes or reads a stream the original does not use")
            self.approved.add(fn.end_byte - len(name))

    def _declaration(self, node: tree_sitter.Node) -> None:
        text = _norm(node_text(node))
        words = {node_text(c) for c in node.children
                 if c.type in ("storage_class_specifier", "type_qualifier")}
        declares_function = any(
            c.type == "function_declarator" and not self._vexing(c)
            for d in node.named_children if d.type.endswith("declarator") for c in walk(d))
        if declares_function and "extern" not in words and self._declares_own(node):
            return
        if ("extern" in words or declares_function) and text not in self.base.declarations:
            self.add(node.start_byte, text[:60], "declaring an external function or variable "
                     "reaches code the check cannot see")
            return
        at_top = node.parent is not None and node.parent.type in (
            "translation_unit", "declaration_list", "linkage_specification")
        if text in self.base.declarations:
            return
        if at_top and not self.program and not words & {"constexpr", "const"}:
            self.add(node.start_byte, text[:60], "a global variable may run code when the "
                     "library loads and keeps state between calls")
        elif at_top and "constexpr" not in words \
                and any(n.type in ("call_expression", "lambda_expression")
                        for n in walk(node)):
            # (A constexpr initialiser is evaluated by the compiler: no code runs at load time,
            # which the compiled-code check confirms.)
            self.add(node.start_byte, text[:60], "a global initialiser runs code when the "
                     "library loads")
        elif (at_top or words & STATIC_WORDS) and not self.program:
            self._static_state(node, text)

    def _static_state(self, node: tree_sitter.Node, text: str) -> None:
        """Refuse a variable that outlives the call unless it is a constant table."""
        if _mutable_static(node) and self.base.mutable_statics:
            return  # the original function keeps state of its own
        if not constant_table(node, self.literal_types, self.constants):
            self.add(node.start_byte, text[:60], _STATE_REASON)

    def _definition(self, node: tree_sitter.Node) -> None:
        decl = node.child_by_field_name("declarator")
        while decl is not None and decl.type != "function_declarator":
            decl = decl.child_by_field_name("declarator")
        name_node = decl.child_by_field_name("declarator") if decl is not None else None
        if name_node is None:
            return
        name = node_text(name_node)
        last = re.split(r"::", name)[-1].strip()
        if name_node.type == "operator_name" or last.startswith("operator"):
            if ("new" in last or "delete" in last) and node.parent is not None \
                    and node.parent.type in ("translation_unit", "namespace_definition"):
                self.add(node.start_byte, last, "replacing the global allocator changes "
                             "the measuring process")
            return
        if last in self.base.unit_tokens or _member_of_own_class(node):
            return
        if last in L.PURE_FUNCTIONS or _category(last) is not None \
                or last.startswith("_") or last == "main" or last in L.STREAM_FUNCTIONS \
                or last in L.CHANNEL_OF:
            self.add(name_node.start_byte, last, "defining a library function's name replaces "
                     "it in the measuring process")

    # -- names -------------------------------------------------------------------------
    def _tokens(self) -> None:
        blanked = self.cand.blanked
        for m in _IDENT.finditer(blanked):
            name, pos = m.group(), m.start()
            before = blanked[max(0, pos - 64):pos].rstrip()
            if before.endswith((".", "->")) or pos in self.approved:
                continue  # a member: its object's type was checked where it was declared
            scope = _scope_before(blanked, pos)
            self._name(name, scope, pos)

    def _name(self, name: str, scope: list[str] | None, pos: int) -> None:
        global_qualified = scope == [""]
        in_std = scope is not None and len(scope) >= 1 and scope[0] in ("std", "")
        if name in L.KEYWORDS and name not in _ASM and name != "volatile":
            return
        category = _category(name)
        if name in L.CHANNEL_OF or name in L.STREAM_HANDLES:
            channel = L.CHANNEL_OF.get(name) or L.STREAM_HANDLES[name]
            if _UNTIE.match(self.cand.blanked, pos + len(name)):
                return  # `cin.tie(nullptr)`: stream set-up, it reads nothing
            if channel not in self.base.channels and name not in self.keep:
                self.add(pos, name, f"uses {channel}, which the original does not")
            return
        if name in L.STREAM_FUNCTIONS and name not in self.keep:
            self.add(pos, name, "a stream function the original does not use")
            return
        if category is not None and name not in self.keep:
            if self._own(name, pos, scope) and name not in L.FILES \
                    .intersection({"ofstream", "ifstream", "fstream", "filesystem"}):
                return  # the candidate's own variable of that name, where it is in scope
            self.add(pos, name, f"{category}: the original does not use it")
            return
        if name in L.RESERVED_DENIED:
            self.add(pos, name, "reveals the build machine's paths or time")
            return
        if name.startswith("__") or (name.startswith("_") and name[1:2].isupper()):
            if name not in L.RESERVED_ALLOWED and not L.RESERVED_PATTERNS.match(name) \
                    and name not in self.base.unit_tokens:
                self.add(pos, name, "a name reserved for the implementation, not a pure "
                         "standard facility")
            return
        if name in self.base.globals_unused and not self._own(name, pos, scope) \
                and not self.program and scope is None:
            self.add(pos, name, "a global the original function does not use can keep state "
                     "between calls")
            return
        if name in L.C_FUNCTIONS and not self._own(name, pos, scope) and name not in self.keep \
                and name not in self.base.unit_tokens \
                and not _is_called(self.cand.blanked, pos + len(name)):
            self.add(pos, name, "taking a library function's address is a step to any other "
                     "function in that library")
            return
        if name in L.INTRINSIC_DENIED:
            self.add(pos, name, "changes processor state beyond the computation")
            return
        if scope is not None and not global_qualified and (
                in_std or scope[0] in self.base.unit_tokens or scope[0] in self.declared):
            return  # std:: (denied names were refused above) or the unit's own scopes
        if self._own(name, pos, scope) or name in self.objects or name in self.base.unit_tokens \
                or name in L.PURE_FUNCTIONS \
                or name in L.PURE_TYPES or name in L.STREAM_SETUP or L.INT_TYPE.match(name) \
                or L.INTRINSIC.match(name):
            return
        if L.CONSTANT.match(name):
            if _is_called(self.cand.blanked, pos + len(name)) \
                    and not L.PURE_MACRO_CALLS.match(name):
                self.add(pos, name, "a macro call the original does not use")
            return
        self.add(pos, name, "neither used by the original nor a pure standard facility")


def _scope_before(blanked: str, pos: int) -> list[str] | None:
    """The qualifier chain before a name (``['std', 'chrono']``), ``['']`` for ``::name``, or
    None when the name is unqualified."""
    chain: list[str] = []
    i = pos
    while True:
        j = i
        while j > 0 and blanked[j - 1] in " \t\n":
            j -= 1
        if blanked[max(0, j - 2):j] != "::":
            break
        k = j - 2
        while k > 0 and blanked[k - 1] in " \t\n":
            k -= 1
        # Skip template arguments: std::vector<int>::iterator.
        if k > 0 and blanked[k - 1] == ">":
            depth = 0
            while k > 0:
                k -= 1
                if blanked[k] == ">":
                    depth += 1
                elif blanked[k] == "<":
                    depth -= 1
                    if depth == 0:
                        break
        end = k
        while k > 0 and (blanked[k - 1].isalnum() or blanked[k - 1] == "_"):
            k -= 1
        chain.insert(0, blanked[k:end])
        if not blanked[k:end]:
            break
        i = k
    return chain or None


_UNTIE = re.compile(r"\s*\.\s*tie\s*\(")
_CALL_AFTER = re.compile(r"\s*(<[^;{}()]*>)?\s*\(")


def _is_called(blanked: str, end: int) -> bool:
    """Whether the name ending at ``end`` is called (``f(``, ``f<int>(``)."""
    return _CALL_AFTER.match(blanked, end) is not None


def check_candidate(original: FunctionSite, candidate: str, includes: tuple[str, ...] = (),
                    *, whole_unit: bool = False) -> tuple[Violation, ...]:
    """The constructs of ``candidate`` (the new function text, or with ``whole_unit`` the new
    translation unit) that the policy refuses, in line order; empty when it may be built.

    ``includes`` are headers the candidate asks to add to the unit (``<vector>``). A candidate
    that defines more than one function carries rewritten copies of functions the original
    calls directly (``code/callees.py``): the original already reaches what those use, so
    their text counts as the original's.
    """
    cand = _code(candidate, original.language)
    function_text = original.text
    if not whole_unit and sum(n.type in ("function_definition", "template_declaration")
                              for n in cand.tree.root_node.named_children) > 1:
        function_text = "\n".join((original.text, *(c.site.text for c in direct_callees(
            original) if c.site is not None)))
    base = _baseline(function_text if not whole_unit else original.unit_text,
                     original.unit_text, original.language)
    header = "".join(f"#include {h}\n" for h in includes)
    program = original.name == "main"
    found = _Checker(cand, base, original.language, whole_unit, program).run()
    if header:
        head = _Checker(_code(header, original.language), base, original.language, whole_unit,
                        program)
        for v in head.run():
            found.append(Violation(0, v.construct, v.reason))
    return tuple(found)


def describe(violations: tuple[Violation, ...], limit: int = 3) -> str:
    """One sentence naming the first few violations."""
    parts = [v.describe() if v.line > 0 else f"`{v.construct}` — {v.reason}"
             for v in violations[:limit]]
    more = len(violations) - limit
    return "; ".join(parts) + (f"; and {more} more" if more > 0 else "")
