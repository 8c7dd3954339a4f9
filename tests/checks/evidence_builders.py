"""Snapshots carrying the evidence beside a verdict, from real inputs: published smartctl
reports and the lab's own (tests/captures/smartctl-published, tests/captures/evidence), and the
lab's histograms of a dm-delay NVMe mirror side under fio. For the check tests and the UI's."""

from __future__ import annotations

import dataclasses
from pathlib import Path

from tests.checks.builders import T0, leaf, mirror, pool, snap
from zdash.model import Evidence, LatencyHistogram, LeafDisks, Snapshot
from zdash.parse.smartctl import parse_smartctl
from zdash.parse.zpool_iostat_hist import parse_histograms

CAPTURES = Path(__file__).resolve().parents[1] / "captures"


def report(name: str, device: str):
    path = CAPTURES / "smartctl-published" / name
    if not path.exists():
        path = CAPTURES / "evidence" / name
    return dataclasses.replace(parse_smartctl(path.read_text()), device=device)


def tank_with(reports, t: float = T0, **ev) -> Snapshot:
    """tank: mirror-0 of sdb1 and sdc1 (disks sdb, sdc), with these SMART readings."""
    p = pool("tank", mirror(0, leaf("sdb1"), leaf("sdc1")))
    disks = tuple(LeafDisks(f"/dev/{d}1", f"{d}1", (d,), (d, f"{d}1")) for d in ("sdb", "sdc"))
    return dataclasses.replace(snap(t, p), evidence=Evidence(smart=tuple(reports), disks=disks, **ev))


def lab_histograms() -> tuple[LatencyHistogram, LatencyHistogram]:
    blocks = {
        b.name: b
        for b in parse_histograms((CAPTURES / "evidence" / "zpool-iostat-w-v-H-p.load.txt").read_text())
    }
    return (
        LatencyHistogram("tank", "guid-sdb1", blocks["slownv"].bounds, blocks["slownv"].columns, T0, T0 - 60),
        LatencyHistogram(
            "tank", "guid-sdc1", blocks["nvme1n1"].bounds, blocks["nvme1n1"].columns, T0, T0 - 60
        ),
    )
