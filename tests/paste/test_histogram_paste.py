"""A pasted `zpool iostat -w -v` beside the pool's `zpool status`: imported, so the finding
about a disk compares its latency histogram with its peers' (issue 30, "in pastes too"); alone
it holds no state a verdict could rest on and is not imported (corpus 179)."""

from __future__ import annotations

from pathlib import Path

from zdash.builder import SnapshotBuilder
from zdash.checks.registry import CheckEngine
from zdash.config import CheckConfig
from zdash.paste.front import paste_tick
from zdash.paste.samples import import_paste

CAPTURES = Path(__file__).resolve().parents[1] / "captures" / "deranged-disk"


def test_a_histogram_beside_the_status_is_the_slow_disks_evidence():
    text = (
        "# zpool status -s -P -p\n"
        + (CAPTURES / "zpool-status-s-P-p.after-load.txt").read_text()
        + "\n# zpool iostat -v -w deranged\n"
        + (CAPTURES / "zpool-iostat-v-w.txt").read_text()
    )
    imported = import_paste(text)
    assert [s.key for s in imported.samples if s.key.startswith("hist:")] == ["hist:deranged"]
    assert not [u for u in imported.unread if "histogram" in u.why]
    snap = SnapshotBuilder().feed(paste_tick(imported, 0.0))
    assert {h.vdev for h in snap.evidence.histograms} >= {"loop2", "slowdisk"}
    findings = CheckEngine(CheckConfig(one_look=True)).update(snap)
    slow = next(f for f in findings if f.check == "deranged_disk")
    rows = dict(slow.evidence)
    assert slow.subject == "/dev/mapper/slowdisk"
    # the paste's counts are since the pool's import; the 100 ms dm-delay disk against loop2
    assert (
        rows["Disk wait p99"]
        == "134 ms vs 33 ms on its peers (/dev/loop2); p50 134 ms vs 2 ms, since the pool's import"
    )
    assert rows["Latency shape"].startswith("slow on every I/O")


def test_a_histogram_alone_is_not_imported():
    imported = import_paste((CAPTURES / "zpool-iostat-v-w.txt").read_text())
    assert not [s for s in imported.samples if s.key.startswith("hist:")]
    assert {u.why for u in imported.unread} == {
        "`zpool iostat -w/-r` histogram: not imported (no status or list of its pool pasted)"
    }
