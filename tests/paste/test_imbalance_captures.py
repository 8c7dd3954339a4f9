"""The seeds' expert's third cause of imbalance, captured in the lab (tests/captures/
imbalance-deletes and imbalance-share, OpenZFS 2.3.2): a disk filled to 83 %, an equal disk
added, 1.3 GiB written (mostly to the new disk, the old one being nearly full), the old data
deleted. Pasted as `zpool iostat -v` alone, as people paste it, and as the whole transcript."""

from __future__ import annotations

import pytest

from tests.paste.helpers import CAPTURES, snapshot
from zdash.checks.finding import Severity
from zdash.config import CheckConfig
from zdash.fold import run_checks


def imbalance_of(path: str):
    snap, _ = snapshot((CAPTURES / path).read_text())
    return [f for f in run_checks([snap], CheckConfig(one_look=True)) if f.check == "imbalance"]


@pytest.mark.parametrize("paste", ["zpool-iostat-v.txt", "zpool-list-v.txt", "transcript.txt"])
def test_nearly_empty_pool_of_equal_vdevs_the_later_one_holding_the_data(paste):
    """After the vdevs grew to 64 GiB: 0.37 % vs 1.61 % full, 242M vs 1.03G."""
    (f,) = imbalance_of(f"imbalance-share/{paste}")
    assert f.severity == Severity.INFO
    assert f.title == "lab: /tmp/share/d1 holds 81 % of the data on equal vdevs (data deleted)"
    assert "written before it was added has since been deleted" in f.why
    assert "not the allocator" in f.why and "new writes spread by free space" in f.why
    assert "Reads of the existing data all come from /tmp/share/d1" in f.why
    by_add = "(by a `zpool add` the paste shows)" in f.why
    assert by_add is (paste == "transcript.txt")


@pytest.mark.parametrize("paste", ["zpool-iostat-v.txt", "transcript.txt"])
def test_small_disks_the_same_history_is_a_spread_of_uneven_frees_and_only_a_note(paste):
    """On the 2 GiB disks the same history is 10.3 % vs 57.5 % full: the spread finding, whose
    cause is how the data was deleted, and a note (nothing nears 80 %)."""
    (f,) = imbalance_of(f"imbalance-deletes/{paste}")
    assert f.severity == Severity.INFO
    assert "(uneven frees on equal vdevs)" in f.title and "47.3 points" in f.title
    if paste == "transcript.txt":  # its `zpool add` line is direct evidence, not the order
        assert "virtio-zfslab-disk1, was added by a `zpool add` the paste shows" in f.why
        assert dict(f.evidence)["Added by `zpool add`"] == "virtio-zfslab-disk1"
    else:
        assert "virtio-zfslab-disk1, comes after virtio-zfslab-disk0 in the vdev order" in f.why
    assert "not the allocator" in f.why


def test_the_transcripts_zpool_add_line_is_read_not_reported():
    _, imported = snapshot((CAPTURES / "imbalance-share/transcript.txt").read_text())
    add_line = next(n for n, line in enumerate(imported.doc.lines, 1) if "zpool add lab" in line)
    assert add_line in imported.used
    assert all(u.line != add_line for u in imported.unread)
