"""Workspace settings: ``[tool.perfpilot]`` in ``pyproject.toml``, or ``.perfpilot.toml``.

A workspace file comes with the code, from whoever wrote the repository. Keys that decide
where code and keys are sent, which model files are loaded, or which commands run
(``SENSITIVE_KEYS``) apply only in a trusted workspace (see ``perfpilot.engine.trust``); in any
other they are ignored, and the caller tells the user once which keys were ignored.
"""

from __future__ import annotations

import re
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from perfpilot.settings import Settings, merge_settings

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on Python 3.10 only
    import tomli as tomllib


# Dotted snake_case paths. Endpoint and key variable send code and a secret elsewhere; the
# model may name local weights (pickle files run code when loaded); compiler and flags run
# commands (``-fplugin=``, ``-wrapper``); the sandbox switch decides what candidates may touch,
# and switching the runner off lets unverified rewrites be applied.
SENSITIVE_KEYS = frozenset({
    *(f"{role}.{key}" for role in ("planner", "optimizer")
      for key in ("endpoint", "api_key_env", "model")),
    "runner.compiler", "runner.flags", "runner.sandbox", "runner.enabled", "ranker.model",
})


@dataclass(frozen=True)
class WorkspaceConfig:
    """The settings a workspace file gives, and the sensitive keys it was not allowed to."""

    settings: Settings
    source: Path | None = None
    ignored: tuple[str, ...] = ()

    def ignored_message(self) -> str:
        """One sentence naming the ignored keys and how to trust the workspace ('' if none)."""
        if not self.ignored:
            return ""
        name = self.source.name if self.source is not None else "the workspace configuration"
        folder = self.source.parent if self.source is not None else "this folder"
        return (f"{name}: ignoring {', '.join(self.ignored)}: the workspace {folder} is not "
                f"trusted (trust it with `perfpilot trust {folder}`, --trust-workspace, or "
                "the editor's trustWorkspace option)")


def _snake(name: str) -> str:
    return re.sub(r"(?<!^)(?=[A-Z])", "_", name).lower().replace("-", "_")


def split_sensitive(table: dict[str, Any], prefix: str = ""
                    ) -> tuple[dict[str, Any], tuple[str, ...]]:
    """``table`` without its sensitive keys, and the dotted names of the keys removed."""
    kept: dict[str, Any] = {}
    removed: list[str] = []
    for raw_key, value in table.items():
        key = _snake(str(raw_key))
        where = f"{prefix}.{key}" if prefix else key
        if where in SENSITIVE_KEYS:
            removed.append(where)
        elif isinstance(value, dict):
            inner, gone = split_sensitive(value, where)
            kept[raw_key] = inner
            removed.extend(gone)
        else:
            kept[raw_key] = value
    return kept, tuple(removed)


class ConfigError(Exception):
    """A workspace configuration file could not be read; the message names the file."""


def read_workspace_table(root: Path) -> tuple[dict[str, Any], Path | None]:
    """The PerfPilot table of the workspace and the file it came from (``.perfpilot.toml`` wins)."""
    dedicated = root / ".perfpilot.toml"
    pyproject = root / "pyproject.toml"
    for path, nested in ((dedicated, False), (pyproject, True)):
        if not path.is_file():
            continue
        try:
            data = tomllib.loads(path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
            raise ConfigError(f"cannot read {path.name}: {exc}") from exc
        table = data.get("tool", {}).get("perfpilot") if nested else data
        if isinstance(table, dict) and table:
            return table, path
    return {}, None


# Runner keys that weaken the isolation of code a model wrote: a cloned repository must not be
# able to switch the sandbox off for its own benefit, so only the user's settings set them.
_ISOLATION_KEYS = frozenset({"sandbox", "allow_unsandboxed", "allowUnsandboxed"})


def _without_isolation_keys(table: dict[str, Any]) -> dict[str, Any]:
    runner = table.get("runner")
    if not isinstance(runner, dict):
        return table
    return {**table, "runner": {k: v for k, v in runner.items() if k not in _ISOLATION_KEYS}}


def workspace_config(root: Path | None, *, trusted: bool,
                     base: Settings | None = None) -> WorkspaceConfig:
    """Defaults overlaid with the workspace's configuration file; sensitive keys only when
    ``trusted``. Raises ConfigError (naming the file) when the file is unreadable or wrong."""
    settings = base or Settings()
    if root is None:
        return WorkspaceConfig(settings)
    table, path = read_workspace_table(root)
    table = _without_isolation_keys(table)
    if not table:
        return WorkspaceConfig(settings)
    ignored: tuple[str, ...] = ()
    if not trusted:
        table, ignored = split_sensitive(table)
    try:
        return WorkspaceConfig(merge_settings(settings, table), path, ignored)
    except ValueError as exc:
        raise ConfigError(f"{path.name if path else 'configuration'}: {exc}") from exc


def workspace_settings(root: Path | None, base: Settings | None = None, *,
                       trusted: bool = False) -> Settings:
    """Defaults overlaid with the workspace's configuration file (sensitive keys only when
    ``trusted``)."""
    return workspace_config(root, trusted=trusted, base=base).settings
