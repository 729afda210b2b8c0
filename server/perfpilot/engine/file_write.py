"""Writing a rewrite back into a source file as a compare-and-swap.

A run takes seconds to minutes; meanwhile the user may save the file, a tool may re-point a
symlink, or the file may be made read-only. The write therefore happens only when the file is
still what was read: the same resolved path (so a symlink changed during the run cannot
redirect the write to another file), the same bytes (a hash), and writable by its mode bits
(root passes every ``access()`` check, so permission checks alone would overwrite a read-only
file). The new text goes to a temporary file in the same folder, which is then renamed onto
the resolved path: readers see the old file or the new one, never half of it.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import stat
import tempfile
from dataclasses import dataclass
from pathlib import Path


class WriteRefused(Exception):
    """The file was not written; the message says why, in one sentence."""


@dataclass(frozen=True)
class FileSnapshot:
    """What a source file was when it was read: where it resolved to and its content hash."""

    path: Path
    resolved: Path
    sha256: str
    data: bytes


def snapshot(path: Path) -> FileSnapshot:
    """Read ``path`` and remember where it resolved and what it held."""
    resolved = path.resolve(strict=True)
    data = resolved.read_bytes()
    return FileSnapshot(path, resolved, hashlib.sha256(data).hexdigest(), data)


def replace_if_unchanged(snap: FileSnapshot, text: str) -> Path:
    """Write ``text`` over the file of ``snap`` when nothing changed since; returns the path
    written. Raises WriteRefused when the path now resolves elsewhere, the content changed,
    or the file is read-only."""
    _check(snap)
    folder = snap.resolved.parent
    mode = stat.S_IMODE(os.stat(snap.resolved).st_mode)
    fd, tmp_name = tempfile.mkstemp(prefix=f".{snap.resolved.name}.", suffix=".perfpilot",
                                    dir=folder)
    tmp = Path(tmp_name)
    try:
        with os.fdopen(fd, "wb") as out:
            out.write(text.encode("utf-8"))
            out.flush()
            os.fsync(out.fileno())
        os.chmod(tmp, mode)
        info = os.stat(snap.resolved)
        with contextlib.suppress(PermissionError):  # keep the owner when we may (root)
            os.chown(tmp, info.st_uid, info.st_gid)
        _check(snap)  # the last look, just before the swap
        os.replace(tmp, snap.resolved)
    except BaseException:
        with contextlib.suppress(OSError):
            tmp.unlink()
        raise
    return snap.resolved


def _check(snap: FileSnapshot) -> None:
    try:
        resolved = snap.path.resolve(strict=True)
    except (OSError, RuntimeError) as exc:
        raise WriteRefused(f"{snap.path} is gone or unreadable now ({exc})") from exc
    if resolved != snap.resolved:
        raise WriteRefused(f"{snap.path} now points to {resolved}, not to {snap.resolved} "
                           "as when it was read; not written")
    info = os.stat(resolved)
    if not stat.S_ISREG(info.st_mode):
        raise WriteRefused(f"{resolved} is no longer a regular file; not written")
    if not info.st_mode & (stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH):
        raise WriteRefused(f"{resolved} is read-only; not written")
    if not os.access(resolved, os.W_OK) or not os.access(resolved.parent, os.W_OK):
        raise WriteRefused(f"{resolved} (or its folder) is not writable; not written")
    with open(resolved, "rb") as f:
        now = hashlib.sha256(f.read()).hexdigest()
    if now != snap.sha256:
        raise WriteRefused(f"{resolved} changed on disk during the run; not written (run "
                           "again on the new content)")
