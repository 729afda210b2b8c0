"""Protocol fuzz: hostile and malformed JSON-RPC against the real server over stdio.

Sends a seeded mix of garbage bodies, invalid JSON, wrong parameter types, huge and invalid
ids, unknown methods, missing parameters, out-of-range positions, invalid and hostile URIs
(FIFOs, devices, procfs), oversized ``Content-Length`` headers and out-of-order document
versions, interleaved with ordinary hover and code action requests. Counts server crashes and
requests left without an answer (both must be zero) and the latency of the ordinary requests
during the fuzz. Loopback only: the server is a child process on pipes.

    .venv/bin/python bench/protocol_fuzz.py [--messages 2000] [--seed 1] [--time-limit 120]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import random
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

SERVER = [sys.executable, "-m", "perfpilot", "serve"]

SOURCE = """\
#include <vector>
#include <cstring>

long count_upper(const char* s) {
    long c = 0;
    for (size_t i = 0; i < strlen(s); ++i)
        if (s[i] >= 'A' && s[i] <= 'Z') ++c;
    return c;
}

double total(std::vector<double> v) {
    double s = 0;
    for (size_t i = 0; i < v.size(); ++i) s += v[i] * 2.0;
    return s;
}
"""
HOVER_LINE = 3  # the signature of count_upper
ACTION_LINE = 12  # inside total


def frame(body: bytes) -> bytes:
    """One message with its header."""
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


def encode(message: Any) -> bytes:
    """A JSON-RPC message, framed."""
    return frame(json.dumps(message).encode())


def id_key(msg_id: Any) -> str:
    """A hashable form of any JSON id (responses are matched on it)."""
    return json.dumps(msg_id, sort_keys=True)


class RawServer:
    """The server as a child process, spoken to in raw bytes; responses are collected."""

    def __init__(self, cwd: Path, env: dict[str, str] | None = None,
                 stderr: Path | None = None) -> None:
        self.cwd = cwd
        self.env = env
        self.stderr = stderr  # where the server's log goes (else nowhere)
        self.proc: asyncio.subprocess.Process | None = None
        self.responses: dict[str, dict[str, Any]] = {}
        self.received_at: dict[str, float] = {}
        self.null_id_errors: list[dict[str, Any]] = []
        self.notifications: list[dict[str, Any]] = []
        self.server_requests: list[dict[str, Any]] = []  # e.g. workspace/applyEdit
        self._arrived = asyncio.Event()
        self._reader: asyncio.Task[None] | None = None
        self._next_id = 0

    async def start(self) -> None:
        """Start the server."""
        with contextlib.ExitStack() as files:
            log = (files.enter_context(self.stderr.open("wb")) if self.stderr is not None
                   else asyncio.subprocess.DEVNULL)
            self.proc = await asyncio.create_subprocess_exec(
                *SERVER, cwd=self.cwd, env=self.env, stdin=asyncio.subprocess.PIPE,
                stdout=asyncio.subprocess.PIPE, stderr=log, start_new_session=True)
        self._reader = asyncio.get_running_loop().create_task(self._read())

    async def _read(self) -> None:
        assert self.proc is not None and self.proc.stdout is not None
        out = self.proc.stdout
        while True:
            length = None
            while True:
                line = await out.readline()
                if not line:
                    return
                if line.lower().startswith(b"content-length:"):
                    length = int(line.split(b":")[1])
                if line in (b"\r\n", b"\n"):
                    break
            if length is None:
                continue
            message = json.loads(await out.readexactly(length))
            if "method" in message and "id" in message:  # a request from the server
                self.server_requests.append(message)
                await self.send_raw(encode({"jsonrpc": "2.0", "id": message["id"],
                                            "result": None}))
            elif "method" in message:
                self.notifications.append(message)
            elif message.get("id") is None:
                self.null_id_errors.append(message)
            else:
                key = id_key(message["id"])
                self.responses[key] = message
                self.received_at[key] = time.perf_counter()
            self._arrived.set()

    async def send_raw(self, data: bytes) -> None:
        """Write bytes to the server's stdin."""
        assert self.proc is not None and self.proc.stdin is not None
        self.proc.stdin.write(data)
        await self.proc.stdin.drain()

    def new_id(self) -> int:
        """A fresh request id."""
        self._next_id += 1
        return self._next_id

    async def request(self, method: str, params: Any = None, timeout: float = 60.0
                      ) -> dict[str, Any]:
        """Send a request and wait for its response."""
        msg_id = self.new_id()
        message: dict[str, Any] = {"jsonrpc": "2.0", "id": msg_id, "method": method}
        if params is not None:
            message["params"] = params
        await self.send_raw(encode(message))
        return await self.wait_for(msg_id, timeout)

    async def notify(self, method: str, params: Any) -> None:
        """Send a notification."""
        await self.send_raw(encode({"jsonrpc": "2.0", "method": method, "params": params}))

    async def wait_for(self, msg_id: Any, timeout: float) -> dict[str, Any]:
        """The response to ``msg_id``; raises TimeoutError when none arrives in time."""
        key = id_key(msg_id)
        deadline = time.perf_counter() + timeout
        while key not in self.responses:
            left = deadline - time.perf_counter()
            if left <= 0:
                raise TimeoutError(f"no answer to request {msg_id!r}")
            self._arrived.clear()
            with contextlib.suppress(asyncio.TimeoutError):
                await asyncio.wait_for(self._arrived.wait(), min(left, 0.5))
        return self.responses[key]

    async def wait_until(self, predicate: Any, timeout: float) -> bool:
        """Wait until ``predicate()`` holds or ``timeout`` passes; returns whether it held."""
        deadline = time.perf_counter() + timeout
        while not predicate():
            left = deadline - time.perf_counter()
            if left <= 0:
                return False
            self._arrived.clear()
            with contextlib.suppress(asyncio.TimeoutError):
                await asyncio.wait_for(self._arrived.wait(), min(left, 0.2))
        return True

    async def initialize(self, root: Path) -> None:
        """initialize + initialized, with the runner off (no builds during a fuzz)."""
        await self.request("initialize", {
            "processId": None, "rootUri": root.as_uri(), "capabilities": {},
            "initializationOptions": {"settings": {"runner": {"enabled": False}}}})
        await self.notify("initialized", {})

    @property
    def alive(self) -> bool:
        """Whether the server process is still running."""
        return self.proc is not None and self.proc.returncode is None

    async def stop(self) -> int | None:
        """shutdown + exit; kill if it does not go. Returns the exit status."""
        if self.proc is None:
            return None
        if self.alive:
            try:
                await self.request("shutdown", None, timeout=10)
                await self.notify("exit", None)
                await asyncio.wait_for(self.proc.wait(), 10)
            except (TimeoutError, asyncio.TimeoutError, ConnectionError):
                pass
        if self.proc.returncode is None:
            os.killpg(self.proc.pid, 9)
            await self.proc.wait()
        if self._reader is not None:
            self._reader.cancel()
        return self.proc.returncode


