"""Deranged disk: one leaf far slower than its peers while doing the same work or less.

Per sample (zdash.checks._deranged_samples), a leaf is *slow* when its %util or its disk_wait
is >= ratio x its vdev peers' median AND >= ratio x the pool's other leaves' of its medium AND
above an absolute floor (the pool's alone never decide it; a leaf of a slower medium than its
peers, an HDD beside an SSD, must be slow against the pool's other HDDs too); a sample in which
the leaf did no I/O is no evidence either way (an idle pool says nothing about a disk's speed).
The check keeps, per leaf, the verdicts of its last `lookback` busy samples:

- raised when at least `sustain` of them were slow (and the leaf moved no more than
  `tolerance` x its peers' bytes over them: a disk that is busier because it does more work is
  not sick), and they show what it costs: its vdev waited for it (its disk wait was slow in at
  least half of them), or the pool is slower since the onset and did not get faster (more
  throughput at no more wait): a disk slow by %util alone, in a pool that got faster, is not
  dragging it. A pool that got faster never clears a disk its vdev waited for (see _costs);
- once raised, held while the disk is slow whenever it is busy, through any idle gap;
- cleared after `clear` busy samples in a row measured normal.

It says when it began, how many busy samples were slow, when the disk was last seen slow, what
it costs the pool (throughput and latency before the onset vs since; the leaf's total_wait vs
disk_wait: queueing inside ZFS vs the device itself). ZFS's own verdicts join it: a SLOW count
that grows, a leaf ZED marked DEGRADED (or FAULTED with slow I/Os on record). The advice is the
slow-disk story (zdash.checks.stories): look first, then the two ways out with their costs,
each a guided plan: relief now (offline it: the pool's speed returns, its vdev loses one disk of
redundancy; a risk to accept where that leaves none) or safe (replace it onto a new disk while
it stays in: no redundancy lost, slow until the resilver ends).
"""

from __future__ import annotations

import copy
import dataclasses
import sys
import threading
from collections import deque
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from zdash.checks import tracker
from zdash.checks._common import (
    EVENTS_WINDOW_S,
    act,
    events_evidence,
    is_device_path,
    leaf_events,
    leaves_with_top,
    parents,
)
from zdash.checks._deranged_samples import BYTES, LeafSample, peer_bytes, sample_pool_lazy
from zdash.checks._evidence import leaf_evidence
from zdash.checks.finding import Finding, Severity, SuggestedAction
from zdash.checks.stories import slow_disk
from zdash.config import CheckConfig
from zdash.fmt import fmt_list, fmt_ms, fmt_pct, fmt_rate, fmt_time, plural
from zdash.model import IoStats, Pool, Snapshot, Vdev
from zdash.redundancy import margin, resilver_running

if TYPE_CHECKING:  # imported in a thread when a pool is first laid out (it imports numpy)
    from types import ModuleType

    from zdash.checks._deranged_columns import Columns

# zdash.checks._deranged_columns (and numpy with it), imported in a thread of its own the first
# time a pool could be laid out: numpy's import takes 0.1 s on an idle host and seconds on a
# slow one (4.8 s in the lab's VM, its files read over the VM's share), and a tick must not wait
# for it. Until it is in, pools are judged leaf by leaf, to the same verdicts.
_COLUMNS_READY = threading.Event()
_COLUMNS_LOADER: list[threading.Thread] = []


def _columns() -> ModuleType | None:
    """The array module once its import has finished, else None (its import started)."""
    if _COLUMNS_READY.is_set():
        return sys.modules["zdash.checks._deranged_columns"]
    if not _COLUMNS_LOADER:
        loader = threading.Thread(target=_load_columns, name="zdash-numpy-import", daemon=True)
        _COLUMNS_LOADER.append(loader)
        loader.start()
    return None


def _load_columns() -> None:
    try:
        import zdash.checks._deranged_columns  # noqa: F401
    except ImportError:  # no numpy that works here: leaf by leaf, as before
        return
    _COLUMNS_READY.set()


def columns_ready(timeout: float) -> bool:
    """Start the array module's import if it is not started and wait for it (tests, the bench)."""
    _columns()
    return _COLUMNS_READY.wait(timeout)


ID = "deranged_disk"
# Pools with fewer leaves are judged leaf by leaf (and never import numpy): below ~40 the
# arrays' fixed cost per tick is more than the per-leaf loop they replace (bench, one process).
ARRAYS_FROM_LEAVES = 40
# ZED degrades a disk after slow_io_n (10) slow I/Os within slow_io_t (600 s) (zed.rc defaults):
# with one look and no time span, fewer than that is not judged.
ZED_SLOW_IO_N = 10
# ZFS's ereports that speak of a disk's health: a delayed I/O (zio_slow_io_ms), checksum and I/O
# errors (what ZED counts before it degrades a disk).
EVENT_KINDS = ("delay", "checksum", "io")

WHY = (
    "Inside a vdev ZFS cannot route around a slow member: a mirror write completes only when "
    "every side has it and a raidz stripe only when every column is written (mirror reads may "
    "prefer the faster side, writes cannot), so the vdev runs at the pace of its slowest disk. "
    "Across vdevs the allocator gives a slow vdev fewer new blocks, but reads of the data "
    "already on it, and every transaction group sync that touches it, still wait for it. "
)


# The pool this much slower since the onset (throughput / this, or wait x this) is a cost; this
# much more throughput at no more wait is a pool that got faster.
POOL_CHANGE = 1.25


# The baseline is a mean of about this many of the pool's last busy samples while nothing is slow.
BASE_SAMPLES = 10


