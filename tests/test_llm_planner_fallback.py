"""A model plan that is empty or unreadable gives way to the built-in plan (and says so); a
plan-only planner gets its own token budget; repetition ends a generation."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pytest

from perfpilot.code.locate import function_by_name
from perfpilot.llm.base import Message
from perfpilot.llm.stopping import repeating
from perfpilot.planning.llm_planner import ModelPlanner
from perfpilot.progress import JobContext
from perfpilot.settings import RoleSettings

SRC = """#include <string.h>
int count_upper(const char *s) {
    int n = 0;
    for (size_t i = 0; i < strlen(s); i++)
        if (s[i] >= 'A' && s[i] <= 'Z') n++;
    return n;
}
"""


class Answering:
    """A stand-in generator that answers with a fixed text and records what it was asked."""

    backend = "local"
    model = "m"

    def __init__(self, text: str) -> None:
        self.text = text
        self.calls: list[dict[str, Any]] = []

    async def generate(self, messages: Sequence[Message], *, n: int, max_tokens: int,
                       temperature: float, stop: Sequence[str], ctx: JobContext) -> list[str]:
        self.calls.append({"max_tokens": max_tokens, "stop": list(stop)})
        return [self.text]

    async def close(self) -> None:
        return None


@pytest.mark.parametrize("answer", ["", "I think the code is fine.\n```cpp\n{}\n```"])
async def test_unreadable_model_plan_falls_back_to_the_builtin_plan(answer: str) -> None:
    site = function_by_name(SRC, "c", "count_upper")
    role = RoleSettings(backend="local", model="m", max_tokens=1024, plan_max_tokens=200)
    client = Answering(answer)
    plan = await ModelPlanner(role, client, plan_only=True).plan(site, JobContext())
    assert plan.backend == "builtin" and plan.strategies, plan
    assert any(s.rule == "hoist-invariant-call" for s in plan.strategies)
    assert "built-in plan instead" in plan.notes[0] and "local:m" in plan.notes[0]
    assert plan.raw_text == answer and plan.model == "m"
    assert client.calls == [{"max_tokens": 200, "stop": ["[/SUGG]"]}]


async def test_a_planner_that_also_writes_code_keeps_the_full_budget() -> None:
    site = function_by_name(SRC, "c", "count_upper")
    role = RoleSettings(backend="local", model="m", max_tokens=1024, plan_max_tokens=200)
    client = Answering("[SUGG/]\n- **Loop Efficiency Techniques**: hoist strlen\n[/SUGG]\n")
    plan = await ModelPlanner(role, client).plan(site, JobContext())
    assert plan.backend == "local" and plan.strategies[0].category.id == 4
    assert client.calls == [{"max_tokens": 1024, "stop": []}]


def test_repetition_is_recognised_and_ordinary_text_is_not() -> None:
    assert repeating("plan:\n" + "- **Loop Efficiency Techniques**: hoist it\n" * 6)
    assert repeating("x" * 250)
    assert not repeating("ab" * 50)  # too short a span to call it a loop
    code = "\n".join(f"    a[{i}] = b[{i}] * {i};" for i in range(60))
    assert not repeating(code)


def test_the_stopping_criterion_ends_a_repeating_row_only() -> None:
    torch = pytest.importorskip("torch")
    pytest.importorskip("transformers")
    import threading

    from perfpilot.llm.local_worker import _make_criteria

    class Chars:
        """Token id = character code."""

        def decode(self, ids: Any, skip_special_tokens: bool = True) -> str:
            return "".join(chr(int(i)) for i in ids)

    looping = [ord(c) for c in "{}" + "- go on\n" * 40]
    fine = [ord(c) for c in "".join(f"line {i}\n" for i in range(60))][:len(looping)]
    prompt = [ord("p")] * 3
    ids = torch.tensor([prompt + looping, prompt + fine])
    criteria = _make_criteria(torch, threading.Event(), 3, lambda t: None, Chars(), ["[/SUGG]"])
    results = [criteria[0](ids, None).tolist() for _ in range(8)]
    assert results[-1] == [True, False]
    stopped = torch.tensor([prompt + [ord(c) for c in "plan [/SUGG] and"]])
    assert criteria[0](stopped, None).tolist() == [True]
