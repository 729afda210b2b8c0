"""The capability policy on what the compiler resolved: the candidate's object against the
original's, read before any of the candidate runs.

The syntax-tree policy (``runner/capabilities.py``) judges names as written; this one judges the
symbols the compiled code imports, so no spelling, shadowing or macro trick can hide a call.
Both units are compiled once more for this reading with function and data sections
(``build.compile_check_object``): from the measured entry, relocations lead through the
object's own functions and data to the undefined symbols and writable data the function can
reach. The candidate is refused when it reaches:

- a symbol the original's function does not reach, unless it is pure library work
  (``object_symbols``); a standard stream only on a channel the original uses; threads only
  when the original starts threads;
- writable data the original's function does not reach (a static local, a global, a
  thread-local): state that outlives a call can remember an earlier answer. Whole programs are
  exempt, they run once per process;
- load-time code (``.init_array``, ``.ctors``) the original does not have, beyond the standard
  streams' initialiser that ``<iostream>`` adds, and sections of its own;
- system call instructions the original does not contain.

Builds the policy cannot read function by function (sanitized builds, builds for instruction
counting, builds without added flags) are compared on the whole unit's imports instead
(``unit_violations``): they define other macros, so a candidate could hide a call behind one.
"""

from __future__ import annotations

import asyncio
import contextlib
import re
import shutil
from dataclasses import dataclass
from pathlib import Path

from perfpilot.runner.object_reach import (
    ObjectFacts,
    ObjectUnreadable,
    Reach,
    StateSymbol,
    read_object,
    unit_imports,
)
from perfpilot.runner.object_symbols import FAMILY_LABELS, PURE, Kind, classify, family_allowed

_TOOL_TIMEOUT_S = 30.0
# What `#include <iostream>` runs when a library loads: the standard streams' initialiser.
_STREAM_INIT_IMPORTS = frozenset({"_ZNSt8ios_base4InitC1Ev", "_ZNSt8ios_base4InitD1Ev",
                                  "__cxa_atexit", "__dso_handle", "_GLOBAL_OFFSET_TABLE_"})
_STREAM_INIT_STATE = frozenset({"_ZStL8__ioinit"})
# Instructions that enter the kernel directly (x86-64, i386 and AArch64 spellings).
_SYSCALL_INSN = re.compile(r"^\s*[0-9a-f]+:\s+(syscall|sysenter|int\s+\$0x80|svc\b)")
_SECTION_LINE = re.compile(r"^Disassembly of section (\S+):")
# A named OpenMP critical section's lock: the runtime's, not data the code reads.
_OMP_LOCK = re.compile(r"^\.gomp_critical_user_")


@dataclass(frozen=True)
class ObjectViolation:
    """One thing the candidate's object does that the policy refuses."""

    construct: str  # the symbol, variable, section or instruction, as shown to the user
    reason: str  # the whole clause: "imports `system` (process control), which ..."

    def describe(self) -> str:
        """The clause, for messages and notes."""
        return self.reason


def _tool(*names: str) -> str | None:
    return next((p for n in names if (p := shutil.which(n)) is not None), None)


async def _run_tool(argv: list[str], stdin: str = "") -> str:
    """stdout of one of our own tools (binutils) on our own files; "" when it fails."""
    proc = await asyncio.create_subprocess_exec(
        *argv, stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.DEVNULL)
    try:
        out, _ = await asyncio.wait_for(proc.communicate(stdin.encode()), _TOOL_TIMEOUT_S)
    except (asyncio.TimeoutError, asyncio.CancelledError):
        with contextlib.suppress(ProcessLookupError):
            proc.kill()
        await proc.wait()
        raise
    return out.decode("utf-8", "replace") if proc.returncode == 0 else ""


async def demangle(symbols: list[str]) -> dict[str, str]:
    """Demangled names of C++ ``symbols`` (one ``c++filt`` call); others map to themselves."""
    mangled = sorted({s for s in symbols if s.startswith("_Z")})
    names = {s: s for s in symbols}
    tool = _tool("c++filt", "llvm-cxxfilt")
    if not mangled or tool is None:
        return names
    lines = (await _run_tool([tool], "\n".join(mangled) + "\n")).splitlines()
    if len(lines) == len(mangled):
        names.update(zip(mangled, lines, strict=True))
    return names


