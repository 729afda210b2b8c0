"""The remote backend against a real loopback HTTP server that simulates endpoint faults.

``FaultyEndpoint`` is a small HTTP/1.1 server (asyncio streams, chunked server-sent events) that
plays a scripted behaviour per request: a normal stream, HTTP errors, a connection killed in the
middle of the stream, a server too slow to answer, an endless stream for cancellation, garbage,
or an answer held until the test releases it.
"""

from __future__ import annotations

import asyncio
import json
import logging
import socket
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any

import pytest

from perfpilot.llm.check import check_endpoint
from perfpilot.llm.errors import EndpointError
from perfpilot.llm.factory import make_client
from perfpilot.llm.remote import RemoteClient, chat_completions_url, resolve_api_key
from perfpilot.model_usage import UsageMeter
from perfpilot.progress import Cancelled, JobContext
from perfpilot.settings import RoleSettings

HELLO = [{"role": "user", "content": "hi"}]
SECRET = "sk-test-very-secret-123"


@dataclass(frozen=True)
class Stream:
    """Answer with the text as SSE chunks (a few characters each)."""

    text: str = "hello world"
    die_after: int | None = None  # kill the connection after this many chunks
    raw_lines: tuple[str, ...] = ()  # send these data lines instead
    # The usage chunk sent before [DONE] when the request asks for it (include_usage).
    usage: dict[str, int] | None = None


@dataclass(frozen=True)
class Status:
    """Answer with an HTTP error."""

    code: int
    body: dict[str, Any] = field(default_factory=dict)
    headers: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True)
class Stall:
    """Accept the request and say nothing for ``seconds``."""

    seconds: float


@dataclass(frozen=True)
class Drip:
    """Stream one chunk every ``every`` seconds until the client goes away."""

    every: float = 0.05


@dataclass(frozen=True)
class Hold:
    """Accept the request and answer nothing until the test sets ``released`` (then close):
    a model that is still thinking for exactly as long as a test needs."""

    released: asyncio.Event = field(default_factory=asyncio.Event)


Behaviour = Stream | Status | Stall | Drip | Hold


class FaultyEndpoint:
    """A real HTTP server on 127.0.0.1 simulating a misbehaving OpenAI-compatible endpoint."""

    def __init__(self, *script: Behaviour, models: tuple[str, ...] = ("tiny",)) -> None:
        self.script = list(script)
        self.models = models
        self.requests: list[dict[str, Any]] = []
        self.client_went_away = asyncio.Event()
        self._server: asyncio.Server | None = None
        self.port = 0

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    async def __aenter__(self) -> FaultyEndpoint:
        self._server = await asyncio.start_server(self._handle, "127.0.0.1", 0)
        self.port = self._server.sockets[0].getsockname()[1]
        return self

    async def __aexit__(self, *exc: object) -> None:
        assert self._server is not None
        self._server.close()
        await self._server.wait_closed()

    def _next(self) -> Behaviour:
        return self.script.pop(0) if len(self.script) > 1 else self.script[0]

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            head = await reader.readuntil(b"\r\n\r\n")
            lines = head.decode().split("\r\n")
            method, path, _ = lines[0].split(" ", 2)
            headers = {k.lower(): v.strip() for k, v in
                       (line.split(":", 1) for line in lines[1:] if ":" in line)}
            body = await reader.readexactly(int(headers.get("content-length", "0")))
            if method == "GET" and path.endswith("/models"):
                data = {"object": "list", "data": [{"id": m} for m in self.models]}
                await self._json(writer, 200, data)
                return
            request = json.loads(body or b"{}")
            self.requests.append({"path": path, "headers": headers, "json": request})
            await self._play(self._next(), writer, request)
        except (ConnectionError, asyncio.IncompleteReadError):
            self.client_went_away.set()
        finally:
            writer.close()

    async def _json(self, writer: asyncio.StreamWriter, code: int, data: dict[str, Any],
                    extra: tuple[tuple[str, str], ...] = ()) -> None:
        payload = json.dumps(data).encode()
        head = [f"HTTP/1.1 {code} X", "Content-Type: application/json",
                f"Content-Length: {len(payload)}", "Connection: close",
                *(f"{k}: {v}" for k, v in extra)]
        writer.write(("\r\n".join(head) + "\r\n\r\n").encode() + payload)
        await writer.drain()

    async def _chunk(self, writer: asyncio.StreamWriter, text: str) -> None:
        data = text.encode()
        writer.write(f"{len(data):x}\r\n".encode() + data + b"\r\n")
        await writer.drain()

    @staticmethod
    def _event(content: str, finish: str | None = None) -> str:
        chunk = {"object": "chat.completion.chunk",
                 "choices": [{"index": 0, "delta": {"content": content},
                              "finish_reason": finish}]}
        return f"data: {json.dumps(chunk)}\n\n"

    async def _play(self, b: Behaviour, writer: asyncio.StreamWriter,
                    request: dict[str, Any]) -> None:
        if isinstance(b, Status):
            await self._json(writer, b.code, b.body, b.headers)
            return
        if isinstance(b, Stall):
            await asyncio.sleep(b.seconds)
            return
        if isinstance(b, Hold):
            await b.released.wait()
            return
        writer.write(b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n"
                     b"Transfer-Encoding: chunked\r\nConnection: close\r\n\r\n")
        if isinstance(b, Drip):
            while True:
                await self._chunk(writer, self._event("x"))
                await asyncio.sleep(b.every)
        if b.raw_lines:
            for line in b.raw_lines:
                await self._chunk(writer, f"data: {line}\n\n")
        else:
            pieces = [b.text[i:i + 3] for i in range(0, len(b.text), 3)]
            for i, piece in enumerate(pieces):
                if b.die_after is not None and i == b.die_after:
                    writer.transport.abort()  # killed mid-stream: no terminating chunk
                    return
                await self._chunk(writer, self._event(piece))
            await self._chunk(writer, self._event("", "stop"))
            asked = (request.get("stream_options") or {}).get("include_usage")
            if b.usage is not None and asked:
                last = {"object": "chat.completion.chunk", "choices": [], "usage": b.usage}
                await self._chunk(writer, f"data: {json.dumps(last)}\n\n")
            await self._chunk(writer, "data: [DONE]\n\n")
        writer.write(b"0\r\n\r\n")
        await writer.drain()


