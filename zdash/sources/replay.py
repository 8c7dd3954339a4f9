"""The replay source: a recording (either format) read back through the same SnapshotBuilder
live uses."""

from __future__ import annotations

from collections.abc import Iterator

from zdash.builder import SnapshotBuilder
from zdash.model import Snapshot
from zdash.raw import Tick
from zdash.sources.recording import open_recording
from zdash.sources.session import SessionHeader, read_session
from zdash.sources.store import is_store


def replay_ticks(path: str) -> tuple[SessionHeader, Iterator[Tick]]:
    """The header now, the ticks lazily (format 1 is streamed, never loaded whole)."""
    if is_store(path):
        rec = open_recording(path)
        return rec.header, rec.ticks()
    return read_session(path)


def replay_snapshots(path: str) -> tuple[SessionHeader, Iterator[Snapshot]]:
    header, ticks = replay_ticks(path)
    builder = SnapshotBuilder(header.interval or 1.0, header.host)
    return header, (builder.feed(t) for t in ticks)


def load_replay(path: str) -> tuple[SessionHeader, list[Snapshot]]:
    """All snapshots at once (tests and short recordings; the replay feed folds on demand)."""
    header, snaps = replay_snapshots(path)
    return header, list(snaps)
