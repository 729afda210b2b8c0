"""Sampled call stacks to per-function self and inclusive costs, through the debug information."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from perfpilot.profiling.symbols import Extent, SourceFrame, symbolize
from perfpilot.profiling.values import FunctionCost, Profile, SourceStamp, file_digest


@dataclass(frozen=True)
class RawFrame:
    """One frame as the profiler recorded it: the binary, the address inside it (as the
    binary's own addresses count, so that the debug information applies), the profiler's
    symbol name (only for code without debug information)."""

    binary: str
    address: int | None
    symbol: str = ""


@dataclass(frozen=True)
class RawStack:
    """One sample: frames from the innermost (where the time went) outwards, and its weight."""

    frames: tuple[RawFrame, ...]
    weight: float = 1.0


@dataclass(frozen=True)
class _Fn:
    name: str
    binary: str


def _lookup_address(frame: RawFrame, leaf: bool) -> int | None:
    if frame.address is None:
        return None
    # A caller's frame holds a return address: the call instruction is the byte before it.
    return frame.address if leaf or frame.address == 0 else frame.address - 1


async def resolve(stacks: Sequence[RawStack]
                  ) -> tuple[dict[tuple[str, int], tuple[SourceFrame, ...]], dict[str, Extent]]:
    """Source frames for every (binary, address) of ``stacks`` and the functions' extents."""
    wanted: dict[str, set[int]] = {}
    for stack in stacks:
        for i, frame in enumerate(stack.frames):
            address = _lookup_address(frame, i == 0)
            if address is not None and frame.binary:
                wanted.setdefault(frame.binary, set()).add(address)
    frames: dict[tuple[str, int], tuple[SourceFrame, ...]] = {}
    spans: dict[str, Extent] = {}
    for binary, addresses in sorted(wanted.items()):
        path = Path(binary)
        if not path.is_file():
            continue
        chains, ext = await symbolize(path, addresses)
        frames.update(((binary, a), c) for a, c in chains.items())
        for name, extent in ext.items():
            spans.setdefault(f"{binary}\0{name}", extent)
    return frames, spans


def _expand(stack: RawStack, frames: dict[tuple[str, int], tuple[SourceFrame, ...]]
            ) -> list[_Fn]:
    out: list[_Fn] = []
    for i, frame in enumerate(stack.frames):
        address = _lookup_address(frame, i == 0)
        chain = frames.get((frame.binary, address)) if address is not None else None
        named = [f for f in chain or () if f.function]
        if named:
            out.extend(_Fn(f.function, frame.binary) for f in named)
        else:
            out.append(_Fn(frame.symbol or "[unknown]", frame.binary))
    return out


def _stamps(files: Iterable[str]) -> tuple[SourceStamp, ...]:
    stamps = []
    for name in sorted(set(files)):
        digest = file_digest(Path(name))
        if digest:
            stamps.append(SourceStamp(name, digest))
    return tuple(stamps)


def costs_to_profile(tool: str, event: str, total: float,
                     costs: dict[tuple[str, str], tuple[float, float]],
                     spans: dict[str, Extent], command: Sequence[str] = (), cwd: str = "",
                     notes: Sequence[str] = ()) -> Profile:
    """A Profile from (function, binary) -> (self, inclusive) costs and extents keyed
    ``binary + NUL + function``."""
    total = total if total > 0 else sum(s for s, _ in costs.values())
    functions = []
    for (name, binary), (own, incl) in costs.items():
        extent = spans.get(f"{binary}\0{name}")
        incl = min(max(incl, own), total) if total > 0 else incl
        functions.append(FunctionCost(
            name=name, self_cost=own, inclusive_cost=incl,
            self_share=own / total if total > 0 else 0.0,
            inclusive_share=incl / total if total > 0 else 0.0,
            file=extent.file if extent else "", first_line=extent.first_line if extent else 0,
            last_line=extent.last_line if extent else 0, binary=binary))
    functions.sort(key=lambda f: (-f.self_cost, -f.inclusive_cost, f.name))
    return Profile(tool=tool, event=event, total=total, functions=tuple(functions),
                   command=tuple(command), cwd=cwd, notes=tuple(notes),
                   sources=_stamps(f.file for f in functions if f.file))


async def stacks_to_profile(tool: str, event: str, stacks: Sequence[RawStack],
                            command: Sequence[str] = (), cwd: str = "",
                            notes: Sequence[str] = ()) -> Profile:
    """Aggregate samples: self cost to the innermost source function (inlined functions count
    as themselves), inclusive cost once per sample to every function on its stack."""
    frames, spans = await resolve(stacks)
    costs: dict[tuple[str, str], tuple[float, float]] = {}
    total = 0.0
    for stack in stacks:
        if not stack.frames:
            continue
        total += stack.weight
        chain = _expand(stack, frames)
        leaf = chain[0]
        for fn in dict.fromkeys(chain):
            own, incl = costs.get((fn.name, fn.binary), (0.0, 0.0))
            costs[(fn.name, fn.binary)] = (own + (stack.weight if fn == leaf else 0.0),
                                           incl + stack.weight)
    return costs_to_profile(tool, event, total, costs, spans, command, cwd, notes)
