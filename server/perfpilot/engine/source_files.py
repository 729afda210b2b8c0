"""Reading a source file the editor has not opened, when the file may be anything.

A document URI comes from the client, so it may name a FIFO, a device, a procfs file or a file
on a hung network mount: it is read as ``perfpilot.regular_files`` reads any outside path
(regular files only, bounded, without blocking, off the event loop), then decoded as UTF-8.
"""

from __future__ import annotations

from concurrent.futures import Executor
from pathlib import Path

from perfpilot.regular_files import FileReadError, read_regular_file_async

# The error of an unread source file (the same as any outside file's).
SourceReadError = FileReadError


async def read_source_file(path: Path, max_bytes: int, timeout_s: float,
                           executor: Executor | None = None) -> str:
    """The text of a regular file, read off the event loop within ``timeout_s`` seconds.

    Raises SourceReadError for anything else: not a regular file, too large, not UTF-8, or
    not read in time (the worker thread is then abandoned; the caller goes on).
    """
    data = await read_regular_file_async(path, max_bytes, timeout_s, executor)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise SourceReadError(f"{path}: not valid UTF-8") from exc
