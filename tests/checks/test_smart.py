"""The SMART finding and the evidence beside the slow-disk verdict, from real smartctl reports
(published ones and the lab's), real histograms (the lab's dm-delay mirror under fio) and real
kernel log lines."""

from __future__ import annotations

import dataclasses

from tests.checks.builders import T0, by_check, evidence, leaf, mirror, one, pool, snap
from tests.checks.evidence_builders import CAPTURES, lab_histograms, report, tank_with
from zdash.checks import smart
from zdash.checks._evidence import leaf_evidence, shape, smart_summary, smart_verdict
from zdash.checks.finding import Severity
from zdash.checks.registry import CheckEngine
from zdash.config import CheckConfig
from zdash.model import Evidence, KernelLine, LeafDisks, Snapshot
from zdash.parse.smartctl import parse_smartctl


def smart_findings(*snaps: Snapshot):
    tracker = smart.Tracker(CheckConfig())
    for s in snaps:
        tracker.observe(s)
    return tracker.findings(snaps[-1])


def test_pending_and_reallocated_sectors_on_a_failed_drive_are_critical():
    f = one(
        smart_findings(tank_with([report("ata-pending-reallocated-failed.json", "/dev/sdb")])), check="smart"
    )
    assert f.severity is Severity.CRITICAL and f.subject == "/dev/sdb1"
    assert f.title.startswith("/dev/sdb (Hitachi HDS721050DLE630): the drive itself says it is failing")
    ev = [v for k, v in f.evidence if k == "SMART"]
    assert (
        "1,975 sectors reallocated" in ev and "8 sectors pending (unreadable, waiting to be rewritten)" in ev
    )
    assert [a.action for a in f.actions] == [None, "replace"]
    assert f.actions[0].argv == ("smartctl", "-t", "long", "/dev/sdb")


def test_reallocated_sectors_alone_are_a_warning_the_media_is_failing():
    f = one(smart_findings(tank_with([report("ata-reallocated.json", "/dev/sdb")])), check="smart")
    assert (
        f.severity is Severity.WARNING
        and "the media is failing" in f.title
        and "304 sectors reallocated" in f.title
    )


def test_scsi_grown_defects_and_nvme_errors():
    (scsi,) = smart_findings(tank_with([report("scsi-grown-defects.json", "/dev/sdb")]))
    assert scsi.severity is Severity.WARNING and "260 grown defects" in scsi.title
    (nvme,) = smart_findings(tank_with([report("nvme-media-errors.json", "/dev/sdb")]))
    assert nvme.severity is Severity.WARNING and "7 media errors" in nvme.title
    (crit,) = smart_findings(tank_with([report("nvme-critical-warning.json", "/dev/sdb")]))
    assert crit.severity is Severity.CRITICAL
    assert "its volatile memory backup has failed" in dict(crit.evidence).values() or any(
        "volatile memory backup" in v for _, v in crit.evidence
    )


def test_a_healthy_disk_raises_nothing():
    assert smart_findings(tank_with([report("smartctl-j-a-n-standby.nvme0n1.txt", "/dev/sdb")])) == []


def test_crc_errors_are_the_cable_and_a_warning_only_while_they_grow():
    base = parse_smartctl((CAPTURES / "smartctl-published" / "ata-reallocated.json").read_text())
    clean = dataclasses.replace(base, device="/dev/sdc", reallocated=0, crc_errors=12)
    assert smart_findings(tank_with([clean])) == []  # an old count: on record, not now
    grown = dataclasses.replace(clean, crc_errors=15)
    (f,) = smart_findings(tank_with([clean]), tank_with([grown], T0 + 600))
    assert f.severity is Severity.WARNING and "interface errors" in f.title and f.actions == ()
    assert evidence(f)["CRC errors"] == "12 when zdash first read it, 15 now"


def test_smart_unreadable_is_said_once_not_an_error():
    usb = report("usb-bridge-unknown.json", "/dev/sdb")
    got = smart_findings(tank_with([usb], smart_unavailable=None))
    (f,) = got
    assert f.severity is Severity.INFO and f.subject_kind == "pool" and "1 disk of tank" in f.title
    assert "USB bridge" in evidence(f)["Not readable"]
    missing = tank_with(
        [], smart_unavailable="smartctl not found on PATH (install smartmontools 7 or later to read SMART)"
    )
    (g,) = smart_findings(missing)
    assert g.severity is Severity.INFO and g.pool is None and "smartctl not found" in g.title


