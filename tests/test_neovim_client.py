"""Neovim as a second real LSP client: its code action menu, applyEdit handler, hover, code lens.

Headless Neovim runs a Lua script (tests/nvim/) that drives the PerfPilot server over stdio the way
a user would, then writes what it saw as JSON. Also checks that the Neovim snippet in
docs/editors.md starts and configures the server.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import signal
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

NVIM = shutil.which("nvim")
REPO = Path(__file__).resolve().parent.parent
DRIVER = REPO / "tests" / "nvim" / "init.lua"
SNIPPET_CHECK = REPO / "tests" / "nvim" / "snippet_check.lua"
EDITORS_DOC = REPO / "docs" / "editors.md"
SERVER_COMMAND = [sys.executable, "-m", "perfpilot", "serve"]
# The measured run takes seconds; these bound a hung editor or server, not a slow machine.
EDIT_WAIT_S = 240
NVIM_TIMEOUT_S = EDIT_WAIT_S + 60

pytestmark = pytest.mark.skipif(
    NVIM is None, reason="Neovim is not installed (Debian package `neovim`, 0.7 or newer)")

# Copying the vector on every call dominates; the built-in rewriter takes it by const reference.
SOURCE = """\
#include <vector>

long ends(std::vector<long> v) {
    if (v.empty()) return 0;
    return v.front() + v.back();
}
"""
INSIDE = "3:4"   # in the body of ends
NAME = "2:6"     # on the name ends
OUTSIDE = "0:2"  # the #include line


def run_nvim(args: list[str], env: Mapping[str, str], cwd: Path,
             timeout: float) -> subprocess.CompletedProcess[str]:
    """Run headless Neovim in its own process group; on timeout the whole group (the language
    server included) is killed and the test fails with what Neovim printed."""
    assert NVIM is not None
    proc = subprocess.Popen([NVIM, *args], cwd=cwd, env=dict(env), stdin=subprocess.DEVNULL,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                            start_new_session=True)
    try:
        out, _ = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        out, _ = proc.communicate()
        pytest.fail(f"nvim did not finish within {timeout:.0f} s; output:\n{out}")
    finally:
        # A server that outlived its editor would be a bug, but must not outlive the test.
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
    return subprocess.CompletedProcess(proc.args, proc.returncode, out, None)


def nvim_env(home: Path, **extra: str) -> dict[str, str]:
    """A throw-away HOME and XDG dirs: Neovim writes its state, shada and LSP log there."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("XDG_", "NVIM"))}
    env.update(HOME=str(home), XDG_CONFIG_HOME=str(home / "config"),
               XDG_DATA_HOME=str(home / "data"), XDG_STATE_HOME=str(home / "state"),
               XDG_CACHE_HOME=str(home / "cache"), NVIM_LOG_FILE=str(home / "nvim.log"))
    env.update(extra)
    return env


def read_result(path: Path, proc: subprocess.CompletedProcess[str]) -> dict[str, Any]:
    """The JSON the Lua script wrote; fails with Neovim's output if there is none."""
    assert path.exists(), f"nvim wrote no result (rc {proc.returncode}):\n{proc.stdout}"
    data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return data


