"""The history window checks and charts look back on: the same for live (a ring trimmed by age
and count as snapshots arrive) and replay (the window a live run would have had at an index),
so both give the checks the same input."""

from __future__ import annotations

import collections
from collections.abc import Sequence

from zdash.model import Snapshot

# Bounded so a wall display runs for weeks in flat memory; long enough for the checks' windows
# (scan rate 60 s, fill trend, deranged lookback).
HISTORY_SECONDS = 600.0
HISTORY_MAX = 900


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
