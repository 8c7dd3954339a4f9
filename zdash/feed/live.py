"""The live feed: raw ticks from the host, folded and checked in a worker thread (inputs are
immutable, so the UI thread never parses), optionally teed into a session file."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator, AsyncIterator, Callable
from typing import Protocol

from zdash.builder import SnapshotBuilder
from zdash.checks.finding import Finding
from zdash.feed.frame import CheckFn, Feed, Frame
from zdash.feed.history import History
from zdash.model import Snapshot
from zdash.raw import RawSample, Tick
from zdash.sources.session import SessionWriter


class TickSource(Protocol):
    """What the live feed reads: zdash.sources.live.LiveSource, or a fake in tests."""

    @property
    def host(self) -> str | None: ...

    def ticks(self) -> AsyncIterator[Tick]: ...


class LiveFeed(Feed):
    can_record = True

    def __init__(
        self,
        checks: CheckFn,
        interval: float = 1.0,
        pools: tuple[str, ...] = (),
        source_factory: Callable[[], TickSource] | None = None,
    ) -> None:
        self._checks, self.interval, self.pools = checks, interval, pools
        self._factory = source_factory or self._live_source
        self._history = History()
        self._want: str | None = None  # the file the viewer asked to record to
        self._writer: SessionWriter | None = None
        self._writing: str | None = None
        self._last_raw: dict[str, RawSample] = {}
        self.host: str | None = None
        self._notice: str | None = None  # set in the fold thread, taken by the UI

    def _live_source(self) -> TickSource:
        from zdash.sources.live import LiveSource

        return LiveSource(self.interval, self.pools)

    async def frames(self) -> AsyncIterator[Frame]:
        source = self._factory()
        self.host = source.host
        builder = SnapshotBuilder(self.interval, self.host)
        gen = source.ticks()
        try:
            async for tick in gen:
                snap, hist, findings = await asyncio.to_thread(self._fold, builder, tick)
                yield Frame(snap, findings, hist, "live", self.host or "localhost", recording=self._writing)
        finally:
            if isinstance(gen, AsyncGenerator):
                await gen.aclose()
            await asyncio.to_thread(self._sync_writer, None)

    def _fold(
        self, builder: SnapshotBuilder, tick: Tick
    ) -> tuple[Snapshot, tuple[Snapshot, ...], tuple[Finding, ...]]:
        if self._sync_writer(self._want) and self._writer is not None:
            self._writer.write(self._keyframe(tick))
        elif self._writer is not None:
            self._writer.write(tick)
        for s in tick.samples:
            self._last_raw[s.key] = s
        snap = builder.feed(tick)
        hist = self._history.add(snap)
        return snap, hist, tuple(self._checks(hist))

    def _sync_writer(self, want: str | None) -> bool:
        """Open or close the recording in the fold thread, so a write never races a close.
        True when a recording has just been opened."""
        if want == self._writing:
            return False
        if self._writer is not None:
            self._writer.close()
            self._writer = self._writing = None
        if want is None:
            return False
        try:
            self._writer = SessionWriter(want, self.host, self.interval, "recorded from the dashboard")
        except OSError as e:
            self._want, self._notice = None, f"cannot record to {want}: {e.strerror or e}"
            return False
        self._writing = want
        return True

    def _keyframe(self, tick: Tick) -> Tick:
        """Slow commands run every few seconds to minutes: a recording started now gets their
        last good output first, so its replay has pools and datasets from the first tick."""
        fresh = {s.key for s in tick.samples}
        old = tuple(s for k, s in sorted(self._last_raw.items()) if k not in fresh and s.ok)
        return Tick(tick.time, old + tick.samples)

    def toggle_recording(self, path: str) -> None:
        self._want = None if self._want else path

    @property
    def recording(self) -> str | None:
        return self._want

    def take_notice(self) -> str | None:
        notice, self._notice = self._notice, None
        return notice
