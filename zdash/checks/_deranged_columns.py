"""The deranged_disk check's per-tick pass as arrays over a layout kept per structure.

What a tick changes in a pool is its numbers, not its tree: which leaves there are, which of
them can be measured, how they group by top-level vdev and by class and medium change only when
`zpool status`, `zpool list` or the device facts do (Snapshot.structure_id), and mostly not even
then. A `Layout` holds all of that, built once per layout of leaves, with the index arrays a
tick needs; its leaves' evidence (the check's memory of each: zdash.checks.deranged_disk._Leaf's
verdicts, byte pairs and run of normal samples) lives in `Rings` while the layout does, one
array row per leaf. Each tick then reads the leaves' figures into one array per metric, screens
every leaf at once (array compares against its group's screens), takes each plainly normal
busy leaf's peers' median throughput by index arithmetic on its vdev's sorted row, and writes
the tick's evidence into the rings: no Python work per leaf, no object per leaf.

numpy is imported here and nowhere else: zdash.checks.deranged_disk imports this module in a
thread the first time a pool could be laid out, and judges leaf by leaf until it is in (`zdash
--version` and a paste never import it; no tick waits for it). docs/architecture.md says why
numpy (the measured gain).

The verdicts are those of zdash.checks._deranged_samples.sample_pool_lazy to the bit (the same
screens, the same medians as (a + b) / 2 in float64, the same order of work;
tests/checks/test_deranged_columns.py folds both over the same ticks and compares the
findings, the marks and the keyframes): a leaf the screens do not decide is judged in full by
the same `_judge`, its memory read out of the rings for the tracker and written back after. A
pool the layout does not cover (a vdev mixing media, two leaves under one key) goes the
per-leaf way instead. A keyframe holds the per-leaf memory as before (`Rings.to_leaves`
writes it out first): the format did not change; a copy (a replay keyframe) copies the rings.
"""

from __future__ import annotations

import copy
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import chain
from typing import Any

import numpy as np
import numpy.typing as npt

from zdash.checks._deranged_samples import (
    BUSY_OPS,
    BUSY_UTIL,
    BYTES,
    MEASURABLE_STATES,
    LeafSample,
    Metrics,
    _Group,
    _judge,
    leaf_figures,
)
from zdash.config import CheckConfig
from zdash.model import Pool, Vdev

GroupKey = tuple[str, str | None]  # (vdev class, medium), as _deranged_samples._group keys them
Floats = npt.NDArray[np.float64]
Ints = npt.NDArray[np.intp]
Bools = npt.NDArray[np.bool_]
NAN = float("nan")
# Above this many comparisons a vdev's rank of each leaf is found row by row (a pool of a few
# very wide vdevs), not in one [leaves x width] compare.
_WIDE = 1 << 21


@dataclass(frozen=True, slots=True)
class Layout:
    """One pool's leaves as the check walks them (leaves_with_top order), for one structure.
    `measured`: the pairs' indexes of the measurable leaves (their states), in order; the rest
    of the layout indexes those. `tops`: per top-level vdev, (start, end) of its leaves."""

    signature: tuple[object, ...]  # what it was made of (signature())
    keys: tuple[str, ...]  # per pair
    labels: tuple[str, ...]  # per pair
    measured: tuple[int, ...]
    tops: tuple[tuple[int, int], ...]
    group_of: tuple[GroupKey, ...]  # per measured leaf
    groups: dict[GroupKey, tuple[int, ...]]  # per group, its members (measured indexes)
    # the same as arrays: per measured leaf its top's index, its group's index, alone in its top
    top_of: Ints
    starts: Ints  # each top's first measured leaf
    group_index: Ints
    alone: Bools
    members: tuple[Ints, ...]  # per group (in `groups` order)
    pad: Ints  # [tops x widest]: each top's leaves, then len(measured) (a NaN) to the width