@dataclass
class _PoolIo:
    """Pool throughput and latency: a running mean while nothing is slow (the baseline), and
    sums since a finding's onset (the cost)."""

    base_bytes: float | None = None
    base_wait: float | None = None
    since_bytes: float = 0.0
    since_wait: float = 0.0
    since_n: int = 0
    base_n: int = 0  # busy samples in the baseline, up to BASE_SAMPLES

    def change(self) -> tuple[bool, bool]:
        """(slower, faster) since the onset than before it; neither without a baseline."""
        if self.base_bytes is None or not self.since_n:
            return False, False
        since_b = self.since_bytes / self.since_n
        since_w = self.since_wait / self.since_n if self.since_wait else None
        base_w = self.base_wait
        wait_up = since_w is not None and base_w is not None and since_w >= POOL_CHANGE * base_w
        wait_not_up = since_w is None or base_w is None or since_w <= base_w
        slower = since_b * POOL_CHANGE <= self.base_bytes or wait_up
        faster = since_b >= POOL_CHANGE * self.base_bytes and wait_not_up
        return slower, faster


@dataclass
class _Leaf:
    verdicts: deque[tuple[float, bool]] = field(default_factory=deque)  # (time, slow), busy samples only
    bytes_pairs: deque[tuple[float, float]] = field(default_factory=deque)  # (mine, peers' median)
    raised: bool = False
    onset: float | None = None
    last_slow: float | None = None
    slow_busy: int = 0  # since the onset
    busy: int = 0
    normal_run: int = 0
    last_slow_sample: LeafSample | None = None
    first_slow_ios: int | None = None
    # times of the slow samples its vdev waited on (made with the first: most leaves never need it)
    costly: deque[float] | None = None
    # A leaf slower by design than its vdev peers (an HDD beside an SSD): its own I/O wait
    # while it measured normal (a running mean, ns), the yardstick it must have left behind,
    # and its wait in its last slow sample
    own_wait: float | None = None
    own_n: int = 0
    slow_wait: float | None = None


def _bytes(io: IoStats | None) -> float | None:
    return None if io is None else io.read_bytes + io.write_bytes


def _wait(io: IoStats | None) -> float | None:
    if io is None:
        return None
    waits = [w for w in (io.total_wait_read, io.total_wait_write) if w]
    return max(waits) if waits else None


def _named_by_events(snap: Snapshot) -> frozenset[str]:
    """The GUIDs and paths of the leaves that an EVENT_KINDS ereport of the last
    EVENTS_WINDOW_S names (as leaf_events matches them; of any pool: a superset is safe)."""
    if not snap.events:
        return frozenset()
    now = snap.time
    recent = [
        e
        for e in snap.events
        if (e.vdev_guid is not None or e.vdev_path is not None)  # most events name no disk
        and now - e.time <= EVENTS_WINDOW_S
        and e.kind in EVENT_KINDS
    ]
    return frozenset(n for e in recent for n in (e.vdev_guid, e.vdev_path) if n is not None)


def _remember(
    st: _Leaf, verdict: tuple[float, bool], nbytes: float | None, peer: float | None, lookback: int
) -> None:
    """A busy sample's verdict, (time, slow), and its bytes/s and its peers', the last
    `lookback` of each kept. One tick's normal verdict is one tuple shared by every leaf (it is
    immutable): at 5,000 leaves, 5,000 fewer objects a tick for the collector to walk."""
    verdicts = st.verdicts
    verdicts.append(verdict)
    while len(verdicts) > lookback:  # a deque from an older keyframe has no maxlen
        verdicts.popleft()
    if nbytes is not None:
        pairs = st.bytes_pairs
        pairs.append((nbytes, peer if peer is not None else nbytes))
        while len(pairs) > lookback:
            pairs.popleft()


def _vdev_waited(st: _Leaf, slow_times: list[float]) -> bool:
    """Did its vdev wait for it: its disk wait slow (against its own vdev's peers, doing the same
    work, and the pool's other leaves of its medium) in at least half of its slow samples
    `slow_times`? A mirror write, a raidz stripe completes only when its slowest member has it."""
    if not slow_times:
        return False
    costly = sum(1 for t in st.costly or () if t >= slow_times[0])
    return 2 * costly >= len(slow_times)


def _costs(st: _Leaf, slow_times: list[float], pool_io: _PoolIo | None) -> bool:
    """Do its slow samples show a cost? Its vdev waited for it, or the pool is slower since the
    onset (never both slower and faster: see _PoolIo.change).

    The pool's throughput against before the onset vetoes only a disk slow by %util alone. %util
    is load as much as pace: a disk busier than its partner while the pool moves more (the
    issue's g1, 67 % against 19 % as the pool went from 36 to 110 MiB/s) shows no cost, and only
    the pool can tell. A disk wait many times its own vdev's peers' on the same writes, at the
    same moment, is a cost measured directly: the vdev completes at that disk's pace. The pool's
    before-and-after is then no counter-evidence: its baseline is whatever load came before the
    onset, and that may have been a lighter load, or a host that starved the pool (a lab run's
    baseline, 3.4 MiB/s at 690 ms pool wait, made the pool look faster after the onset and hid a
    disk slow in every busy sample, 40-86 ms against its peers' 3-26 ms, for 43 ticks)."""
    if _vdev_waited(st, slow_times):
        return True
    return pool_io is not None and pool_io.change()[0]


def own_wait(pool: Pool, leaf: Vdev) -> float | None:
    """Its I/O wait this sample (ns), the longer of read and write: the kernel's await where
    /proc/diskstats has the disk (exact per I/O; zpool iostat's disk wait comes from power-of-two
    histograms, a whole bucket apart), else zpool's disk wait. None without I/O."""
    disk, io = pool.disk_of(leaf), pool.io_of(leaf)
    if disk is not None and (disk.read_await_ms or disk.write_await_ms):
        return max(disk.read_await_ms or 0.0, disk.write_await_ms or 0.0) * 1e6
    waits = [w for w in (io.disk_wait_read, io.disk_wait_write) if w] if io is not None else []
    return max(waits) if waits else None


