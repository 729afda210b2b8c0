"""The real server over stdio against hostile and careless clients: it answers every request,
never blocks on a file, never takes an oversized message, never trusts a stale version."""

from __future__ import annotations

import asyncio
import os
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bench"))

from protocol_fuzz import SOURCE, RawServer, encode, frame, run_fuzz

ANSWER_WAIT_S = 60.0  # a generous bound that only a hung server exceeds


@pytest.fixture
async def server(tmp_path: Path) -> AsyncIterator[RawServer]:
    s = RawServer(tmp_path)
    await s.start()
    await s.initialize(tmp_path)
    yield s
    await s.stop()


def hover_params(uri: str, line: int = 3, character: int = 6) -> dict[str, Any]:
    return {"textDocument": {"uri": uri}, "position": {"line": line, "character": character}}


async def open_source(server: RawServer, path: Path, text: str = SOURCE,
                      version: int = 1) -> str:
    path.write_text(text)
    await server.notify("textDocument/didOpen", {"textDocument": {
        "uri": path.as_uri(), "languageId": "cpp", "version": version, "text": text}})
    return path.as_uri()


async def test_oversized_message_is_skipped_and_serving_goes_on(
        server: RawServer, tmp_path: Path) -> None:
    uri = await open_source(server, tmp_path / "a.cpp")
    follow = server.new_id()
    await server.send_raw(b"Content-Length: 1099511627776\r\n\r\n" + b'{"jsonrpc": "2.0", '
                          + encode({"jsonrpc": "2.0", "id": follow,
                                    "method": "textDocument/hover",
                                    "params": hover_params(uri)}))
    answer = await server.wait_for(follow, ANSWER_WAIT_S)
    assert "error" not in answer
    again = await server.request("textDocument/hover", hover_params(uri), ANSWER_WAIT_S)
    assert "error" not in again and server.alive


UNIDENTIFIABLE = [
    (b'{"jsonrpc": "2.0", "id": 7, "method": "textDo', -32700),
    (b"\xff\xfe garbage", -32700),
    (b"[1, 2, 3]", -32600),
    (b'{"jsonrpc": "2.0", "id": 1.5, "method": "textDocument/hover", "params": {}}', -32600),
    (b'{"jsonrpc": "2.0", "id": {"a": 1}, "method": "shutdown"}', -32600),
]


async def test_unidentifiable_requests_get_an_error_with_null_id(server: RawServer) -> None:
    for n, (body, code) in enumerate(UNIDENTIFIABLE, 1):
        await server.send_raw(frame(body))
        assert await server.wait_until(lambda n=n: len(server.null_id_errors) >= n,
                                       ANSWER_WAIT_S), body
        answer = server.null_id_errors[n - 1]
        assert answer["error"]["code"] == code and answer["id"] is None, body


MALFORMED: list[tuple[str, Any, int]] = [
    ("textDocument/hover", {"textDocument": 5, "position": {"line": 0, "character": 0}},
     -32602),
    ("textDocument/hover", {"textDocument": {"uri": "file:///a.cpp"}, "position": "here"},
     -32602),
    ("textDocument/hover", None, -32602),
    ("textDocument/codeAction", {"textDocument": {"uri": "file:///a.cpp"}}, -32602),
    ("workspace/executeCommand", {"command": "perfpilot.showReport", "arguments": [5]},
     -32602),
    ("workspace/executeCommand", {"command": "perfpilot.revert",
                                  "arguments": [{"uri": "file:///a.cpp", "line": -1}]},
     -32602),
    ("perfpilot/noSuchMethod", {}, -32601),
]


async def test_malformed_requests_get_an_error_answer(server: RawServer) -> None:
    for method, params, code in MALFORMED:
        answer = await server.request(method, params, ANSWER_WAIT_S)
        assert answer.get("error", {}).get("code") == code, (method, params, answer)


async def test_request_without_jsonrpc_version_is_answered(server: RawServer) -> None:
    msg_id = server.new_id()
    await server.send_raw(encode({"id": msg_id, "method": "textDocument/hover",
                                  "params": hover_params("file:///a.cpp")}))
    answer = await server.wait_for(msg_id, ANSWER_WAIT_S)
    assert answer["error"]["code"] == -32600


