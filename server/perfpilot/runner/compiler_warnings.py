"""New compiler warnings: a candidate may not add one the original unit does not have.

Both units are compiled with ``-fsyntax-only`` and ``WARNING_FLAGS``; each warning is read
without its file, line and column (the candidate's lines differ from the original's) and
with type spellings left out of its quotes (``comparison of integer expressions of different
signedness: 'int' and 'const long unsigned int'`` is the warning the original had with
``'std::vector<int>::size_type'``), so a warning the rewrite moved is the same warning. The
candidate's warnings beyond the original's, counted as multisets, are the new ones.
``warnings_refusal`` is the runner's gate for model candidates (compiled in the sandbox like
their builds); the built-in optimizer runs the same comparison in its compile check.
"""

from __future__ import annotations

import hashlib
import re
from collections import Counter, OrderedDict
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

from perfpilot.progress import JobContext
from perfpilot.runner.build import write_source
from perfpilot.runner.sandbox import Limits, Sandbox, make_writable_for_runs, run_sandboxed
from perfpilot.runner.toolchain import Toolchain, absolute_paths, compiler_folders
from perfpilot.runner.values import Verdict

# What a colleague's build would show: the usual set, and shadowed names.
WARNING_FLAGS = ("-Wall", "-Wextra", "-Wshadow")

_WARNING = re.compile(r"^(?:[^:\n]*:\d+:(?:\d+:)?\s*)?warning:\s*(.+?)\s*$", re.MULTILINE)
_QUOTED = re.compile(r"[‘'`]([^’'`]*)[’'`]")
_AKA = re.compile(r"\s*\{aka [^}]*\}")
_IDENTIFIER = re.compile(r"[A-Za-z_]\w*")
# a declaration's name after its type (``'const int& n'``); a type spelling ends in a word of
# these (``'long unsigned int'``)
_DECLARED = re.compile(r"[\s*&]([A-Za-z_]\w*)$")
_TYPE_WORDS = frozenset({"int", "long", "short", "char", "signed", "unsigned", "float",
                         "double", "bool", "void", "auto", "const", "volatile", "wchar_t",
                         "char8_t", "char16_t", "char32_t"})
# Flags that only matter for output files or would turn a warning into a failed check.
_DROP = frozenset({"-c", "-S", "-E", "-M", "-MM", "-MD", "-MMD", "-Werror", "-w"})
_DROP_WITH_VALUE = frozenset({"-o", "-MF", "-MT", "-MQ", "-x"})


def _quoted(spelled: str) -> str:
    """A quoted name as the warning's key: a one-word name stays, a declaration
    (``'int n'``) becomes its declared name, a type spelling ``'…'``."""
    if _IDENTIFIER.fullmatch(spelled):
        return f"'{spelled}'"
    declared = _DECLARED.search(spelled)
    if declared is not None and declared.group(1) not in _TYPE_WORDS:
        return f"'{declared.group(1)}'"
    return "'…'"


def warning_lines(log: str) -> tuple[str, ...]:
    """The warnings a compiler printed, each as ``message [-Wflag]`` without its place, with
    quoted type spellings and ``{aka ...}`` left out (names of variables stay)."""
    out: list[str] = []
    for m in _WARNING.finditer(log):
        text = _AKA.sub("", m.group(1))
        out.append(_QUOTED.sub(lambda q: _quoted(q.group(1)), text))
    return tuple(out)


def added_warnings(original: Sequence[str], candidate: Sequence[str]) -> tuple[str, ...]:
    """The candidate's warnings beyond the original's (as multisets: one more of the same
    warning is a new one), in the order the compiler gave them."""
    left = Counter(original)
    out: list[str] = []
    for w in candidate:
        if left[w] > 0:
            left[w] -= 1
        else:
            out.append(w)
    return tuple(out)


def describe_added(added: Sequence[str], limit: int = 2) -> str:
    """The new warnings in words, for a rejection."""
    shown = "; ".join(added[:limit])
    more = f" (and {len(added) - limit} more)" if len(added) > limit else ""
    return f"it adds a compiler warning the original does not have: {shown}{more}"


def check_flags(flags: Sequence[str]) -> list[str]:
    """The unit's flags for a warnings check: output and dependency flags, ``-Werror`` and
    ``-w`` left out, ``WARNING_FLAGS`` added."""
    out: list[str] = []
    skip = False
    for flag in flags:
        if skip:
            skip = False
            continue
        if flag in _DROP_WITH_VALUE:
            skip = True
            continue
        if flag in _DROP or flag.startswith("-o") or flag.startswith("-Werror="):
            continue
        out.append(flag)
    return [*out, *WARNING_FLAGS]


# The original units' warnings, by the hash of compiler, flags and text (a job measures the
# candidates of one original one after another).
_ORIGINALS: OrderedDict[str, tuple[str, ...]] = OrderedDict()
_KEEP = 32


async def _warnings(sandbox: Sandbox, tc: Toolchain, workdir: Path, name: str, text: str,
                    ctx: JobContext, unprivileged: bool, timeout_s: float
                    ) -> tuple[str, ...] | None:
    """The warnings of ``text`` compiled as ``name`` in the sandbox; None when it does not
    compile (the build reports that)."""
    folder = workdir / "warnings"
    folder.mkdir(exist_ok=True)
    write_source(folder / name, text)
    if unprivileged:
        # nobody compiles it: the fresh work folder is still the invoking user's alone
        make_writable_for_runs(workdir, sandbox)
    argv = [tc.cc, "-fsyntax-only", *check_flags(tc.flags),
            *(["-fopenmp"] if tc.openmp else []), f"warnings/{name}"]
    res = await run_sandboxed(sandbox, argv, workdir, timeout_s=timeout_s,
                              limits=Limits(cpu_s=int(timeout_s) + 5), ctx=ctx,
                              unprivileged=unprivileged,
                              ro_binds=[*absolute_paths(tc.flags), *compiler_folders(tc)])
    if res.returncode != 0:
        return None
    return warning_lines(res.stderr + res.stdout)


async def warnings_refusal(base: Verdict, sandbox: Sandbox, tc: Toolchain, workdir: Path,
                           original_unit: str, candidate_unit: str, ctx: JobContext, *,
                           unprivileged: bool, timeout_s: float = 60) -> Verdict | None:
    """``base`` turned into a ``rejected`` verdict naming the warnings the candidate unit adds
    to the original's; None when it adds none (or does not compile: the build says why)."""
    key = hashlib.sha256("\0".join([tc.cc, *tc.flags, str(tc.openmp), original_unit])
                         .encode("utf-8")).hexdigest()
    before = _ORIGINALS.get(key)
    if before is None:
        before = await _warnings(sandbox, tc, workdir, f"original{tc.suffix}", original_unit,
                                 ctx, unprivileged, timeout_s)
        if before is None:
            return None
        _ORIGINALS[key] = before
        while len(_ORIGINALS) > _KEEP:
            _ORIGINALS.popitem(last=False)
    after = await _warnings(sandbox, tc, workdir, f"candidate{tc.suffix}", candidate_unit, ctx,
                            unprivileged, timeout_s)
    added = added_warnings(before, after) if after is not None else ()
    if not added:
        return None
    why = describe_added(added)
    return replace(base, verdict="rejected", message=f"Rejected, never built: {why}.",
                   validation_status="skipped", validation_detail=why,
                   notes=(*base.notes, *(f"new warning: {w}" for w in added)))