def _learn_own_wait(st: _Leaf, wait: float | None, lookback: int) -> None:
    """A normal busy sample of a leaf slower by design: its wait joins its own yardstick (a mean
    over about the last `lookback` such samples: a load that changes over hours moves it).

    The caller passes only a sample whose disk wait was judged normal against the pool's other
    leaves of its medium, while none of its last `lookback` busy samples was slow: a sick disk
    must not teach its own yardstick. A lab run's sick HDD (400-2,400 ms per write against its
    70 ms before) was never named: samples in which the other HDD was idle or stalled too (no
    comparison, or a host pause that slowed every disk) counted as normal, its yardstick climbed
    from 70 to 600 ms, and 4x that was out of reach."""
    if wait is None:
        return
    st.own_n = min(st.own_n + 1, lookback)
    st.own_wait = wait if st.own_wait is None else st.own_wait + (wait - st.own_wait) / st.own_n


def _beyond_itself(st: _Leaf, ratio: float) -> bool:
    """A leaf slower by design than its peers is named only once it is slower than itself too:
    its wait >= ratio x its own while it measured normal. Its peers cannot say it is sick (they
    are faster by design), the pool's other disks of its medium do other work (a hard disk of a
    busier vdev queues more: 6x the other's wait in the issue's healthy pool); a disk never seen
    normal runs at its design's pace, which media_mix speaks of."""
    w, own = st.slow_wait, st.own_wait
    return own is not None and w is not None and w >= ratio * own


def _normal(st: _Leaf, clear: int) -> None:
    """A busy sample measured normal: one more in the run that clears a raised finding."""
    st.normal_run += 1
    if st.raised:
        st.busy += 1
        if st.normal_run >= clear:
            st.raised, st.onset = False, None


@dataclass(frozen=True, slots=True)
class _Watched:
    """One pool's leaves as findings() looks them up, for one tree of leaves: every (top, leaf) pair
    in leaves_with_top order, as (the top's index in the pool's top-level vdevs, the leaf; None
    for a single-disk top, its own leaf: the tick's top is read, its space moves), the pairs
    marked by the tree itself (slow I/O counted, DEGRADED or FAULTED), and each pair's index by
    leaf key and by GUID and path (what ereports name)."""

    structure_id: int
    source: object  # the pairs it was made of (Tracker._pairs_of: the same list, the same leaves)
    tops: int
    pairs: tuple[tuple[int, Vdev | None], ...]
    marked: tuple[int, ...]
    by_key: dict[str, list[int]]
    by_name: dict[str, list[int]]

    @classmethod
    def of(cls, structure_id: int, tops: Sequence[Vdev], source: Sequence[tuple[Vdev, Vdev]]) -> _Watched:
        index = {id(top): i for i, top in enumerate(tops)}
        pairs: list[tuple[int, Vdev | None]] = []
        marked: list[int] = []
        by_key: dict[str, list[int]] = {}
        by_name: dict[str, list[int]] = {}
        for n, (top, leaf) in enumerate(source):
            pairs.append((index[id(top)], None if leaf is top else leaf))
            if leaf.slow_ios or leaf.state in ("DEGRADED", "FAULTED"):
                marked.append(n)
            by_key.setdefault(leaf.key, []).append(n)
            for name in {leaf.guid, leaf.path} - {None}:
                by_name.setdefault(name, []).append(n)  # type: ignore[arg-type]
        return cls(structure_id, source, len(index), tuple(pairs), tuple(marked), by_key, by_name)


