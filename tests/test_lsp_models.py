"""Through the real server with real models: a local planner and a remote optimizer.

A tiny model is fine-tuned in the test to answer both the planner prompt and the optimizer
prompt for one function with the same fixed text: a ``[SUGG/]`` plan whose explanation is full
of markdown, then the rewrite in ``[OPT/]``. The server plans with it as a local model (in
plan-only mode, since the optimizer is another backend) and rewrites with it through
``transformers serve`` on 127.0.0.1; the real runner measures the rewrite before the edit lands.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest
import pytest_lsp
from lsprotocol import types as lsp
from pytest_lsp import ClientServerConfig, LanguageClient

from lsp_support import (
    SERVER_COMMAND,
    Recorder,
    apply_text_edit,
    finished_job,
    vscode_capabilities,
)
from model_fixtures import transformers_serve
from optional_support import needs
from perfpilot.code.locate import function_by_name
from perfpilot.prompting.context import unit_context
from perfpilot.prompting.prompts import optimizer_messages, planner_messages
from perfpilot.strategy.plan_format import parse_output
from perfpilot.strategy.values import Plan
from test_llm_tiny_models import build_tiny_model, finetune_to_emit

pytestmark = needs("torch", "transformers", "fastapi", "uvicorn")

# Copying the vector on every call dominates; taking it by const reference is O(1).
SOURCE = """\
#include <vector>

long ends(std::vector<long> v) {
    if (v.empty()) return 0;
    return v.front() + v.back();
}
"""

# The explanation carries HTML, emphasis and a link: the hover must show them literally.
EXPLANATION = ("take `v` by <const> reference; it is copied on *every* call, "
               "see [x](y)")
PLAN_TEXT = f"""[SUGG/]
- **Function Call Overhead Reduction**: {EXPLANATION} (line 3)
[/SUGG]"""
REWRITE = """long ends(const std::vector<long>& v) {
    if (v.empty()) return 0;
    return v.front() + v.back();
}"""
ANSWER = f"{PLAN_TEXT}\n[OPT/]\n```cpp\n{REWRITE}\n```\n[/OPT]"

CONTEXT_TOKENS = 1500  # the engine's default for both roles
MAX_TOKENS = 300


def prompt_messages() -> list[list[dict[str, str]]]:
    """The planner's and the optimizer's messages for ``ends``, as the server builds them."""
    site = function_by_name(SOURCE, "cpp", "ends", uri="file:///ends.cpp")
    context = unit_context(site, CONTEXT_TOKENS)
    plan = Plan(parse_output(PLAN_TEXT).strategies, "local")
    return [[dict(m) for m in planner_messages(site, context)],
            [dict(m) for m in optimizer_messages(site, plan, context)]]


@pytest.fixture(scope="module")
def trained_model(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A tiny model that answers both prompts with ``ANSWER``."""
    from transformers import AutoTokenizer

    conversations = prompt_messages()
    everything = "\n".join(m["content"] for c in conversations for m in c) + ANSWER
    directory = build_tiny_model(tmp_path_factory.mktemp("models") / "perfcoder-tiny",
                                 extra_text=everything)
    tok = AutoTokenizer.from_pretrained(directory, local_files_only=True)
    prompts = [str(tok.apply_chat_template(c, tokenize=False, add_generation_prompt=True))
               for c in conversations]
    loss = finetune_to_emit(directory, prompts, ANSWER, steps=300, lr=1e-2)
    assert loss < 0.05, f"the tiny model did not learn the answer (loss {loss:.3f})"
    return directory


