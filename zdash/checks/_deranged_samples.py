"""One sample's verdict per leaf for the deranged_disk check: is it slow against its peers?

A leaf's peers are the other leaves of its own top-level vdev: they do the same work (a mirror
writes every block to each side, a raidz stripe spans every column), so a disk far slower than
they are is slow, not merely busy. The pool's other leaves of the same class and medium are a
second yardstick the leaf must fail too, never the only one: a disk of a larger or emptier vdev
does more work than one of another vdev, and looks slow beside it when it is only loaded. Only
a leaf alone in its vdev (a stripe, a single-disk vdev) has no other yardstick than the pool.

In a vdev that mixes media (an HDD beside an SSD) the slower medium's leaves are slower by
design (zdash.media): beside the faster ones they are judged slow only when the pool's other
leaves of their own medium say so too; without any, their pace is the mix's, not a fault (the
media_mix check says so). A faster-medium leaf slower than a slower-medium peer is never design.

A sample is evidence only when the leaf itself did I/O: an idle pool (between bursts, at night)
says nothing about a disk's speed, so its verdict is None, neither slow nor normal, and the
check's run of evidence carries on across the gap."""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from itertools import islice

from zdash.checks._common import leaves_with_top, median_or_none
from zdash.config import CheckConfig
from zdash.fmt import fmt_ms, fmt_pct
from zdash.media import alike, slower
from zdash.model import UNSEEN, DiskIo, IoStats, Pool, Vdev

MEASURABLE_STATES = ("ONLINE", "DEGRADED", UNSEEN)
PEERS_SHOWN = 8  # "compared with" names this many; the rest are counted
UTIL, READ_WAIT, WRITE_WAIT, BYTES = range(4)
Metrics = tuple[float | None, float | None, float | None, float | None]  # by those indexes


# Below these a leaf did no measurable work this sample (a healthy idle disk shows 0-2 % util).
BUSY_OPS = 1.0  # operations per second, zpool iostat
BUSY_UTIL = 5.0  # %util, /proc/diskstats


def busy(io: IoStats | None, disk: DiskIo | None) -> bool:
    """Did the leaf do I/O in this sample (by zpool's count `io` or the kernel's `disk`)?"""
    if io is not None and io.read_ops + io.write_ops >= BUSY_OPS:
        return True
    if disk is not None:
        if disk.util_pct is not None and disk.util_pct >= BUSY_UTIL:
            return True
        if (disk.reads_per_s or 0.0) + (disk.writes_per_s or 0.0) >= BUSY_OPS:
            return True
    return False


@dataclass(frozen=True, slots=True)
class LeafSample:
    util: float | None
    read_wait: float | None  # ns
    write_wait: float | None  # ns
    bytes: float | None  # read + write bytes/s
    peer_util: float | None  # the reference it was judged against (median)
    peer_read_wait: float | None
    peer_write_wait: float | None
    peer_bytes: float | None  # median bytes/s of the peers it was compared with
    peers: tuple[str, ...]  # labels of the leaves it was compared with (the first few of many)
    slow: bool | None  # None: nothing comparable in this sample
    why_slow: str = ""
    # The second yardstick: the pool's other leaves of its class and medium (labels, the first
    # few of many; empty when the peers above are those leaves) and their medians.
    pool_peers: tuple[str, ...] = ()
    pool_util: float | None = None
    pool_read_wait: float | None = None
    pool_write_wait: float | None = None
    by_design: bool = False  # its peers are of a faster medium (an HDD beside SSDs)
    # Its disk wait was slow: its vdev waited for it (a mirror write, a raidz stripe), the cost
    # a %util alone does not show
    costly: bool = False
    # Its disk wait was measured against a yardstick that could have called it slow (for a leaf
    # slower by design, the pool's other leaves of its medium) and was not: a sample that says
    # its wait is normal, not merely one that found nothing to compare it with
    wait_normal: bool = False


def slow_specs(cfg: CheckConfig) -> tuple[tuple[int, float, float, str, Callable[[float | None], str]], ...]:
    """Per metric: (index, ratio, floor, name, format). A metric is slow beside a reference when
    it is >= ratio x the reference and >= the floor."""
    latency_floor = cfg.deranged_latency_floor_ms * 1e6
    return (
        (UTIL, cfg.deranged_util_ratio, cfg.deranged_util_floor_pct, "%util", fmt_pct),
        (READ_WAIT, cfg.deranged_latency_ratio, latency_floor, "disk wait (read)", fmt_ms),
        (WRITE_WAIT, cfg.deranged_latency_ratio, latency_floor, "disk wait (write)", fmt_ms),
    )


