"""Running untrusted builds and binaries: isolation, resource limits, timeouts, cancellation.

Layers, outermost first: bubblewrap when it works (read-only root, private /tmp with the work
folder bound at one level, no network, own PID namespace torn down with the parent), else
``unshare --net``, else nothing (reported); then ``prlimit`` (address space, CPU time, file size,
open files, processes, no core files); then, when the server runs as root and the command is
not a compile, ``setpriv`` to the unprivileged ``nobody`` user (process limits are not enforced
for root). Every command starts in a new session and its process group is killed on timeout or
cancellation. ``preexec_fn`` is never used (unsafe in a threaded server).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import shutil
import signal
import stat
import tempfile
import time
from collections.abc import AsyncIterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from perfpilot.progress import Cancelled, JobContext

SandboxMode = Literal["bwrap", "unshare", "none"]
NOBODY = 65534
# Where the work folder appears inside a bubblewrap sandbox (one level below a fresh /tmp, so
# that no root-only intermediate folder is created).
INNER_DIR = "/tmp/job"
_OUTPUT_CAP = 4 * 1024 * 1024


@dataclass(frozen=True)
class Limits:
    """Resource limits for one sandboxed command."""

    memory_mb: int = 4096
    cpu_s: int = 120
    file_mb: int = 256
    nproc: int = 256
    nofile: int = 256


@dataclass(frozen=True)
class ProcResult:
    """What a sandboxed command did."""

    returncode: int
    stdout: str
    stderr: str
    timed_out: bool
    wall_s: float
    output_truncated: bool = False

    @property
    def signal(self) -> int | None:
        """The signal that ended the process, if one did (shell convention 128+N included)."""
        if self.returncode < 0:
            return -self.returncode
        if self.returncode > 128 and self.returncode - 128 < 65:
            return self.returncode - 128
        return None


def signal_name(number: int) -> str:
    """SIGSEGV-style name of a signal number."""
    try:
        return signal.Signals(number).name
    except ValueError:
        return f"signal {number}"


@dataclass(frozen=True)
class Sandbox:
    """A chosen isolation mode, with the tools it uses."""

    mode: SandboxMode
    drop_user: bool
    prlimit: str | None
    setpriv: str | None
    bwrap: str | None = None
    unshare_args: tuple[str, ...] = ()
    notes: tuple[str, ...] = field(default=())

    def describe(self) -> str:
        """One phrase for reports."""
        parts = {"bwrap": "bubblewrap (no network, private /tmp, read-only root)",
                 "unshare": "unshare --net (no network; file system not isolated)",
                 "none": "none: network not isolated"}[self.mode]
        if self.drop_user:
            parts += ", runs as nobody"
        if self.prlimit:
            parts += ", resource limits"
        return parts

    def wrap(self, argv: Sequence[str], workdir: Path, limits: Limits, *,
             unprivileged: bool, ro_binds: Sequence[str] = ()) -> tuple[list[str], str]:
        """The full command line and the working directory path the command sees."""
        inner: list[str] = []
        if self.prlimit:
            # memory_mb 0: no address-space limit (sanitizers reserve terabytes of it).
            inner += [self.prlimit,
                      *([f"--as={limits.memory_mb * 1024 * 1024}"] if limits.memory_mb else []),
                      f"--cpu={limits.cpu_s}", f"--fsize={limits.file_mb * 1024 * 1024}",
                      f"--nofile={limits.nofile}", "--core=0", f"--nproc={limits.nproc}", "--"]
        if unprivileged and self.drop_user and self.setpriv:
            inner += [self.setpriv, f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups",
                      "--"]
        inner += list(argv)
        if self.mode == "bwrap" and self.bwrap:
            outer = [self.bwrap, "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc",
                     "--perms", "01777", "--tmpfs", "/tmp", "--bind", str(workdir), INNER_DIR,
                     "--chdir", INNER_DIR, "--unshare-pid", "--unshare-ipc", "--unshare-uts",
                     "--unshare-net", "--die-with-parent", "--new-session",
                     "--setenv", "TMPDIR", INNER_DIR]
            # Folders under /tmp (hidden by the private /tmp) that the command must read.
            for path in sorted(set(ro_binds)):
                if path.startswith("/tmp/") and Path(path).exists():
                    outer += ["--ro-bind", path, path]
            return [*outer, "--", *inner], INNER_DIR
        if self.mode == "unshare":
            return [*self.unshare_args, "--", *inner], str(workdir)
        return inner, str(workdir)


async def _probe(argv: Sequence[str]) -> bool:
    try:
        proc = await asyncio.create_subprocess_exec(
            *argv, stdin=asyncio.subprocess.DEVNULL, stdout=asyncio.subprocess.DEVNULL,
            stderr=asyncio.subprocess.DEVNULL, start_new_session=True)
    except OSError:
        return False
    try:
        return await asyncio.wait_for(proc.wait(), 10) == 0
    except asyncio.TimeoutError:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
        await proc.wait()
        return False


async def detect_sandbox(enabled: bool = True) -> Sandbox:
    """Pick the strongest isolation that works here (or only limits when ``enabled`` is off)."""
    is_root = os.geteuid() == 0
    prlimit = shutil.which("prlimit")
    setpriv = shutil.which("setpriv") if is_root else None
    notes: list[str] = []
    if prlimit is None:
        notes.append("prlimit not found: no resource limits")
    if is_root and setpriv is None:
        notes.append("running as root without setpriv: process limits not enforced")
    drop = setpriv is not None
    if not enabled:
        notes.append("sandbox disabled by settings: network not isolated")
        return Sandbox("none", drop, prlimit, setpriv, notes=tuple(notes))
    bwrap = shutil.which("bwrap")
    if bwrap and await _probe([bwrap, "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc",
                               "--perms", "01777", "--tmpfs", "/tmp", "--unshare-pid",
                               "--unshare-net", "--die-with-parent", "--", "true"]):
        return Sandbox("bwrap", drop, prlimit, setpriv, bwrap=bwrap, notes=tuple(notes))
    unshare = shutil.which("unshare")
    if unshare:
        for args in ([unshare, "--net"], [unshare, "--map-root-user", "--net"]):
            if await _probe([*args, "true"]):
                if bwrap is None:
                    notes.append("bubblewrap not installed: file system not isolated")
                return Sandbox("unshare", drop, prlimit, setpriv, unshare_args=tuple(args),
                               notes=tuple(notes))
    notes.append("no bubblewrap or unshare: network and file system not isolated")
    return Sandbox("none", drop, prlimit, setpriv, notes=tuple(notes))


@contextlib.asynccontextmanager
async def work_directory(prefix: str = "perfpilot-") -> AsyncIterator[Path]:
    """A fresh temporary folder, always removed afterwards (also on error or cancellation)."""
    path = Path(await asyncio.to_thread(tempfile.mkdtemp, prefix=prefix))
    try:
        yield path
    finally:
        await asyncio.to_thread(shutil.rmtree, path, True)


def make_writable_for_runs(workdir: Path, sandbox: Sandbox) -> None:
    """Let the unprivileged user write into the work folder and its subfolders."""
    if sandbox.drop_user and os.geteuid() == 0:
        for folder, _dirs, _files in os.walk(workdir):
            os.chown(folder, NOBODY, NOBODY)


def readable_by_others(path: Path) -> bool:
    """Whether any user can read ``path`` (a folder or file): every parent searchable."""
    try:
        p = path.resolve()
        mode = p.stat().st_mode
        if not mode & stat.S_IROTH or (p.is_dir() and not mode & stat.S_IXOTH):
            return False
        return all(parent.stat().st_mode & stat.S_IXOTH for parent in p.parents)
    except OSError:
        return False


def compile_unprivileged(sandbox: Sandbox, folders: Sequence[str]) -> bool:
    """Whether compiles can run as nobody too: they can when every folder they read is public.

    Compiling as nobody keeps a hostile ``#include "/root/secret"`` from echoing private files
    into the build log; headers in private folders force compiling as the invoking user.
    """
    return sandbox.drop_user and all(readable_by_others(Path(f)) for f in folders)


def _kill_group(pid: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pid, signal.SIGKILL)


async def _read_capped(stream: asyncio.StreamReader | None, cap: int) -> tuple[bytes, bool]:
    if stream is None:
        return b"", False
    chunks: list[bytes] = []
    size = 0
    truncated = False
    while True:
        data = await stream.read(65536)
        if not data:
            break
        if size < cap:
            chunks.append(data[: cap - size])
        else:
            truncated = True
        size += len(data)
    return b"".join(chunks), truncated or size > cap


async def run_sandboxed(sandbox: Sandbox, argv: Sequence[str], workdir: Path, *,
                        timeout_s: float, limits: Limits, ctx: JobContext | None = None,
                        env: Mapping[str, str] | None = None, stdin_path: Path | None = None,
                        unprivileged: bool = True, ro_binds: Sequence[str] = (),
                        output_cap: int = _OUTPUT_CAP, pass_fds: Sequence[int] = (),
                        stdin_data: bytes | None = None) -> ProcResult:
    """Run ``argv`` (paths relative to ``workdir``) inside the sandbox.

    Kills the whole process group on timeout and on cancellation (then raises Cancelled).
    ``unprivileged`` drops to nobody when running as root; compiles pass False so that they can
    read headers in private workspace folders. ``pass_fds`` stay open in the command (the
    driver's result channel); ``stdin_data`` is written to its stdin, which is then closed.
    """
    cmd, _inner = sandbox.wrap(argv, workdir, limits, unprivileged=unprivileged,
                               ro_binds=ro_binds)
    full_env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "LC_ALL": "C",
                "TMPDIR": str(workdir) if sandbox.mode != "bwrap" else INNER_DIR}
    if env:
        full_env.update(env)
    stdin_file = stdin_path.open("rb") if stdin_path is not None else None
    start = time.monotonic()
    try:
        proc = await asyncio.create_subprocess_exec(
            *cmd, cwd=str(workdir), env=full_env,
            stdin=(stdin_file if stdin_file is not None else
                   asyncio.subprocess.PIPE if stdin_data is not None else
                   asyncio.subprocess.DEVNULL),
            stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
            start_new_session=True, pass_fds=tuple(pass_fds))
    finally:
        if stdin_file is not None:
            stdin_file.close()
    if stdin_data is not None and proc.stdin is not None:
        with contextlib.suppress(OSError, ConnectionError):
            proc.stdin.write(stdin_data)
            await proc.stdin.drain()
        proc.stdin.close()
    out_task = asyncio.ensure_future(_read_capped(proc.stdout, output_cap))
    err_task = asyncio.ensure_future(_read_capped(proc.stderr, output_cap))
    finished = asyncio.ensure_future(asyncio.gather(out_task, err_task, proc.wait()))
    cancel_wait = asyncio.ensure_future(ctx.cancelled.wait()) if ctx is not None else None
    waiters: set[asyncio.Future[object]] = {finished}  # type: ignore[arg-type]
    if cancel_wait is not None:
        waiters.add(cancel_wait)  # type: ignore[arg-type]
    timed_out = False
    cancelled = False
    try:
        done, _pending = await asyncio.wait(waiters, timeout=timeout_s,
                                            return_when=asyncio.FIRST_COMPLETED)
        if finished not in done:
            cancelled = cancel_wait is not None and cancel_wait in done
            timed_out = not cancelled
            _kill_group(proc.pid)
            await proc.wait()
            # A process that escaped the group may still hold the pipes: stop reading soon.
            with contextlib.suppress(asyncio.TimeoutError):
                await asyncio.wait_for(asyncio.shield(finished), 2.0)
    except asyncio.CancelledError:
        _kill_group(proc.pid)
        raise
    finally:
        if cancel_wait is not None:
            cancel_wait.cancel()
        # Whatever the outcome, leave nothing of the group behind.
        _kill_group(proc.pid)
        for task in (out_task, err_task, finished):
            if not task.done():
                task.cancel()
    if cancelled:
        raise Cancelled()
    out, out_trunc = out_task.result() if out_task.done() and not out_task.cancelled() \
        else (b"", True)
    err, err_trunc = err_task.result() if err_task.done() and not err_task.cancelled() \
        else (b"", True)
    rc = proc.returncode if proc.returncode is not None else -signal.SIGKILL
    return ProcResult(
        returncode=-signal.SIGKILL if timed_out else rc,
        stdout=out.decode("utf-8", "replace"),
        stderr=err.decode("utf-8", "replace"),
        timed_out=timed_out,
        wall_s=time.monotonic() - start,
        output_truncated=out_trunc or err_trunc,
    )
