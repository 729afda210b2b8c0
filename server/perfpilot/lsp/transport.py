"""The JSON-RPC transport hardened against hostile or careless clients.

pygls reads a ``Content-Length`` header and then that many bytes in one go, so one header can
ask for a terabyte; a body that fails to parse or to match its LSP type is logged and dropped,
so the client waits forever for an answer. Here:

- ``MessageFramer`` feeds pygls's message loop with lines and bodies of bounded size. A message
  whose declared length is over the limit is skipped (never buffered), with one log line, and
  reading resumes at the next header. A ``Content-Length: 0`` message (which pygls's loop
  skips without a word) is handed on as a one-space body, so it is answered -32700 like any
  other body that is not JSON.
- ``GuardedProtocol`` answers every request it cannot serve: invalid JSON (-32700), a message
  that is not a request (-32600), parameters of the wrong shape (-32602), requests after
  ``shutdown`` (-32600). A ``$/cancelRequest`` whose id is not an integer or a string is
  dropped with a log line (it is a notification: no answer, and no error shown to the user).
  It also refuses ``didChange`` notifications that do not advance the document version, since
  applying them would leave the server and the client disagreeing about which text a version
  names. Every malformed message is logged as one line (``log_lines`` keeps it so).
"""

from __future__ import annotations

import asyncio
import json
import logging
import re
from collections.abc import Callable, Generator
from dataclasses import dataclass
from typing import Any, BinaryIO
from urllib.parse import unquote

from lsprotocol import types as lsp
from pygls.exceptions import (
    JsonRpcException,
    JsonRpcInvalidParams,
    JsonRpcInvalidRequest,
    JsonRpcParseError,
)
from pygls.protocol import LanguageServerProtocol
from pygls.protocol.language_server import lsp_method

log = logging.getLogger(__name__)

MAX_MESSAGE_BYTES = 64 * 1024 * 1024  # a 4 MB source in JSON, with room for escaping
MAX_HEADER_LINE = 1024
_READ_CHUNK = 64 * 1024
_CONTENT_LENGTH = re.compile(rb"Content-Length: (\d+)\r\n")  # as pygls matches it
_HEADER_NAME = b"Content-Length:"
_REPLACEMENT_HEADER = b"X-PerfPilot-Skipped: oversized\r\n"
# A zero-length message is announced to pygls as one byte long and handed on as this body.
_EMPTY_HEADER = b"Content-Length: 1\r\n"
EMPTY_BODY = b" "


class MessageFramer:
    """Splits a byte stream into header lines and bodies, every piece bounded in size.

    Sans I/O: ``feed`` adds bytes; ``line`` and ``body`` return None until enough arrived (or
    the stream ended). A header announcing more than ``max_message_bytes`` is replaced by a
    harmless one, so the body is never buffered as a whole: it is then read as header lines
    and dropped, and reading resumes at the next ``Content-Length`` header. ``on_skip`` is told
    once per skipped message.
    """

    def __init__(self, on_skip: Callable[[str], None], *,
                 max_message_bytes: int = MAX_MESSAGE_BYTES,
                 max_header_line: int = MAX_HEADER_LINE) -> None:
        self._on_skip = on_skip
        self.max_message_bytes = max_message_bytes
        self.max_header_line = max_header_line
        self._buf = bytearray()
        self.eof = False
        self._skipping = False
        # A Content-Length was handed on for the message being read (pygls takes the first).
        self._length_seen = False
        self._empty_body = False

    def feed(self, data: bytes) -> None:
        """More bytes from the stream; ``b""`` marks its end."""
        if data:
            self._buf += data
        else:
            self.eof = True

    def line(self) -> bytes | None:
        """The next header line (longer lines come in pieces), or None: feed more."""
        end = self._buf.find(b"\n", 0, self.max_header_line)
        if end >= 0:
            return self._take_line(end + 1)
        if len(self._buf) >= self.max_header_line:
            # While skipping, keep a tail back so a header cannot be split between pieces.
            keep = len(_HEADER_NAME) - 1 if self._skipping else 0
            return self._take_line(self.max_header_line - keep)
        return self._take_line(len(self._buf)) if self.eof else None

    def body(self, n: int) -> bytes | None:
        """The next ``n`` bytes (fewer at end of stream), or None: feed more."""
        if self._empty_body:  # announced as one byte: nothing is taken from the stream
            self._empty_body = self._length_seen = False
            return EMPTY_BODY
        n = min(n, self.max_message_bytes)
        if len(self._buf) < n and not self.eof:
            return None
        data = bytes(self._buf[:n])
        del self._buf[:n]
        self._length_seen = False
        return data

    def _take_line(self, n: int) -> bytes:
        line = bytes(self._buf[:n])
        del self._buf[:n]
        if self._skipping:
            # Resynchronise on the next header, even one glued to the end of a skipped body.
            at = line.find(_HEADER_NAME)
            if at > 0:
                self._buf[0:0] = line[at:]
                return line[:at]
        match = _CONTENT_LENGTH.fullmatch(line)
        if match is None or self._length_seen:
            return line  # a second Content-Length of one message: pygls keeps the first
        digits = match.group(1)
        size = int(digits) if len(digits) <= 15 else None
        if size == 0:
            self._skipping = False
            self._length_seen = self._empty_body = True
            return _EMPTY_HEADER
        if size is not None and size <= self.max_message_bytes:
            self._skipping = False
            self._length_seen = True
            return line
        self._skipping = True
        shown = f"{size:,}" if size is not None else f"a {len(digits)}-digit number of"
        self._on_skip(f"skipped a message of {shown} bytes: the limit is "
                      f"{self.max_message_bytes:,} bytes")
        return _REPLACEMENT_HEADER


