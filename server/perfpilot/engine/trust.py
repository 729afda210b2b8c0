"""Which workspace folders the user trusts to choose where code and keys go.

A cloned repository's ``.perfpilot.toml`` must not pick the model endpoint, the environment
variable whose value is sent as the API key, the model files to load, or the compiler and
flags to run. Those keys apply only in a trusted workspace: one the user listed in their own
config folder (``perfpilot trust``), or trusted for one run (``--trust-workspace``, or the
``trustWorkspace`` initialization option of an editor that asked the user, as VS Code does).
The list lives outside every workspace, so no repository can trust itself.
"""

from __future__ import annotations

import contextlib
import json
import os
import tempfile
from dataclasses import dataclass
from pathlib import Path


def user_config_dir() -> Path:
    """The user's PerfPilot config folder (``$XDG_CONFIG_HOME/perfpilot``)."""
    base = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(base) / "perfpilot"


@dataclass(frozen=True)
class TrustList:
    """The persisted list of trusted folders (a folder trusts its subfolders too)."""

    path: Path

    @classmethod
    def default(cls) -> TrustList:
        """The list in the user's config folder."""
        return cls(user_config_dir() / "trusted-workspaces.json")

    def folders(self) -> tuple[Path, ...]:
        """The trusted folders; an unreadable list trusts nothing."""
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return ()
        items = data.get("trusted", []) if isinstance(data, dict) else []
        return tuple(Path(p) for p in items if isinstance(p, str) and Path(p).is_absolute())

    def trusts(self, folder: Path | None) -> bool:
        """Whether ``folder`` (resolved) is a listed folder or inside one."""
        if folder is None:
            return False
        try:
            here = folder.resolve()
        except (OSError, RuntimeError):
            return False
        return any(here == f or f in here.parents for f in self.folders())

    def add(self, folder: Path) -> Path:
        """Trust ``folder``; returns the resolved folder."""
        here = folder.resolve()
        self._save((*[f for f in self.folders() if f != here], here))
        return here

    def remove(self, folder: Path) -> bool:
        """Stop trusting ``folder``; returns whether it was listed."""
        here = folder.resolve()
        kept = tuple(f for f in self.folders() if f != here)
        listed = len(kept) != len(self.folders())
        if listed:
            self._save(kept)
        return listed

    def _save(self, folders: tuple[Path, ...]) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        fd, tmp = tempfile.mkstemp(prefix=".trusted-", dir=self.path.parent)
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as out:
                json.dump({"trusted": [str(f) for f in folders]}, out, indent=2)
            os.replace(tmp, self.path)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
            raise