async def test_requests_after_shutdown_are_refused(server: RawServer) -> None:
    await server.request("shutdown", None, ANSWER_WAIT_S)
    answer = await server.request("textDocument/hover", hover_params("file:///a.cpp"),
                                  ANSWER_WAIT_S)
    assert answer["error"]["code"] == -32600


async def test_unopened_non_regular_files_are_never_read(
        server: RawServer, tmp_path: Path) -> None:
    fifo = tmp_path / "pipe.cpp"
    os.mkfifo(fifo)
    (tmp_path / "zero.cpp").symlink_to("/dev/zero")
    (tmp_path / "stdin.cpp").symlink_to("/proc/self/fd/0")
    for name in ("pipe.cpp", "zero.cpp", "stdin.cpp"):
        uri = (tmp_path / name).as_uri()
        hover = await server.request("textDocument/hover", hover_params(uri, 0, 0),
                                     ANSWER_WAIT_S)
        assert hover.get("result") is None and "error" not in hover, name
        pos = {"line": 0, "character": 0}
        actions = await server.request("textDocument/codeAction", {
            "textDocument": {"uri": uri}, "range": {"start": pos, "end": pos},
            "context": {"diagnostics": []}}, ANSWER_WAIT_S)
        assert actions.get("result") is None, name
    assert server.alive


async def test_unopened_regular_file_is_read(server: RawServer, tmp_path: Path) -> None:
    path = tmp_path / "a.cpp"
    path.write_text(SOURCE)
    pos = {"line": 5, "character": 8}
    actions = await server.request("textDocument/codeAction", {
        "textDocument": {"uri": path.as_uri()}, "range": {"start": pos, "end": pos},
        "context": {"diagnostics": []}}, ANSWER_WAIT_S)
    assert any("count_upper" in a["title"] for a in actions["result"])


async def make_faster(server: RawServer, uri: str, line: int) -> dict[str, Any]:
    answer = await server.request("workspace/executeCommand", {
        "command": "perfpilot.explain",
        "arguments": [{"uri": uri, "line": line, "character": 4}]}, ANSWER_WAIT_S)
    result: dict[str, Any] = answer["result"]
    return result


async def test_change_that_does_not_advance_the_version_is_refused(
        server: RawServer, tmp_path: Path) -> None:
    uri = await open_source(server, tmp_path / "a.cpp", version=3)
    # Same version, different text: applying it would let an edit computed for one text be
    # applied (with a matching version) over another.
    await server.notify("textDocument/didChange", {
        "textDocument": {"uri": uri, "version": 3},
        "contentChanges": [{"text": "int other(int x) { return x; }\n" + SOURCE}]})
    refused = await make_faster(server, uri, 5)
    assert "out of sync" in refused.get("error", ""), refused
    # A full text with a newer version brings the document back.
    await server.notify("textDocument/didChange", {
        "textDocument": {"uri": uri, "version": 4}, "contentChanges": [{"text": SOURCE}]})
    started = await make_faster(server, uri, 5)
    assert "jobId" in started, started


async def test_small_protocol_fuzz_leaves_nothing_unanswered(tmp_path: Path) -> None:
    result = await run_fuzz(300, seed=7, time_limit=60.0, workspace=tmp_path)
    assert not result.crashed
    assert result.unanswered == 0, result.unanswered_kinds
    assert result.hover_ms and result.action_ms


async def test_pathological_nesting_is_refused_before_analysis(tmp_path: Path) -> None:
    from perfpilot.code.locate import function_at
    from perfpilot.engine.engine import Engine
    from perfpilot.engine.limits import AnalysisLimitError
    from perfpilot.progress import JobContext

    depth = 50_000
    text = "int f(int x) {\n" + "if (x) {\n" * depth + "x++;\n" + "}\n" * depth + "return x;}\n"
    site = function_at(text, "c", 0, 4)
    engine = Engine()
    with pytest.raises(AnalysisLimitError, match="nests more than"):
        await engine.plan(site, JobContext())
    with pytest.raises(AnalysisLimitError):
        await asyncio.wait_for(engine.optimize(site, JobContext(), measure=False), 60)


