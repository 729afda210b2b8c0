"""The functions of a unit that a function calls directly, and whether a rewrite may use them.

A thin caller spends its time in helpers of the same unit; the built-in planner analyses them
and the built-in optimizer rewrites a renamed copy of one, placed just above the caller, which
then calls the copy. That is sound only for a helper the caller reaches exactly by name, whose
copy means what the original means where the caller stands: a free function, neither a method
nor a template, whose name has one meaning in the unit (no overloads), defined before the caller
in the same scope (so everything it names is declared there too), keeping no static state of its
own (a copy would keep a second one), and whose address the caller never takes (the copy would
not change such a use). Each helper that fails one of these is reported with the reason.

Only direct calls count (depth 1), and only a few helpers of bounded size are returned.
"""

from __future__ import annotations

from dataclasses import dataclass

import tree_sitter

from perfpilot.code.locate import definition_name, definition_params, iter_function_nodes, site_of
from perfpilot.code.parse import parse
from perfpilot.code.site import FunctionSite
from perfpilot.code.syntax import (
    node_text,
    walk,
)

Node = tree_sitter.Node

# Helpers analysed per caller, and the size of each: the analysis must stay cheap.
MAX_CALLEES = 4
MAX_CALLEE_CHARS = 16_000

# Containers whose function children are defined at namespace scope.
_SCOPES = frozenset({"translation_unit", "namespace_definition", "declaration_list",
                     "linkage_specification", "preproc_if", "preproc_ifdef", "preproc_else",
                     "preproc_elif", "export_declaration"})


@dataclass(frozen=True)
class DirectCallee:
    """A function of the unit the caller calls directly by name.

    ``call_lines`` are the 1-based unit lines of the caller's calls to it; ``site`` is its
    definition, when a rewrite may use it; ``refusal`` says why not otherwise ("" when it may).
    """

    name: str
    call_lines: tuple[int, ...]
    site: FunctionSite | None = None
    refusal: str = ""

    @property
    def usable(self) -> bool:
        """Whether the callee may be analysed and rewritten as a copy."""
        return self.site is not None and not self.refusal


def outer_node(fn: Node) -> Node:
    """The node a definition spans: its ``template_declaration`` when it is a template."""
    parent = fn.parent
    return parent if parent is not None and parent.type == "template_declaration" else fn


def _target_node(root: Node, site: FunctionSite) -> Node | None:
    for fn in iter_function_nodes(root):
        if outer_node(fn).start_byte == site.start_byte:
            return fn
    return None


def direct_calls(fn: Node, name: str) -> tuple[list[Node], list[Node]]:
    """The ``call_expression`` nodes under ``fn`` that call ``name`` by its plain identifier,
    and every other ``identifier`` spelled ``name`` (its address taken, a local of that name,
    a qualified or member use)."""
    calls: list[Node] = []
    called: set[int] = set()
    for n in walk(fn):
        if n.type == "call_expression":
            f = n.child_by_field_name("function")
            if f is not None and f.type == "identifier" and node_text(f) == name:
                calls.append(n)
                called.add(f.start_byte)
    others = [n for n in walk(fn)
              if n.type == "identifier" and n.start_byte not in called and node_text(n) == name]
    return calls, others


def _plain_callees(fn: Node) -> list[str]:
    """Names called by a plain identifier under ``fn``, in source order, once each."""
    names: list[str] = []
    for n in walk(fn):
        if n.type == "call_expression":
            f = n.child_by_field_name("function")
            if f is not None and f.type == "identifier" and node_text(f) not in names:
                names.append(node_text(f))
    return names


def _param_types(node: Node) -> tuple[str, ...]:
    return tuple(" ".join(p.type_text.split()) for p in definition_params(node))


def _prototypes(root: Node, name: str) -> list[Node]:
    """Function declarations (prototypes) of ``name`` at namespace scope."""
    out: list[Node] = []
    stack = [root]
    while stack:
        node = stack.pop()
        for child in node.named_children:
            if child.type in _SCOPES:
                stack.append(child)
            elif child.type == "declaration":
                decl = child.child_by_field_name("declarator")
                while decl is not None and decl.type in ("pointer_declarator",
                                                         "reference_declarator"):
                    decl = decl.child_by_field_name("declarator")
                if decl is not None and decl.type == "function_declarator":
                    inner = decl.child_by_field_name("declarator")
                    if inner is not None and node_text(inner) == name:
                        out.append(child)
    return out