@pytest.fixture(scope="module")
def session(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """One Neovim session: code actions, Make this faster through the menu, edit, hover."""
    base = tmp_path_factory.mktemp("nvim")
    workspace = base / "ws"
    workspace.mkdir()
    source = workspace / "ends.cpp"
    source.write_text(SOURCE, encoding="utf-8")
    result_path = base / "result.json"
    env = nvim_env(base / "home",
                   PERFPILOT_NVIM_CMD=json.dumps(SERVER_COMMAND),
                   PERFPILOT_NVIM_FILE=str(source),
                   PERFPILOT_NVIM_RESULT=str(result_path),
                   PERFPILOT_NVIM_INSIDE=INSIDE, PERFPILOT_NVIM_NAME=NAME,
                   PERFPILOT_NVIM_OUTSIDE=OUTSIDE,
                   PERFPILOT_NVIM_WAIT_MS=str(EDIT_WAIT_S * 1000))
    proc = run_nvim(["--headless", "--clean", "-u", str(DRIVER)], env, workspace,
                    NVIM_TIMEOUT_S)
    data = read_result(result_path, proc)
    data["nvim_output"] = proc.stdout
    data["file_after"] = source.read_text(encoding="utf-8")
    assert "error" not in data, f"{data['error']}\nnvim output:\n{proc.stdout}"
    return data


def test_make_this_faster_is_offered_inside_the_function(session: dict[str, Any]) -> None:
    assert "Make this faster: ends" in session["inside_titles"]
    assert "Explain performance of ends (plan only)" in session["inside_titles"]
    # Neovim's own code action menu (vim.ui.select) listed the same actions.
    assert session["select_items"] == session["inside_titles"]


def test_no_code_actions_outside_a_function(session: dict[str, Any]) -> None:
    assert session["outside_titles"] == []


def test_neovim_applied_the_measured_rewrite(session: dict[str, Any]) -> None:
    assert session["execute_command"]["result"]["jobId"]
    assert session["finished_in_time"], session["jobs"][-3:]
    assert session["changed"], session["messages"]
    lines = session["lines"]
    assert "long ends(const std::vector<long> &v) {" in [
        line.replace("& v", "&v") for line in lines], lines
    assert "    return v.front() + v.back();" in lines
    assert session["edits"][0].startswith("Optimize ends (")
    # The edit went into the buffer only; saving is the user's choice.
    assert session["file_after"] == SOURCE


def test_outcome_message_and_job_status_reached_neovim(session: dict[str, Any]) -> None:
    assert any(m.startswith("PerfPilot: ends rewritten") and "faster" in m
               for m in session["messages"]), session["messages"]
    done = [j for j in session["jobs"] if j.get("done")]
    assert done and done[-1]["stage"] == "done" and done[-1]["function"] == "ends"


def test_hover_on_the_name_shows_the_plan_and_measurement(session: dict[str, Any]) -> None:
    hover = session["hover"]
    assert hover is not None
    assert "PerfPilot plan for `ends`" in hover
    assert "Function Call Overhead Reduction" in hover
    assert "**Result:**" in hover and "95% CI" in hover and "**Checked:**" in hover
    # Neovim shows the markdown as text: figures and words carry no backslash escapes.
    assert "\\" not in hover, hover


def test_hover_after_the_rewrite_does_not_call_it_changed(session: dict[str, Any]) -> None:
    assert "changed since it was measured" not in session["hover"]


def test_server_exits_cleanly_when_neovim_stops_it(session: dict[str, Any]) -> None:
    assert session["steps"][-1] == "stopped"
    assert session["server_exit"] == {"code": 0, "signal": 0}
    assert "deprecated" not in session["nvim_output"]


def test_revert_through_the_code_lens_restores_the_function(session: dict[str, Any]) -> None:
    titles = session["lens_titles"]
    assert any(t.startswith("⚡") and "faster" in t for t in titles), titles
    assert {"Details", "Re-run", "Revert"} <= set(titles)
    # Neovim's own lens menu offered the lenses of the signature line; Revert was picked.
    assert "Revert" in session["lens_menu"]
    assert session["edits"] == [session["edits"][0], "Revert ends"]
    assert session["lines_after_revert"] == SOURCE.splitlines()


def docs_snippet() -> str:
    """The first Lua block of the Neovim section of docs/editors.md."""
    text = EDITORS_DOC.read_text(encoding="utf-8")
    section = text.split("\n## Neovim", 1)[1]
    match = re.search(r"```lua\n(.*?)```", section, re.S)
    assert match, "no ```lua block in the Neovim section of docs/editors.md"
    return match.group(1)


def test_docs_snippet_starts_and_configures_the_server(tmp_path: Path) -> None:
    # The snippet runs `perfpilot serve` from PATH, as a user's install would.
    scripts = Path(sys.executable).parent
    assert (scripts / "perfpilot").exists(), "the perfpilot console script is not installed"
    snippet = docs_snippet()
    # Prove the snippet's settings reach the server: change one and read it back.
    assert "applyMode = 'verified'" in snippet
    init = tmp_path / "init.lua"
    init.write_text(snippet.replace("applyMode = 'verified'", "applyMode = 'ask'"),
                    encoding="utf-8")
    workspace = tmp_path / "ws"
    workspace.mkdir()
    (workspace / ".git").mkdir()  # a root marker
    sub = workspace / "src"
    sub.mkdir()
    source = sub / "ends.cpp"
    source.write_text(SOURCE, encoding="utf-8")
    result_path = tmp_path / "result.json"
    env = nvim_env(tmp_path / "home", PERFPILOT_NVIM_RESULT=str(result_path),
                   PERFPILOT_NVIM_INSIDE=INSIDE,
                   PATH=f"{scripts}{os.pathsep}{os.environ.get('PATH', '')}")
    proc = run_nvim(["--headless", "--clean", "-u", str(init), "-c",
                     f"luafile {SNIPPET_CHECK}", str(source)], env, sub, 150)
    data = read_result(result_path, proc)
    assert "error" not in data, f"{data['error']}\nnvim output:\n{proc.stdout}"
    assert data["filetype"] == "cpp"
    assert data["client_name"] == "perfpilot"
    assert "deprecated" not in proc.stdout
    assert "Make this faster: ends" in data["titles"]
    assert data["status"]["applyMode"] == "ask"
    # Neovim 0.8+ finds the marker above the file; 0.7 uses the working directory.
    assert data["root_dir"] == str(workspace if data["has_vim_fs"] else sub)
