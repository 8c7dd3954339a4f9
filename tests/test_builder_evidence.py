"""The builder folds the evidence samples into Snapshot.evidence: SMART readings (a failing
disk's non-zero exit status included), histograms as counts since the first reading of a run,
the kernel log, the disks under each leaf; never a missing or stale source; kept by keyframes."""

from __future__ import annotations

from pathlib import Path

from tests.capture_ticks import capture_tick
from zdash.builder import SnapshotBuilder
from zdash.raw import RawSample, Tick
from zdash.sources.evidence import smart_argv

CAPTURES = Path(__file__).resolve().parent / "captures"
LAB = CAPTURES / "evidence"
DEVICES = "/dev/mapper/slownv\tdm-0\t512\t0\n/dev/nvme1n1p1\tnvme1n1p1\t512\t0\n"


def sample(key, argv, text, t, rc=0, error=None):
    return RawSample(key, tuple(argv), rc, text, "", t, 0.1, error)


def hist_text(counts_slow: int, counts_peer: int) -> str:
    """A `zpool iostat -w -H -p -g` reading of two vdevs, every count in bucket 8 ms."""
    out = []
    for name, n in (("111", counts_slow), ("222", counts_peer)):
        out.append("")
        out.append(name)
        for j in range(37):
            value = n if j == 22 else 0
            out.append("\t".join([str((1 << (j + 1)) - 1)] + [str(value)] * 11))
    return "\n".join(out) + "\n"


def test_smart_histograms_kernel_log_and_disks_reach_the_snapshot():
    b = SnapshotBuilder()
    t = 1000.0
    base = capture_tick("deranged-disk", "after-load", t=t)
    failing = (CAPTURES / "smartctl-published" / "ata-pending-reallocated-failed.json").read_text()
    snap = b.feed(
        Tick(
            t,
            base.samples
            + (
                sample("devices", ("zdash", "describe-devices"), DEVICES, t),
                sample("blockdevs", ("lsblk",), (LAB / "lsblk-P.txt").read_text(), t),
                sample("sysfs", ("readlink",), (LAB / "readlink-sysfs.txt").read_text(), t),
                sample(
                    "smart:nvme0n1",
                    smart_argv("nvme0n1"),
                    (LAB / "smartctl-j-a-n-standby.nvme0n1.txt").read_text(),
                    t,
                ),
                # smartctl exits 216 for this disk (failing, errors logged): still a reading
                sample(
                    "smart:sdc", smart_argv("sdc"), failing, t, rc=216, error="smartctl -j: exit code 216"
                ),
                sample("hist:deranged", ("zpool", "iostat", "-w"), hist_text(100, 100), t),
                sample("kernlog", ("dmesg",), (LAB / "dmesg-time-format-iso.txt").read_text(), t),
            ),
        )
    )
    ev = snap.evidence
    assert {r.device: r.passed for r in ev.smart} == {"/dev/nvme0n1": True, "/dev/sdc": False}
    assert ev.smart_of("nvme0n1").time == t
    slownv = ev.disks_of("/dev/mapper/slownv")
    assert slownv.disks == ("nvme0n1",) and "nvme0" in slownv.names
    assert len(ev.kernel_log) > 400
    h = ev.histogram("deranged", "111")
    assert h.since is None and h.count("disk_read") == 100  # the first reading: since import
    assert not [
        s for s in snap.sources if s.key.split(":")[0] in ("smart", "hist", "kernlog", "blockdevs", "sysfs")
    ]

    later = b.feed(
        Tick(t + 10, (sample("hist:deranged", ("zpool", "iostat", "-w"), hist_text(130, 104), t + 10),))
    )
    h2 = later.evidence.histogram("deranged", "111")
    assert (
        h2.since,
        h2.count("disk_read"),
        later.evidence.histogram("deranged", "222").count("disk_read"),
    ) == (t, 30, 4)

    restored = SnapshotBuilder.restore(b.checkpoint())  # a keyframe keeps the baselines
    again = restored.feed(
        Tick(t + 20, (sample("hist:deranged", ("zpool", "iostat", "-w"), hist_text(150, 110), t + 20),))
    )
    assert again.evidence.histogram("deranged", "111").count("disk_read") == 50
    assert again.evidence.smart == later.evidence.smart and again.evidence.disks == later.evidence.disks
    nothing_new = b.feed(Tick(t + 21, ()))
    assert nothing_new.evidence is b.feed(Tick(t + 22, ())).evidence  # unchanged: not rebuilt


def test_counters_that_went_back_start_a_new_baseline():
    b = SnapshotBuilder()
    b.feed(Tick(1.0, (sample("hist:p", ("zpool",), hist_text(100, 100), 1.0),)))
    b.feed(Tick(2.0, (sample("hist:p", ("zpool",), hist_text(120, 100), 2.0),)))
    reimported = b.feed(Tick(3.0, (sample("hist:p", ("zpool",), hist_text(5, 5), 3.0),)))
    h = reimported.evidence.histogram("p", "111")
    assert (h.since, h.count("disk_read")) == (None, 5)


def test_smartctl_missing_is_said_in_the_evidence_not_as_a_source_error():
    b = SnapshotBuilder()
    missing = RawSample(
        "smart:sdb",
        smart_argv("sdb"),
        None,
        "",
        "",
        5.0,
        0.0,
        "smartctl not found on PATH (install smartmontools 7 or later to read SMART)",
    )
    snap = b.feed(Tick(5.0, (missing,)))
    assert snap.evidence.smart_unavailable.startswith("smartctl not found")
    assert not [s for s in snap.sources if s.key.startswith("smart")]


def test_a_histogram_is_shown_only_while_it_is_fresh():
    """Read while a finding stood; two minutes after the last reading (the finding gone) it is
    no longer shown: an old picture must not pass for the disk's state now."""
    b = SnapshotBuilder()
    b.feed(Tick(1.0, (sample("hist:p", ("zpool",), hist_text(100, 100), 1.0),)))
    assert b.feed(Tick(100.0, ())).evidence.histogram("p", "111") is not None
    assert b.feed(Tick(122.0, ())).evidence.histograms == ()


def test_a_kernel_log_that_cannot_be_read_is_said_in_the_evidence():
    denied = RawSample(
        "kernlog",
        ("dmesg", "--time-format", "iso"),
        1,
        "",
        "",
        5.0,
        0.0,
        "dmesg --time-format: dmesg: read kernel buffer failed: Operation not permitted",
    )
    snap = SnapshotBuilder().feed(Tick(5.0, (denied,)))
    assert "Operation not permitted" in snap.evidence.kernel_log_unavailable
    assert not [s for s in snap.sources if s.key == "kernlog"]
