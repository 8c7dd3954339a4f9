"""Deranged disk: one leaf far slower than its peers while doing the same work or less.

Per sample, a leaf is *slow* when its %util or its disk_wait latency is >= ratio x the median of
its vdev peers (a leaf with no measured peers: the pool's other leaves of its class) AND >= ratio
x the pool's other leaves, AND above an absolute floor. Samples where nothing can be compared
(idle, latency None, no disk data) neither count nor break the run. The finding needs
`sustain` such samples in a row, and the leaf's bytes over the window must be no more than
`tolerance` x its peers' (a disk that is busier because it does more work is not sick).
ZFS's own verdicts are folded in: a growing SLOW counter, a leaf ZED has DEGRADED (or FAULTED
with slow I/Os on record; a plain FAULTED disk is out of service and left to the health check).
"""

from __future__ import annotations

from collections.abc import Sequence

from zdash.checks._common import act, leaves_with_top, median_or_none, parents, pool_series
from zdash.checks._deranged_samples import LeafSample, sample_pool
from zdash.checks.finding import Finding, Severity
from zdash.config import CheckConfig
from zdash.fmt import fmt_list, fmt_ms, fmt_pct, fmt_rate
from zdash.model import Pool, Snapshot, Vdev

ID = "deranged_disk"

WHY = (
    "Inside a vdev ZFS cannot route around a slow member: a mirror write completes only when "
    "every side has it and a raidz stripe only when every column is written (mirror reads may "
    "prefer the faster side, writes cannot), so the vdev runs at the pace of its slowest disk. "
    "Across vdevs the allocator gives a slow vdev fewer new blocks, but reads of the data "
    "already on it, and every transaction group sync that touches it, still wait for it: one "
    "sick disk drags the whole pool. "
)


def check(history: Sequence[Snapshot], cfg: CheckConfig) -> list[Finding]:
    out: list[Finding] = []
    for pool in history[-1].pools:
        series = pool_series(history, pool.name)
        window = [sample_pool(p, cfg) for _, p in series[-cfg.deranged_lookback_samples :]]
        first_slow = _first_slow_counts(series)
        up = parents(pool.root)
        for top, leaf in leaves_with_top(pool):
            f = _leaf_finding(pool, top, leaf, up.get(id(leaf)), window, first_slow, cfg)
            if f is not None:
                out.append(f)
    return out


def _leaf_finding(
    pool: Pool,
    top: Vdev,
    leaf: Vdev,
    parent: Vdev | None,
    window: list[dict[str, LeafSample]],
    first_slow: dict[str, int],
    cfg: CheckConfig,
) -> Finding | None:
    key = leaf.key
    severity, reasons, evidence = Severity.WARNING, [], []  # every reason below is a warning
    run = [] if resilver_target(pool, leaf, parent) else _sustained_run(key, window)
    if run and len(run) >= cfg.deranged_sustain_samples and _throughput_ok(key, window, cfg):
        last = run[0]
        reasons.append(f"{last.why_slow}, {len(run)} measured samples in a row")
        evidence += [
            ("Slow samples", f"{len(run)} in a row (needs {cfg.deranged_sustain_samples})"),
            ("%util", f"{fmt_pct(last.util)} vs peers {fmt_pct(last.peer_util)}"),
            ("Disk wait read", f"{fmt_ms(last.read_wait)} vs peers {fmt_ms(last.peer_read_wait)}"),
            ("Disk wait write", f"{fmt_ms(last.write_wait)} vs peers {fmt_ms(last.peer_write_wait)}"),
            (
                "Throughput (window mean)",
                f"{fmt_rate(_mean_bytes(key, window))} vs peers {fmt_rate(_peer_mean_bytes(key, window))}",
            ),
            ("Compared with", fmt_list(last.peers)),
        ]
    # Only a *growing* SLOW count is a verdict: a static one is history until `zpool clear`,
    # and healthy peers of a sick disk can pick up a few while queued behind it.
    slow_now = leaf.slow_ios or 0
    slow_growth = max(slow_now - first_slow.get(key, slow_now), 0)  # a `zpool clear` resets it
    if slow_growth:
        reasons.append(f"ZFS counted {slow_growth} new slow I/Os")
    # ZED's verdict: DEGRADED means "still in service but failing" (checksum or slow-I/O counts),
    # so it still drags its vdev. FAULTED is out of service: it drags nothing any more and the
    # health check reports it, unless slow I/Os show it was faulted for being slow.
    if leaf.state == "DEGRADED" or (leaf.state == "FAULTED" and (reasons or slow_now)):
        reasons.append(f"ZFS marked it {leaf.state}" + (f" ({leaf.aux})" if leaf.aux else ""))
        evidence.append(("State", leaf.state))
    if not reasons:
        return None
    if slow_now:
        evidence.append(("Slow I/Os (SLOW)", f"{slow_now}" + (f" (+{slow_growth})" if slow_growth else "")))
    return Finding(
        ID,
        severity,
        pool.name,
        leaf.label,
        "leaf",
        title=f"{leaf.label} is dragging {top.name}: {reasons[0]}",
        why=WHY + "Evidence: " + "; ".join(reasons) + ". " + _advice(leaf, parent),
        evidence=tuple(evidence),
        actions=_actions(pool, leaf, parent),
    )