class Tracker(tracker.Tracker):
    # the structure whose leaves were last counted (work saved, not memory); the leaves slow in
    # the last sample (remade by every observe); each pool's (top, leaf) pairs, kept while its
    # top-level vdevs have the same children; each pool's layout, with its leaves' memory in
    # the layout's order and their evidence in rings while it lives (Columns: memory() writes
    # the rings out first, a copy keeps its own); the leaves findings() must look at for their memory
    # (remade by every observe) (and per pool, where its leaves that a finding could be about
    # are found: _Watched)
    TRANSIENT = (
        "_keys_for",
        "_slow_now",
        "_pairs",
        "_layouts",
        "_watch",
        "_margins",
        "_margins_used",
        "_watched",
        "_made",
        "_made_now",
    )

    def __init__(self, cfg: CheckConfig) -> None:
        super().__init__(cfg)
        self._leaves: dict[tuple[str, str], _Leaf] = {}
        self._pool_io: dict[str, _PoolIo] = {}
        self._keys_for: int | None = None
        self._slow_now: dict[str, list[str]] | None = None
        self._pairs: dict[str, tuple[tuple[Vdev, ...], list[tuple[Vdev, Vdev]]]] | None = None
        self._layouts: dict[str, Columns | None] | None = None
        self._watch: set[tuple[str, str]] | None = None
        # What each finding's vdev could still lose without its disk, by the tree's objects:
        # the fold keeps them from tick to tick, and the same objects have the same margin.
        # Only the entries the last findings() used are kept.
        self._margins: dict[tuple[int, int, bool | None], tuple[Vdev, Vdev, int]] | None = None
        self._margins_used: dict[tuple[int, int, bool | None], tuple[Vdev, Vdev, int]] | None = {}
        self._watched: dict[str, _Watched] | None = None
        # What the last findings() made for each leaf (and this one's so far): its parts are
        # kept where their inputs are the same objects or read the same (see _Made).
        self._made: dict[tuple[str, str], _Made] | None = None
        self._made_now: dict[tuple[str, str], _Made] | None = {}

    def memory(self) -> dict[str, Any]:
        self._write_out()  # the rings into each leaf's memory: a keyframe holds it as before
        return super().memory()

    def __deepcopy__(self, memo: dict[int, Any]) -> tracker.Tracker:
        # a copy (a replay keyframe) keeps the layouts with their rings, its leaves' memory:
        # its first tick is read by arrays too, not leaf by leaf
        twin = super().__deepcopy__(memo)
        if self._layouts is not None:
            twin.__dict__["_layouts"] = copy.deepcopy(self._layouts, memo)
        return twin

    def _write_out(self) -> None:
        for cols in (self._layouts or {}).values():
            if cols is not None:
                cols.rings.to_leaves()

    def _pairs_of(self, pool: Pool) -> list[tuple[Vdev, Vdev]]:
        """leaves_with_top(pool) as a list, the same list while the pool's top-level vdevs are
        the same objects or have the same children (a top whose space moved is made anew each
        tick, with its children; a new `zpool status` that reads the same keeps the tree):
        no walk of the leaves per tick, and a layout kept without reading its signature."""
        tops = pool.top_level
        if self._pairs is None:
            self._pairs = {}
        made = self._pairs.get(pool.name)
        if made is not None and len(made[0]) == len(tops):
            for top, was in zip(tops, made[0]):
                if top is not was and not (
                    top.children and top.children is was.children and top.vclass == was.vclass
                ):
                    break
            else:
                return made[1]
        pairs = list(leaves_with_top(pool))
        self._pairs[pool.name] = (tops, pairs)
        return pairs

    def observe(self, snap: Snapshot) -> None:
        cfg = self.cfg
        leaves = self._leaves
        now = snap.time
        lookback, clear = cfg.deranged_lookback_samples, cfg.deranged_clear_samples
        normal = (now, False)  # this tick's normal verdict, shared (see _remember)
        # The leaves (and so the keys) change only with the structure: the bookkeeping of which
        # leaves are gone is done once per structure, not per tick (`seen` None: same as before).
        same = bool(snap.structure_id) and snap.structure_id == self._keys_for
        seen: set[tuple[str, str]] | None = None if same else set()
        laid: list[tuple[str, tuple[str, ...]]] = []  # pools read by layout: their leaves' keys
        slow_now: dict[str, list[str]] = {}
        watch: set[tuple[str, str]] = set()  # see findings()
        # Each pool's layout (zdash.checks._deranged_columns), kept while the structure is the
        # same and, when it changes, while its leaves read the same (a pool being written to
        # prints a new status every few seconds, and its leaves are those of the last one).
        if self._layouts is None or not snap.structure_id:
            self._write_out()
            self._layouts = {} if snap.structure_id else None
        if not snap.structure_id:
            self._pairs = None
        layouts = self._layouts
        for pool in snap.pools:
            name = pool.name
            pairs = self._pairs_of(pool) if snap.structure_id else list(leaves_with_top(pool))
            rebuilt = resilver_targets(pool)
            made = layouts.get(name) if layouts is not None else None
            if made is not None:
                from zdash.checks._deranged_columns import signature

                lay = made.layout
                if len(lay.keys) == len(pairs) and (
                    same or made.reads(pairs) or signature(pairs) == lay.signature
                ):
                    if seen is not None:  # counted now, named only if some leaf is gone (below)
                        laid.append((name, lay.keys))
                    self._observe_columns(name, pool, pairs, made, rebuilt, now, slow_now, watch)
                    continue
                made.rings.to_leaves()  # its leaves judged one by one from here
            samples = sample_pool_lazy(pool, cfg, pairs=pairs)
            any_raised = any_slow = False
            for _top, leaf in pairs:
                leaf_key = leaf.key
                key = (name, leaf_key)
                if seen is not None:
                    seen.add(key)
                st = leaves.get(key)
                if st is None:
                    st = leaves[key] = _Leaf(deque(maxlen=lookback), deque(maxlen=lookback))
                slow_ios = leaf.slow_ios
                if slow_ios is not None and (st.first_slow_ios is None or slow_ios < st.first_slow_ios):
                    # first seen, or reset by `zpool clear`; one look (a paste) sees only the
                    # count since the last clear: all of it is what ZFS counted
                    first = st.first_slow_ios is None
                    st.first_slow_ios = 0 if first and cfg.one_look else slow_ios
                s = samples.get(leaf_key)
                if s is None:
                    slow = None
                elif type(s) is tuple:  # the fast path's verdict: never slow (_judge's normal case)
                    slow = s[0]
                    if slow is not None and leaf_key not in rebuilt:
                        nbytes = s[1][BYTES]
                        peer = peer_bytes(s) if nbytes is not None else None
                        _remember(st, normal, nbytes, peer, lookback)
                        _normal(st, clear)
                else:  # judged in full
                    assert isinstance(s, LeafSample)
                    slow = s.slow
                    if slow is not None and leaf_key not in rebuilt:
                        wait = own_wait(pool, leaf) if s.by_design else None
                        self._judge(st, slow, s.bytes, s.peer_bytes, s, now, self._pool_io.get(name), wait)
                if st.raised:
                    any_raised = True
                if st.raised or (st.first_slow_ios or 0) < 0:
                    watch.add(key)
                if slow is None or leaf_key in rebuilt:
                    continue  # no evidence this sample (idle, unmeasurable, being rebuilt)
                if slow:
                    any_slow = True
                    slow_now.setdefault(name, []).append(leaf.label)
            self._pool_cost(pool, any_raised, any_slow)
            if (
                layouts is not None
                and (not same or name not in layouts)
                and len(pairs) >= ARRAYS_FROM_LEAVES
                and (arrays := _columns()) is not None
            ):  # read as arrays next
                laid_out = arrays.layout(pairs)
                layouts[name] = (
                    None
                    if laid_out is None
                    else arrays.Columns(laid_out, [leaves[name, k] for k in laid_out.keys], lookback, pairs)
                )
        if seen is not None:
            # Every key seen is one of `leaves` (each layout's keys are distinct, and pools are):
            # as many seen as known is all of them, the usual case, and no key is built.
            if len(seen) + sum(len(keys) for _, keys in laid) != len(leaves):
                for name, keys in laid:
                    seen.update((name, k) for k in keys)
                for gone in set(leaves) - seen:
                    del leaves[gone]
            self._keys_for = snap.structure_id
            if layouts:  # a pool gone: its leaves' memory went with it, its layout goes too
                self._layouts = {p.name: layouts[p.name] for p in snap.pools if p.name in layouts}
            if self._pairs:
                self._pairs = {p.name: self._pairs[p.name] for p in snap.pools if p.name in self._pairs}
        self._slow_now = slow_now
        self._watch = watch

    def _observe_columns(
        self,
        name: str,
        pool: Pool,
        pairs: list[tuple[Vdev, Vdev]],
        cols: Columns,
        rebuilt: frozenset[str],
        now: float,
        slow_now: dict[str, list[str]],
        watch: set[tuple[str, str]],
    ) -> None:
        """observe() for a pool whose layout is known: the plainly normal leaves' evidence
        written into its rings in one pass over arrays, the others judged in full (their
        memory read out of the rings and back) and taken in as observe() takes them. (A leaf's
        first SLOW count is taken where its layout is made: the count is the structure's, the
        same every tick of it.)"""
        from zdash.checks._deranged_columns import observe_pool

        lay, rings = cols.layout, cols.rings
        pool_io = self._pool_io.get(name)
        any_slow = False
        for j, s in observe_pool(pool, pairs, cols, rebuilt, self.cfg, now):
            slow = s.slow
            i = lay.measured[j]
            if slow is None or lay.keys[i] in rebuilt:
                continue
            leaf = pairs[i][1]
            wait = own_wait(pool, leaf) if s.by_design else None
            rings.to_leaf(j)
            self._judge(cols.states[i], slow, s.bytes, s.peer_bytes, s, now, pool_io, wait)
            rings.from_leaf(j)
            if slow:
                any_slow = True
                slow_now.setdefault(name, []).append(lay.labels[i])
        raised = rings.raised
        any_raised = bool(raised.any())
        for j in raised.nonzero()[0].tolist():
            watch.add((name, lay.keys[lay.measured[j]]))
        for i in cols.watched:  # not measured and raised, or a SLOW count below zero
            watch.add((name, lay.keys[i]))
            any_raised = any_raised or cols.states[i].raised
        self._pool_cost(pool, any_raised, any_slow)

    def outliers(self, findings: Sequence[Finding]) -> dict[str, frozenset[str]]:
        """By pool, the leaves to mark as outliers: every leaf this check names (its verdict,
        sustained over time, is the authority) and every leaf it judged slow in the last sample
        alone (a disk being resilvered onto is busiest by design and is not)."""
        marked: dict[str, set[str]] = {p: set(labels) for p, labels in (self._slow_now or {}).items()}
        for f in findings:
            if f.check == ID and f.subject_kind == "leaf" and f.pool is not None:
                marked.setdefault(f.pool, set()).add(f.subject)
        return {p: frozenset(labels) for p, labels in marked.items()}

    def _judge(
        self,
        st: _Leaf,
        slow: bool,
        nbytes: float | None,
        peer: float | None,
        s: LeafSample | None,
        now: float,
        pool_io: _PoolIo | None = None,
        wait: float | None = None,
    ) -> None:
        """One busy sample's evidence: its verdict, its bytes/s and its peers' (`s`, the whole
        sample, is kept when it is slow: the finding shows it); `wait`, its own_wait, read only
        for a leaf slower by design than its peers."""
        cfg = self.cfg
        lookback, clear = cfg.deranged_lookback_samples, cfg.deranged_clear_samples
        if not slow:
            _remember(st, (now, False), nbytes, peer, lookback)
            _normal(st, clear)
            if s is not None and s.by_design and s.wait_normal and not any(v for _, v in st.verdicts):
                _learn_own_wait(st, wait, lookback)
            return
        _remember(st, (now, True), nbytes, peer, lookback)
        st.last_slow, st.last_slow_sample, st.normal_run = now, s, 0
        if s is not None and s.by_design:
            st.slow_wait = wait
        if s is not None and s.costly:
            if st.costly is None:
                st.costly = deque()
            st.costly.append(now)
            while len(st.costly) > lookback:
                st.costly.popleft()
        if st.raised:
            st.busy += 1
            st.slow_busy += 1
            if st.normal_run >= clear:
                st.raised, st.onset = False, None
        else:  # only a slow sample can raise it (the common normal one costs nothing more)
            slow_times = [t for t, was_slow in st.verdicts if was_slow]
            if (
                len(slow_times) >= cfg.deranged_sustain_samples
                and self._throughput_ok(st)
                and _costs(st, slow_times, pool_io)
                and (s is None or not s.by_design or _beyond_itself(st, cfg.deranged_latency_ratio))
            ):
                st.raised, st.onset = True, slow_times[0]  # it began with the first slow sample
                st.busy = sum(1 for t, _ in st.verdicts if t >= st.onset)
                st.slow_busy = len(slow_times)

    def _throughput_ok(self, st: _Leaf) -> bool:
        if not st.bytes_pairs:
            return True  # nothing says it does more work: latency/util alone decide
        mine = sum(m for m, _ in st.bytes_pairs) / len(st.bytes_pairs)
        theirs = sum(p for _, p in st.bytes_pairs) / len(st.bytes_pairs)
        return theirs <= 0 or mine <= self.cfg.deranged_throughput_tolerance * theirs

    def _pool_cost(self, pool: Pool, raised: bool, slow: bool) -> None:
        """A sample with a slow leaf counts towards the cost (from the first slow sample, before
        the finding is raised); one with none, while nothing is raised, towards the baseline."""
        io = pool.io_of(pool.root)
        b, w = _bytes(io), _wait(io)
        st = self._pool_io.setdefault(pool.name, _PoolIo())
        if b is None or b <= 0:
            return  # idle: neither a baseline nor a cost
        if raised or slow:
            st.since_bytes += b
            st.since_wait += w or 0.0
            st.since_n += 1
        else:
            # The plain mean of its first busy samples, then a moving one over about the last
            # BASE_SAMPLES. Seeded with its first sample and moved a tenth at a time, the mean
            # kept half of that sample after six more: under bursty load the first was the 0.14
            # MiB tail of a burst, the 24 MiB bursts after it weighed half, and a pool moving 11
            # MiB/s with a sick disk read as "1.25x faster than before" (its finding held back 18 s).
            st.base_n = min(st.base_n + 1, BASE_SAMPLES)
            alpha = 1 / st.base_n
            st.base_bytes = b if st.base_bytes is None else (1 - alpha) * st.base_bytes + alpha * b
            if w is not None:
                st.base_wait = w if st.base_wait is None else (1 - alpha) * st.base_wait + alpha * w
            st.since_bytes = st.since_wait = 0.0
            st.since_n = 0

    def findings(self, snap: Snapshot) -> list[Finding]:
        out: list[Finding] = []
        # The leaves ZFS's recent ereports name (what _finding cites): any other leaf is quiet.
        # Most of a real event log is about no leaf at all (a history event per `zfs snapshot`
        # from cron, config syncs, scrub starts): asking each leaf about each event cost a
        # 1,000-disk tick ~35 ms per 200 events in the last hour.
        named = _named_by_events(snap)
        # The leaves whose memory alone could make a finding: a quiet, healthy leaf with no slow
        # I/O outside this set has nothing to say, known without a lookup (the common case).
        # (Kept by observe(): the leaves in a pool read by layout from its rings, in O(raised).)
        watch = self._watch
        if watch is None:
            watch = {k for k, st in self._leaves.items() if st.raised or (st.first_slow_ios or 0) < 0}
        layouts = self._layouts
        self._margins, self._margins_used = self._margins_used, {}
        self._made, self._made_now = self._made_now, {}
        for pool in snap.pools:
            for top, leaf in self._to_ask(snap.structure_id, pool, named, watch):
                quiet = not named or (leaf.guid not in named and leaf.path not in named)
                if (
                    quiet
                    and not leaf.slow_ios
                    and leaf.state not in ("DEGRADED", "FAULTED")
                    and (not watch or (pool.name, leaf.key) not in watch)
                ):
                    continue
                st = self._leaves.get((pool.name, leaf.key))
                if st is None or (
                    quiet
                    and not st.raised
                    and leaf.state not in ("DEGRADED", "FAULTED")
                    and (leaf.slow_ios or 0) <= (st.first_slow_ios or 0)
                ):
                    continue  # nothing _finding could say (the common case, cheaply)
                if layouts and (cols := layouts.get(pool.name)) is not None:
                    cols.flush(leaf.key)  # its memory out of the rings, whole
                if (f := self._finding(snap, pool, top, leaf, st)) is not None:
                    out.append(f)
        return out

    def _to_ask(
        self, structure_id: int, pool: Pool, named: frozenset[str], watch: set[tuple[str, str]]
    ) -> list[tuple[Vdev, Vdev]] | Iterator[tuple[Vdev, Vdev]]:
        """The pool's (top, leaf) pairs findings() must look at, in leaves_with_top order: those
        with slow I/O counted or DEGRADED or FAULTED, those ZFS's recent ereports name (`named`)
        and those whose memory could make a finding (`watch`). All of them where the snapshot
        has no structure number (one built by hand); else found through a _Watched kept per
        structure: a quiet 1,000-disk pool is not walked every tick."""
        if not structure_id:
            return leaves_with_top(pool)
        if self._watched is None:
            self._watched = {}
        w = self._watched.get(pool.name)
        tops = pool.top_level
        if w is None or w.tops != len(tops) or w.structure_id != structure_id:
            # a new structure whose leaves are those of the last (Tracker._pairs_of) keeps it
            pairs = self._pairs_of(pool)
            if w is not None and w.tops == len(tops) and w.source is pairs:
                w = self._watched[pool.name] = dataclasses.replace(w, structure_id=structure_id)
            else:
                assert self._pairs is not None
                w = self._watched[pool.name] = _Watched.of(structure_id, self._pairs[pool.name][0], pairs)
        asked = set(w.marked)
        if named:
            for n in named:
                asked.update(w.by_name.get(n, ()))
        if watch:
            for pool_name, key in watch:
                if pool_name == pool.name:
                    asked.update(w.by_key.get(key, ()))
        out = []
        for i in sorted(asked):
            top_index, leaf = w.pairs[i]
            top = tops[top_index]
            out.append((top, top if leaf is None else leaf))  # a single-disk top is its own leaf
        return out

    def _finding(self, snap: Snapshot, pool: Pool, top: Vdev, leaf: Vdev, st: _Leaf) -> Finding | None:
        reasons: list[str] = []
        evidence: list[tuple[str, str]] = []
        pool_slower, pool_faster = self._pool_change(pool)
        # A finding whose own evidence says the pool got faster is not shown (what raised it may
        # have been a load that grew, not a disk that slowed), unless its vdev waited for it in
        # its recent busy samples: the same rule as the raise (_costs says why).
        waited = _vdev_waited(st, [t for t, was_slow in st.verdicts if was_slow])
        if st.raised and st.last_slow_sample is not None and (waited or not pool_faster):
            s = st.last_slow_sample
            reasons.append(s.why_slow)
            evidence += [
                ("Since", f"{fmt_time(st.onset)}"),
                ("Slow samples", f"{st.slow_busy} of {st.busy} busy samples (idle ones are no evidence)"),
                ("Last seen slow", fmt_time(st.last_slow)),
                ("%util", f"{fmt_pct(s.util)} vs peers {fmt_pct(s.peer_util)}"),
                ("Disk wait read", f"{fmt_ms(s.read_wait)} vs peers {fmt_ms(s.peer_read_wait)}"),
                ("Disk wait write", f"{fmt_ms(s.write_wait)} vs peers {fmt_ms(s.peer_write_wait)}"),
                ("Throughput", f"{fmt_rate(s.bytes)} vs peers {fmt_rate(s.peer_bytes)}"),
                *_compared(top, leaf, s, st),
                ("Cost", _cost_line(top, st, pool_slower, pool_faster)),
            ]
            evidence += self._cost(pool, leaf)
        slow_now = leaf.slow_ios or 0
        slow_growth = max(slow_now - (st.first_slow_ios if st.first_slow_ios is not None else slow_now), 0)
        if self.cfg.one_look and slow_growth < ZED_SLOW_IO_N:
            slow_growth = 0  # one look, no rate: below what ZED itself counts as a fault
        if slow_growth:
            reasons.append(
                f"ZFS counted {slow_growth} slow I/Os since its counters were last cleared"
                if self.cfg.one_look
                else f"ZFS counted {slow_growth} new slow I/Os"
            )
        # ZFS's own evidence: delay ereports (an I/O slower than zio_slow_io_ms, 30 s by default),
        # and the checksum and io ereports ZED counts before it degrades a disk.
        found = leaf_events(snap, pool, leaf, EVENT_KINDS)
        if found["delay"]:
            reasons.append(f"ZFS logged {len(found['delay'])} delay events for it in 10 minutes")
        if (ev := events_evidence(found)) is not None:
            evidence.append(ev)
        if leaf.state == "DEGRADED" or (leaf.state == "FAULTED" and (reasons or slow_now)):
            reasons.append(f"ZFS marked it {leaf.state}" + (f" ({leaf.aux})" if leaf.aux else ""))
            evidence.append(("State", leaf.state))
        if not reasons:
            return None
        if slow_now:
            evidence.append(
                ("Slow I/Os (SLOW)", f"{slow_now}" + (f" (+{slow_growth})" if slow_growth else ""))
            )
        made = self._made.get((pool.name, leaf.key)) if self._made else None
        # What an expert fetches next, once zdash has fetched it: SMART, the latency histogram
        # against the peers', the kernel log since the onset (zdash.checks._evidence): the same
        # rows while the evidence, the vdev and the leaf are the same objects and the onset too.
        fetched = (snap.evidence, top, leaf, st.onset)
        if made is not None and _same(made.fetched, fetched):
            evidence += made.fetched_rows
        else:
            made_rows = leaf_evidence(snap, pool, top, leaf, st.onset)
            evidence += made_rows
            made = _Made(fetched, made_rows, made.advised if made else (), made.finding if made else None)
        left = self._left_without(pool, top, leaf)
        advised_for = (pool.name, top.name, leaf.label, leaf.state, left)
        if made.advised[:1] != (advised_for,):
            made.advised = (advised_for, _advice(top, leaf, left), _actions(pool, top, leaf, left))
        last = made.finding
        finding = Finding(
            ID,
            Severity.WARNING,
            pool.name,
            leaf.label,
            "leaf",
            title=f"{leaf.label} is dragging {top.name}: {reasons[0]}",
            why=WHY + "Evidence: " + "; ".join(reasons) + ".\n\n" + made.advised[1],
            evidence=_rows_kept(last.evidence if last is not None else (), evidence),
            actions=made.advised[2],
        )
        if last is not None and finding == last:
            finding = last  # read the same as last time: the finding made then
        made.finding = finding
        if self._made_now is not None:
            self._made_now[pool.name, leaf.key] = made
        return finding

    def _left_without(self, pool: Pool, top: Vdev, leaf: Vdev) -> int:
        """_left_without, the last findings()' answer when the tree is the same objects."""
        resilvering = resilver_running(pool)
        key = (id(top), id(leaf), resilvering)
        hit = self._margins.get(key) if self._margins else None
        if hit is None or hit[0] is not top or hit[1] is not leaf:
            hit = (top, leaf, _left_without(pool, top, leaf))
        if self._margins_used is not None:
            self._margins_used[key] = hit
        return hit[2]

    def _pool_change(self, pool: Pool) -> tuple[bool, bool]:
        st = self._pool_io.get(pool.name)
        return st.change() if st is not None else (False, False)

    def _cost(self, pool: Pool, leaf: Vdev) -> list[tuple[str, str]]:
        out: list[tuple[str, str]] = []
        st = self._pool_io.get(pool.name)
        if st is not None and st.base_bytes is not None and st.since_n:
            since_b = st.since_bytes / st.since_n
            out.append(
                (
                    "Pool throughput",
                    f"{fmt_rate(since_b)} since the onset vs {fmt_rate(st.base_bytes)} before",
                )
            )
            if st.base_wait and st.since_wait:
                out.append(
                    (
                        "Pool wait",
                        f"{fmt_ms(st.since_wait / st.since_n)} since vs {fmt_ms(st.base_wait)} before",
                    )
                )
        io = pool.io_of(leaf)
        if io is not None:
            total = _wait(io)
            disk = max((w for w in (io.disk_wait_read, io.disk_wait_write) if w), default=None)
            if total is not None and disk is not None:
                where = (
                    "mostly queueing inside ZFS behind the device"
                    if total > 2 * disk
                    else "mostly the device itself"
                )
                out.append(("Total vs disk wait", f"{fmt_ms(total)} vs {fmt_ms(disk)}: {where}"))
        return out