def signature(pairs: Sequence[tuple[Vdev, Vdev]]) -> tuple[object, ...]:
    """Everything a layout (and the tracker's per-leaf work outside it) reads of the pairs: a
    new `zpool status` of a pool being written to (a new structure every few seconds) mostly
    gives the same, and the layout is kept."""
    tops: list[int] = []
    last = None
    for n, (top, _) in enumerate(pairs):
        if top is not last:
            tops.append(n)
            last = top
    return (
        tuple(tops),
        tuple(top.vclass for top, _ in pairs),
        tuple(leaf.key for _, leaf in pairs),
        tuple(leaf.label for _, leaf in pairs),
        tuple(leaf.state for _, leaf in pairs),
        tuple(leaf.medium for _, leaf in pairs),
        tuple(leaf.slow_ios for _, leaf in pairs),
    )


def layout(pairs: Sequence[tuple[Vdev, Vdev]]) -> Layout | None:
    """The layout of a pool's (top, leaf) pairs, or None where the per-leaf way must judge: a
    top-level vdev mixing media (its leaves are judged against their like members, one by one)
    or two leaves under one key (whose samples the per-leaf way merges, the last one winning)."""
    keys = tuple(leaf.key for _, leaf in pairs)
    if len(set(keys)) != len(keys):
        return None
    measured = tuple(i for i, (_, leaf) in enumerate(pairs) if leaf.state in MEASURABLE_STATES)
    tops: list[tuple[int, int]] = []
    top_ids: list[int] = []
    for j, i in enumerate(measured):
        top = pairs[i][0]
        if top_ids and top_ids[-1] == id(top):
            tops[-1] = (tops[-1][0], j + 1)
        else:
            top_ids.append(id(top))
            tops.append((j, j + 1))
    if len(set(top_ids)) != len(top_ids):
        return None  # a top-level vdev's leaves not in one run (never from leaves_with_top)
    for start, end in tops:
        if len({pairs[measured[j]][1].medium for j in range(start, end)} - {None}) > 1:
            return None
    group_of = tuple((pairs[i][0].vclass, pairs[i][1].medium) for i in measured)
    groups: dict[GroupKey, tuple[int, ...]] = {}
    for vclass, medium in group_of:
        if (vclass, medium) not in groups:
            groups[vclass, medium] = tuple(
                j
                for j, i in enumerate(measured)
                if pairs[i][0].vclass == vclass
                and (medium is None or pairs[i][1].medium is None or pairs[i][1].medium == medium)
            )
    labels = tuple(leaf.label for _, leaf in pairs)
    n = len(measured)
    top_of = np.zeros(n, dtype=np.intp)
    width = max((end - start for start, end in tops), default=0)
    pad = np.full((len(tops), width), n, dtype=np.intp)
    for t, (start, end) in enumerate(tops):
        top_of[start:end] = t
        pad[t, : end - start] = np.arange(start, end)
    widths = np.array([end - start for start, end in tops], dtype=np.intp)
    group_ids = {g: k for k, g in enumerate(groups)}
    return Layout(
        signature(pairs),
        keys,
        labels,
        measured,
        tuple(tops),
        group_of,
        groups,
        top_of,
        np.array([start for start, _ in tops], dtype=np.intp),
        np.array([group_ids[g] for g in group_of], dtype=np.intp),
        widths[top_of] == 1 if n else np.zeros(0, dtype=np.bool_),
        tuple(np.array(members, dtype=np.intp) for members in groups.values()),
        pad,
    )


