"""The model path end to end with replayed answers and the real runner: an answer with a helper
struct and a helper function is verified and applied with them (CLI --write, the engine, an LSP
edit and its Revert), a wrong first answer is repaired in a second round, and an answer with no
code is reported with what it had.

One workspace serves every test of this module: the runner's verdicts are kept in its cache, so
the same candidate measured by the CLI is not measured again by the engine or the server.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
from collections.abc import AsyncIterator
from dataclasses import replace
from pathlib import Path

import pytest
import pytest_lsp
from lsprotocol import types as lsp
from pytest_lsp import ClientServerConfig, LanguageClient

from lsp_support import (
    SERVER_COMMAND,
    Recorder,
    apply_text_edits,
    finished_job,
    vscode_capabilities,
)
from perfpilot.cli import outcome_json
from perfpilot.code.locate import function_by_name
from perfpilot.engine.engine import Engine
from perfpilot.engine.present import report_markdown
from perfpilot.engine.workspace_config import workspace_config
from perfpilot.progress import JobContext

SOURCE = """\
#include <vector>

// Sum of v[i] + v[j] over every ordered pair (i, j), modulo 2^64.
unsigned long pair_total(const std::vector<int>& v)
{
    unsigned long total = 0;
    for (std::size_t i = 0; i < v.size(); ++i)
        for (std::size_t j = 0; j < v.size(); ++j)
            total += (unsigned long)v[i] + (unsigned long)v[j];
    return total;
}
"""
HELPERS = """\
struct Sums { unsigned long total; unsigned long count; };

static Sums sums_of(const std::vector<int>& v)
{
    Sums s{0, 0};
    for (int x : v) { s.total += (unsigned long)x; ++s.count; }
    return s;
}
"""
# The first answer forgets that each element is in 2n pairs; the repair answer does not.
WRONG = f"""Each element appears in n pairs on each side, so the double loop collapses:

```cpp
#include <vector>

{HELPERS}
unsigned long pair_total(const std::vector<int>& v)
{{
    Sums s = sums_of(v);
    return s.count * s.total;
}}
```
"""
RIGHT = f"""The factor 2 was missing: each ordered pair counts both of its elements.

