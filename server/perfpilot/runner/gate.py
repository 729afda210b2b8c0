"""Scheduling measurements: builds may overlap one another, timing runs alone.

Timing needs quiet cores, so while one candidate is timed no build, validation or other timing
of ours runs; builds and validations of several candidates may run side by side. A timing run
that is waiting holds back new builds, so it is never starved.

All state changes are plain synchronous updates on the event loop's thread: releasing the gate
never awaits, so a cancelled job cannot leave it held.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager


class MeasureGate:
    """A shared/exclusive gate: ``building()`` is shared, ``timing()`` is exclusive."""

    def __init__(self) -> None:
        self._builders = 0
        self._timing = False
        self._timers_waiting = 0
        self._changed: asyncio.Future[None] | None = None

    def _notify(self) -> None:
        fut, self._changed = self._changed, None
        if fut is not None and not fut.done():
            fut.set_result(None)

    async def _wait_until(self, ready: Callable[[], bool]) -> None:
        while not ready():
            if self._changed is None:
                self._changed = asyncio.get_running_loop().create_future()
            # Shielded: one waiter's cancellation must not cancel the future others wait on.
            await asyncio.shield(self._changed)

    @asynccontextmanager
    async def building(self) -> AsyncIterator[None]:
        """Hold the gate for a build or validation (shared with other builds)."""
        await self._wait_until(lambda: not self._timing and self._timers_waiting == 0)
        self._builders += 1
        try:
            yield
        finally:
            self._builders -= 1
            self._notify()

    @asynccontextmanager
    async def timing(self) -> AsyncIterator[None]:
        """Hold the gate alone, for timing."""
        self._timers_waiting += 1
        try:
            await self._wait_until(lambda: not self._timing and self._builders == 0)
        finally:
            self._timers_waiting -= 1
            self._notify()
        self._timing = True
        try:
            yield
        finally:
            self._timing = False
            self._notify()
