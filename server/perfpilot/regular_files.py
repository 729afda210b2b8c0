"""Reading a file whose path came from outside (an editor, a command argument), when the path
may name anything.

A FIFO blocks a read forever, a device (``/dev/zero``) never ends, a procfs file reports size 0,
and a file on a hung network mount blocks whatever thread reads it. So: the file is opened
without blocking (``O_NONBLOCK``: opening a FIFO does not wait for a writer), ``fstat`` must say
it is a regular file, nothing past the size ``fstat`` reported is read (procfs files read as
empty), a size cap refuses larger files before any byte is read, and the async form reads in a
worker thread with a timeout, so the event loop never waits on the file system.
"""

from __future__ import annotations

import asyncio
import functools
import os
import stat
from concurrent.futures import Executor
from pathlib import Path

_CHUNK = 1 << 20


class FileReadError(Exception):
    """The file was not read; the message says why, in one sentence."""


def _read(path: Path, max_bytes: int | None, head: int | None) -> bytes:
    if not path.is_absolute():
        raise FileReadError(f"{path}: not an absolute path")
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY | getattr(os, "O_CLOEXEC", 0))
    except OSError as exc:
        raise FileReadError(f"{path}: cannot open: {exc.strerror}") from exc
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise FileReadError(f"{path}: not a regular file")
        if max_bytes is not None and info.st_size > max_bytes:
            raise FileReadError(f"{path}: larger than {max_bytes} bytes")
        chunks: list[bytes] = []
        left = info.st_size if head is None else min(info.st_size, head)
        while left > 0:
            chunk = os.read(fd, min(left, _CHUNK))
            if not chunk:
                break
            chunks.append(chunk)
            left -= len(chunk)
        return b"".join(chunks)
    except OSError as exc:
        raise FileReadError(f"{path}: cannot read: {exc.strerror}") from exc
    finally:
        os.close(fd)


def read_regular_file(path: Path, max_bytes: int) -> bytes:
    """The bytes of a regular file of at most ``max_bytes``; raises FileReadError."""
    return _read(path, max_bytes, None)


def read_file_head(path: Path, n: int) -> bytes:
    """The first ``n`` bytes of a regular file of any size; raises FileReadError."""
    return _read(path, None, n)


async def read_regular_file_async(path: Path, max_bytes: int, timeout_s: float,
                                  executor: Executor | None = None, *,
                                  head: int | None = None) -> bytes:
    """``read_regular_file`` (or, with ``head``, ``read_file_head``) in a worker thread, given up
    after ``timeout_s`` seconds (the thread is then abandoned; the caller goes on).

    ``executor``: a pool of its own bounds how many threads a hung file system can hold."""
    loop = asyncio.get_running_loop()
    read = (functools.partial(read_file_head, path, head) if head is not None
            else functools.partial(read_regular_file, path, max_bytes))
    try:
        return await asyncio.wait_for(loop.run_in_executor(executor, read), timeout_s)
    except TimeoutError as exc:
        raise FileReadError(f"{path}: not read within {timeout_s:g} s") from exc
