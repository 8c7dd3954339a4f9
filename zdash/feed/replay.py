"""Replay a session file: the whole recording is folded once (seeking backwards needs every
snapshot, and the fold cannot run backwards), then an index moves through it under the
viewer's control. Findings are computed per index over the same history window live would
have had, in a thread, and cached so stepping back and forth is instant."""

from __future__ import annotations

import asyncio
import bisect
import os
from collections.abc import AsyncIterator, Callable

from zdash.checks.finding import Finding
from zdash.feed.clock import REAL_CLOCK, Clock
from zdash.feed.frame import CheckFn, Feed, Frame, Position
from zdash.feed.history import window
from zdash.model import Snapshot
from zdash.sources.replay import load_replay
from zdash.sources.session import SessionHeader

SPEEDS = (0.25, 0.5, 1.0, 2.0, 4.0, 8.0, 16.0, 32.0, 64.0)
_CACHE = 128


class ReplayFeed(Feed):
    can_control = True

    def __init__(
        self,
        path: str,
        checks: CheckFn,
        *,
        speed: float = 1.0,
        loop: bool = False,
        demo: bool = False,
        start: int = 0,
        playing: bool = True,
        label: str | None = None,
        loader: Callable[[str], tuple[SessionHeader, list[Snapshot]]] = load_replay,
        clock: Clock = REAL_CLOCK,
    ) -> None:
        self.path, self._checks, self._loader, self._clock = path, checks, loader, clock
        self.label = label or os.path.basename(path)
        self.mode = "demo" if demo else "replay"
        self.speed = min(SPEEDS, key=lambda s: abs(s - speed))
        self.loop, self.playing, self._index = loop, playing, start
        self.header: SessionHeader | None = None
        self._snaps: list[Snapshot] = []
        self._times: list[float] = []
        self._cache: dict[int, tuple[tuple[Snapshot, ...], tuple[Finding, ...]]] = {}
        self._version = self._shown = 0
        self._wake: asyncio.Event | None = None

    async def frames(self) -> AsyncIterator[Frame]:
        self._wake = asyncio.Event()
        self.header, self._snaps = await asyncio.to_thread(self._loader, self.path)
        if not self._snaps:
            raise ValueError(f"{self.path} holds no complete tick")
        self._times = [s.time for s in self._snaps]
        self._index = min(max(self._index, 0), len(self._snaps) - 1)
        while True:
            yield await self._frame()
            await self._advance()

    async def _frame(self) -> Frame:
        self._shown = self._version
        i = self._index
        if i not in self._cache:
            hist = window(self._snaps, i)
            findings = tuple(await asyncio.to_thread(self._checks, hist))
            if len(self._cache) >= _CACHE:
                self._cache.pop(next(iter(self._cache)))
            self._cache[i] = (hist, findings)
        hist, findings = self._cache[i]
        pos = Position(
            i,
            len(self._snaps),
            self._times[0],
            self._times[-1],
            self._times[i],
            self.playing,
            self.speed,
            self.loop,
        )
        return Frame(
            self._snaps[i],
            findings,
            hist,
            self.mode,
            self.label,
            position=pos,
            description=self.header.description if self.header else None,
        )

    async def _advance(self) -> None:
        """Return when the index or the play state changed: by the clock or by a control."""
        assert self._wake is not None
        while self._version == self._shown:
            self._wake.clear()
            last = self._index >= len(self._snaps) - 1
            if self.playing and last and not self.loop:
                self.playing = False  # stop at the end; the frame shows it paused
                return
            if not self.playing:
                await self._wake.wait()
                continue
            dt = self._times[self._index + 1] - self._times[self._index] if not last else 1.0
            if await self._sleep_unless_woken(min(max(dt, 0.05), 10.0) / self.speed):
                self._index = 0 if last else self._index + 1
                return

    async def _sleep_unless_woken(self, seconds: float) -> bool:
        """Sleep on the clock; False when a control wakes the feed first (it wins a tie)."""
        assert self._wake is not None
        sleep = asyncio.ensure_future(self._clock.sleep(seconds))
        wake = asyncio.ensure_future(self._wake.wait())
        try:
            done, _ = await asyncio.wait((sleep, wake), return_when=asyncio.FIRST_COMPLETED)
        finally:
            sleep.cancel()
            wake.cancel()
        return wake not in done

    def _changed(self) -> None:
        self._version += 1
        if self._wake is not None:
            self._wake.set()

    # -- controls (called from the UI) -------------------------------------------------------
    def toggle_pause(self) -> None:
        if not self.playing and self._snaps and self._index >= len(self._snaps) - 1 and not self.loop:
            self._index = 0  # play at the end starts over, as players do
        self.playing = not self.playing
        self._changed()

    def step(self, n: int) -> None:
        """Stepping pauses: the viewer wants to look at one tick."""
        self.playing = False
        self.seek_index(self._index + n)

    def seek_index(self, i: int) -> None:
        if self._snaps:
            self._index = min(max(i, 0), len(self._snaps) - 1)
        self._changed()

    def seek_time(self, t: float) -> None:
        """The last snapshot at or before t (the first one when t is before the recording)."""
        self.seek_index(max(0, bisect.bisect_right(self._times, t) - 1))

    def change_speed(self, direction: int) -> None:
        i = SPEEDS.index(self.speed) + (1 if direction > 0 else -1)
        self.speed = SPEEDS[min(max(i, 0), len(SPEEDS) - 1)]
        self._changed()

    @property
    def times(self) -> list[float]:
        return self._times
