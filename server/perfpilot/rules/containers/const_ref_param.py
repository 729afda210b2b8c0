"""The const-ref-param rule: a container, string or user struct taken by value, never modified."""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

from perfpilot.code.declarations import declared_types
from perfpilot.code.effects import (
    CONST_METHODS,
    NEVER_WRITES_MEMORY,
    READS_ITS_RANGES_ONLY,
)
from perfpilot.code.facts import FunctionFacts
from perfpilot.code.parse import parse
from perfpilot.code.site import Param
from perfpilot.code.syntax import (
    Node,
    arguments,
    callee,
    declarator_name,
    line,
    node_text,
    plain_callee,
    receiver,
    walk,
)
from perfpilot.rules.base import Example, RuleSpec
from perfpilot.rules.detect.common import HEAVY_TYPE, cpp, rng
from perfpilot.rules.edits import Edit
from perfpilot.rules.finding import Finding, Proof, make_finding
from perfpilot.rules.rewrite_input import (
    Left,
    Planned,
    RuleInput,
)

# detection


@dataclass(frozen=True)
class ByValue(Proof):
    """A parameter taken by value that the function never modifies: its declaration, the
    name's identifier inside it (``&`` goes before it), and its type as written."""

    param: Node
    ident: Node | None
    name: str
    base: str
    type_text: str
    const: bool


def _param_nodes(facts: FunctionFacts) -> dict[str, Node]:
    out: dict[str, Node] = {}
    decl = facts.fn.child_by_field_name("declarator")
    while decl is not None and decl.type != "function_declarator":
        decl = decl.child_by_field_name("declarator")
    params = decl.child_by_field_name("parameters") if decl is not None else None
    for p in params.named_children if params is not None else []:
        name = declarator_name(p.child_by_field_name("declarator"))
        if name:
            out[name] = p
    return out


def const_ref_param(facts: FunctionFacts) -> Iterator[Finding]:
    """A container, string or user struct taken by value and never modified."""
    if not cpp(facts) or facts.body is None:
        return
    candidates = [p for p in facts.site.params if not (p.pointer or p.reference or p.array)]
    if not candidates:
        return
    modified = facts.modified_in(facts.body)
    moved = {node_text(a) for c in facts.nodes("call_expression") if callee(c) in ("move", "swap")
             for a in (c.child_by_field_name("arguments") or c).named_children}
    nodes = _param_nodes(facts)
    for p in candidates:
        if p.name not in nodes:
            continue
        base = p.base.strip()
        user = base.removeprefix("struct ").removeprefix("class ") in facts.user_types
        if not (HEAVY_TYPE.match(base) or user):
            continue
        if p.name in modified or p.name in moved:
            continue
        node = nodes[p.name]
        new_type = f"const {base} &"
        if user:
            size = "copies the whole object"
        elif re.match(r"^(?:std::)?(?:string|wstring|basic_string)\b", base):
            size = "copies the string (a heap allocation once it outgrows the small-string buffer)"
        else:
            size = "copies the whole container (an allocation plus a copy of every element)"
        yield make_finding(
            "const-ref-param",
            f"parameter `{p.name}` (`{base}`, line {line(node)}) is passed by value, so every "
            f"call to `{facts.site.name}` {size}, although the function never modifies "
            f"`{p.name}`: take it as `{new_type}{p.name}`.",
            [line(node)],
            node_range=rng(node), names=[p.name],
            bonus=0.05 if not user else -0.05,
            proof=ByValue(node, _declared_identifier(node), p.name, p.base, p.type_text,
                          p.const),
        )


# rewrite


_BIG_TYPES = re.compile(
    r"^(std::)?(vector|string|wstring|basic_string|map|multimap|set|multiset|unordered_map|"
    r"unordered_set|unordered_multimap|unordered_multiset|deque|list|valarray)\b")


_ELEMENT_ACCESS = frozenset({"data", "begin", "end", "rbegin", "rend"})


