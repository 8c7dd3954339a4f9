"""Scan: progress of a running scrub/resilver with zdash's own ETA, and scrub hygiene (never
scrubbed, overdue, canceled). What a scrub found and repaired is the health check's story (one
fault, one finding); a resilver's lost redundancy is the health check's too: progress is INFO.

The rate is zdash's own: bytes issued per second over the last `scan_rate_window_s` of samples
in which the same scan kept running (a pause or a restart starts over); zpool's own figure
averages the whole pass and is often far off."""

from __future__ import annotations

from collections import deque
from collections.abc import Sequence

from zdash.checks import tracker
from zdash.checks._common import act, pool_series
from zdash.checks.finding import Finding, Severity
from zdash.config import CheckConfig
from zdash.fmt import fmt_bytes, fmt_duration, fmt_pct, fmt_rate
from zdash.model import UNSEEN, Pool, Scan, Snapshot

ID = "scan"

ACTIVE = ("scanning", "paused")
DAY = 86400.0


ScanId = tuple[str, float | None, str | None]


def _scan_id(s: Scan) -> ScanId:
    return (s.function, s.start_time, s.vdev)


def rate_of(points: Sequence[tuple[float, int]], cfg: CheckConfig) -> tuple[float | None, float]:
    """Issued bytes/s over (time, issued) points of one running scan, oldest first, and the span
    they cover; None while the span is under `scan_rate_min_span_s`."""
    span = points[-1][0] - points[0][0] if points else 0.0
    if len(points) < 2 or span < cfg.scan_rate_min_span_s:
        return None, span
    return (points[-1][1] - points[0][1]) / span, span


def rolling_rate(
    pool_name: str, scan: Scan, history: Sequence[Snapshot], cfg: CheckConfig
) -> tuple[float | None, float]:
    """The same rate from a window of snapshots (for a caller that holds a history)."""
    points: list[tuple[float, int]] = []
    for t, p in reversed(pool_series(history, pool_name)):
        s = next((x for x in p.scans if _scan_id(x) == _scan_id(scan)), None)
        if s is None or s.state != "scanning" or s.issued is None:
            break
        if points and (s.issued > points[-1][1] or points[0][0] - t > cfg.scan_rate_window_s):
            break
        points.append((t, s.issued))
    return rate_of(points[::-1], cfg)


class Tracker(tracker.Tracker):
    def __init__(self, cfg: CheckConfig) -> None:
        super().__init__(cfg)
        # Per pool and running scan: (time, issued) while it keeps running, trimmed to the window.
        self._points: dict[tuple[str, ScanId], deque[tuple[float, int]]] = {}

    def observe(self, snap: Snapshot) -> None:
        live: set[tuple[str, ScanId]] = set()
        for pool in snap.pools:
            for s in pool.scans:
                if s.state != "scanning" or s.issued is None:
                    continue
                key = (pool.name, _scan_id(s))
                live.add(key)
                points = self._points.setdefault(key, deque())
                if points and s.issued < points[-1][1]:
                    points.clear()  # restarted
                points.append((snap.time, s.issued))
                while points and snap.time - points[0][0] > self.cfg.scan_rate_window_s:
                    points.popleft()
        for gone in set(self._points) - live:
            del self._points[gone]  # paused, finished or gone: a resumed scan measures anew

    def rates(self) -> dict[tuple[str, str, float | None], tuple[float | None, float]]:
        return {
            (pool, sid[0], sid[1]): rate_of(points, self.cfg) for (pool, sid), points in self._points.items()
        }

    def findings(self, snap: Snapshot) -> list[Finding]:
        out: list[Finding] = []
        for pool in snap.pools:
            active = [s for s in pool.scans if s.state in ACTIVE]
            for s in active:
                rate, span = rate_of(self._points.get((pool.name, _scan_id(s)), ()), self.cfg)
                out.append(_progress(pool, s, rate, span, self.cfg, snap.time))
            # While anything scans, "scrub now" advice is moot (a resilver even blocks scrubs).
            if not active and (f := _hygiene(pool, snap.time, self.cfg)) is not None:
                out.append(f)
        return out


def check(history: Sequence[Snapshot], cfg: CheckConfig) -> list[Finding]:
    return tracker.fold(Tracker, history, cfg)


def eta(scan: Scan, rate: float | None) -> tuple[float | None, float | None]:
    """(% done, seconds left) of a running scan at `rate`, as zdash computes them."""
    total = scan.to_examine - (scan.skipped or 0) if scan.to_examine else None
    pct = (
        scan.pct_done
        if scan.pct_done is not None
        else (100.0 * scan.issued / total if total and scan.issued is not None else None)
    )
    remaining = max(total - scan.issued, 0) if total and scan.issued is not None else None
    return pct, (remaining / rate if rate and remaining is not None else None)