@dataclass(slots=True)
class _Made:
    """What findings() made for one leaf, kept for the next findings() (a slow disk's finding is
    made again every tick, its evidence moving): the fetched evidence rows (SMART, histograms,
    the kernel log) and what they were read for (the snapshot's Evidence, the vdev, the leaf,
    the onset: the same objects, the same rows), the advice and actions and what they say of
    (pool, vdev, leaf, its state, the redundancy left), and the finding made. A new finding
    holds the last one's evidence rows that read the same, and is the last one if it reads the
    same whole: what a tick keeps alive is the rows that moved."""

    fetched: tuple[object, ...]
    fetched_rows: list[tuple[str, str]]
    advised: tuple[Any, ...]  # ((pool, vdev, leaf, state, left), advice, actions), or ()
    finding: Finding | None


def _same(a: tuple[object, ...], b: tuple[object, ...]) -> bool:
    """The fetched evidence's inputs: the same objects, and the same onset."""
    return a[0] is b[0] and a[1] is b[1] and a[2] is b[2] and a[3] == b[3]


def _rows_kept(last: tuple[tuple[str, str], ...], rows: list[tuple[str, str]]) -> tuple[tuple[str, str], ...]:
    """`rows` as a tuple, each that reads as the last finding's row in its place being that row."""
    if not last:
        return tuple(rows)
    return tuple(o if o == r else r for o, r in zip(last, rows)) + tuple(rows[len(last) :])


