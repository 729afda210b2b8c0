"""Workspace settings: ``[tool.perfpilot]`` in ``pyproject.toml``, or ``.perfpilot.toml``.

A workspace file comes with the code, from whoever wrote the repository. Its keys are read
through the same normalisation as the settings merge (``settings.setting_key``: ``Sandbox``,
``allow-unsandboxed``, ``allowUnsandboxed`` are one key each), and then:

- the isolation keys (``ISOLATION_KEYS``) are never taken from a workspace file, trusted or not:
  only the user's own settings (editor, CLI flags) switch the sandbox off;
- keys that decide where code and keys are sent, which model files are loaded, or which
  commands run (``SENSITIVE_KEYS``) apply only in a trusted workspace (see
  ``perfpilot.engine.trust``);
- keys that set how many requests a job sends and how long they may be (``VOLUME_KEYS``) are
  capped at their defaults in an untrusted workspace.

The caller tells the user once which keys were ignored or capped (``notice``). After the merge,
the protected fields are compared with the base settings, so a spelling the key filter missed
still changes nothing.
"""

from __future__ import annotations

import dataclasses
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from perfpilot.settings import RoleSettings, Settings, merge_settings, setting_key

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on Python 3.10 only
    import tomli as tomllib


ROLES = ("planner", "optimizer")
# Dotted snake_case paths. Endpoint and key variable send code and a secret elsewhere; the
# model may name local weights (pickle files run code when loaded), answers a folder whose
# files become candidates (``replay``); compiler and flags run
# commands (``-fplugin=``, ``-wrapper``); switching the runner off lets unverified rewrites be
# applied; the records folder is a place files are written.
SENSITIVE_KEYS = frozenset({
    *(f"{role}.{key}" for role in ROLES
      for key in ("endpoint", "api_key_env", "model", "answers")),
    "runner.compiler", "runner.flags", "runner.enabled", "ranker.model", "records.folder",
})
# What candidate code may touch: a cloned repository must not be able to switch the sandbox off
# for its own benefit, so only the user's own settings set these, even in a trusted workspace.
ISOLATION_KEYS = frozenset({"runner.sandbox", "runner.allow_unsandboxed"})
# Requests per job (samples, and how many at once) and tokens per request: from an untrusted
# workspace, at most the defaults, so a cloned repository cannot make the user's own endpoint
# take hundreds of requests (or bill them).
VOLUME_KEYS = frozenset({f"{role}.{key}" for role in ROLES
                         for key in ("samples", "concurrency", "max_tokens", "plan_max_tokens",
                                     "repair_rounds")})


@dataclass(frozen=True)
class WorkspaceConfig:
    """The settings a workspace file gives, and what it was not allowed to set.

    ``ignored``: sensitive keys of an untrusted workspace; ``isolation``: isolation keys (never
    read from a workspace file); ``capped``: volume keys lowered to their defaults."""

    settings: Settings
    source: Path | None = None
    ignored: tuple[str, ...] = ()
    isolation: tuple[str, ...] = ()
    capped: tuple[str, ...] = ()

    def notice(self) -> str:
        """One message naming the keys ignored or capped and why ('' if none)."""
        name = self.source.name if self.source is not None else "the workspace configuration"
        folder = self.source.parent if self.source is not None else "this folder"
        parts: list[str] = []
        if self.isolation:
            parts.append(f"ignoring {', '.join(self.isolation)}: the sandbox is set only in your "
                         "own settings (the editor's user settings, or --allow-unsandboxed), "
                         "never by a workspace file")
        if self.ignored:
            parts.append(f"ignoring {', '.join(self.ignored)}: the workspace {folder} is not "
                         f"trusted (trust it with `perfpilot trust {folder}`, "
                         "--trust-workspace, or the editor's trustWorkspace option)")
        if self.capped:
            caps = ", ".join(f"{key} at {_field(self.settings, key)}" for key in self.capped)
            untrusted = "" if self.ignored else (
                f": the workspace {folder} is not trusted (trust it with "
                f"`perfpilot trust {folder}`, --trust-workspace, or the editor's "
                "trustWorkspace option)")
            parts.append(f"capping {caps} (requests a job may send){untrusted}")
        return f"{name}: {'; '.join(parts)}" if parts else ""


def _default(path: str) -> Any:
    _role, key = path.split(".")
    return getattr(RoleSettings(), key)


