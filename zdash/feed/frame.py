"""The one thing the dashboard consumes: a Feed yields Frames. Live and replay differ only in
what the frame says about its origin (mode, position, recording) and in which controls work,
so every widget renders both through the same path.

No Textual here: the feeds are plain asyncio and are tested without an app.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass
from typing import Literal

from zdash.feed.timeline import Timeline
from zdash.fold import frame as fold
from zdash.sources.remote import RemoteRunner

# Where a frame comes from: the live host, a recording, or the bundled demo (a recording too).
FrameMode = Literal["live", "replay", "demo"]


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
class Frame(fold.Frame):
    """One redraw's worth of input: the fold's frame (zdash.fold.frame: snapshot, findings,
    series, scan rates, outliers) and where it comes from. eq=False: compared by identity, so
    reactives and "did it change?" checks never deep-compare a large pool tree."""

    mode: FrameMode = "live"
    source: str = ""  # host name (live) or file name (replay)
    position: Position | None = None  # replay only
    recording: str | None = None  # live only: the session file being written
    flight: str | None = None  # live only: the flight recorder's state, when it has one to say
    description: str | None = None  # the recording's "what to look for", when it has one

    @classmethod
    def of(
        cls,
        folded: fold.Frame,
        mode: FrameMode,
        source: str,
        *,
        position: Position | None = None,
        recording: str | None = None,
        flight: str | None = None,
        description: str | None = None,
    ) -> Frame:
        return cls(
            folded.snapshot,
            folded.findings,
            folded.series,
            folded.scan_rates,
            folded.outliers,
            mode=mode,
            source=source,
            position=position,
            recording=recording,
            flight=flight,
            description=description,
        )


class Feed:
    """Base class: everything the UI reads of a feed, with the defaults of a feed that cannot be
    controlled or recorded. `frames()` is consumed by exactly one long-lived worker; the control
    methods are called from the UI (same event loop) and take effect on the next frame."""

    mode: FrameMode = "live"
    can_control: bool = False  # pause / step / seek / speed
    can_record: bool = False  # tee the raw ticks into a session file
    interval: float = 1.0  # seconds between frames when all is well (the silence banner's yardstick)
    # The other hosts it reads over ssh (zdash.feed.fleet); empty: this host or a recording.
    # A guided action for one of their pools runs on that host (runner_for).
    hosts: tuple[str, ...] = ()

    def frames(self) -> AsyncIterator[Frame]:
        """The frames: subclasses implement it as an async generator."""
        raise NotImplementedError

    def runner_for(self, host: str) -> RemoteRunner | None:
        """The runner (one ssh connection) of one of `hosts`; None: not one of them."""
        return None

    @property
    def recording(self) -> str | None:
        """The session file being written (live feeds that can record)."""
        return None

    @property
    def times(self) -> Sequence[float]:
        """Epoch s of every snapshot (a replay; empty before it has loaded and when live)."""
        return ()

    async def timelines(self) -> AsyncIterator[Timeline]:
        """The recording's events (zdash.feed.timeline), growing until complete; consumed by one
        worker of its own, apart from the frames, so finding them never holds up playback. A
        live feed has none."""
        none: tuple[Timeline, ...] = ()
        for timeline in none:
            yield timeline

    def take_notice(self) -> str | None:
        """One line for the viewer (a failed recording), handed out once."""
        return None

    # Replay controls: no-ops by default, so the UI never branches on the feed's type.
    def toggle_pause(self) -> None: ...
    def step(self, n: int) -> None: ...
    def seek_time(self, t: float) -> None: ...
    def seek_index(self, i: int) -> None: ...
    def jump(self, i: int) -> None:
        """To tick i, paused (the next/previous event: the viewer wants to look at it)."""

    def change_speed(self, direction: int) -> None: ...
    def toggle_recording(self, path: str) -> None: ...