def _compared(top: Vdev, leaf: Vdev, s: LeafSample, st: _Leaf) -> list[tuple[str, str]]:
    """Which disks it was compared with: its vdev's (or, alone in its vdev, the pool's), then the
    pool's other leaves of its medium, the second yardstick it had to fail too; a leaf slower by
    design than its peers, with itself while it measured normal."""
    own = fmt_list(list(s.peers)) or "none"
    if not s.pool_peers:  # alone in its vdev: the pool's leaves were its peers
        why = "it is a vdev of its own" if top is leaf else f"no other member of {top.name} measured"
        return [("Compared with", f"{own} (the pool's other disks: {why})")]
    design = f", of a faster medium than its {leaf.medium}" if s.by_design else ""
    rows = [("Compared with", f"{own} ({top.name}{design})")]
    if set(s.pool_peers) != set(s.peers):
        kind = f"{leaf.medium} " if leaf.medium else ""
        rows.append(
            (
                "And with",
                f"{fmt_list(list(s.pool_peers))} (the pool's other {kind}leaves: %util "
                f"{fmt_pct(s.pool_util)}, disk wait read {fmt_ms(s.pool_read_wait)}, "
                f"write {fmt_ms(s.pool_write_wait)})",
            )
        )
    if s.by_design and st.own_wait is not None:
        rows.append(
            (
                "And with itself",
                f"I/O wait {fmt_ms(st.slow_wait)} vs {fmt_ms(st.own_wait)} while it measured normal",
            )
        )
    return rows


