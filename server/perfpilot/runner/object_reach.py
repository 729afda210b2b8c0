"""What one relocatable object reaches from a root symbol, read from its ELF sections.

The unit is compiled with ``-ffunction-sections -fdata-sections`` for this reading, so every
function and every variable sits in a section of its own and every reference from one to
another is a relocation (a call within one section needs none, so one ``.text`` for the whole
unit would hide which function calls what). Following relocations from the root's section
through the object's own sections (COMDAT template instantiations included) gives the
undefined symbols the root can reach, the writable data it can reach (state that outlives a
call), and the code sections it runs.

Pure reading, no subprocess: callers run it in a thread.
"""

from __future__ import annotations

import re
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

from elftools.common.exceptions import ELFError
from elftools.elf.elffile import ELFFile
from elftools.elf.relocation import RelocationSection
from elftools.elf.sections import Section, Symbol, SymbolTableSection

_SHF_WRITE = 0x1
_SHF_ALLOC = 0x2
_SHF_EXECINSTR = 0x4
_SHF_TLS = 0x400
# Sections run when the library loads or unloads: their entries are roots of load-time code.
_LOAD_TYPES = frozenset({"SHT_INIT_ARRAY", "SHT_FINI_ARRAY", "SHT_PREINIT_ARRAY"})
_LOAD_NAME = re.compile(r"^\.(init_array|fini_array|preinit_array|ctors|dtors)(\.|$)")
# Sections every compiled unit may have; any other allocated section is the unit's own.
USUAL_SECTION = re.compile(
    r"^(\.text|\.rodata|\.data|\.bss|\.tbss|\.tdata|\.gcc_except_table|\.eh_frame|\.note|"
    r"\.comment|\.group|\.rela?\.|\.symtab|\.strtab|\.shstrtab|\.debug|\.llvm_addrsig|"
    r"\.sdata|\.sbss|\.srodata|\.stack_sizes|\.gnu\.build\.attributes)"
    r"|^$")


class ObjectUnreadable(Exception):
    """The file is not a relocatable ELF object this reader understands."""


@dataclass(frozen=True)
class StateSymbol:
    """Writable data the code can reach: its symbol and the section it lives in."""

    symbol: str
    section: str
    thread_local: bool


@dataclass(frozen=True)
class Reach:
    """What a set of roots reaches in one object."""

    imports: frozenset[str]  # undefined symbols, as the object spells them (mangled)
    state: frozenset[StateSymbol]
    code: frozenset[str]  # names of executable sections reached


@dataclass(frozen=True)
class ObjectFacts:
    """One object read for the policy: what its entry reaches, what each function its
    load-time tables list reaches (by the function's section name), and the allocated
    sections beyond the usual ones."""

    entry_found: bool
    entry: Reach
    load: tuple[tuple[str, Reach], ...]
    unusual_sections: frozenset[str]

    @property
    def load_code(self) -> frozenset[str]:
        """Every code section load-time code reaches."""
        return frozenset(c for _, reach in self.load for c in reach.code)


def _is_state(section: Section) -> bool:
    flags = int(section["sh_flags"])
    if flags & _SHF_TLS:
        return True
    if not flags & _SHF_WRITE or not flags & _SHF_ALLOC:
        return False
    # Relocated once at load, read-only afterwards; load-time tables are roots, not data.
    return not section.name.startswith(".data.rel.ro") and not _load_section(section)


def _load_section(section: Section) -> bool:
    return str(section["sh_type"]) in _LOAD_TYPES or bool(_LOAD_NAME.match(section.name))


