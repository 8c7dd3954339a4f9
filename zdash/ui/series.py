"""History series for the chart: throughput and disk latency of the pool or one vdev over the
frame's history, downsampled to the chart's width. Pure, so it is tested without an app."""

from __future__ import annotations

from collections.abc import Sequence

from zdash.model import IoStats, Snapshot
from zdash.ui.vdev_rows import pool_key

MIB = float(1 << 20)


def _io(snap: Snapshot, pool: str, key: str) -> IoStats | None:
    p = snap.pool(pool)
    if p is None:
        return None
    if key == pool_key(p):
        return p.root.io
    v = next((v for v in p.root.walk() if v.key == key), None)
    return v.io if v is not None else None


def extract(history: Sequence[Snapshot], pool: str, key: str) -> dict[str, list[float]]:
    """x: seconds before the newest sample (<= 0); rd/wr MB/s; rd/wr disk wait in ms
    (NaN where nothing was read or written: a gap, not a misleading zero)."""
    out: dict[str, list[float]] = {k: [] for k in ("x", "rmb", "wmb", "rms", "wms")}
    if not history:
        return out
    end = history[-1].time
    for snap in history:
        io = _io(snap, pool, key)
        if io is None:
            continue
        out["x"].append(snap.time - end)
        out["rmb"].append(io.read_bytes / MIB)
        out["wmb"].append(io.write_bytes / MIB)
        out["rms"].append(io.disk_wait_read / 1e6 if io.disk_wait_read is not None else float("nan"))
        out["wms"].append(io.disk_wait_write / 1e6 if io.disk_wait_write is not None else float("nan"))
    return out


def downsample(series: dict[str, list[float]], width: int) -> dict[str, list[float]]:
    """Average consecutive points into at most `width` buckets (x: the bucket's last time)."""
    n = len(series["x"])
    if width <= 0 or n <= width:
        return series
    out: dict[str, list[float]] = {k: [] for k in series}
    for b in range(width):
        lo, hi = b * n // width, (b + 1) * n // width
        if hi <= lo:
            continue
        for k, values in series.items():
            chunk = values[lo:hi]
            if k == "x":
                out[k].append(chunk[-1])
                continue
            real = [v for v in chunk if v == v]
            out[k].append(sum(real) / len(real) if real else float("nan"))
    return out