def metrics_of(io: IoStats | None, disk: DiskIo | None) -> Metrics:
    """A leaf's metrics this sample, from its zpool iostat and kernel figures."""
    util = disk.util_pct if disk is not None else None
    read_wait = io.disk_wait_read if io is not None else None
    write_wait = io.disk_wait_write if io is not None else None
    if io is not None:
        nbytes: float | None = io.read_bytes + io.write_bytes
    elif disk is not None and disk.read_bytes_per_s is not None:
        nbytes = disk.read_bytes_per_s + (disk.write_bytes_per_s or 0.0)
    else:
        nbytes = None
    # zpool prints '-' (None) for no I/O; treat a stray 0 the same, it is not a measurement.
    return util, read_wait or None, write_wait or None, nbytes


def leaf_figures(pool: Pool, leaves: Sequence[Vdev]) -> tuple[list[Metrics], list[bool]]:
    """metrics_of and busy for each of the pool's `leaves`, read straight from the tick's
    columns (Pool.measures) where the fold put them: no IoStats or DiskIo per leaf per tick."""
    m = pool.measures
    slots = None if m is None else [m.slot_of(v) for v in leaves]
    if m is None or slots is None or None in slots:
        ios, disks = list(map(pool.io_of, leaves)), list(map(pool.disk_of, leaves))
        return list(map(metrics_of, ios, disks)), list(map(busy, ios, disks))
    io_rows, disk_rows = m.layout.io_rows, m.layout.disk_rows
    ic, dc = m.io_columns, m.disk_columns
    if ic is None:
        ic = ((),) * 8
        irs = [-1] * len(leaves)
    else:
        irs = [io_rows[k] for k in slots]  # type: ignore[index]
    if dc is None:
        dc = ((),) * 8
        drs = [-1] * len(leaves)
    else:
        drs = [disk_rows[k] for k in slots]  # type: ignore[index]
    read_ops, write_ops, read_bytes, write_bytes, _, _, disk_wait_read, disk_wait_write = ic
    util_pct, _, _, reads_per_s, writes_per_s, read_bytes_per_s, write_bytes_per_s, _ = dc
    metrics: list[Metrics] = []
    busy_now: list[bool] = []
    for v, i, d in zip(leaves, irs, drs):
        if (i < 0 and v.io is not None) or (d < 0 and v.disk is not None):  # figures of its own
            io, disk = pool.io_of(v), pool.disk_of(v)
            metrics.append(metrics_of(io, disk))
            busy_now.append(busy(io, disk))
            continue
        util = util_pct[d] if d >= 0 else None
        if i >= 0:  # metrics_of and busy, inline, on the row's figures
            nbytes: float | None = read_bytes[i] + write_bytes[i]  # type: ignore[operator]
            metrics.append((util, disk_wait_read[i] or None, disk_wait_write[i] or None, nbytes))
            if read_ops[i] + write_ops[i] >= BUSY_OPS:  # type: ignore[operator]
                busy_now.append(True)
                continue
        else:
            rb = read_bytes_per_s[d] if d >= 0 else None
            metrics.append((util, None, None, None if rb is None else rb + (write_bytes_per_s[d] or 0.0)))
        busy_now.append(
            d >= 0
            and (
                (util is not None and util >= BUSY_UTIL)
                or (reads_per_s[d] or 0.0) + (writes_per_s[d] or 0.0) >= BUSY_OPS
            )
        )
    return metrics, busy_now


def _median_without(sorted_values: list[float], own: float | None) -> float | None:
    """Median of a group's values leaving out the leaf's own (the pool's *other* leaves), in O(log n):
    the list is indexed around the removed element, never copied."""
    n = len(sorted_values)
    skip = -1
    if own is not None:
        i = bisect_left(sorted_values, own)
        if i < n and sorted_values[i] == own:
            skip, n = i, n - 1
    if n <= 0:
        return None
    mid = n // 2
    if skip == -1:
        return sorted_values[mid] if n % 2 else (sorted_values[mid - 1] + sorted_values[mid]) / 2
    # indexes at or past the removed element read one further on
    hi = sorted_values[mid + 1] if mid >= skip else sorted_values[mid]
    if n % 2:
        return hi
    lo = sorted_values[mid] if mid - 1 >= skip else sorted_values[mid - 1]
    return (lo + hi) / 2


