"""Rules outside loop structure: pow strength reduction, endl, fast I/O, const & parameters."""

from __future__ import annotations

import re

from perfpilot.code.declarations import VarType, declared_types
from perfpilot.code.effects import PARALLEL_SAFE_METHODS
from perfpilot.code.parse import node_text, parse, walk_all
from perfpilot.rules.edits import Edit
from perfpilot.rules.rewrite_input import (
    Change,
    Node,
    RuleInput,
    RuleOutput,
    inside_loop,
    newline_of,
)

_POW_NAMES = {"pow", "std::pow", "::pow"}
_SIMPLE_EXPR_NODES = {
    "identifier", "number_literal", "subscript_expression", "subscript_argument_list",
    "parenthesized_expression", "binary_expression", "unary_expression",
}
_ARITH_OPS = {"+", "-", "*", "/"}


def _expr_type(node: Node, types: dict[str, VarType | None]) -> str | None:
    """``double``, ``float`` or ``int`` for a side-effect-free arithmetic expression, else None."""
    t = node.type
    if t == "parenthesized_expression" and node.named_child_count == 1:
        return _expr_type(node.named_children[0], types)
    if t == "identifier":
        return _scalar_kind(types.get(node_text(node)))
    if t == "number_literal":
        text = node_text(node).lower()
        if text.startswith("0x"):
            return "int"
        if text.endswith("f"):
            return "float"
        if "." in text or "e" in text:
            return None if text.endswith("l") else "double"
        return "int"
    if t == "subscript_expression":
        levels = 0
        base = node
        while base.type == "subscript_expression":
            levels += 1
            arg = base.child_by_field_name("argument")
            if arg is None:
                return None
            base = arg
        if base.type != "identifier":
            return None
        vt = types.get(node_text(base))
        for _ in range(levels):
            vt = vt.element if vt is not None else None
        return _scalar_kind(vt)
    if t == "unary_expression":
        op = node.child_by_field_name("operator")
        arg = node.child_by_field_name("argument")
        if op is None or arg is None or node_text(op) not in ("-", "+"):
            return None
        return _expr_type(arg, types)
    if t == "binary_expression":
        op = node.child_by_field_name("operator")
        left = node.child_by_field_name("left")
        right = node.child_by_field_name("right")
        if op is None or left is None or right is None or node_text(op) not in _ARITH_OPS:
            return None
        kinds = {_expr_type(left, types), _expr_type(right, types)}
        if None in kinds:
            return None
        return "double" if "double" in kinds else ("float" if "float" in kinds else "int")
    return None


def _scalar_kind(vt: VarType | None) -> str | None:
    if vt is None or vt.reference == "&&":
        return None
    if vt.is_floating:
        return vt.base.replace("const", "").strip()
    if vt.is_integral:
        return "int"
    return None


def _side_effect_free(node: Node) -> bool:
    return all(n.type in _SIMPLE_EXPR_NODES or not n.is_named for n in walk_all(node))


def pow_rule(inp: RuleInput) -> RuleOutput:
    """``pow(x, 2)`` becomes ``x * x`` (exact: both round the true square once)."""
    changes: list[Change] = []
    notes: list[str] = []
    if re.search(r"\bpow\s*\([^;{}]*\)\s*\{", inp.site.unit_text):
        return changes, ["pow-strength: the unit defines its own pow; left as it is"]
    types = dict(inp.types)
    edits: list[Edit] = []
    lines: list[int] = []
    for n in walk_all(inp.function):
        if n.type != "call_expression":
            continue
        fn = n.child_by_field_name("function")
        args = n.child_by_field_name("arguments")
        if fn is None or args is None or node_text(fn) not in _POW_NAMES or \
                args.named_child_count != 2:
            continue
        base, exp = args.named_children
        exp_text = node_text(exp).strip()
        if exp_text in ("0.5", ".5", "0.5f"):
            notes.append(f"pow-strength: pow(..., 0.5) at line {inp.line_of(n)} is not turned "
                         "into sqrt: they differ for -0 and -infinity")
            continue
        if exp_text in ("3", "3.0", "4", "4.0"):
            notes.append(f"pow-strength: pow(..., {exp_text}) at line {inp.line_of(n)} is left: "
                         "repeated multiplication rounds more than once and may change the "
                         "last digit")
            continue
        if exp_text not in ("2", "2.0", "2."):
            continue
        kind = _expr_type(base, types)
        if kind is None or not _side_effect_free(base):
            notes.append(f"pow-strength: pow(..., 2) at line {inp.line_of(n)} is left: the "
                         "base's type is unknown or it has side effects")
            continue
        text = " ".join(node_text(base).split())
        simple = base.type in ("identifier", "subscript_expression", "number_literal",
                               "parenthesized_expression")
        if kind == "double":
            term = text if simple else f"({text})"
        elif inp.language == "cpp":
            term = f"static_cast<double>({text})"
        else:
            term = f"(double)({text})"
        edits.append(Edit(n.start_byte, n.end_byte, f"({term} * {term})", "pow-strength"))
        lines.append(inp.line_of(n))
    if edits:
        where = ", ".join(str(x) for x in sorted(set(lines)))
        changes.append(Change(
            "pow-strength", tuple(edits),
            f"pow(x, 2) at line(s) {where} is a general library call for a square; x * x gives "
            "the identical, correctly rounded result with one multiplication.",
            tuple(sorted(set(lines)))))
    return changes, notes


