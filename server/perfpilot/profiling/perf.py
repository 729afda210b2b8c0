"""Linux ``perf``: record with the software clock event, read ``perf script`` output."""

from __future__ import annotations

import re
import shutil
import tempfile
from collections.abc import Sequence
from pathlib import Path

from perfpilot.profiling.proc import Finished, ProfileError, run
from perfpilot.profiling.stacks import RawFrame, RawStack
from perfpilot.progress import JobContext

# cpu-clock is a software event: it works on virtual machines that expose no hardware counters.
EVENT = "cpu-clock"
SCRIPT_FIELDS = "comm,pid,tid,period,event,ip,sym,dso"

_EVENT_REST = r"(?P<event>[a-zA-Z][\w.:/-]*?):(?:\s+(?P<rest>.*))?$"
_HEADER = re.compile(r"^(?P<head>.*?)\s(?P<period>\d+)\s+" + _EVENT_REST)
_HEADER_NO_PERIOD = re.compile(r"^(?P<head>.*?)\s" + _EVENT_REST)
_FRAME = re.compile(r"^\s*(?P<addr>[0-9a-fA-F]+)\s+(?P<sym>.*?)\s+\((?P<dso>[^()]*)\)\s*$")


def _frame(match: re.Match[str]) -> RawFrame | None:
    dso = match.group("dso")
    if dso == "inlined":
        # perf's own inline expansion: the debug information adds these frames again.
        return None
    symbol = re.sub(r"\+0x[0-9a-fA-F]+$", "", match.group("sym").strip())
    return RawFrame(dso if dso.startswith("/") else "", int(match.group("addr"), 16),
                    "" if symbol == "[unknown]" else symbol or "")


def parse_script(text: str) -> tuple[str, list[RawStack]]:
    """Samples from ``perf script`` output (default fields or ``-F ...,period,event,ip,sym,dso``,
    with or without call chains). Returns the event and the stacks of that event only."""
    stacks: list[RawStack] = []
    event = ""
    current: list[RawFrame] | None = None
    weight = 1.0
    keep = False

    def close() -> None:
        if current is not None and keep and current:
            stacks.append(RawStack(tuple(current), weight))

    for line in text.splitlines():
        if not line.strip():
            close()
            current = None
            continue
        if not line[0].isspace():
            close()
            m = _HEADER.match(line) or _HEADER_NO_PERIOD.match(line)
            if m is None:
                current = None
                continue
            name = m.group("event")
            event = event or name
            keep = name == event
            period = m.groupdict().get("period")
            weight = float(period) if period else 1.0
            current = []
            rest = m.group("rest") or ""
            inline = _FRAME.match(" " + rest) if rest.strip() else None
            if inline is not None:
                f = _frame(inline)
                if f is not None:
                    current.append(f)
            continue
        if current is None:
            continue
        fm = _FRAME.match(line)
        if fm is not None:
            f = _frame(fm)
            if f is not None:
                current.append(f)
    close()
    return event, stacks


def perf_path() -> str | None:
    """The ``perf`` program, if installed."""
    return shutil.which("perf")


async def perf_works(ctx: JobContext | None = None) -> bool:
    """Whether ``perf record`` with the software clock event works here (kernel support,
    ``perf_event_paranoid``, containers that block ``perf_event_open``)."""
    if perf_path() is None:
        return False
    with tempfile.TemporaryDirectory(prefix="perfpilot-perf-") as tmp:
        data = Path(tmp) / "probe.data"
        try:
            done = await run(["perf", "record", "-q", "-e", EVENT, "-o", str(data), "--",
                              "/bin/true"], timeout_s=60.0, ctx=ctx)
        except ProfileError:
            return False
        return done.returncode == 0 and data.is_file() and data.stat().st_size > 0


async def script(data: Path, ctx: JobContext | None = None) -> str:
    """``perf script`` text of a ``perf.data`` file."""
    done = await run(["perf", "script", "-i", str(data), "-F", SCRIPT_FIELDS],
                     timeout_s=1800.0, ctx=ctx)
    if done.returncode != 0:
        raise ProfileError(f"perf script failed: {done.stderr.strip()[-400:]}")
    return done.stdout


async def record(argv: Sequence[str], cwd: Path, data: Path, *, frequency: int,
                 timeout_s: float, ctx: JobContext | None = None) -> Finished:
    """Run ``argv`` under ``perf record`` (DWARF call chains: programs built without frame
    pointers still get correct callers)."""
    done = await run(["perf", "record", "-q", "-e", EVENT, "-F", str(frequency),
                      "--call-graph", "dwarf", "-o", str(data), "--", *argv],
                     cwd=cwd, timeout_s=timeout_s, ctx=ctx)
    if not data.is_file() or data.stat().st_size == 0:
        raise ProfileError(f"perf record failed: {done.stderr.strip()[-400:]}")
    return done