def test_edit_is_refused_when_the_text_at_the_range_changed() -> None:
    from pygls.workspace import TextDocument

    from perfpilot.code.locate import function_at
    from perfpilot.lsp.convert import StaleSiteError, function_edit

    site = function_at(SOURCE, "cpp", 5, 4, uri="file:///a.cpp", version=1)
    same = TextDocument("file:///a.cpp", source=SOURCE, version=1)
    assert function_edit(same, site, "long count_upper(const char* s) { return 0; }", "x",
                         version=1, confirm=False).document_changes
    # Same version, one character different inside the function.
    changed = TextDocument("file:///a.cpp", source=SOURCE.replace("long c = 0", "long c = 1"),
                           version=1)
    with pytest.raises(StaleSiteError):
        function_edit(changed, site, "long count_upper(const char* s) { return 0; }", "x",
                      version=1, confirm=False)


def test_framer_skips_oversized_bodies_and_resynchronises() -> None:
    from perfpilot.lsp.transport import MessageFramer

    skipped: list[str] = []
    framer = MessageFramer(skipped.append, max_message_bytes=100, max_header_line=64)
    body = b'{"jsonrpc": "2.0", "id": 1, "method": "shutdown"}'
    framer.feed(b"Content-Length: 1099511627776\r\n\r\n" + b"x" * 500 + frame(body))
    framer.feed(b"")
    lines = []
    while (line := framer.line()) not in (None, b"\r\n", b""):
        lines.append(line)
    assert lines[0].startswith(b"X-PerfPilot-Skipped") and len(skipped) == 1
    # The skipped body arrives as bounded pieces, then the next header is found again.
    for _ in range(100):  # bounded: a framer that never resynchronises fails here
        line = framer.line()
        if line is None or line.startswith(b"Content-Length: "):
            break
        assert 0 < len(line) <= 64
    assert line == b"Content-Length: %d\r\n" % len(body)
    assert framer.line() == b"\r\n"
    assert framer.body(len(body)) == body


def test_framer_hands_on_an_empty_body_and_keeps_the_first_length() -> None:
    from perfpilot.lsp.transport import EMPTY_BODY, MessageFramer

    framer = MessageFramer(lambda reason: None)
    body = b'{"jsonrpc": "2.0", "id": 1, "method": "shutdown"}'
    framer.feed(b"Content-Length: 0\r\n\r\n" + frame(body)
                + b"Content-Length: 5\r\nContent-Length: 0\r\n\r\nabcde")
    # Announced as one byte, handed on as a blank body: nothing is taken from the stream.
    assert framer.line() == b"Content-Length: 1\r\n" and framer.line() == b"\r\n"
    assert framer.body(1) == EMPTY_BODY
    assert framer.line() == b"Content-Length: %d\r\n" % len(body)
    assert framer.line() == b"\r\n" and framer.body(len(body)) == body
    # A second Content-Length in one message is passed as it is (pygls keeps the first).
    assert framer.line() == b"Content-Length: 5\r\n"
    assert framer.line() == b"Content-Length: 0\r\n"
    assert framer.line() == b"\r\n" and framer.body(5) == b"abcde"


def test_log_records_are_one_line_and_repeats_are_counted() -> None:
    import logging

    from perfpilot.lsp.log_lines import OneLineRecords

    now = [0.0]
    one = OneLineRecords(burst=3, window_s=10.0, clock=lambda: now[0])

    def record(msg: str, *args: object, name: str = "perfpilot.lsp.transport",
               exc: BaseException | None = None) -> logging.LogRecord:
        info = (type(exc), exc, None) if exc is not None else None
        return logging.LogRecord(name, logging.WARNING, __file__, 1, msg, args, info)

    traced = record("Unable to %s\nmore", "x", exc=ValueError("bad\nvery bad"))
    assert one.filter(traced)
    assert traced.getMessage() == "Unable to x: ValueError: bad" and traced.exc_info is None
    # pygls's own lines for what the server logs itself are dropped.
    assert not one.filter(record("Unable to handle message", name="pygls.server"))
    kept = [one.filter(record("answered -32700: %s", n)) for n in range(10)]
    assert kept == [True] * 3 + [False] * 7
    now[0] = 11.0
    later = record("answered -32700: %s", "again")
    assert one.filter(later) and "7 more like this" in later.getMessage()
    long = record("y" * 1000)
    assert one.filter(long) and len(long.getMessage()) <= 300