def _by_value_container(p: Param) -> bool:
    """A standard container or string parameter taken by value."""
    return not p.reference and not p.pointer and not p.array and bool(_BIG_TYPES.match(p.base))


def _function_why(inp: RuleInput) -> str:
    """Why no parameter of the function may change how it is passed ('' when one may): the
    signature must be this definition's alone, and nothing the function writes may be the
    caller's argument under another name."""
    site = inp.site
    if site.name == "main":
        return "'main' is called by the runtime, with its own signature"
    if site.is_method:
        return "a method's signature is also declared in its class"
    unit_tree = parse(site.unit_text, "cpp")
    declarations = sum(
        1 for n in walk(unit_tree.root_node)
        if n.type == "function_declarator" and
        re.sub(r"^.*::", "", node_text(n.child_by_field_name("declarator") or n)) == site.name)
    if declarations > 1:
        return f"'{site.name}' has another declaration or overload in the unit"
    if not site.is_static and re.search(r'#\s*include\s*"', site.unit_text):
        return f"a local header may declare '{site.name}'"
    if any((p.reference or p.pointer) and not p.const for p in site.params
           if not _by_value_container(p)):
        return f"'{site.name}' also takes a modifiable reference or pointer, which could " \
               "alias the parameter"
    body = inp.function.child_by_field_name("body")
    if body is None:
        return "the function has no body"
    own = set(declared_types(inp.function))
    if _writes_globals(body, set(inp.unit_globals) - own):
        return f"'{site.name}' writes variables it does not own, which a caller could also " \
               "pass as the parameter"
    return ""


def fix(inp: RuleInput, finding: Finding) -> Planned | Left:
    """The proved standard container or string parameter is taken by ``const &``."""
    proof = finding.proof
    assert isinstance(proof, ByValue)
    what = f"parameter '{proof.name}'"
    why = _function_why(inp)
    if why:
        return Left(what, proof.param, why, stays="stays by value")
    if not _BIG_TYPES.match(proof.base):
        return Left(what, proof.param, "only standard containers and strings are taken by "
                    "reference (a user type's copy may have effects)", stays="stays by value")
    body = inp.function.child_by_field_name("body")
    assert body is not None  # _function_why refuses a function without one
    modified = _modified(body, proof.name)
    if modified:
        return Left(what, proof.param, f"the function {modified}", stays="stays by value")
    if proof.ident is None:
        return Left(what, proof.param, "its declarator is not a plain name",
                    stays="stays by value")
    edits = [Edit(proof.ident.start_byte, proof.ident.start_byte, "&", "const-ref-param")]
    if not proof.const:
        edits.append(Edit(proof.param.start_byte, proof.param.start_byte, "const ",
                          "const-ref-param"))
    return Planned(
        tuple(edits),
        f"Parameter '{proof.name}' ({proof.type_text}) is copied on every call but only read; "
        f"taking it as 'const {proof.base}&' avoids the copy.", (inp.function,), includes=())


def refused(inp: RuleInput) -> list[str]:
    """Why each standard container or string parameter taken by value that the detection
    did not report (the function changes it) stays by value."""
    site = inp.site
    if inp.language != "cpp" or site.name == "main" or site.is_method:
        return []
    reported = {f.proof.name for f in const_ref_param(inp.facts) if isinstance(f.proof, ByValue)}
    unreported = [p for p in site.params
                  if p.name not in reported and _by_value_container(p)]
    body = inp.function.child_by_field_name("body")
    if not unreported or body is None:
        return []
    why = _function_why(inp)
    if why:
        return [f"const-ref-param: {why}; its signature is left as it is"]
    out: list[str] = []
    for p in unreported:
        # the detection's own reason: a write, a modifying call, or the whole value handed
        # to code that may change it
        modified = _modified(body, p.name) or "may change it (it writes it, calls a " \
            "modifying method on it, or hands it whole to code that may)"
        out.append(f"const-ref-param: '{p.name}' stays by value: the function {modified}")
    return out


