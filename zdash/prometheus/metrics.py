"""One Snapshot and its findings as Prometheus metric families (prometheus_client's own types).

Naming follows the Prometheus conventions (prometheus.io/docs/practices/naming): base units
(bytes, seconds, ratios 0-1), `_total` only for counters. Operations and bytes are counters
(zdash.prometheus.totals adds up iostat's reports), so rate() works at query time; gauges hold
states, sizes, ratios and the latest interval's latencies. Levels never share a metric name:
`zdash_pool_*` (labels pool), `zdash_vdev_*` (pool, vdev: a top-level vdev as zpool names it)
and `zdash_leaf_*` (pool, vdev, leaf: the device's path, or its name when zpool gives none), so
a sum over one name never counts the same I/O twice.

Cardinality is bounded by the pool layout: every label value is a pool, vdev or device name, a
check id, a severity, a topic id, a state word from zpool's own enum or a source key. No title,
no reasoning, no number is ever a label. A label set is emitted once per family (a hot spare in
use appears under its vdev and under the spares, each with its own vdev label).

Pure: no I/O, no clock (the caller passes `now` for staleness at scrape time, and the I/O
counters it has added up so far: a single moment, such as the textfile, has none).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass

from prometheus_client.metrics_core import (
    CounterMetricFamily,
    GaugeMetricFamily,
    InfoMetricFamily,
    Metric,
)

from zdash import __version__
from zdash.cadence import EXPECTED, stale_limit
from zdash.checks.finding import Finding
from zdash.model import DiskIo, IoStats, Pool, Snapshot, SourceState, Vdev
from zdash.redundancy import margins

# zpool's vdev/pool states (the text forms; zdash maps the JSON enum onto these). A state outside
# this list (a newer OpenZFS) is emitted as itself, once: still zpool's own bounded word.
STATES = (
    "ONLINE",
    "DEGRADED",
    "FAULTED",
    "OFFLINE",
    "UNAVAIL",
    "REMOVED",
    "SUSPENDED",
    "SPLIT",
    "AVAIL",
    "INUSE",
)
# A pool is never AVAIL/INUSE (spares) nor SPLIT: a pool's one-hot set is the first seven.
POOL_STATES = STATES[:7]
SCAN_STATES = ("scanning", "paused", "finished", "canceled")
ERROR_TYPES = ("read", "write", "checksum")


@dataclass(frozen=True, slots=True)
class Spec:
    """One metric family: what the manual's table (docs/prometheus.md) lists and what the tests check against."""

    name: str  # as exposed (a counter's samples are this name; the family drops `_total`)
    kind: str  # gauge | counter | info
    labels: tuple[str, ...]
    help: str


_P = ("pool",)
_V = ("pool", "vdev")
_L = ("pool", "vdev", "leaf")
# (suffix, IoStats field, help): what the I/O adds up to, counted by the exporter from each iostat
# report (its rate times its interval) since it started; Prometheus's rate() and increase() make
# rates of them over any window at query time, where a per-second gauge scraped every 30 s would
# show one second in thirty.
_COUNTS = (
    ("read_ops_total", "read_ops", "Read operations since the exporter started (iostat's, per report)."),
    ("write_ops_total", "write_ops", "Write operations since the exporter started (iostat's, per report)."),
    ("read_bytes_total", "read_bytes", "Bytes read since the exporter started (iostat's, per report)."),
    ("write_bytes_total", "write_bytes", "Bytes written since the exporter started (iostat's, per report)."),
)
COUNTED = tuple(field for _, field, _ in _COUNTS)  # the IoStats fields an IoTotals adds up, in order
# (suffix, IoStats field, divisor to base units, help): the latest interval's average latencies,
# gauges (an average over iostat's interval, not something to add up).
_LATENCY = (
    (
        "read_disk_wait_seconds",
        "disk_wait_read",
        1e9,
        "Average time a read spent in the device (iostat disk_wait), absent when no read was done.",
    ),
    (
        "write_disk_wait_seconds",
        "disk_wait_write",
        1e9,
        "Average time a write spent in the device (iostat disk_wait), absent when no write was done.",
    ),
    (
        "read_total_wait_seconds",
        "total_wait_read",
        1e9,
        "Average time a read took, ZFS queues included (iostat total_wait).",
    ),
    (
        "write_total_wait_seconds",
        "total_wait_write",
        1e9,
        "Average time a write took, ZFS queues included (iostat total_wait).",
    ),
)


