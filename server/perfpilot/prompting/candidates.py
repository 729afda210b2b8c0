"""Checking model-written code before it can become a candidate.

A candidate is a definition of the function with the original's name, return type and
parameters (by-value parameters may become ``const`` or ``const &``; ``restrict`` qualifiers may
be added), with what a model puts beside it: standard includes, helper functions, types,
constants and ``using`` lines, and rewritten versions of functions of the file it calls (kept
as renamed copies, the file's own stay for their other callers). What the file already has is
dropped, what the function never uses is left out, and a helper that would redefine a name of
the file is refused. Anything else is rejected with a reason and never spliced into the
user's file; what is kept is then held to the capability policy like the function itself.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import tree_sitter

from perfpilot.code.locate import definition_name, iter_function_nodes, list_functions
from perfpilot.code.parse import parse
from perfpilot.code.site import FunctionSite, Param
from perfpilot.code.splice import present_includes
from perfpilot.code.syntax import (
    node_text,
)
from perfpilot.prompting.answer_items import (
    Item,
    defined_in_class,
    items_of,
    rename_calls,
    split_items,
    unit_cores,
    unit_names,
)
from perfpilot.prompting.extract import extract_code
from perfpilot.rules.rewrite_input import fresh_name, identifiers
from perfpilot.strategy.plan_format import SUGG_OPEN, parse_output, strip_think
from perfpilot.strategy.values import Candidate, Rejected, Strategy

_INCLUDE = re.compile(r"^\s*#\s*include\s*([<\"][^>\"]+[>\"])\s*$")
_RESTRICT = re.compile(r"\b(?:__restrict__|__restrict|restrict)\b")
_OPENMP = re.compile(r"#\s*pragma\s+omp\b|\bomp_\w+\s*\(")
_WORD = re.compile(r"[A-Za-z_]\w*")


class CandidateRejected(Exception):
    """The model's code cannot be offered; the message says why."""


@dataclass(frozen=True)
class CheckedCode:
    """Code that passed the checks, with notes on what was cleaned up."""

    code: str
    needs_openmp: bool
    notes: tuple[str, ...] = ()
    includes: tuple[str, ...] = ()  # standard headers to add to the unit
    helpers: tuple[str, ...] = ()  # what the code adds above the function ("struct `Acc`")


def _squash(text: str) -> str:
    return re.sub(r"\s+", "", text)


def _norm_type(text: str) -> str:
    return _squash(_RESTRICT.sub("", text))


def params_compatible(old: Param, new: Param) -> bool:
    """Whether ``new`` can replace ``old`` without changing any call site's meaning."""
    if _norm_type(old.type_text) == _norm_type(new.type_text):
        return True
    by_value = old.pointer == 0 and not old.reference and not old.array
    if by_value and new.pointer == 0 and new.reference in ("", "&") and _squash(
            new.base) == _squash(old.base):
        # T -> const T or const T&: the same calls compile and mean the same.
        return new.reference == "" or new.const
    return False


def _strip_includes(code: str, unit_text: str) -> tuple[str, list[str], list[str]]:
    """The code without its ``#include`` lines, notes, and the standard headers to add."""
    present = present_includes(unit_text)
    kept: list[str] = []
    notes: list[str] = []
    added: list[str] = []
    for line in code.splitlines():
        m = _INCLUDE.match(line)
        if m is None:
            kept.append(line)
            continue
        header = _squash(m.group(1))
        if header in present:
            notes.append(f"dropped #include {header} (the file already has it)")
        elif header.startswith("<"):
            added.append(header)
            notes.append(f"adds #include {header}")
        else:
            raise CandidateRejected(
                f"it needs #include {header}, a project header the file does not include; "
                "only standard headers are added")
    return "\n".join(kept), notes, added


def _syntax_error_line(code: str, site: FunctionSite) -> int | None:
    tree = parse(code, site.language)
    if not tree.root_node.has_error:
        return None
    stack = [tree.root_node]
    while stack:
        n = stack.pop()
        if n.type == "ERROR" or n.is_missing:
            return int(n.start_point[0]) + 1
        stack.extend(c for c in n.children if c.has_error or c.is_missing)
    return 1


def _target(root: tree_sitter.Node, site: FunctionSite) -> list[tree_sitter.Node]:
    """The definitions of ``site``'s function in the parsed answer (outermost node each)."""
    found = []
    for fn in iter_function_nodes(root):
        if definition_name(fn).split("::")[-1].strip() == site.name:
            found.append(fn.parent if fn.parent is not None
                         and fn.parent.type == "template_declaration" else fn)
    return found