class Rings:
    """The evidence of a layout's measured leaves while the layout lives, one row per leaf (the
    layout's order): its last `lookback` busy verdicts (time, slow) and byte pairs (its bytes/s,
    its peers' median) as rings, its run of normal busy samples, and whether it is raised (a
    mirror of its _Leaf's, which stays the record of everything else). `to_leaf`/`to_leaves`
    write a leaf's rings out into its _Leaf's deques (in place: their maxlen is kept), `from_leaf`
    reads them back in after the tracker judged it."""

    __slots__ = (
        "bytes",
        "bytes_at",
        "bytes_n",
        "cap",
        "normal_run",
        "raised",
        "slow",
        "states",
        "synced",
        "times",
        "verdict_at",
        "verdict_n",
    )

    def __init__(self, states: Sequence[Any], cap: int) -> None:
        n = len(states)
        self.states = states  # the measured leaves' _Leaf, in the layout's order
        self.cap = cap
        self.times = np.zeros((n, cap))
        self.slow = np.zeros((n, cap), dtype=np.bool_)
        self.verdict_at = np.zeros(n, dtype=np.intp)  # where the next one goes
        self.verdict_n = np.zeros(n, dtype=np.intp)
        self.bytes = np.zeros((n, cap, 2))
        self.bytes_at = np.zeros(n, dtype=np.intp)
        self.bytes_n = np.zeros(n, dtype=np.intp)
        self.normal_run = np.array([st.normal_run for st in states], dtype=np.int64)
        self.raised = np.array([st.raised for st in states], dtype=np.bool_)
        # Leaves whose memory (_Leaf) says what their rings say: read in (from_leaf) or written
        # out (to_leaf) since the rings last moved (normal): to_leaf has nothing to write.
        self.synced = np.ones(n, dtype=np.bool_)
        if any(len(st.verdicts) > cap or len(st.bytes_pairs) > cap for st in states):
            for j in range(n):  # a deque longer than the rings (of another lookback): its last
                self.from_leaf(j)
            return
        # every leaf's deques at once, each row from its start
        for rows, at, count, values in (
            ([st.verdicts for st in states], self.verdict_at, self.verdict_n, None),
            ([st.bytes_pairs for st in states], self.bytes_at, self.bytes_n, self.bytes),
        ):
            lengths = np.array([len(d) for d in rows], dtype=np.intp)
            total = int(lengths.sum())
            count[:] = lengths
            at[:] = lengths % cap
            if not total:
                continue
            flat = np.fromiter(chain.from_iterable(chain.from_iterable(rows)), np.float64, 2 * total)
            which = np.repeat(np.arange(n), lengths)
            rank = np.arange(total) - np.repeat(np.cumsum(lengths) - lengths, lengths)
            if values is None:
                self.times[which, rank] = flat[0::2]
                self.slow[which, rank] = flat[1::2] != 0
            else:
                values[which, rank, 0] = flat[0::2]
                values[which, rank, 1] = flat[1::2]

    def copy(self, states: Sequence[Any]) -> Rings:
        """Its twin over `states` (the copied leaves' memory, in the same order)."""
        twin = object.__new__(Rings)
        for name in self.__slots__:
            value = getattr(self, name)
            setattr(twin, name, value.copy() if isinstance(value, np.ndarray) else value)
        twin.states = states
        return twin

    def from_leaf(self, j: int) -> None:
        st, cap = self.states[j], self.cap
        verdicts = list(st.verdicts)[-cap:]
        k = len(verdicts)
        if k:
            self.times[j, :k] = [t for t, _ in verdicts]
            self.slow[j, :k] = [s for _, s in verdicts]
        self.verdict_at[j], self.verdict_n[j] = k % cap, k
        pairs = list(st.bytes_pairs)[-cap:]
        k = len(pairs)
        if k:
            self.bytes[j, :k] = pairs
        self.bytes_at[j], self.bytes_n[j] = k % cap, k
        self.normal_run[j] = st.normal_run
        self.raised[j] = st.raised
        self.synced[j] = True

    def to_leaf(self, j: int) -> None:
        if self.synced[j]:
            return  # its memory says it already (read in or written out since the rings moved)
        st = self.states[j]
        st.verdicts.clear()
        st.verdicts.extend(
            zip(
                _oldest_first(self.times[j].tolist(), int(self.verdict_at[j]), int(self.verdict_n[j])),
                _oldest_first(self.slow[j].tolist(), int(self.verdict_at[j]), int(self.verdict_n[j])),
            )
        )
        st.bytes_pairs.clear()
        st.bytes_pairs.extend(
            map(tuple, _oldest_first(self.bytes[j].tolist(), int(self.bytes_at[j]), int(self.bytes_n[j])))
        )
        st.normal_run = int(self.normal_run[j])
        self.synced[j] = True

    def to_leaves(self) -> None:
        """Every leaf's rings written out (a keyframe, a copy, the layout dropped)."""
        n, cap = len(self.states), self.cap
        if not n:
            return
        rows = np.arange(n)[:, None]
        ranks = np.arange(cap)[None, :]
        order = (self.verdict_at[:, None] - self.verdict_n[:, None] + ranks) % cap
        times, slow = self.times[rows, order].tolist(), self.slow[rows, order].tolist()
        order = (self.bytes_at[:, None] - self.bytes_n[:, None] + ranks) % cap
        pairs = self.bytes[rows, order].tolist()
        runs = self.normal_run.tolist()
        for st, t, s, nv, p, nb, run in zip(
            self.states, times, slow, self.verdict_n.tolist(), pairs, self.bytes_n.tolist(), runs
        ):
            st.verdicts.clear()
            st.verdicts.extend(zip(t[:nv], s[:nv]))
            st.bytes_pairs.clear()
            st.bytes_pairs.extend(map(tuple, p[:nb]))
            st.normal_run = run
        self.synced[:] = True

    def normal(self, at: Ints, now: float, nbytes: Floats, peers: Floats) -> None:
        """A normal busy sample for each leaf `at`: (now, False), and where it moved bytes
        (`nbytes` not NaN), (its bytes/s, `peers`), the last `cap` of each kept."""
        cap = self.cap
        self.synced[at] = False
        pos = self.verdict_at[at]
        self.times[at, pos] = now
        self.slow[at, pos] = False
        self.verdict_at[at] = (pos + 1) % cap
        self.verdict_n[at] = np.minimum(self.verdict_n[at] + 1, cap)
        moved = ~np.isnan(nbytes)
        if _any(moved):
            if not _all(moved):
                at, nbytes, peers = at[moved], nbytes[moved], peers[moved]
            pos = self.bytes_at[at]
            self.bytes[at, pos, 0] = nbytes
            self.bytes[at, pos, 1] = peers
            self.bytes_at[at] = (pos + 1) % cap
            self.bytes_n[at] = np.minimum(self.bytes_n[at] + 1, cap)
        self.normal_run[at] += 1


