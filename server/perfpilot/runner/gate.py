"""Scheduling measurements: builds may overlap one another, timing runs alone.

Timing needs quiet cores, so while one candidate is timed no build, validation or other timing
of ours runs; builds and validations of several candidates may run side by side. A timing run
that is waiting holds back new builds, so it is never starved.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager


class MeasureGate:
    """A shared/exclusive gate: ``building()`` is shared, ``timing()`` is exclusive."""

    def __init__(self) -> None:
        self._cond = asyncio.Condition()
        self._builders = 0
        self._timing = False
        self._timers_waiting = 0

    @asynccontextmanager
    async def building(self) -> AsyncIterator[None]:
        """Hold the gate for a build or validation (shared with other builds)."""
        async with self._cond:
            await self._cond.wait_for(lambda: not self._timing and self._timers_waiting == 0)
            self._builders += 1
        try:
            yield
        finally:
            async with self._cond:
                self._builders -= 1
                self._cond.notify_all()

    @asynccontextmanager
    async def timing(self) -> AsyncIterator[None]:
        """Hold the gate alone, for timing or counting."""
        async with self._cond:
            self._timers_waiting += 1
            try:
                await self._cond.wait_for(lambda: not self._timing and self._builders == 0)
            finally:
                self._timers_waiting -= 1
            self._timing = True
        try:
            yield
        finally:
            async with self._cond:
                self._timing = False
                self._cond.notify_all()
