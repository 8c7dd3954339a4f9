"""A Clock for tests: time moves only when the test advances it, so a replay that plays, the
silence banner and the wall's pool cycle happen exactly when the test says, however busy the
machine is."""

from __future__ import annotations

import asyncio
import heapq
import itertools


class ManualClock:
    def __init__(self, start: float = 0.0) -> None:
        self._now = start
        self._sleepers: list[tuple[float, int, asyncio.Future[None]]] = []
        self._order = itertools.count()
        self._asleep = asyncio.Event()

    def now(self) -> float:
        return self._now

    async def sleep(self, seconds: float) -> None:
        fut: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        heapq.heappush(self._sleepers, (self._now + max(seconds, 0.0), next(self._order), fut))
        self._asleep.set()
        try:
            await fut
        finally:
            if not fut.done():
                fut.cancel()  # cancelled while asleep: forget it
            self._prune()

    def advance(self, seconds: float) -> None:
        """Move time on, waking every sleeper whose time has come (in deadline order)."""
        self._now += seconds
        while self._sleepers and self._sleepers[0][0] <= self._now:
            _, _, fut = heapq.heappop(self._sleepers)
            if not fut.done():
                fut.set_result(None)
        self._prune()

    @property
    def waiting(self) -> int:
        """How many sleep on this clock now."""
        return sum(not s[2].done() for s in self._sleepers)

    async def sleeping(self, timeout: float = 10.0) -> None:
        """Return once something sleeps on this clock (bounded: a test never hangs)."""
        await asyncio.wait_for(self._asleep.wait(), timeout)

    async def step(self, timeout: float = 10.0) -> float:
        """Wait until something sleeps on this clock, then advance to the earliest deadline;
        returns how far time moved."""
        await self.sleeping(timeout)
        dt = max(self._sleepers[0][0] - self._now, 0.0)
        self.advance(dt)
        return dt

    def _prune(self) -> None:
        self._sleepers = [s for s in self._sleepers if not s[2].done()]
        heapq.heapify(self._sleepers)
        if not self._sleepers:
            self._asleep.clear()
