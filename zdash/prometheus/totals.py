"""The exporter's I/O counters: iostat's reports added up, node by node, since the exporter started.

`zpool iostat` gives rates over its own interval (the stream runs with -y: no since-boot
report), so each new report adds its rate times its interval to the node's total. Prometheus's
rate() and increase() turn the totals back into rates over whatever window a query asks for; a
scrape every 30 s then averages all thirty seconds instead of sampling one. A restarted exporter
starts again at 0, which rate() reads as a counter reset, as it does for any restarted exporter.

What is not counted: a report the builder judged "no rate" (a vdev-tree change inside its
interval, or rates no device can produce) adds nothing, so a total can miss the I/O of such an
interval; it never counts wrapped or impossible figures. Only a tick that carries a new report
adds (the builder keeps the last report for a few ticks to hide jitter: adding it again would
count one interval twice). A node no longer in the pools (a replaced disk) is forgotten.
"""

from __future__ import annotations

from zdash.model import Snapshot
from zdash.prometheus.metrics import COUNTED, IoKey, Totals, io_nodes
from zdash.raw import Tick


def new_report(tick: Tick) -> bool:
    """Whether this tick brings an iostat report of its own (not the last one kept)."""
    sample = tick.get("iostat")
    return sample is not None and sample.ok and bool(sample.stdout.strip())


class IoTotals:
    """One exporter's running totals. Not thread-safe: the fold adds, and hands the scrape
    thread a copy (`view`)."""

    def __init__(self) -> None:
        self._sums: dict[IoKey, list[float]] = {}

    def add(self, snap: Snapshot, seconds: float) -> None:
        """Add one report's worth: each node's rates in `snap` times `seconds`, its interval."""
        seen: set[IoKey] = set()
        for pool in snap.pools:
            for key, node in io_nodes(pool):
                seen.add(key)
                io = pool.io_of(node)
                if io is None:
                    continue
                sums = self._sums.setdefault(key, [0.0] * len(COUNTED))
                for i, field in enumerate(COUNTED):
                    sums[i] += getattr(io, field) * seconds
        for gone in self._sums.keys() - seen:
            del self._sums[gone]

    def view(self) -> Totals:
        """The totals as they stand, a copy the fold never changes."""
        return {key: tuple(sums) for key, sums in self._sums.items()}