def test_only_regular_files_are_read(tmp_path: Path) -> None:
    from perfpilot.regular_files import FileReadError, read_file_head, read_regular_file

    fifo = tmp_path / "pipe.c"
    os.mkfifo(fifo)
    for path in (fifo, Path("/dev/zero"), tmp_path):
        with pytest.raises(FileReadError):
            read_regular_file(path, 1000)
        with pytest.raises(FileReadError):
            read_file_head(path, 10)
    big = tmp_path / "big.c"
    big.write_bytes(b"x" * 2000)
    assert read_file_head(big, 10) == b"x" * 10  # a head of any size of file
    with pytest.raises(FileReadError, match="larger than"):
        read_regular_file(big, 1000)
    # procfs reports size 0: nothing is read, however much the file would produce.
    assert read_regular_file(Path("/proc/self/environ"), 1000) == b""
    assert read_regular_file(big, 5000) == b"x" * 2000


async def test_deep_function_job_ends_with_a_reason_and_hover_is_answered(
        server: RawServer, tmp_path: Path) -> None:
    depth = 50_000
    text = ("int f(int x) {\n" + "if (x) {\n" * depth + "x++;\n" + "}\n" * depth
            + "return x;}\n" + SOURCE)
    uri = await open_source(server, tmp_path / "deep.cpp", text)
    started = await make_faster(server, uri, 0)
    hover = await server.request("textDocument/hover",
                                 hover_params(uri, 2 * depth + 5, 6), ANSWER_WAIT_S)
    assert "error" not in hover

    def ended() -> list[dict[str, Any]]:
        return [n["params"] for n in server.notifications
                if n["method"] == "perfpilot/jobStatus"
                and n["params"]["jobId"] == started["jobId"] and n["params"]["done"]]

    assert await server.wait_until(lambda: bool(ended()), ANSWER_WAIT_S)
    assert "nests more than" in ended()[-1]["message"]


async def test_profile_import_of_a_fifo_or_device_fails_at_once_and_hover_answers(
        server: RawServer, tmp_path: Path) -> None:
    uri = await open_source(server, tmp_path / "a.cpp")
    fifo = tmp_path / "perf.txt"
    os.mkfifo(fifo)  # a blocking read of it waited for a writer forever
    (tmp_path / "zero.data").symlink_to("/dev/zero")  # a whole read never ended
    for path in (fifo, Path("/dev/zero"), tmp_path / "zero.data"):
        answer = await server.request("workspace/executeCommand", {
            "command": "perfpilot.profile", "arguments": [{"import": str(path)}]}, 30)
        result = answer["result"]
        assert result["status"] == "failed" and "not a regular file" in result["error"], result
        hover = await server.request("textDocument/hover", hover_params(uri), ANSWER_WAIT_S)
        assert "error" not in hover
    assert server.alive


def error_popups(server: RawServer) -> list[str]:
    return [str(n["params"]["message"]) for n in server.notifications
            if n["method"] == "window/showMessage" and n["params"]["type"] == 1]


async def test_cancel_with_an_id_that_is_not_an_integer_or_string_is_ignored(
        server: RawServer, tmp_path: Path) -> None:
    uri = await open_source(server, tmp_path / "a.cpp")
    for bad in ({"a": 1}, [1, 2], 1.5, True, None):
        await server.notify("$/cancelRequest", {"id": bad})
    await server.notify("$/cancelRequest", {"id": 987654})  # unknown, but a usable id
    hover = await server.request("textDocument/hover", hover_params(uri), ANSWER_WAIT_S)
    assert "error" not in hover
    # A notification: no answer to it, and no "Error in server" for the user.
    assert server.null_id_errors == []
    assert error_popups(server) == []
    assert server.alive


async def test_an_empty_body_is_answered_with_a_parse_error(
        server: RawServer, tmp_path: Path) -> None:
    uri = await open_source(server, tmp_path / "a.cpp")
    follow = server.new_id()
    await server.send_raw(b"Content-Length: 0\r\n\r\n"
                          + b"Content-Length: 0\r\nContent-Type: x\r\n\r\n"
                          + encode({"jsonrpc": "2.0", "id": follow,
                                    "method": "textDocument/hover",
                                    "params": hover_params(uri)}))
    assert await server.wait_until(lambda: len(server.null_id_errors) >= 2, ANSWER_WAIT_S)
    for answer in server.null_id_errors:
        assert answer["error"]["code"] == -32700 and answer["id"] is None
        assert "empty" in answer["error"]["message"]
    # The framing is intact: the message right after is read and answered.
    answer = await server.wait_for(follow, ANSWER_WAIT_S)
    assert "error" not in answer


