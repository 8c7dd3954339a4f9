"""Capacity: pool and top-level vdev fill against thresholds, real headroom (ZFS keeps slop
space, so writes fail before CAP reaches 100 %), and time-to-full from the recent trend."""

from __future__ import annotations

from collections import deque
from collections.abc import Sequence

from zdash.checks import tracker
from zdash.checks._common import act
from zdash.checks.finding import Finding, Severity
from zdash.checks.stories import CAPACITY_ADVICE, CAPACITY_RULE
from zdash.config import CheckConfig
from zdash.fmt import fill_figure, fmt_bytes, fmt_duration, fmt_fill, fmt_rate
from zdash.model import DATA_CLASSES, Pool, Snapshot

ID = "capacity"

MIN_SLOP, MAX_SLOP = 128 << 20, 128 << 30  # spa_min_slop, spa_max_slop

WHY = (
    CAPACITY_RULE + " Metaslabs run short of large free segments; a delete must first write new metadata, so "
    "ZFS holds back slop space (1/32 of the pool, at least 128 MiB) for it, which is why writes "
    "fail with ENOSPC before CAP reaches 100 %. " + CAPACITY_ADVICE
)


def slop_space(size: int) -> int:
    """What ZFS reserves from user writes (spa_get_slop_space, spa_slop_shift=5)."""
    return max(min(size >> 5, MAX_SLOP), min(size >> 1, MIN_SLOP))


def _level(pct: float | None, warn: float, crit: float) -> Severity | None:
    if pct is None:
        return None
    return Severity.CRITICAL if pct >= crit else Severity.WARNING if pct >= warn else None


def pool_level(pct: float | None, cfg: CheckConfig) -> Severity | None:
    """The pool's fill against its thresholds: `-w/-c` ranges where given, judged on the figure
    as shown (so `tank_cap=85.0%;70;85` with CRITICAL never happens), else at or above the
    config's percentages."""
    if pct is None:
        return None
    shown = fill_figure(pct)
    warn, crit = cfg.capacity_pool_warn_range, cfg.capacity_pool_crit_range
    if crit.alerts(shown) if crit is not None else pct >= cfg.capacity_pool_crit_pct:
        return Severity.CRITICAL
    if warn.alerts(shown) if warn is not None else pct >= cfg.capacity_pool_warn_pct:
        return Severity.WARNING
    return None


def headroom(snap: Snapshot, pool: Pool) -> tuple[float | None, str]:
    """Bytes still writable in the pool, and what that figure comes from. The root dataset's
    `avail` is the truth (slop, reservations, raidz parity all applied); without it, pool free
    minus slop space approximates it from the raw pool numbers."""
    root = next((d for d in snap.datasets if d.name == pool.name and d.avail is not None), None)
    if root is not None and root.avail is not None:
        return float(root.avail), "avail"
    if pool.size and pool.alloc is not None:
        free = pool.free if pool.free is not None else pool.size - pool.alloc
        return float(free - slop_space(pool.size)), "free"
    return None, ""


def dataset_fill_pct(snap: Snapshot, pool: Pool) -> float | None:
    """Without any zpool figure (a pasted `zfs list` alone), the share of the pool's writable
    space already taken: the root dataset's used / (used + avail), as `df` shows the root. It
    counts unused reservations as taken, as writes see them."""
    root = next((d for d in snap.datasets if d.name == pool.name), None)
    if root is None or root.used is None or root.avail is None or root.used + root.avail <= 0:
        return None
    return 100.0 * root.used / (root.used + root.avail)


_TICKS = 1 << 32  # a second in the trend's time unit: scaling a float by it is exact


class Fit:
    """The least-squares line through a pool's headroom points as running sums, so the trend
    costs the same each tick over 10 points or 3,600 (it was four passes over the window: a
    tenth of a 100-leaf tick once the window held 10 minutes). The sums are integers (times in
    2**-32 s, exact for any epoch time: a float's step there is 2**-22 s or more; headroom in
    bytes), so exact: whatever points came and went, they are what the points in the window
    sum to, nothing builds up over a day, a fold restored from a keyframe (which makes them
    again from the points) judges as the fold that ran, and the slope is the least-squares
    slope of the points rounded once."""

    __slots__ = ("n", "st", "stt", "sty", "sy")

    def __init__(self, points: Sequence[tuple[float, float]]) -> None:
        self.n = self.st = self.sy = self.stt = self.sty = 0
        for t, y in points:
            self.add(t, y)

    def add(self, t: float, y: float) -> None:
        at, b = round(t * _TICKS), round(y)
        self.n += 1
        self.st += at
        self.sy += b
        self.stt += at * at
        self.sty += at * b

    def drop(self, t: float, y: float) -> None:
        at, b = round(t * _TICKS), round(y)
        self.n -= 1
        self.st -= at
        self.sy -= b
        self.stt -= at * at
        self.sty -= at * b

    def slope(self) -> float | None:
        """Units per second; None if the times do not vary."""
        n = self.n
        var = n * self.stt - self.st * self.st
        if n < 2 or var <= 0:
            return None
        return (n * self.sty - self.st * self.sy) * _TICKS / var  # one rounding, at the end