# ufuncs' own reductions: ndarray.any/sum and np.flatnonzero/np.sort/np.full go through a
# Python wrapper each (numpy's _methods, fromnumeric), a cost per call that a tick pays ~30
# times, more than the work itself for a pool of a hundred disks (the same results).
_any = np.logical_or.reduce
_all = np.logical_and.reduce
_sum = np.add.reduce
_NAN1 = np.array([NAN])


def _oldest_first(ring: list[Any], at: int, n: int) -> list[Any]:
    """A ring's last `n` values, oldest first (`at`: where the next one goes)."""
    start = at - n
    return ring[start:at] if start >= 0 else ring[start:] + ring[:at]


class _Figures:
    """Where a pool's measured leaves read their figures in a tick's columns (rows of zpool
    iostat's report and of the kernel's rates, -1: none), kept while the leaves, the pool's
    MeasureLayout and which columns there are stay the same."""

    __slots__ = ("columns", "disk_rows", "io_rows", "leaves", "measure_layout", "whole")

    def __init__(self, leaves: object, measure_layout: object, columns: tuple[bool, bool]) -> None:
        self.leaves, self.measure_layout, self.columns = leaves, measure_layout, columns
        self.io_rows: Ints | None = None
        self.disk_rows: Ints | None = None
        self.whole = False  # every leaf has a row in both (the usual pool: _read_rows)


