"""The remote backend end to end against a real OpenAI-compatible server: ``transformers serve``
pinned to the tiny random model on 127.0.0.1 (streaming, cancellation, test connection, and
the model optimizer through the whole stack)."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator

import pytest

from model_fixtures import transformers_serve
from optional_support import needs
from perfpilot.code.locate import function_by_name
from perfpilot.llm.check import check_endpoint
from perfpilot.llm.factory import make_client
from perfpilot.llm.remote import RemoteClient
from perfpilot.optimizing.llm_optimizer import ModelOptimizer
from perfpilot.progress import Cancelled, JobContext
from perfpilot.settings import RoleSettings
from perfpilot.strategy.values import Plan
from test_llm_tiny_models import cached_tiny_model

pytestmark = needs("torch", "fastapi", "uvicorn")

HELLO = [{"role": "user", "content": "Say something."}]


@pytest.fixture(scope="module")
def served_model(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, str]]:
    """(base URL, pinned model name) of a ``transformers serve`` process serving the tiny model."""
    model = cached_tiny_model(tmp_path_factory.getbasetemp(), "tiny-qwen2")
    with transformers_serve(model, tmp_path_factory.getbasetemp() / "serve.log") as base:
        yield base, str(model)


def role_for(served: tuple[str, str], **kw: object) -> RoleSettings:
    fields: dict[str, object] = {"backend": "remote", "endpoint": served[0], "model": served[1],
                                 "timeout_s": 60.0, "max_tokens": 16, "temperature": 0.0}
    fields.update(kw)
    return RoleSettings(**fields)  # type: ignore[arg-type]


async def test_streams_from_transformers_serve_and_cancels(served_model: tuple[str, str]) -> None:
    client = make_client(role_for(served_model), {})
    assert isinstance(client, RemoteClient)
    try:
        counts: list[int] = []
        seen = asyncio.Event()

        def on_report(stage: str, message: str, percent: int | None) -> None:
            word = message.split()[0]
            if stage == "generating" and word.isdigit():
                counts.append(int(word))
                if int(word) > 0:
                    seen.set()

        texts = await client.generate(HELLO, n=1, max_tokens=12, temperature=0.0, stop=[],
                                      ctx=JobContext(on_report=on_report))
        assert len(texts) == 1 and texts[0]

        ctx = JobContext(on_report=on_report)
        seen.clear()
        job = asyncio.create_task(client.generate(HELLO, n=1, max_tokens=3000,
                                                  temperature=0.0, stop=[], ctx=ctx))
        await asyncio.wait_for(seen.wait(), 60)
        ctx.cancel()
        with pytest.raises(Cancelled):
            await job
        # The server survives the dropped stream and answers the next request.
        again = await client.generate(HELLO, n=1, max_tokens=4, temperature=0.0, stop=[],
                                      ctx=JobContext())
        assert len(again) == 1
    finally:
        await client.close()


async def test_check_endpoint_against_the_pinned_server(served_model: tuple[str, str]) -> None:
    ok, message = await check_endpoint(role_for(served_model), None)
    assert ok, message
    ok, message = await check_endpoint(role_for(served_model, model="some-other-model"), None)
    assert not ok
    assert "does not serve the model 'some-other-model'" in message
    assert served_model[1] in message  # the server's error or its model list names the pin


async def test_model_optimizer_through_the_remote_stack(served_model: tuple[str, str]) -> None:
    unit = "int twice(int x) {\n    return x + x;\n}\n"
    site = function_by_name(unit, "cpp", "twice")
    role = role_for(served_model, samples=2, temperature=0.7, max_tokens=24)
    client = make_client(role, {})
    try:
        optimizer = ModelOptimizer(role, client)
        result = await optimizer.optimize(site, Plan((), "builtin"), JobContext())
    finally:
        await client.close()
    # A random model writes no valid function: both samples are rejected, each with a reason.
    assert len(result.candidates) + len(result.rejected) == 2
    assert all(r.reason and r.backend == "remote" for r in result.rejected)
    assert {r.sample for r in result.rejected} | {c.sample for c in result.candidates} == {0, 1}