# -- the hostile messages ------------------------------------------------------------------

@dataclass
class Sent:
    """What was sent and what answer it needs."""

    kind: str
    data: bytes
    msg_id: Any = None  # the id to be answered, or None
    null_answers: int = 0  # answers expected with id null (unparseable or id-less requests)


def hostile_uris(workspace: Path) -> list[str]:
    """URIs a careless or hostile client may send."""
    fifo = workspace / "pipe.cpp"
    links = [(workspace / name).as_uri() for name in ("zero.cpp", "stdin.cpp", "environ.c")]
    return [*links, "", "not a uri", "file://", "file:///dev/zero", "file:///proc/self/fd/0",
            "file:///proc/self/environ", fifo.as_uri(), "http://example.invalid/a.cpp",
            "file:///%ZZ.cpp", "file:///" + "a/" * 2000 + "x.cpp", "untitled:Untitled-1",
            (workspace / "missing.cpp").as_uri(), "file:///dev/stdin",
            (workspace / "src").as_uri()]


def make_hostile(rng: random.Random, server: RawServer, doc_uri: str, uris: list[str]) -> Sent:
    """One hostile or malformed message."""
    kind = rng.choice(["garbage", "bad_json", "wrong_types", "huge_id", "unknown_method",
                       "missing_params", "out_of_range", "invalid_uri", "not_object",
                       "bad_command", "bad_version", "oversized", "bad_id", "no_jsonrpc"])
    pos = {"line": 0, "character": 0}
    if kind == "garbage":
        body = bytes(rng.getrandbits(8) for _ in range(rng.randint(1, 200)))
        return Sent(kind, frame(body), null_answers=1)
    if kind == "bad_json":
        text = json.dumps({"jsonrpc": "2.0", "id": server.new_id(), "method": "textDocument/hover",
                           "params": {"textDocument": {"uri": doc_uri}, "position": pos}})
        return Sent(kind, frame(text[: rng.randint(1, len(text) - 1)].encode()), null_answers=1)
    if kind == "not_object":
        value = rng.choice([[], [1, 2], 5, "s", None, True, [{"jsonrpc": "2.0", "id": 1}]])
        return Sent(kind, encode(value), null_answers=1)
    if kind == "bad_id":
        value = rng.choice([{"a": 1}, [1], 1.5, True, None])
        return Sent(kind, encode({"jsonrpc": "2.0", "id": value, "method": "textDocument/hover",
                                  "params": {"textDocument": {"uri": doc_uri},
                                             "position": pos}}), null_answers=1)
    msg_id: Any = server.new_id()
    if kind == "huge_id":
        msg_id = rng.choice([10**30 + msg_id, -(2**63) - msg_id, f"{msg_id}-" + "x" * 5000])
    message: dict[str, Any] = {"jsonrpc": "2.0", "id": msg_id}
    if kind == "no_jsonrpc":
        message = {"id": msg_id, "method": "textDocument/hover",
                   "params": {"textDocument": {"uri": doc_uri}, "position": pos}}
        if rng.random() < 0.5:
            message["jsonrpc"] = "1.0"
        return Sent(kind, encode(message), msg_id)
    if kind in ("wrong_types", "huge_id"):
        method = rng.choice(["textDocument/hover", "textDocument/codeAction",
                             "textDocument/codeLens", "textDocument/inlayHint"])
        bad = rng.choice([{"textDocument": 5, "position": pos},
                          {"textDocument": {"uri": doc_uri}, "position": "here"},
                          {"textDocument": {"uri": doc_uri}, "position": {"line": -1,
                                                                          "character": 0}},
                          {"textDocument": {"uri": [doc_uri]}, "range": {}},
                          "params as a string", [1, 2, 3]])
        if kind == "huge_id":
            bad = {"textDocument": {"uri": doc_uri}, "position": pos}
            method = "textDocument/hover"
        message.update(method=method, params=bad)
    elif kind == "unknown_method":
        message.update(method=rng.choice(["perfpilot/nothing", "textDocument/notAThing",
                                          "$/secret", "x" * 3000]), params={})
    elif kind == "missing_params":
        message.update(method=rng.choice(["textDocument/hover", "textDocument/codeAction",
                                          "workspace/executeCommand", "textDocument/codeLens"]))
    elif kind == "out_of_range":
        big = rng.choice([2**31 - 1, 10**6, 2**32 + 5, 10**20])
        far = {"line": big, "character": rng.choice([0, big])}
        if rng.random() < 0.5:
            message.update(method="textDocument/hover",
                           params={"textDocument": {"uri": doc_uri}, "position": far})
        else:
            message.update(method="textDocument/codeAction",
                           params={"textDocument": {"uri": doc_uri},
                                   "range": {"start": far, "end": far},
                                   "context": {"diagnostics": []}})
    elif kind == "invalid_uri":
        uri = rng.choice(uris)
        if rng.random() < 0.5:
            message.update(method="textDocument/hover",
                           params={"textDocument": {"uri": uri}, "position": pos})
        else:
            message.update(method="textDocument/codeAction",
                           params={"textDocument": {"uri": uri},
                                   "range": {"start": pos, "end": pos},
                                   "context": {"diagnostics": []}})
    elif kind == "bad_command":
        command = rng.choice(["perfpilot.showReport", "perfpilot.cancel", "perfpilot.revert",
                              "perfpilot.status", "perfpilot.nothing", "perfpilot.explain"])
        args = rng.choice([[], [5], ["uri-only"], [{"uri": 5}],
                           [{"uri": rng.choice(uris), "line": -3, "character": "x"}],
                           [{"uri": rng.choice(uris), "line": 2**40}], None])
        params: dict[str, Any] = {"command": command}
        if args is not None:
            params["arguments"] = args
        message.update(method="workspace/executeCommand", params=params)
    elif kind == "bad_version":
        change = {"textDocument": {"uri": doc_uri, "version": rng.choice([0, 1, -5])},
                  "contentChanges": [{"text": "garbage {{{"}]}
        return Sent(kind, encode({"jsonrpc": "2.0", "method": "textDocument/didChange",
                                  "params": change}))
    elif kind == "oversized":
        follow = {"jsonrpc": "2.0", "id": msg_id, "method": "textDocument/hover",
                  "params": {"textDocument": {"uri": doc_uri}, "position": pos}}
        header = b"Content-Length: %d\r\n\r\n" % rng.choice([2**40, 10**15, 2**31])
        junk = rng.choice([b"", b'{"jsonrpc": "2.0", "id": 0, "method": "x"}', b"x" * 5000])
        return Sent(kind, header + junk + encode(follow), msg_id)
    return Sent(kind, encode(message), msg_id)


