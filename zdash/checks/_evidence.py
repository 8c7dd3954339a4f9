"""The evidence an expert fetches next, beside a verdict about a disk: its SMART figures with
what they mean, its latency histogram against its peers' (all slow, or a long tail?), and the
kernel log lines that name it since the trouble began. One home for these words: the slow-disk
finding quotes them, the SMART finding (zdash.checks.smart) is made of the same verdicts.
"""

from __future__ import annotations

import dataclasses
import time
from dataclasses import dataclass

from zdash.checks.finding import Finding, Severity
from zdash.fmt import fmt_wait, plural
from zdash.model import NO_EVIDENCE, LeafDisks, Pool, SmartReport, Snapshot, Vdev, histogram_names, pooled
from zdash.parse.kernel_log import naming

KERNEL_LINES = 20  # the last lines naming the disk since the onset, at most
MIN_IOS = 20  # fewer disk I/Os than this in a histogram tell nothing about its shape
DISK = ("disk_read", "disk_write")
# NVMe critical warning bits (NVMe base spec, SMART / Health log byte 0).
NVME_WARNINGS = (
    (0x01, "its spare capacity is below the threshold"),
    (0x02, "its temperature is outside its limits"),
    (0x04, "its reliability is degraded (media or internal errors)"),
    (0x08, "its media is in read-only mode"),
    (0x10, "its volatile memory backup has failed"),
)
MEANING_MEDIA = "the media is failing: plan its replacement"
MEANING_FAILING = "the drive itself says it is failing: replace it"
MEANING_LINK = "interface errors: reseat or replace its cable, try another port or backplane slot"
MEANING_CLEAN = (
    "clean SMART: the drive reports no fault of its own, so look at the path to it: cabling, "
    "backplane, HBA, firmware"
)


@dataclass(frozen=True, slots=True)
class SmartVerdict:
    """What a SMART reading says: how bad (None: nothing wrong), the figures that say so, and
    what they mean for the admin."""

    severity: Severity | None
    problems: tuple[str, ...]
    meaning: str


def smart_verdict(r: SmartReport, crc_grew: bool = False) -> SmartVerdict:
    """CRITICAL where the drive says it is failing (its overall verdict, an NVMe critical
    warning, an attribute at its threshold now); WARNING for media trouble it still copes with
    (pending, reallocated, uncorrectable sectors, grown defects, media errors, a failed
    self-test, worn out); interface CRC errors are the cable's, a WARNING only while they grow."""
    failing: list[str] = []
    media: list[str] = []
    if r.passed is False:
        failing.append("SMART overall health FAILED")
    for bit, words in NVME_WARNINGS:
        if r.critical_warning and r.critical_warning & bit:
            failing.append(words)
    if r.failing_now:
        failing.append(f"{', '.join(r.failing_now)} at its failure threshold now")
    counts = (
        (
            r.pending,
            "sector pending (unreadable, waiting to be rewritten)",
            "sectors pending (unreadable, waiting to be rewritten)",
        ),
        (r.offline_uncorrectable, "sector uncorrectable", "sectors uncorrectable"),
        (r.reallocated, "sector reallocated", "sectors reallocated"),
        (r.reported_uncorrect, "read its ECC could not correct", "reads its ECC could not correct"),
        (r.grown_defects, "grown defect", "grown defects"),
        (r.uncorrected_errors, "uncorrected error", "uncorrected errors"),
        (r.media_errors, "media error", "media errors"),
    )
    for n, one, many in counts:
        if n:
            media.append(f"{n:,} {one if n == 1 else many}")
    if r.percentage_used is not None and r.percentage_used >= 90:
        media.append(f"{r.percentage_used} % of its rated endurance used")
    if r.self_test is not None and r.self_test.passed is False:
        media.append(f"its last self-test ({r.self_test.kind}) failed: {r.self_test.status}")
    link = [f"{plural(r.crc_errors, 'interface CRC error')}"] if r.crc_errors else []
    if failing:
        return SmartVerdict(Severity.CRITICAL, tuple(failing + media + link), MEANING_FAILING)
    if media:
        return SmartVerdict(Severity.WARNING, tuple(media + link), MEANING_MEDIA)
    if link:
        grew = " (growing)" if crc_grew else " (on record: a problem now only if it grows)"
        return SmartVerdict(Severity.WARNING if crc_grew else None, (link[0] + grew,), MEANING_LINK)
    return SmartVerdict(None, (), MEANING_CLEAN)


def smart_summary(r: SmartReport) -> str:
    """One line: the verdict's figures (or "no errors") and the drive's vital signs."""
    if r.unavailable:
        return f"not readable: {r.unavailable}"
    v = smart_verdict(r)
    head = (
        "; ".join(v.problems) if v.problems else "no reallocated, pending or uncorrectable sectors, no errors"
    )
    vitals = [
        p
        for p in (
            r.model,
            f"{r.power_on_hours:,} h on" if r.power_on_hours is not None else None,
            f"{r.temperature_c} °C" if r.temperature_c is not None else None,
        )
        if p
    ]
    test = r.self_test
    if test is not None and test.passed is not False:
        vitals.append(f"last self-test {test.kind}: {test.status}")
    return f"{head} ({', '.join(vitals)}): {v.meaning}" if vitals else f"{head}: {v.meaning}"


def leaf_disks(snap: Snapshot, leaf: Vdev) -> LeafDisks | None:
    return snap.evidence.disks_of(leaf.path)