class Tracker(tracker.Tracker):
    """Keeps, per pool, the writable headroom over the last `fill_trend_window_s` for the trend."""

    # The sums are the points' (exactly): left out of keyframes and copies, made again from them.
    TRANSIENT = ("_fits",)

    def __init__(self, cfg: CheckConfig) -> None:
        super().__init__(cfg)
        self._points: dict[str, tuple[str, deque[tuple[float, float]]]] = {}
        self._fits: dict[str, Fit] | None = {}

    def observe(self, snap: Snapshot) -> None:
        fits = self._fits_now()
        for pool in snap.pools:
            room, basis = headroom(snap, pool)
            if room is None:
                continue
            kind, points = self._points.get(pool.name, (basis, deque()))
            if kind != basis:
                points = deque()  # the figure changed meaning (datasets came or went): start over
                fits.pop(pool.name, None)
            fit = fits.get(pool.name)
            if fit is None:
                fit = fits[pool.name] = Fit(points)
            points.append((snap.time, room))
            fit.add(snap.time, room)
            while points and snap.time - points[0][0] > self.cfg.fill_trend_window_s:
                fit.drop(*points.popleft())
            self._points[pool.name] = (basis, points)
        for gone in set(self._points) - {p.name for p in snap.pools}:
            del self._points[gone]
            fits.pop(gone, None)

    def _fits_now(self) -> dict[str, Fit]:
        """The sums of every pool's points, made from them after a keyframe or a copy (which
        leave them out) and for a pool that has none yet."""
        fits = self._fits if self._fits is not None else {}
        for name, (_, points) in self._points.items():
            if name not in fits:
                fits[name] = Fit(points)
        self._fits = fits
        return fits

    def findings(self, snap: Snapshot) -> list[Finding]:
        return _findings(snap, self._points, self._fits_now(), self.cfg)


def check(history: Sequence[Snapshot], cfg: CheckConfig) -> list[Finding]:
    return tracker.fold(Tracker, history, cfg)


def _findings(
    snap: Snapshot,
    trend: dict[str, tuple[str, deque[tuple[float, float]]]],
    fits: dict[str, Fit],
    cfg: CheckConfig,
) -> list[Finding]:
    out: list[Finding] = []
    for pool in snap.pools:
        points = trend.get(pool.name)
        fit = fits.get(pool.name) if points else None
        pool_level = _pool_finding(pool, snap, (points[1], fit) if points and fit else None, cfg, out)
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
                    title=f"{v.name} is {fmt_fill(pct)} full (pool {fmt_fill(pool.fill_pct)})",
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
                        ("Vdev capacity", fmt_fill(pct)),
                        ("Vdev allocated", fmt_bytes(v.alloc)),
                        ("Vdev free", fmt_bytes(v.free)),
                        ("Class", v.vclass),
                        ("Pool capacity", fmt_fill(pool.fill_pct)),
                    ),
                )
            )
    return out


def _pool_finding(
    pool: Pool,
    snap: Snapshot,
    trend: tuple[deque[tuple[float, float]], Fit] | None,
    cfg: CheckConfig,
    out: list[Finding],
) -> Severity | None:
    pct = pool.fill_pct
    from_datasets = False
    if pct is None:  # no zpool figure at all: what the pasted zfs list says
        pct = dataset_fill_pct(snap, pool)
        from_datasets = pct is not None
    level = by_fill = pool_level(pct, cfg)
    room, _basis = headroom(snap, pool)
    rate, span = _shrink_rate(trend, cfg)
    full = room is not None and room <= 0
    ttf = room / rate if rate and room is not None and room > 0 else None
    soon = ttf is not None and ttf < cfg.fill_warn_hours * 3600
    if full:
        level = Severity.CRITICAL
    elif soon:
        level = max(level or Severity.WARNING, Severity.WARNING)
    if level is None:
        return None
    if full:
        title = f"{pool.name} is out of space: writes fail (CAP {fmt_fill(pct)})"
    elif soon and by_fill is None:
        title = f"{pool.name} is filling: full in about {fmt_duration(ttf)} at this rate"
    else:
        title = f"{pool.name} is {fmt_fill(pct)} full" + (
            f", full in about {fmt_duration(ttf)}" if ttf else ""
        )
    evidence = [
        ("Capacity", fmt_fill(pct)),
        ("Allocated", fmt_bytes(pool.alloc)),
        ("Size", fmt_bytes(pool.size)),
        ("Writable headroom", fmt_bytes(None if room is None else max(room, 0))),
    ]
    if from_datasets:
        evidence[0] = ("Capacity", f"{fmt_fill(pct)} of the writable space (zfs list: used / (used + avail))")
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


def _shrink_rate(
    trend: tuple[deque[tuple[float, float]], Fit] | None, cfg: CheckConfig
) -> tuple[float | None, float]:
    """How fast the headroom shrinks (bytes/s), None unless a real, positive trend; and the
    span of time it was measured over."""
    if trend is None:
        return None, 0.0
    points, fit = trend
    span = points[-1][0] - points[0][0] if points else 0.0
    if len(points) < cfg.fill_trend_min_samples or span < cfg.fill_trend_min_span_s:
        return None, span
    slope = fit.slope()
    return (-slope if slope is not None and slope < 0 else None), span
