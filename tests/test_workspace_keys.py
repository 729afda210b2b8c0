"""Workspace keys are read as the merge reads them: no spelling of an isolation key switches the
sandbox off (trusted or not), no spelling of a sensitive key passes an untrusted workspace, and
an untrusted workspace cannot raise how many requests a job sends."""

from __future__ import annotations

import asyncio
import os
import sys
from pathlib import Path

import pytest

from perfpilot.engine import workspace_config as wc
from perfpilot.engine.workspace_config import workspace_config
from perfpilot.settings import RoleSettings, setting_key
from test_llm_remote_faults import FaultyEndpoint, Stream

ISOLATION_SPELLINGS = [
    (".perfpilot.toml", "[runner]\nallow-unsandboxed = true\n"),
    (".perfpilot.toml", "[runner]\nSandbox = false\n"),
    (".perfpilot.toml", "[Runner]\nallowUnsandboxed = true\n"),
    (".perfpilot.toml", "runner.Allow_Unsandboxed = true\n"),
    (".perfpilot.toml", "runner = { SANDBOX = false, ALLOW_UNSANDBOXED = true }\n"),
    (".perfpilot.toml", "[runner]\nallow__unsandboxed = true\n"),
    (".perfpilot.toml", '"runner.sandbox" = false\n'),
    ("pyproject.toml", "[tool.perfpilot.runner]\nSandbox = false\n"),
    ("pyproject.toml", "[tool.perfpilot]\nrunner.allow-unsandboxed = true\n"),
]


@pytest.mark.parametrize(("name", "text"), ISOLATION_SPELLINGS)
@pytest.mark.parametrize("trusted", [False, True])
def test_no_spelling_of_an_isolation_key_is_read_from_a_workspace(
        tmp_path: Path, name: str, text: str, trusted: bool) -> None:
    (tmp_path / name).write_text(text)
    config = workspace_config(tmp_path, trusted=trusted)
    assert config.settings.runner.sandbox is True
    assert config.settings.runner.allow_unsandboxed is False
    assert config.isolation and set(config.isolation) <= wc.ISOLATION_KEYS
    notice = config.notice()
    assert "never by a workspace file" in notice and name in notice
    assert all(key in notice for key in config.isolation)


def test_isolation_keys_are_the_ones_the_merge_would_read() -> None:
    # The filter and the merge read keys through one function: every spelling above is a key
    # the merge would have applied, had the filter let it through.
    for spelling in ("allow-unsandboxed", "allowUnsandboxed", "Allow_Unsandboxed",
                     "ALLOW_UNSANDBOXED", "allow__unsandboxed"):
        assert setting_key(spelling) == "allow_unsandboxed"
    assert setting_key("Sandbox") == setting_key("SANDBOX") == "sandbox"


def test_a_spelling_the_filter_misses_still_changes_nothing(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # The second wall: a key filter that lets everything through (a spelling nobody thought
    # of) still leaves the protected fields at the base values, and the notice names them.
    (tmp_path / ".perfpilot.toml").write_text(
        "[runner]\nsandbox = false\nallow_unsandboxed = true\ncompiler = './cc'\n"
        "[optimizer]\nendpoint = 'http://127.0.0.1:9/v1'\n")
    monkeypatch.setattr(wc, "split_keys", lambda table, drop, prefix="": (table, ()))
    config = workspace_config(tmp_path, trusted=False)
    s = config.settings
    assert s.runner.sandbox and not s.runner.allow_unsandboxed
    assert s.runner.compiler == "" and s.optimizer.endpoint == ""
    assert set(config.isolation) == {"runner.sandbox", "runner.allow_unsandboxed"}
    assert set(config.ignored) == {"runner.compiler", "optimizer.endpoint"}


def test_sensitive_keys_are_matched_in_every_spelling(tmp_path: Path) -> None:
    (tmp_path / ".perfpilot.toml").write_text(
        "[Optimizer]\nEndpoint = 'http://127.0.0.1:9/v1'\nAPI_KEY_ENV = 'SECRET'\n"
        "[runner]\nCompiler = './cc'\nEnabled = false\n[tool]\nx = 1\n"
        "[Planner]\napi-key-env = 'SECRET'\n")
    config = workspace_config(tmp_path, trusted=False)
    s = config.settings
    assert (s.optimizer.endpoint, s.optimizer.api_key_env, s.planner.api_key_env) == ("", "", "")
    assert s.runner.compiler == "" and s.runner.enabled
    assert set(config.ignored) == {"optimizer.endpoint", "optimizer.api_key_env",
                                   "runner.compiler", "runner.enabled", "planner.api_key_env"}
    trusted = workspace_config(tmp_path, trusted=True).settings
    assert trusted.optimizer.api_key_env == "SECRET" and trusted.runner.compiler == "./cc"


VOLUME = ("[optimizer]\nsamples = 300\nconcurrency = 64\nmax-tokens = 100000\n"
          "[planner]\nplanMaxTokens = 9999\nmax_tokens = 200\n")


def test_untrusted_workspace_cannot_raise_the_request_volume(tmp_path: Path) -> None:
    (tmp_path / ".perfpilot.toml").write_text(VOLUME)
    config = workspace_config(tmp_path, trusted=False)
    defaults = RoleSettings()
    o, p = config.settings.optimizer, config.settings.planner
    assert (o.samples, o.concurrency, o.max_tokens) == (
        defaults.samples, defaults.concurrency, defaults.max_tokens)
    assert p.plan_max_tokens == defaults.plan_max_tokens
    assert p.max_tokens == 200  # lower than the default: asks for less, so it applies
    assert set(config.capped) == {"optimizer.samples", "optimizer.concurrency",
                                  "optimizer.max_tokens", "planner.plan_max_tokens"}
    notice = config.notice()
    assert "optimizer.samples at 1" in notice and "capping" in notice and "not trusted" in notice
    trusted = workspace_config(tmp_path, trusted=True)
    assert trusted.settings.optimizer.samples == 300 and trusted.capped == ()
    assert trusted.notice() == ""


async def test_cli_sends_one_request_for_an_untrusted_samples_300(tmp_path: Path) -> None:
    repo = tmp_path / "cloned"
    repo.mkdir()
    (repo / ".git").mkdir()
    (repo / ".perfpilot.toml").write_text("[optimizer]\nsamples = 300\nconcurrency = 300\n")
    source = repo / "a.cpp"
    source.write_text("int twice(int x) {\n    return x + x;\n}\n")
    answer = Stream("```cpp\nint twice(int x) {\n    return 2 * x;\n}\n```")
    env = {**os.environ, "XDG_CONFIG_HOME": str(tmp_path / "config")}
    async with FaultyEndpoint(answer) as ep:
        proc = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "perfpilot", "optimize", str(source), "--function", "twice",
            "--optimizer", "remote", "--endpoint", ep.url, "--model", "tiny", env=env,
            stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
        _out, err = await asyncio.wait_for(proc.communicate(), 300)
    assert proc.returncode == 0, err.decode()
    assert len(ep.requests) == 1
    notice = [line for line in err.decode().splitlines() if "capping" in line]
    assert len(notice) == 1 and "optimizer.samples at 1" in notice[0], err.decode()
