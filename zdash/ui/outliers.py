"""Which leaves the vdev table marks as outliers. A quick visual rule on the current sample
(far busier or slower than its vdev peers, with the deranged_disk thresholds), plus every leaf
a finding names: the check's verdict, sustained over time, is the authority."""

from __future__ import annotations

import statistics
from collections.abc import Iterable

from zdash.checks._common import parents
from zdash.checks.deranged_disk import resilver_target
from zdash.checks.finding import Finding
from zdash.config import CheckConfig
from zdash.model import Pool, Vdev


def _wait_ms(v: Vdev) -> float | None:
    if v.io is None:
        return None
    waits = [w for w in (v.io.disk_wait_read, v.io.disk_wait_write) if w is not None]
    return max(waits) / 1e6 if waits else None


def _util(v: Vdev) -> float | None:
    return v.disk.util_pct if v.disk is not None else None


def _far_above(value: float | None, peers: list[float], ratio: float, floor: float) -> bool:
    if value is None or not peers or value < floor:
        return False
    return value >= ratio * max(statistics.median(peers), 1e-9)


def outlier_leaves(pool: Pool, findings: Iterable[Finding], cfg: CheckConfig) -> frozenset[str]:
    """Labels (path or name) of the leaves to mark."""
    marked = {
        f.subject
        for f in findings
        if f.pool == pool.name and f.subject_kind == "leaf" and f.check == "deranged_disk"
    }
    up = parents(pool.root)
    for top in pool.top_level:
        leaves = list(top.leaves())
        for leaf in leaves:
            if resilver_target(pool, leaf, up.get(id(leaf))):
                continue  # busiest by design while it is rebuilt (see the check)
            others = [v for v in leaves if v is not leaf]
            util_peers = [u for u in map(_util, others) if u is not None]
            wait_peers = [w for w in map(_wait_ms, others) if w is not None]
            if _far_above(
                _util(leaf), util_peers, cfg.deranged_util_ratio, cfg.deranged_util_floor_pct
            ) or _far_above(
                _wait_ms(leaf), wait_peers, cfg.deranged_latency_ratio, cfg.deranged_latency_floor_ms
            ):
                marked.add(leaf.label)
    return frozenset(marked)