def _io_specs(level: str, labels: tuple[str, ...]) -> list[Spec]:
    return [Spec(f"zdash_{level}_{suffix}", "counter", labels, text) for suffix, _, text in _COUNTS] + [
        Spec(f"zdash_{level}_{suffix}", "gauge", labels, text) for suffix, _, _, text in _LATENCY
    ]


SPECS: tuple[Spec, ...] = (
    Spec("zdash_build_info", "info", ("version",), "The zdash version exposing these metrics."),
    Spec(
        "zdash_snapshot_timestamp_seconds",
        "gauge",
        (),
        "When the newest snapshot was taken (epoch seconds).",
    ),
    Spec(
        "zdash_source_up",
        "gauge",
        ("source",),
        "1 when this input (status, list, iostat, diskstats, ...) answered and is fresh, else 0.",
    ),
    Spec(
        "zdash_source_age_seconds",
        "gauge",
        ("source",),
        "Seconds since this input last answered, counted to the scrape.",
    ),
    Spec(
        "zdash_finding",
        "gauge",
        ("check", "severity", "pool", "subject", "topic"),
        "1 for each finding of zdash's checks now (severity info, warning, unknown, critical).",
    ),
    Spec("zdash_pool_state", "gauge", ("pool", "state"), "1 for the pool's current state, 0 for the others."),
    Spec("zdash_pool_size_bytes", "gauge", _P, "Pool size (zpool list SIZE)."),
    Spec("zdash_pool_allocated_bytes", "gauge", _P, "Bytes allocated in the pool (ALLOC)."),
    Spec("zdash_pool_free_bytes", "gauge", _P, "Bytes free in the pool (FREE)."),
    Spec("zdash_pool_fill_ratio", "gauge", _P, "Allocated / size, 0-1 (zpool's CAP, unrounded)."),
    Spec("zdash_pool_fragmentation_ratio", "gauge", _P, "Free-space fragmentation, 0-1 (FRAG)."),
    Spec(
        "zdash_pool_data_errors",
        "gauge",
        _P,
        "Permanent data errors zpool status reports (files or blocks that could not be repaired).",
    ),
    *_io_specs("pool", _P),
    Spec(
        "zdash_pool_scan_state",
        "gauge",
        ("pool", "function", "state"),
        "1 for the scan's current state (scanning, paused, finished, canceled); function is scrub, resilver, ...",
    ),
    Spec(
        "zdash_pool_scan_progress_ratio",
        "gauge",
        ("pool", "function"),
        "Progress of the scan, 0-1 (1 once finished).",
    ),
    Spec(
        "zdash_pool_scan_start_timestamp_seconds",
        "gauge",
        ("pool", "function"),
        "When the scan started (epoch seconds).",
    ),
    Spec(
        "zdash_pool_scan_end_timestamp_seconds",
        "gauge",
        ("pool", "function"),
        "When the scan ended (epoch seconds); absent while it runs.",
    ),
    Spec(
        "zdash_vdev_info",
        "info",
        ("pool", "vdev", "type", "class"),
        "A top-level vdev: its type (mirror, raidz2, disk, ...) and class (normal, special, log, ...).",
    ),
    Spec("zdash_vdev_state", "gauge", ("pool", "vdev", "state"), "1 for the vdev's current state."),
    Spec("zdash_vdev_size_bytes", "gauge", _V, "Allocatable bytes of the top-level vdev (ALLOC + FREE)."),
    Spec("zdash_vdev_allocated_bytes", "gauge", _V, "Bytes allocated on the top-level vdev."),
    Spec("zdash_vdev_free_bytes", "gauge", _V, "Bytes free on the top-level vdev."),
    Spec("zdash_vdev_fill_ratio", "gauge", _V, "Allocated / allocatable, 0-1."),
    Spec("zdash_vdev_fragmentation_ratio", "gauge", _V, "Free-space fragmentation of the vdev, 0-1."),
    Spec("zdash_vdev_ashift", "gauge", _V, "The vdev's configured ashift (log2 of its sector size)."),
    Spec(
        "zdash_vdev_redundancy_left",
        "gauge",
        _V,
        "Device failures the vdev can absorb now (negative: it has lost data it needs).",
    ),
    Spec(
        "zdash_vdev_redundancy_design",
        "gauge",
        _V,
        "Device failures the vdev absorbs when every member is whole (mirror n-1, raidzN N, single 0).",
    ),
    *_io_specs("vdev", _V),
    Spec(
        "zdash_vdev_errors_total",
        "counter",
        ("pool", "vdev", "type"),
        "The vdev's READ/WRITE/CKSUM counts in zpool status (reset by zpool clear).",
    ),
    Spec(
        "zdash_leaf_info",
        "info",
        ("pool", "vdev", "leaf", "device"),
        "A leaf device and the kernel block device it resolves to (matches node_exporter's device label).",
    ),
    Spec("zdash_leaf_state", "gauge", ("pool", "vdev", "leaf", "state"), "1 for the device's current state."),
    *_io_specs("leaf", _L),
    Spec(
        "zdash_leaf_utilization_ratio",
        "gauge",
        _L,
        "Share of the last interval the kernel device was busy (%UTIL / 100, from /proc/diskstats).",
    ),
    Spec(
        "zdash_leaf_errors_total",
        "counter",
        ("pool", "vdev", "leaf", "type"),
        "The device's READ/WRITE/CKSUM counts in zpool status (reset by zpool clear).",
    ),
    Spec(
        "zdash_leaf_slow_ios_total",
        "counter",
        _L,
        "I/Os ZFS counted as slow on this device (zpool status -s SLOW; reset by zpool clear).",
    ),
)
BY_NAME = {s.name: s for s in SPECS}


