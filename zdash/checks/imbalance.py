"""Imbalance: spread of fill % across the pool's normal-class top-level vdevs, with its cause.

Causes, told apart by what the snapshots show, in this order:
- sizes differ by more than the tolerance: the allocator weighs vdevs by free space, never
  equalising fill % exactly, and a small vdev fills faster in relative terms;
- the emptier vdev is slow (disk_wait far above the fuller one's, or slow I/Os counted): the
  allocation throttle hands new blocks to vdevs that complete writes faster (the deranged-disk
  capture: two equal mirrors from the start, 46 % vs 17 %);
- the emptiest vdev comes after the fullest in vdev order (ids grow as vdevs are added): almost
  certainly added after data was written (`zpool history` shows the add);
- otherwise equal vdevs present from the start: uneven frees.
"""

from __future__ import annotations

from collections.abc import Sequence

from zdash.checks._common import act, median_or_none, normal_vdevs, pool_series
from zdash.checks.finding import Finding, Severity
from zdash.config import CheckConfig
from zdash.fmt import fmt_bytes, fmt_ms, fmt_pct
from zdash.model import Pool, Snapshot, Vdev

ID = "imbalance"

COST = (
    "The allocator prefers the emptier vdev, so new writes lean on {empty}: its disks take most "
    "of the write load while the others idle, and reads of the older data all hit {full}. The "
    "pool then performs like its busiest vdev rather than the sum of them. "
)
REBALANCE = (
    "Only rewriting data moves it: zfs send | zfs recv into a new dataset and rename it "
    "over the old one, or copy files and rename the copies over the originals (snapshots "
    "keep the old blocks allocated until they are destroyed). ZFS has no in-place rebalance."
)


def check(history: Sequence[Snapshot], cfg: CheckConfig) -> list[Finding]:
    return [f for pool in history[-1].pools if (f := _pool_imbalance(pool, history, cfg))]


def _wait_ns(v: Vdev) -> float | None:
    """The vdev's disk_wait this sample (worse of read/write); its leaves' median if no row."""
    io = v.io
    own = max((w for w in (io.disk_wait_read, io.disk_wait_write) if w), default=None) if io else None
    return own if own is not None else median_or_none(_wait_ns(c) for c in v.children)


def _mean_wait(history: Sequence[Snapshot], pool: Pool, name: str) -> float | None:
    waits = [
        w
        for _, p in pool_series(history, pool.name)
        if (v := p.find(name)) is not None and (w := _wait_ns(v)) is not None
    ]
    return sum(waits) / len(waits) if waits else None


def _is_slow(empty: Vdev, full: Vdev, history, pool: Pool, cfg: CheckConfig) -> tuple[bool, list]:
    slow_ios = sum(leaf.slow_ios or 0 for leaf in empty.leaves())
    full_slow_ios = sum(leaf.slow_ios or 0 for leaf in full.leaves())
    empty_wait, full_wait = _mean_wait(history, pool, empty.name), _mean_wait(history, pool, full.name)
    evidence = [
        (f"{empty.name} disk wait", fmt_ms(empty_wait)),
        (f"{full.name} disk wait", fmt_ms(full_wait)),
    ]
    slower = (
        empty_wait is not None
        and full_wait is not None
        and empty_wait >= cfg.deranged_latency_ratio * full_wait
        and empty_wait >= cfg.deranged_latency_floor_ms * 1e6
    )
    if slow_ios:
        evidence.append((f"{empty.name} slow I/Os", str(slow_ios)))
    return slower or (slow_ios > 0 and full_slow_ios == 0), evidence


def _pool_imbalance(pool: Pool, history: Sequence[Snapshot], cfg: CheckConfig) -> Finding | None:
    vdevs = [(i, v, pct) for i, v in enumerate(normal_vdevs(pool)) if (pct := v.fill_pct) is not None]
    if len(vdevs) < 2:
        return None
    full_i, full, full_pct = max(vdevs, key=lambda x: x[2])
    empty_i, empty, empty_pct = min(vdevs, key=lambda x: x[2])
    spread = full_pct - empty_pct
    if spread < cfg.imbalance_info_spread_pct:
        return None
    severity = Severity.WARNING if spread >= cfg.imbalance_warn_spread_pct else Severity.INFO
    sizes = [v.space for _, v, _ in vdevs]
    size_ratio = max(sizes) / min(sizes) if all(sizes) else 1.0
    evidence = [(f"{v.name} fill", f"{fmt_pct(pct)} of {fmt_bytes(v.space)}") for _, v, pct in vdevs]
    evidence.append(("Spread", f"{spread:.1f} points"))
    slow, slow_evidence = _is_slow(empty, full, history, pool, cfg)
    cost, actions = COST.format(empty=empty.name, full=full.name), ()
    if size_ratio > 1 + cfg.imbalance_size_tolerance_pct / 100:
        cause = "vdevs of different sizes"
        why = (
            f"The top-level vdevs differ in size (largest {size_ratio:.1f}x the smallest). ZFS "
            "spreads writes by free space, not to equal fill, so their fill % drifts apart. "
        )
    elif slow:
        cause = f"{empty.name} is slow and gets fewer writes"
        evidence += slow_evidence
        why = (
            f"{empty.name} is much slower than {full.name}. ZFS's allocation throttle hands new "
            "blocks to the vdevs that complete writes fastest, so the slow vdev receives fewer "
            "and stays emptier: the imbalance is a symptom. Find the slow disk (see the "
            "deranged-disk findings) and fix it first; rebalancing now would not last. "
        )
        cost = (
            f"Meanwhile {full.name} takes most of the new writes and fills up on its own, "
            "while reads of the data on the slow vdev still wait for it. "
        )
    elif empty_i > full_i:
        cause = f"{empty.name} probably added after data was written"
        why = (
            f"The vdevs are the same size, but {empty.name} comes after {full.name} and is much "
            f"emptier: it was most likely added once the pool already held data (`zpool history "
            f"{pool.name}` shows the `zpool add`). ZFS never moves existing blocks to a new vdev. "
        )
        actions = (act("Show when vdevs were added", None, "zpool", "history", pool.name),)
    else:
        cause = "uneven frees on equal vdevs"
        why = (
            "The vdevs are the same size and were there from the start, so writes went to all "
            "of them; the spread comes from frees: deleted files or expired snapshots whose "
            "blocks sat mostly on one vdev. "
        )
    return Finding(
        ID,
        severity,
        pool.name,
        pool.name,
        "pool",
        title=f"{pool.name}: fill differs by {spread:.1f} points across vdevs ({cause})",
        why=why + cost + REBALANCE,
        evidence=tuple(evidence),
        actions=actions,
    )
