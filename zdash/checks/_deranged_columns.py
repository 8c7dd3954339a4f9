"""The deranged_disk check's per-tick pass as columns over a layout kept per structure.

What a tick changes in a pool is its numbers, not its tree: which leaves there are, which of
them can be measured, how they group by top-level vdev and by class and medium, and the check's
memory of each (zdash.checks.deranged_disk._Leaf) change only when `zpool status`, `zpool list`
or the device facts do (Snapshot.structure_id). A `Layout` holds all of that, built once per
structure; each tick then reads the leaves' figures into columns (one per metric, in the
layout's order), sorts each group's and each vdev's columns once, and runs one loop over the
leaves that decides the plainly normal ones (most, most of the time) and keeps their evidence
directly in their memory: no dict of per-leaf samples, no per-leaf lookups by key.

The verdicts are those of zdash.checks._deranged_samples.sample_pool_lazy to the bit (the same
screens, the same medians, the same order of work; tests/checks/test_deranged_columns.py folds
both over the same ticks): a leaf the screens do not decide is judged in full by the same
`_judge`, and the tracker takes it from there as before. A pool the layout does not cover (a
vdev mixing media, two leaves under one key) goes the per-leaf way instead.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from zdash.checks._deranged_samples import (
    BYTES,
    MEASURABLE_STATES,
    READ_WAIT,
    UTIL,
    WRITE_WAIT,
    LeafSample,
    Metrics,
    _Group,
    _judge,
    _lower_bound,
    _median_without,
    leaf_figures,
)
from zdash.config import CheckConfig
from zdash.model import Pool, Vdev

GroupKey = tuple[str, str | None]  # (vdev class, medium), as _deranged_samples._group keys them


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
    return Layout(signature(pairs), keys, labels, measured, tuple(tops), group_of, groups)


def observe_pool(
    pool: Pool,
    pairs: Sequence[tuple[Vdev, Vdev]],
    lay: Layout,
    states: Sequence[Any],
    rebuilt: frozenset[str],
    cfg: CheckConfig,
    normal: tuple[float, bool],
) -> list[tuple[int, LeafSample]]:
    """One tick of one pool: every plainly normal busy leaf's evidence kept in its memory
    (`states`, the tracker's _Leaf per pair: the verdict `normal`, its bytes/s and its peers'
    median, a normal sample in the run that clears a finding), as the tracker does for a
    sample_pool_lazy fast-path verdict. Returns the leaves judged in full, (pair index, sample),
    in order, for the tracker to take in. `rebuilt`: keys of leaves a resilver writes onto (no
    evidence)."""
    measured = lay.measured
    leaves = [pairs[i][1] for i in measured]
    metrics, busy_now = leaf_figures(pool, leaves)
    floors = (
        (cfg.deranged_util_ratio, cfg.deranged_util_floor_pct),
        (cfg.deranged_latency_ratio, cfg.deranged_latency_floor_ms * 1e6),
        (cfg.deranged_latency_ratio, cfg.deranged_latency_floor_ms * 1e6),
    )
    groups: dict[GroupKey, _Group] = {}
    for gkey, members in lay.groups.items():  # as _deranged_samples._group builds each
        columns = zip(*[metrics[j] for j in members]) if members else [()] * 4
        ordered = [sorted([v for v in column if v is not None]) for column in columns]
        screens = [
            max(floor, ratio * _lower_bound(values)) if len(values) >= 2 else None
            for (ratio, floor), values in zip(floors, ordered)
        ]
        groups[gkey] = _Group([leaves[j] for j in members], ordered, screens)
    lookback, clear = cfg.deranged_lookback_samples, cfg.deranged_clear_samples
    group_of, keys = lay.group_of, lay.keys
    by_id: dict[int, Metrics] | None = None  # what _judge looks metrics up in, made when needed
    judged: list[tuple[int, LeafSample]] = []
    for start, end in lay.tops:
        mates_metrics = metrics[start:end]
        alone = end - start == 1
        if alone:
            measured_n = None
            top_bytes: list[float] = []
        else:
            measured_n = [
                sum(1 for m in mates_metrics if m[n] is not None) for n in (UTIL, READ_WAIT, WRITE_WAIT)
            ]
            top_bytes = sorted([b for b in (m[BYTES] for m in mates_metrics) if b is not None])
        top_sorted: list[list[float]] | None = None
        for j in range(start, end):
            mine = metrics[j]
            group = groups[group_of[j]]
            screens = group.screens
            # _deranged_samples._quick, inline
            decided, verdict = True, None
            for n in (UTIL, READ_WAIT, WRITE_WAIT):
                value, screen = mine[n], screens[n]
                if value is None or screen is None:
                    continue
                if value >= screen:
                    decided = False
                    break
                if measured_n is None or measured_n[n] > 1:
                    verdict = False
            i = measured[j]
            if decided:
                if verdict is None or keys[i] in rebuilt or not busy_now[j]:
                    continue  # no evidence this sample
                st = states[i]
                nbytes = mine[BYTES]
                # deranged_disk._remember and _normal, inline
                verdicts = st.verdicts
                verdicts.append(normal)
                while len(verdicts) > lookback:  # a deque from an older keyframe has no maxlen
                    verdicts.popleft()
                if nbytes is not None:
                    peer = _median_without(group.sorted_metrics[BYTES] if alone else top_bytes, nbytes)
                    bytes_pairs = st.bytes_pairs
                    bytes_pairs.append((nbytes, peer if peer is not None else nbytes))
                    while len(bytes_pairs) > lookback:
                        bytes_pairs.popleft()
                st.normal_run += 1
                if st.raised:
                    st.busy += 1
                    if st.normal_run >= clear:
                        st.raised, st.onset = False, None
                continue
            # Judged in full, as sample_pool_lazy does for a vdev of like disks.
            if top_sorted is None:
                top_sorted = [sorted([v for v in column if v is not None]) for column in zip(*mates_metrics)]
            if by_id is None:
                by_id = dict(zip(map(id, leaves), metrics))
            leaf = leaves[j]
            vdev_peers = [lf for lf in leaves[start:end] if lf is not leaf]
            pool_others = [] if vdev_peers else [lf for lf in group.members if lf is not leaf]
            judged.append(
                (i, _judge(leaf, busy_now[j], vdev_peers, False, pool_others, group, by_id, cfg, top_sorted))
            )
    return judged
