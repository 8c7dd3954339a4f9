"""History series for the chart (zdash.feed.history.Series.points), downsampled to the chart's
width. Pure, so it is tested without an app."""

from __future__ import annotations

import math

MIB = float(1 << 20)


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


# What the peer overlay compares, per point: (name, title, how a point's value is made).
PEER_METRICS = (
    ("mbs", "MiB/s", lambda p, i: _total(p["rmb"][i], p["wmb"][i])),
    ("util", "%UTIL", lambda p, i: p["util"][i]),
    ("wait", "disk wait ms", lambda p, i: _worse(p["rms"][i], p["wms"][i])),  # the worse of r/w
)


def _total(a: float, b: float) -> float:
    real = [v for v in (a, b) if v == v]
    return sum(real) if real else math.nan


def _worse(a: float, b: float) -> float:
    real = [v for v in (a, b) if v == v]
    return max(real) if real else math.nan


def _median(values: list[float]) -> float:
    real = sorted(v for v in values if v == v)
    if not real:
        return math.nan
    mid = len(real) // 2
    return real[mid] if len(real) % 2 else (real[mid - 1] + real[mid]) / 2


def peer_overlay(disk: dict[str, list[float]], peers: list[dict[str, list[float]]]) -> dict[str, list[float]]:
    """The selected disk against its vdev peers at the disk's own sample times (Series.points
    of each): x, then per metric `<name>` (the disk) and `<name>-peers` (the peers' median at
    that time: one peer's own value, the middle of several, so one other sick peer does not
    pull the yardstick). NaN where nobody has a value."""
    at = [{x: i for i, x in enumerate(p["x"])} for p in peers]
    out: dict[str, list[float]] = {"x": list(disk["x"])}
    for name, _title, value in PEER_METRICS:
        out[name] = [value(disk, i) for i in range(len(disk["x"]))]
        out[f"{name}-peers"] = [
            _median([value(p, idx[x]) for p, idx in zip(peers, at) if x in idx]) for x in disk["x"]
        ]
    return out
