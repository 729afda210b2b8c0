"""Cancelling a job at each of its stages ends it promptly, without an edit."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import pytest_lsp
from lsprotocol import types as lsp
from pytest_lsp import ClientServerConfig, LanguageClient

from lsp_support import SERVER_COMMAND, Recorder, make_faster, open_doc, vscode_capabilities

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


@pytest_lsp.fixture(config=ClientServerConfig(server_command=SERVER_COMMAND))
async def client(lsp_client: LanguageClient, tmp_path: Path) -> AsyncIterator[LanguageClient]:
    lsp_client.recorder = Recorder(lsp_client)  # type: ignore[attr-defined]
    await lsp_client.initialize_session(lsp.InitializeParams(
        capabilities=vscode_capabilities(), root_uri=tmp_path.as_uri()))
    yield lsp_client
    await lsp_client.shutdown_session()


@pytest.mark.parametrize("stage", ["queued", "generating", "building", "validating", "timing",
                                   "counting"])
async def test_cancel_at_each_stage(client: LanguageClient, tmp_path: Path, stage: str) -> None:
    r: Recorder = client.recorder  # type: ignore[attr-defined]
    path = tmp_path / "sums.cpp"
    path.write_text(SOURCE)
    uri = open_doc(client, path)
    job_id = await make_faster(client, uri, 4, 8)
    await r.wait(lambda: any(j["jobId"] == job_id and j["stage"] == stage for j in r.jobs)
                 or r.job_done(job_id) is not None, timeout=120)
    if r.job_done(job_id) is not None:
        pytest.skip(f"the job finished before reaching {stage}")
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