```cpp
{HELPERS}
unsigned long pair_total(const std::vector<int>& v)
{{
    Sums s = sums_of(v);
    return 2 * s.count * s.total;
}}
```
"""
ODD = "int count_odd(const int* a, int n)\n{\n    int c = 0;\n    for (int i = 0; i < n; ++i)" \
      " c += a[i] % 2 != 0;\n    return c;\n}\n"
PROSE = "I would keep a bitset: see [the docs](command:perfpilot.revert) <b>here</b>."


@pytest.fixture(scope="module")
def workspace(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("model-path")
    (root / ".git").mkdir()
    (root / ".perfpilot.toml").write_text("[runner]\npairs = 6\ncallgrind = false\n")
    (root / "pairs.cpp").write_text(SOURCE)
    repair = root / "answers-repair"
    repair.mkdir()
    (repair / "pair_total.md").write_text(WRONG)
    (repair / "pair_total.repair1.md").write_text(RIGHT)
    good = root / "answers-good"
    good.mkdir()
    (good / "pair_total.md").write_text(RIGHT)
    (good / "count_odd.md").write_text(PROSE)
    return root


async def perfpilot(*args: str, cwd: Path) -> tuple[int, str, str]:
    env = {**os.environ, "XDG_CONFIG_HOME": str(cwd / "config")}
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "perfpilot", *args, cwd=cwd, env=env,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
    out, err = await asyncio.wait_for(proc.communicate(), 600)
    assert proc.returncode is not None
    return proc.returncode, out.decode(), err.decode()


async def test_cli_write_repairs_the_answer_and_writes_it_with_its_helpers(
        workspace: Path) -> None:
    path = workspace / "pairs.cpp"
    status, out, err = await perfpilot(
        "optimize", str(path), "--function", "pair_total", "--write", "--optimizer", "replay",
        "--answers", str(workspace / "answers-repair"), cwd=workspace)
    assert status == 0, (out, err)
    # Both rounds are in the report, each measured; the second is the one chosen.
    # An answer that names no strategy gets no empty field in its header.
    assert "Candidate 1 (replay):" in out and "Measured (incorrect)" in out, out
    assert "original return value" in out and "candidate return value" in out, out
    assert "Candidate 2 (replay; repair round 1):" in out, out
    assert "Measured (faster)" in out and "Chosen: candidate 2, measured faster." in out, out
    # The diff shows the helpers with the function, and the file has all three.
    # Added helpers are formatted in the file's style (a four-space indent here).
    assert "+struct Sums {\n+    unsigned long total;\n+    unsigned long count;\n+};" in out, out
    assert "+static Sums sums_of(const std::vector<int>& v)" in out, out
    assert "+    return 2 * s.count * s.total;" in out, out
    written = path.read_text()
    assert written.count("#include <vector>") == 1
    # The helpers go above the function's own comment, which stays with it.
    assert written.index("static Sums sums_of") < written.index("// Sum of v[i] + v[j]") \
        < written.index("unsigned long pair_total")
    assert written.index("struct Sums") < written.index("static Sums sums_of") \
        < written.index("unsigned long pair_total") < written.index("return 2 * s.count")
    assert "(unsigned long)v[i] + (unsigned long)v[j]" not in written


async def test_the_engine_chooses_the_repair_and_reports_both_rounds(workspace: Path) -> None:
    path = workspace / "pairs.cpp"
    settings = workspace_config(workspace, trusted=False).settings
    settings = replace(settings, optimizer=replace(
        settings.optimizer, backend="replay", answers=str(workspace / "answers-repair")))
    engine = Engine(settings, workspace)
    site = function_by_name(SOURCE, "cpp", "pair_total", uri=path.as_uri())
    try:
        outcome = await engine.optimize(site, JobContext(), source_path=path)
    finally:
        await engine.close()
    assert [(t.candidate.round, t.verdict.verdict if t.verdict else None)
            for t in outcome.trials] == [(0, "incorrect"), (1, "faster")], outcome.message
    assert outcome.status == "improved" and outcome.best == 1
    data = outcome_json(path, outcome)
    assert [c["round"] for c in data["candidates"]] == [0, 1]
    assert "+struct Sums" in data["candidates"][1]["diff"]
    report = report_markdown(outcome)
    assert "## Candidate 1 — replay" in report
    assert "## Candidate 2 (applied) — replay, repair round 1" in report


@pytest_lsp.fixture(config=ClientServerConfig(server_command=SERVER_COMMAND))
async def client(lsp_client: LanguageClient, workspace: Path) -> AsyncIterator[LanguageClient]:
    lsp_client.recorder = Recorder(lsp_client)  # type: ignore[attr-defined]
    settings = {"optimizer": {"backend": "replay", "answers": str(workspace / "answers-good")}}
    await lsp_client.initialize_session(lsp.InitializeParams(
        capabilities=vscode_capabilities(), root_uri=workspace.as_uri(),
        initialization_options={"settings": settings}))
    yield lsp_client
    await lsp_client.shutdown_session()


async def test_an_lsp_edit_inserts_the_helpers_in_one_undoable_edit_and_revert_removes_them(
        client: LanguageClient, workspace: Path) -> None:
    r: Recorder = client.recorder  # type: ignore[attr-defined]
    uri, _ = await finished_job(client, r, workspace / "lsp_pairs.cpp", SOURCE, 3, 20)
    assert len(r.edits) == 1, ([m.message for m in client.messages], r.jobs)
    (change,) = r.edits[0].edit.document_changes  # type: ignore[misc]
    assert isinstance(change, lsp.TextDocumentEdit) and change.text_document.version == 1
    new_text = apply_text_edits(SOURCE, change.edits)  # type: ignore[arg-type]
    assert new_text.count("#include <vector>") == 1
    assert new_text.index("static Sums sums_of") < new_text.index("// Sum of v[i] + v[j]")
    assert new_text.index("struct Sums") < new_text.index("static Sums sums_of") \
        < new_text.index("unsigned long pair_total") < new_text.index("return 2 * s.count")
    client.text_document_did_change(lsp.DidChangeTextDocumentParams(
        lsp.VersionedTextDocumentIdentifier(uri=uri, version=2),
        [lsp.TextDocumentContentChangeWholeDocument(new_text)]))
    line = new_text[:new_text.index("unsigned long pair_total")].count("\n")
    lenses = await client.text_document_code_lens_async(lsp.CodeLensParams(
        lsp.TextDocumentIdentifier(uri)))
    titles = [lens.command.title for lens in lenses or [] if lens.command]
    assert any(t.startswith("⚡") for t in titles) and "Revert" in titles, titles
    reverted = await client.workspace_execute_command_async(lsp.ExecuteCommandParams(
        "perfpilot.revert", [{"uri": uri, "line": line, "character": 0}]))
    assert reverted["applied"] is True
    (back,) = r.edits[-1].edit.document_changes  # type: ignore[misc]
    assert isinstance(back, lsp.TextDocumentEdit)
    assert apply_text_edits(new_text, back.edits) == SOURCE  # type: ignore[arg-type]


async def test_an_answer_without_code_is_reported_with_what_it_had(
        client: LanguageClient, workspace: Path) -> None:
    r: Recorder = client.recorder  # type: ignore[attr-defined]
    uri, _ = await finished_job(client, r, workspace / "odd.cpp", ODD, 1, 5)
    assert r.edits == []
    report = await client.workspace_execute_command_async(lsp.ExecuteCommandParams(
        "perfpilot.showReport", [{"uri": uri, "line": 1, "character": 0}]))
    markdown = report["markdown"]
    assert ("rejected (replay): extraction failed: no fenced block and no definition of "
            "\\`count_odd\\` (prose only)") in markdown, markdown
    # The raw answer is there, inert: inside a text block, never a link or markup.
    block = markdown[markdown.index("  ```text"):]
    assert f"  {PROSE}\n  ```" in block, markdown
    assert markdown.count("(command:") == 1


async def test_cli_json_keeps_the_raw_answer_of_a_refused_one(workspace: Path) -> None:
    path = workspace / "odd.c"
    path.write_text(ODD)
    status, out, err = await perfpilot(
        "optimize", str(path), "--function", "count_odd", "--json", "--optimizer", "replay",
        "--answers", str(workspace / "answers-good"), cwd=workspace)
    assert status == 0, err
    data = json.loads(out)
    assert data["status"] == "no-candidate" and data["candidates"] == []
    (refused,) = data["rejected"]
    assert refused["answer"] == PROSE and refused["round"] == 0
    assert refused["reason"].startswith("extraction failed: no fenced block")
