"""The measurement gate: builds overlap, timing runs alone and is not starved."""

from __future__ import annotations

import asyncio
import contextlib

from perfpilot.runner.gate import MeasureGate


async def test_builds_overlap_but_timing_excludes_everything() -> None:
    gate = MeasureGate()
    active: dict[str, int] = {"build": 0, "time": 0}
    seen: list[tuple[str, int, int]] = []

    async def work(kind: str, hold: float) -> None:
        ctx = gate.building() if kind == "build" else gate.timing()
        async with ctx:
            active[kind] += 1
            seen.append((kind, active["build"], active["time"]))
            await asyncio.sleep(hold)
            active[kind] -= 1

    await asyncio.gather(work("build", 0.05), work("build", 0.05), work("time", 0.02),
                         work("time", 0.02), work("build", 0.01))
    # Two builds were inside at once, and timing never shared the gate with anything.
    assert max(b for k, b, _ in seen if k == "build") >= 2
    assert all(b == 0 and t == 1 for k, b, t in seen if k == "time")


async def test_a_waiting_timer_holds_back_new_builds() -> None:
    gate = MeasureGate()
    order: list[str] = []
    release = asyncio.Event()

    async def first_build() -> None:
        async with gate.building():
            order.append("build-1")
            await release.wait()

    async def timer() -> None:
        async with gate.timing():
            order.append("time")

    async def late_build() -> None:
        async with gate.building():
            order.append("build-2")

    t1 = asyncio.create_task(first_build())
    await asyncio.sleep(0.01)
    t2 = asyncio.create_task(timer())
    await asyncio.sleep(0.01)
    t3 = asyncio.create_task(late_build())
    await asyncio.sleep(0.01)
    assert order == ["build-1"]  # the timer waits for build 1; build 2 waits for the timer
    release.set()
    await asyncio.gather(t1, t2, t3)
    assert order == ["build-1", "time", "build-2"]


async def test_cancelled_waiters_and_holders_never_leave_the_gate_held() -> None:
    gate = MeasureGate()
    hold = asyncio.Event()

    async def builder() -> None:
        async with gate.building():
            await hold.wait()

    async def timer() -> None:
        async with gate.timing():
            await asyncio.sleep(0)

    b = asyncio.create_task(builder())
    await asyncio.sleep(0.01)
    waiting = asyncio.create_task(timer())
    await asyncio.sleep(0.01)
    waiting.cancel()  # a timer cancelled while it waits
    b.cancel()  # a builder cancelled while it holds the gate
    for t in (waiting, b):
        with contextlib.suppress(asyncio.CancelledError):
            await t
    # Both are gone: a new timer gets the gate at once.
    await asyncio.wait_for(timer(), 1)
