"""Time as the feeds and the app see it. Everything that waits on the clock (the replay moving
to its next tick, the app's silence and wall-cycle timers, the live feed's restart backoff) goes
through a Clock, so a test can hand in one that moves only when the test says so and never
races the machine's load. Production uses REAL_CLOCK."""

from __future__ import annotations

import asyncio
import time
from typing import Protocol


class Clock(Protocol):
    def now(self) -> float:
        """Seconds on a monotonic scale (only differences mean anything)."""
        ...

    async def sleep(self, seconds: float) -> None: ...


class RealClock:
    """time.monotonic and asyncio.sleep."""

    def now(self) -> float:
        return time.monotonic()

    async def sleep(self, seconds: float) -> None:
        await asyncio.sleep(seconds)


REAL_CLOCK = RealClock()
