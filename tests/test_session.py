"""The engine session: a cancelled job that does not stop is still reported as ended."""

from __future__ import annotations

import asyncio

from perfpilot.code.locate import function_by_name
from perfpilot.engine.engine import Engine
from perfpilot.engine.session import Job, Session
from perfpilot.progress import JobContext


class StuckEngineStandIn(Engine):
    """An engine whose optimize ignores cancellation (as a wedged subprocess would) until
    ``release`` is set."""

    release = False

    async def optimize(self, site, ctx: JobContext, **kwargs):  # type: ignore[no-untyped-def,override]
        while not self.release:
            try:
                await asyncio.sleep(0.05)
            except asyncio.CancelledError:
                continue
        raise asyncio.CancelledError


async def test_a_job_that_ignores_cancel_is_reported_cancelled_after_the_grace() -> None:
    site = function_by_name("int f(int x) { return x; }\n", "cpp", "f", uri="file:///a.cpp")
    engine = StuckEngineStandIn()
    session = Session(engine, cancel_grace_s=0.2)
    ended: list[Job] = []
    session.on_done = ended.append
    job = session.start("optimize", site)
    await asyncio.sleep(0.05)
    assert session.cancel(job.id)
    await asyncio.sleep(0.5)
    assert [j.id for j in ended] == [job.id]
    assert job.stage == "cancelled" and job.done
    assert session.running(site.uri) == []
    engine.release = True
    assert job.task is not None
    await asyncio.wait_for(asyncio.shield(job.task), 2)
    assert [j.id for j in ended] == [job.id]  # still reported once


async def test_a_normal_cancel_is_reported_once() -> None:
    site = function_by_name("int f(int x) { return x; }\n", "cpp", "f", uri="file:///a.cpp")

    class SlowStandIn(Engine):
        async def optimize(self, site, ctx: JobContext, **kwargs):  # type: ignore[no-untyped-def,override]
            await asyncio.sleep(3600)

    session = Session(SlowStandIn(), cancel_grace_s=0.2)
    ended: list[Job] = []
    session.on_done = ended.append
    job = session.start("optimize", site)
    await asyncio.sleep(0.05)
    session.cancel(job.id)
    await asyncio.sleep(0.5)
    assert [j.stage for j in ended] == ["cancelled"]


async def test_a_job_cancelled_before_it_ever_ran_is_reported_at_once() -> None:
    # Cancelling a task that has not started skips its body (and its own reporting): a second
    # start for the same function, or a Cancel right after Make this faster, does exactly that.
    site = function_by_name("int f(int x) { return x; }\n", "cpp", "f", uri="file:///a.cpp")

    class SlowStandIn(Engine):
        async def optimize(self, site, ctx: JobContext, **kwargs):  # type: ignore[no-untyped-def,override]
            await asyncio.sleep(3600)

    session = Session(SlowStandIn(), cancel_grace_s=30.0)
    ended: list[Job] = []
    session.on_done = ended.append
    first = session.start("optimize", site)
    second = session.start("optimize", site)  # cancels the first before it ran
    await asyncio.sleep(0.1)
    assert [(j.id, j.stage) for j in ended] == [(first.id, "cancelled")]
    assert first.done and not first.given_up
    assert [j.id for j in session.running(site.uri)] == [second.id]
    session.cancel(second.id)
    await asyncio.sleep(0.1)
    assert [j.id for j in ended] == [first.id, second.id]
