"""When the live source fetches the evidence beside a verdict: SMART of a named leaf's disk at
once and every 5 minutes, every other disk slowly (at most one a minute, each at most hourly),
histograms of the named leaf and its peers every 10 s, the kernel log every minute while a
finding stands; smartctl that cannot work on this host is left alone for an hour."""

from __future__ import annotations

import dataclasses

from tests.checks.builders import T0, leaf, mirror, pool, snap
from zdash.model import Evidence, LeafDisks
from zdash.raw import RawSample
from zdash.sources.evidence import EvidenceSchedule, smart_argv

LEAVES = ("/dev/sdb1", "/dev/sdc1", "/dev/sdd1", "/dev/sde1")


def snapshot():
    p = pool("tank", mirror(0, leaf("sdb1"), leaf("sdc1")), mirror(1, leaf("sdd1"), leaf("sde1")))
    disks = tuple(LeafDisks(f"/dev/{d}1", f"{d}1", (d,), (d,)) for d in ("sdb", "sdc", "sdd", "sde"))
    return dataclasses.replace(snap(T0, p), evidence=Evidence(disks=disks))


def keys(due):
    return [k for k, _ in due]


def test_nothing_named_means_only_the_slow_sweep():
    s = EvidenceSchedule()
    s.want(snapshot(), set())
    first = s.due(T0, LEAVES)
    assert keys(first) == ["blockdevs", "sysfs", "smart:sdb"]
    assert (
        dict(first)["smart:sdb"] == smart_argv("sdb") == ("smartctl", "-j", "-a", "-n", "standby", "/dev/sdb")
    )
    swept = [k for t in range(1, 600) for k in keys(s.due(T0 + t, LEAVES)) if k.startswith("smart:")]
    assert swept == ["smart:sdc", "smart:sdd", "smart:sde"]  # one a minute, then nothing: all read
    later = [k for t in range(3600, 3660) for k in keys(s.due(T0 + t, LEAVES)) if k.startswith("smart:")]
    assert later == ["smart:sdb"]  # an hour on: the oldest reading first, one at a time


def test_a_named_leaf_gets_smart_histograms_and_the_kernel_log():
    s = EvidenceSchedule()
    s.want(snapshot(), {("tank", "/dev/sdc1")})
    due = dict(s.due(T0, LEAVES))
    assert "smart:sdc" in due
    assert due["hist:tank"] == (
        "zpool",
        "iostat",
        "-w",
        "-H",
        "-p",
        "-g",
        "tank",
        "guid-sdb1",
        "guid-sdc1",
        "1",
        "1",
    )
    assert "--since" not in due["kernlog"]  # the first read: the boot's last lines
    ticks = {t: keys(s.due(T0 + t, LEAVES)) for t in range(1, 301)}
    assert [t for t, k in ticks.items() if "hist:tank" in k] == list(range(10, 301, 10))
    assert [t for t, k in ticks.items() if "kernlog" in k] == [60, 120, 180, 240, 300]
    assert [t for t, k in ticks.items() if "smart:sdc" in k] == [300]
    since = dict(s.due(T0 + 360, LEAVES))["kernlog"]
    assert since[-2:] == ("--since", f"@{int(T0 - 600)}")  # from 10 minutes before the finding


def test_a_host_without_a_journal_reads_dmesg():
    s = EvidenceSchedule()
    s.want(snapshot(), {("tank", "/dev/sdc1")})
    argv = dict(s.due(T0, LEAVES))["kernlog"]
    s.note(RawSample("kernlog", argv, 0, "", "", T0 + 1), None)
    assert dict(s.due(T0 + 2, LEAVES))["kernlog"] == ("dmesg", "--time-format", "iso")


def test_smartctl_missing_or_refused_is_left_alone_for_an_hour():
    s = EvidenceSchedule()
    s.want(snapshot(), {("tank", "/dev/sdc1")})
    argv = dict(s.due(T0, LEAVES))["smart:sdc"]
    s.note(RawSample("smart:sdc", argv, None, "", "", T0, 0.0, "smartctl not found on PATH"), None)
    assert not [k for t in range(1, 3500) for k in keys(s.due(T0 + t, LEAVES)) if k.startswith("smart:")]
    assert any(k.startswith("smart:") for k in keys(s.due(T0 + 3601, LEAVES)))
    s2 = EvidenceSchedule()
    s2.want(snapshot(), set())
    s2.note(RawSample("smart:sdb", argv, 2, "{}", "", T0), "permission")
    assert not [k for k in keys(s2.due(T0 + 1, LEAVES)) if k.startswith("smart:")]


def test_file_vdevs_cost_nothing():
    s = EvidenceSchedule()
    p = pool("files", mirror(0, leaf("/tmp/a", kind="file"), leaf("/tmp/b", kind="file")))
    s.want(snap(T0, p), {("files", "/tmp/a")})
    assert keys(s.due(T0, ("/tmp/a", "/tmp/b"))) == ["hist:files", "kernlog"]
