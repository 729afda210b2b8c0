"""The remote backend: any OpenAI-compatible ``/v1/chat/completions`` server, streamed.

Requests stream server-sent events; cancelling the job closes the stream (the server sees the
connection drop and stops). 429 and 5xx answers, refused connections and streams cut in the
middle are retried with exponential backoff (``Retry-After`` honoured); every failure ends as an
``EndpointError`` whose message says what to check. The API key comes from the editor's secret
storage or an environment variable; it is sent only in the ``Authorization`` header and never
logged or put in a message.

Each request asks for the token usage (``stream_options.include_usage``); what the answer
reports is recorded on the job's usage meter (``JobContext.usage``). A server that rejects the
option is asked again without it, and its requests count with unknown tokens.
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any
from urllib.parse import urlsplit

import httpx

from perfpilot.llm.base import Message
from perfpilot.llm.errors import EndpointError
from perfpilot.llm.redact import redact_text, redact_url
from perfpilot.llm.stopping import repeating, tail_window
from perfpilot.progress import Cancelled, JobContext
from perfpilot.settings import API_KEY_SECRET, RoleSettings

log = logging.getLogger(__name__)

DEFAULT_RETRIES = 3
PROGRESS_EVERY_S = 0.2
_MAX_BACKOFF_S = 30.0

# Token counts an answer reported: (prompt, completion), or None when it reported none.
Usage = tuple[int, int] | None


def chat_completions_url(endpoint: str) -> str:
    """The chat completions URL for an endpoint setting.

    ``http://host:8000`` and ``http://host:8000/v1`` both give
    ``http://host:8000/v1/chat/completions``; a URL already ending in ``/chat/completions`` is
    kept; any other path gets ``/chat/completions`` appended (``.../openai/v1``).
    """
    raw = endpoint.strip()
    if not raw:
        raise EndpointError("no endpoint URL is configured for the remote backend "
                            "(for example http://127.0.0.1:8000/v1)", "bad-request")
    parts = urlsplit(raw)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise EndpointError(f"the endpoint '{redact_url(raw)}' is not an http(s) URL "
                            "(for example http://127.0.0.1:8000/v1)", "bad-request")
    base = raw.rstrip("/")
    if base.endswith("/chat/completions"):
        return base
    if parts.path.strip("/") == "":
        return base + "/v1/chat/completions"
    return base + "/chat/completions"


def models_url(endpoint: str) -> str:
    """The ``/models`` URL beside the chat completions URL."""
    return chat_completions_url(endpoint).removesuffix("/chat/completions") + "/models"


def resolve_api_key(role: RoleSettings, secrets: Mapping[str, str],
                    environ: Mapping[str, str]) -> str | None:
    """The API key for a remote role, or None.

    In order: ``secrets[API_KEY_SECRET]`` (handed over by the editor for this role),
    ``secrets[role.api_key_env]``, then the environment variable ``role.api_key_env``.
    """
    for value in (secrets.get(API_KEY_SECRET),
                  secrets.get(role.api_key_env) if role.api_key_env else None,
                  environ.get(role.api_key_env) if role.api_key_env else None):
        if value:
            return value
    return None


class _NoStreamOptions(Exception):
    """The server rejected ``stream_options``: ask again without it."""


def usage_of(data: object) -> Usage:
    """The (prompt, completion) tokens of an answer's ``usage`` object; None when it has no
    usable counts (a missing or malformed field is unknown, never zero)."""
    if not isinstance(data, dict):
        return None
    usage = data.get("usage")
    if not isinstance(usage, dict):
        return None
    prompt, completion = usage.get("prompt_tokens"), usage.get("completion_tokens")
    if isinstance(prompt, bool) or isinstance(completion, bool):
        return None
    if not isinstance(prompt, int) or not isinstance(completion, int):
        return None
    if prompt < 0 or completion < 0:
        return None
    return prompt, completion


class _Retryable(Exception):
    """A failure worth another attempt; ``error`` is what the user sees if none is left."""

    def __init__(self, error: EndpointError, retry_after: float | None = None) -> None:
        super().__init__(str(error))
        self.error = error
        self.retry_after = retry_after


def _detail(body: bytes) -> str:
    text = body.decode("utf-8", "replace").strip()
    try:
        data = json.loads(text)
    except ValueError:
        return " ".join(text.split())[:300]
    if isinstance(data, dict):
        err = data.get("error", data.get("detail", data.get("message")))
        if isinstance(err, dict):
            err = err.get("message", err)
        if err is not None:
            return " ".join(str(err).split())[:300]
    return " ".join(text.split())[:300]


def _retry_after(headers: httpx.Headers) -> float | None:
    value = headers.get("retry-after")
    if value is None:
        return None
    try:
        return max(0.0, min(float(value), 60.0))
    except ValueError:
        return None


class RemoteClient:
    """``TextGenerator`` over an OpenAI-compatible endpoint.

    ``samples`` (``n``) are made by parallel requests, since many servers ignore the ``n``
    parameter. ``transport`` is for tests that need a custom httpx transport.
    """

    def __init__(self, role: RoleSettings, api_key: str | None = None, *,
                 max_retries: int = DEFAULT_RETRIES, backoff_s: float = 0.5,
                 transport: httpx.AsyncBaseTransport | None = None) -> None:
        self.role = role
        self.url = chat_completions_url(role.endpoint)
        self.shown_url = redact_url(self.url)  # for messages and logs: no key in a URL
        self.max_retries = max(0, max_retries)
        self.backoff_s = backoff_s
        self._api_key = api_key or None
        self._transport = transport
        self._client: httpx.AsyncClient | None = None
        # Cleared when the server rejects ``stream_options`` (then usage stays unknown).
        self._ask_usage = True

    def __repr__(self) -> str:
        # Never show the key.
        return f"RemoteClient(url={self.shown_url!r}, model={self.role.model!r})"

    @property
    def backend(self) -> str:
        """Always ``remote``."""
        return "remote"

    @property
    def model(self) -> str:
        """The model name sent in each request."""
        return self.role.model

    def http(self) -> httpx.AsyncClient:
        """The underlying httpx client (created on first use)."""
        if self._client is None:
            t = max(0.1, self.role.timeout_s)
            headers = {"Accept": "text/event-stream"}
            if self._api_key:
                headers["Authorization"] = f"Bearer {self._api_key}"
            self._client = httpx.AsyncClient(
                timeout=httpx.Timeout(connect=min(10.0, t), read=t, write=t, pool=t),
                headers=headers, transport=self._transport)
        return self._client

    async def close(self) -> None:
        """Close the connection pool."""
        client, self._client = self._client, None
        if client is not None:
            await client.aclose()

    def _scrub(self, text: str) -> str:
        return redact_text(text, (self._api_key,))

    # -- public --------------------------------------------------------------------------
    async def generate(self, messages: Sequence[Message], *, n: int, max_tokens: int,
                       temperature: float, stop: Sequence[str], ctx: JobContext) -> list[str]:
        """Stream ``n`` completions (one request each); see ``TextGenerator.generate``."""
        ctx.check()
        if not self.role.model.strip():
            raise EndpointError("no model name is configured for the remote endpoint; the "
                                "server expects one (see its /v1/models)", "unknown-model")
        count = max(1, n) if temperature > 0 else 1
        body: dict[str, Any] = {
            "model": self.role.model,
            "messages": [dict(m) for m in messages],
            "max_tokens": max_tokens,
            "temperature": max(0.0, temperature),
            "stream": True,
        }
        if stop:
            body["stop"] = list(stop)[:4]  # the OpenAI API accepts at most four
        counts = [0] * count
        last = [0.0]

        def progress(index: int, tokens: int) -> None:
            counts[index] = tokens
            now = time.monotonic()
            if now - last[0] >= PROGRESS_EVERY_S:
                last[0] = now
                ctx.report("generating", f"{sum(counts)} tokens", None)

        ctx.report("generating", "0 tokens", None)
        if ctx.usage is not None:
            ctx.usage.begin()
        tasks = [asyncio.ensure_future(self._with_retries(body, list(stop), i, progress, ctx))
                 for i in range(count)]
        work = asyncio.gather(*tasks)
        # Mark the outcome retrieved whatever happens below (the error is raised from it).
        work.add_done_callback(lambda f: f.cancelled() or f.exception())
        waiter = asyncio.ensure_future(ctx.cancelled.wait())
        both: set[asyncio.Future[Any]] = {work, waiter}
        try:
            done, _ = await asyncio.wait(both, return_when=asyncio.FIRST_COMPLETED)
            if work not in done:
                raise Cancelled()
            return list(work.result())
        finally:
            if ctx.usage is not None:
                ctx.usage.end()
            waiter.cancel()
            # On cancellation or the first failure, stop the other samples too: cancelling a
            # task exits its streaming context manager, which closes the connection.
            pending = [t for t in tasks if not t.done()]
            for task in pending:
                task.cancel()
            if pending:
                await asyncio.gather(*pending, return_exceptions=True)

    # -- one request with retries ---------------------------------------------------------
    async def _with_retries(self, body: dict[str, Any], stop: list[str], index: int,
                            progress: Callable[[int, int], None], ctx: JobContext) -> str:
        attempt = 0
        while True:
            try:
                sent = {**body, "stream_options": {"include_usage": True}} \
                    if self._ask_usage else body
                text, usage = await self._stream_once(sent, stop, index, progress)
            except _NoStreamOptions:
                log.info("%s rejects stream_options; token usage stays unknown", self.shown_url)
                self._ask_usage = False
                continue
            except _Retryable as exc:
                if attempt >= self.max_retries:
                    raise exc.error from None
                delay = exc.retry_after
                if delay is None:
                    delay = min(_MAX_BACKOFF_S, self.backoff_s * (2 ** attempt))
                attempt += 1
                log.info("retrying %s in %.1f s (%s)", self.shown_url, delay, exc.error.kind)
                ctx.report("generating", f"retrying ({exc.error.kind})", None)
                await asyncio.sleep(delay)
                continue
            if ctx.usage is not None:
                ctx.usage.record(*(usage or (None, None)))
            return text

    async def _stream_once(self, body: dict[str, Any], stop: list[str], index: int,
                           progress: Callable[[int, int], None]) -> tuple[str, Usage]:
        log.info("POST %s model=%s stream=true", self.shown_url, self.role.model)
        try:
            async with self.http().stream("POST", self.url, json=body) as response:
                if response.status_code >= 400:
                    raw = await response.aread()
                    if "stream_options" in body and response.status_code in (400, 422) \
                            and "stream_options" in _detail(raw):
                        raise _NoStreamOptions()
                    raise self._status_error(response.status_code, raw, response.headers)
                kind = response.headers.get("content-type", "")
                if "text/event-stream" not in kind and "json" in kind:
                    # A server that ignored stream=true answered with one JSON document.
                    return self._from_json(await response.aread(), stop)
                return await self._read_events(response, stop, index, progress)
        except (_Retryable, EndpointError, _NoStreamOptions):
            raise
        except httpx.ConnectTimeout:
            raise EndpointError(
                f"could not connect to {self.shown_url} within "
                f"{min(10.0, self.role.timeout_s):.0f} s; check the endpoint URL and the network",
                "timeout") from None
        except httpx.ConnectError as exc:
            raise _Retryable(EndpointError(
                f"could not connect to {self.shown_url} ({self._scrub(str(exc)) or 'refused'}); "
                "is the server running, and is the endpoint URL right?",
                "connection")) from None
        except httpx.ReadTimeout:
            raise EndpointError(
                f"{self.shown_url} sent nothing for {self.role.timeout_s:.0f} s (timeoutS); "
                "the model may be loading, too slow or overloaded", "timeout") from None
        except httpx.TimeoutException:
            raise EndpointError(f"the request to {self.shown_url} timed out after "
                                f"{self.role.timeout_s:.0f} s (timeoutS)", "timeout") from None
        except (httpx.RemoteProtocolError, httpx.ReadError, httpx.WriteError) as exc:
            raise _Retryable(EndpointError(
                f"the connection to {self.shown_url} broke in the middle of the answer "
                f"({type(exc).__name__})", "connection")) from None
        except httpx.HTTPError as exc:
            raise EndpointError(f"the request to {self.shown_url} failed: {self._scrub(str(exc))}",
                                "connection") from None

    def _status_error(self, status: int, raw: bytes, headers: httpx.Headers) -> Exception:
        detail = self._scrub(_detail(raw))
        tail = f": {detail}" if detail else ""
        model = self.role.model
        if status in (401, 403):
            where = (f"the environment variable {self.role.api_key_env}"
                     if self.role.api_key_env else "the editor's API key setting")
            if not self._api_key:
                return EndpointError(
                    f"{self.shown_url} requires an API key (HTTP {status}) and none is set; put it "
                    f"in {where} (apiKeyEnv names the variable)", "auth")
            return EndpointError(
                f"{self.shown_url} refused the API key (HTTP {status}){tail}; check the key in "
                f"{where}", "auth")
        lowered = detail.lower()
        # Servers word this differently: "model_not_found", "does not exist", "pinned to".
        about_length = "context" in lowered or "token" in lowered
        mentions_model = not about_length and (
            "pinned" in lowered or (bool(model) and f"'{model.lower()}'" in lowered)
            or ("model" in lowered and any(w in lowered for w in (
                "not", "unknown", "exist", "invalid", "unsupported"))))
        if status in (400, 404, 422) and mentions_model:
            return EndpointError(f"{self.shown_url} does not serve the model '{model}'{tail}",
                                 "unknown-model")
        if status == 404:
            return EndpointError(
                f"there is no chat completions API at {self.shown_url} (HTTP 404); the endpoint "
                "usually ends in /v1", "not-found")
        if status == 429:
            return _Retryable(EndpointError(
                f"{self.shown_url} is rate-limiting requests (HTTP 429) and still was after "
                f"{self.max_retries} retries{tail}; wait a little or lower samples",
                "rate-limited"), _retry_after(headers))
        if status >= 500:
            return _Retryable(EndpointError(
                f"{self.shown_url} failed with HTTP {status}{tail} (after {self.max_retries} "
                "retries)", "server"), _retry_after(headers))
        return EndpointError(f"{self.shown_url} rejected the request (HTTP {status}){tail}",
                             "bad-request")

    def _malformed(self, what: str) -> EndpointError:
        snippet = self._scrub(" ".join(what.split()))[:120]
        return EndpointError(f"{self.shown_url} sent a malformed stream ({snippet!r}); is it an "
                             "OpenAI-compatible endpoint?", "protocol")

    def _from_json(self, raw: bytes, stop: list[str]) -> tuple[str, Usage]:
        try:
            data = json.loads(raw)
            content = data["choices"][0]["message"]["content"] or ""
        except (ValueError, KeyError, IndexError, TypeError):
            raise self._malformed(raw.decode("utf-8", "replace")) from None
        return _cut(str(content), stop), usage_of(data)

    async def _read_events(self, response: httpx.Response, stop: list[str], index: int,
                           progress: Callable[[int, int], None]) -> tuple[str, Usage]:
        parts: list[str] = []
        chunks = 0
        finished = False
        usage: Usage = None
        async for line in response.aiter_lines():
            line = line.strip()
            if not line or line.startswith(":") or not line.startswith("data:"):
                continue
            payload = line[5:].strip()
            if payload == "[DONE]":
                finished = True
                break
            try:
                event = json.loads(payload)
            except ValueError:
                raise self._malformed(payload) from None
            if not isinstance(event, dict):
                raise self._malformed(payload)
            # The last chunk (empty choices) carries the usage; some servers send it with
            # every chunk, the running total: the last one seen counts.
            usage = usage_of(event) or usage
            if "error" in event:
                raise EndpointError(f"{self.shown_url} reported an error mid-stream: "
                                    f"{self._scrub(_detail(payload.encode()))}", "server")
            choices = event.get("choices") or []
            if not isinstance(choices, list):
                raise self._malformed(payload)
            for choice in choices:
                if not isinstance(choice, dict):
                    raise self._malformed(payload)
                delta = choice.get("delta") or {}
                content = delta.get("content") if isinstance(delta, dict) else None
                if content:
                    parts.append(str(content))
                    chunks += 1
                if choice.get("finish_reason"):
                    finished = True
            if chunks:
                progress(index, chunks)
            if stop and any(s in "".join(parts) for s in stop):
                finished = True
                break  # closing the stream stops the server's generation
            if chunks and chunks % 8 == 0 and repeating("".join(parts)[-tail_window():]):
                log.info("%s repeats itself; the answer is cut there", self.url)
                finished = True
                break
        if not finished:
            raise _Retryable(EndpointError(
                f"the stream from {self.shown_url} ended before the answer was complete",
                "connection"))
        return _cut("".join(parts), stop), usage


def _cut(text: str, stop: list[str]) -> str:
    cut = len(text)
    for s in stop:
        i = text.find(s) if s else -1
        if 0 <= i < cut:
            cut = i
    return text[:cut]