def smart_lines(snap: Snapshot, leaf: Vdev) -> list[tuple[str, str]]:
    """("SMART", what each disk under the leaf says), or why there is none."""
    ev = snap.evidence
    disks = leaf_disks(snap, leaf)
    if disks is None:
        return []
    if not disks.disks:
        return [("SMART", f"none: {disks.why_not}")] if disks.why_not else []
    shown = disks.disks[:1] if disks.multipath else disks.disks
    out = []
    for disk in shown:
        report = ev.smart_of(disk)
        label = "SMART" if len(shown) == 1 else f"SMART {disk}"
        if report is not None:
            out.append((label, smart_summary(report)))
        elif ev.smart_unavailable:
            out.append((label, f"not read: {ev.smart_unavailable}"))
        else:
            out.append((label, f"/dev/{disk}: not read yet (zdash reads it while this finding stands)"))
    return out


def peers_of(top: Vdev, leaf: Vdev) -> list[Vdev]:
    return [v for v in top.leaves() if v is not leaf]


def histogram_lines(snap: Snapshot, pool: Pool, top: Vdev, leaf: Vdev) -> list[tuple[str, str]]:
    """p50 and p99 disk wait of the leaf against its peers' (their I/Os pooled), and what the
    shapes say: slow on every I/O, or a long tail."""
    ev = snap.evidence
    mine = ev.histogram(pool.name, *histogram_names(leaf))
    theirs = [
        h for v in peers_of(top, leaf) if (h := ev.histogram(pool.name, *histogram_names(v))) is not None
    ]
    if mine is None or not theirs:
        return []
    peers = pooled(theirs)
    if mine.count(*DISK) < MIN_IOS or peers.count(*DISK) < MIN_IOS:
        when = "since it was first read" if mine.since is not None else "since the pool's import"
        return [("Disk wait histogram", f"too few I/Os {when} to tell its shape")]
    p50, p99 = mine.quantile(0.5, *DISK), mine.quantile(0.99, *DISK)
    q50, q99 = peers.quantile(0.5, *DISK), peers.quantile(0.99, *DISK)
    names = ", ".join(v.label for v in peers_of(top, leaf)[:4])
    span = "since the pool's import" if mine.since is None else f"over {plural(mine.count(*DISK), 'I/O')}"
    return [
        (
            "Disk wait p99",
            f"{fmt_wait(p99)} vs {fmt_wait(q99)} on its peers ({names}); p50 {fmt_wait(p50)} vs {fmt_wait(q50)}, {span}",
        ),
        ("Latency shape", shape(p50, p99, q50, q99)),
    ]


def shape(p50: int | None, p99: int | None, q50: int | None, q99: int | None) -> str:
    """Slow on every I/O (its median sits two buckets or more above its peers'), a long tail
    (its median is theirs, its p99 is not), or alike (the delay is not in the device)."""
    if p50 and q50 and p50 >= 4 * q50:
        return (
            "slow on every I/O: its whole histogram sits higher than its peers' (a slow path: "
            "a degraded link, a failing controller or head, an SMR disk rewriting)"
        )
    if p99 and q99 and p99 >= 4 * q99:
        return (
            "a long tail: most I/Os are as fast as its peers', a few take far longer (retries and "
            "timeouts: a weak sector, a marginal cable or port)"
        )
    return "alike: its disk wait has its peers' shape; the delay is not in the device"


def kernel_lines(snap: Snapshot, leaf: Vdev, since: float | None) -> list[tuple[str, str]]:
    """The last KERNEL_LINES kernel log lines naming the leaf's disk, from `since` on."""
    disks = leaf_disks(snap, leaf)
    if disks is None or not disks.names:
        return []
    if not snap.evidence.kernel_log and snap.evidence.kernel_log_unavailable:
        return [("Kernel log", f"not read: {snap.evidence.kernel_log_unavailable}")]
    found = naming(snap.evidence.kernel_log, disks.names, since, KERNEL_LINES)
    out = []
    for line in found:
        stamp = (
            "Kernel" if line.time is None else time.strftime("Kernel %H:%M:%S UTC", time.gmtime(line.time))
        )
        out.append((stamp, line.text))
    return out


def leaf_evidence(
    snap: Snapshot, pool: Pool, top: Vdev, leaf: Vdev, since: float | None
) -> list[tuple[str, str]]:
    """Everything fetched about a leaf, as evidence rows (empty until something was fetched)."""
    return smart_lines(snap, leaf) + histogram_lines(snap, pool, top, leaf) + kernel_lines(snap, leaf, since)


# Checks whose findings about a leaf get the evidence from the engine (zdash.checks.registry):
# their trackers reuse findings until the pool's structure changes, while SMART, histograms and
# the kernel log arrive on their own clock. deranged_disk adds its own (from its onset); smart
# is made of SMART already.
FROM_ENGINE = ("health",)


def with_evidence(snap: Snapshot, findings: list[Finding]) -> list[Finding]:
    """`findings` with the fetched evidence appended to each FROM_ENGINE finding about a leaf
    (the same objects when there is none: the common case costs a scan of the list)."""
    if snap.evidence is NO_EVIDENCE:
        return findings
    out = []
    for f in findings:
        rows = _for_finding(snap, f) if f.check in FROM_ENGINE and f.subject_kind == "leaf" else []
        out.append(dataclasses.replace(f, evidence=f.evidence + tuple(rows)) if rows else f)
    return out


def _for_finding(snap: Snapshot, f: Finding) -> list[tuple[str, str]]:
    pool = snap.pool(f.pool) if f.pool else None
    if pool is None:
        return []
    for top in pool.top_level:
        for leaf in top.leaves():
            if leaf.label == f.subject:
                return leaf_evidence(snap, pool, top, leaf, since=None)
    return []
