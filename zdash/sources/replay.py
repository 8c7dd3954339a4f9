"""The replay source: a session file read back through the same SnapshotBuilder live uses."""

from __future__ import annotations

from collections.abc import Iterator

from zdash.builder import SnapshotBuilder
from zdash.model import Snapshot
from zdash.sources.session import SessionHeader, read_session


def replay_snapshots(path: str) -> tuple[SessionHeader, Iterator[Snapshot]]:
    header, ticks = read_session(path)
    builder = SnapshotBuilder(header.interval or 1.0, header.host)
    return header, (builder.feed(t) for t in ticks)


def load_replay(path: str) -> tuple[SessionHeader, list[Snapshot]]:
    """All snapshots at once: seeking backwards needs them, and the fold cannot run backwards."""
    header, snaps = replay_snapshots(path)
    return header, list(snaps)