def remote_role(url: str, **kw: Any) -> RoleSettings:
    fields: dict[str, Any] = {"backend": "remote", "endpoint": url, "model": "tiny",
                              "api_key_env": "PERFPILOT_TEST_KEY", "timeout_s": 10.0,
                              "max_tokens": 32}
    fields.update(kw)
    return RoleSettings(**fields)


@pytest.fixture
async def client_for() -> AsyncIterator[Any]:
    made: list[RemoteClient] = []

    def make(endpoint: FaultyEndpoint, **kw: Any) -> RemoteClient:
        retries = kw.pop("max_retries", 3)
        c = RemoteClient(remote_role(endpoint.url, **kw), SECRET, max_retries=retries,
                         backoff_s=0.01)
        made.append(c)
        return c

    yield make
    for c in made:
        await c.close()


async def generate(client: RemoteClient, **kw: Any) -> list[str]:
    args: dict[str, Any] = {"n": 1, "max_tokens": 32, "temperature": 0.0, "stop": [],
                            "ctx": JobContext()}
    args.update(kw)
    return await client.generate(HELLO, **args)


async def test_streams_text_with_progress_key_and_model(client_for: Any) -> None:
    reports: list[str] = []
    ctx = JobContext(on_report=lambda s, m, p: reports.append(m))
    async with FaultyEndpoint(Stream("plan [/SUGG] and more")) as ep:
        texts = await generate(client_for(ep), stop=["[/SUGG]"], ctx=ctx)
    assert texts == ["plan "]
    sent = ep.requests[0]
    assert sent["path"] == "/v1/chat/completions"
    assert sent["headers"]["authorization"] == f"Bearer {SECRET}"
    assert sent["json"]["model"] == "tiny" and sent["json"]["stream"] is True
    assert sent["json"]["stop"] == ["[/SUGG]"] and sent["json"]["messages"] == HELLO
    assert reports[0] == "0 tokens"


async def test_server_error_then_success_is_retried(client_for: Any) -> None:
    async with FaultyEndpoint(Status(500, {"error": {"message": "boom"}}), Stream("ok!")) as ep:
        assert await generate(client_for(ep)) == ["ok!"]
    assert len(ep.requests) == 2


async def test_rate_limit_retries_then_gives_a_clear_message(client_for: Any) -> None:
    limited = Status(429, {"error": {"message": "slow down"}}, (("Retry-After", "0"),))
    async with FaultyEndpoint(limited, limited, Stream("fine")) as ep:
        assert await generate(client_for(ep)) == ["fine"]
    assert len(ep.requests) == 3
    async with FaultyEndpoint(limited) as ep:
        with pytest.raises(EndpointError, match=r"rate-limiting requests \(HTTP 429\)") as info:
            await generate(client_for(ep, max_retries=2))
    assert info.value.kind == "rate-limited" and "slow down" in str(info.value)
    assert len(ep.requests) == 3


