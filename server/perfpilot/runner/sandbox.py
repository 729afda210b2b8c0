"""Running untrusted builds and binaries: isolation, resource limits, timeouts, cancellation.

Layers, outermost first: bubblewrap when it works, else ``unshare`` (network, IPC and, where
allowed, a PID namespace), else nothing (reported); then ``prlimit`` (address space, CPU time,
file size, open files, processes, no core files); then, when the server runs as root,
``setpriv`` to the unprivileged ``nobody`` user (process limits are not enforced for root).
Every command starts in a new session and its process group is killed on timeout or
cancellation. ``preexec_fn`` is never used (unsafe in a threaded server).

Inside bubblewrap the command sees only the system folders a compiler and the driver need
(``/usr``, ``/lib*``, the loader's files of ``/etc``, ``/sys``), read-only; the folders its
flags name, read-only; the work folder at ``/tmp/job``; fresh private ``/tmp``, ``/var/tmp``,
``/dev/shm`` and ``/run``; no network, its own PID namespace (every descendant dies with the
job), no capabilities, and a seccomp filter refusing sockets and kernel interfaces that reach
outside (see ``seccomp``). Home folders, other users' files and sockets are not there at all.
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
from perfpilot.runner import seccomp
from perfpilot.runner.budget import running

SandboxMode = Literal["bwrap", "unshare", "none"]
NOBODY = 65534
# Where the work folder appears inside a bubblewrap sandbox (one level below a fresh /tmp, so
# that no root-only intermediate folder is created).
INNER_DIR = "/tmp/job"
_OUTPUT_CAP = 4 * 1024 * 1024
# System folders bound read-only (those that exist; symbolic links such as /bin -> usr/bin are
# recreated as links). /etc is not among them: only the loader's files below are.
SYSTEM_FOLDERS = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/sys")
ETC_FILES = ("/etc/ld.so.cache", "/etc/ld.so.conf", "/etc/ld.so.conf.d", "/etc/alternatives",
             "/etc/localtime")
# Folders that are private, empty and writable in the sandbox (sticky, like /tmp).
PRIVATE_TMP = ("/tmp", "/var/tmp", "/dev/shm")


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
    seccomp: bool = False  # bubblewrap loads the seccomp filter (sockets refused)

    @property
    def pid_namespace(self) -> bool:
        """Whether every descendant of a command dies with it (own PID namespace)."""
        return self.mode == "bwrap" or "--pid" in self.unshare_args

    def describe(self) -> str:
        """One phrase for reports."""
        parts = {"bwrap": "bubblewrap (no network, private /tmp, only system folders visible, "
                          "own PID namespace)",
                 "unshare": "unshare --net (no network; file system not isolated)",
                 "none": "none: network not isolated"}[self.mode]
        if self.seccomp:
            parts += ", sockets refused (seccomp)"
        if self.drop_user:
            parts += ", runs as nobody"
        if self.prlimit:
            parts += ", resource limits"
        return parts

    def wrap(self, argv: Sequence[str], workdir: Path, limits: Limits, *,
             unprivileged: bool, ro_binds: Sequence[str] = (),
             seccomp_fd: int | None = None) -> tuple[list[str], str]:
        """The full command line and the working directory path the command sees.

        ``ro_binds`` are folders (or files) the command reads: the compiler's include folders
        and its own installation when outside the system folders. ``seccomp_fd`` is a readable
        descriptor holding the filter, passed on to bubblewrap.
        """
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
        if self.mode == "bwrap" and self.bwrap:
            # Enter the work folder as the final user: bubblewrap itself holds no capability,
            # so as root it could not enter a folder handed over to nobody.
            inner += ["env", "-C", INNER_DIR]
        inner += list(argv)
        if self.mode == "bwrap" and self.bwrap:
            outer = [self.bwrap, *bwrap_args(workdir, ro_binds)]
            if self.drop_user and self.setpriv:
                # setpriv needs these two to become nobody; they end with the switch.
                outer += ["--cap-add", "CAP_SETUID", "--cap-add", "CAP_SETGID"]
            if seccomp_fd is not None:
                outer += ["--seccomp", str(seccomp_fd)]
            return [*outer, "--", *inner], INNER_DIR
        if self.mode == "unshare":
            return [*self.unshare_args, "--", *inner], str(workdir)
        return inner, str(workdir)


def _system_binds() -> list[str]:
    out: list[str] = []
    for path in SYSTEM_FOLDERS:
        if os.path.islink(path):
            out += ["--symlink", os.readlink(path), path]
        elif os.path.isdir(path):
            out += ["--ro-bind", path, path]
    for path in ETC_FILES:
        out += ["--ro-bind-try", path, path]
    return out


def _parents(path: str) -> list[str]:
    """The folders above ``path``, outermost first (``/a``, ``/a/b`` for ``/a/b/c``)."""
    parts = Path(path).parts[1:-1]
    return ["/" + "/".join(parts[: i + 1]) for i in range(len(parts))]


def bwrap_args(workdir: Path, ro_binds: Sequence[str] = ()) -> list[str]:
    """bubblewrap's options (before ``--``) for a command in ``workdir`` reading
    ``ro_binds``."""
    args = [*_system_binds(), "--dev", "/dev", "--proc", "/proc"]
    for path in PRIVATE_TMP:
        args += ["--perms", "01777", "--tmpfs", path]
    args += ["--perms", "0755", "--tmpfs", "/run",
             "--bind", str(workdir), INNER_DIR, "--chdir", "/",
             "--unshare-pid", "--unshare-ipc", "--unshare-uts", "--unshare-net",
             "--unshare-cgroup-try", "--cap-drop", "ALL", "--die-with-parent", "--new-session",
             "--setenv", "TMPDIR", INNER_DIR]
    made: set[str] = {"/", "/tmp", "/var", "/var/tmp", "/dev", "/dev/shm", "/run", "/proc"}
    covered = [p for p in SYSTEM_FOLDERS if os.path.isdir(p) and not os.path.islink(p)]
    for path in sorted({os.path.normpath(p) for p in ro_binds if p.startswith("/")}):
        if not os.path.exists(path) or any(path == c or path.startswith(c + "/")
                                           for c in covered):
            continue
        # A folder holding a private mount (a source file directly in /tmp) would cover it, the
        # work folder included: it stays hidden; the unit itself is copied into the work folder.
        if any(path == p or p.startswith(path.rstrip("/") + "/")
               for p in (*PRIVATE_TMP, "/run", INNER_DIR)):
            continue
        # Create each folder above the bind point searchable by everyone: bubblewrap would
        # make them 0700 as root, which the unprivileged compile cannot pass.
        for parent in _parents(path):
            if parent not in made:
                args += ["--perms", "0755", "--dir", parent]
                made.add(parent)
        args += ["--ro-bind", path, path]
        made.add(path)
    return args


async def _probe(argv: Sequence[str], pass_fds: Sequence[int] = ()) -> bool:
    try:
        proc = await asyncio.create_subprocess_exec(
            *argv, stdin=asyncio.subprocess.DEVNULL, stdout=asyncio.subprocess.DEVNULL,
            stderr=asyncio.subprocess.DEVNULL, start_new_session=True, pass_fds=pass_fds)
    except OSError:
        return False
    try:
        return await asyncio.wait_for(proc.wait(), 10) == 0
    except asyncio.TimeoutError:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
        await proc.wait()
        return False


def seccomp_pipe() -> int | None:
    """A readable descriptor holding the seccomp filter (the caller closes it), or None
    where no filter is built for this machine."""
    program = seccomp.program()
    if program is None:
        return None
    read_end, write_end = os.pipe()
    try:
        os.write(write_end, program)
    finally:
        os.close(write_end)
    return read_end


async def _probe_bwrap(bwrap: str) -> tuple[bool, bool]:
    """(bubblewrap works with our options, and with the seccomp filter too)."""
    with tempfile.TemporaryDirectory(prefix="perfpilot-probe-") as folder:
        base = [bwrap, *bwrap_args(Path(folder))]
        if not await _probe([*base, "--", "true"]):
            return False, False
        fd = seccomp_pipe()
        if fd is None:
            return True, False
        try:
            return True, await _probe([*base, "--seccomp", str(fd), "--", "true"], (fd,))
        finally:
            os.close(fd)


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
    if bwrap:
        works, filtered = await _probe_bwrap(bwrap)
        if works:
            if not filtered:
                notes.append("no seccomp filter on this machine: sockets in the folders a "
                             "compile reads are reachable")
            return Sandbox("bwrap", drop, prlimit, setpriv, bwrap=bwrap, notes=tuple(notes),
                           seccomp=filtered)
        notes.append("bubblewrap is installed but cannot start here")
    unshare = shutil.which("unshare")
    if unshare:
        pid = ["--ipc", "--pid", "--fork", "--kill-child"]
        for args in ([unshare, "--net", *pid], [unshare, "--net"],
                     [unshare, "--map-root-user", "--net", *pid],
                     [unshare, "--map-root-user", "--net"]):
            if await _probe([*args, "true"]):
                if bwrap is None:
                    notes.append("bubblewrap not installed: file system not isolated")
                if "--pid" not in args:
                    notes.append("no PID namespace: a detached child may outlive the job")
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
    """Let the unprivileged user write into the work folder and its subfolders.

    The folders go to nobody and our own group, mode 0770: root inside bubblewrap holds no
    capability, so a later compile as root enters them as a group member, and no other user
    can read them.
    """
    if sandbox.drop_user and os.geteuid() == 0:
        for folder, _dirs, _files in os.walk(workdir):
            os.chown(folder, NOBODY, os.getegid())
            os.chmod(folder, 0o770)


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
    fd = seccomp_pipe() if sandbox.mode == "bwrap" and sandbox.seccomp else None
    cmd, _inner = sandbox.wrap(argv, workdir, limits, unprivileged=unprivileged,
                               ro_binds=ro_binds, seccomp_fd=fd)
    full_env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "LC_ALL": "C",
                "TMPDIR": str(workdir) if sandbox.mode != "bwrap" else INNER_DIR}
    if env:
        full_env.update(env)
    with running():
        return await _run(cmd, workdir, full_env, fd, timeout_s=timeout_s, ctx=ctx,
                          stdin_path=stdin_path, output_cap=output_cap, pass_fds=pass_fds,
                          stdin_data=stdin_data)


async def _run(cmd: Sequence[str], workdir: Path, full_env: Mapping[str, str], fd: int | None,
               *, timeout_s: float, ctx: JobContext | None, stdin_path: Path | None,
               output_cap: int, pass_fds: Sequence[int], stdin_data: bytes | None
               ) -> ProcResult:
    stdin_file = stdin_path.open("rb") if stdin_path is not None else None
    start = time.monotonic()
    try:
        proc = await asyncio.create_subprocess_exec(
            *cmd, cwd=str(workdir), env=full_env,
            stdin=(stdin_file if stdin_file is not None else
                   asyncio.subprocess.PIPE if stdin_data is not None else
                   asyncio.subprocess.DEVNULL),
            stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
            start_new_session=True,
            pass_fds=(*pass_fds, *((fd,) if fd is not None else ())))
    finally:
        if stdin_file is not None:
            stdin_file.close()
        if fd is not None:
            os.close(fd)
    out_task = asyncio.ensure_future(_read_capped(proc.stdout, output_cap))
    err_task = asyncio.ensure_future(_read_capped(proc.stderr, output_cap))
    finished = asyncio.ensure_future(asyncio.gather(out_task, err_task, proc.wait()))
    # Cancelled from outside (a job's time budget), the gathering future ends later with the
    # children's CancelledError: retrieve it then, so it is not logged as lost.
    finished.add_done_callback(lambda f: f.cancelled() or f.exception())
    cancel_wait = asyncio.ensure_future(ctx.cancelled.wait()) if ctx is not None else None
    waiters: set[asyncio.Future[object]] = {finished}  # type: ignore[arg-type]
    if cancel_wait is not None:
        waiters.add(cancel_wait)  # type: ignore[arg-type]
    timed_out = False
    cancelled = False
    try:
        if stdin_data is not None and proc.stdin is not None:
            with contextlib.suppress(OSError, ConnectionError):
                proc.stdin.write(stdin_data)
                await proc.stdin.drain()
            proc.stdin.close()
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
        # Reaped before the cancellation goes on: a process left to the garbage collector
        # outlives its event loop (a measurement cancelled by its time budget).
        with contextlib.suppress(asyncio.TimeoutError, asyncio.CancelledError):
            await asyncio.wait_for(asyncio.shield(finished), 2.0)
        raise
    finally:
        if cancel_wait is not None:
            cancel_wait.cancel()
        # Whatever the outcome, leave nothing of the group behind.
        _kill_group(proc.pid)
        # The gathering future first: cancelled after its children, it would hold their
        # CancelledError unretrieved and asyncio would log it as a traceback.
        for task in (finished, out_task, err_task):
            if not task.done():
                task.cancel()
        if finished.done() and not finished.cancelled():
            finished.exception()
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
