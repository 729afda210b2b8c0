"""A failed run's diagnostic says its evidence once: related information only adds to it.

A loopback OpenAI-compatible endpoint answers the optimizer with a rewrite that computes
something else; the real runner finds the outputs differ, and the server publishes a warning.
"""

from __future__ import annotations

import json
import threading
from collections.abc import AsyncIterator, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
import pytest_lsp
from lsprotocol import types as lsp
from pytest_lsp import ClientServerConfig, LanguageClient

from lsp_support import SERVER_COMMAND, Recorder, finished_job, vscode_capabilities

SOURCE = """\
#include <vector>

long ends(std::vector<long> v) {
    if (v.empty()) return 0;
    return v.front() + v.back();
}
"""

# Takes the vector by reference, but subtracts where the original adds: incorrect.
ANSWER = """[SUGG/]
- **Function Call Overhead Reduction**: take `v` by const reference
[/SUGG]
[OPT/]
```cpp
long ends(const std::vector<long>& v) {
    if (v.empty()) return 0;
    return v.front() - v.back();
}
```
[/OPT]"""


class Endpoint(BaseHTTPRequestHandler):
    """Answers every chat completion with ``ANSWER`` as one JSON document."""

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("Content-Length", "0")))
        body = json.dumps({"choices": [{"index": 0, "finish_reason": "stop",
                                        "message": {"role": "assistant",
                                                    "content": ANSWER}}]}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def endpoint() -> Iterator[str]:
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Endpoint)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}/v1"
    httpd.shutdown()
    httpd.server_close()


@pytest_lsp.fixture(config=ClientServerConfig(server_command=SERVER_COMMAND))
async def client(lsp_client: LanguageClient, tmp_path: Path, endpoint: str
                 ) -> AsyncIterator[LanguageClient]:
    lsp_client.recorder = Recorder(lsp_client)  # type: ignore[attr-defined]
    await lsp_client.initialize_session(lsp.InitializeParams(
        capabilities=vscode_capabilities(), root_uri=tmp_path.as_uri(),
        initialization_options={"settings": {
            "optimizer": {"backend": "remote", "endpoint": endpoint, "model": "fake"},
            "runner": {"callgrind": False}}}))
    yield lsp_client
    await lsp_client.shutdown_session()


async def test_an_incorrect_candidate_is_reported_once(client: LanguageClient,
                                                       tmp_path: Path) -> None:
    r: Recorder = client.recorder  # type: ignore[attr-defined]
    uri, job_id = await finished_job(client, r, tmp_path / "ends.cpp", SOURCE, 3, 4)
    assert r.edits == []
    await r.wait(lambda: bool(client.diagnostics.get(uri)), timeout=10)
    (diag,) = client.diagnostics[uri]
    assert diag.code == "incorrect", (diag, r.job_done(job_id))
    assert "differs from the original" in diag.message
    for related in diag.related_information or []:
        assert related.message.strip() not in diag.message, (related.message, diag.message)
