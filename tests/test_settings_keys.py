"""The settings keys are stated once: the server's dataclasses and the extension's package.json
(from which the extension reads its key list) name the same keys, defaults and choices, and the
settings docs name every key; the version is the same for server and extension."""

from __future__ import annotations

import dataclasses
import json
import re
from pathlib import Path
from typing import Any

import perfpilot
from perfpilot.settings import Settings, setting_choices

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = json.loads((ROOT / "client-vscode" / "package.json").read_text(encoding="utf-8"))
# Keys only the extension reads (how to start the server, its trace).
CLIENT_ONLY = {"interpreter", "serverSource", "trace.server"}


def _camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(part[:1].upper() + part[1:] for part in rest)


def server_keys(obj: Any = None, prefix: str = "") -> dict[str, Any]:
    """Every leaf setting as its editor key (camelCase, dotted) and default value."""
    obj = obj if obj is not None else Settings()
    out: dict[str, Any] = {}
    for f in dataclasses.fields(obj):
        value = getattr(obj, f.name)
        key = prefix + _camel(f.name)
        if dataclasses.is_dataclass(value):
            out.update(server_keys(value, key + "."))
        else:
            out[key] = value
    return out


def package_keys() -> dict[str, dict[str, Any]]:
    props: dict[str, dict[str, Any]] = {}
    for group in PACKAGE["contributes"]["configuration"]:
        props.update(group["properties"])
    return {k.removeprefix("perfpilot."): v for k, v in props.items()
            if k.removeprefix("perfpilot.") not in CLIENT_ONLY}


def test_package_json_names_every_server_key_and_no_other() -> None:
    server, package = server_keys(), package_keys()
    assert sorted(set(server) - set(package)) == [], "missing from package.json"
    assert sorted(set(package) - set(server)) == [], "in package.json but not a server setting"


def test_package_json_defaults_types_and_choices_match_the_server() -> None:
    json_type = {bool: "boolean", int: "integer", float: "number", str: "string",
                 tuple: "array"}
    for key, default in server_keys().items():
        entry = package_keys()[key]
        want = list(default) if isinstance(default, tuple) else default
        assert entry["default"] == want, key
        assert entry["type"] == json_type[type(default)], key
        choices = setting_choices(key.split(".")[-1])
        if choices:
            assert entry.get("enum") == list(choices), key


def test_the_settings_docs_name_every_key() -> None:
    text = (ROOT / "docs" / "vscode.md").read_text(encoding="utf-8")
    named = set(re.findall(r"`([a-zA-Z*.]+)`", text))
    for key in [*server_keys(), *CLIENT_ONLY]:
        wildcard = "*." + key.split(".", 1)[-1]
        assert key in named or wildcard in named, key


def test_one_version_for_server_and_extension() -> None:
    assert PACKAGE["version"] == perfpilot.__version__


def test_one_secret_name_on_the_wire() -> None:
    from perfpilot.lsp.protocol import SECRET_API_KEY

    protocol_ts = (ROOT / "client-vscode" / "src" / "protocol.ts").read_text(encoding="utf-8")
    declared = re.search(r"interface SetSecretParams \{\s*name: '([^']+)'", protocol_ts)
    assert declared is not None and declared.group(1) == SECRET_API_KEY