class BoundedStdin:
    """A binary stream for pygls's stdio loop (``readline``, ``read``) with bounded reads."""

    def __init__(self, stream: BinaryIO, framer: MessageFramer) -> None:
        self._stream = stream
        self._framer = framer

    def _fill(self) -> None:
        read1 = getattr(self._stream, "read1", None)
        self._framer.feed(read1(_READ_CHUNK) if read1 is not None
                          else self._stream.read(1))

    def readline(self) -> bytes:
        """One bounded header line."""
        while (line := self._framer.line()) is None:
            self._fill()
        return line

    def read(self, n: int) -> bytes:
        """One body, at most the framer's limit."""
        while (data := self._framer.body(n)) is None:
            self._fill()
        return data


class BoundedStreamReader:
    """pygls's asynchronous reader interface over an asyncio stream, with bounded reads."""

    def __init__(self, stream: asyncio.StreamReader, framer: MessageFramer) -> None:
        self._stream = stream
        self._framer = framer

    async def readline(self) -> bytes:
        """One bounded header line."""
        while (line := self._framer.line()) is None:
            self._framer.feed(await self._stream.read(_READ_CHUNK))
        return line

    async def readexactly(self, n: int) -> bytes:
        """One body, at most the framer's limit."""
        while (data := self._framer.body(n)) is None:
            self._framer.feed(await self._stream.read(_READ_CHUNK))
        return data


class _Answered:
    """A message that was already answered with an error; the dispatcher skips it."""

    jsonrpc = "2.0"


@dataclass(frozen=True)
class _Unusable:
    """A notification or response that does not fit its type: logged, never dispatched."""

    reason: str
    jsonrpc: str = "2.0"


def _usable_id(msg_id: Any) -> bool:
    return isinstance(msg_id, int | str) and not isinstance(msg_id, bool)


def _request_id(data: Any) -> int | str | None:
    """The id of a raw message when it is a usable JSON-RPC id, else None."""
    msg_id = data.get("id") if isinstance(data, dict) else None
    return msg_id if _usable_id(msg_id) else None


def version_advances(current: int | None, new: int | None) -> bool:
    """Whether a ``didChange`` version may follow the document's current version."""
    return current is None or (new is not None and new > current)


