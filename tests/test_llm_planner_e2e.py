"""The model planner through a real generation: a tiny model fine-tuned in the test to answer
the planner prompt for one function with a fixed plan and a fixed rewrite."""

from __future__ import annotations

from pathlib import Path

import pytest

from optional_support import needs
from perfpilot.code.locate import function_by_name
from perfpilot.code.site import FunctionSite
from perfpilot.llm.factory import make_client
from perfpilot.llm.local import LocalWorkerRegistry
from perfpilot.planning.llm_planner import ModelPlanner
from perfpilot.progress import JobContext
from perfpilot.prompting.context import unit_context
from perfpilot.prompting.prompts import planner_messages
from perfpilot.settings import RoleSettings
from test_llm_tiny_models import build_tiny_model, finetune_to_emit

pytestmark = needs("torch", "transformers")

UNIT = """#include <vector>
#include <cstddef>

long sum(const std::vector<int>& v) {
    long s = 0;
    for (std::size_t i = 0; i < v.size(); ++i) s += v[i];
    return s;
}
"""

ANSWER = """[SUGG/]
- **Loop Efficiency Techniques**: read the size once before the loop (line 6)
- **Multithreading and Concurrency**: iterations are independent; use an OpenMP reduction
[/SUGG]
[OPT/]
```cpp
long sum(const std::vector<int>& v) {
    long s = 0;
    const std::size_t n = v.size();
#pragma omp parallel for reduction(+:s)
    for (std::size_t i = 0; i < n; ++i) s += v[i];
    return s;
}
```
[/OPT]"""

CONTEXT_TOKENS = 300


def the_site() -> FunctionSite:
    return function_by_name(UNIT, "cpp", "sum", uri="file:///sum.cpp")


@pytest.fixture(scope="module")
def trained_planner_model(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from transformers import AutoTokenizer

    site = the_site()
    messages = planner_messages(site, unit_context(site, CONTEXT_TOKENS))
    everything = "\n".join(m["content"] for m in messages) + ANSWER
    directory = build_tiny_model(tmp_path_factory.mktemp("planner") / "m",
                                 extra_text=everything)
    tok = AutoTokenizer.from_pretrained(directory, local_files_only=True)
    prompt = tok.apply_chat_template([dict(m) for m in messages], tokenize=False,
                                     add_generation_prompt=True)
    loss = finetune_to_emit(directory, prompt, ANSWER, steps=300, lr=1e-2)
    assert loss < 0.05, f"the tiny model did not learn the answer (loss {loss:.3f})"
    return directory


async def test_planner_plans_and_writes_code_then_plan_only_stops_at_sugg(
        trained_planner_model: Path) -> None:
    role = RoleSettings(backend="local", model=str(trained_planner_model), max_tokens=400,
                        temperature=0.0, timeout_s=120.0)
    registry = LocalWorkerRegistry()
    try:
        client = make_client(role, {}, registry)
        planner = ModelPlanner(role, client, context_tokens=CONTEXT_TOKENS)
        stages: list[str] = []
        site = the_site()
        plan = await planner.plan(site, JobContext(on_report=lambda s, m, p: stages.append(s)))
        assert [s.category.id for s in plan.strategies] == [4, 6], plan.raw_text
        assert plan.strategies[0].lines == (6,)
        assert (plan.backend, plan.model) == ("local", str(trained_planner_model))
        assert "planning" in stages and "generating" in stages
        code = planner.last_code_for(site)
        assert code is not None and not code.rejected
        (candidate,) = code.candidates
        assert candidate.code.startswith("long sum(const std::vector<int>& v)")
        assert candidate.needs_openmp and candidate.backend == "local"

        # The same plan again comes from the cache: no generation this time.
        stages.clear()
        again = await planner.plan(site, JobContext(on_report=lambda s, m, p: stages.append(s)))
        assert again == plan and "generating" not in stages

        # Plan-only mode shares the warm worker and stops the generation at [/SUGG].
        plan_only = ModelPlanner(role, make_client(role, {}, registry), plan_only=True,
                                 context_tokens=CONTEXT_TOKENS)
        short = await plan_only.plan(site, JobContext())
        assert [s.category.id for s in short.strategies] == [4, 6]
        assert "[OPT/]" not in short.raw_text and "long sum" not in short.raw_text
        assert plan_only.last_code_for(site) is None
        assert len(registry.workers) == 1 and registry.workers[0].starts == 1
    finally:
        await registry.close()


def test_plan_command_asks_for_the_plan_alone(trained_planner_model: Path,
                                              tmp_path: Path) -> None:
    """``perfpilot plan`` never shows code, so the planner stops at [/SUGG] even when it
    would write code for the (builtin) optimizer in ``optimize``."""
    import json
    import subprocess
    import sys

    (tmp_path / "sum.cpp").write_text(UNIT)
    proc = subprocess.run(
        [sys.executable, "-m", "perfpilot", "plan", str(tmp_path / "sum.cpp"), "-f", "sum",
         "--planner", "local", "--planner-model", str(trained_planner_model), "--json"],
        capture_output=True, text=True, cwd=tmp_path, timeout=300)
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    assert [s["category_id"] for s in data["strategies"]] == [4, 6]
    assert data["backend"] == "local" and "[SUGG/]" in data["raw_text"]
    assert "[OPT/]" not in data["raw_text"] and "long sum" not in data["raw_text"]


def test_the_worker_stops_generating_at_the_stop_string(trained_planner_model: Path) -> None:
    import io

    from transformers import AutoTokenizer

    from perfpilot.llm.local_worker import Worker, _Output

    site = the_site()
    messages = [dict(m) for m in planner_messages(site, unit_context(site, CONTEXT_TOKENS))]
    worker = Worker(_Output(io.StringIO()))
    assert worker.load({"model": str(trained_planner_model), "device": "cpu", "dtype": "auto",
                        "threads": 1})
    req = {"id": 1, "messages": messages, "n": 1, "max_tokens": 400, "temperature": 0.0}
    full, full_tokens = worker._generate({**req, "stop": []})
    short, tokens = worker._generate({**req, "stop": ["[/SUGG]"]})
    assert "[OPT/]" in full[0] and "[OPT/]" not in short[0]
    tok = AutoTokenizer.from_pretrained(trained_planner_model, local_files_only=True)
    plan_tokens = len(tok(ANSWER[:ANSWER.index("[/SUGG]") + len("[/SUGG]")],
                          add_special_tokens=False)["input_ids"])
    assert tokens <= plan_tokens + 2 < full_tokens