def _declared_identifier(param: Node) -> Node | None:
    decl = param.child_by_field_name("declarator")
    while decl is not None:
        if decl.type == "identifier":
            return decl
        nxt = decl.child_by_field_name("declarator")
        if nxt is None:
            nxt = next((c for c in decl.named_children
                        if c.type == "identifier" or c.type.endswith("declarator")), None)
        decl = nxt
    return None


def _root(node: Node) -> str | None:
    while node.type in ("subscript_expression", "field_expression", "parenthesized_expression",
                        "pointer_expression"):
        nxt = node.child_by_field_name("argument")
        if nxt is None:
            nxt = node.named_children[0] if node.named_child_count else None
        if nxt is None:
            return None
        node = nxt
    return node_text(node) if node.type == "identifier" else None


def _modified(body: Node, name: str) -> str:
    """Why ``name`` cannot become a const reference, or '' when it only reads it."""
    for n in walk(body):
        if n.type == "assignment_expression":
            left = n.child_by_field_name("left")
            if left is not None and _root(left) == name:
                return "assigns to it"
        elif n.type == "update_expression":
            arg = n.child_by_field_name("argument")
            if arg is not None and _root(arg) == name:
                return "increments part of it"
        elif n.type == "pointer_expression":
            op = n.child_by_field_name("operator")
            arg = n.child_by_field_name("argument")
            if op is not None and node_text(op) == "&" and arg is not None and \
                    _root(arg) == name:
                return "takes its address"
        elif n.type == "call_expression":
            fn = n.child_by_field_name("function")
            if fn is None:
                continue
            if fn.type == "field_expression":
                obj = fn.child_by_field_name("argument")
                field = fn.child_by_field_name("field")
                if obj is not None and _root(obj) == name and field is not None and \
                        node_text(field) not in CONST_METHODS:
                    return f"calls '{node_text(field)}()' on it"
            elif node_text(fn) in ("std::move", "move", "std::swap", "swap", "std::sort", "sort"):
                args = n.child_by_field_name("arguments")
                if args is not None and re.search(rf"\b{re.escape(name)}\b", node_text(args)):
                    return f"passes it to '{node_text(fn)}'"
            elif plain_callee(node_text(fn)) not in READS_ITS_RANGES_ONLY | NEVER_WRITES_MEMORY:
                # a pointer or iterator to its elements handed to code that may write them
                for arg in arguments(n):
                    if arg.type == "call_expression" and callee(arg) in _ELEMENT_ACCESS and \
                            (r := receiver(arg)) is not None and _root(r) == name:
                        return f"passes its elements to '{node_text(fn)}'"
    return ""


def _writes_globals(body: Node, unit_globals: set[str]) -> bool:
    """Whether the body assigns to, or calls a modifying method on, a variable of the unit."""
    for n in walk(body):
        target = None
        if n.type == "assignment_expression":
            target = n.child_by_field_name("left")
        elif n.type == "update_expression":
            target = n.child_by_field_name("argument")
        if target is not None:
            root = _root(target)
            if root is not None and root in unit_globals:
                return True
        if n.type == "call_expression":
            fn = n.child_by_field_name("function")
            if fn is not None and fn.type == "field_expression":
                obj = fn.child_by_field_name("argument")
                field = fn.child_by_field_name("field")
                root = _root(obj) if obj is not None else None
                if root in unit_globals and field is not None and \
                        node_text(field) not in CONST_METHODS:
                    return True
    return False


RULE = RuleSpec(
    id="const-ref-param",
    detect=const_ref_param,
    fix=fix,
    refused=refused,
    rewrites_as=frozenset({"const-ref-param"}),
    phase=1,
    order=3,
    examples=(
        Example("cpp", """
#include <vector>
long sum(std::vector<long> v) {
    long s = 0;
    for (long x : v) s += x;
    return s;
}
""", "sum"),
        Example("cpp", """
#include <map>
#include <string>
double sum(std::map<std::string, double> prices) {
    double s = 0;
    for (auto &kv : prices) s += kv.second;
    return s;
}
""", "sum"),
    ),
)
