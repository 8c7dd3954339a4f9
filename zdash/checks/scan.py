"""Scan: progress of a running scrub/resilver with zdash's own ETA, and scrub hygiene
(never scrubbed, overdue, last scrub had to repair something)."""

from __future__ import annotations

from collections.abc import Sequence

from zdash.checks._common import act, pool_series
from zdash.checks.finding import Finding, Severity
from zdash.config import CheckConfig
from zdash.fmt import fmt_bytes, fmt_duration, fmt_pct, fmt_rate, plural
from zdash.model import Pool, Scan, Snapshot

ID = "scan"

ACTIVE = ("scanning", "paused")
DAY = 86400.0


def check(history: Sequence[Snapshot], cfg: CheckConfig) -> list[Finding]:
    now = history[-1]
    out: list[Finding] = []
    for pool in now.pools:
        active = [s for s in pool.scans if s.state in ACTIVE]
        out.extend(_progress(pool, s, history, cfg, now.time) for s in active)
        # While anything scans, "scrub now" advice is moot (a resilver even blocks scrubs).
        if not active and (f := _hygiene(pool, now.time, cfg)) is not None:
            out.append(f)
    return out


def _same_scan(a: Scan, b: Scan) -> bool:
    return a.function == b.function and a.start_time == b.start_time and a.vdev == b.vdev


def rolling_rate(
    pool_name: str, scan: Scan, history: Sequence[Snapshot], cfg: CheckConfig
) -> tuple[float | None, float]:
    """Issued bytes/s over the newest stretch of samples in which this scan kept running
    (a pause or a restart ends the stretch). zpool's own rate is per pass and often lags."""
    points: list[tuple[float, int]] = []
    for t, p in reversed(pool_series(history, pool_name)):
        s = next((x for x in p.scans if _same_scan(x, scan)), None)
        if s is None or s.state != "scanning" or s.issued is None:
            break
        if points and (s.issued > points[-1][1] or points[0][0] - t > cfg.scan_rate_window_s):
            break
        points.append((t, s.issued))
    span = points[0][0] - points[-1][0] if points else 0.0
    if len(points) < 2 or span < cfg.scan_rate_min_span_s:
        return None, span
    return (points[0][1] - points[-1][1]) / span, span


def _progress(pool: Pool, scan: Scan, history: Sequence[Snapshot], cfg: CheckConfig, now: float) -> Finding:
    total = scan.to_examine - (scan.skipped or 0) if scan.to_examine else None
    pct = (
        scan.pct_done
        if scan.pct_done is not None
        else (100.0 * scan.issued / total if total and scan.issued is not None else None)
    )
    what = scan.function + (f" of {scan.vdev}" if scan.vdev else "")
    evidence = [("Progress", fmt_pct(pct)), ("Issued", f"{fmt_bytes(scan.issued)} of {fmt_bytes(total)}")]
    if scan.start_time:
        evidence.append(("Started", f"{fmt_duration(now - scan.start_time)} ago"))
    if scan.processed:
        evidence.append(("Repaired" if scan.function == "scrub" else "Resilvered", fmt_bytes(scan.processed)))
    severity = Severity.INFO
    redundancy_lost = pool.state != "ONLINE"
    if scan.function in ("resilver", "rebuild") and redundancy_lost:
        severity = Severity.WARNING
    if scan.function == "scrub" and scan.processed:
        severity = Severity.WARNING
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
        rate, span = rolling_rate(pool.name, scan, history, cfg)
        remaining = max(total - scan.issued, 0) if total and scan.issued is not None else None
        eta = remaining / rate if rate and remaining is not None else None
        evidence.append(
            (
                "Rate (zdash)",
                f"{fmt_rate(rate)} over {fmt_duration(span)}"
                if rate is not None
                else f"measuring ({fmt_duration(span)} of data)",
            )
        )
        evidence.append(("ETA (zdash)", fmt_duration(eta) if eta is not None else "unknown"))
        evidence.append(("ETA (zpool)", fmt_duration(scan.zpool_eta_s)))
        if rate == 0:
            tail = f", nothing issued in the last {fmt_duration(span)}"
        elif eta is not None:
            tail = f", about {fmt_duration(eta)} left"
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
    scrubs = [s for s in pool.scans if s.function == "scrub"]
    scrub_action = (act("Start a scrub", "scrub", "zpool", "scrub", pool.name),)
    if not scrubs:
        if any(s.function == "errorscrub" for s in pool.scans):
            return None  # 2.2+ shows the error-scrub block instead: the last scrub is unknown
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
    if last.state == "finished" and (last.processed or last.errors):
        severity = Severity.WARNING
        parts.append(
            ("repaired " if parts else "last scrub repaired ")
            + fmt_bytes(last.processed or 0)
            + (f" with {plural(last.errors, 'error')}" if last.errors else "")
        )
        evidence += [("Repaired", fmt_bytes(last.processed or 0)), ("Errors", str(last.errors or 0))]
        why.append(
            "The last scrub found bad data: a device returned wrong or unreadable blocks. "
            "Repairs came from redundancy; errors are blocks it could not repair. Check "
            "which device has error counts and watch whether they come back."
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
