"""Addresses to source functions through the debug information, with binutils.

``addr2line -f -C -i`` reads DWARF (function names, files, lines, inlining chains); ``nm`` gives
the symbols' extents and ``objdump --dwarf=decodedline`` the line table's addresses. A function's
line range is the span of the lines its own addresses (and the call sites inlined into it) map
to, so it is read from the debug information, never guessed from a name.
"""

from __future__ import annotations

import bisect
import re
import shutil
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from perfpilot.profiling.proc import run

_UNKNOWN = "??"
_ROW = re.compile(r"\s(0x[0-9a-fA-F]+)(?:\s|$)")


@dataclass(frozen=True)
class SourceFrame:
    """A function and a source line (0 and "" when the debug information has none)."""

    function: str
    file: str
    line: int


@dataclass(frozen=True)
class Symbol:
    """A code symbol of a binary: start address, size in bytes, demangled name."""

    address: int
    size: int
    name: str


@dataclass(frozen=True)
class Extent:
    """Where a function's code is in the source: file and 1-based first and last lines."""

    file: str
    first_line: int
    last_line: int


def binutils_available() -> bool:
    """Whether addr2line, nm and objdump are on PATH."""
    return all(shutil.which(t) for t in ("addr2line", "nm", "objdump"))


def _frame(function: str, location: str) -> SourceFrame:
    where = location.split(" (discriminator")[0].strip()
    file, _, line = where.rpartition(":")
    if not file or file == _UNKNOWN or not line.isdigit():
        file, line = "", "0"
    return SourceFrame("" if function == _UNKNOWN else function, file, int(line))


def parse_addr2line(text: str) -> dict[int, tuple[SourceFrame, ...]]:
    """Parse ``addr2line -a -f -i`` output: address -> frames, innermost (inlined) first."""
    result: dict[int, tuple[SourceFrame, ...]] = {}
    address: int | None = None
    frames: list[SourceFrame] = []
    pending: str | None = None
    for line in text.splitlines():
        if pending is None and line.startswith("0x"):
            if address is not None:
                result[address] = tuple(frames)
            address, frames = int(line, 16), []
        elif pending is None:
            pending = line
        else:
            frames.append(_frame(pending, line))
            pending = None
    if address is not None:
        result[address] = tuple(frames)
    return result


async def locate(binary: Path, addresses: Iterable[int]) -> dict[int, tuple[SourceFrame, ...]]:
    """Source frames of each address of ``binary`` (innermost inlined function first)."""
    wanted = sorted(set(addresses))
    if not wanted:
        return {}
    data = "".join(f"{a:#x}\n" for a in wanted).encode()
    done = await run(["addr2line", "-a", "-f", "-C", "-i", "-e", str(binary)],
                     stdin_data=data, timeout_s=300.0)
    if done.returncode != 0:
        return {}
    return parse_addr2line(done.stdout)


def parse_nm(text: str) -> list[Symbol]:
    """Code symbols with a size from ``nm -C -S --defined-only`` output, by address."""
    symbols: list[Symbol] = []
    for line in text.splitlines():
        parts = line.split(None, 3)
        if len(parts) == 4 and parts[2] in "tTwWi" and len(parts[2]) == 1:
            try:
                symbols.append(Symbol(int(parts[0], 16), int(parts[1], 16), parts[3]))
            except ValueError:
                continue
    symbols.sort(key=lambda s: s.address)
    return symbols


async def symbols(binary: Path) -> list[Symbol]:
    """The code symbols of ``binary`` (the dynamic table when the static one was stripped)."""
    for extra in ((), ("-D",)):
        done = await run(["nm", "-C", "-S", "--defined-only", *extra, str(binary)],
                         timeout_s=120.0)
        found = parse_nm(done.stdout) if done.returncode == 0 else []
        if found:
            return found
    return []


@dataclass(frozen=True)
class SymbolTable:
    """Code symbols sorted by address, for looking up the one that holds an address."""

    symbols: tuple[Symbol, ...]
    starts: tuple[int, ...]

    @staticmethod
    def of(found: Iterable[Symbol]) -> SymbolTable:
        """A table of ``found``, sorted."""
        ordered = tuple(sorted(found, key=lambda s: s.address))
        return SymbolTable(ordered, tuple(s.address for s in ordered))

    def containing(self, address: int) -> Symbol | None:
        """The symbol whose extent holds ``address`` (aliases share one start address)."""
        i = bisect.bisect_right(self.starts, address)
        for s in reversed(self.symbols[max(0, i - 8):i]):
            if s.address <= address < s.address + max(s.size, 1):
                return s
        return None


async def line_table_addresses(binary: Path) -> list[int]:
    """Every address the DWARF line table names, sorted."""
    done = await run(["objdump", "--dwarf=decodedline", str(binary)], timeout_s=300.0)
    if done.returncode != 0:
        return []
    found = {int(m.group(1), 16) for line in done.stdout.splitlines()
             for m in [_ROW.search(line)] if m}
    return sorted(found)


def extents(chains: Iterable[tuple[SourceFrame, ...]]) -> dict[str, Extent]:
    """Line ranges per function, from every frame of every chain.

    An inner frame's line lies in that (inlined) function's body; an outer frame's line is a
    call site inside the outer function: either way the line belongs to the frame's function.
    A function's file is the one most of its frames name: the line table sometimes gives a
    function's last instruction the line of a header function inlined into it.
    """
    lines: dict[str, dict[str, list[int]]] = {}
    for chain in chains:
        for f in chain:
            if f.function and f.file and f.line > 0:
                lines.setdefault(f.function, {}).setdefault(f.file, []).append(f.line)
    result: dict[str, Extent] = {}
    for function, by_file in lines.items():
        file = max(by_file, key=lambda k: (len(by_file[k]), k))
        seen = by_file[file]
        result[function] = Extent(file, min(seen), max(seen))
    return result


async def symbolize(binary: Path, addresses: Iterable[int]
                    ) -> tuple[dict[int, tuple[SourceFrame, ...]], dict[str, Extent]]:
    """Frames for ``addresses`` and the line ranges of the functions involved.

    The line ranges also use every line-table address of the symbols the addresses fall in, so
    a function's range covers its whole body, not only the lines that were sampled.
    """
    wanted = set(addresses)
    table = SymbolTable.of(await symbols(binary))
    hit = {s for a in wanted for s in [table.containing(a)] if s is not None}
    rows: set[int] = set()
    if hit:
        for a in await line_table_addresses(binary):
            s = table.containing(a)
            if s is not None and s in hit:
                rows.add(a)
    chains = await locate(binary, wanted | rows)
    return {a: chains.get(a, ()) for a in wanted}, extents(chains.values())


async def symbol_extents(binary: Path, names: Iterable[str]) -> dict[str, Extent]:
    """Source extents of the named (demangled) symbols of ``binary``, by the debug information.

    For profiles that name functions by symbol (callgrind, gprof): the symbol table gives the
    address range, and the line table and ``addr2line`` give file and lines.
    """
    wanted = set(names)
    table = [s for s in await symbols(binary) if s.name in wanted]
    if not table:
        return {}
    rows = [a for a in await line_table_addresses(binary)
            if any(s.address <= a < s.address + s.size for s in table)]
    rows.extend(s.address for s in table)
    chains = await locate(binary, rows)
    spans = extents(chains.values())
    result: dict[str, Extent] = {}
    for s in table:
        outer = [chains[a][-1].function for a in rows
                 if s.address <= a < s.address + max(s.size, 1) and chains.get(a)]
        named = [n for n in outer if n in spans]
        if named:
            result[s.name] = spans[max(set(named), key=named.count)]
    return result
