"""History series for the chart (zdash.feed.history.Series.points), downsampled to the chart's
width. Pure, so it is tested without an app."""

from __future__ import annotations

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
