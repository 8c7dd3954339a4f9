"""History series for the chart (zdash.fold.series.Series.points), shaped into what may honestly
be drawn: lines only between samples that were taken close together, on a time axis that does
not stretch a few seconds of data across the panel. Pure, so it is tested without an app."""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence

MIB = float(1 << 20)

# A line joins two samples only when they are at most this many sampling steps apart: one late
# or lost report is bridged, a longer silence (zpool hung, the host unreachable, a vdev that was
# not there, no I/O of that kind) is drawn as the gap it is, never as a ramp across it.
GAP_STEPS = 2.5
# The time axis spans the smallest of these that holds the data (seconds): a minute of history is
# drawn over a minute, not stretched to the panel's width; ten minutes is all the series keeps.
WINDOWS_S = (60.0, 120.0, 300.0, 600.0)

Line = tuple[list[float], list[float]]  # x (seconds before the newest sample, <= 0), y


def sample_step(xs: Sequence[float]) -> float:
    """The sampling interval of a series: the median gap between consecutive samples (robust
    to a few late or lost ones); 1 s when there are fewer than two samples."""
    gaps = sorted(b - a for a, b in itertools.pairwise(xs) if b > a)
    return gaps[len(gaps) // 2] if gaps else 1.0


def window_s(xs: Sequence[float]) -> float:
    """The span of the time axis for samples at `xs`: the smallest of WINDOWS_S that holds them."""
    span = -xs[0] if xs else 0.0
    return next((w for w in WINDOWS_S if span <= w), WINDOWS_S[-1])


def runs(xs: Sequence[float], ys: Sequence[float], step: float) -> list[Line]:
    """The stretches of measured values a line may join: split where a value is NaN (not
    measured) and where consecutive samples are more than GAP_STEPS * step apart."""
    out: list[Line] = []
    run_x: list[float] = []
    run_y: list[float] = []
    limit = GAP_STEPS * step
    for x, y in zip(xs, ys):
        if y != y or (run_x and x - run_x[-1] > limit):
            if run_x:
                out.append((run_x, run_y))
                run_x, run_y = [], []
            if y != y:
                continue
        run_x.append(x)
        run_y.append(y)
    if run_x:
        out.append((run_x, run_y))
    return out


def binned(line: Line, bin_s: float) -> Line:
    """A run averaged into time bins `bin_s` wide (a chart column's worth), each point at its
    samples' mean time: at most one point per column, never a value where no sample was."""
    xs, ys = line
    if bin_s <= 0 or len(xs) < 2:
        return line
    out_x: list[float] = []
    out_y: list[float] = []
    current = None
    sx = sy = 0.0
    n = 0
    for x, y in zip(xs, ys):
        b = math.floor(x / bin_s)
        if b != current and n:
            out_x.append(sx / n)
            out_y.append(sy / n)
            sx = sy = 0.0
            n = 0
        current = b
        sx += x
        sy += y
        n += 1
    if n:
        out_x.append(sx / n)
        out_y.append(sy / n)
    return out_x, out_y


def chart_lines(xs: Sequence[float], ys: Sequence[float], step: float, bin_s: float) -> list[Line]:
    """What the chart draws of one series: its runs, each binned to the chart's columns."""
    return [binned(r, bin_s) for r in runs(xs, ys, step)]


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
