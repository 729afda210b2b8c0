"""Hostile model answers through the whole product: the CLI's ``optimize --write`` and the
language server's Make this faster.

A loopback OpenAI-compatible endpoint answers the optimizer with each candidate of the hostile
corpus (tests/hostile/dodges/: shadowed names, run-time paths, memoised answers, threads, exit
paths; and answers that are wrong only beyond the sizes a naive check times). None may reach
the user's file, and each is refused for its own reason; the honest rewrite of the same
function is measured faster and written.
"""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import sys
import threading
from collections.abc import AsyncIterator, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
import pytest_lsp
from lsprotocol import types as lsp
from pytest_lsp import ClientServerConfig, LanguageClient

from lsp_support import SERVER_COMMAND, Recorder, finished_job, vscode_capabilities
from perfpilot import exit_codes
from test_hostile_candidates import DODGES
from test_llm_remote_faults import FaultyEndpoint, Stream

pytestmark = pytest.mark.skipif(shutil.which("g++") is None, reason="g++ not installed")

CORPUS = Path(__file__).parent / "hostile" / "dodges"
# Quadratic: any of the answers below, if it got through, would be measured much faster.
ORIGINAL = """\
long sum_array(const long* a, long n)
{
    long s = 0;
    for (long i = 0; i < n; ++i)
        for (long j = 0; j <= i; ++j)
            if (j == i)
                s += a[j];
    return s;
}
"""
# Wrong only on inputs larger than every size the validation used to try (its edge sizes and
# the timed size): caught only by the check beyond the timed size.
WRONG_WHEN_LARGE = """\
long sum_array(const long* a, long n)
{
    long s = 0;
    for (long i = 0; i < n; ++i) s += a[i];
    return n > 20000 ? s + 1 : s;
}
"""
# Small measurements: what is under test is what gets written, not the figure.
WORKSPACE = "[runner]\npairs = 6\ncallgrind = false\n"


def answer(name: str, mark: Path) -> str:
    """A model's answer carrying the corpus file ``name`` as its rewrite."""
    text = (CORPUS / f"{name}.cpp").read_text() if name != "wrong_when_large" \
        else WRONG_WHEN_LARGE
    text = text.replace("@TAG@", "perfpilot-e2e").replace("@MARK@", str(mark))
    return f"Here is a faster version.\n\n```cpp\n{text}```\n"


def refusal_words(name: str) -> tuple[str, ...]:
    """What the outcome must say about ``name``: the policy and each construct, or the wrong
    result."""
    if name == "wrong_when_large":
        return ("differs from the original",)
    return ("capability policy", *DODGES[name])


async def perfpilot(*args: str, cwd: Path) -> tuple[int, str, str]:
    env = {**os.environ, "XDG_CONFIG_HOME": str(cwd / "config")}
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "perfpilot", *args, cwd=cwd, env=env,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
    out, err = await asyncio.wait_for(proc.communicate(), 600)
    assert proc.returncode is not None
    return proc.returncode, out.decode(), err.decode()


async def optimize_write(folder: Path, text: str) -> tuple[int, str, str, int]:
    """``perfpilot optimize --write`` on a fresh copy of the original with ``text`` as the
    model's answer: exit status, stdout, stderr, requests the endpoint saw."""
    folder.mkdir()
    (folder / ".perfpilot.toml").write_text(WORKSPACE)
    (folder / "sum.cpp").write_text(ORIGINAL)
    async with FaultyEndpoint(Stream(text)) as ep:
        status, out, err = await perfpilot(
            "optimize", str(folder / "sum.cpp"), "--function", "sum_array", "--write",
            "--optimizer", "remote", "--endpoint", ep.url, "--model", "tiny", cwd=folder)
    return status, out, err, len(ep.requests)


HOSTILE = [*sorted(DODGES), "wrong_when_large"]
# The language server's test below meets every hostile answer in one session; each answer on the
# command line costs a process of its own: ``make test`` sends every third dodge and the wrong
# answer (the one repaired), ``make test-deep`` every one.
CLI_SAMPLE = {*sorted(DODGES)[::3], "wrong_when_large"}