def endl_rule(inp: RuleInput) -> RuleOutput:
    """``'\\n'`` instead of ``std::endl`` inside loops (no flush per line)."""
    changes: list[Change] = []
    if inp.language != "cpp":
        return changes, []
    edits: list[Edit] = []
    lines: list[int] = []
    for n in walk_all(inp.function):
        if n.type != "binary_expression":
            continue
        op = n.child_by_field_name("operator")
        right = n.child_by_field_name("right")
        if op is None or right is None or node_text(op) != "<<":
            continue
        if node_text(right).replace(" ", "") not in ("endl", "std::endl"):
            continue
        if not inside_loop(n, inp.function):
            continue
        edits.append(Edit(right.start_byte, right.end_byte, "'\\n'", "endl"))
        lines.append(inp.line_of(right))
    if edits:
        where = ", ".join(str(x) for x in sorted(set(lines)))
        changes.append(Change(
            "endl", tuple(edits),
            f"std::endl at line(s) {where} flushes the stream on every iteration; writing "
            "'\\n' produces the same output and lets the stream buffer it.",
            tuple(sorted(set(lines)))))
    return changes, []


_C_STDIO = frozenset({
    "printf", "scanf", "puts", "putchar", "getchar", "gets", "fgets", "fputs", "fprintf",
    "fscanf", "fwrite", "fread", "fflush", "putc", "getc", "fputc", "fgetc", "perror",
    "vprintf", "stdout", "stdin",
})


def fast_io_rule(inp: RuleInput) -> RuleOutput:
    """Unsynchronize C++ streams from C stdio and untie cin at the start of ``main``."""
    changes: list[Change] = []
    if inp.language != "cpp" or inp.site.name != "main":
        return changes, []
    if "sync_with_stdio" in inp.site.unit_text:
        return changes, []
    uses_streams = any(
        n.type == "identifier" and node_text(n) in ("cin", "cout") and
        inside_loop(n, inp.function) for n in walk_all(inp.function))
    if not uses_streams:
        return changes, []
    unit_names = {node_text(n) for n in walk_all(parse(inp.site.unit_text, "cpp").root_node)
                  if n.type == "identifier"}
    mixed = sorted(unit_names & _C_STDIO)
    if mixed:
        return changes, [f"fast-io: the program also uses C stdio ({', '.join(mixed[:3])}); "
                         "unsynchronizing the streams would reorder output"]
    body = inp.function.child_by_field_name("body")
    if body is None or body.type != "compound_statement":
        return changes, []
    first = next((c for c in body.named_children), None)
    indent = "    "
    if first is not None:
        data = inp.data
        line_start = data.rfind(b"\n", 0, first.start_byte) + 1
        prefix = data[line_start:first.start_byte]
        if prefix.strip() == b"" and line_start > body.start_byte:
            indent = prefix.decode("utf-8")
    nl = newline_of(inp.text)
    text = f"{nl}{indent}std::ios::sync_with_stdio(false);{nl}{indent}std::cin.tie(nullptr);"
    edit = Edit(body.start_byte + 1, body.start_byte + 1, text, "fast-io")
    return [Change(
        "fast-io", (edit,),
        "main reads or writes with cin/cout inside loops; turning off the synchronization "
        "with C stdio and untying cin from cout lets both streams buffer (output is the same; "
        "a prompt is no longer flushed before each read).",
        (inp.line_of(body),))], []