async def test_killed_mid_stream(client_for: Any) -> None:
    async with FaultyEndpoint(Stream("a long answer here", die_after=2), Stream("again")) as ep:
        assert await generate(client_for(ep)) == ["again"]
    async with FaultyEndpoint(Stream("a long answer here", die_after=2)) as ep:
        with pytest.raises(EndpointError, match="broke in the middle of the answer") as info:
            await generate(client_for(ep, max_retries=1))
    assert info.value.kind == "connection" and len(ep.requests) == 2


async def test_too_slow_is_a_timeout(client_for: Any) -> None:
    async with FaultyEndpoint(Stall(5.0)) as ep:
        with pytest.raises(EndpointError, match=r"sent nothing for 1 s \(timeoutS\)") as info:
            await generate(client_for(ep, timeout_s=0.6))
    assert info.value.kind == "timeout" and len(ep.requests) == 1


async def test_unauthorized_names_the_variable_never_the_key(
        client_for: Any, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG)
    body = {"error": {"message": f"Incorrect API key provided: {SECRET}"}}
    async with FaultyEndpoint(Status(401, body)) as ep:
        client = client_for(ep)
        with pytest.raises(EndpointError, match="refused the API key") as info:
            await generate(client)
    assert info.value.kind == "auth" and len(ep.requests) == 1
    assert "PERFPILOT_TEST_KEY" in str(info.value)
    assert SECRET not in str(info.value) and SECRET not in repr(client)
    assert all(SECRET not in r.getMessage() for r in caplog.records)


async def test_unknown_model_and_check_endpoint_lists_served_models() -> None:
    pinned = Status(400, {"detail": "Server is pinned to 'tiny'; requested 'big'."})
    async with FaultyEndpoint(pinned, models=("tiny",)) as ep:
        ok, message = await check_endpoint(remote_role(ep.url, model="big"), None)
    assert not ok
    assert "does not serve the model 'big'" in message and "the server lists: tiny" in message


async def test_check_endpoint_success_and_refused_connection(
        monkeypatch: pytest.MonkeyPatch) -> None:
    async with FaultyEndpoint(Stream("O")) as ep:
        ok, message = await check_endpoint(remote_role(ep.url), SECRET)
        monkeypatch.setenv("PERFPILOT_TEST_KEY", "from-env")
        ok2, _ = await check_endpoint(remote_role(ep.url), None)
    assert ok and ok2 and ep.url in message and "'tiny'" in message
    assert ep.requests[0]["json"]["max_tokens"] == 1
    assert ep.requests[0]["headers"]["authorization"] == f"Bearer {SECRET}"
    assert ep.requests[1]["headers"]["authorization"] == "Bearer from-env"
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    ok, message = await check_endpoint(remote_role(f"http://127.0.0.1:{port}/v1"), None)
    assert not ok and "could not connect" in message and "is the server running" in message


async def test_malformed_stream(client_for: Any) -> None:
    async with FaultyEndpoint(Stream(raw_lines=("{not json",))) as ep:
        with pytest.raises(EndpointError, match="malformed stream") as info:
            await generate(client_for(ep))
    assert info.value.kind == "protocol"


async def test_cancel_closes_the_stream(client_for: Any) -> None:
    seen = asyncio.Event()

    def on_report(stage: str, message: str, percent: int | None) -> None:
        if message.split()[0].isdigit() and int(message.split()[0]) > 0:
            seen.set()

    ctx = JobContext(on_report=on_report)
    async with FaultyEndpoint(Drip(0.02)) as ep:
        job = asyncio.create_task(generate(client_for(ep), ctx=ctx))
        await asyncio.wait_for(seen.wait(), 10)
        ctx.cancel()
        with pytest.raises(Cancelled):
            await job
        # The server notices: its next write fails because the client closed the connection.
        await asyncio.wait_for(ep.client_went_away.wait(), 10)


async def test_samples_are_parallel_requests(client_for: Any) -> None:
    async with FaultyEndpoint(Stream("one"), Stream("two"), Stream("three")) as ep:
        texts = await generate(client_for(ep), n=3, temperature=0.8)
    assert sorted(texts) == ["one", "three", "two"] and len(ep.requests) == 3
    async with FaultyEndpoint(Stream("greedy")) as ep:
        assert await generate(client_for(ep), n=3, temperature=0.0) == ["greedy"]


