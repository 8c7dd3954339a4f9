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
from collections.abc import Callable, Sequence
from typing import cast

from zdash.model import DiskIo, IoStats, Pool, Snapshot, Vdev

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


def _columns(pool: Pool) -> Callable[[Vdev], tuple[float, float, float, float, float] | None]:
    """A reader of a vdev's five figures straight from the tick's columns (Pool.measures), the
    same values `_values` reads from the IoStats and DiskIo that io_of/disk_of would build for
    it (an object per vdev per tick, for five numbers); None for a vdev whose figures are its
    own (no row in the columns: the caller asks io_of/disk_of)."""
    m = pool.measures
    assert m is not None
    lay = m.layout
    io, disk = m.io_columns, m.disk_columns
    if (io is None) != (m.io_at is None) or (disk is None) != (m.disk_at is None):
        return lambda v: None  # a reader without its columns (or columns without one): ask it
    # (bytes are always figures in a report, as IoStats has them; the waits may be None: '-')
    read_bytes, write_bytes = cast(
        "tuple[Sequence[float], ...]", (io[2], io[3]) if io is not None else ((), ())
    )
    wait_r, wait_w = (io[6], io[7]) if io is not None else ((), ())
    util = disk[0] if disk is not None else ()

    def read(v: Vdev) -> tuple[float, float, float, float, float] | None:
        k = m.slot_of(v)
        if k is None:
            return None
        i = lay.io_rows[k] if io is not None else -1
        d = lay.disk_rows[k] if disk is not None else -1
        if (i < 0 and v.io is not None) or (d < 0 and v.disk is not None):
            return None  # a figure of the vdev's own beside the columns'
        u = util[d] if d >= 0 else None
        if i < 0:
            return (NAN, NAN, NAN, NAN, NAN if u is None else u)
        r, w = wait_r[i], wait_w[i]
        return (
            read_bytes[i],
            write_bytes[i],
            NAN if r is None else r,
            NAN if w is None else w,
            NAN if u is None else u,
        )

    return read


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
            values = _columns(pool) if pool.measures is not None else None
            for v in pool.root.walk():
                key = (pool.name, pool_key(pool) if v is pool.root else v.key)
                rings = self._rings.get(key)
                if rings is None:
                    rings = self._rings[key] = [array("f", [NAN]) * self.limit for _ in METRICS]
                figures = values(v) if values is not None else None
                if figures is None:
                    figures = _values(pool.io_of(v), pool.disk_of(v))
                for ring, value in zip(rings, figures):
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