def _pieces(code: str, site: FunctionSite) -> tuple[list[Item], str, list[str]]:
    """The answer's items beside the function, the function's own text, and notes.

    The function may sit at the top, inside namespaces (whose other items then stand beside
    it, as they will in the unit), or inside a class the answer repeats (then only the
    method is taken)."""
    data = code.encode("utf-8")
    items, root = split_items(code, site.language)
    targets = _target(root, site)
    if not targets:
        defined = [n for it in items if it.kind == "function" for n in it.names]
        have = f"; it defines {', '.join(f'`{n}`' for n in defined)}" if defined else ""
        raise CandidateRejected(f"it contains no definition of `{site.name}`{have}")
    if len(targets) > 1:
        raise CandidateRejected(f"it defines `{site.name}` {len(targets)} times; one "
                                "definition is expected")
    target = targets[0]
    notes: list[str] = []
    container = target.parent
    chain: list[tree_sitter.Node] = []
    while container is not None and container.type != "translation_unit":
        chain.append(container)
        container = container.parent
    level = items
    for node in reversed(chain):
        if node.type == "namespace_definition":
            inside = next(i for i, it in enumerate(level)
                          if it.start_byte <= node.start_byte < it.end_byte)
            body = node.child_by_field_name("body")
            assert body is not None  # the target is inside it
            level = level[:inside] + items_of(body, data) + level[inside + 1:]
        elif node.type in ("class_specifier", "struct_specifier", "union_specifier"):
            name = node.child_by_field_name("name")
            owner = node_text(name) if name is not None else "an unnamed class"
            level = [it for it in level
                     if not it.start_byte <= node.start_byte < it.end_byte]
            notes.append(f"took `{site.name}` alone from the answer's `{owner}`; the rest of "
                         f"`{owner}` stays as the file has it")
            return level, node_text(target), notes
    own = next(it for it in level if it.start_byte <= target.start_byte < it.end_byte)
    return [it for it in level if it is not own], own.text, notes


def _make_static(text: str, site: FunctionSite) -> str:
    """A helper function's text with ``static`` added when it has no storage class (the
    copy stays private to the unit, as the builtin rewrites' copies are)."""
    data = text.encode("utf-8")
    root = parse(data, site.language).root_node
    fn = next(iter_function_nodes(root), None)
    if fn is None or any(c.type == "storage_class_specifier" for c in fn.children) \
            or fn.child_count == 0:
        return text
    first = fn.children[0]
    return (data[:first.start_byte] + b"static " + data[first.start_byte:]).decode("utf-8")


@dataclass(frozen=True)
class _Helpers:
    items: list[str]
    target: str
    notes: list[str]
    labels: list[str]


def _helpers(site: FunctionSite, items: list[Item], target: str) -> _Helpers:
    """Judge each item beside the function: drop what the file already has, what the
    function never uses and a ``main``; rename a rewritten function of the file (a copy the
    function calls instead); refuse a helper that would redefine another of the file's
    names."""
    notes: list[str] = []
    have = unit_names(site.unit_text, site.language)
    cores = unit_cores(site.unit_text, site.language)
    kept: list[Item] = []
    renames: list[str] = []
    for it in items:
        if it.kind == "function" and it.names == ("main",) and site.name != "main":
            notes.append("dropped `main`: only the function and its helpers are applied")
            continue
        if it.kind == "prototype" and site.name in it.names:
            continue  # a declaration of the function itself
        if it.core in cores:
            notes.append(f"dropped {it.label}: the file already has it")
            continue
        if it.kind == "other":
            raise CandidateRejected(
                f"it has code outside any definition (a {it.node_type.replace('_', ' ')} at "
                f"line {it.line})")
        if it.qualified:
            raise CandidateRejected(
                f"its {it.label} (line {it.line}) defines a member of a class; only free "
                f"helpers can be added beside `{site.name}`")
        clash = [n for n in it.names if n in have]
        functions_only = all(have[n] in ("function", "prototype") for n in clash)
        if clash and it.kind == "prototype" and functions_only:
            kept.append(it)  # renamed with its definition below, or dropped if unused
            continue
        if clash and it.kind == "function" and functions_only:
            renames.extend(n for n in clash if n not in renames)
            kept.append(it)
            continue
        if clash:
            raise CandidateRejected(
                f"its {it.label} (line {it.line}) redefines `{clash[0]}`, which the file "
                "already defines; a helper needs a name of its own")
        kept.append(it)
    texts = [it.text for it in kept]
    names = [set(it.names) for it in kept]
    labels = [it.label for it in kept]
    defined = {n for it in kept if it.kind == "function" for n in it.names}
    taken = identifiers(site.unit_text) | identifiers("\n".join([*texts, target]))
    for old in renames:
        if old not in defined:
            continue  # a declaration alone: dropped below unless something uses it
        new = fresh_name(taken, f"{old}_fast")
        taken = taken | {new}
        renamed_target = rename_calls(target, site.language, old, new)
        renamed = [rename_calls(t, site.language, old, new) for t in texts]
        if renamed_target is None or any(r is None for r in renamed):
            raise CandidateRejected(
                f"it rewrites `{old}`, which the file already defines, and uses `{old}` other "
                "than by calling it, so its version cannot stand beside the file's")
        target = renamed_target
        texts = [_make_static(r, site) if it.kind == "function" and old in it.names else r
                 for it, r in zip(kept, renamed, strict=True) if r is not None]
        names = [(n - {old}) | {new} if old in n else n for n in names]
        labels = [label.replace(f"`{old}`", f"`{new}`") for label in labels]
        notes.append(f"`{new}` is the answer's version of `{old}`; `{old}` stays as it is for "
                     f"its other callers, and `{site.name}` calls `{new}`")
    # What the function does not use (directly or through a kept helper) is left out.
    used = set(_WORD.findall(target))
    alive = [not n for n in names]  # nameless items (using lines, directives) stay
    changed = True
    while changed:
        changed = False
        for i, text in enumerate(texts):
            if not alive[i] and names[i] & used:
                alive[i] = True
                used |= set(_WORD.findall(text))
                changed = True
    for i, text in enumerate(texts):
        if alive[i]:
            used |= set(_WORD.findall(text))
    out: list[str] = []
    shown: list[str] = []
    for it, text, live, label in zip(kept, texts, alive, labels, strict=True):
        if not live:
            if it.kind != "prototype":
                notes.append(f"dropped {label}: `{site.name}` does not use it")
            continue
        out.append(text)
        if it.kind != "prototype":
            shown.append(label)
    return _Helpers(out, target, notes, shown)