def _dotted(prefix: str, raw_key: object) -> str:
    """The normalised dotted path of a key (a quoted key with dots names a path too)."""
    parts = [setting_key(part) for part in str(raw_key).split(".")]
    return ".".join([prefix, *parts] if prefix else parts)


def split_keys(table: dict[str, Any], drop: frozenset[str], prefix: str = ""
               ) -> tuple[dict[str, Any], tuple[str, ...]]:
    """``table`` without the keys whose normalised dotted path is in ``drop``, and those paths.

    Keys are compared as the merge reads them: every spelling of a key (``Sandbox``,
    ``allow-unsandboxed``), nested tables and dotted keys."""
    kept: dict[str, Any] = {}
    removed: list[str] = []
    for raw_key, value in table.items():
        where = _dotted(prefix, raw_key)
        if where in drop:
            removed.append(where)
        elif isinstance(value, dict):
            inner, gone = split_keys(value, drop, where)
            kept[raw_key] = inner
            removed.extend(gone)
        else:
            kept[raw_key] = value
    return kept, tuple(dict.fromkeys(removed))


def split_sensitive(table: dict[str, Any], prefix: str = ""
                    ) -> tuple[dict[str, Any], tuple[str, ...]]:
    """``table`` without its sensitive keys, and the dotted names of the keys removed."""
    return split_keys(table, SENSITIVE_KEYS, prefix)


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


def _field(settings: Settings, path: str) -> Any:
    group, key = path.split(".")
    return getattr(getattr(settings, group), key)


def _with_field(settings: Settings, path: str, value: Any) -> Settings:
    group, key = path.split(".")
    inner = dataclasses.replace(getattr(settings, group), **{key: value})
    return dataclasses.replace(settings, **{group: inner})


def _protect(base: Settings, merged: Settings, paths: frozenset[str]
             ) -> tuple[Settings, tuple[str, ...]]:
    """``merged`` with each of ``paths`` back at its value in ``base``, and those that had
    changed: whatever spelling reached the merge, a protected field does not move."""
    changed = tuple(sorted(p for p in paths if _field(merged, p) != _field(base, p)))
    for path in changed:
        merged = _with_field(merged, path, _field(base, path))
    return merged, changed


def _cap_volume(base: Settings, merged: Settings) -> tuple[Settings, tuple[str, ...]]:
    """``merged`` with each volume key at most its default (or ``base``'s value, when that is
    higher: the caller's own), and the keys that were lowered."""
    def cap(path: str) -> Any:
        return max(_default(path), _field(base, path))

    capped = tuple(sorted(p for p in VOLUME_KEYS if _field(merged, p) > cap(p)))
    for path in capped:
        merged = _with_field(merged, path, cap(path))
    return merged, capped


def workspace_config(root: Path | None, *, trusted: bool,
                     base: Settings | None = None) -> WorkspaceConfig:
    """Defaults overlaid with the workspace's configuration file: never its isolation keys,
    its sensitive keys only when ``trusted``, its volume keys capped unless ``trusted``.
    Raises ConfigError (naming the file) when the file is unreadable or wrong."""
    settings = base or Settings()
    if root is None:
        return WorkspaceConfig(settings)
    table, path = read_workspace_table(root)
    if not table:
        return WorkspaceConfig(settings)
    table, isolation = split_keys(table, ISOLATION_KEYS)
    ignored: tuple[str, ...] = ()
    if not trusted:
        table, ignored = split_sensitive(table)
    try:
        merged = merge_settings(settings, table)
    except ValueError as exc:
        raise ConfigError(f"{path.name if path else 'configuration'}: {exc}") from exc
    merged, missed = _protect(settings, merged, ISOLATION_KEYS)
    isolation = tuple(dict.fromkeys((*isolation, *missed)))
    capped: tuple[str, ...] = ()
    if not trusted:
        merged, missed = _protect(settings, merged, SENSITIVE_KEYS)
        ignored = tuple(dict.fromkeys((*ignored, *missed)))
        merged, capped = _cap_volume(settings, merged)
    return WorkspaceConfig(merged, path, ignored, isolation, capped)


def workspace_settings(root: Path | None, base: Settings | None = None, *,
                       trusted: bool = False) -> Settings:
    """Defaults overlaid with the workspace's configuration file (sensitive keys only when
    ``trusted``)."""
    return workspace_config(root, trusted=trusted, base=base).settings