def _progress(
    pool: Pool, scan: Scan, rate: float | None, span: float, cfg: CheckConfig, now: float
) -> Finding:
    total = scan.to_examine - (scan.skipped or 0) if scan.to_examine else None
    pct, left = eta(scan, rate)
    what = scan.function + (f" of {scan.vdev}" if scan.vdev else "")
    evidence = [("Progress", fmt_pct(pct)), ("Issued", f"{fmt_bytes(scan.issued)} of {fmt_bytes(total)}")]
    if scan.start_time:
        evidence.append(("Started", f"{fmt_duration(now - scan.start_time)} ago"))
    if scan.processed:
        evidence.append(("Repaired" if scan.function == "scrub" else "Resilvered", fmt_bytes(scan.processed)))
    severity = Severity.INFO  # what the scan restores or finds is the health check's finding
    redundancy_lost = pool.state != "ONLINE"
    actions = []
    if scan.state == "paused":
        paused_for = now - scan.pause_time if scan.pause_time else None
        if paused_for is not None:
            evidence.append(("Paused for", fmt_duration(paused_for)))
        if paused_for is not None and paused_for > cfg.scrub_max_age_days * DAY:
            severity = max(severity, Severity.WARNING)
        title = f"{pool.name}: {what} paused at {fmt_pct(pct)}"
        why = (
            f"A paused {scan.function} stays paused across reboots until resumed; until it "
            "finishes, the blocks it has not reached are unverified."
        )
        resume = {"scrub": ("zpool", "scrub", pool.name), "errorscrub": ("zpool", "scrub", "-e", pool.name)}
        if scan.function in resume:  # a resilver is never paused by the admin
            actions.append(act(f"Resume the {scan.function}", "scrub", *resume[scan.function]))
    else:
        evidence.append(
            (
                "Rate (zdash)",
                f"{fmt_rate(rate)} over {fmt_duration(span)}"
                if rate is not None
                else f"measuring ({fmt_duration(span)} of data)",
            )
        )
        evidence.append(("ETA (zdash)", fmt_duration(left) if left is not None else "unknown"))
        evidence.append(("ETA (zpool)", fmt_duration(scan.zpool_eta_s)))
        if rate == 0:
            tail = f", nothing issued in the last {fmt_duration(span)}"
        elif left is not None:
            tail = f", about {fmt_duration(left)} left"
        else:
            tail = ""
        title = f"{pool.name}: {what} {fmt_pct(pct)} done{tail}"
        why = (
            "zdash estimates the time left from the bytes issued over the last "
            f"{fmt_duration(cfg.scan_rate_window_s)}; zpool's own figure averages the whole pass "
            "and is often far off. A scan that issues nothing for a while may still be "
            "sorting metadata before it issues data."
        )
        if scan.function in ("resilver", "rebuild"):
            why = (
                "The pool runs with reduced redundancy until the resilver completes: a second "
                "failure in the affected vdev now could lose data. "
                if redundancy_lost
                else "A resilver copies data onto a new or returning device. "
            ) + why
        elif scan.function == "scrub":
            actions.append(act("Pause the scrub (resume later)", "scrub", "zpool", "scrub", "-p", pool.name))
    if scan.function == "scrub" and scan.processed:
        why += " The scrub has already had to repair data: see the health findings for which device."
    return Finding(
        ID,
        severity,
        pool.name,
        scan.vdev or pool.name,
        "vdev" if scan.vdev else "pool",
        title=title,
        why=why,
        evidence=tuple(evidence),
        actions=tuple(actions),
        topic=scan.function + (f":{scan.vdev}" if scan.vdev else ""),
    )


def _hygiene(pool: Pool, now: float, cfg: CheckConfig) -> Finding | None:
    if pool.state == UNSEEN or not pool.scans_known:
        return None  # no `zpool status` behind this pool (a list or iostat paste), or one that
        # does not say (a table pasted alone, a scan: line zdash cannot read): scans unknown
    scrubs = [s for s in pool.scans if s.function == "scrub"]
    scrub_action = (act("Start a scrub", "scrub", "zpool", "scrub", pool.name),)
    if not scrubs:
        if any(s.function in ("errorscrub", "resilver") for s in pool.scans):
            # zpool keeps one record for scrubs and healing resilvers: a resilver's replaces the
            # last scrub's (2.2+ shows the error-scrub block instead): the last scrub is unknown
            return None
        return Finding(
            ID,
            Severity.INFO,
            pool.name,
            pool.name,
            "pool",
            topic="scrub-history",
            title=f"{pool.name} has no scrub on record",
            why="A scrub reads every block and checks it against its checksum, repairing "
            "from redundancy. Without one, silent corruption stays hidden until the "
            "data is read, possibly after the redundant copy is gone too.",
            actions=scrub_action,
        )
    last = max(scrubs, key=lambda s: s.end_time or s.start_time or 0)
    when = last.end_time or last.start_time
    age = now - when if when else None
    overdue = age is not None and age > cfg.scrub_max_age_days * DAY
    parts, why, evidence = (
        [],
        [],
        [("Last scrub", f"{last.state}, {fmt_duration(age)} ago" if age is not None else last.state)],
    )
    severity = Severity.INFO
    if last.state == "canceled":
        parts.append("last scrub was canceled")
        why.append("The last scrub was canceled, so no complete verification is on record.")
        severity = Severity.WARNING if overdue else Severity.INFO
    elif overdue:
        parts.append(f"last scrub {fmt_duration(age)} ago")
        severity = Severity.WARNING
        why.append(
            f"More than {cfg.scrub_max_age_days:g} days have passed since every block was "
            "last verified; scrubbing regularly finds silent corruption while the redundant "
            "copy can still repair it."
        )
    if not parts:
        return None
    return Finding(
        ID,
        severity,
        pool.name,
        pool.name,
        "pool",
        topic="scrub-history",
        title=f"{pool.name}: {', '.join(parts)}",
        why=" ".join(why),
        evidence=tuple(evidence),
        actions=scrub_action,
    )
