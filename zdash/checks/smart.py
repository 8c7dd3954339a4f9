"""SMART on its own: a disk under a pool's leaf whose SMART says something is wrong is a finding,
whether or not ZFS has noticed yet (a disk with pending sectors reads fine until the sector is
asked for; ZFS sees it only then).

CRITICAL where the drive itself says it is failing (its overall health verdict, an NVMe critical
warning, an attribute at its threshold now); WARNING for media trouble it still copes with; the
words are zdash.checks._evidence's, the same the slow-disk finding quotes. Interface CRC errors
are the cable's, not the disk's: a WARNING only while the count grows under zdash's eyes (an old
count from a cable replaced years ago stays on record forever).

Where SMART cannot be read at all on the host (smartctl not installed, older than 7, not
permitted), that is said once, as information, never as an error; so are the disks smartctl
cannot read (a USB bridge it does not know, a RAID controller's volume).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from zdash.checks import tracker
from zdash.checks._common import leaves_with_top
from zdash.checks._evidence import MEANING_LINK, smart_verdict
from zdash.checks.finding import Finding, Severity, SuggestedAction
from zdash.config import CheckConfig
from zdash.fmt import fmt_list, plural
from zdash.model import LeafDisks, Pool, SmartReport, Snapshot, Vdev
from zdash.redundancy import margin

ID = "smart"
WHY = (
    "SMART is the drive's own record of its health. ZFS only learns of a bad sector when it "
    "reads it and the read fails; the drive often knew first (a pending sector is one it could "
    "not read and is waiting to rewrite). A redundant vdev repairs from the other copies as long "
    "as the others hold: replace a failing disk while they still do."
)
UNREADABLE_WHY = (
    "Without SMART zdash cannot say whether a slow or erroring disk is failing or only its cable "
    "or controller is; everything else it watches still works."
)
# How a disk that smartctl cannot read says why, for the admin (the reading keeps its words).
UNREADABLE = {
    "usb-bridge": "a USB bridge smartctl does not know (try `smartctl -d sat -a`)",
    "unsupported": "no SMART through this device type",
    "gone": "the device is gone",
    "failed": "smartctl failed",
}
MIN_SERIAL = 6  # a shorter serial could be part of any by-id name


class Tracker(tracker.Tracker):
    def __init__(self, cfg: CheckConfig) -> None:
        super().__init__(cfg)
        self._first_crc: dict[str, int] = {}  # disk -> the CRC count zdash first read

    def observe(self, snap: Snapshot) -> None:
        for r in snap.evidence.smart:
            if r.crc_errors is not None:
                self._first_crc.setdefault(r.device, r.crc_errors)

    def findings(self, snap: Snapshot) -> list[Finding]:
        ev = snap.evidence
        out: list[Finding] = []
        if ev.smart_unavailable:
            out.append(
                Finding(
                    ID,
                    Severity.INFO,
                    None,
                    snap.host or "this host",
                    "host",
                    title=f"SMART is not read on {snap.host or 'this host'}: {ev.smart_unavailable}",
                    why=UNREADABLE_WHY,
                    topic="unavailable",
                )
            )
        if not ev.smart:
            return out
        placed: set[int] = set()  # the readings found under a leaf (by index in ev.smart)
        for pool in snap.pools:
            unreadable: list[str] = []
            for top, leaf in leaves_with_top(pool):
                for report in self._readings_of(ev.smart, leaf, ev.disks_of(leaf.path)):
                    placed.add(ev.smart.index(report))
                    if report.unavailable_kind in UNREADABLE:
                        unreadable.append(f"{report.device}: {UNREADABLE[report.unavailable_kind]}")
                        continue
                    f = self._finding(pool, top, leaf, report)
                    if f is not None:
                        out.append(f)
            if unreadable:
                out.append(
                    Finding(
                        ID,
                        Severity.INFO,
                        pool.name,
                        pool.name,
                        "pool",
                        title=f"SMART cannot be read for {plural(len(unreadable), 'disk')} of {pool.name}",
                        why=UNREADABLE_WHY,
                        evidence=tuple(("Not readable", u) for u in unreadable[:8]),
                        topic="unreadable",
                    )
                )
        if self.cfg.one_look:  # a paste: SMART of a disk it does not say the pool member of
            for i, report in enumerate(ev.smart):
                if i not in placed and (f := _unplaced(snap.pools, report)) is not None:
                    out.append(f)
        return out

    @staticmethod
    def _readings_of(
        readings: tuple[SmartReport, ...], leaf: Vdev, disks: LeafDisks | None
    ) -> list[SmartReport]:
        """The SMART readings of a leaf's disks: by the kernel names zdash mapped it to (live),
        else, in a paste, by the serial number its by-id name holds (smartctl's text prints it)."""
        if disks is not None:
            names = disks.disks[:1] if disks.multipath else disks.disks
            return [r for d in names if (r := _smart_of(readings, d)) is not None]
        shown = f"{leaf.name} {leaf.path or ''}"
        return [r for r in readings if r.serial and len(r.serial) >= MIN_SERIAL and r.serial in shown]

    def _finding(self, pool: Pool, top: Vdev, leaf: Vdev, r: SmartReport) -> Finding | None:
        first = self._first_crc.get(r.device)
        grew = first is not None and r.crc_errors is not None and r.crc_errors > first
        verdict = smart_verdict(r, crc_grew=grew)
        if verdict.severity is None:
            return None
        name = f"{r.device} ({r.model})" if r.model else r.device
        evidence: list[tuple[str, str]] = [("Disk", name), ("Under", f"{leaf.label} in {top.name}")]
        evidence += [("SMART", p) for p in verdict.problems]
        if r.power_on_hours is not None:
            evidence.append(("Power-on hours", f"{r.power_on_hours:,}"))
        if r.temperature_c is not None:
            evidence.append(("Temperature", f"{r.temperature_c} °C"))
        if r.self_test is not None:
            evidence.append(("Last self-test", f"{r.self_test.kind}: {r.self_test.status}"))
        if grew:
            evidence.append(("CRC errors", f"{first:,} when zdash first read it, {r.crc_errors:,} now"))
        actions = [
            SuggestedAction(f"Run a long self-test on {r.device}", ("smartctl", "-t", "long", r.device)),
            SuggestedAction(
                f"Replace {leaf.label} with a new disk (it stays in until the resilver ends)",
                ("zpool", "replace", pool.name, leaf.label),
                "replace",
                new_device="required",
            ),
        ]
        return Finding(
            ID,
            verdict.severity,
            pool.name,
            leaf.label,
            "leaf",
            title=f"{name}: {verdict.meaning.split(':')[0]}: {_headline(verdict.problems)}",
            why=WHY + f" Here: {verdict.meaning}.",
            evidence=tuple(evidence),
            actions=() if verdict.meaning == MEANING_LINK else tuple(actions),  # a cable, not the disk
        )


def _smart_of(readings: tuple[SmartReport, ...], disk: str) -> SmartReport | None:
    dev = disk if disk.startswith("/dev/") else f"/dev/{disk}"
    return next((r for r in readings if r.device == dev), None)


def _unplaced(pools: tuple[Pool, ...], r: SmartReport) -> Finding | None:
    """A pasted SMART reading of a disk the paste does not place in a pool: smartd and smartctl
    name it by kernel name (/dev/sde), zpool by its by-id name. What is wrong, that this output
    does not say which member it is, how the admin finds out, and what to do."""
    verdict = smart_verdict(r)
    if verdict.severity is None:
        return None
    pool = pools[0] if len(pools) == 1 else None
    disk = r.device or (f"the disk with serial {r.serial}" if r.serial else "a disk")
    name = f"{disk} ({r.model})" if r.model else disk
    where = f"{pool.name}" if pool is not None else "the pools pasted"
    kernel = r.device.removeprefix("/dev/") if r.device.startswith("/dev/") else None
    find = (
        f"`ls -l /dev/disk/by-id | grep -w {kernel}` shows its by-id names (its serial is in them), "
        f"and `zpool status -L{' ' + pool.name if pool else ''}` prints the pool's members by "
        "kernel name"
        if kernel
        else "`ls -l /dev/disk/by-id` lists the disks by model and serial, and `zpool status -L` "
        "prints the pool's members by kernel name"
    )
    todo = _what_to_do(pool)
    evidence: list[tuple[str, str]] = [
        ("Disk", name),
        ("Pool member", f"not in this output: which disk of {where} it is, the output does not say"),
    ]
    evidence += [("SMART", p) for p in verdict.problems]
    if r.serial:
        evidence.append(("Serial", r.serial))
    if r.power_on_hours is not None:
        evidence.append(("Power-on hours", f"{r.power_on_hours:,}"))
    actions: list[SuggestedAction] = []
    if pool is not None:
        actions.append(
            SuggestedAction(
                f"Show {pool.name}'s members by kernel name", ("zpool", "status", "-L", pool.name)
            )
        )
        actions.append(
            SuggestedAction(
                f"Scrub {pool.name}: does ZFS find bad data?", ("zpool", "scrub", pool.name), "scrub"
            )
        )
    if kernel and verdict.meaning != MEANING_LINK:
        actions.append(
            SuggestedAction(f"Run a long self-test on {r.device}", ("smartctl", "-t", "long", r.device))
        )
    return Finding(
        ID,
        verdict.severity,
        pool.name if pool is not None else None,
        disk,
        "disk",
        title=f"{name}: {verdict.meaning.split(':')[0]}: {_headline(verdict.problems)}; "
        f"which disk of {where} it is, this output does not say",
        why=WHY
        + f" Here: {verdict.meaning}. Find which pool member it is: {find}. "
        + (todo if verdict.meaning != MEANING_LINK else ""),
        evidence=tuple(evidence),
        actions=tuple(actions),
        topic="unplaced",
    )


def _what_to_do(pool: Pool | None) -> str:
    """Replace it, scrub first; said against the pool's weakest vdev (this output does not say
    which vdev the disk is in)."""
    replace = (
        "replace it (`zpool replace` that member with a new disk; it stays in until the resilver "
        "ends); a scrub first (`zpool scrub`) reads every block and shows whether ZFS found bad "
        "data on it (its READ or CKSUM count) and rewrites what it can from the other disks."
    )
    tops = list({id(t): t for t, _ in leaves_with_top(pool)}.values()) if pool is not None else []
    if not tops:
        return "Then " + replace
    weakest = min((margin(t) for t in tops), key=lambda m: m.left)
    if weakest.left >= 1:
        return f"The pool keeps redundancy while it is replaced ({weakest.describe()}): " + replace
    return (
        f"{weakest.describe()}: if this disk is in it, its unreadable sectors may be the only copy. "
        "Copy off what matters first, then " + replace
    )


def _headline(problems: tuple[str, ...]) -> str:
    """The first two figures, short: the overall verdict only when nothing more specific says
    why, and without their explanations in parentheses (the evidence has them)."""
    specific = [p for p in problems if p != "SMART overall health FAILED"] or list(problems)
    short = [re.sub(r" \([^)]*\)", "", p) for p in specific]
    return fmt_list(short, 2)


def check(history: Sequence[Snapshot], cfg: CheckConfig) -> list[Finding]:
    return tracker.fold(Tracker, history, cfg)
