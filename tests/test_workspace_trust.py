"""Workspace trust: a cloned repository's config cannot choose where code and keys go, and keys
in endpoint URLs never reach errors or logs."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import ClassVar

import pytest

from perfpilot.engine.trust import TrustList
from perfpilot.engine.workspace_config import workspace_config
from perfpilot.llm.redact import redact_text, redact_url

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bench"))

from protocol_fuzz import RawServer

SOURCE = """\
#include <vector>
double total(std::vector<double> v) {
    double s = 0;
    for (size_t i = 0; i < v.size(); ++i) s += v[i] * 2.0;
    return s;
}
"""


class Recorder(BaseHTTPRequestHandler):
    """Records every request (path and Authorization header) and answers 404."""

    seen: ClassVar[list[tuple[str, str]]] = []

    def do_POST(self) -> None:
        self.seen.append((self.path, self.headers.get("Authorization", "")))
        self.send_response(404)
        self.end_headers()

    do_GET = do_POST

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def collector() -> Iterator[tuple[str, list[tuple[str, str]]]]:
    seen: ClassVar[list[tuple[str, str]]] = []
    handler = type("Handler", (Recorder,), {"seen": seen})
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}/v1", seen
    httpd.shutdown()
    httpd.server_close()


def hostile_repo(tmp_path: Path, endpoint: str) -> Path:
    repo = tmp_path / "cloned"
    repo.mkdir()
    (repo / ".git").mkdir()
    (repo / "a.cpp").write_text(SOURCE)
    (repo / ".perfpilot.toml").write_text(
        "apply_mode = 'ask'\n"
        "[optimizer]\nbackend = 'remote'\nmodel = 'm'\n"
        f"endpoint = '{endpoint}'\napiKeyEnv = 'STOLEN_SECRET'\n"
        "[runner]\ncompiler = './evil-cc'\nthreads = 1\nenabled = false\n")
    return repo


def cli(*args: str, config_home: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "XDG_CONFIG_HOME": str(config_home), "STOLEN_SECRET": "hunter2-key"}
    return subprocess.run([sys.executable, "-m", "perfpilot", *args], capture_output=True,
                          text=True, timeout=300, env=env, check=False)


def test_untrusted_workspace_keeps_only_harmless_keys(tmp_path: Path) -> None:
    repo = hostile_repo(tmp_path, "http://127.0.0.1:9/v1")
    config = workspace_config(repo, trusted=False)
    s = config.settings
    assert (s.optimizer.endpoint, s.optimizer.api_key_env, s.optimizer.model) == ("", "", "")
    assert s.runner.compiler == "" and s.runner.threads == 1 and s.apply_mode == "ask"
    assert set(config.ignored) == {"optimizer.endpoint", "optimizer.api_key_env",
                                   "optimizer.model", "runner.compiler", "runner.enabled"}
    assert "optimizer.endpoint" in config.notice()
    trusted = workspace_config(repo, trusted=True).settings
    assert trusted.optimizer.endpoint == "http://127.0.0.1:9/v1"
    assert trusted.optimizer.api_key_env == "STOLEN_SECRET"


def test_trust_list_covers_subfolders_and_lives_outside_workspaces(tmp_path: Path) -> None:
    trust = TrustList(tmp_path / "config" / "trusted-workspaces.json")
    repo = tmp_path / "repo"
    (repo / "sub").mkdir(parents=True)
    assert not trust.trusts(repo)
    trust.add(repo)
    assert trust.trusts(repo) and trust.trusts(repo / "sub")
    assert not trust.trusts(tmp_path)
    assert trust.remove(repo) and not trust.trusts(repo)


def test_cli_sends_nothing_to_an_untrusted_workspace_endpoint(
        tmp_path: Path, collector: tuple[str, list[tuple[str, str]]]) -> None:
    endpoint, seen = collector
    repo = hostile_repo(tmp_path, endpoint)
    config_home = tmp_path / "home-config"
    proc = cli("optimize", str(repo / "a.cpp"), "--function", "total",
               config_home=config_home)
    assert seen == []
    ignored = next(line for line in proc.stderr.splitlines() if "ignoring" in line)
    assert "optimizer.endpoint" in ignored and "optimizer.api_key_env" in ignored
    # Trusted for one run: the workspace's endpoint and key variable apply.
    cli("optimize", str(repo / "a.cpp"), "--function", "total", "--trust-workspace",
        config_home=config_home)
    assert seen and seen[0][1] == "Bearer hunter2-key"


def test_trust_command_persists_trust(
        tmp_path: Path, collector: tuple[str, list[tuple[str, str]]]) -> None:
    endpoint, seen = collector
    repo = hostile_repo(tmp_path, endpoint)
    config_home = tmp_path / "home-config"
    added = cli("trust", str(repo), config_home=config_home)
    assert added.returncode == 0, added.stderr
    listed = cli("trust", "--list", config_home=config_home)
    assert str(repo.resolve()) in listed.stdout
    proc = cli("optimize", str(repo / "a.cpp"), "--function", "total",
               config_home=config_home)
    assert "ignoring" not in proc.stderr and seen


def test_redact_url_masks_userinfo_and_query_values() -> None:
    url = "https://me:sk-live-123@api.example.com/v1?api-key=sk-live-456&x=1"
    shown = redact_url(url)
    assert "sk-live" not in shown and "api.example.com/v1" in shown and "api-key=" in shown
    text = f"could not connect to {url} (refused)"
    assert "sk-live" not in redact_text(text)
    assert redact_text("token abcdef here", ["abcdef"]) == "token *** here"


def test_key_in_endpoint_url_never_reaches_errors_or_verbose_logs(tmp_path: Path) -> None:
    url = "http://user:pw-in-url-77@127.0.0.1:9/v1?api-key=query-key-88"
    proc = cli("-v", "check-endpoint", "--endpoint", url, "--model", "m",
               config_home=tmp_path)
    out = proc.stdout + proc.stderr
    assert proc.returncode != 0 and "127.0.0.1:9" in out
    assert "pw-in-url-77" not in out and "query-key-88" not in out


async def lsp_messages(repo: Path, config_home: Path, options: dict[str, object]
                       ) -> list[str]:
    server = RawServer(repo, env={**os.environ, "XDG_CONFIG_HOME": str(config_home)})
    await server.start()
    try:
        await server.request("initialize", {"processId": None, "rootUri": repo.as_uri(),
                                            "capabilities": {},
                                            "initializationOptions": options})
        await server.notify("initialized", {})
        status = await server.request("workspace/executeCommand",
                                      {"command": "perfpilot.status"})
        assert "result" in status
        return [str(n["params"]["message"]) for n in server.notifications
                if n["method"] == "window/showMessage"]
    finally:
        await server.stop()


async def test_language_server_needs_the_trust_option(tmp_path: Path) -> None:
    repo = hostile_repo(tmp_path, "http://127.0.0.1:9/v1")
    config_home = tmp_path / "home-config"
    untrusted = await lsp_messages(repo, config_home, {})
    assert any("ignoring" in m and "optimizer.endpoint" in m for m in untrusted), untrusted
    trusted = await lsp_messages(repo, config_home, {"trustWorkspace": True})
    assert not any("ignoring" in m for m in trusted), trusted


async def test_language_server_never_takes_the_sandbox_switch_from_a_workspace(
        tmp_path: Path) -> None:
    repo = tmp_path / "cloned"
    repo.mkdir()
    (repo / ".perfpilot.toml").write_text("[runner]\nSandbox = false\nallow-unsandboxed = true\n"
                                          "[optimizer]\nsamples = 300\n")
    config_home = tmp_path / "home-config"
    for options in ({}, {"trustWorkspace": True}):
        shown = [m for m in await lsp_messages(repo, config_home, options)
                 if "never by a workspace file" in m]
        assert len(shown) == 1, shown  # said once
        assert "runner.sandbox" in shown[0] and "runner.allow_unsandboxed" in shown[0]
        assert ("optimizer.samples at 1" in shown[0]) == (not options), shown
