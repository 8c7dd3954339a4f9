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
from zdash.model import Pool, SmartReport, Snapshot, Vdev

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
        for pool in snap.pools:
            unreadable: list[str] = []
            for top, leaf in leaves_with_top(pool):
                disks = ev.disks_of(leaf.path)
                if disks is None:
                    continue
                for disk in disks.disks[:1] if disks.multipath else disks.disks:
                    report = ev.smart_of(disk)
                    if report is None:
                        continue
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
        return out

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


def _headline(problems: tuple[str, ...]) -> str:
    """The first two figures, short: the overall verdict only when nothing more specific says
    why, and without their explanations in parentheses (the evidence has them)."""
    specific = [p for p in problems if p != "SMART overall health FAILED"] or list(problems)
    short = [re.sub(r" \([^)]*\)", "", p) for p in specific]
    return fmt_list(short, 2)


def check(history: Sequence[Snapshot], cfg: CheckConfig) -> list[Finding]:
    return tracker.fold(Tracker, history, cfg)