class Columns:
    """A pool's layout with its leaves' rings (and where its figures are read), while it lives."""

    __slots__ = ("_by_key", "_figures", "_index", "_leaves", "layout", "rings", "states", "watched")

    def __init__(
        self, lay: Layout, states: list[Any], lookback: int, pairs: Sequence[tuple[Vdev, Vdev]]
    ) -> None:
        self.layout, self.states = lay, states
        self.rings = Rings([states[i] for i in lay.measured], lookback)
        measured = set(lay.measured)
        # What the rings do not say of findings() (deranged_disk.Tracker.findings' `watch`):
        # leaves raised that are not measured, and SLOW counts below zero; neither changes
        # while the layout lives.
        self.watched = tuple(
            i
            for i, st in enumerate(states)
            if (st.raised and i not in measured) or (st.first_slow_ios or 0) < 0
        )
        self._figures: _Figures | None = None
        self._by_key: dict[str, int] | None = None
        self._leaves: tuple[object, list[Vdev]] | None = None
        self._index: tuple[list[Vdev], dict[int, int]] | None = None
        self.leaves(pairs)

    def __deepcopy__(self, memo: dict[int, Any]) -> Columns:
        """A copy of its memory (a replay keyframe): the layout itself is shared (never
        written), the leaves' memory and rings copied, what it read of the tree dropped."""
        twin = object.__new__(Columns)
        twin.layout, twin.watched = self.layout, self.watched
        twin.states = copy.deepcopy(self.states, memo)
        twin.rings = self.rings.copy([twin.states[i] for i in self.layout.measured])
        twin._figures = twin._by_key = twin._leaves = twin._index = None
        return twin

    def index(self, leaves: list[Vdev]) -> dict[int, int]:
        """id(leaf) -> its row, for the measured leaves `leaves` (kept while they are the same list)."""
        made = self._index
        if made is None or made[0] is not leaves:
            made = self._index = (leaves, {id(v): j for j, v in enumerate(leaves)})
        return made[1]

    def reads(self, pairs: Sequence[tuple[Vdev, Vdev]]) -> bool:
        """Are these the pairs it read last (the same list: the same leaves, in the same tops)?"""
        return self._leaves is not None and self._leaves[0] is pairs

    def leaves(self, pairs: Sequence[tuple[Vdev, Vdev]]) -> list[Vdev]:
        """The measured leaves of `pairs` (the same list while the pairs are the same list)."""
        made = self._leaves
        if made is None or made[0] is not pairs:
            made = self._leaves = (pairs, [pairs[i][1] for i in self.layout.measured])
        return made[1]

    def flush(self, key: str) -> None:
        """The leaf `key`'s memory written out of the rings (findings() reads it whole)."""
        if self._by_key is None:
            keys = self.layout.keys
            self._by_key = {keys[i]: j for j, i in enumerate(self.layout.measured)}
        j = self._by_key.get(key)
        if j is not None:
            self.rings.to_leaf(j)

    def figures(self, pool: Pool, leaves: list[Vdev]) -> tuple[Floats, Bools]:
        """metrics_of and busy of each measured leaf, as [4 x leaves] (UTIL, READ_WAIT,
        WRITE_WAIT, BYTES; NaN for None) and [leaves]: leaf_figures, read from the tick's
        columns by index arrays (the per-leaf reader where a leaf has figures of its own)."""
        m = pool.measures
        f = self._figures
        if m is not None and (
            f is None
            or f.leaves is not leaves
            or f.measure_layout is not m.layout
            or f.columns != (m.io_columns is None, m.disk_columns is None)
        ):
            f = self._figures = _figures(m, leaves)
        if m is None or f is None or f.io_rows is None or f.disk_rows is None:
            metrics, busy_now = leaf_figures(pool, leaves)
            return np.array(metrics, dtype=np.float64).reshape(len(leaves), 4).T, np.array(
                busy_now, dtype=np.bool_
            )
        if f.whole and m.io_columns is not None and m.disk_columns is not None:
            return _read_rows(m.io_columns, m.disk_columns, f.io_rows, f.disk_rows)
        return _read(m.io_columns, m.disk_columns, f.io_rows, f.disk_rows)


def _figures(m: Any, leaves: list[Vdev]) -> _Figures:
    """The rows of each leaf (none, io_rows None, where some leaf must be read on its own)."""
    f = _Figures(leaves, m.layout, (m.io_columns is None, m.disk_columns is None))
    slots = [m.slot_of(v) for v in leaves]
    if None in slots:
        return f
    io_rows, disk_rows = m.layout.io_rows, m.layout.disk_rows
    irs = [io_rows[k] for k in slots] if m.io_columns is not None else [-1] * len(leaves)
    drs = [disk_rows[k] for k in slots] if m.disk_columns is not None else [-1] * len(leaves)
    if any(
        (i < 0 and v.io is not None) or (d < 0 and v.disk is not None) for v, i, d in zip(leaves, irs, drs)
    ):
        return f  # figures of its own: the per-leaf reader
    f.io_rows, f.disk_rows = np.array(irs, dtype=np.intp), np.array(drs, dtype=np.intp)
    f.whole = bool(leaves) and min(irs) >= 0 and min(drs) >= 0
    return f