class GuardedProtocol(LanguageServerProtocol):
    """pygls's protocol, answering malformed requests and guarding document versions."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.out_of_sync: set[str] = set()

    def answer_error(self, msg_id: int | str | None, error: JsonRpcException) -> None:
        """Send an error response (``msg_id`` None when the request's id is unknown)."""
        if msg_id is None:
            # JSON-RPC wants ``"id": null`` spelled out; the typed message would omit it.
            self._send_data({"jsonrpc": self.VERSION, "id": None,
                             "error": {"code": error.code, "message": error.message}})
            return
        self._send_response(msg_id, error=error.to_response_error())

    def structure_message(self, data: dict[str, Any]) -> Any:
        """Structure a raw message without ever raising.

        A request that does not fit its type is answered at once, -32602 (or -32600 when its
        id is unusable). A response that does not fit fails the request it answers, so no
        one waits for it forever; a notification that does not fit is dropped with a log.
        """
        try:
            return super().structure_message(data)
        except Exception as exc:
            cause = exc.__cause__ or exc
            detail = _first_line(cause)
            if not isinstance(data, dict):
                return _Unusable(f"not an object: {detail}")
            msg_id = _request_id(data)
            method = data.get("method")
            if "method" in data and "id" in data:
                if msg_id is None:
                    log.warning("answered -32600 to a request with an unusable id")
                    self.answer_error(None, JsonRpcInvalidRequest(
                        "the request id must be an integer or a string"))
                else:
                    log.warning("answered -32602 to %.100r: %s", method, detail)
                    self.answer_error(msg_id, JsonRpcInvalidParams(
                        f"invalid parameters for {str(method)[:100]!r}" +
                        (f": {detail}" if detail else "")))
                return _Answered()
            if "method" not in data and msg_id is not None:
                log.warning("failed request %.100r: the client's response was malformed: %s",
                            msg_id, detail)
                self._handle_response(msg_id, None, lsp.ResponseError(
                    JsonRpcInvalidParams.CODE, f"the client's response was malformed: {detail}"))
                return _Answered()
            return _Unusable(f"{str(method)[:100]!r}: {detail}")

    def handle_message(self, message: Any) -> None:
        """Dispatch a message; anything that is not a JSON-RPC 2.0 request but expects an
        answer gets -32600, and so does every request after ``shutdown``."""
        if isinstance(message, _Answered):
            return
        if isinstance(message, _Unusable):
            log.warning("ignored a malformed message: %s", message.reason)
            return
        raw = message if isinstance(message, dict) else None
        method = raw.get("method") if raw is not None else getattr(message, "method", None)
        has_id = ("id" in raw) if raw is not None else hasattr(message, "id")
        msg_id = raw.get("id") if raw is not None else getattr(message, "id", None)
        if raw is None and not hasattr(message, "jsonrpc"):
            log.warning("answered -32600 to a message that is not an object")
            self.answer_error(None, JsonRpcInvalidRequest("not a JSON-RPC 2.0 request object"))
            return
        if raw is not None or message.jsonrpc != self.VERSION:
            if method is not None and not has_id:
                log.warning("ignored a notification that is not JSON-RPC 2.0")
            elif method is None and has_id:
                log.warning("ignored a response that is not JSON-RPC 2.0")
            else:
                log.warning("answered -32600 to a request that is not JSON-RPC 2.0")
                self.answer_error(msg_id if _usable_id(msg_id) else None,
                                  JsonRpcInvalidRequest("not a JSON-RPC 2.0 request object"))
            return
        if method == lsp.CANCEL_REQUEST and not has_id:
            cancelled = getattr(getattr(message, "params", None), "id", None)
            if not _usable_id(cancelled):
                # A notification: no answer is due, and no error may reach the user.
                log.warning("ignored $/cancelRequest: the id must be an integer or a string, "
                            "not %s", type(cancelled).__name__)
                return
        if method is not None and has_id:
            if not _usable_id(msg_id):
                log.warning("answered -32600 to a request with an unusable id")
                self.answer_error(None, JsonRpcInvalidRequest(
                    "the request id must be an integer or a string"))
                return
            if self._shutdown and method != lsp.EXIT:
                self.answer_error(msg_id, JsonRpcInvalidRequest("the server is shutting down"))
                return
        super().handle_message(message)

    # -- document synchronisation ---------------------------------------------------------
    @lsp_method(lsp.TEXT_DOCUMENT_DID_OPEN)
    def lsp_text_document__did_open(self, params: lsp.DidOpenTextDocumentParams
                                    ) -> Generator[Any, Any, None]:
        """A fresh copy of the document: it is in sync again."""
        self.out_of_sync.discard(unquote(params.text_document.uri))
        yield from super().lsp_text_document__did_open(params)

    @lsp_method(lsp.TEXT_DOCUMENT_DID_CLOSE)
    def lsp_text_document__did_close(self, params: lsp.DidCloseTextDocumentParams
                                     ) -> Generator[Any, Any, None]:
        """The document is gone; so is its sync state."""
        self.out_of_sync.discard(unquote(params.text_document.uri))
        yield from super().lsp_text_document__did_close(params)

    @lsp_method(lsp.TEXT_DOCUMENT_DID_CHANGE)
    def lsp_text_document__did_change(self, params: lsp.DidChangeTextDocumentParams
                                      ) -> Generator[Any, Any, None]:
        """Apply a change only when it advances the version of an open document.

        A change that does not advance the version is refused and the document is marked out
        of sync: later incremental changes would apply to the wrong text, so only a full-text
        change with a newer version (or a new didOpen) brings it back.
        """
        key = unquote(params.text_document.uri)
        doc = self.workspace.text_documents.get(key)
        new = params.text_document.version
        if doc is None:
            log.warning("ignored didChange for %s: the document is not open", key[:200])
            return
        if not version_advances(doc.version, new):
            self.out_of_sync.add(key)
            log.warning("ignored didChange for %s: version %s does not follow %s; the "
                        "document is out of sync until the editor sends its full text",
                        key[:200], new, doc.version)
            return
        if key in self.out_of_sync:
            if not params.content_changes or any(
                    isinstance(c, lsp.TextDocumentContentChangePartial)
                    for c in params.content_changes):
                log.warning("ignored didChange for %s: out of sync, waiting for full text",
                            key[:200])
                return
            self.out_of_sync.discard(key)
        yield from super().lsp_text_document__did_change(params)


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return text[0][:200] if text else ""


def is_parse_failure(error: Exception) -> bool:
    """Whether an error from pygls's message loop means the body was not valid JSON."""
    return isinstance(error, json.JSONDecodeError | UnicodeDecodeError | RecursionError)


def is_empty_body(error: Exception) -> bool:
    """Whether a parse failure was of a body with nothing in it (``Content-Length: 0``, which
    the framer hands on as ``EMPTY_BODY``, or only blanks)."""
    return isinstance(error, json.JSONDecodeError) and not error.doc.strip()


def parse_error(error: Exception | None = None) -> JsonRpcException:
    """The error answered (with id null) to a body that is not JSON (or is empty)."""
    if error is not None and is_empty_body(error):
        return JsonRpcParseError("the message body is empty")
    return JsonRpcParseError("the message body is not valid JSON")
