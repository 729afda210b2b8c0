"""Template arguments for a function template, so that the bench can call one instance of it.

The unit's own callers say which instances matter: an explicit ``f<int>(...)``, or a call
whose arguments' declared types determine the parameters (``std::vector<long> v; f(v)`` makes
``T = long`` for ``f(const std::vector<T>&)``). Without such a caller a type parameter used only
as an arithmetic element (never ``T::x``, never ``t.member``) gets ``int``, or ``double`` when the
function computes in floating point. Anything else needs a bench spec.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

import tree_sitter

from perfpilot.code.parse import parse
from perfpilot.code.site import FunctionSite
from perfpilot.code.syntax import (
    node_text,
    walk,
)
from perfpilot.runner.unit_types import Ty, parse_type


class TemplateUnresolved(Exception):
    """No template arguments could be chosen (the message says which parameter)."""


@dataclass(frozen=True)
class Instance:
    """A template site with its arguments chosen: ``site`` has them substituted into its
    parameters and return type; ``args`` are written out for the call (``f<int>``)."""

    site: FunctionSite
    args: tuple[str, ...]
    source: str  # how they were chosen, for messages ("the call on line 12", "int by default")


_FLOAT_HINT = re.compile(r"\b\d+\.\d*|\.\d+\b|\bstd::(sqrt|exp|log|pow|fabs|sin|cos)\b|"
                         r"\b(sqrt|exp|log|pow|fabs|sin|cos)\s*\(")


def _template_node(site: FunctionSite) -> tree_sitter.Node | None:
    root = parse(site.unit_text, site.language).root_node
    for n in walk(root):
        if n.type == "template_declaration" and n.start_byte == site.start_byte:
            return n
    return None


def _parameters(node: tree_sitter.Node) -> list[tuple[str, str, str]]:
    """(kind, name, default) for each template parameter: kind ``type``, ``value`` or
    ``other`` (packs, template template parameters)."""
    plist = node.child_by_field_name("parameters")
    out: list[tuple[str, str, str]] = []
    for p in plist.named_children if plist is not None else []:
        default = p.child_by_field_name("default_type") or p.child_by_field_name("default_value")
        dflt = node_text(default) if default is not None else ""
        if p.type in ("type_parameter_declaration", "optional_type_parameter_declaration"):
            name = p.child_by_field_name("name") or next(
                (c for c in p.named_children if c.type == "type_identifier"), None)
            out.append(("type", node_text(name) if name is not None else "", dflt))
        elif p.type in ("parameter_declaration", "optional_parameter_declaration"):
            decl = p.child_by_field_name("declarator")
            out.append(("value", node_text(decl) if decl is not None else "", dflt))
        else:
            out.append(("other", node_text(p), ""))
    return out


def ty_text(ty: Ty) -> str:
    """A parsed type written back (``std::vector<int>``)."""
    if not ty.args:
        return ty.name
    return f"{ty.name}<{', '.join(ty_text(a) for a in ty.args)}>"


def _unify(pattern: Ty, actual: Ty, names: set[str], out: dict[str, str]) -> bool:
    if pattern.name in names and not pattern.args:
        if actual.unknown or actual.indirect:
            return False
        text = ty_text(actual)
        return out.setdefault(pattern.name, text) == text
    if not pattern.args:
        return True
    if pattern.std_name != actual.std_name or len(pattern.args) != len(actual.args):
        return False
    return all(_unify(p, a, names, out) for p, a in zip(pattern.args, actual.args, strict=True))


def _literal_type(node: tree_sitter.Node) -> str | None:
    text = node_text(node)
    if node.type == "number_literal":
        low = text.lower()
        if low.startswith("0x"):
            return "long" if low.endswith("l") else "int"
        if any(c in low for c in ".e"):
            return "float" if low.endswith("f") else "double"
        if low.endswith("ull") or low.endswith("ul"):
            return "unsigned long"
        return "long" if low.endswith("l") else "int"
    if node.type == "char_literal":
        return "char"
    if node.type in ("true", "false"):
        return "bool"
    return None


def _declared_types(scope: tree_sitter.Node) -> dict[str, Ty]:
    """Variables and parameters declared in ``scope`` (and at file level), by name."""
    from perfpilot.code.locate import _param_from

    out: dict[str, Ty] = {}
    for n in walk(scope):
        if n.type in ("parameter_declaration", "optional_parameter_declaration"):
            p = _param_from(n, 0)
            if p.pointer == 0 and not p.array:
                out.setdefault(p.name, parse_type(p.base))
        elif n.type == "declaration":
            type_node = n.child_by_field_name("type")
            if type_node is None or node_text(type_node) == "auto":
                continue
            ty = parse_type(" ".join(node_text(type_node).split()))
            for i, child in enumerate(n.children):
                if n.field_name_for_child(i) != "declarator":
                    continue
                decl = child.child_by_field_name("declarator") \
                    if child.type == "init_declarator" else child
                if decl is not None and decl.type == "identifier":
                    out.setdefault(node_text(decl), ty)
    return out


def _enclosing_function(node: tree_sitter.Node) -> tree_sitter.Node:
    up = node.parent
    while up is not None and up.type != "function_definition":
        up = up.parent
    return up if up is not None else node


def _from_calls(site: FunctionSite, params: list[tuple[str, str, str]],
                root: tree_sitter.Node) -> tuple[dict[str, str], str] | None:
    names = {name for kind, name, _ in params if kind == "type"}
    order = [name for _, name, _ in params]
    best: tuple[dict[str, str], str] | None = None
    globals_ = _declared_types(root)
    for call in walk(root):
        if call.type != "call_expression" or site.start_byte <= call.start_byte < site.end_byte:
            continue
        fn = call.child_by_field_name("function")
        if fn is None:
            continue
        explicit: list[str] = []
        callee = fn
        if fn.type == "template_function":
            callee = fn.child_by_field_name("name") or fn
            targs = fn.child_by_field_name("arguments")
            explicit = [" ".join(node_text(a).split())
                        for a in (targs.named_children if targs is not None else [])]
        if node_text(callee).split("::")[-1] != site.name:
            continue
        chosen = dict(zip(order, explicit, strict=False))
        args = call.child_by_field_name("arguments")
        actuals = args.named_children if args is not None else []
        if len(actuals) != len(site.params):
            continue
        local = {**globals_, **_declared_types(_enclosing_function(call))}
        for p, arg in zip(site.params, actuals, strict=True):
            lit = _literal_type(arg)
            actual = parse_type(lit) if lit is not None else (
                local.get(node_text(arg)) if arg.type == "identifier" else None)
            if actual is None:
                continue
            _unify(parse_type(p.base), actual, names, chosen)
        if all(n in chosen for n in order):
            where = f"the call on line {call.start_point[0] + 1}"
            return chosen, where
        if best is None and chosen:
            best = (chosen, f"the call on line {call.start_point[0] + 1}")
    return best


def _arithmetic_only(site: FunctionSite, name: str) -> bool:
    """Whether type parameter ``name`` is used only as a value type: never ``T::x``, and no
    parameter of type T is used with ``.`` or ``->``."""
    text = site.text
    if re.search(rf"\b{re.escape(name)}\s*::", text):
        return False
    for p in site.params:
        if p.base == name and p.pointer == 0 and \
                re.search(rf"\b{re.escape(p.name)}\s*(\.|->)", text):
            return False
    return True


def _substitute(text: str, chosen: dict[str, str]) -> str:
    for name, value in chosen.items():
        text = re.sub(rf"\b{re.escape(name)}\b", value, text)
    return " ".join(text.replace("> >", ">>").split()) if chosen else text


def instantiate(site: FunctionSite) -> Instance:
    """Choose template arguments for a function template site; raise TemplateUnresolved."""
    node = _template_node(site)
    if node is None:
        raise TemplateUnresolved(f"the template parameters of '{site.name}' could not be read")
    params = _parameters(node)
    for kind, text, _ in params:
        if kind == "other":
            raise TemplateUnresolved(f"template parameter '{text}' is a pack or a template")
    root = parse(site.unit_text, site.language).root_node
    found = _from_calls(site, params, root)
    chosen, source = found if found is not None else ({}, "")
    defaults: list[str] = []
    for kind, name, default in params:
        if name in chosen:
            continue
        if default:
            chosen[name] = default
            continue
        if kind == "type" and _arithmetic_only(site, name):
            chosen[name] = "double" if _FLOAT_HINT.search(site.text) else "int"
            defaults.append(f"{name} = {chosen[name]}")
            continue
        what = "value" if kind == "value" else "type"
        raise TemplateUnresolved(
            f"template {what} parameter '{name}' of '{site.name}' is not determined by any "
            "call in this file, and is not only an arithmetic element type")
    if defaults:
        source = (f"{source}; " if source else "") + ", ".join(defaults) + " by default"
    order = [name for _, name, _ in params]
    new_params = tuple(replace(p, type_text=_substitute(p.type_text, chosen),
                               base=_substitute(p.base, chosen)) for p in site.params)
    inst = replace(site, params=new_params, return_type=_substitute(site.return_type, chosen),
                   is_template=False)
    return Instance(inst, tuple(chosen[n] for n in order), source)