async def syscall_sections(path: Path) -> frozenset[str]:
    """The code sections of ``path`` holding an instruction that enters the kernel."""
    tool = _tool("objdump", "llvm-objdump")
    if tool is None:
        return frozenset()
    text = await _run_tool([tool, "-d", "--no-show-raw-insn", str(path)])
    found: set[str] = set()
    section = ""
    for line in text.splitlines():
        head = _SECTION_LINE.match(line)
        if head is not None:
            section = head.group(1)
        elif _SYSCALL_INSN.match(line):
            found.add(section)
    return frozenset(found)


def _families(imports: frozenset[str], names: dict[str, str]) -> frozenset[str]:
    out = set()
    for sym in imports:
        kind, _ = classify(sym, names.get(sym, sym))
        if kind.verdict == "family":
            out.add(kind.family)
    return frozenset(out)


def _allowed(kind: Kind, families: frozenset[str]) -> bool:
    return kind == PURE or (kind.verdict == "family" and family_allowed(kind.family, families))


def _label(kind: Kind) -> str:
    return FAMILY_LABELS.get(kind.family, kind.family) if kind.verdict == "family" \
        else kind.label


def _state_key(symbol: str) -> str:
    """A variable's name as both objects spell it (C static locals get a numbered suffix)."""
    return re.sub(r"\.\d+$", "", symbol)


def _state_shown(state: StateSymbol, names: dict[str, str]) -> tuple[str, str]:
    """(the variable's name, what kind of variable) for a message."""
    text = names.get(state.symbol, state.symbol).replace("(anonymous namespace)::", "")
    guard = text.startswith("guard variable for ")
    text = text.removeprefix("guard variable for ")
    if state.thread_local:
        kind = "a thread-local variable"
    elif guard or ")::" in text or re.search(r"\.\d+$", state.symbol):
        kind = "a static local"
    elif "::" in text:
        kind = "a static member or namespace variable"
    else:
        kind = "a global variable"
    name = re.sub(r"\.\d+$", "", text.rsplit(")::", 1)[-1])
    return name, kind


def _import_violations(cand: Reach, orig: Reach, names: dict[str, str], families: frozenset[str],
                       when: str) -> list[ObjectViolation]:
    out = []
    reported: set[str] = set()
    for sym in sorted(cand.imports - orig.imports, key=lambda s: (s.startswith("_Z"), s)):
        kind, shown = classify(sym, names.get(sym, sym))
        if _allowed(kind, families) or kind.family in reported:
            continue
        if kind.verdict == "family":
            reported.add(kind.family)  # one symbol names a family (threads: four of them)
        out.append(ObjectViolation(shown, f"{when} `{shown}` ({_label(kind)}), which the "
                                          "original does not"))
    return out


def _stream_initialiser(reach: Reach) -> bool:
    """Whether load-time code only initialises the standard streams (``<iostream>``)."""
    return "_ZNSt8ios_base4InitC1Ev" in reach.imports \
        and reach.imports <= _STREAM_INIT_IMPORTS \
        and {s.symbol for s in reach.state} <= _STREAM_INIT_STATE


def _function_of(section: str) -> str:
    """The function a code section holds, from its name (``.text.startup._ZL4initv``)."""
    return re.sub(r"^\.text(\.(startup|exit|hot|unlikely))?\.", "", section)


def _load_key(section: str) -> str:
    """A load-time function's section as both objects name it: the unit's initialiser is
    named after its source file (``_GLOBAL__sub_I_unit.cpp``)."""
    return re.sub(r"(_GLOBAL__sub_[ID]_).*$", r"\1", section)