def _cost_line(top: Vdev, st: _Leaf, pool_slower: bool, pool_faster: bool = False) -> str:
    """What its slowness costs, as the raise found it: its vdev waiting for it, the pool slower;
    and why a pool that moved more since the onset does not clear a disk its vdev waited for."""
    onset = st.onset if st.onset is not None else 0.0
    waited = sum(1 for t in st.costly or () if t >= onset)
    parts = []
    if waited:
        parts.append(
            f"{top.name} waited for it: its disk wait was slow in {plural(waited, 'sample')} since the onset"
        )
    if pool_slower:
        parts.append("the pool is slower since the onset (below)")
    elif waited and pool_faster:
        parts.append(
            "the pool moved more since the onset than before it (below), which does not clear it:"
            " the pool's throughput follows its load, its vdev's peers did the same work meanwhile"
        )
    return "; ".join(parts) or "none measured since the onset"


def check(history: Sequence[Snapshot], cfg: CheckConfig) -> list[Finding]:
    return tracker.fold(Tracker, history, cfg)


def resilver_target(pool: Pool, leaf: Vdev, parent: Vdev | None) -> bool:
    """A disk a resilver is writing onto is the busiest of its vdev by design, not sick."""
    return _resilvering(pool) and _rebuilt(leaf, parent)