@pytest.fixture(scope="module")
def endpoint(trained_model: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The same model directory served as an OpenAI-compatible endpoint."""
    log = tmp_path_factory.getbasetemp() / "serve-models.log"
    with transformers_serve(trained_model, log) as base:
        yield base


@pytest_lsp.fixture(config=ClientServerConfig(server_command=SERVER_COMMAND))
async def client(lsp_client: LanguageClient, tmp_path: Path, trained_model: Path,
                 endpoint: str) -> AsyncIterator[LanguageClient]:
    lsp_client.recorder = Recorder(lsp_client)  # type: ignore[attr-defined]
    settings = {
        "planner": {"backend": "local", "model": str(trained_model), "maxTokens": MAX_TOKENS,
                    "temperature": 0, "threads": 1, "timeoutS": 120},
        "optimizer": {"backend": "remote", "endpoint": endpoint, "model": str(trained_model),
                      "samples": 1, "temperature": 0, "maxTokens": MAX_TOKENS,
                      "timeoutS": 120},
        "runner": {"callgrind": False},
    }
    await lsp_client.initialize_session(lsp.InitializeParams(
        capabilities=vscode_capabilities(), root_uri=tmp_path.as_uri(),
        initialization_options={"settings": settings}))
    yield lsp_client
    await lsp_client.shutdown_session()


async def test_local_planner_and_remote_optimizer_make_a_measured_edit(
        client: LanguageClient, tmp_path: Path) -> None:
    r: Recorder = client.recorder  # type: ignore[attr-defined]
    uri, job_id = await finished_job(client, r, tmp_path / "ends.cpp", SOURCE, 3, 4, timeout=240)
    final = r.job_done(job_id)
    assert final is not None and final["stage"] == "done", (
        r.jobs, [m.message for m in client.messages])
    stages = [j["stage"] for j in r.jobs if j.get("jobId") == job_id]
    assert "planning" in stages and "generating" in stages, stages

    # Exactly one versioned edit, replacing the function with the model's rewrite.
    assert len(r.edits) == 1, ([m.message for m in client.messages], r.jobs)
    change = r.edits[0].edit.document_changes[0]  # type: ignore[index]
    assert isinstance(change, lsp.TextDocumentEdit) and change.text_document.version == 1
    new_text = apply_text_edit(SOURCE, change.edits[0])  # type: ignore[arg-type]
    assert new_text == SOURCE.replace("long ends(std::vector<long> v)",
                                      "long ends(const std::vector<long>& v)")
    client.text_document_did_change(lsp.DidChangeTextDocumentParams(
        lsp.VersionedTextDocumentIdentifier(uri=uri, version=2),
        [lsp.TextDocumentContentChangeWholeDocument(new_text)]))

    # The hover shows the local planner's plan, escaped, and the measurement.
    hover = await client.text_document_hover_async(lsp.HoverParams(
        lsp.TextDocumentIdentifier(uri), lsp.Position(2, 6)))
    assert hover is not None
    text = hover.contents.value  # type: ignore[union-attr]
    assert text.startswith("**PerfPilot plan for `ends`** (local, "), text
    # One line per strategy: its first clause, escaped (the explanation in full is in Details).
    assert "1. **Function Call Overhead Reduction**: take `v` by \\<const> reference _(line 3)_" \
        in text, text
    plan_part = text.split("**Result:**")[0]
    assert "<const>" not in plan_part.replace("\\<const>", ""), text
    assert "every" not in plan_part and "[x]" not in plan_part, text
    assert "**Result:** " in text and "× faster (95% CI" in text, text

    # The Details report: one measured candidate, written by the remote optimizer.
    report = await client.workspace_execute_command_async(lsp.ExecuteCommandParams(
        "perfpilot.showReport", [{"uri": uri, "line": 2, "character": 0}]))
    assert report is not None
    markdown = report["markdown"]
    assert "## Candidate 1 (applied) — remote" in markdown, markdown
    assert "## Candidate 2" not in markdown and "rejected (" not in markdown, markdown
    assert "(local, " in markdown and "Strategies: Function Call Overhead Reduction" in markdown
    # The plan in full there, escaped: the model's HTML, emphasis and link shown literally
    # (the planner's own answer follows in an inert text block).
    plan_part = markdown.split("## Candidate 1")[0].split("### The planner's answer")[0]
    assert "\\<const> reference" in plan_part and "\\*every\\* call" in plan_part, markdown
    assert "see \\[x\\](y)" in plan_part and "[x](y)" not in plan_part, markdown
    assert "*every*" not in plan_part.replace("\\*every\\*", ""), markdown
    assert REWRITE in markdown, markdown
