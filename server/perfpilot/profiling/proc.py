"""Run a tool or the user's program as a subprocess: timeout, cancellation, whole-group kill."""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from perfpilot.progress import Cancelled, JobContext


class ProfileError(Exception):
    """Profiling could not be done; the message says why in plain words."""


@dataclass(frozen=True)
class Finished:
    """A finished process: exit status and its output as text."""

    returncode: int
    stdout: str
    stderr: str


def _kill_group(pid: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pid, signal.SIGKILL)


async def run(argv: Sequence[str], *, cwd: Path | None = None, timeout_s: float = 600.0,
              ctx: JobContext | None = None, env: Mapping[str, str] | None = None,
              shell: bool = False, stdin_data: bytes | None = None) -> Finished:
    """Run ``argv`` (or, with ``shell``, the one command line ``argv[0]`` through ``sh -c``).

    The process gets its own session so that a timeout or a cancellation kills everything it
    started. Raises ``Cancelled`` on cancellation and ``ProfileError`` on timeout or when the
    program cannot be started. ``stdin_data`` is fed to the program's standard input.
    """
    full_env = dict(os.environ)
    if env:
        full_env.update(env)
    cmd = ["/bin/sh", "-c", argv[0]] if shell else list(argv)
    try:
        proc = await asyncio.create_subprocess_exec(
            *cmd, cwd=str(cwd) if cwd else None, env=full_env,
            stdin=(asyncio.subprocess.PIPE if stdin_data is not None
                   else asyncio.subprocess.DEVNULL), stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE, start_new_session=True)
    except OSError as exc:
        raise ProfileError(f"cannot run {cmd[0]}: {exc.strerror or exc}") from exc
    talk = asyncio.ensure_future(proc.communicate(stdin_data))
    waiters: set[asyncio.Future[object]] = {talk}  # type: ignore[arg-type]
    cancel_wait = asyncio.ensure_future(ctx.cancelled.wait()) if ctx is not None else None
    if cancel_wait is not None:
        waiters.add(cancel_wait)  # type: ignore[arg-type]
    try:
        done, _ = await asyncio.wait(waiters, timeout=timeout_s,
                                     return_when=asyncio.FIRST_COMPLETED)
        if talk not in done:
            _kill_group(proc.pid)
            with contextlib.suppress(asyncio.TimeoutError):
                await asyncio.wait_for(talk, 5.0)
            if cancel_wait is not None and cancel_wait in done:
                raise Cancelled()
            raise ProfileError(f"{Path(cmd[0]).name} did not finish within {timeout_s:g} s")
        out, err = talk.result()
    except asyncio.CancelledError:
        _kill_group(proc.pid)
        raise
    finally:
        if cancel_wait is not None:
            cancel_wait.cancel()
    return Finished(proc.returncode if proc.returncode is not None else -1,
                    out.decode("utf-8", "replace"), err.decode("utf-8", "replace"))