async def test_a_flood_of_malformed_messages_logs_a_line_at_most_for_each(
        tmp_path: Path) -> None:
    log_path = tmp_path / "server.log"
    server = RawServer(tmp_path, stderr=log_path)
    await server.start()
    try:
        await server.initialize(tmp_path)
        uri = await open_source(server, tmp_path / "a.cpp")
        bodies = [b'{"jsonrpc": "2.0", "id": 7, "method": "textDo', b"\xff\xfe garbage",
                  b"[1, 2, 3]", b'{"jsonrpc": "2.0", "id": {"a": 1}, "method": "shutdown"}',
                  b'{"jsonrpc": "2.0", "method": "$/cancelRequest", "params": {"id": [1]}}',
                  b'{"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": 5}', b""]
        sent = 0
        for n in range(60):
            for body in bodies:
                await server.send_raw(frame(body))
                sent += 1
            await server.send_raw(encode({  # pygls logs handler errors with a traceback
                "jsonrpc": "2.0", "id": server.new_id(), "method": "workspace/executeCommand",
                "params": {"command": "perfpilot.makeFaster", "arguments": [{"uri": n}]}}))
            await server.send_raw(encode({"jsonrpc": "2.0", "id": server.new_id(),
                                          "method": "textDocument/hover",
                                          "params": {"textDocument": 5}}))
            sent += 2
        hover = await server.request("textDocument/hover", hover_params(uri), ANSWER_WAIT_S)
        assert "error" not in hover
    finally:
        await server.stop()
    lines = log_path.read_text(encoding="utf-8", errors="replace").splitlines()
    assert "Traceback" not in "\n".join(lines)
    assert len(lines) <= sent, len(lines)
    assert all(len(line) < 400 for line in lines), max(lines, key=len)
    assert any("-32700" in line for line in lines)  # logged, in one line, not silent
    # Repeated lines are rate-limited (20 of a kind per 10 s window), so the flood logs far
    # fewer lines than it sent messages.
    assert len(lines) < sent // 2, len(lines)


async def test_a_crlf_document_gets_a_crlf_edit_of_a_models_lf_text(tmp_path: Path) -> None:
    from test_llm_remote_faults import FaultyEndpoint, Stream

    model_text = ("```cpp\nlong count_upper(const char* s) {\n    long c = 0;\n"
                  "    for (const char* p = s; *p; ++p)\n"
                  "        if (*p >= 'A' && *p <= 'Z') ++c;\n    return c;\n}\n```")
    async with FaultyEndpoint(Stream(model_text)) as ep:
        server = RawServer(tmp_path)
        await server.start()
        try:
            await server.request("initialize", {
                "processId": None, "rootUri": tmp_path.as_uri(), "capabilities": {},
                "initializationOptions": {"settings": {
                    "runner": {"enabled": False},  # the line endings are under test
                    "optimizer": {"backend": "remote", "endpoint": ep.url, "model": "tiny"}}}})
            await server.notify("initialized", {})
            uri = await open_source(server, tmp_path / "a.cpp", SOURCE.replace("\n", "\r\n"))
            answer = await server.request("workspace/executeCommand", {
                "command": "perfpilot.makeFaster",
                "arguments": [{"uri": uri, "line": 5, "character": 8}]}, ANSWER_WAIT_S)
            assert "jobId" in answer["result"], answer

            def edits() -> list[dict[str, Any]]:
                return [e for r in server.server_requests if r["method"] == "workspace/applyEdit"
                        for change in r["params"]["edit"]["documentChanges"]
                        for e in change["edits"]]

            assert await server.wait_until(lambda: bool(edits()), ANSWER_WAIT_S)
        finally:
            await server.stop()
    assert ep.requests  # the rewrite is the model's (LF) text
    new_texts = [e["newText"] for e in edits()]
    assert any("for (const char* p = s; *p; ++p)\r\n" in t for t in new_texts), new_texts
    assert all(t.count("\n") == t.count("\r\n") for t in new_texts), new_texts