def _column(column: Sequence[float | None], rows: Ints, has: Bools) -> Floats:
    """The column's values at `rows` as float64, NaN for None and where `has` is False."""
    values = np.array(column, dtype=np.float64)
    if not len(values):
        return np.full(len(rows), NAN)
    out = values[np.where(has, rows, 0)]
    out[~has] = NAN
    return out


def _read(
    ic: tuple[Sequence[float | None], ...] | None,
    dc: tuple[Sequence[float | None], ...] | None,
    irs: Ints,
    drs: Ints,
) -> tuple[Floats, Bools]:
    """leaf_figures over index arrays (its per-row rules, vectorised)."""
    n = len(irs)
    has_io, has_disk = irs >= 0, drs >= 0
    if ic is not None and has_io.any():
        read_ops, write_ops, read_bytes, write_bytes, _, _, wait_read, wait_write = (
            _column(ic[k], irs, has_io) if k in (0, 1, 2, 3, 6, 7) else None for k in range(8)
        )
        assert read_ops is not None and write_ops is not None and read_bytes is not None
        assert write_bytes is not None and wait_read is not None and wait_write is not None
        io_bytes = read_bytes + write_bytes
        wait_read[wait_read == 0] = NAN  # `or None`: a stray 0 is not a measurement
        wait_write[wait_write == 0] = NAN
        io_busy = has_io & (read_ops + write_ops >= BUSY_OPS)
    else:
        io_bytes = wait_read = wait_write = np.full(n, NAN)
        io_busy = np.zeros(n, dtype=np.bool_)
        has_io = np.zeros(n, dtype=np.bool_)
    if dc is not None and has_disk.any():
        util = _column(dc[0], drs, has_disk)
        # the kernel's rates only where zpool's do not say (no iostat row, or idle by its count)
        asked = has_disk & ~io_busy
        if asked.any():
            reads, writes = _column(dc[3], drs, asked), _column(dc[4], drs, asked)
            disk_busy = asked & (
                (util >= BUSY_UTIL)
                | (np.nan_to_num(reads, nan=0.0) + np.nan_to_num(writes, nan=0.0) >= BUSY_OPS)
            )
        else:
            disk_busy = asked
        asked = has_disk & ~has_io
        if asked.any():
            rbytes, wbytes = _column(dc[5], drs, asked), _column(dc[6], drs, asked)
            disk_bytes = rbytes + np.where(np.isnan(wbytes), 0.0, wbytes)
        else:
            disk_bytes = np.full(n, NAN)
    else:
        util = disk_bytes = np.full(n, NAN)
        disk_busy = np.zeros(n, dtype=np.bool_)
    metrics = np.empty((4, n))
    metrics[0] = util
    metrics[1] = np.where(has_io, wait_read, NAN)
    metrics[2] = np.where(has_io, wait_write, NAN)
    metrics[3] = np.where(has_io, io_bytes, disk_bytes)
    return metrics, io_busy | disk_busy


def _read_rows(
    ic: tuple[Sequence[float | None], ...], dc: tuple[Sequence[float | None], ...], irs: Ints, drs: Ints
) -> tuple[Floats, Bools]:
    """_read where every leaf has a row in both (the usual pool): the six report columns it
    reads made one array in one step, no masks (the same values: None is NaN either way)."""
    n = len(irs)
    read_ops, write_ops, read_bytes, write_bytes, wait_read, wait_write = np.array(
        [ic[0], ic[1], ic[2], ic[3], ic[6], ic[7]], dtype=np.float64
    )[:, irs]
    io_busy = read_ops + write_ops >= BUSY_OPS
    metrics = np.empty((4, n))
    metrics[0] = np.array(dc[0], dtype=np.float64)[drs]
    wait_read[wait_read == 0] = NAN  # `or None`: a stray 0 is not a measurement
    wait_write[wait_write == 0] = NAN
    metrics[1] = wait_read
    metrics[2] = wait_write
    metrics[3] = read_bytes + write_bytes
    asked = ~io_busy
    if _any(asked):  # the kernel's rates only where zpool's do not say (idle by its count)
        util = metrics[0]
        reads, writes = _column(dc[3], drs, asked), _column(dc[4], drs, asked)
        disk_busy = asked & (
            (util >= BUSY_UTIL) | (np.nan_to_num(reads, nan=0.0) + np.nan_to_num(writes, nan=0.0) >= BUSY_OPS)
        )
        return metrics, io_busy | disk_busy
    return metrics, io_busy


