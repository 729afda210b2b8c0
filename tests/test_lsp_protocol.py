"""PerfPilot's typed protocol values: they round-trip through lsprotocol's converter with the
JSON keys the client uses, and an ill-formed command argument is answered with a clear
-32602 error by the real server, which goes on serving."""

from __future__ import annotations

import json
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import cattrs
import pytest
from lsprotocol.converters import get_converter

from perfpilot.lsp import protocol as p
from perfpilot.lsp.server import create_server

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bench"))

from protocol_fuzz import RawServer

ANSWER_WAIT_S = 60.0  # a generous bound that only a hung server exceeds

VALUES: list[tuple[object, dict[str, Any]]] = [
    (p.PositionArgument("file:///a.cpp", 3, 4, version=7, open=True),
     {"uri": "file:///a.cpp", "line": 3, "character": 4, "version": 7, "open": True}),
    (p.CancelArgument(job_id="pp-2", uri="file:///a.cpp", line=1, character=2),
     {"jobId": "pp-2", "uri": "file:///a.cpp", "line": 1, "character": 2}),
    (p.TestConnectionArgument(role="planner"), {"role": "planner"}),
    (p.ProfileArgument(import_="perf.data", binary="a.out"),
     {"import": "perf.data", "binary": "a.out"}),
    (p.JobStatus(job_id="pp-1", uri="file:///a.cpp", function="ns::f", kind="optimize",
                 stage="done", done=True, message=""),
     {"jobId": "pp-1", "uri": "file:///a.cpp", "function": "ns::f", "kind": "optimize",
      "stage": "done", "done": True, "message": ""}),
    # A value equal to its default is left out, and read back as that default.
    (p.SetSecretParams(name="apiKey", value="k", role="optimizer"),
     {"value": "k", "role": "optimizer"}),
]


@pytest.mark.parametrize("converter", [get_converter(), p.make_converter()],
                         ids=["lsprotocol", "server"])
@pytest.mark.parametrize(("value", "wire"), VALUES, ids=lambda v: type(v).__name__)
def test_values_round_trip_with_the_clients_keys(converter: cattrs.Converter, value: object,
                                                 wire: dict[str, Any]) -> None:
    assert json.loads(json.dumps(converter.unstructure(value))) == wire
    assert converter.structure(wire, type(value)) == value
    assert p.parse(converter, wire, type(value)) == value


def test_job_status_keeps_every_field_on_the_wire() -> None:
    # A field equal to its default must not be left out: the client reads them all.
    status = p.JobStatus("pp-1", "file:///a.cpp", "f", "explain", "queued", False, "")
    sent = json.loads(json.dumps(p.to_json(p.make_converter(), status)))
    assert sent == {"jobId": "pp-1", "uri": "file:///a.cpp", "function": "f",
                    "kind": "explain", "stage": "queued", "done": False, "message": ""}


def test_custom_messages_structure_as_their_types() -> None:
    protocol = create_server().protocol
    secret = protocol.structure_message({
        "jsonrpc": "2.0", "method": p.NOTIFY_SECRET,
        "params": {"name": "apiKey", "role": "planner", "value": "k"}})
    assert secret.params == p.SetSecretParams("apiKey", "k", "planner")
    status = p.JobStatus("pp-3", "file:///b.c", "g", "rerun", "timing", False, "pair 3")
    body = json.dumps(p.JobStatusNotification(p.NOTIFY_JOB, status, "2.0"),
                      default=protocol._serialize_message)
    assert json.loads(body) == {"jsonrpc": "2.0", "method": p.NOTIFY_JOB,
                                "params": p.to_json(p.make_converter(), status)}
    assert protocol.structure_message(json.loads(body)).params == status


@pytest.mark.parametrize(("data", "says"), [
    (5, "expected an object"),
    ({}, "uri is missing"),
    ({"uri": 3}, "uri must be of type string"),
    ({"uri": "file:///a.cpp", "line": "3"}, "line must be of type integer"),
    ({"uri": "file:///a.cpp", "line": True}, "line must be of type integer"),
    ({"uri": "file:///a.cpp", "character": 2.5}, "character must be of type integer"),
    ({"uri": "file:///a.cpp", "line": -1}, "line must be a uinteger"),
    ({"uri": "file:///a.cpp", "line": 2**31}, "line must be a uinteger"),
    ({"uri": "file:///a.cpp", "open": "yes"}, "open must be of type boolean"),
])
def test_ill_formed_arguments_are_refused_with_the_reason(data: object, says: str) -> None:
    with pytest.raises(p.InvalidArgument, match=says):
        p.parse(p.make_converter(), data, p.PositionArgument)


def test_well_formed_arguments_keep_their_defaults_and_older_forms() -> None:
    c = p.make_converter()
    assert p.parse(c, {"uri": "u", "extra": 1}, p.PositionArgument) == p.PositionArgument("u")
    assert p.command_argument(c, ("u", 2, 5), p.PositionArgument) == \
        p.PositionArgument("u", 2, 5)
    assert p.command_argument(c, (), p.TestConnectionArgument) == p.TestConnectionArgument()


@pytest.fixture
async def server(tmp_path: Path) -> AsyncIterator[RawServer]:
    s = RawServer(tmp_path)
    await s.start()
    await s.initialize(tmp_path)
    yield s
    await s.stop()


async def test_ill_formed_command_argument_gets_a_clear_error(server: RawServer) -> None:
    for command, argument, says in [
        (p.CMD_FASTER, {"uri": "file:///a.cpp", "line": "3"}, "line must be of type integer"),
        (p.CMD_CANCEL, {"jobId": 7}, "jobId must be of type string"),
        (p.CMD_CANCEL, {}, "jobId or uri is needed"),
        (p.CMD_TEST, {"role": ["planner"]}, "role must be of type string"),
        (p.CMD_PROFILE, {"import": 1}, "import must be of type string"),
        (p.CMD_DRAFT_SPEC, {"uri": "file:///a.cpp", "function": 3},
         "function must be of type string | null"),
        (p.CMD_DRAFT_SPEC, {"function": "f"}, "uri is missing"),
    ]:
        answer = await server.request("workspace/executeCommand",
                                      {"command": command, "arguments": [argument]},
                                      ANSWER_WAIT_S)
        error = answer.get("error", {})
        assert error.get("code") == -32602, (command, answer)
        assert command in error.get("message", "") and says in error["message"], answer
    status = await server.request("workspace/executeCommand",
                                  {"command": p.CMD_STATUS, "arguments": [{}]}, ANSWER_WAIT_S)
    assert status["result"]["jobs"] == []  # still serving
