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


class _Plan:
    """What `Series.add` writes for one pool, made when its tree or the layout of its figures
    changes and kept while they stay the same (a steady pool: every tick): per vdev in walk
    order its five rings and its rows in the tick's columns (-1: none), so a tick is one loop
    of reads and writes, with no walk, no key made and no ring looked up per vdev. Only for a
    pool whose vdevs all read the columns (else each vdev is read as before)."""

    __slots__ = ("disk", "io", "keys", "layout", "root", "rows", "seen")

    def __init__(
        self,
        root: Vdev,
        layout: object,
        io: bool,
        disk: bool,
        keys: tuple[tuple[str, str], ...],
        rows: list[tuple[array[float], array[float], array[float], array[float], array[float], int, int]],
    ) -> None:
        self.root, self.layout, self.io, self.disk, self.keys, self.rows = root, layout, io, disk, keys, rows
        self.seen = [0]  # when its vdevs were seen last (Series._last_seen's cell for each)

    def fits(self, pool: Pool) -> bool:
        """Is it the plan of this tick's pool (the same tree, layout and columns)?"""
        m = pool.measures
        return (
            m is not None
            and pool.root is self.root
            and m.layout is self.layout
            and (m.io_columns is not None) == self.io == (m.io_at is not None)
            and (m.disk_columns is not None) == self.disk == (m.disk_at is not None)
        )

    def write(self, pool: Pool, slot: int) -> None:
        """The tick's five figures of every vdev into its rings at `slot` (what _columns reads)."""
        m = pool.measures
        assert m is not None
        io, disk = m.io_columns, m.disk_columns
        empty: Sequence[float | None] = ()
        read_bytes, write_bytes = (io[2], io[3]) if io is not None else (empty, empty)
        wait_r, wait_w = (io[6], io[7]) if io is not None else (empty, empty)
        util = disk[0] if disk is not None else empty
        # NaN for None ('-': no I/O of that kind), a column at a time (none in a busy pool)
        if None in wait_r:
            wait_r = [NAN if x is None else x for x in wait_r]
        if None in wait_w:
            wait_w = [NAN if x is None else x for x in wait_w]
        if None in util:
            util = [NAN if x is None else x for x in util]
        # (bytes are always figures in a report, as IoStats has them; the rest has no None now)
        rb, wb, wr, ww, ut = cast(
            "tuple[Sequence[float], ...]", (read_bytes, write_bytes, wait_r, wait_w, util)
        )
        for r0, r1, r2, r3, r4, i, d in self.rows:
            if i >= 0:
                r0[slot], r1[slot], r2[slot], r3[slot] = rb[i], wb[i], wr[i], ww[i]
            else:
                r0[slot] = r1[slot] = r2[slot] = r3[slot] = NAN
            r4[slot] = ut[d] if d >= 0 else NAN


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
        self._last_seen: dict[tuple[str, str], list[int]] = {}
        self._plans: dict[str, _Plan] = {}  # per pool, while its tree and layout stay the same
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
        n = self._n
        self._times.append(snap.time)
        while len(self._times) > 1 and snap.time - self._times[0] > self.seconds:
            self._times.popleft()
        # When each vdev was seen last: a one-item list shared by the vdevs seen together (a
        # pool's plan keeps one and moves it on each tick: no write per vdev per tick).
        last_seen = self._last_seen
        seen = 0
        names: set[str] = set()
        plans: dict[str, _Plan] = {}
        now: list[int] | None = None  # the cell of the vdevs read one by one this tick
        for pool in snap.pools:
            plan = self._plans.get(pool.name) if pool.name not in names else None
            if plan is not None and not plan.fits(pool):
                plan = None
            if plan is None and pool.name not in names:
                plan = self._plan(pool)
                if plan is not None:
                    last_seen.update(dict.fromkeys(plan.keys, plan.seen))
            names.add(pool.name)
            if plan is not None:
                plans[pool.name] = plan
                plan.write(pool, slot)
                plan.seen[0] = n
                seen += len(plan.keys)
                continue
            if now is None:
                now = [n]
            values = _columns(pool) if pool.measures is not None else None
            for v in pool.root.walk():
                key = (pool.name, pool_key(pool) if v is pool.root else v.key)
                rings = self._rings_of(key)
                figures = values(v) if values is not None else None
                if figures is None:
                    figures = _values(pool.io_of(v), pool.disk_of(v))
                for ring, value in zip(rings, figures):
                    ring[slot] = value
                cell = last_seen.get(key)
                if cell is None or cell[0] != n:
                    seen += 1
                last_seen[key] = now
        self._plans = plans
        if seen == len(last_seen) and len(names) == len(snap.pools):
            return  # every vdev known was seen this tick: none stale, none absent
        # A vdev not seen for a whole window has nothing left to draw: forget it.
        stale = [k for k, cell in last_seen.items() if n - cell[0] >= self.limit]
        for k in stale:
            del self._rings[k], last_seen[k]
        # Slots of vdevs absent this tick must not keep an old value from `limit` ticks ago.
        for k, cell in last_seen.items():
            if cell[0] != n:
                for ring in self._rings[k]:
                    ring[slot] = NAN

    def _rings_of(self, key: tuple[str, str]) -> list[array[float]]:
        rings = self._rings.get(key)
        if rings is None:
            rings = self._rings[key] = [array("f", [NAN]) * self.limit for _ in METRICS]
        return rings

    def _plan(self, pool: Pool) -> _Plan | None:
        """The pool's plan (see _Plan), or None where some vdev's figures are its own (read by
        io_of/disk_of each tick) or a vdev key comes twice."""
        m = pool.measures
        if m is None or (m.io_columns is None) != (m.io_at is None):
            return None
        if (m.disk_columns is None) != (m.disk_at is None):
            return None
        lay = m.layout
        io, disk = m.io_columns is not None, m.disk_columns is not None
        keys: list[tuple[str, str]] = []
        rows: list[tuple[array[float], array[float], array[float], array[float], array[float], int, int]] = []
        for v in pool.root.walk():
            k = m.slot_of(v)
            if k is None:
                return None
            i = lay.io_rows[k] if io else -1
            d = lay.disk_rows[k] if disk else -1
            if (i < 0 and v.io is not None) or (d < 0 and v.disk is not None):
                return None
            key = (pool.name, pool_key(pool) if v is pool.root else v.key)
            keys.append(key)
            r0, r1, r2, r3, r4 = self._rings_of(key)
            rows.append((r0, r1, r2, r3, r4, i, d))
        if len(set(keys)) != len(keys):
            return None
        return _Plan(pool.root, lay, io, disk, tuple(keys), rows)

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
