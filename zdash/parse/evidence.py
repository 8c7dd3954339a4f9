"""The evidence samples (SMART, histograms, the kernel log, the disks under the leaves) as the
model's Evidence: pure functions the snapshot builder calls with what it kept.

Histograms: `zpool iostat -w` without an interval counts since the pool's import; the live source
reads them every few seconds while a finding names a leaf, and the counts since the first of
those readings (this run) are what happened while the finding stood. A reading whose counts went
down (the pool was exported and imported, the counters started again) is a new baseline.
"""

from __future__ import annotations

from zdash.model import LatencyHistogram
from zdash.parse.zpool_iostat_hist import HistBlock

# A baseline: when it was read, and its counts by column.
Baseline = tuple[float, tuple[tuple[str, tuple[int, ...]], ...]]


def latency_histograms(
    pool: str, blocks: tuple[HistBlock, ...], time: float, bases: dict[str, Baseline]
) -> tuple[LatencyHistogram, ...]:
    """Each latency block of one reading, as counts since its baseline in `bases` (vdev ->
    baseline; updated in place: a vdev read for the first time, or whose counters went back,
    gets this reading as its baseline and shows its counts since import)."""
    newest = {b.name: b for b in blocks if b.kind == "latency"}  # a stream repeats names: the last
    out = []
    for name, block in newest.items():
        base = bases.get(name)
        delta = _minus(block.columns, base[1]) if base is not None and base[0] < time else None
        if base is None or (base[0] < time and delta is None):
            bases[name] = (time, block.columns)
            out.append(LatencyHistogram(pool, name, block.bounds, block.columns, time, None))
        elif delta is None:  # the baseline itself, read again at the same moment (a replayed tick)
            out.append(LatencyHistogram(pool, name, block.bounds, block.columns, time, None))
        else:
            out.append(LatencyHistogram(pool, name, block.bounds, delta, time, base[0]))
    return tuple(out)


def _minus(
    now: tuple[tuple[str, tuple[int, ...]], ...], then: tuple[tuple[str, tuple[int, ...]], ...]
) -> tuple[tuple[str, tuple[int, ...]], ...] | None:
    """now - then per column and bucket; None when the shapes differ or any count went down."""
    before = dict(then)
    out = []
    for name, counts in now:
        old = before.get(name)
        if old is None or len(old) != len(counts):
            return None
        diff = tuple(a - b for a, b in zip(counts, old))
        if any(d < 0 for d in diff):
            return None
        out.append((name, diff))
    return tuple(out)