class _Out:
    """The families of one exposition, filled in any order, each label set once."""

    def __init__(self) -> None:
        self._families: dict[str, Metric] = {}
        self._seen: set[tuple[str, tuple[str, ...]]] = set()

    def add(self, name: str, values: Sequence[str], value: float | None) -> None:
        if value is None:
            return
        spec = BY_NAME[name]
        key = (name, tuple(values))
        if key in self._seen:
            return
        self._seen.add(key)
        family = self._families.get(name)
        if family is None:
            family = self._families[name] = _family(spec)
        if isinstance(family, InfoMetricFamily):
            family.add_metric([], dict(zip(spec.labels, values)))
        else:
            family.add_metric(list(values), float(value))  # type: ignore[attr-defined]

    def families(self) -> list[Metric]:
        order = {s.name: i for i, s in enumerate(SPECS)}
        return [self._families[n] for n in sorted(self._families, key=order.__getitem__)]


def _family(spec: Spec) -> Metric:
    if spec.kind == "info":
        return InfoMetricFamily(spec.name.removesuffix("_info"), spec.help, labels=())
    if spec.kind == "counter":
        return CounterMetricFamily(spec.name, spec.help, labels=spec.labels)
    return GaugeMetricFamily(spec.name, spec.help, labels=spec.labels)


def _ratio(pct: float | None) -> float | None:
    return None if pct is None else pct / 100.0


def _one_hot(out: _Out, name: str, labels: tuple[str, ...], state: str, states: Sequence[str]) -> None:
    for s in (*states, state) if state not in states else states:
        out.add(name, (*labels, s), 1.0 if s == state else 0.0)


# An I/O node's key: its level (pool, vdev, leaf) and its label values at that level.
IoKey = tuple[str, tuple[str, ...]]
# What zdash.prometheus.totals has added up per node: one float per COUNTED field.
Totals = Mapping[IoKey, tuple[float, ...]]


def io_nodes(pool: Pool) -> Iterator[tuple[IoKey, Vdev]]:
    """Every node whose I/O is exported, with its key: the pool (its root), each top-level vdev,
    each leaf under it (one home for the labels both the gauges and the counters carry)."""
    yield ("pool", (pool.name,)), pool.root
    for top in pool.top_level:
        if top.kind in ("hole", "indirect"):
            continue
        v = (pool.name, top.name)
        yield ("vdev", v), top
        for leaf in _leaves(top):
            yield ("leaf", (*v, leaf.label)), leaf


def _io(out: _Out, key: IoKey, io: IoStats | None, totals: Totals | None) -> None:
    level, labels = key
    counted = totals.get(key) if totals is not None else None
    if counted is not None:
        for (suffix, _, _), total in zip(_COUNTS, counted):
            out.add(f"zdash_{level}_{suffix}", labels, total)
    if io is None:
        return
    for suffix, field, divisor, _ in _LATENCY:
        raw = getattr(io, field)
        out.add(f"zdash_{level}_{suffix}", labels, None if raw is None else raw / divisor)


def _errors(out: _Out, name: str, labels: tuple[str, ...], v: Vdev) -> None:
    for kind, count in zip(ERROR_TYPES, (v.read_errors, v.write_errors, v.checksum_errors)):
        out.add(name, (*labels, kind), count)


def _leaves(top: Vdev) -> Iterable[Vdev]:
    return (top,) if top.is_leaf else top.leaves()