def _lower_bound(sorted_values: list[float]) -> float:
    """No median of the list without one of its values is below this (removing one element
    moves every rank up or leaves it): a leaf under ratio x this is not slow on that metric, and
    its exact reference need not be computed."""
    return sorted_values[(len(sorted_values) - 2) // 2]


@dataclass(slots=True)
class _Group:
    """The pool's leaves of one class and medium: each a yardstick for the others."""

    members: list[Vdev]
    sorted_metrics: list[list[float]]  # UTIL, READ_WAIT, WRITE_WAIT, BYTES, ascending
    screens: list[float | None]  # per latency/util metric: below this, not slow (None: no verdict)


# A leaf the fast path judged plainly not slow: (verdict, its metrics, the sorted bytes/s its
# peers' median is taken from). The median itself is computed only by whoever needs it.
Quick = tuple[bool | None, Metrics, list[float]]


def sample_pool(
    pool: Pool,
    cfg: CheckConfig,
    explain_all: bool = False,
    pairs: Sequence[tuple[Vdev, Vdev]] | None = None,
) -> dict[str, LeafSample]:
    """One verdict per measurable leaf. A slow leaf's sample carries everything a finding shows
    (the peers' medians and who they are); a leaf that is plainly not slow (every metric under
    ratio x a bound no peer median can fall below) carries its verdict and its throughput, and
    none of the references: at 1,000 disks that is most of them, most of the time.
    `explain_all`: the full sample for every leaf (the reference the fast path is tested against);
    `pairs`: the pool's (top, leaf) pairs when the caller has them already."""
    return {
        key: s if isinstance(s, LeafSample) else quick_sample(s)
        for key, s in sample_pool_lazy(pool, cfg, explain_all, pairs).items()
    }


def quick_sample(q: Quick) -> LeafSample:
    """The LeafSample of a leaf the fast path decided (no references, its peers' throughput)."""
    slow, mine, _ = q
    return LeafSample(*mine, None, None, None, peer_bytes(q), (), slow)


def peer_bytes(q: Quick) -> float | None:
    """The median bytes/s of a fast-path leaf's peers (the figure its LeafSample carries)."""
    return _median_without(q[2], q[1][BYTES])


def sample_pool_lazy(
    pool: Pool,
    cfg: CheckConfig,
    explain_all: bool = False,
    pairs: Sequence[tuple[Vdev, Vdev]] | None = None,
) -> dict[str, LeafSample | Quick]:
    """sample_pool, with a `Quick` tuple for each leaf the fast path decides instead of its
    LeafSample: what a caller that needs only the verdict (and, for a busy leaf, the peers'
    throughput) reads, without a record and a median per leaf per tick."""
    pairs = [
        (top, leaf)
        for top, leaf in (leaves_with_top(pool) if pairs is None else pairs)
        if leaf.state in MEASURABLE_STATES
    ]
    leaves = [leaf for _, leaf in pairs]
    measured, busy_now = leaf_figures(pool, leaves)
    is_busy = dict(zip(map(id, leaves), busy_now))
    metrics = dict(zip(map(id, leaves), measured))
    # Each top-level vdev with its leaves and their metrics, in the order the pairs name them.
    by_top: dict[int, tuple[Vdev, list[Vdev], list[Metrics]]] = {}
    for (top, leaf), mine in zip(pairs, measured):
        entry = by_top.get(id(top))
        if entry is None:
            by_top[id(top)] = (top, [leaf], [mine])
        else:
            entry[1].append(leaf)
            entry[2].append(mine)
    floors = (
        (cfg.deranged_util_ratio, cfg.deranged_util_floor_pct),
        (cfg.deranged_latency_ratio, cfg.deranged_latency_floor_ms * 1e6),
        (cfg.deranged_latency_ratio, cfg.deranged_latency_floor_ms * 1e6),
    )
    # Pool-wide groups are shared by every leaf of one class and medium: build them once.
    groups: dict[tuple[str, str | None], _Group] = {}
    out: dict[str, LeafSample | Quick] = {}
    for top, mates, mates_metrics in by_top.values():
        # A vdev of like disks (the usual case) sorts its metrics once; each leaf's peers' median
        # is then that list without its own value (O(log n) per leaf, not a list and a sort).
        top_sorted = (
            [sorted([v for v in column if v is not None]) for column in zip(*mates_metrics)]
            if len({lf.medium for lf in mates} - {None}) <= 1  # every pair alike
            else None
        )
        alone = len(mates) == 1  # compared with the pool's other leaves
        quick = not explain_all and top_sorted is not None
        top_bytes = top_sorted[BYTES] if top_sorted is not None else []  # read only when quick
        # How many of the vdev's leaves measured each metric: a leaf's peers give a reference on
        # a metric only when another of them measured it (never the pool's leaves alone).
        measured_n = None if alone or top_sorted is None else [len(c) for c in top_sorted]
        group: _Group | None = None
        group_medium: object = _UNSET
        for leaf, mine in zip(mates, mates_metrics):
            if group is None or leaf.medium is not group_medium:  # like mates: one lookup
                group_medium = leaf.medium
                group = _group(groups, pairs, metrics, floors, top, leaf)
            if quick:
                decided, verdict = _quick(mine, group.screens, measured_n)
                if decided:
                    out[leaf.key] = (
                        verdict if verdict is not None and is_busy[id(leaf)] else None,
                        mine,
                        group.sorted_metrics[BYTES] if alone else top_bytes,
                    )
                    continue
            like = [lf for lf in mates if lf is not leaf and alike(lf.medium, leaf.medium)]
            # a mixed vdev: its like members when it has some, else all of them (a 2-way mirror
            # of an HDD and an SSD: each is the other's only peer)
            vdev_peers = like or [lf for lf in mates if lf is not leaf]
            by_design = not like and any(slower(leaf.medium, lf.medium) for lf in vdev_peers)
            vdev_sorted = top_sorted if len(vdev_peers) == len(mates) - 1 else None
            # Only a leaf alone in its vdev is compared with the pool's other leaves (built only
            # here: a list per leaf would cost O(n^2) on a pool of 1,000 single-disk vdevs).
            pool_others = [] if vdev_peers else [lf for lf in group.members if lf is not leaf]
            out[leaf.key] = _judge(
                leaf, is_busy[id(leaf)], vdev_peers, by_design, pool_others, group, metrics, cfg, vdev_sorted
            )
    return out


_UNSET = object()


def _group(
    groups: dict[tuple[str, str | None], _Group],
    pairs: Sequence[tuple[Vdev, Vdev]],
    metrics: dict[int, Metrics],
    floors: tuple[tuple[float, float], ...],
    top: Vdev,
    leaf: Vdev,
) -> _Group:
    """The pool-wide group of the leaf's class and medium, built the first time it is asked."""
    gkey = (top.vclass, leaf.medium)
    group = groups.get(gkey)
    if group is None:
        vclass, medium = top.vclass, leaf.medium
        members = [
            lf
            for t, lf in pairs
            if t.vclass == vclass and (medium is None or lf.medium is None or lf.medium == medium)
        ]  # alike(lf.medium, leaf.medium), inline: a pool's every leaf, once a tick
        # one column per metric (UTIL, READ_WAIT, WRITE_WAIT, BYTES), each sorted without its Nones
        columns = zip(*[metrics[id(lf)] for lf in members]) if members else [()] * 4
        ordered = [sorted([v for v in column if v is not None]) for column in columns]
        screens = [
            max(floor, ratio * _lower_bound(values)) if len(values) >= 2 else None
            for (ratio, floor), values in zip(floors, ordered)
        ]
        group = groups[gkey] = _Group(members, ordered, screens)
    return group


def _quick(
    mine: tuple[float | None, ...], screens: list[float | None], measured: list[int] | None
) -> tuple[bool, bool | None]:
    """(True, False): not slow on any metric that has a reference; (True, None): no metric has
    one (no evidence); (False, None): some metric reaches its screen, judge it exactly.
    `measured`: per metric, how many leaves of its vdev measured it (the leaf among them); None
    for a leaf alone in its vdev, whose reference is the pool's."""
    verdict = None
    for n in (UTIL, READ_WAIT, WRITE_WAIT):
        value, screen = mine[n], screens[n]
        if value is None or screen is None:
            continue
        if value >= screen:
            return False, None
        if measured is None or measured[n] > 1:
            verdict = False
    return True, verdict


def _judge(
    leaf: Vdev,
    is_busy: bool,
    vdev_peers: list[Vdev],
    by_design: bool,
    pool_others: list[Vdev],
    group: _Group,
    metrics: dict[int, Metrics],
    cfg: CheckConfig,
    vdev_sorted: list[list[float]] | None = None,
) -> LeafSample:
    mine = metrics[id(leaf)]
    refs: list[float | None] = []
    pool_refs: list[float | None] = []
    verdicts: list[bool] = []
    why = ""
    costly = False
    wait_judged = False  # a disk wait compared with a yardstick that could call it slow
    # Peers are the leaf's own vdev; a leaf alone in its vdev is compared with the pool.
    used_peers = vdev_peers or pool_others
    specs = slow_specs(cfg)
    # A leaf slower by design than its peers is judged against the pool's other leaves of its
    # medium, which sit in other vdevs and do other work. Its disk wait (per I/O) is its
    # medium's pace whatever the load: a hard disk of a larger vdev takes more writes and queues
    # a little more than one of a smaller (at most 3.1x in the lab's unequal mirrors, healthy),
    # a sick one waits many times longer (5-20x with a 400 ms delay). Its %util is load, not
    # pace: compared with theirs only while it does no more work than they do.
    util_comparable = not by_design or _no_more_work(mine[BYTES], group)
    for n, (index, ratio, floor, name, fmt) in enumerate(specs):
        value = mine[index]
        pool_ref = _median_without(group.sorted_metrics[n], value)
        pool_refs.append(pool_ref)
        if vdev_peers:
            # An idle vdev peer has no latency this second: no reference on this metric (the
            # pool's other vdevs do other work, they are never the only yardstick).
            ref = (
                _median_without(vdev_sorted[n], value)
                if vdev_sorted is not None
                else median_or_none(metrics[id(p)][index] for p in vdev_peers)
            )
        else:
            ref = pool_ref  # alone in its vdev: the pool is the only yardstick
        refs.append(ref)
        if value is None or ref is None:
            continue  # idle leaf, idle peers, or no kernel disk behind it
        # The pool's other leaves of its medium must say so too; for a leaf slower by design
        # than its peers they are the only ones that can (none: its pace is its medium's).
        comparable = util_comparable or index != UTIL
        beyond = (not by_design) if pool_ref is None else comparable and value >= ratio * pool_ref
        slow = value >= floor and value >= ratio * ref and beyond
        verdicts.append(slow)
        wait_judged = wait_judged or (index != UTIL and (pool_ref is not None or not by_design))
        if slow:
            costly = costly or index != UTIL
            if not why:
                why = (
                    f"{name} {fmt(value)} vs {fmt(pool_ref)} on the pool's other {leaf.medium} leaves"
                    f" ({fmt(ref)} on its faster peers)"
                    if by_design and pool_ref is not None
                    else f"{name} {fmt(value)} vs {fmt(ref)} on its peers"
                )
    if not is_busy:
        verdicts = []  # no I/O of its own: no evidence either way
    slow_now = any(verdicts) if verdicts else None
    return LeafSample(
        util=mine[UTIL],
        read_wait=mine[READ_WAIT],
        write_wait=mine[WRITE_WAIT],
        bytes=mine[BYTES],
        peer_util=refs[0],
        peer_read_wait=refs[1],
        peer_write_wait=refs[2],
        peer_bytes=(
            _median_without(vdev_sorted[3], mine[BYTES])
            if vdev_sorted is not None and vdev_peers
            else median_or_none(metrics[id(p)][BYTES] for p in used_peers)
        ),
        peers=_labels(used_peers, len(used_peers)),
        slow=slow_now,
        why_slow=why,
        # what a finding shows of the second yardstick (only a slow sample becomes one)
        pool_peers=_labels((lf for lf in group.members if lf is not leaf), len(group.members) - 1)
        if slow_now and vdev_peers
        else (),
        pool_util=pool_refs[0] if slow_now and vdev_peers else None,
        pool_read_wait=pool_refs[1] if slow_now and vdev_peers else None,
        pool_write_wait=pool_refs[2] if slow_now and vdev_peers else None,
        by_design=by_design,
        costly=costly and bool(slow_now),
        wait_normal=wait_judged and not costly and is_busy,
    )


def _no_more_work(nbytes: float | None, group: _Group) -> bool:
    """Did the leaf move no more bytes/s than the pool's other leaves of its medium (their
    median)? Unknown is not comparable: their numbers say nothing of it then."""
    theirs = _median_without(group.sorted_metrics[BYTES], nbytes)
    return nbytes is not None and theirs is not None and nbytes <= theirs


def _labels(leaves: Iterable[Vdev], count: int) -> tuple[str, ...]:
    """The first PEERS_SHOWN leaves' labels, and how many more there are."""
    shown = tuple(lf.label for lf in islice(leaves, PEERS_SHOWN))
    return shown + ((f"{count - PEERS_SHOWN} more",) if count > PEERS_SHOWN else ())
