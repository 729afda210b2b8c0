"""A seccomp filter for sandboxed commands, as the classic BPF program bubblewrap loads
(``bwrap --seccomp FD``), built with ``struct`` alone.

It refuses ``socket()`` of every address family (so no Unix socket outside the sandbox can be
reached through a bound folder, and no netlink), the kernel interfaces that reach past the
sandbox (ptrace, process_vm_*, io_uring, bpf, userfaultfd, keyrings, perf events, new
namespaces, mounts, modules) and system calls of a foreign ABI (i386 ``int 0x80``, x32).
``clone3`` answers ENOSYS so that the C library falls back to ``clone``, whose flags a filter
can read; ``clone`` with namespace flags is refused. Only x86-64 and AArch64 are covered;
elsewhere ``program()`` returns None and the sandbox runs without the filter (reported).
"""

from __future__ import annotations

import errno
import platform
import struct

_LD_ABS = 0x20  # BPF_LD | BPF_W | BPF_ABS
_JEQ = 0x15  # BPF_JMP | BPF_JEQ | BPF_K
_JGE = 0x35  # BPF_JMP | BPF_JGE | BPF_K
_JSET = 0x45  # BPF_JMP | BPF_JSET | BPF_K
_RET = 0x06  # BPF_RET | BPF_K
_ALLOW = 0x7FFF0000
_ERRNO = 0x00050000
# Offsets in struct seccomp_data: nr, arch, then the arguments (low word first).
_NR, _ARCH, _ARG0 = 0, 4, 16
_X32_BIT = 0x40000000
# CLONE_NEWNS | NEWCGROUP | NEWUTS | NEWIPC | NEWUSER | NEWPID | NEWNET | NEWTIME
_CLONE_NS = 0x00020000 | 0x02000000 | 0x04000000 | 0x08000000 | 0x10000000 | 0x20000000 \
    | 0x40000000 | 0x00000080

# (audit arch, syscall numbers by name) for the machines covered.
_TABLES: dict[str, tuple[int, dict[str, int]]] = {
    "x86_64": (0xC000003E, {
        "socket": 41, "clone": 56, "ptrace": 101, "pivot_root": 155, "chroot": 161,
        "mount": 165, "umount2": 166, "swapon": 167, "swapoff": 168, "reboot": 169,
        "iopl": 172, "ioperm": 173, "init_module": 175, "delete_module": 176,
        "kexec_load": 246, "add_key": 248, "request_key": 249, "keyctl": 250, "unshare": 272,
        "perf_event_open": 298, "name_to_handle_at": 303, "open_by_handle_at": 304,
        "setns": 308, "process_vm_readv": 310, "process_vm_writev": 311, "finit_module": 313,
        "kexec_file_load": 320, "bpf": 321, "userfaultfd": 323, "io_uring_setup": 425,
        "io_uring_enter": 426, "io_uring_register": 427, "open_tree": 428, "move_mount": 429,
        "fsopen": 430, "fsconfig": 431, "fsmount": 432, "clone3": 435, "pidfd_getfd": 438,
        "mount_setattr": 442}),
    "aarch64": (0xC00000B7, {
        "socket": 198, "clone": 220, "ptrace": 117, "pivot_root": 41, "chroot": 51,
        "mount": 40, "umount2": 39, "swapon": 224, "swapoff": 225, "reboot": 142,
        "init_module": 105, "delete_module": 106, "kexec_load": 104, "add_key": 217,
        "request_key": 218, "keyctl": 219, "unshare": 97, "perf_event_open": 241,
        "name_to_handle_at": 264, "open_by_handle_at": 265, "setns": 268,
        "process_vm_readv": 270, "process_vm_writev": 271, "finit_module": 273,
        "kexec_file_load": 294, "bpf": 280, "userfaultfd": 282, "io_uring_setup": 425,
        "io_uring_enter": 426, "io_uring_register": 427, "open_tree": 428, "move_mount": 429,
        "fsopen": 430, "fsconfig": 431, "fsmount": 432, "clone3": 435, "pidfd_getfd": 438,
        "mount_setattr": 442}),
}
_ANSWERS = {"socket": errno.EACCES, "clone3": errno.ENOSYS}


def _insn(code: int, k: int, jt: int = 0, jf: int = 0) -> bytes:
    return struct.pack("<HBBI", code, jt, jf, k & 0xFFFFFFFF)


def program(machine: str | None = None) -> bytes | None:
    """The filter for ``machine`` (this one by default) as bytes, or None where not covered."""
    table = _TABLES.get(machine or platform.machine())
    if table is None:
        return None
    arch, numbers = table
    refuse = _ERRNO | errno.EPERM
    out = [_insn(_LD_ABS, _ARCH),
           _insn(_JEQ, arch, 1, 0),
           _insn(_RET, refuse),  # a foreign ABI (i386 int 0x80): nothing of it is needed
           _insn(_LD_ABS, _NR)]
    if arch == 0xC000003E:
        out += [_insn(_JGE, _X32_BIT, 0, 1), _insn(_RET, refuse)]
    for name, nr in sorted(numbers.items(), key=lambda item: item[1]):
        if name == "clone":
            # clone(flags, ...): refuse only new namespaces; reload nr afterwards.
            out += [_insn(_JEQ, nr, 0, 4), _insn(_LD_ABS, _ARG0),
                    _insn(_JSET, _CLONE_NS, 0, 1), _insn(_RET, refuse),
                    _insn(_RET, _ALLOW)]
            continue
        out += [_insn(_JEQ, nr, 0, 1), _insn(_RET, _ERRNO | _ANSWERS.get(name, errno.EPERM))]
    out.append(_insn(_RET, _ALLOW))
    return b"".join(out)
