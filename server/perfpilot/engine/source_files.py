"""Reading a source file the editor has not opened, when the file may be anything.

A document URI comes from the client, so it may name a FIFO (a read blocks forever), a device
(``/dev/zero`` never ends), a procfs file, or a file on a hung network mount. Only regular files
are read, never beyond the size ``fstat`` reported when they were opened (procfs files report 0
and read as empty), never beyond a size cap, opened without blocking, and in a worker thread
with a timeout, so the event loop never waits on the file system.
"""

from __future__ import annotations

import asyncio
import os
import stat
from concurrent.futures import Executor
from pathlib import Path


class SourceReadError(Exception):
    """The file was not read; the message says why, in one sentence."""


def read_regular_file(path: Path, max_bytes: int) -> bytes:
    """The bytes of a regular file of at most ``max_bytes``; raises SourceReadError."""
    if not path.is_absolute():
        raise SourceReadError(f"{path}: not an absolute path")
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY | getattr(os, "O_CLOEXEC", 0))
    except OSError as exc:
        raise SourceReadError(f"{path}: cannot open: {exc.strerror}") from exc
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise SourceReadError(f"{path}: not a regular file")
        if info.st_size > max_bytes:
            raise SourceReadError(f"{path}: larger than {max_bytes} bytes")
        chunks: list[bytes] = []
        left = info.st_size
        while left > 0:
            chunk = os.read(fd, min(left, 1 << 20))
            if not chunk:
                break
            chunks.append(chunk)
            left -= len(chunk)
        return b"".join(chunks)
    except OSError as exc:
        raise SourceReadError(f"{path}: cannot read: {exc.strerror}") from exc
    finally:
        os.close(fd)


async def read_source_file(path: Path, max_bytes: int, timeout_s: float,
                           executor: Executor | None = None) -> str:
    """The text of a regular file, read off the event loop within ``timeout_s`` seconds.

    Raises SourceReadError for anything else: not a regular file, too large, not UTF-8, or
    not read in time (the worker thread is then abandoned; the caller goes on).
    """
    loop = asyncio.get_running_loop()
    future = loop.run_in_executor(executor, read_regular_file, path, max_bytes)
    try:
        data = await asyncio.wait_for(future, timeout_s)
    except TimeoutError as exc:
        raise SourceReadError(f"{path}: not read within {timeout_s:g} s") from exc
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise SourceReadError(f"{path}: not valid UTF-8") from exc
