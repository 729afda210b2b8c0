"""The model optimizer and planner over a canned loopback endpoint: checking, de-duplication,
rejection reasons, caching, the follow-the-plan vs direct prompt, and plan-only requests."""

from __future__ import annotations

from perfpilot.code.locate import function_by_name
from perfpilot.llm.remote import RemoteClient
from perfpilot.optimizing.llm_optimizer import ModelOptimizer
from perfpilot.planning.llm_planner import ModelPlanner
from perfpilot.progress import JobContext
from perfpilot.settings import RoleSettings
from perfpilot.strategy.categories import category_by_id
from perfpilot.strategy.values import Plan, Strategy
from test_llm_remote_faults import FaultyEndpoint, Stream

UNIT = """#include <vector>
double mean(std::vector<double> v) {
    double s = 0;
    for (std::size_t i = 0; i < v.size(); ++i) s += v[i];
    return s / v.size();
}
"""
GOOD = """double mean(const std::vector<double>& v) {
    double s = 0;
    for (double x : v) s += x;
    return s / v.size();
}
"""
PLAN = Plan((Strategy(category_by_id(3), "pass the vector by const reference", (2,)),),
            "builtin")


def role(url: str, **kw: object) -> RoleSettings:
    fields: dict[str, object] = {"backend": "remote", "endpoint": url, "model": "m",
                                 "samples": 3, "temperature": 0.7, "max_tokens": 64}
    fields.update(kw)
    return RoleSettings(**fields)  # type: ignore[arg-type]


async def test_samples_are_checked_deduplicated_and_cached() -> None:
    site = function_by_name(UNIT, "cpp", "mean")
    answers = (Stream(f"[OPT/]\n```cpp\n{GOOD}```\n[/OPT]"),
               Stream(f"Here you go:\n```cpp\n{GOOD}```"),
               Stream("```cpp\nint main() { return 0; }\n```"))
    async with FaultyEndpoint(*answers) as ep:
        r = role(ep.url)
        client = RemoteClient(r, None, backoff_s=0.01)
        try:
            optimizer = ModelOptimizer(r, client)
            result = await optimizer.optimize(site, PLAN, JobContext())
            again = await optimizer.optimize(site, PLAN, JobContext())
        finally:
            await client.close()
    assert len(ep.requests) == 3  # the second call came from the cache
    assert again == result
    (candidate,) = result.candidates
    assert candidate.code == GOOD and candidate.strategies == PLAN.strategies
    reasons = sorted(x.reason for x in result.rejected)
    assert len(reasons) == 2
    assert any(x.startswith("same code as sample") for x in reasons)
    assert any(x == "extraction failed: one fenced block, which does not define `mean`; it "
               "defines `main`" for x in reasons)
    prompt = ep.requests[0]["json"]["messages"][1]["content"]
    assert "**Memory Usage and Allocation**: pass the vector by const reference" in prompt


async def test_empty_plan_uses_the_direct_prompt() -> None:
    site = function_by_name(UNIT, "cpp", "mean")
    async with FaultyEndpoint(Stream(f"```cpp\n{GOOD}```")) as ep:
        r = role(ep.url, samples=1, temperature=0.0)
        client = RemoteClient(r, None)
        try:
            result = await ModelOptimizer(r, client).optimize(site, Plan((), "builtin"),
                                                              JobContext())
        finally:
            await client.close()
    assert len(result.candidates) == 1
    prompt = ep.requests[0]["json"]["messages"][1]["content"]
    assert prompt.startswith("Make this C++ function faster.") and "The plan:" not in prompt


async def test_plan_only_planner_sends_the_stop_and_keeps_no_code() -> None:
    site = function_by_name(UNIT, "cpp", "mean")
    text = ("[SUGG/]\n- **Memory Usage and Allocation**: avoid the copy (line 2)\n"
            "[/SUGG]\n[OPT/]\n```cpp\n" + GOOD + "```\n[/OPT]")
    async with FaultyEndpoint(Stream(text)) as ep:
        r = role(ep.url, samples=1, temperature=0.0)
        client = RemoteClient(r, None)
        try:
            planner = ModelPlanner(r, client, plan_only=True)
            plan = await planner.plan(site, JobContext())
        finally:
            await client.close()
    assert ep.requests[0]["json"]["stop"] == ["[/SUGG]"]
    assert [s.category.id for s in plan.strategies] == [3] and plan.strategies[0].lines == (2,)
    assert plan.backend == "remote" and plan.model == "m"
    assert plan.notes == () and planner.last_code_for(site) is None
