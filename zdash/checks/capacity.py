"""Capacity: pool and top-level vdev fill against thresholds, real headroom (ZFS keeps slop
space, so writes fail before CAP reaches 100 %), and time-to-full from the recent trend."""

from __future__ import annotations

from collections.abc import Sequence

from zdash.checks._common import act, linear_slope, pool_series
from zdash.checks.finding import Finding, Severity
from zdash.config import CheckConfig
from zdash.fmt import fmt_bytes, fmt_duration, fmt_pct, fmt_rate
from zdash.model import DATA_CLASSES, Pool, Snapshot

ID = "capacity"

MIN_SLOP, MAX_SLOP = 128 << 20, 128 << 30  # spa_min_slop, spa_max_slop

WHY = (
    "Around 80 % full, metaslabs run short of large free segments and the allocator falls back "
    "from quick first-fit to slow best-fit searching: writes slow sharply and fragmentation "
    "climbs. Because ZFS is copy-on-write, even a delete must first write new metadata, so a "
    "completely full pool can refuse deletes; ZFS holds back slop space (1/32 of the pool, at "
    "least 128 MiB) for that, which is why writes fail with ENOSPC before CAP reaches 100 %."
)


def slop_space(size: int) -> int:
    """What ZFS reserves from user writes (spa_get_slop_space, spa_slop_shift=5)."""
    return max(min(size >> 5, MAX_SLOP), min(size >> 1, MIN_SLOP))


def _level(pct: float | None, warn: float, crit: float) -> Severity | None:
    if pct is None:
        return None
    return Severity.CRITICAL if pct >= crit else Severity.WARNING if pct >= warn else None


def check(history: Sequence[Snapshot], cfg: CheckConfig) -> list[Finding]:
    out: list[Finding] = []
    for pool in history[-1].pools:
        pool_level = _pool_finding(pool, history, cfg, out)
        data = [v for v in pool.top_level if v.vclass in DATA_CLASSES]
        if len(data) < 2:
            continue  # one vdev: the pool finding already says it all
        for v in data:
            pct = v.fill_pct
            level = _level(pct, cfg.capacity_vdev_warn_pct, cfg.capacity_vdev_crit_pct)
            if level is None or (pool_level is not None and level <= pool_level):
                continue
            out.append(
                Finding(
                    ID,
                    level,
                    pool.name,
                    v.name,
                    "vdev",
                    title=f"{v.name} is {fmt_pct(pct)} full (pool {fmt_pct(pool.fill_pct)})",
                    why=(
                        f"Each block lives on one top-level vdev, so {v.name} can fill up long before "
                        "the pool does. The allocator steers new writes away from it, leaving the "
                        "other vdevs to take them (fewer disks doing the work), and what still lands "
                        "on it fragments and allocates slowly. "
                        + (
                            f"A full {v.vclass} vdev spills its metadata and small blocks onto the normal "
                            "vdevs, losing the speed it was added for. "
                            if v.vclass != "normal"
                            else ""
                        )
                        + WHY
                    ),
                    evidence=(
                        ("Vdev capacity", fmt_pct(pct)),
                        ("Vdev allocated", fmt_bytes(v.alloc)),
                        ("Vdev free", fmt_bytes(v.free)),
                        ("Class", v.vclass),
                        ("Pool capacity", fmt_pct(pool.fill_pct)),
                    ),
                )
            )
    return out


def _pool_finding(
    pool: Pool, history: Sequence[Snapshot], cfg: CheckConfig, out: list[Finding]
) -> Severity | None:
    pct = pool.fill_pct
    level = _level(pct, cfg.capacity_pool_warn_pct, cfg.capacity_pool_crit_pct)
    headroom, rate, span = _headroom_and_rate(pool, history, cfg)
    full = headroom is not None and headroom <= 0
    ttf = headroom / rate if rate and headroom is not None and headroom > 0 else None
    soon = ttf is not None and ttf < cfg.fill_warn_hours * 3600
    if full:
        level = Severity.CRITICAL
    elif soon:
        level = max(level or Severity.WARNING, Severity.WARNING)
    if level is None:
        return None
    if full:
        title = f"{pool.name} is out of space: writes fail (CAP {fmt_pct(pct)})"
    elif soon and (pct is None or pct < cfg.capacity_pool_warn_pct):
        title = f"{pool.name} is filling: full in about {fmt_duration(ttf)} at this rate"
    else:
        title = f"{pool.name} is {fmt_pct(pct)} full" + (
            f", full in about {fmt_duration(ttf)}" if ttf else ""
        )
    evidence = [
        ("Capacity", fmt_pct(pct)),
        ("Allocated", fmt_bytes(pool.alloc)),
        ("Size", fmt_bytes(pool.size)),
        ("Writable headroom", fmt_bytes(None if headroom is None else max(headroom, 0))),
    ]
    if pool.frag_pct is not None:
        evidence.append(("Fragmentation", f"{pool.frag_pct} %"))
    if rate:
        evidence += [
            ("Filling at", f"{fmt_rate(rate)} (trend over {fmt_duration(span)})"),
            ("Full in", fmt_duration(ttf) if ttf else "now"),
        ]
    why = WHY + (
        f" At the rate of the last {fmt_duration(span)} it has no writable space left in {fmt_duration(ttf)}."
        if ttf
        else ""
    )
    out.append(
        Finding(
            ID,
            level,
            pool.name,
            pool.name,
            "pool",
            title=title,
            why=why,
            evidence=tuple(evidence),
            actions=(
                act(
                    "Show what uses the space",
                    None,
                    "zfs",
                    "list",
                    "-r",
                    "-o",
                    "space",
                    "-S",
                    "used",
                    pool.name,
                ),
            ),
        )
    )
    return level


def _headroom_and_rate(
    pool: Pool, history: Sequence[Snapshot], cfg: CheckConfig
) -> tuple[float | None, float | None, float]:
    """Bytes still writable, and how fast that shrinks (None unless a real, positive trend).
    The root dataset's `avail` is the truth (slop, reservations, raidz parity all applied);
    without datasets, pool free minus slop approximates it from the raw pool numbers."""
    avail = [
        (s.time, d.avail) for s in history for d in s.datasets if d.name == pool.name and d.avail is not None
    ]
    if avail and avail[-1][0] == history[-1].time:
        headroom, points, sign = float(avail[-1][1]), avail, -1.0
    elif pool.size and pool.alloc is not None:
        free = pool.free if pool.free is not None else pool.size - pool.alloc
        headroom, sign = float(free - slop_space(pool.size)), 1.0
        points = [(t, p.alloc) for t, p in pool_series(history, pool.name) if p.alloc is not None]
    else:
        return None, None, 0.0
    span = points[-1][0] - points[0][0] if points else 0.0
    if len(points) < cfg.fill_trend_min_samples or span < cfg.fill_trend_min_span_s:
        return headroom, None, span
    slope = linear_slope([(t, float(y)) for t, y in points])
    rate = sign * slope if slope is not None else None
    return headroom, (rate if rate and rate > 0 else None), span
