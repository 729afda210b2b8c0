"""Cores of its own for each function a machine measures at once.

Ray reserves a number of CPUs per task, not which ones, so two tasks on one machine could time
on the same core while another idles. A task therefore takes cores no other PerfPilot task on
the machine holds (an exclusive lock on a file per core, released when the process lets go of
it, even by dying) and pins itself to them; the compilers and timing drivers it starts inherit
the pinning.
"""

from __future__ import annotations

import fcntl
import os
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path


def core_list(cores: tuple[int, ...]) -> str:
    """``0-3,6``: core ids as ranges."""
    parts: list[str] = []
    for core in sorted(cores):
        if parts and parts[-1].split("-")[-1] == str(core - 1):
            parts[-1] = f"{parts[-1].split('-')[0]}-{core}"
        else:
            parts.append(str(core))
    return ",".join(parts)


def _lock_folder() -> Path:
    return Path(tempfile.gettempdir()) / f"perfpilot-cores-{os.getuid()}"


@contextmanager
def pinned_cores(count: int, *, folder: Path | None = None,
                 wait_s: float = 30.0) -> Iterator[tuple[int, ...]]:
    """Pin the calling thread (and what it starts) to ``count`` cores no other holder has,
    waiting up to ``wait_s`` for them; yields the cores, or ``()`` when it runs unpinned:
    no affinity on this platform, nothing to choose (``count`` covers every allowed core), or
    no free cores in time (a machine given more Ray CPUs than it has)."""
    try:
        allowed = tuple(sorted(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        yield ()
        return
    if count <= 0 or count >= len(allowed):
        yield ()
        return
    where = folder or _lock_folder()
    where.mkdir(parents=True, exist_ok=True)
    held: dict[int, int] = {}  # core -> the open lock file
    try:
        deadline = time.monotonic() + wait_s
        while len(held) < count:
            for core in allowed:
                if len(held) == count or core in held:
                    continue
                fd = os.open(where / f"core-{core}.lock", os.O_CREAT | os.O_RDWR, 0o600)
                try:
                    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                except OSError:
                    os.close(fd)
                    continue
                held[core] = fd
            if len(held) < count:
                if time.monotonic() > deadline:
                    break
                time.sleep(0.1)
        if len(held) < count:
            yield ()
            return
        cores = tuple(sorted(held))
        os.sched_setaffinity(0, cores)
        try:
            yield cores
        finally:
            os.sched_setaffinity(0, allowed)
    finally:
        for fd in held.values():
            os.close(fd)