_BIG_TYPES = re.compile(
    r"^(std::)?(vector|string|wstring|basic_string|map|multimap|set|multiset|unordered_map|"
    r"unordered_set|unordered_multimap|unordered_multiset|deque|list|valarray)\b")
_CONST_OK_METHODS = PARALLEL_SAFE_METHODS | {
    "lower_bound", "upper_bound", "equal_range", "crbegin", "crend", "max_size", "sum", "min",
    "max", "rfind", "find_first_of", "find_last_of", "starts_with", "ends_with", "key_comp",
}


def const_ref_rule(inp: RuleInput) -> RuleOutput:
    """Pass large standard containers and strings by ``const &`` instead of by value."""
    changes: list[Change] = []
    notes: list[str] = []
    site = inp.site
    if inp.language != "cpp" or site.name == "main" or site.is_method:
        return changes, notes
    candidates = [p for p in site.params
                  if not p.reference and not p.pointer and not p.array and
                  _BIG_TYPES.match(p.base)]
    if not candidates:
        return changes, notes
    unit_tree = parse(site.unit_text, "cpp")
    declarations = sum(
        1 for n in walk_all(unit_tree.root_node)
        if n.type == "function_declarator" and
        re.sub(r"^.*::", "", node_text(n.child_by_field_name("declarator") or n)) == site.name)
    if declarations > 1:
        return changes, [f"const-ref-param: '{site.name}' has another declaration or overload "
                         "in the unit; its signature is left as it is"]
    if not site.is_static and re.search(r'#\s*include\s*"', site.unit_text):
        return changes, [f"const-ref-param: a local header may declare '{site.name}'; its "
                         "signature is left as it is"]
    others = [p for p in site.params if p not in candidates]
    if any((p.reference or p.pointer) and not p.const for p in others):
        return changes, [f"const-ref-param: '{site.name}' also takes a modifiable reference or "
                         "pointer, which could alias the parameter"]
    body = inp.function.child_by_field_name("body")
    declarator = inp.function.child_by_field_name("declarator")
    if body is None or declarator is None:
        return changes, notes
    plist = next((n for n in walk_all(declarator) if n.type == "parameter_list"), None)
    if plist is None:
        return changes, notes
    pnodes = {}
    for pn in plist.named_children:
        ident = _declared_identifier(pn)
        if ident is not None:
            pnodes[node_text(ident)] = (pn, ident)
    own = set(declared_types(inp.function))
    unit_globals = set(inp.unit_globals) - own
    if _writes_globals(body, unit_globals):
        return changes, [f"const-ref-param: '{site.name}' writes variables it does not own, "
                         "which a caller could also pass as the parameter"]
    for p in candidates:
        if p.name not in pnodes:
            continue
        why = _modified(body, p.name)
        if why:
            notes.append(f"const-ref-param: '{p.name}' stays by value: the function {why}")
            continue
        pn, ident = pnodes[p.name]
        edits = [Edit(ident.start_byte, ident.start_byte, "&", "const-ref-param")]
        if not p.const:
            edits.append(Edit(pn.start_byte, pn.start_byte, "const ", "const-ref-param"))
        changes.append(Change(
            "const-ref-param", tuple(edits),
            f"Parameter '{p.name}' ({p.type_text}) is copied on every call but only read; "
            f"taking it as 'const {p.base}&' avoids the copy.", (site.first_line,)))
    return changes, notes


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
    for n in walk_all(body):
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
                        node_text(field) not in _CONST_OK_METHODS:
                    return f"calls '{node_text(field)}()' on it"
            elif node_text(fn) in ("std::move", "move", "std::swap", "swap", "std::sort", "sort"):
                args = n.child_by_field_name("arguments")
                if args is not None and re.search(rf"\b{re.escape(name)}\b", node_text(args)):
                    return f"passes it to '{node_text(fn)}'"
    return ""


def _writes_globals(body: Node, unit_globals: set[str]) -> bool:
    """Whether the body assigns to, or calls a modifying method on, a variable of the unit."""
    for n in walk_all(body):
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
                        node_text(field) not in _CONST_OK_METHODS:
                    return True
    return False
