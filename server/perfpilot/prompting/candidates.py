"""Checking model-written code before it can become a candidate.

A candidate must be exactly one function definition with the original's name, return type and
parameters (by-value parameters may become ``const`` or ``const &``; ``restrict`` qualifiers may
be added). Anything else is rejected with a reason and never spliced into the user's file.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from perfpilot.code.locate import iter_function_nodes, list_functions
from perfpilot.code.parse import parse
from perfpilot.code.site import FunctionSite, Param
from perfpilot.code.splice import present_includes
from perfpilot.strategy.plan_format import SUGG_OPEN, parse_output, strip_think
from perfpilot.strategy.values import Candidate, Rejected, Strategy

_INCLUDE = re.compile(r"^\s*#\s*include\s*([<\"][^>\"]+[>\"])\s*$")
_RESTRICT = re.compile(r"\b(?:__restrict__|__restrict|restrict)\b")
_OPENMP = re.compile(r"#\s*pragma\s+omp\b|\bomp_\w+\s*\(")


class CandidateRejected(Exception):
    """The model's code cannot be offered; the message says why."""


@dataclass(frozen=True)
class CheckedCode:
    """Code that passed the checks, with notes on what was cleaned up."""

    code: str
    needs_openmp: bool
    notes: tuple[str, ...] = ()
    includes: tuple[str, ...] = ()  # standard headers to add to the unit


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


def _outside_function(code: str, site: FunctionSite) -> str | None:
    tree = parse(code, site.language)
    fn_ranges = [(f.parent if f.parent is not None and f.parent.type == "template_declaration"
                  else f) for f in iter_function_nodes(tree.root_node)]
    for child in tree.root_node.named_children:
        if child.type == "comment":
            continue
        if any(child.start_byte <= r.start_byte and r.end_byte <= child.end_byte
               and child.type in ("function_definition", "template_declaration")
               for r in fn_ranges):
            continue
        kind = child.type.replace("_", " ")
        return f"it has code outside the function (a {kind} at line {child.start_point[0] + 1})"
    return None


def check_candidate(site: FunctionSite, code: str) -> CheckedCode:
    """Check that ``code`` can replace ``site``; raise ``CandidateRejected`` with the reason."""
    if not code.strip():
        raise CandidateRejected("the model returned no code")
    body, notes, includes = _strip_includes(code.strip("\n"), site.unit_text)
    body = body.strip("\n") + "\n"
    if _squash(body) == _squash(site.text):
        raise CandidateRejected("it is the same as the original function")
    funcs = list_functions(body, site.language)
    if not funcs:
        raise CandidateRejected("it contains no function definition")
    if len(funcs) > 1:
        names = ", ".join(f.name for f in funcs)
        raise CandidateRejected(
            f"it defines {len(funcs)} functions ({names}); exactly one is expected")
    new = funcs[0]
    line = _syntax_error_line(body, site)
    if line is not None:
        raise CandidateRejected(f"it does not parse (syntax error near line {line})")
    outside = _outside_function(body, site)
    if outside is not None:
        raise CandidateRejected(outside)
    if new.name != site.name:
        raise CandidateRejected(f"it defines '{new.name}' instead of '{site.name}'")
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
    return CheckedCode(body, bool(_OPENMP.search(body)), tuple(notes), tuple(includes))


def code_from_text(text: str) -> str | None:
    """The code in a model's answer: ``[OPT/]`` or a fenced block, else bare code."""
    parsed = parse_output(text)
    if parsed.code is not None:
        return parsed.code
    bare = strip_think(text).strip()
    # A model that skipped the markers and the fence may still have answered with code.
    return bare + "\n" if "{" in bare and "}" in bare and SUGG_OPEN not in bare else None


def candidate_from_text(site: FunctionSite, text: str, strategies: tuple[Strategy, ...],
                        backend: str, sample: int, model: str = "") -> Candidate | Rejected:
    """A checked ``Candidate`` from a model's answer, or the ``Rejected`` record saying why."""
    code = code_from_text(text)
    if code is None:
        return Rejected(backend, "the answer has no code", sample, "")
    try:
        checked = check_candidate(site, code)
    except CandidateRejected as exc:
        return Rejected(backend, str(exc), sample, code)
    notes = (*((f"model {model}",) if model else ()), *checked.notes)
    return Candidate(checked.code, strategies, backend, sample, notes, checked.needs_openmp,
                     checked.includes)