async def test_the_usage_each_answer_reports_is_recorded_on_the_job(client_for: Any) -> None:
    meter = UsageMeter()
    ctx = JobContext(usage=meter)
    async with FaultyEndpoint(Stream("one", usage={"prompt_tokens": 11, "completion_tokens": 2}),
                              Stream("two", usage={"prompt_tokens": 11, "completion_tokens": 3}),
                              Status(500, {"error": "busy"}),
                              Stream("three", usage={"prompt_tokens": 5, "completion_tokens": 7})
                              ) as ep:
        await generate(client_for(ep), n=2, temperature=0.8, ctx=ctx)
        await generate(client_for(ep), ctx=ctx)  # answered on the second attempt
    assert all(r["json"]["stream_options"] == {"include_usage": True} for r in ep.requests)
    usage = meter.total()
    assert (usage.requests, usage.reported) == (3, 3)  # answered requests, not attempts
    assert (usage.prompt_tokens, usage.completion_tokens) == (27, 12)
    assert usage.tokens_known and usage.seconds >= 0


async def test_an_answer_without_usage_leaves_the_tokens_unknown(client_for: Any) -> None:
    meter = UsageMeter()
    async with FaultyEndpoint(Stream("plain"),
                              Stream("counted", usage={"prompt_tokens": 4,
                                                       "completion_tokens": 1})) as ep:
        await generate(client_for(ep), ctx=JobContext(usage=meter))
        none = meter.total()
        await generate(client_for(ep), ctx=JobContext(usage=meter))
    assert (none.requests, none.reported) == (1, 0) and not none.tokens_known
    assert none.to_json()["prompt_tokens"] is None and "unknown" in none.phrase()
    some = meter.total()
    assert (some.requests, some.reported, some.prompt_tokens) == (2, 1, 4)
    assert "in the 1 request(s) that reported usage (1 did not)" in some.phrase()


async def test_a_server_that_rejects_stream_options_is_asked_without_them(
        client_for: Any) -> None:
    rejected = Status(400, {"error": {"message": "Unrecognized request argument supplied: "
                                                 "stream_options"}})
    meter = UsageMeter()
    async with FaultyEndpoint(rejected, Stream("fine")) as ep:
        client = client_for(ep, max_retries=0)
        assert await generate(client, ctx=JobContext(usage=meter)) == ["fine"]
        assert await generate(client, ctx=JobContext(usage=meter)) == ["fine"]
    assert "stream_options" in ep.requests[0]["json"]
    assert all("stream_options" not in r["json"] for r in ep.requests[1:])
    assert len(ep.requests) == 3
    assert (meter.total().requests, meter.total().reported) == (2, 0)


async def test_a_failing_sample_stops_the_others(client_for: Any) -> None:
    async with FaultyEndpoint(Drip(0.02), Status(401, {"error": "bad key"})) as ep:
        with pytest.raises(EndpointError, match="refused the API key"):
            await generate(client_for(ep), n=2, temperature=0.5)
        await asyncio.wait_for(ep.client_went_away.wait(), 10)


async def test_unauthorized_without_a_key_says_none_is_set() -> None:
    async with FaultyEndpoint(Status(401, {"error": "missing key"})) as ep:
        client = RemoteClient(remote_role(ep.url), None)
        try:
            with pytest.raises(EndpointError, match="requires an API key") as info:
                await generate(client)
        finally:
            await client.close()
    assert "PERFPILOT_TEST_KEY" in str(info.value)
    assert "authorization" not in ep.requests[0]["headers"]


def test_urls_and_key_resolution() -> None:
    assert chat_completions_url("http://h:8000") == "http://h:8000/v1/chat/completions"
    assert chat_completions_url("http://h/v1/") == "http://h/v1/chat/completions"
    assert chat_completions_url("https://h/openai/v1") == "https://h/openai/v1/chat/completions"
    assert chat_completions_url("http://h/v1/chat/completions") == \
        "http://h/v1/chat/completions"
    with pytest.raises(EndpointError, match="not an http"):
        chat_completions_url("localhost:8000")
    role = remote_role("http://h/v1")
    assert resolve_api_key(role, {"api_key": "a"}, {"PERFPILOT_TEST_KEY": "b"}) == "a"
    assert resolve_api_key(role, {"api_key": "d"}, {"PERFPILOT_TEST_KEY": "b"}) == "d"
    assert resolve_api_key(role, {"PERFPILOT_TEST_KEY": "c"}, {}) == "c"
    assert resolve_api_key(role, {}, {"PERFPILOT_TEST_KEY": "b"}) == "b"
    assert resolve_api_key(role, {}, {}) is None
    client = make_client(role, {}, environ={"PERFPILOT_TEST_KEY": "b"})
    assert isinstance(client, RemoteClient) and "b" not in repr(client).replace("http://h", "")


