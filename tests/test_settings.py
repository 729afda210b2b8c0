"""Settings from editor objects, workspace files and their validation."""

from __future__ import annotations

from pathlib import Path

import pytest

from perfpilot.engine.workspace_config import ConfigError, workspace_settings
from perfpilot.settings import Settings, merge_settings


def test_camel_case_editor_settings_overlay_defaults() -> None:
    s = merge_settings(Settings(), {
        "planner": {"backend": "local", "model": "/m", "maxTokens": 64},
        "optimizer": {"backend": "remote", "endpoint": "http://127.0.0.1:1/v1", "samples": 3,
                      "apiKeyEnv": "KEY"},
        "runner": {"flags": "-O3 -march=x86-64-v3", "buildTimeoutS": 5, "callgrind": False},
        "applyMode": "preview", "inlayHints": False, "unknownKey": 1,
    })
    assert s.planner.backend == "local" and s.planner.max_tokens == 64
    assert s.optimizer.samples == 3 and s.optimizer.api_key_env == "KEY"
    assert s.runner.flags == ("-O3", "-march=x86-64-v3") and s.runner.build_timeout_s == 5.0
    assert not s.runner.callgrind and s.apply_mode == "preview" and not s.inlay_hints
    assert Settings().planner.backend == "builtin"  # the default is untouched


@pytest.mark.parametrize(("data", "message"), [
    ({"planner": {"backend": "gpt"}}, "planner.backend must be one of"),
    ({"optimizer": {"samples": 0}}, "optimizer.samples must be at least 1"),
    ({"runner": {"callgrind": "yes"}}, "runner.callgrind must be true or false"),
    ({"runner": "fast"}, "runner must be a table"),
    ({"applyMode": "sometimes"}, "apply_mode must be one of"),
])
def test_bad_values_name_the_key(data: dict[str, object], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        merge_settings(Settings(), data)


def test_pyproject_table_and_dedicated_file(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text(
        "[project]\nname='x'\n[tool.perfpilot]\napply_mode='ask'\n"
        "[tool.perfpilot.optimizer]\nbackend='remote'\nendpoint='http://127.0.0.1:9/v1'\n")
    s = workspace_settings(tmp_path)
    assert s.apply_mode == "ask" and s.optimizer.backend == "remote"
    (tmp_path / ".perfpilot.toml").write_text("[runner]\nthreads = 2\n")
    s2 = workspace_settings(tmp_path)
    assert s2.runner.threads == 2 and s2.apply_mode == "verified"  # the dedicated file wins


def test_broken_config_file_is_reported(tmp_path: Path) -> None:
    (tmp_path / ".perfpilot.toml").write_text("[runner\nthreads=")
    with pytest.raises(ConfigError, match=r"cannot read \.perfpilot\.toml"):
        workspace_settings(tmp_path)
    (tmp_path / ".perfpilot.toml").write_text("[runner]\nthreads='many'\n")
    with pytest.raises(ConfigError, match=r"runner\.threads must be a number"):
        workspace_settings(tmp_path)
