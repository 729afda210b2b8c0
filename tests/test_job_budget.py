"""The job budget: a measurement stops when it runs out, naming the stage; waiting for the
measuring gate is not counted; a candidate after the budget is spent is not started."""

from __future__ import annotations

import asyncio

import pytest

from perfpilot.progress import JobContext
from perfpilot.runner.budget import BudgetSpent, JobBudget


async def test_a_block_past_the_budget_is_stopped_with_the_stage_it_was_in() -> None:
    budget = JobBudget(0.05)
    reports: list[str] = []
    ctx = budget.watching(JobContext(on_report=lambda s, m, p: reports.append(m)))
    with pytest.raises(BudgetSpent) as caught:
        async with budget.enforce():
            budget.enter("studying the original")
            ctx.report("validating", "checking that the inputs catch mutants", 15)
            await asyncio.sleep(30)
    message = str(caught.value)
    assert message.startswith("Stopped after 0.05 s while studying the original: checking "
                              "that the inputs catch mutants"), message
    assert "runner.jobBudgetS" in message
    assert reports == ["checking that the inputs catch mutants"]  # still reported upwards
    assert budget.spent
    assert "spent on the candidates before this one" in budget.not_started()


async def test_waiting_for_the_gate_is_not_counted() -> None:
    budget = JobBudget(0.2)
    async with budget.enforce():
        async with budget.paused():
            await asyncio.sleep(0.4)  # another job's timing: twice the budget, not counted
        assert not budget.spent
        await asyncio.sleep(0.01)
    assert budget.left() > 0


async def test_no_limit_never_stops_and_clips_nothing() -> None:
    budget = JobBudget(0)
    async with budget.enforce():
        await asyncio.sleep(0.01)
    assert not budget.limited and not budget.spent
    assert budget.clip(60.0) == 60.0


async def test_one_budget_is_shared_by_later_measurements() -> None:
    budget = JobBudget(0.05)
    with pytest.raises(BudgetSpent):
        async with budget.enforce():
            await asyncio.sleep(30)
    # A second candidate of the same job finds nothing left.
    with pytest.raises(BudgetSpent):
        async with budget.enforce():
            await asyncio.sleep(30)
    assert budget.clip(60.0, floor_s=0.5) == 0.5
