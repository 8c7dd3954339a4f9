"""The one thing the dashboard consumes: a Feed yields Frames. Live and replay differ only in
what the frame says about its origin (mode, position, recording) and in which controls work,
so every widget renders both through the same path.

No Textual here: the feeds are plain asyncio and are tested without an app.
"""

from __future__ import annotations

import collections
from collections.abc import AsyncIterator, Callable, Sequence
from dataclasses import dataclass

from zdash.checks.finding import Finding
from zdash.model import Snapshot

# What checks and charts look back on. Bounded so a wall display runs for weeks in flat memory;
# long enough for the checks' windows (scan rate 60 s, fill trend, deranged lookback).
HISTORY_SECONDS = 600.0
HISTORY_MAX = 900

CheckFn = Callable[[Sequence[Snapshot]], list[Finding]]


@dataclass(frozen=True, slots=True)
class Position:
    """Where a replay stands: the replay bar and status bar draw from this alone."""

    index: int
    count: int
    start: float  # epoch s of the first and last snapshot: the recording's span
    end: float
    time: float  # epoch s of the snapshot shown
    playing: bool
    speed: float
    looping: bool = False

    @property
    def fraction(self) -> float:
        return 0.0 if self.end <= self.start else (self.time - self.start) / (self.end - self.start)

    @property
    def at_end(self) -> bool:
        return self.index >= self.count - 1


@dataclass(frozen=True, slots=True, eq=False)
class Frame:
    """One redraw's worth of input. eq=False: compared by identity, so reactives and
    "did it change?" checks never deep-compare a large pool tree."""

    snapshot: Snapshot
    findings: tuple[Finding, ...]
    history: tuple[Snapshot, ...]  # oldest first, ends with `snapshot`
    mode: str  # "live" | "replay" | "demo"
    source: str  # host name (live) or file name (replay)
    position: Position | None = None  # replay only
    recording: str | None = None  # live only: the session file being written
    description: str | None = None  # the recording's "what to look for", when it has one

    @property
    def time(self) -> float:
        return self.snapshot.time


class Feed:
    """Base class. `frames()` is consumed by exactly one long-lived worker; the control methods
    are called from the UI (same event loop) and take effect on the next frame."""

    mode = "live"
    can_control = False  # pause / step / seek / speed
    can_record = False  # tee the raw ticks into a session file

    async def frames(self) -> AsyncIterator[Frame]:  # pragma: no cover - interface
        raise NotImplementedError
        yield

    # Replay controls: no-ops by default, so the UI never branches on the feed's type.
    def toggle_pause(self) -> None: ...
    def step(self, n: int) -> None: ...
    def seek_time(self, t: float) -> None: ...
    def seek_index(self, i: int) -> None: ...
    def change_speed(self, direction: int) -> None: ...
    def toggle_recording(self, path: str) -> None: ...


class History:
    """Recent snapshots, trimmed by age and count."""

    def __init__(self, seconds: float = HISTORY_SECONDS, limit: int = HISTORY_MAX) -> None:
        self.seconds = seconds
        self._ring: collections.deque[Snapshot] = collections.deque(maxlen=limit)

    def add(self, snap: Snapshot) -> tuple[Snapshot, ...]:
        self._ring.append(snap)
        while self._ring and snap.time - self._ring[0].time > self.seconds:
            self._ring.popleft()
        return tuple(self._ring)


def window(
    snaps: Sequence[Snapshot], index: int, seconds: float = HISTORY_SECONDS, limit: int = HISTORY_MAX
) -> tuple[Snapshot, ...]:
    """The history a live run would have had at `index`: replay gives checks the same input."""
    lo = max(0, index - limit + 1)
    t = snaps[index].time
    while lo < index and t - snaps[lo].time > seconds:
        lo += 1
    return tuple(snaps[lo : index + 1])