async def test_a_rotated_key_takes_effect_without_a_restart() -> None:
    from perfpilot.engine.engine import Engine
    from perfpilot.settings import Settings

    async with FaultyEndpoint(Stream("ok")) as ep:
        engine = Engine(Settings(optimizer=remote_role(ep.url, api_key_env="")))
        try:
            for key in ("sk-first-key-111", "sk-second-key-222"):
                engine.set_secret("api_key", key, role="optimizer")
                client = engine.optimizer().client  # type: ignore[attr-defined]
                await generate(client)
            held = " ".join([*engine._clients.by_key, *engine._backends])
        finally:
            await engine.close()
    sent = [r["headers"].get("authorization") for r in ep.requests]
    assert sent == ["Bearer sk-first-key-111", "Bearer sk-second-key-222"]
    assert "sk-" not in held  # caches are keyed by a fingerprint, never the key itself


class CountingClient(RemoteClient):
    """Records the most requests it had in flight at once."""

    active = 0
    most = 0

    async def generate(self, *args: Any, **kwargs: Any) -> list[str]:
        self.active += 1
        self.most = max(self.most, self.active)
        try:
            return await super().generate(*args, **kwargs)
        finally:
            self.active -= 1


TWICE = "int twice(int x) { return 2 * x; }\n"


def _answer(body: str) -> Stream:
    return Stream(f"```cpp\nint twice(int x) {{ {body} }}\n```")


@pytest.mark.parametrize("concurrency", [1, 2])
async def test_a_slow_sample_keeps_the_finished_ones(concurrency: int) -> None:
    from perfpilot.code.locate import function_by_name
    from perfpilot.optimizing.llm_optimizer import ModelOptimizer
    from perfpilot.strategy.values import Plan

    site = function_by_name(TWICE, "cpp", "twice")
    script = (_answer("return x + x;"), Stall(4.0), _answer("return x << 1;"),
              _answer("return x * 2;"))
    async with FaultyEndpoint(*script) as ep:
        role = remote_role(ep.url, samples=4, temperature=0.7, timeout_s=1.0,
                           concurrency=concurrency)
        client = CountingClient(role, None, max_retries=0)
        try:
            result = await ModelOptimizer(role, client).optimize(site, Plan((), "builtin"),
                                                                 JobContext())
        finally:
            await client.close()
    assert client.most == concurrency
    codes = sorted(c.code.split("{", 1)[1].strip() for c in result.candidates)
    assert codes == ["return x * 2; }", "return x + x; }", "return x << 1; }"]
    (failed,) = result.rejected
    # Which sample met the stalled answer depends on the order the server accepted them.
    assert failed.reason.startswith(f"sample {failed.sample + 1} failed: ")
    assert "sent nothing for 1 s (timeoutS)" in failed.reason
    assert not result.complete


async def test_every_sample_failing_is_an_optimizer_error() -> None:
    from perfpilot.code.locate import function_by_name
    from perfpilot.optimizing.llm_optimizer import ModelOptimizer
    from perfpilot.strategy.values import Plan

    site = function_by_name(TWICE, "cpp", "twice")
    async with FaultyEndpoint(Stall(4.0)) as ep:
        role = remote_role(ep.url, samples=2, temperature=0.7, timeout_s=1.0)
        client = RemoteClient(role, None, max_retries=0)
        try:
            with pytest.raises(EndpointError, match=r"^optimizer: .*sent nothing") as err:
                await ModelOptimizer(role, client).optimize(site, Plan((), "builtin"),
                                                            JobContext())
        finally:
            await client.close()
    assert err.value.kind == "timeout" and err.value.role == "optimizer"


def test_a_key_for_one_role_or_both() -> None:
    from perfpilot.engine.engine import Engine
    from perfpilot.settings import API_KEY_SECRET, Settings

    engine = Engine(Settings())
    engine.set_secret(API_KEY_SECRET, "sk-both")
    engine.set_secret(API_KEY_SECRET, "sk-planner", role="planner")
    assert engine.api_key("planner") == "sk-planner"
    assert engine.api_key("optimizer") == "sk-both"
    engine.set_secret(API_KEY_SECRET, "")  # an empty value clears it
    assert engine.api_key("optimizer") is None
