"""`zpool history` (and a transcript's `zpool add` lines): the devices each pool's add named."""

from __future__ import annotations

from pathlib import Path

import pytest

from zdash.parse.zpool_history import added_devices, attached_device, parse_history

CAPTURES = Path(__file__).resolve().parents[1] / "captures"


def test_the_lab_transcripts_history():
    text = (CAPTURES / "imbalance-deletes/transcript.txt").read_text()
    history = text[text.index("History for 'lab':") :]
    assert parse_history(history).added == {"lab": ("/dev/disk/by-id/virtio-zfslab-disk1",)}


@pytest.mark.parametrize(
    "line, expected",
    [
        ("zpool add tank mirror sdc sdd", ("tank", ("sdc", "sdd"))),
        ("zpool add -f -o ashift=12 tank raidz2 a b c d", ("tank", ("a", "b", "c", "d"))),
        ("zpool add tank log mirror nvme0 nvme1", ("tank", ("nvme0", "nvme1"))),
        ("zpool add tank draid2:4d:1s:11c d1 d2", ("tank", ("d1", "d2"))),
        ("zpool add -n tank sdc", None),  # a dry run adds nothing
        ("zpool add tank", None),
        ("zpool attach tank sda sdb", None),
    ],
)
def test_add_lines(line, expected):
    assert added_devices(line.split()) == expected


def test_history_with_long_format_and_internal_events():
    text = (
        "History for 'tank':\n"
        "2024-01-02.03:04:05 zpool create tank sda\n"
        "2024-01-03.03:04:05 [txg:123] add vdev tank ...\n"
        "2024-01-04.03:04:05 zpool add tank sdb [user 0 (root) on host:linux]\n"
        "2024-01-05.03:04:05 zpool add -n tank sdc\n"
    )
    assert parse_history(text).added == {"tank": ("sdb",)}


@pytest.mark.parametrize(
    "line, expected",
    [
        ("zpool attach zroot da1p4 da0p4", ("zroot", "da0p4")),
        (
            "zpool attach -f -o ashift=12 tank sda /dev/disk/by-id/ata-NEW",
            ("tank", "/dev/disk/by-id/ata-NEW"),
        ),
        ("zpool attach -w tank raidz1-0 sdf", ("tank", "sdf")),  # a raidz expansion (2.3)
        ("zpool attach tank sda", None),
        ("zpool add tank sdb", None),
    ],
)
def test_attach_lines(line, expected):
    """A transcript's attach says which side is being added (its resilver is not a loss)."""
    assert attached_device(line.split()) == expected
    if expected is not None:
        assert parse_history(line).attached == {expected[0]: (expected[1],)}