def resilver_targets(pool: Pool) -> frozenset[str]:
    """Keys of the leaves a running resilver writes onto (none, without a walk, when no
    resilver runs: the common case, checked once per pool rather than per leaf)."""
    if not _resilvering(pool):
        return frozenset()
    up = parents(pool.root)
    return frozenset(leaf.key for leaf in pool.leaves() if _rebuilt(leaf, up.get(id(leaf))))


def _resilvering(pool: Pool) -> bool:
    return any(s.function == "resilver" and s.state == "scanning" for s in pool.scans)


def _rebuilt(leaf: Vdev, parent: Vdev | None) -> bool:
    return (parent is not None and parent.kind in ("replacing", "spare")) or "resilvering" in (leaf.aux or "")


def _left_without(pool: Pool, top: Vdev, leaf: Vdev) -> int:
    """What the vdev could still lose with this disk out (the redundancy model's word)."""
    return margin(top, without=leaf, resilvering=resilver_running(pool)).left


def _advice(top: Vdev, leaf: Vdev, left: int) -> str:
    if leaf.state == "FAULTED":
        return "ZFS has already stopped using it; replace it."
    # One paragraph each: the rule, what to look at, each way out, what it costs here.
    return "\n\n".join(slow_disk(top.name, left))


def _actions(pool: Pool, top: Vdev, leaf: Vdev, left: int) -> tuple[SuggestedAction, ...]:
    """Look, then the two ways out, each a guided plan whose label says what it costs."""
    actions = []
    if is_device_path(leaf.label):  # smartctl needs the device itself, not a name zpool knows
        actions.append(act(f"Look first: {leaf.label}'s SMART data", None, "smartctl", "-a", leaf.label))
    if leaf.state not in ("FAULTED", "OFFLINE") and left >= 0:
        cost = (
            f"{top.name} can still lose {plural(left, 'more disk')} while it is out"
            if left >= 1
            else f"a risk to accept: {top.name} is left with no redundancy while it is out"
        )
        actions.append(
            act(
                f"Relief now: offline {leaf.label} (pool speed returns; {cost})",
                "offline",
                "zpool",
                "offline",
                pool.name,
                leaf.label,
            )
        )
    safe = (
        "ZFS has already stopped using it"
        if leaf.state == "FAULTED"
        else "it stays in: no redundancy lost, the pool stays slow until the resilver ends"
    )
    actions.append(
        SuggestedAction(
            f"Safe: replace {leaf.label} with a new disk ({safe})",
            ("zpool", "replace", pool.name, leaf.label),
            "replace",
            new_device=None if leaf.state == "FAULTED" else "required",  # never pull it first
        )
    )
    return tuple(actions)
