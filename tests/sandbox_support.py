"""Helpers for tests that run the sandbox with bubblewrap hidden."""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path


@contextmanager
def path_without_bwrap() -> Iterator[str]:
    """A PATH value with every program of the current one except bubblewrap, in a folder the
    unprivileged user can reach (compiles may run as nobody); removed afterwards."""
    folder = Path(tempfile.mkdtemp(prefix="pp-nobwrap-", dir="/var/tmp"))
    try:
        os.chmod(folder, 0o755)
        for entry in os.environ.get("PATH", "").split(os.pathsep):
            if not os.path.isdir(entry):
                continue
            for name in os.listdir(entry):
                target = os.path.join(entry, name)
                if name != "bwrap" and not (folder / name).exists() \
                        and os.access(target, os.X_OK):
                    (folder / name).symlink_to(target)
        yield str(folder)
    finally:
        shutil.rmtree(folder, ignore_errors=True)