def resilver_target(pool: Pool, leaf: Vdev, parent: Vdev | None) -> bool:
    """A disk being resilvered onto absorbs the rebuild's writes at full speed while its peers
    only read: it is the busiest disk of the vdev by design, not a sick one. Its own latency is
    judged again once the resilver ends (ZFS's SLOW counter still counts meanwhile)."""
    resilvering = any(s.function == "resilver" and s.state == "scanning" for s in pool.scans)
    return resilvering and (
        (parent is not None and parent.kind in ("replacing", "spare")) or "resilvering" in (leaf.aux or "")
    )


def _sustained_run(key: str, window: list[dict[str, LeafSample]]) -> list[LeafSample]:
    """Slow samples from the newest backwards, skipping unmeasurable ones, up to the first normal."""
    run: list[LeafSample] = []
    for sample in reversed(window):
        s = sample.get(key)
        if s is None or s.slow is None:
            continue
        if not s.slow:
            break
        run.append(s)
    return run


def _mean_bytes(key: str, window: list[dict[str, LeafSample]]) -> float | None:
    values = [w[key].bytes for w in window if key in w and w[key].bytes is not None]
    return sum(values) / len(values) if values else None


def _peer_mean_bytes(key: str, window: list[dict[str, LeafSample]]) -> float | None:
    peers = {p for w in window if key in w for p in w[key].peer_keys}
    return median_or_none(_mean_bytes(p, window) for p in peers)


def _throughput_ok(key: str, window: list[dict[str, LeafSample]], cfg: CheckConfig) -> bool:
    mine, theirs = _mean_bytes(key, window), _peer_mean_bytes(key, window)
    if mine is None or theirs is None:
        return True  # nothing says it does more work; latency/util alone decide
    return mine <= cfg.deranged_throughput_tolerance * theirs


def _first_slow_counts(series: list[tuple[float, Pool]]) -> dict[str, int]:
    """Each leaf's SLOW count in the oldest sample that has one."""
    first: dict[str, int] = {}
    for _, p in series:
        for v in p.leaves():
            if v.slow_ios is not None:
                first.setdefault(v.key, v.slow_ios)
    return first


def _redundant_without(leaf: Vdev, parent: Vdev | None) -> bool:
    """Could the vdev lose this leaf and keep serving? (zpool offline refuses otherwise.)"""
    if parent is None or parent.kind == "root" or not parent.kind.startswith(("mirror", "raidz", "draid")):
        return False
    others = [c for c in parent.children if c is not leaf]
    return bool(others) and all(c.state == "ONLINE" for c in others)


def _advice(leaf: Vdev, parent: Vdev | None) -> str:
    if leaf.state == "FAULTED":
        return "ZFS has already stopped using it; replace it."
    if _redundant_without(leaf, parent):
        return (
            "Offlining it lets its vdev run at the speed of the healthy members (without this "
            "copy, so less redundancy) until it is replaced."
        )
    return "Its vdev has no spare redundancy without it, so replace it rather than offline it."


def _actions(pool: Pool, leaf: Vdev, parent: Vdev | None) -> tuple:
    actions = []
    if leaf.state != "FAULTED" and _redundant_without(leaf, parent):
        actions.append(
            act(
                f"Offline {leaf.label} (vdev keeps running on its peers)",
                "offline",
                "zpool",
                "offline",
                pool.name,
                leaf.label,
            )
        )
    actions.append(
        act(
            f"Replace {leaf.label} (in place after swapping the disk, or name a new device)",
            "replace",
            "zpool",
            "replace",
            pool.name,
            leaf.label,
        )
    )
    return tuple(actions)