def check_candidate(site: FunctionSite, code: str) -> CheckedCode:
    """Check that ``code`` can replace ``site``; raise ``CandidateRejected`` with the reason.

    ``code`` is the function, possibly with what a model puts beside it: standard includes
    (added to the unit's), helper functions, types, constants, ``using`` lines, a rewritten
    copy of a function it calls. Those it keeps go just above the function, in the answer's
    order; the capability policy then judges them with it."""
    if not code.strip():
        raise CandidateRejected("the model returned no code")
    body, notes, includes = _strip_includes(code.strip("\n"), site.unit_text)
    body = body.strip("\n") + "\n"
    items, target, found = _pieces(body, site)
    line = _syntax_error_line(body, site)
    if line is not None:
        raise CandidateRejected(f"it does not parse (syntax error near line {line})")
    notes.extend(found)
    helpers = _helpers(site, items, target)
    notes.extend(helpers.notes)
    target = helpers.target.strip("\n") + "\n"
    if helpers.items and defined_in_class(site.unit_text, site.language, site.start_byte):
        raise CandidateRejected(
            f"`{site.name}` is defined inside its class, where helpers placed beside it would "
            f"become members ({', '.join(helpers.labels)}); a rewrite of a method defined in "
            "its class must be the method alone")
    if not helpers.items and _squash(target) == _squash(site.text):
        raise CandidateRejected("it is the same as the original function")
    new = next((f for f in list_functions(target, site.language) if f.name == site.name), None)
    if new is None:
        raise CandidateRejected(f"it contains no definition of `{site.name}`")
    if _squash(new.return_type) != _squash(site.return_type) and new.return_type:
        raise CandidateRejected(
            f"it changes the return type from '{site.return_type}' to '{new.return_type}'")
    if len(new.params) != len(site.params):
        raise CandidateRejected(
            f"it takes {len(new.params)} parameters instead of {len(site.params)}")
    for i, (old, cand) in enumerate(zip(site.params, new.params, strict=True), start=1):
        if not params_compatible(old, cand):
            raise CandidateRejected(
                f"it changes parameter {i} from '{old.type_text}' to '{cand.type_text}'")
    if helpers.labels:
        notes.append(f"adds {', '.join(helpers.labels)} above `{site.name}`")
    full = "\n\n".join(t.strip("\n") for t in (*helpers.items, target)) + "\n"
    return CheckedCode(full, bool(_OPENMP.search(full)), tuple(notes), tuple(includes),
                       tuple(helpers.labels))


def code_from_text(text: str) -> str | None:
    """The code in a model's answer: ``[OPT/]`` or a fenced block, else bare code."""
    parsed = parse_output(text)
    if parsed.code is not None:
        return parsed.code
    bare = strip_think(text).strip()
    # A model that skipped the markers and the fence may still have answered with code.
    return bare + "\n" if "{" in bare and "}" in bare and SUGG_OPEN not in bare else None


def candidate_from_text(site: FunctionSite, text: str, strategies: tuple[Strategy, ...],
                        backend: str, sample: int, model: str = "", *,
                        round_: int = 0) -> Candidate | Rejected:
    """A checked ``Candidate`` from a model's answer, or the ``Rejected`` record saying why
    (with the whole answer kept for the report). ``round_``: the repair round it answers."""
    extracted = extract_code(site, text)
    if extracted.code is None:
        return Rejected(backend, f"extraction failed: {extracted.reason}", sample, "", text,
                        round_)
    try:
        checked = check_candidate(site, extracted.code)
    except CandidateRejected as exc:
        return Rejected(backend, str(exc), sample, extracted.code, text, round_)
    notes = (*((f"model {model}",) if model else ()), *extracted.notes, *checked.notes)
    return Candidate(checked.code, strategies, backend, sample, notes, checked.needs_openmp,
                     checked.includes, round=round_)