def hover_request(msg_id: int, uri: str) -> bytes:
    """An ordinary hover on the function's signature."""
    return encode({"jsonrpc": "2.0", "id": msg_id, "method": "textDocument/hover",
                   "params": {"textDocument": {"uri": uri},
                              "position": {"line": HOVER_LINE, "character": 6}}})


def action_request(msg_id: int, uri: str) -> bytes:
    """An ordinary code action request inside a function."""
    pos = {"line": ACTION_LINE, "character": 8}
    return encode({"jsonrpc": "2.0", "id": msg_id, "method": "textDocument/codeAction",
                   "params": {"textDocument": {"uri": uri}, "range": {"start": pos, "end": pos},
                              "context": {"diagnostics": []}}})


@dataclass
class FuzzResult:
    """What the fuzz saw."""

    messages: int = 0
    requests: int = 0
    unanswered: int = 0
    null_expected: int = 0
    null_received: int = 0
    crashed: bool = False
    exit_status: int | None = None
    seconds: float = 0.0
    by_kind: dict[str, int] = field(default_factory=dict)
    hover_ms: list[float] = field(default_factory=list)
    action_ms: list[float] = field(default_factory=list)
    unanswered_kinds: dict[str, int] = field(default_factory=dict)


async def run_fuzz(messages: int, seed: int, time_limit: float, workspace: Path,
                   burst: int = 5, pause_s: float = 0.01) -> FuzzResult:
    """Run the fuzz against a fresh server in ``workspace`` (a scratch folder).

    Hostile messages go out in bursts of ``burst`` with ``pause_s`` between bursts; beside
    them, one ordinary hover or code action at a time, each timed from send to answer.
    """
    rng = random.Random(seed)
    src = workspace / "src"
    src.mkdir(exist_ok=True)
    path = src / "a.cpp"
    path.write_text(SOURCE)
    fifo = workspace / "pipe.cpp"
    if not fifo.exists():
        os.mkfifo(fifo)
    for name, target in (("zero.cpp", "/dev/zero"), ("stdin.cpp", "/proc/self/fd/0"),
                         ("environ.c", "/proc/self/environ")):
        if not (workspace / name).is_symlink():
            (workspace / name).symlink_to(target)
    uris = hostile_uris(workspace)
    server = RawServer(workspace)
    result = FuzzResult()
    await server.start()
    start = time.perf_counter()
    sent: list[Sent] = []
    try:
        await server.initialize(workspace)
        uri = path.as_uri()
        await server.notify("textDocument/didOpen", {"textDocument": {
            "uri": uri, "languageId": "cpp", "version": 1, "text": SOURCE}})
        sending = True

        async def hostile() -> None:
            nonlocal sending
            try:
                for i in range(messages):
                    if time.perf_counter() - start > time_limit or not server.alive:
                        break
                    item = make_hostile(rng, server, uri, uris)
                    await server.send_raw(item.data)
                    sent.append(item)
                    result.by_kind[item.kind] = result.by_kind.get(item.kind, 0) + 1
                    if i % burst == burst - 1:
                        await asyncio.sleep(pause_s)
            finally:
                sending = False

        async def ordinary() -> None:
            n = 0
            while sending and server.alive:
                msg_id = server.new_id()
                kind = "hover" if n % 2 == 0 else "action"
                data = hover_request(msg_id, uri) if kind == "hover" \
                    else action_request(msg_id, uri)
                sent.append(Sent(kind, b"", msg_id))
                t0 = time.perf_counter()
                await server.send_raw(data)
                try:
                    await server.wait_for(msg_id, 30.0)
                except TimeoutError:
                    continue
                ms = (server.received_at[id_key(msg_id)] - t0) * 1e3
                (result.hover_ms if kind == "hover" else result.action_ms).append(ms)
                n += 1

        await asyncio.gather(hostile(), ordinary())
        wanted = [s for s in sent if s.msg_id is not None]
        result.null_expected = sum(s.null_answers for s in sent)
        await server.wait_until(
            lambda: all(id_key(s.msg_id) in server.responses for s in wanted)
            and len(server.null_id_errors) >= result.null_expected, timeout=30.0)
        result.messages = len(sent)
        result.requests = len(wanted) + result.null_expected
        result.null_received = len(server.null_id_errors)
        missing = [s for s in wanted if id_key(s.msg_id) not in server.responses]
        result.unanswered = len(missing) + max(0, result.null_expected - result.null_received)
        for s in missing:
            result.unanswered_kinds[s.kind] = result.unanswered_kinds.get(s.kind, 0) + 1
        result.crashed = not server.alive
    finally:
        result.seconds = time.perf_counter() - start
        result.exit_status = await server.stop()
    return result