def _static_state(fn: Node) -> bool:
    """Whether the function declares a non-const ``static`` or thread-local local."""
    body = fn.child_by_field_name("body")
    for n in walk(body) if body is not None else ():
        if n.type != "declaration":
            continue
        words = {node_text(c) for c in n.children
                 if c.type in ("storage_class_specifier", "type_qualifier")}
        if words & {"static", "thread_local", "_Thread_local", "__thread"} \
                and not words & {"const", "constexpr"}:
            return True
    return False


def _refusal(name: str, target: Node, caller: str, defs: list[Node], root: Node,
             others: list[Node]) -> str:
    """Why the callee ``name`` (defined by ``defs``) may not be rewritten as a copy; "" when
    it may."""
    if len(defs) > 1:
        return f"`{name}` is defined {len(defs)} times in the unit (overloads or methods)"
    fn = defs[0]
    outer = outer_node(fn)
    if outer.type == "template_declaration":
        return f"`{name}` is a template"
    if any(a in ("class_specifier", "struct_specifier", "union_specifier")
           for a in _ancestors(fn)) or "::" in definition_name(fn):
        return f"`{name}` is a method"
    if outer.start_byte >= outer_node(target).start_byte:
        return f"`{name}` is defined after `{caller}`"
    scope, target_scope = outer.parent, outer_node(target).parent
    if scope is None or target_scope is None or scope.id != target_scope.id:
        return f"`{name}` is defined in another scope than `{caller}`"
    own = _param_types(fn)
    if any(_param_types(p) != own for p in _prototypes(root, name)):
        return f"`{name}` is overloaded"
    if others:
        return (f"`{caller}` uses `{name}` other than by calling it (its address is taken, or a "
                "local shadows it)")
    if fn.has_error:
        return f"`{name}` has syntax errors"
    if _static_state(fn):
        return f"`{name}` keeps static state, which a copy would not share"
    if outer.end_byte - outer.start_byte > MAX_CALLEE_CHARS:
        return f"`{name}` is too large to analyse as a callee"
    return ""


def _ancestors(node: Node) -> list[str]:
    out: list[str] = []
    parent = node.parent
    while parent is not None:
        out.append(parent.type)
        parent = parent.parent
    return out


def direct_callees(site: FunctionSite, root: Node | None = None,
                   limit: int = MAX_CALLEES) -> tuple[DirectCallee, ...]:
    """The functions of ``site``'s unit that ``site`` calls directly by name, in the order of
    their first call; library functions (not defined in the unit) and ``site`` itself are left
    out. At most ``limit`` are usable; those past it are refused as such.

    ``root``: the unit's parsed root (of exactly ``site.unit_text``), when the caller has it.
    """
    if root is None:
        root = parse(site.unit_text, site.language).root_node
    target = _target_node(root, site)
    if target is None:
        return ()
    by_name: dict[str, list[Node]] = {}
    for fn in iter_function_nodes(root):
        short = definition_name(fn).split("::")[-1].strip()
        by_name.setdefault(short, []).append(fn)
    out: list[DirectCallee] = []
    usable = 0
    for name in _plain_callees(target):
        defs = by_name.get(name)
        if not defs or name == site.name:
            continue
        calls, others = direct_calls(target, name)
        lines = tuple(dict.fromkeys(c.start_point[0] + 1 for c in calls))
        why = _refusal(name, target, site.name, defs, root, others)
        if not why and usable >= limit:
            why = f"only the first {limit} callees are analysed"
        if why:
            out.append(DirectCallee(name, lines, None, why))
            continue
        usable += 1
        out.append(DirectCallee(name, lines, site_of(defs[0], site.unit_text, site.language,
                                                     site.uri, site.version)))
    return tuple(out)


def caller_part(code: str, site: FunctionSite) -> tuple[str, str]:
    """A candidate's ``code`` for ``site`` split into what it puts before the function
    (copies of callees, a model's helpers) and the function's own definition: ``("", code)``
    when it is the definition alone."""
    data = code.encode("utf-8")
    root = parse(data, site.language).root_node
    for top in reversed(root.named_children):
        if top.type not in ("function_definition", "template_declaration"):
            continue
        fn = top if top.type == "function_definition" else next(
            (c for c in top.named_children if c.type == "function_definition"), top)
        if definition_name(fn).split("::")[-1].strip() == site.name:
            if not data[:top.start_byte].strip():
                return "", code
            return (data[:top.start_byte].decode("utf-8"),
                    data[top.start_byte:].decode("utf-8"))
    return "", code
