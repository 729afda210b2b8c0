"""Workspace settings: ``[tool.perfpilot]`` in ``pyproject.toml``, or ``.perfpilot.toml``."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from perfpilot.engine.settings import Settings, merge_settings

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on Python 3.10 only
    import tomli as tomllib


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


def workspace_settings(root: Path | None, base: Settings | None = None) -> Settings:
    """Defaults overlaid with the workspace's configuration file, if any (never its choice of
    sandbox: ``runner.sandbox`` and ``runner.allow_unsandboxed`` are the user's alone)."""
    settings = base or Settings()
    if root is None:
        return settings
    table, path = read_workspace_table(root)
    table = _without_isolation_keys(table)
    if not table:
        return settings
    try:
        return merge_settings(settings, table)
    except ValueError as exc:
        raise ConfigError(f"{path.name if path else 'configuration'}: {exc}") from exc
