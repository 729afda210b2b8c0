"""Cancelling a job at each of its stages ends it promptly, without an edit.

The job is held at the stage, so the test always cancels it there: at the model stages by a
loopback endpoint that answers only when released, at the others by the test gate
(``PERFPILOT_TEST_GATE_DIR``), where the server waits at that stage's boundary while the
stage's gate file exists.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from lsprotocol import types as lsp
from pytest_lsp import ClientServerConfig, LanguageClient

from lsp_support import SERVER_COMMAND, Recorder, make_faster, open_doc, vscode_capabilities
from perfpilot.progress import TEST_GATE_ENV
from test_llm_remote_faults import FaultyEndpoint, Hold

SOURCE = """\
#include <vector>

int count_duplicates(const std::vector<int>& values) {
    int count = 0;
    for (std::size_t i = 0; i < values.size(); ++i)
        for (std::size_t j = i + 1; j < values.size(); ++j)
            if (values[i] == values[j])
                ++count;
    return count;
}
"""

# Stages a model works in: held by the endpoint playing that role.
MODEL_STAGES = {"planning": "planner", "generating": "optimizer"}


@contextlib.asynccontextmanager
async def served(gate: Path, settings: dict[str, Any], root: Path
                 ) -> AsyncIterator[LanguageClient]:
    """The real server over stdio with the test gate folder in its environment."""
    config = ClientServerConfig(server_command=SERVER_COMMAND,
                                server_env={**os.environ, TEST_GATE_ENV: str(gate)})
    client = await config.start()
    client.recorder = Recorder(client)  # type: ignore[attr-defined]
    try:
        await client.initialize_session(lsp.InitializeParams(
            capabilities=vscode_capabilities(), root_uri=root.as_uri(),
            initialization_options={"settings": settings}))
        yield client
        await client.shutdown_session()
    finally:
        await client.stop()


@pytest.mark.parametrize("stage", ["queued", "planning", "generating", "building",
                                   "validating", "timing", "counting"])
async def test_cancel_at_each_stage(tmp_path: Path, stage: str) -> None:
    gate = tmp_path / "gate"
    gate.mkdir()
    hold = Hold()
    settings: dict[str, Any] = {"runner": {"callgrind": stage == "counting"}}
    async with FaultyEndpoint(hold) as endpoint:
        role = MODEL_STAGES.get(stage)
        if role is not None:
            settings[role] = {"backend": "remote", "endpoint": endpoint.url, "model": "tiny",
                              "timeoutS": 120}
        else:
            (gate / stage).touch()
        try:
            async with served(gate, settings, tmp_path) as client:
                await cancel_at(client, tmp_path, stage)
        finally:
            hold.released.set()  # the endpoint's handler ends, so the endpoint can close
    if role is None:
        assert (gate / f"{stage}.reached").exists()  # the job was held where it was cancelled


async def cancel_at(client: LanguageClient, tmp_path: Path, stage: str) -> None:
    r: Recorder = client.recorder  # type: ignore[attr-defined]
    path = tmp_path / "sums.cpp"
    path.write_text(SOURCE)
    uri = open_doc(client, path)
    job_id = await make_faster(client, uri, 4, 8)
    await r.wait(lambda: any(j["jobId"] == job_id and j["stage"] == stage for j in r.jobs)
                 or r.job_done(job_id) is not None, timeout=120)
    assert r.job_done(job_id) is None, f"the job ended before reaching {stage}: {r.jobs}"
    cancelled = await client.workspace_execute_command_async(lsp.ExecuteCommandParams(
        "perfpilot.cancel", [{"jobId": job_id}]))
    assert cancelled["cancelled"] is True
    await r.wait(lambda: r.job_done(job_id) is not None, timeout=30)
    final = r.job_done(job_id)
    assert final is not None and final["stage"] == "cancelled", final
    assert r.edits == []
    # The log says it once ("pp-1 f: cancelled"), not "cancelled cancelled".
    said = [m.message for m in client.log_messages if m.message.startswith(f"{job_id} ")]
    assert sum(m.count("cancelled") for m in said) == 1, said