def pct(values: list[float], q: float) -> float:
    """The q-th percentile (nearest rank)."""
    if not values:
        return float("nan")
    ordered = sorted(values)
    k = max(0, min(len(ordered) - 1, round(q / 100 * len(ordered)) - 1))
    return ordered[k]


def table(r: FuzzResult) -> str:
    """The results as a markdown table."""
    rows = [
        ("hostile messages sent", f"{sum(r.by_kind.values())}"),
        ("ordinary requests (hover, code action)", f"{len(r.hover_ms) + len(r.action_ms)}"),
        ("requests needing an answer", f"{r.requests}"),
        ("unanswered requests", f"{r.unanswered}"),
        ("server crashes", "1" if r.crashed else "0"),
        ("hover p50 / p95 (ms)", f"{pct(r.hover_ms, 50):.1f} / {pct(r.hover_ms, 95):.1f}"),
        ("code action p50 / p95 (ms)",
         f"{pct(r.action_ms, 50):.1f} / {pct(r.action_ms, 95):.1f}"),
        ("duration (s)", f"{r.seconds:.1f}"),
    ]
    out = ["| measure | value |", "|---|---|"] + [f"| {a} | {b} |" for a, b in rows]
    kinds = ", ".join(f"{k} {n}" for k, n in sorted(r.by_kind.items()))
    return "\n".join(out) + f"\n\nHostile messages by kind: {kinds}."


def main() -> int:
    """Run the fuzz and print the table; exit status 1 on a crash or an unanswered request."""
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--messages", type=int, default=2000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--time-limit", type=float, default=120.0)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="perfpilot-fuzz-") as tmp:
        result = asyncio.run(run_fuzz(args.messages, args.seed, args.time_limit, Path(tmp)))
    print(table(result))
    if result.unanswered_kinds:
        print(f"\nUnanswered by kind: {result.unanswered_kinds}")
    return 1 if result.crashed or result.unanswered else 0


if __name__ == "__main__":
    sys.exit(main())