def _sorted(values: Floats) -> Floats:
    out: Floats = np.sort(values[~np.isnan(values)])
    return out


def _values_of(group: tuple[Floats, list[int]], n: int) -> Floats:
    """A group's values of metric n, ascending (its sorted row without the NaNs after them)."""
    rows, counts = group
    return rows[n, : counts[n]]


def _median_without(rows: Floats, counts: Ints, below: Ints) -> Floats:
    """_deranged_samples._median_without of each leaf's own value from its sorted row
    (`rows`: [leaves x width], NaN after the `counts` values; `below`: how many of the row are
    below its own, its rank), NaN for none: the same indexes, (lo + hi) / 2 in float64."""
    n = counts - 1
    mid = n // 2
    width = rows.shape[1]
    at = np.arange(len(rows))
    hi = np.where(
        mid >= below, rows[at, np.minimum(mid + 1, width - 1)], rows[at, np.minimum(mid, width - 1)]
    )
    lo = np.where(
        mid - 1 >= below,
        rows[at, np.minimum(mid, width - 1)],
        rows[at, np.maximum(np.minimum(mid - 1, width - 1), 0)],  # (np.clip, without its wrapper)
    )
    out: Floats = np.where(n % 2 == 1, hi, (lo + hi) / 2)
    out[n <= 0] = NAN
    return out


