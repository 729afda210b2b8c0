"""What isolation and tools this machine gives the runner (``perfpilot doctor``)."""

from __future__ import annotations

import asyncio
import os
import shutil
from dataclasses import dataclass

from perfpilot.runner.sandbox import detect_sandbox


@dataclass(frozen=True)
class Check:
    """One fact about the machine: what, whether it is there, and what it means."""

    name: str
    ok: bool
    detail: str


async def _first_line(*argv: str) -> str:
    try:
        proc = await asyncio.create_subprocess_exec(
            *argv, stdin=asyncio.subprocess.DEVNULL, stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.STDOUT)
        out, _ = await asyncio.wait_for(proc.communicate(), 10)
    except (OSError, asyncio.TimeoutError):
        return ""
    return out.decode("utf-8", "replace").strip().splitlines()[0] if out.strip() else ""


async def checks() -> tuple[Check, ...]:
    """The isolation the runner would use here, and the tools it needs."""
    sandbox = await detect_sandbox(True)
    out: list[Check] = []
    bwrap = shutil.which("bwrap")
    out.append(Check("bubblewrap", sandbox.mode == "bwrap",
                     "works: private /tmp, /var/tmp, /dev/shm and /run; only system folders "
                     "visible; own PID namespace; no network" if sandbox.mode == "bwrap"
                     else ("installed but cannot start here (user namespaces disabled?)"
                           if bwrap else "not installed (Debian/Ubuntu: apt install "
                                         "bubblewrap)")))
    out.append(Check("seccomp filter", sandbox.seccomp,
                     "sockets, ptrace, io_uring and new namespaces refused" if sandbox.seccomp
                     else "not loaded: sockets reachable in the folders a compile reads"))
    out.append(Check("unshare", sandbox.mode == "unshare" or shutil.which("unshare") is not None,
                     " ".join(sandbox.unshare_args) if sandbox.mode == "unshare"
                     else ("available (fallback without bubblewrap)"
                           if shutil.which("unshare") else "not installed")))
    out.append(Check("PID namespace", sandbox.pid_namespace,
                     "every process a candidate starts dies with the job"
                     if sandbox.pid_namespace else "a detached child may outlive the job"))
    root = os.geteuid() == 0
    out.append(Check("unprivileged runs", not root or sandbox.drop_user,
                     "runs as nobody (setpriv)" if root and sandbox.drop_user
                     else ("running as root without setpriv: code runs as root" if root
                           else "runs as the invoking user (not root)")))
    out.append(Check("resource limits", sandbox.prlimit is not None,
                     "prlimit: memory, CPU time, file size, processes" if sandbox.prlimit
                     else "prlimit not found (util-linux)"))
    valgrind = shutil.which("valgrind")
    out.append(Check("valgrind", valgrind is not None,
                     await _first_line(valgrind, "--version") if valgrind
                     else "not installed: no instruction counts"))
    # The compiled-code check reads candidates' objects with these (binutils, beside gcc).
    for name, works, missing in (
            ("c++filt", "reads the C++ symbols a candidate imports by name",
             "C++ symbols stay mangled, so candidates importing any are refused"),
            ("objdump", "finds system call instructions in a candidate",
             "system call instructions in a candidate go unseen")):
        path = shutil.which(name)
        out.append(Check(name, path is not None,
                         works if path else f"not installed (Debian: binutils): {missing}"))
    for name in ("gcc", "g++", "clang", "clang++"):
        path = shutil.which(name)
        out.append(Check(name, path is not None,
                         await _first_line(path, "--version") if path else "not installed"))
    return tuple(out)


def model_code_policy(found: tuple[Check, ...]) -> str:
    """One sentence: whether code a model writes runs here."""
    if next(c for c in found if c.name == "bubblewrap").ok:
        return "Model-written candidates run inside bubblewrap."
    return ("Model-written candidates do not run here unless perfpilot.runner.allowUnsandboxed "
            "is set (then with network isolation and resource limits only); the builtin "
            "rules' candidates still run.")


def render(found: tuple[Check, ...]) -> str:
    """The report as text, one line a check."""
    width = max(len(c.name) for c in found)
    lines = [f"{'ok ' if c.ok else 'no '} {c.name.ljust(width)}  {c.detail}" for c in found]
    return "\n".join([*lines, "", model_code_policy(found)])
