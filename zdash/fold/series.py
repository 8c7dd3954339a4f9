"""The recent past the charts draw: per pool and vdev, the few numbers a chart shows (read and
write bytes/s, read and write disk wait, %UTIL) as fixed rings of 32-bit floats beside one ring
of times, never a list of full snapshots.

Why: a wall display runs for weeks and a 1,000-disk pool is 1,100 vdevs; ten minutes of full
snapshots held ~650 MB, these rings hold ~13 MB for the same window and cost one append per
vdev per tick. The checks keep their own memory (zdash.checks.tracker); this is for drawing.
NaN marks "no value" (no I/O of that kind, no kernel disk): a gap on a chart, not a zero.
"""

from __future__ import annotations

import math
import threading
from array import array
from collections import deque

from zdash.model import DiskIo, IoStats, Pool, Snapshot

# Long enough for the checks' windows and the chart; bounded so memory stays flat.
HISTORY_SECONDS = 600.0
HISTORY_MAX = 600
METRICS = ("read_bytes", "write_bytes", "read_wait_ns", "write_wait_ns", "util_pct")
NAN = math.nan


def pool_key(pool: Pool) -> str:
    """The key of a pool's own row (its root vdev has the pool's GUID, not a stable name)."""
    return f"pool:{pool.name}"


def _values(io: IoStats | None, disk: DiskIo | None) -> tuple[float, float, float, float, float]:
    util = disk.util_pct if disk is not None and disk.util_pct is not None else NAN
    if io is None:
        return (NAN, NAN, NAN, NAN, util)
    return (
        io.read_bytes,
        io.write_bytes,
        io.disk_wait_read if io.disk_wait_read is not None else NAN,
        io.disk_wait_write if io.disk_wait_write is not None else NAN,
        util,
    )


class Series:
    """Rings of the last HISTORY_MAX samples within HISTORY_SECONDS, by (pool, vdev key).

    Added to by the fold (a worker thread) while the chart reads it (the UI thread): a lock
    around both, or the chart's read meets a ring mid-tick ("deque mutated during iteration"
    ends the dashboard; seen under load with two hosts folding at once)."""

    def __init__(self, seconds: float = HISTORY_SECONDS, limit: int = HISTORY_MAX) -> None:
        self.seconds, self.limit = seconds, limit
        self._times: deque[float] = deque(maxlen=limit)
        self._n = 0  # samples added so far: slot = n % limit
        self._rings: dict[tuple[str, str], list[array[float]]] = {}
        self._last_seen: dict[tuple[str, str], int] = {}
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._times)

    @property
    def end(self) -> float | None:
        return self._times[-1] if self._times else None

    def add(self, snap: Snapshot) -> None:
        with self._lock:
            self._add(snap)

    def _add(self, snap: Snapshot) -> None:
        slot = self._n % self.limit
        self._n += 1
        self._times.append(snap.time)
        while len(self._times) > 1 and snap.time - self._times[0] > self.seconds:
            self._times.popleft()
        for pool in snap.pools:
            for v in pool.root.walk():
                key = (pool.name, pool_key(pool) if v is pool.root else v.key)
                rings = self._rings.get(key)
                if rings is None:
                    rings = self._rings[key] = [array("f", [NAN]) * self.limit for _ in METRICS]
                for ring, value in zip(rings, _values(pool.io_of(v), pool.disk_of(v))):
                    ring[slot] = value
                self._last_seen[key] = self._n
        # A vdev not seen for a whole window has nothing left to draw: forget it.
        stale = [k for k, n in self._last_seen.items() if self._n - n >= self.limit]
        for k in stale:
            del self._rings[k], self._last_seen[k]
        # Slots of vdevs absent this tick must not keep an old value from `limit` ticks ago.
        for k, n in self._last_seen.items():
            if n != self._n:
                for ring in self._rings[k]:
                    ring[slot] = NAN

    def points(self, pool: str, key: str) -> dict[str, list[float]]:
        """x: seconds before the newest sample (<= 0); rmb/wmb: MiB/s; rms/wms: disk wait in ms;
        util: %; NaN where there was no value. Empty lists for a vdev never seen."""
        with self._lock:
            return self._points(pool, key)

    def _points(self, pool: str, key: str) -> dict[str, list[float]]:
        out: dict[str, list[float]] = {k: [] for k in ("x", "rmb", "wmb", "rms", "wms", "util")}
        rings = self._rings.get((pool, key))
        if rings is None or not self._times:
            return out
        count = len(self._times)
        end = self._times[-1]
        first = self._n - count
        for i, t in zip(range(first, self._n), self._times):
            slot = i % self.limit
            rb, wb, rw, ww, util = (ring[slot] for ring in rings)
            if rb != rb and wb != wb and util != util:  # NaN everywhere: not there then
                continue
            out["x"].append(t - end)
            out["rmb"].append(rb / 1048576.0)
            out["wmb"].append(wb / 1048576.0)
            out["rms"].append(rw / 1e6)
            out["wms"].append(ww / 1e6)
            out["util"].append(util)
        return out