@pytest.mark.parametrize("name", [name if name in CLI_SAMPLE
                                  else pytest.param(name, marks=pytest.mark.deep)
                                  for name in HOSTILE])
async def test_the_cli_never_writes_a_hostile_answer(name: str, tmp_path: Path) -> None:
    mark = tmp_path / "mark"
    mark.mkdir()
    status, out, err, asked = await optimize_write(tmp_path / "project",
                                                   answer(name, mark))
    # The candidate came from the model; a policy refusal is never sent back for repair, a
    # wrong answer is, once (and the same answer again ends the rounds).
    assert asked == (2 if name == "wrong_when_large" else 1), (out, err)
    assert status == exit_codes.WRITE_REFUSED, (out, err)
    assert (tmp_path / "project" / "sum.cpp").read_text() == ORIGINAL
    said = out + err
    for word in refusal_words(name):
        assert word in said, (word, said)
    assert list(mark.iterdir()) == []


async def test_the_cli_writes_the_honest_rewrite(tmp_path: Path) -> None:
    status, out, err, _ = await optimize_write(tmp_path / "project",
                                               answer("honest", tmp_path))
    assert status == exit_codes.OK, (out, err)
    written = (tmp_path / "project" / "sum.cpp").read_text()
    assert "s0 += a[i];" in written and "j <= i" not in written
    assert "Measured (faster)" in out, out


class Endpoint(ThreadingHTTPServer):
    """One loopback OpenAI-compatible endpoint (in a thread) for a whole editor session; each
    request is answered with the text the test set last, as one JSON document."""

    answer = "nothing yet"

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}/v1"


class _Answer(BaseHTTPRequestHandler):
    server: Endpoint

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("Content-Length", "0")))
        body = json.dumps({"choices": [{"index": 0, "finish_reason": "stop", "message": {
            "role": "assistant", "content": self.server.answer}}]}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def endpoint() -> Iterator[Endpoint]:
    httpd = Endpoint(("127.0.0.1", 0), _Answer)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield httpd
    httpd.shutdown()
    httpd.server_close()


@pytest_lsp.fixture(config=ClientServerConfig(server_command=SERVER_COMMAND))
async def client(lsp_client: LanguageClient, tmp_path: Path, endpoint: Endpoint
                 ) -> AsyncIterator[LanguageClient]:
    lsp_client.recorder = Recorder(lsp_client)  # type: ignore[attr-defined]
    (tmp_path / ".perfpilot.toml").write_text(WORKSPACE)
    await lsp_client.initialize_session(lsp.InitializeParams(
        capabilities=vscode_capabilities(), root_uri=tmp_path.as_uri(),
        initialization_options={"settings": {
            "optimizer": {"backend": "remote", "endpoint": endpoint.url,
                          "model": "tiny"}}}))
    yield lsp_client
    await lsp_client.shutdown_session()


async def test_the_language_server_never_applies_a_hostile_answer(
        client: LanguageClient, endpoint: Endpoint, tmp_path: Path) -> None:
    r: Recorder = client.recorder  # type: ignore[attr-defined]
    mark = tmp_path / "mark"
    mark.mkdir()
    for name in HOSTILE:
        endpoint.answer = answer(name, mark)
        # A comment of its own per function: answers are cached by the function's text.
        text = ORIGINAL.replace("{\n", f"{{\n    // {name}\n", 1)
        _, job_id = await finished_job(client, r, tmp_path / f"{name}.cpp", text, 3, 4)
        done = r.job_done(job_id)
        assert done is not None and r.edits == [], (name, done)
        said = str(done)
        for word in refusal_words(name):
            assert word in said, (name, word, said)
    assert list(mark.iterdir()) == []
    # The same function, answered honestly, is measured and edited.
    endpoint.answer = answer("honest", mark)
    _, job_id = await finished_job(client, r, tmp_path / "honest.cpp", ORIGINAL, 3, 4)
    await r.wait(lambda: len(r.edits) == 1, timeout=300)
    new_text = r.edits[0].edit.document_changes[0].edits[0].new_text  # type: ignore[index, union-attr]
    assert "s0 += a[i];" in new_text, new_text