class _Graph:
    """Sections as nodes, relocations as edges, undefined symbols as leaves."""

    def __init__(self, elf: ELFFile) -> None:
        self.sections: list[Section] = list(elf.iter_sections())
        table = next((s for s in self.sections if isinstance(s, SymbolTableSection)), None)
        self.symbols: list[Symbol] = list(table.iter_symbols()) if table is not None else []
        self.edges: dict[int, set[int]] = defaultdict(set)
        self.imports: dict[int, set[str]] = defaultdict(set)
        self.commons: dict[int, set[str]] = defaultdict(set)
        self.defined: dict[int, list[str]] = defaultdict(list)
        for sym in self.symbols:
            shndx = sym["st_shndx"]
            if isinstance(shndx, int) and sym.name and \
                    sym["st_info"]["type"] not in ("STT_SECTION", "STT_FILE"):
                self.defined[shndx].append(sym.name)
        for section in self.sections:
            if isinstance(section, RelocationSection):
                self._relocations(section)

    def _relocations(self, section: RelocationSection) -> None:
        target = int(section["sh_info"])
        for rel in section.iter_relocations():
            index = int(rel["r_info_sym"])
            if index <= 0 or index >= len(self.symbols):
                continue
            sym = self.symbols[index]
            shndx = sym["st_shndx"]
            if isinstance(shndx, int):
                self.edges[target].add(shndx)
            elif shndx == "SHN_UNDEF" and sym.name:
                self.imports[target].add(sym.name)
            elif shndx == "SHN_COMMON" and sym.name:
                self.commons[target].add(sym.name)

    def root_sections(self, name: str) -> list[int]:
        return [sym["st_shndx"] for sym in self.symbols
                if sym.name == name and isinstance(sym["st_shndx"], int)]

    def reach(self, roots: list[int]) -> Reach:
        seen: set[int] = set()
        stack = list(roots)
        imports: set[str] = set()
        state: set[StateSymbol] = set()
        code: set[str] = set()
        while stack:
            index = stack.pop()
            if index in seen or not 0 < index < len(self.sections):
                continue
            seen.add(index)
            section = self.sections[index]
            flags = int(section["sh_flags"])
            if flags & _SHF_EXECINSTR:
                code.add(section.name)
            if _is_state(section):
                tls = bool(flags & _SHF_TLS)
                names = self.defined.get(index) or [section.name]
                state.update(StateSymbol(n, section.name, tls) for n in names)
            imports |= self.imports.get(index, set())
            state.update(StateSymbol(n, "COMMON", False) for n in self.commons.get(index, ()))
            stack.extend(self.edges.get(index, ()))
        return Reach(frozenset(imports), frozenset(state), frozenset(code))


def read_object(path: Path, entry: str) -> ObjectFacts:
    """Read ``path`` (a relocatable object compiled with function and data sections) and
    follow relocations from the section defining ``entry``, and from load-time tables.

    When ``entry`` is not defined there, every executable section is a root (coarser, never
    laxer). Raises ``ObjectUnreadable`` for anything but a relocatable ELF object.
    """
    try:
        with path.open("rb") as stream:
            elf = ELFFile(stream)
            if elf["e_type"] != "ET_REL":
                raise ObjectUnreadable(f"{path.name} is not a relocatable object")
            graph = _Graph(elf)
    except (ELFError, OSError, ValueError, KeyError) as exc:
        raise ObjectUnreadable(f"{path.name}: {exc}") from exc
    roots = graph.root_sections(entry)
    found = bool(roots)
    if not found:
        roots = [i for i, s in enumerate(graph.sections)
                 if int(s["sh_flags"]) & _SHF_EXECINSTR]
    tables = [i for i, s in enumerate(graph.sections) if _load_section(s)]
    listed = sorted({t for i in tables for t in graph.edges.get(i, ())})
    load = tuple((graph.sections[t].name, graph.reach([t])) for t in listed)
    # A table entry that names a symbol outside the object: load-time code all the same.
    load += tuple((name, Reach(frozenset({name}), frozenset(), frozenset()))
                  for i in tables for name in sorted(graph.imports.get(i, ())))
    unusual = frozenset(
        s.name for s in graph.sections
        if int(s["sh_flags"]) & _SHF_ALLOC and not _load_section(s)
        and not USUAL_SECTION.match(s.name))
    return ObjectFacts(found, graph.reach(roots), load, unusual)


def unit_imports(path: Path) -> frozenset[str]:
    """Every undefined symbol of an object or shared library (the whole unit's imports, not
    one function's): what a build the policy did not read symbol by symbol may call."""
    try:
        with path.open("rb") as stream:
            elf = ELFFile(stream)
            table = elf.get_section_by_name(".dynsym" if elf["e_type"] == "ET_DYN"
                                            else ".symtab")
            if not isinstance(table, SymbolTableSection):
                return frozenset()
            return frozenset(s.name for s in table.iter_symbols()
                             if s["st_shndx"] == "SHN_UNDEF" and s.name)
    except (ELFError, OSError, ValueError, KeyError) as exc:
        raise ObjectUnreadable(f"{path.name}: {exc}") from exc
