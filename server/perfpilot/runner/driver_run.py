"""Running the measurement driver and reading what it printed (one JSON object a line)."""

from __future__ import annotations

import asyncio
import contextlib
import os
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from perfpilot.progress import JobContext
from perfpilot.runner.build import layout_names
from perfpilot.runner.channel import ChannelKey, read_events
from perfpilot.runner.sandbox import Limits, ProcResult, Sandbox, run_sandboxed, signal_name
from perfpilot.runner.stats import PairSample

LIB_A = "a/liba.so"
LIB_B = "b/libb.so"
_CHANNEL_CAP = 16 * 1024 * 1024


def layout_copies(workdir: Path, lib: str, copies: int) -> str:
    """The driver's comma list of ``lib``'s layout copies that exist in ``workdir``.

    The copies differ only in where their code sits (see ``build.compile_placed``); the driver
    rotates through them so that no single layout decides the ratio.
    """
    return ",".join(name for name in layout_names(lib, copies) if (workdir / name).is_file())


@dataclass(frozen=True)
class DriverRun:
    """Events the driver reported on its channel, and how the process ended.

    ``forged`` counts channel lines whose tag did not verify: something other than the driver
    wrote to the channel, so nothing this run reported can be trusted.
    """

    events: tuple[dict[str, Any], ...]
    proc: ProcResult
    forged: int = 0

    def first(self, kind: str) -> dict[str, Any] | None:
        """The first event of a kind."""
        return next((e for e in self.events if e.get("event") == kind), None)

    def last(self, kind: str) -> dict[str, Any] | None:
        """The last event of a kind."""
        return next((e for e in reversed(self.events) if e.get("event") == kind), None)

    @property
    def crashed(self) -> str | None:
        """How the process died abnormally ("SIGSEGV", "exit code 3"), or None."""
        if self.proc.timed_out:
            return None
        sig = self.proc.signal
        if sig is not None:
            return signal_name(sig)
        if self.proc.returncode != 0:
            return f"exit code {self.proc.returncode}"
        return None


def parse_events(stdout: str) -> tuple[dict[str, Any], ...]:
    """Every JSON event line of untagged driver output (a driver run by hand)."""
    return read_events(stdout, None).events


async def _drain(fd: int, cap: int) -> bytes:
    """Read a pipe until EOF without blocking the event loop (keeps the first ``cap`` bytes)."""
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader(limit=cap)
    transport, _ = await loop.connect_read_pipe(
        lambda: asyncio.StreamReaderProtocol(reader), os.fdopen(fd, "rb", 0))
    chunks: list[bytes] = []
    size = 0
    try:
        while True:
            data = await reader.read(65536)
            if not data:
                break
            if size < cap:
                chunks.append(data[: cap - size])
            size += len(data)
    finally:
        transport.close()
    return b"".join(chunks)


async def run_driver(sandbox: Sandbox, workdir: Path, mode: str, args: Mapping[str, object], *,
                     env: Mapping[str, str], timeout_s: float, limits: Limits, ctx: JobContext,
                     prefix: Sequence[str] = (), libs: tuple[str, str] = (LIB_A, LIB_B),
                     driver: str = "./driver") -> DriverRun:
    """Run ``driver MODE libA libB key=value...`` (optionally under a prefix such as valgrind).

    Events come back on a pipe of their own, each line tagged under a fresh key (see
    ``channel``); what the code under test prints on stdout or stderr is never read as one.
    """
    key = ChannelKey.fresh()
    read_fd, write_fd = os.pipe()
    drained = asyncio.ensure_future(_drain(read_fd, _CHANNEL_CAP))
    argv = [*prefix, driver, mode, *libs, *(f"{k}={v}" for k, v in args.items()),
            f"channel={write_fd}"]
    try:
        proc = await run_sandboxed(sandbox, argv, workdir, timeout_s=timeout_s, limits=limits,
                                   ctx=ctx, env=env, pass_fds=(write_fd,),
                                   stdin_data=key.handshake())
    finally:
        os.close(write_fd)
        if not drained.done():
            with contextlib.suppress(asyncio.TimeoutError):
                await asyncio.wait_for(asyncio.shield(drained), 5.0)
        if not drained.done():
            drained.cancel()
    text = drained.result().decode("utf-8", "replace") if drained.done() and not \
        drained.cancelled() else ""
    events = read_events(text, key)
    return DriverRun(events.events, proc, events.forged)


def pairs_of(event: Mapping[str, Any]) -> list[PairSample]:
    """Pairs of a "timing" event."""
    out: list[PairSample] = []
    for row in event.get("pairs", []):
        if isinstance(row, list) and len(row) >= 6:
            out.append(PairSample(*(int(x) for x in row[:6])))
        elif isinstance(row, list) and len(row) >= 4:
            out.append(PairSample(int(row[0]), int(row[1]), int(row[2]), int(row[3])))
    return out


@dataclass(frozen=True)
class Calibration:
    """Sizes tried while calibrating, with the time of one call of each side (ns)."""

    steps: tuple[tuple[int, int, int], ...] = field(default=())

    @classmethod
    def of(cls, run: DriverRun) -> Calibration:
        """Collect the "calib" events of a timing run."""
        return cls(tuple((int(e["size"]), int(e["a_ns"]), int(e["b_ns"]))
                         for e in run.events if e.get("event") == "calib"))

    def size_for(self, seconds: float) -> int | None:
        """Largest tried size whose slower call stays within ``seconds`` (for counting)."""
        fitting = [s for s, a, b in self.steps if max(a, b) <= seconds * 1e9]
        if fitting:
            return max(fitting)
        return min((s for s, _a, _b in self.steps), default=None)


_TOTALS = re.compile(r"^(?:totals|summary):\s*(\d+)", re.MULTILINE)


def callgrind_total(text: str) -> int | None:
    """Instruction count from a callgrind output file (``totals:`` line)."""
    counts = [int(m.group(1)) for m in _TOTALS.finditer(text)]
    return max(counts) if counts else None