def observe_pool(
    pool: Pool,
    pairs: Sequence[tuple[Vdev, Vdev]],
    cols: Columns,
    rebuilt: frozenset[str],
    cfg: CheckConfig,
    now: float,
) -> list[tuple[int, LeafSample]]:
    """One tick of one pool: every plainly normal busy leaf's evidence written into the rings
    (the verdict (now, False), its bytes/s and its peers' median, one more normal sample in the
    run that clears a finding), as the tracker does for a sample_pool_lazy fast-path verdict.
    Returns the leaves judged in full, (measured index, sample), in order, for the tracker to
    take in. `rebuilt`: keys of leaves a resilver writes onto (no evidence)."""
    lay, rings = cols.layout, cols.rings
    measured = lay.measured
    if not measured:
        return []
    leaves = cols.leaves(pairs)
    metrics, busy_now = cols.figures(pool, leaves)
    floors = (
        (cfg.deranged_util_ratio, cfg.deranged_util_floor_pct),
        (cfg.deranged_latency_ratio, cfg.deranged_latency_floor_ms * 1e6),
        (cfg.deranged_latency_ratio, cfg.deranged_latency_floor_ms * 1e6),
    )
    # Each group's columns sorted (as _deranged_samples._group builds them) and its screens.
    # All four of a group sorted in one call (NaN sorts last: each row's first `counts` are
    # its values, ascending, the same floats _sorted gives), the row read only where needed.
    ordered: list[tuple[Floats, list[int]]] = []  # per group: its rows sorted, the values in each
    screens = np.empty((3, len(lay.members)))
    screens.fill(NAN)
    for g, members in enumerate(lay.members):
        block = metrics if len(members) == metrics.shape[1] else metrics[:, members]
        rows = block.copy()
        rows.sort(axis=1)
        counts = _sum(~np.isnan(rows), axis=1).tolist()
        ordered.append((rows, counts))
        for n, (ratio, floor) in enumerate(floors):
            if counts[n] >= 2:  # max(floor, ratio x _lower_bound(values)), on Python floats
                screens[n, g] = max(floor, ratio * float(rows[n, (counts[n] - 2) // 2]))
    # _deranged_samples._quick over every leaf at once.
    values = metrics[:3]
    mine = screens[:, lay.group_index]
    has = ~np.isnan(values) & ~np.isnan(mine)
    undecided = _any(has & (values >= np.where(has, mine, 0.0)), axis=0)
    # a reference on a metric needs another leaf of its vdev that measured it (alone: the pool's)
    counted = np.add.reduceat(~np.isnan(values), lay.starts, axis=1)[:, lay.top_of] > 1
    verdict = _any(has & (counted | lay.alone), axis=0)
    evidence = ~undecided & verdict & busy_now
    if rebuilt:
        keys = lay.keys
        evidence &= np.array([keys[i] not in rebuilt for i in measured], dtype=np.bool_)
    at = evidence.nonzero()[0]
    if len(at):
        nbytes = metrics[BYTES, at]
        peers = np.empty(len(at))
        peers.fill(NAN)
        moved = ~np.isnan(nbytes)
        alone = lay.alone[at]
        # in a vdev: its vdev's throughput without its own
        inside = (moved & ~alone).nonzero()[0]
        if len(inside):
            row = np.concatenate((metrics[BYTES], _NAN1))[lay.pad]  # [tops x width], NaN padded
            tops = lay.top_of[at[inside]]
            own = nbytes[inside]
            if len(inside) * row.shape[1] <= _WIDE:
                below = _sum(row[tops] < own[:, None], axis=1)
            else:
                below = np.array([np.count_nonzero(row[t] < v) for t, v in zip(tops.tolist(), own.tolist())])
            counts = _sum(~np.isnan(row), axis=1)[tops]
            ordered_rows = row.copy()
            ordered_rows.sort(axis=1)
            peers[inside] = _median_without(ordered_rows[tops], counts, below)
        # alone in its vdev: the group's throughput without its own
        lone = (moved & alone).nonzero()[0]
        if len(lone):
            gids = lay.group_index[at[lone]]
            for g in np.unique(gids).tolist():
                which = lone[gids == g]
                values_g = _values_of(ordered[g], BYTES)
                below = np.searchsorted(values_g, nbytes[which], side="left")
                rows = np.broadcast_to(np.append(values_g, NAN), (len(which), len(values_g) + 1))
                peers[which] = _median_without(rows, np.full(len(which), len(values_g)), below)
        peers = np.where(np.isnan(peers), nbytes, peers)  # no peers: its own (as _remember)
        rings.normal(at, now, nbytes, peers)
        raised = at[rings.raised[at]]
        if len(raised):  # deranged_disk._normal for a raised leaf: its run may clear it
            clear = cfg.deranged_clear_samples
            for j in raised.tolist():
                st = rings.states[j]
                st.busy += 1
                if rings.normal_run[j] >= clear:
                    st.raised, st.onset = False, None
                    rings.raised[j] = False
    judged_at = undecided.nonzero()[0]
    if not len(judged_at):
        return []
    # Judged in full, as sample_pool_lazy does for a vdev of like disks.
    groups: dict[int, _Group] = {}
    by_id = _Metrics(cols.index(leaves), metrics)
    judged: list[tuple[int, LeafSample]] = []
    for j in judged_at.tolist():
        t = int(lay.top_of[j])
        start, end = lay.tops[t]
        g = int(lay.group_index[j])
        group = groups.get(g)
        if group is None:
            group = groups[g] = _Group(
                [leaves[k] for k in lay.members[g].tolist()],
                [_values_of(ordered[g], n).tolist() for n in range(4)],
                [None if np.isnan(s) else float(s) for s in screens[:, g].tolist()],
            )
        top_sorted = [_sorted(metrics[n, start:end]).tolist() for n in range(4)]
        leaf = leaves[j]
        vdev_peers = [lf for lf in leaves[start:end] if lf is not leaf]
        pool_others = [] if vdev_peers else [lf for lf in group.members if lf is not leaf]
        judged.append(
            (
                j,
                _judge(
                    leaf, bool(busy_now[j]), vdev_peers, False, pool_others, group, by_id, cfg, top_sorted
                ),
            )
        )
    return judged


class _Metrics(dict[int, Metrics]):
    """id(leaf) -> its Metrics (None for NaN), made for the leaves `_judge` asks about."""

    def __init__(self, index: dict[int, int], metrics: Floats) -> None:
        super().__init__()
        self._index, self._metrics = index, metrics

    def __missing__(self, key: int) -> Metrics:
        column = self._metrics[:, self._index[key]].tolist()
        row: Metrics = tuple(None if v != v else v for v in column)  # type: ignore[assignment]
        self[key] = row
        return row