def _load_violations(cand: ObjectFacts, orig: ObjectFacts,
                     names: dict[str, str]) -> list[ObjectViolation]:
    """Load-time code (constructors of globals, ``constructor`` attributes): a function the
    original's tables do not list may only initialise the standard streams; one they list
    (the unit's initialiser) may not gain imports or variables."""
    known = {_load_key(section): reach for section, reach in orig.load}
    out: list[ObjectViolation] = []
    for section, reach in cand.load:
        before = known.get(_load_key(section))
        if before is None:
            if not _stream_initialiser(reach):
                shown = names.get(_function_of(section), _function_of(section))
                out.append(ObjectViolation(shown, f"adds code that runs when the library loads "
                                                  f"(`{shown}`), which the original does not "
                                                  "have"))
            continue
        extra = Reach(reach.imports - before.imports - _STREAM_INIT_IMPORTS, frozenset(),
                      frozenset())
        out += _import_violations(extra, Reach(frozenset(), frozenset(), frozenset()), names,
                                  frozenset(), "runs, when the library loads,")
        had = {_state_key(s.symbol) for s in before.state}
        for state in sorted(reach.state, key=lambda s: s.symbol):
            if _state_key(state.symbol) not in had | _STREAM_INIT_STATE:
                name, _ = _state_shown(state, names)
                out.append(ObjectViolation(name, f"sets `{name}` when the library loads, which "
                                                 "the original does not"))
    return out


def _state_violations(cand: Reach, orig: Reach,
                      names: dict[str, str]) -> list[ObjectViolation]:
    known = {_state_key(s.symbol) for s in orig.state}
    out: list[ObjectViolation] = []
    seen: set[str] = set()
    for state in sorted(cand.state, key=lambda s: s.symbol):
        if _state_key(state.symbol) in known or _OMP_LOCK.match(state.symbol):
            continue
        name, kind = _state_shown(state, names)
        if name in seen:
            continue  # a static local and its guard variable
        seen.add(name)
        out.append(ObjectViolation(name, f"keeps state between calls (`{name}`, {kind}), "
                                         "which can remember an earlier call's answer"))
    return out


async def object_violations(original: Path, candidate: Path, entry: str, *,
                            state: bool = True) -> tuple[ObjectViolation, ...]:
    """What the candidate's object (compiled with function and data sections) does that the
    original's does not and the policy refuses, judged from the function ``entry`` names.
    ``state=False`` allows writable data (whole programs run once per process).

    Raises ``ObjectUnreadable`` when either file is not a relocatable ELF object.
    """
    orig, cand = await asyncio.to_thread(
        lambda: (read_object(original, entry), read_object(candidate, entry)))
    symbols = [*cand.entry.imports, *orig.entry.imports,
               *(s.symbol for s in cand.entry.state),
               *(n for section, reach in cand.load
                 for n in (_function_of(section), *reach.imports,
                           *(s.symbol for s in reach.state)))]
    code = cand.entry.code | cand.load_code
    names, kernel = await asyncio.gather(
        demangle(symbols),
        syscall_sections(candidate) if code else _no_sections())
    found = _import_violations(cand.entry, orig.entry, names,
                               _families(orig.entry.imports, names), "imports")
    found += _load_violations(cand, orig, names)
    if state:
        found += _state_violations(cand.entry, orig.entry, names)
    for section in sorted(cand.unusual_sections - orig.unusual_sections):
        found.append(ObjectViolation(section, f"puts code or data in the section `{section}`, "
                                              "which the original's object does not have"))
    if kernel & code and not await _original_enters_kernel(original, orig):
        found.append(ObjectViolation("syscall", "contains an instruction that enters the "
                                                "kernel directly (`syscall`), which the "
                                                "original does not"))
    return tuple(found)


async def _no_sections() -> frozenset[str]:
    return frozenset()


async def _original_enters_kernel(path: Path, facts: ObjectFacts) -> bool:
    return bool(await syscall_sections(path) & (facts.entry.code | facts.load_code))


async def unit_violations(original: Path, candidate: Path) -> tuple[ObjectViolation, ...]:
    """The coarse check for builds read as a whole: symbols the candidate's build imports that
    the original's same build does not, beyond pure library work (sanitizer checks included)."""
    orig, cand = await asyncio.to_thread(
        lambda: (unit_imports(original), unit_imports(candidate)))
    extra = sorted(cand - orig)  # sanitizer entry points are pure (object_symbols)
    names = await demangle([*extra, *orig])
    families = _families(orig, names)
    return tuple(_import_violations(Reach(frozenset(extra), frozenset(), frozenset()),
                                    Reach(frozenset(), frozenset(), frozenset()), names,
                                    families, "imports"))


__all__ = ["ObjectUnreadable", "ObjectViolation", "object_violations", "unit_violations"]