def test_the_verdict_words():
    clean = report("smartctl-j-a-n-standby.nvme0n1.txt", "/dev/nvme0n1")
    assert smart_verdict(clean).severity is None
    assert smart_summary(clean).endswith("look at the path to it: cabling, backplane, HBA, firmware")
    assert "QEMU NVMe Ctrl" in smart_summary(clean) and "50 °C" in smart_summary(clean)
    failing = report("ata-pending-reallocated-failed.json", "/dev/sdc")
    assert smart_summary(failing).endswith("the drive itself says it is failing: replace it")


def test_slow_disk_evidence_carries_smart_histogram_and_kernel_log():
    slow, peer = lab_histograms()
    kernel = (
        KernelLine(T0 - 7200, "ata3: hard resetting link"),  # before the onset: not shown
        KernelLine(T0 - 30, "ata3: SATA link up 1.5 Gbps (SStatus 113 SControl 310)"),
        KernelLine(T0 - 20, "sd 2:0:0:0: [sdc] tag#1 timing out command, waited 180s"),  # the peer's
    )
    s = tank_with(
        [report("smartctl-j-a-n-standby.nvme0n1.txt", "/dev/sdb")], histograms=(slow, peer), kernel_log=kernel
    )
    s = dataclasses.replace(
        s,
        evidence=dataclasses.replace(
            s.evidence,
            disks=(LeafDisks("/dev/sdb1", "sdb1", ("sdb",), ("sdb", "sdb1", "ata3")),) + s.evidence.disks[1:],
        ),
    )
    p = s.pools[0]
    top = p.top_level[0]
    rows = leaf_evidence(s, p, top, top.children[0], since=T0 - 300)
    got = dict(rows)
    assert got["SMART"].startswith("no reallocated, pending or uncorrectable sectors")
    # dm-delay 30 ms on every I/O (TCG-slow disks under it): the whole distribution moved up
    assert (
        got["Disk wait p99"] == "268 ms vs 67 ms on its peers (/dev/sdc1); p50 67 ms vs 4 ms, over 903 I/Os"
    )
    assert got["Latency shape"].startswith("slow on every I/O")
    assert [v for k, v in rows if k.startswith("Kernel")] == [
        "ata3: SATA link up 1.5 Gbps (SStatus 113 SControl 310)"
    ]


def test_shapes():
    us, ms = 1_000, 1_000_000
    assert shape(64 * ms, 128 * ms, 1 * ms, 8 * ms).startswith("slow on every I/O")
    assert shape(1 * ms, 512 * ms, 1 * ms, 8 * ms).startswith("a long tail")
    assert shape(500 * us, 8 * ms, 500 * us, 4 * ms).startswith("alike")


def test_the_engine_runs_the_smart_check():
    engine = CheckEngine()
    got = engine.update(tank_with([report("nvme-critical-warning.json", "/dev/sdb")]))
    assert [f.severity for f in by_check(list(got), "smart")] == [Severity.CRITICAL]


def test_a_health_finding_about_a_disk_carries_its_smart_and_kernel_log():
    """sdb1's error counters: the health finding (a structural check, its findings reused while
    the tree stands still) still gets the evidence zdash fetched since, from the engine."""
    failing = report("ata-pending-reallocated-failed.json", "/dev/sdb")
    p = pool("tank", mirror(0, leaf("sdb1", errors=(12, 0, 3)), leaf("sdc1")))
    disks = (LeafDisks("/dev/sdb1", "sdb1", ("sdb",), ("sdb", "sdb1", "ata3")),)
    engine = CheckEngine()
    bare = dataclasses.replace(snap(T0, p), structure_id=7)
    before = one([f for f in engine.update(bare) if f.check == "health"], subject="/dev/sdb1")
    assert not [k for k, _ in before.evidence if k.startswith(("SMART", "Kernel"))]
    ev = Evidence(
        smart=(failing,),
        disks=disks,
        kernel_log=(KernelLine(T0 + 5, "ata3.00: failed command: READ FPDMA QUEUED"),),
    )
    after = one(
        [
            f
            for f in engine.update(dataclasses.replace(bare, time=T0 + 10, evidence=ev))
            if f.check == "health"
        ],
        subject="/dev/sdb1",
    )
    rows = dict(after.evidence)
    assert rows["SMART"].endswith("the drive itself says it is failing: replace it")
    assert rows["Kernel 22:13:25 UTC"] == "ata3.00: failed command: READ FPDMA QUEUED"