def _pool(out: _Out, pool: Pool, totals: Totals | None) -> None:
    p = (pool.name,)
    _one_hot(out, "zdash_pool_state", p, pool.state, POOL_STATES)
    out.add("zdash_pool_size_bytes", p, pool.size)
    out.add("zdash_pool_allocated_bytes", p, pool.alloc)
    out.add("zdash_pool_free_bytes", p, pool.free)
    out.add("zdash_pool_fill_ratio", p, _ratio(pool.fill_pct))
    out.add("zdash_pool_fragmentation_ratio", p, _ratio(pool.frag_pct))
    out.add("zdash_pool_data_errors", p, pool.error_count)
    for key, node in io_nodes(pool):
        _io(out, key, pool.io_of(node), totals)
    for scan in pool.scans:
        s = (pool.name, scan.function)
        _one_hot(out, "zdash_pool_scan_state", s, scan.state, SCAN_STATES)
        progress = _ratio(scan.pct_done)
        if progress is None and scan.state == "finished":
            progress = 1.0
        out.add(
            "zdash_pool_scan_progress_ratio", s, None if progress is None else min(max(progress, 0.0), 1.0)
        )
        out.add("zdash_pool_scan_start_timestamp_seconds", s, scan.start_time)
        out.add("zdash_pool_scan_end_timestamp_seconds", s, scan.end_time)
    margin = {id(m.top): m for m in margins(pool)}
    for top in pool.top_level:
        if top.kind in ("hole", "indirect"):
            continue
        v = (pool.name, top.name)
        out.add("zdash_vdev_info", (*v, top.kind, top.vclass), 1)
        _one_hot(out, "zdash_vdev_state", v, top.state, STATES)
        out.add("zdash_vdev_size_bytes", v, top.space)
        out.add("zdash_vdev_allocated_bytes", v, top.alloc)
        out.add("zdash_vdev_free_bytes", v, top.free)
        out.add("zdash_vdev_fill_ratio", v, _ratio(top.fill_pct))
        out.add("zdash_vdev_fragmentation_ratio", v, _ratio(top.frag_pct))
        out.add("zdash_vdev_ashift", v, top.ashift)
        if (m := margin.get(id(top))) is not None:
            out.add("zdash_vdev_redundancy_left", v, m.left)
            out.add("zdash_vdev_redundancy_design", v, m.design)
        _errors(out, "zdash_vdev_errors_total", v, top)
        for leaf in _leaves(top):
            _leaf(out, (*v, leaf.label), leaf, pool.disk_of(leaf))


def _leaf(out: _Out, labels: tuple[str, ...], leaf: Vdev, disk: DiskIo | None) -> None:
    out.add("zdash_leaf_info", (*labels, leaf.device or ""), 1)
    _one_hot(out, "zdash_leaf_state", labels, leaf.state, STATES)
    out.add("zdash_leaf_utilization_ratio", labels, _ratio(disk.util_pct) if disk else None)
    _errors(out, "zdash_leaf_errors_total", labels, leaf)
    out.add("zdash_leaf_slow_ios_total", labels, leaf.slow_ios)


def _sources(out: _Out, sources: Sequence[SourceState], lag: float, interval: float) -> None:
    """Fresh as of the scrape: a snapshot `lag` seconds old has aged every input by as much, so a
    collector that stopped folding shows its inputs going stale instead of frozen 'up'."""
    for s in sources:
        limit = stale_limit(s.key, interval)
        age = None if s.age_s is None else s.age_s + lag
        up = s.ok and age is not None and age <= limit
        out.add("zdash_source_up", (s.key,), 1.0 if up else 0.0)
        out.add("zdash_source_age_seconds", (s.key,), age)


def families(
    snap: Snapshot | None,
    findings: Sequence[Finding],
    now: float | None = None,
    totals: Totals | None = None,
) -> list[Metric]:
    """The metric families of one moment. `snap` None (nothing collected yet): the expected
    sources read as down, so an alert on them sees a collector that never answered. `now` (the
    scrape's clock) ages the sources; None means "as the snapshot stood" (a textfile). `totals`:
    the I/O counters of each node in `snap` (None: no counters, a single moment has no total)."""
    out = _Out()
    out.add("zdash_build_info", (__version__,), 1)
    if snap is None:
        for key in EXPECTED:
            out.add("zdash_source_up", (key,), 0.0)
        return out.families()
    out.add("zdash_snapshot_timestamp_seconds", (), snap.time)
    lag = 0.0 if now is None else max(0.0, now - snap.time)
    _sources(out, snap.sources, lag, snap.interval or 1.0)
    for f in findings:
        labels = (f.check, f.severity.name.lower(), f.pool or "", f.subject, f.topic)
        out.add("zdash_finding", labels, 1)
    for pool in snap.pools:
        _pool(out, pool, totals)
    return out.families()
