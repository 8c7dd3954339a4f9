"""The live feed: raw ticks from the host, folded (zdash.fold: the snapshot, then the checks,
which keep their memory between ticks) in a worker thread so the UI thread never parses, and
optionally teed into a recording (`r` in the dashboard)."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncGenerator, AsyncIterator, Awaitable, Callable
from typing import Protocol

from zdash.checks.finding import Finding
from zdash.config import CheckConfig
from zdash.feed.flight import FlightRecorder
from zdash.feed.frame import Feed, Frame
from zdash.fold import Fold
from zdash.fold import frame as fold
from zdash.model import Snapshot
from zdash.raw import RawSample, Tick
from zdash.sources.session import SessionWriter
from zdash.sources.store import SUFFIX, StoreError, StoreWriter


class TickSource(Protocol):
    """What the live feed reads: zdash.sources.live.LiveSource, or a fake in tests."""

    @property
    def host(self) -> str | None: ...

    def ticks(self) -> AsyncIterator[Tick]: ...


def named_leaves(findings: tuple[Finding, ...]) -> set[tuple[str, str]]:
    """(pool, leaf) of every finding about a leaf that is more than information: the leaves
    whose SMART, latency histograms and kernel log are fetched while it stands."""
    return {(f.pool, f.subject) for f in findings if f.subject_kind == "leaf" and f.pool and f.severity >= 1}


def want_evidence(source: object, snap: Snapshot, findings: tuple[Finding, ...]) -> None:
    """Tell a live source (in the event loop's thread, where it runs) which leaves to fetch
    evidence for; a source without evidence (a test's fake) is left alone."""
    want = getattr(source, "want_evidence", None)
    if want is not None:
        want(snap, named_leaves(findings))


class LiveFeed(Feed):
    can_record = True

    def __init__(
        self,
        cfg: CheckConfig,
        interval: float = 1.0,
        pools: tuple[str, ...] = (),
        source_factory: Callable[[], TickSource] | None = None,
        flight: FlightRecorder | None = None,
    ) -> None:
        self.cfg = cfg
        self.flight = flight  # the flight recorder (zdash.feed.flight): None when off
        self.interval, self.pools = interval, pools
        self._factory = source_factory or self._live_source
        self._want: str | None = None  # the file the viewer asked to record to
        self._writer: SessionWriter | StoreWriter | None = None
        self._writing: str | None = None
        self._written = 0
        self._last_raw: dict[str, RawSample] = {}
        self.host: str | None = None
        self._notice: str | None = None  # set in the fold thread, taken by the UI

    def _live_source(self) -> TickSource:
        from zdash.sources.live import LiveSource

        return LiveSource(self.interval, self.pools)

    async def frames(self) -> AsyncIterator[Frame]:
        source = self._factory()
        self.host = source.host
        folding = Fold.from_source(source, self.cfg, self.interval, history=True)
        gen = source.ticks()
        try:
            async for tick in gen:
                folded = await asyncio.to_thread(self._fold, folding, tick)
                want_evidence(source, folded.snapshot, folded.findings)
                yield Frame.of(
                    folded,
                    "live",
                    self.host or "localhost",
                    recording=self._writing,
                    flight=self.flight.status if self.flight is not None else None,
                )
        finally:
            # Together, each bounded: the source's zpool children, the recording and the
            # incident file close at once (one after another they added up on a sick pool)
            closing: list[Awaitable[object]] = [asyncio.to_thread(self._sync_writer, None)]
            if isinstance(gen, AsyncGenerator):
                closing.append(gen.aclose())
            if self.flight is not None:
                closing.append(asyncio.to_thread(self.flight.close))
            await asyncio.gather(*closing)

    def _fold(self, folding: Fold, tick: Tick) -> fold.Frame:
        opened = self._sync_writer(self._want)
        if self._writer is not None:
            self._record(self._keyframe(tick) if opened else tick, folding)
        for s in tick.samples:
            self._last_raw[s.key] = s
        folded = folding.timed(self._writer, tick)  # timed: what a seek in this file will cost
        if self.flight is not None:
            self.flight.observe(tick, folded.findings, self.host)
        return folded

    def _record(self, tick: Tick, folding: Fold) -> None:
        """Write one tick; a failed write (a full disk) stops the recording with a message and
        keeps what was written, never retries into the same file."""
        assert self._writer is not None
        try:
            if isinstance(self._writer, StoreWriter):
                due = self._writer.keyframes.due()
                self._writer.write(tick, folding.keyframe(self._writer) if due else None)
            else:
                self._writer.write(tick)
            self._written += 1
        except OSError as e:
            path = self._writing
            self._want = None
            self._sync_writer(None)
            self._notice = (
                f"recording stopped: {e.strerror or e}; {path} keeps the {self._written} ticks written"
            )

    def _sync_writer(self, want: str | None) -> bool:
        """Open or close the recording in the fold thread, so a write never races a close.
        True when a recording has just been opened."""
        if want == self._writing:
            return False
        if self._writer is not None:
            with contextlib.suppress(OSError):
                self._writer.close()
            self._writer = self._writing = None
        if want is None:
            return False
        try:
            if want.endswith(SUFFIX):
                self._writer = StoreWriter(want, self.host, self.interval, "recorded from the dashboard")
            else:
                self._writer = SessionWriter(want, self.host, self.interval, "recorded from the dashboard")
        except (OSError, StoreError) as e:
            self._want, self._notice = None, f"cannot record to {want}: {getattr(e, 'strerror', None) or e}"
            return False
        self._writing, self._written = want, 0
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
        if notice is None and self.flight is not None:
            return self.flight.take_notice()
        return notice
